// The main menu bar: File, View, Lessons and Help, the first start's tour hint and the session's path.
#pragma once

#include "ui/model/app_state.h"

namespace attnlab
{

// Draws the main menu bar and applies what was chosen (the File actions through ui/shell/file_actions.h).
void draw_menu_bar(AppState& state);

} // namespace attnlab
