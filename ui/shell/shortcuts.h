// The keyboard shortcuts of the frame (menus, panels, heads, lessons, presenter mode); the Help list of every
// shortcut is declared in ui/shell/app_ui.h.
#pragma once

#include "ui/model/app_state.h"

namespace attnlab
{

// Applies this frame's shortcut keys to the state: Ctrl (files, text size, quit, the trained model),
// Alt+digit (a panel of the panel table), F5, F11, and the keys that act only while no text field or popup
// has the keyboard ([ ], T, Esc, the lesson's steps).
void handle_shortcuts(AppState& state);

} // namespace attnlab
