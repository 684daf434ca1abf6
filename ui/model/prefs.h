// Preferences file: theme, font size, presenter mode's size and theme, numbers in cells, open panels and the
// panels the user placed, in the user's config folder.
#pragma once

#include "core/status.h"
#include "ui/model/app_state.h"

#include <string>

namespace attnlab
{

// $XDG_CONFIG_HOME/attnlab, else $HOME/.config/attnlab ("" when neither variable is set).
std::string config_dir();

// "key = value" lines. Unknown keys and bad values are ignored (an old or hand-edited file never stops the
// app); a missing file leaves prefs unchanged, and so does a refused one (read_config_file in
// config_files.h), whose error is returned.
Status load_prefs(const std::string& path, ViewPrefs& prefs);
// Creates the folder when needed; the file is written whole or not at all, and a link or anything else that
// is not a regular file at path is replaced, never written through (OutputKind::OwnFile).
Status save_prefs(const std::string& path, const ViewPrefs& prefs);

// The text of a prefs file (what save_prefs writes) and its parser, for tests.
std::string prefs_to_text(const ViewPrefs& prefs);
void prefs_from_text(const std::string& text, ViewPrefs& prefs);

} // namespace attnlab
