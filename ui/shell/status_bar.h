// The status bar at the bottom of the window: the trace's shape and timings, and the current message.
#pragma once

#include "ui/model/app_state.h"

namespace attnlab
{

// Draws the status bar across the display at `y`, `height` pixels tall. The message is, first, that an
// invalid session shows its last valid result (pointing to the panel that says why, or saying it when that
// panel is closed), else state.message, else the font's message; cut with "…" to one line.
void draw_status_bar(AppState& state, float y, float height);

} // namespace attnlab
