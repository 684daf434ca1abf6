// Presenter mode: for a lecture, one large view (the step's highlighted stages, or its view) and the step's
// text as a caption, without the editing chrome.
#pragma once

#include "ui/app_state.h"

namespace attnlab
{

// Draws the whole presenter frame (between NewFrame and Render): a title line with the lesson and the step
// counter, the view filling the window, the caption at the bottom.
void draw_presenter(AppState& state);

} // namespace attnlab
