// The whole frame of the app (ui/shell/frame.cpp): menu bar, keyboard shortcuts, panels at their default
// places, popups and the status bar. ImGui only (the window owns GLFW and GL).
#pragma once

#include "ui/model/app_state.h"

#include <string>

namespace attnlab
{

// Key codes as the GLFW backend of ImGui 1.86 writes them into io.KeysDown: printable keys are their ASCII
// upper-case code, F11 is 300, the arrows 262 / 263, Page Up / Down 266 / 267 (app/window.cpp checks these
// against GLFW's constants).
namespace keys
{
inline constexpr int O = 'O', S = 'S', E = 'E', Q = 'Q', T = 'T', P = 'P', R = 'R';
inline constexpr int H = 'H', D = 'D', M = 'M'; // presenter mode's edit bar: h, d_model, mask
inline constexpr int LeftBracket = '[', RightBracket = ']', Equal = '=', Minus = '-';
inline constexpr int Digit0 = '0', Digit1 = '1';
inline constexpr int F11 = 300;
inline constexpr int F5 = 294, Space = ' ', Right = 262, Left = 263;
inline constexpr int PageUp = 266, PageDown = 267;  // what most presentation clickers send
inline constexpr int Home = 268, End = 269;         // a lesson's first and last step
inline constexpr int B = 'B', Period = '.';         // a clicker's blank-screen key
inline constexpr int Up = 265, Down = 264, V = 'V'; // the Heads panel's pinned query and view
} // namespace keys

// Draws one frame's UI into the current ImGui context (between NewFrame and Render). Applies shortcuts,
// then the panels of the table in order. Does not recompute: call state.update() before NewFrame.
void draw_app(AppState& state);

// File > Export window as PNG pictures the window as it is without the dialog: not the frame in which the
// dialog closes, but one after a whole frame without any popup (dialog, menu, context menu). That frame is
// drawn with the mouse ignored, so no tooltip or hover outline gets into the picture either.
// Before NewFrame: true when the coming frame is the one to capture (then the mouse is switched off for it).
bool begin_window_capture(AppState& state);
// After that frame is drawn and written (or not): reports the result in the status bar, clears the request
// and gives the mouse back.
void end_window_capture(AppState& state, const Status& written);

// The shortcut list shown in Help (and in the README): pairs of keys and what they do. The panels' row is
// made from the panel table (ui/model/panel_table.h). Implemented in ui/shell/shortcuts.cpp.
struct ShortcutInfo
{
    std::string keys;
    std::string action;
};
const ShortcutInfo* shortcut_table(int* count);

} // namespace attnlab
