// Dark and light themes tuned for a projector: high contrast text, clear frames, larger rounding.
#pragma once

namespace attnlab
{

// Applies the theme to the current ImGui style and scales sizes by `scale` (the monitor's content scale).
void apply_theme(bool dark, float scale);
// Presenter mode's themes, sizes scaled likewise: dark is white on black with a yellow accent; light (for
// bright lecture halls, where a projector's black turns grey) is black on white with a dark orange accent.
// Both have thick frames and no rounding.
void apply_presenter_theme(bool dark, float scale);
// The background of presenter mode's view (a shade apart from its title line and caption), in RGBA 0..1.
void presenter_view_background(bool dark, float rgba[4]);

} // namespace attnlab
