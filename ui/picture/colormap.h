// Colour maps and the value -> colour step for heatmaps: pure functions (no ImGui, no GL), unit-tested.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace attnlab
{

// A colour packed as in ImGui's IM_COL32 and in an RGBA8 texture: R in the low byte, A in the high byte.
using Color32 = std::uint32_t;

constexpr Color32 pack_rgba(std::uint8_t r, std::uint8_t g, std::uint8_t b, std::uint8_t a = 255)
{
    return static_cast<Color32>(r) | (static_cast<Color32>(g) << 8) | (static_cast<Color32>(b) << 16) |
           (static_cast<Color32>(a) << 24);
}
constexpr std::uint8_t red_of(Color32 c)
{
    return static_cast<std::uint8_t>(c & 0xFF);
}
constexpr std::uint8_t green_of(Color32 c)
{
    return static_cast<std::uint8_t>((c >> 8) & 0xFF);
}
constexpr std::uint8_t blue_of(Color32 c)
{
    return static_cast<std::uint8_t>((c >> 16) & 0xFF);
}

// −∞ (a masked score) gets its own colour, a dark blue-grey that neither map uses; large cells also get
// diagonal stripes in this colour and kNegInfStripe.
inline constexpr Color32 kNegInfColor = pack_rgba(58, 58, 66);
inline constexpr Color32 kNegInfStripe = pack_rgba(96, 96, 108);
// NaN should never reach the screen (the engine never makes one); if it does, it is loud magenta.
inline constexpr Color32 kNanColor = pack_rgba(255, 0, 255);

enum class Colormap
{
    Sequential, // viridis-like: dark purple -> blue -> green -> yellow; monotonic lightness, colour-blind
                // safe
    Diverging,  // blue -> near-white -> red (ColorBrewer RdBu-like), colour-blind safe, white at zero
};

// 256 entries, index 0 = the low end.
const std::array<Color32, 256>& colormap_table(Colormap map);

// How values map to colours.
enum class ScaleKind
{
    Probability, // fixed [0, 1], sequential: attention weights (so two maps are comparable at a glance)
    Sequential,  // [min, max] of the matrix, sequential: non-negative values
    Diverging,   // [-a, a] with a = max |value|, diverging: signed values, zero is white
};

struct ColorScale
{
    ScaleKind kind = ScaleKind::Diverging;
    float lo = -1.0f; // value shown at the low end of the colour bar
    float hi = 1.0f;  // value shown at the high end
    Colormap map() const { return kind == ScaleKind::Diverging ? Colormap::Diverging : Colormap::Sequential; }
};

// The true range of a matrix: finite min and max, and whether −∞ or NaN appear.
struct ValueRange
{
    float min = 0.0f, max = 0.0f; // over finite values (0, 0 when there is none)
    bool has_neg_inf = false;
    bool has_pos_inf = false;
    bool has_nan = false;
    std::size_t finite_count = 0;
};

ValueRange value_range(const float* values, std::size_t count);

// Picks the scale: Probability when asked for, Sequential when nothing is negative, Diverging otherwise.
// A constant matrix gets a range of width 1 around its value so the colour is well defined.
// stretch_top > 0: a probability scale runs from 0 to stretch_top instead of 1 (see stretch_top()).
ColorScale choose_scale(const ValueRange& range, bool probability, float stretch_top = 0.0f);

// The top of a stretched weights scale: the 95th percentile of the finite values (at most 1), so the
// near-uniform rows of a long sentence (~1/T) spread over the colours and a few large weights saturate.
float stretch_top(const float* values, std::size_t count);

// Position of v on the scale in [0, 1] (clamped); −∞ -> 0, +∞ -> 1, NaN -> 0.
float scale_position(float v, const ColorScale& scale);

// The colour of one value: −∞ -> kNegInfColor, NaN -> kNanColor, otherwise the table entry.
Color32 value_to_color(float v, const ColorScale& scale);

// Black or white, whichever reads better on top of this colour (for numbers drawn inside cells).
Color32 text_color_on(Color32 background);

// The WCAG 2 contrast ratio of two colours, from 1 (the same luminance) to 21 (black on white). Text
// needs 4.5 to be read comfortably, from the back of a lecture hall too.
float contrast_ratio(Color32 a, Color32 b);
// Black or white, whichever has the larger contrast ratio on this fill (a chip's label).
Color32 chip_text_color(Color32 fill);
// fg itself when it has at least min_ratio on bg; otherwise fg mixed with white (on a dark bg) or black (on a
// light one), just enough to reach it. Keeps fg's hue for text in a head's colour.
Color32 readable_on(Color32 fg, Color32 bg, float min_ratio = 4.5f);

// The colour of a character the model was `nats` surprised at (−ln p, clamped to [0, max_nats]): background
// itself at 0 (no surprise), amber at half of max_nats, wine purple at max_nats and beyond (apart from the
// loss curves' vermilion); NaN (nothing
// predicted it): background. The ramp starts from the theme's background, so it reads on both themes.
Color32 surprise_color(float nats, float max_nats, Color32 background);

// The categorical colour of head j (Okabe–Ito palette, colour-blind safe), cycling after eight.
Color32 head_color(int j);

} // namespace attnlab
