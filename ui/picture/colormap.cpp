// Colour maps and the value -> colour step: tables built once from a few anchor colours.
#include "ui/picture/colormap.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace attnlab
{

namespace
{

struct Anchor
{
    float r, g, b; // 0..255
};

// Evenly spaced anchors, interpolated linearly into 256 entries.
template <std::size_t N> std::array<Color32, 256> build_table(const std::array<Anchor, N>& anchors)
{
    std::array<Color32, 256> table{};
    for (int i = 0; i < 256; ++i)
    {
        const float t = static_cast<float>(i) / 255.0f * static_cast<float>(N - 1);
        const std::size_t k = std::min(static_cast<std::size_t>(t), N - 2);
        const float f = t - static_cast<float>(k);
        const Anchor& a = anchors[k];
        const Anchor& b = anchors[k + 1];
        auto mix = [f](float x, float y) { return static_cast<std::uint8_t>(std::lround(x + (y - x) * f)); };
        table[static_cast<std::size_t>(i)] = pack_rgba(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
    }
    return table;
}

// Viridis at nine evenly spaced points: monotonic lightness, readable in grey and by colour-blind viewers.
const std::array<Anchor, 9> kSequentialAnchors = {{
    {68, 1, 84},
    {71, 45, 123},
    {59, 82, 139},
    {44, 114, 142},
    {33, 145, 140},
    {40, 174, 128},
    {94, 201, 98},
    {173, 220, 48},
    {253, 231, 37},
}};

// Blue -> white -> red in eleven steps (the RdBu scheme, low values blue).
const std::array<Anchor, 11> kDivergingAnchors = {{
    {5, 48, 97},
    {33, 102, 172},
    {67, 147, 195},
    {146, 197, 222},
    {209, 229, 240},
    {247, 247, 247},
    {253, 219, 199},
    {244, 165, 130},
    {214, 96, 77},
    {178, 24, 43},
    {103, 0, 31},
}};

const std::array<Color32, 256> kSequentialTable = build_table(kSequentialAnchors);
const std::array<Color32, 256> kDivergingTable = build_table(kDivergingAnchors);

} // namespace

const std::array<Color32, 256>& colormap_table(Colormap map)
{
    return map == Colormap::Diverging ? kDivergingTable : kSequentialTable;
}

ValueRange value_range(const float* values, std::size_t count)
{
    ValueRange r;
    float lo = std::numeric_limits<float>::max();
    float hi = std::numeric_limits<float>::lowest();
    for (std::size_t i = 0; i < count; ++i)
    {
        const float v = values[i];
        if (std::isfinite(v))
        {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
            ++r.finite_count;
        }
        else if (std::isnan(v))
            r.has_nan = true;
        else if (v < 0)
            r.has_neg_inf = true;
        else
            r.has_pos_inf = true;
    }
    if (r.finite_count > 0)
    {
        r.min = lo;
        r.max = hi;
    }
    return r;
}

float stretch_top(const float* values, std::size_t count)
{
    std::vector<float> finite;
    finite.reserve(count);
    for (std::size_t i = 0; i < count; ++i)
        if (std::isfinite(values[i]))
            finite.push_back(values[i]);
    if (finite.empty())
        return 1.0f;
    const std::size_t k = std::min(finite.size() - 1, finite.size() * 95 / 100);
    std::nth_element(finite.begin(), finite.begin() + static_cast<std::ptrdiff_t>(k), finite.end());
    const float top = finite[k];
    return top > 1e-6f ? std::min(1.0f, top) : 1.0f;
}

ColorScale choose_scale(const ValueRange& range, bool probability, float top)
{
    ColorScale s;
    if (probability)
    {
        s.kind = ScaleKind::Probability;
        s.lo = 0.0f;
        s.hi = top > 0.0f ? top : 1.0f;
        return s;
    }
    if (range.finite_count > 0 && range.min >= 0.0f)
    {
        s.kind = ScaleKind::Sequential;
        s.lo = range.min;
        s.hi = range.max;
        if (!(s.hi > s.lo))
        {
            s.lo = range.min - 0.5f;
            s.hi = range.min + 0.5f;
        }
        return s;
    }
    s.kind = ScaleKind::Diverging;
    const float a = std::max(std::fabs(range.min), std::fabs(range.max));
    s.hi = a > 0.0f ? a : 1.0f;
    s.lo = -s.hi;
    return s;
}

float scale_position(float v, const ColorScale& scale)
{
    if (std::isnan(v))
        return 0.0f;
    if (std::isinf(v))
        return v < 0 ? 0.0f : 1.0f;
    const float width = scale.hi - scale.lo;
    if (!(width > 0.0f))
        return 0.5f;
    return std::clamp((v - scale.lo) / width, 0.0f, 1.0f);
}

Color32 value_to_color(float v, const ColorScale& scale)
{
    if (std::isnan(v))
        return kNanColor;
    if (std::isinf(v) && v < 0)
        return kNegInfColor;
    const auto& table = colormap_table(scale.map());
    if (std::isinf(v))
        return table[255];
    const float width = scale.hi - scale.lo;
    if (!(width > 0.0f))
        return table[128];
    // The same arithmetic as fill_heatmap_pixels' fast path, so both give identical colours.
    const float t = std::clamp((v - scale.lo) * (255.0f / width), 0.0f, 255.0f);
    return table[static_cast<std::size_t>(t + 0.5f)];
}

Color32 text_color_on(Color32 background)
{
    // Relative luminance with sRGB weights is enough to choose between black and white.
    const float y =
        0.2126f * red_of(background) + 0.7152f * green_of(background) + 0.0722f * blue_of(background);
    return y > 140.0f ? pack_rgba(0, 0, 0) : pack_rgba(255, 255, 255);
}

namespace
{

float linear_channel(std::uint8_t c)
{
    const float v = static_cast<float>(c) / 255.0f;
    return v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f);
}

float relative_luminance(Color32 c)
{
    return 0.2126f * linear_channel(red_of(c)) + 0.7152f * linear_channel(green_of(c)) +
           0.0722f * linear_channel(blue_of(c));
}

Color32 mix(Color32 a, Color32 b, float t)
{
    auto channel = [t](std::uint8_t x, std::uint8_t y) {
        return static_cast<std::uint8_t>(
            std::lround(static_cast<float>(x) + (static_cast<float>(y) - x) * t));
    };
    return pack_rgba(channel(red_of(a), red_of(b)), channel(green_of(a), green_of(b)),
                     channel(blue_of(a), blue_of(b)));
}

} // namespace

float contrast_ratio(Color32 a, Color32 b)
{
    const float la = relative_luminance(a);
    const float lb = relative_luminance(b);
    return (std::max(la, lb) + 0.05f) / (std::min(la, lb) + 0.05f);
}

Color32 chip_text_color(Color32 fill)
{
    const Color32 black = pack_rgba(0, 0, 0);
    const Color32 white = pack_rgba(255, 255, 255);
    return contrast_ratio(black, fill) >= contrast_ratio(white, fill) ? black : white;
}

Color32 readable_on(Color32 fg, Color32 bg, float min_ratio)
{
    if (contrast_ratio(fg, bg) >= min_ratio)
        return fg;
    const Color32 towards = relative_luminance(bg) < 0.18f ? pack_rgba(255, 255, 255) : pack_rgba(0, 0, 0);
    // Contrast grows with t along the mix: the smallest t that reaches the ratio, by bisection.
    float lo = 0.0f, hi = 1.0f;
    for (int i = 0; i < 16; ++i)
    {
        const float t = 0.5f * (lo + hi);
        (contrast_ratio(mix(fg, towards, t), bg) >= min_ratio ? hi : lo) = t;
    }
    return mix(fg, towards, hi);
}

Color32 head_color(int j)
{
    // Okabe & Ito (2008): orange, sky blue, bluish green, yellow, blue, vermillion, reddish purple, grey.
    static constexpr std::array<Color32, 8> kPalette = {
        pack_rgba(230, 159, 0), pack_rgba(86, 180, 233), pack_rgba(0, 158, 115),   pack_rgba(240, 228, 66),
        pack_rgba(0, 114, 178), pack_rgba(213, 94, 0),   pack_rgba(204, 121, 167), pack_rgba(170, 170, 170),
    };
    return kPalette[static_cast<std::size_t>(((j % 8) + 8) % 8)];
}

Color32 surprise_color(float nats, float max_nats, Color32 background)
{
    if (!std::isfinite(nats) && !(nats > 0))
        return background | 0xFF000000u;
    const float t = max_nats > 0 ? std::clamp(nats / max_nats, 0.0f, 1.0f) : 1.0f;
    constexpr Color32 kAmber = pack_rgba(230, 159, 0); // Okabe-Ito orange
    // The top is a wine purple (Paul Tol's): the loss curves beside the strip are vermilion, and a strip
    // ending in the same colour read as "the curve's colour" rather than "most surprised".
    constexpr Color32 kTop = pack_rgba(170, 51, 119);
    const auto mix = [](Color32 a, Color32 b, float f)
    {
        const auto one = [f](std::uint8_t x, std::uint8_t y) {
            return static_cast<std::uint8_t>(
                std::lround(static_cast<float>(x) + (static_cast<float>(y) - x) * f));
        };
        return pack_rgba(one(red_of(a), red_of(b)), one(green_of(a), green_of(b)),
                         one(blue_of(a), blue_of(b)));
    };
    return t < 0.5f ? mix(background, kAmber, t * 2.0f) : mix(kAmber, kTop, (t - 0.5f) * 2.0f);
}

} // namespace attnlab
