// Dark and light themes tuned for a projector: high contrast text, clear frames, larger rounding.
#pragma once

namespace attnlab
{

// Applies the theme to the current ImGui style and scales sizes by `scale` (the monitor's content scale).
void apply_theme(bool dark, float scale);
// Presenter mode's theme: white on black, a yellow accent, thick frames, no rounding; sizes scaled likewise.
void apply_presenter_theme(float scale);

} // namespace attnlab
