// The config folder's own text files: reading one with the checks every file read gets, and the recent-files
// list's text (parsed apart from its file, so it can be tested and fuzzed on a buffer).
#pragma once

#include "core/status.h"

#include <string>
#include <string_view>
#include <vector>

namespace attnlab
{

// Reads a file of the config folder (preferences, ImGui's layout, recent files) with the checks every file
// read gets (read_file: a regular file, at most kMaxSessionFileBytes; a FIFO or a device is refused before
// any read, so it never blocks or grows without end). A missing file gives "" and no error; a refused one
// gives "" and an error naming it and why, followed by "; <instead> until it is removed or replaced".
// what: "preferences file"; instead: "the default preferences are used".
Status read_config_file(const std::string& path, std::string* text, const char* what, const char* instead);

// The recent-files list: one path per line, most recent first; "#" lines are comments, a "\r" before the
// line's end is dropped, empty lines and repeats are skipped, and at most max_files paths are kept.
std::vector<std::string> recent_files_from_text(std::string_view text, int max_files);
std::string recent_files_to_text(const std::vector<std::string>& files);

} // namespace attnlab
