// Session files: "attnlab-session" JSON holding texts, every setting, the seed and the weights source.
#pragma once

#include "core/session.h"
#include "core/status.h"

#include <string>
#include <string_view>

namespace attnlab
{

inline constexpr const char* kSessionFormat = "attnlab-session";
inline constexpr int kSessionVersion = 1;

// The session as JSON text (core/io/FORMAT.md). The same session always gives the same bytes, and
// session_from_json(session_to_json(s)) == s, so save -> load -> save is byte-identical.
std::string session_to_json(const Session& session);

// Parses a session. Missing optional fields keep Session{}'s defaults; a wrong format, a newer version,
// malformed JSON, an unknown key or an invalid value is an error naming source and field, e.g.
// "session.json: \"heads\" must be a positive integer, got -3". On error *out is left unchanged.
Status session_from_json(std::string_view text, const std::string& source, Session* out);

// File versions of the above. Saving writes a temporary file and renames it (no partial file on error).
Status save_session_file(const Session& session, const std::string& path);
Status load_session_file(const std::string& path, Session* out);

// The file a session's weights_path points to: a relative path is relative to the session file's folder
// (session_path empty: to the working directory). Empty weights_path stays empty.
std::string resolve_weights_path(const std::string& session_path, const std::string& weights_path);

// The same file as an absolute, normalised path, so that a session held in memory (and the autosave made
// from it) points to its weights whatever the working directory is. Empty stays empty.
std::string absolute_weights_path(const std::string& session_path, const std::string& weights_path);

// The reverse, for saving to session_path: weights inside the session file's folder (or below it) are
// written relative to it, so the two can be moved or shared together; any other path is kept as it is.
std::string portable_weights_path(const std::string& session_path, const std::string& weights_path);

} // namespace attnlab
