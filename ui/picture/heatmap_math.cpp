// Heatmap geometry and pixels: mouse -> cell, label thinning, texture fill, number formatting.
#include "ui/picture/heatmap_math.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace attnlab
{

CellHit cell_at(float x, float y, float x0, float y0, float width, float height, int rows, int cols)
{
    CellHit hit;
    if (rows <= 0 || cols <= 0 || !(width > 0.0f) || !(height > 0.0f))
        return hit;
    const float u = (x - x0) / width;
    const float v = (y - y0) / height;
    if (!(u >= 0.0f && u < 1.0f && v >= 0.0f && v < 1.0f))
        return hit;
    hit.inside = true;
    hit.col = std::min(cols - 1, static_cast<int>(u * static_cast<float>(cols)));
    hit.row = std::min(rows - 1, static_cast<int>(v * static_cast<float>(rows)));
    return hit;
}

float cell_number_px(float cell_w, float cell_h, float widest_px, float font_px, float floor_px)
{
    if (!(widest_px > 0.0f) || !(font_px > 0.0f))
        return 0.0f;
    // Text width grows with its size; a line of text is as tall as its size.
    const float fit = std::min((cell_w - 4.0f) * font_px / widest_px, cell_h - 2.0f);
    if (fit >= font_px)
        return font_px;
    // A floor between whole sizes (13.5 px at 720 lines) is kept where it fits: flooring the fit first
    // would drop values that fit at 13.9 px.
    const float floor = std::min(floor_px, font_px);
    if (!(fit >= floor) || !(fit > 0.0f))
        return 0.0f;
    return std::max(std::floor(fit), floor);
}

int label_stride(int n, float cell_px, float label_px)
{
    if (n <= 1 || !(cell_px > 0.0f) || cell_px >= label_px)
        return 1;
    const int k = static_cast<int>(std::ceil(label_px / cell_px));
    // Round up to 1, 2, 5, 10, 20, 50, ... so the shown indices are easy to read (0, 5, 10, ...).
    int step = 1;
    for (;;)
    {
        for (int m : {1, 2, 5})
            if (step * m >= k)
                return step * m;
        step *= 10;
    }
}

std::vector<int> labelled_indices(int n, int stride, float cell_px, float label_px,
                                  const std::vector<int>& named)
{
    std::vector<int> shown;
    for (const int k : named)
        if (k >= 0 && k < n)
            shown.push_back(k);
    for (int k = 0; k < n; k += std::max(1, stride))
    {
        bool clear = true;
        for (const int m : named)
            clear = clear &&
                    (m < 0 || m >= n || m == k || static_cast<float>(std::abs(k - m)) * cell_px >= label_px);
        if (clear)
            shown.push_back(k);
    }
    std::sort(shown.begin(), shown.end());
    shown.erase(std::unique(shown.begin(), shown.end()), shown.end());
    return shown;
}

int texels_per_cell(int rows, int cols)
{
    const int n = std::max(1, std::max(rows, cols));
    return std::clamp(512 / n, 1, 8);
}

void fill_heatmap_pixels(const float* values, int rows, int cols, const ColorScale& scale, int k,
                         std::vector<Color32>& rgba)
{
    const int w = cols * k;
    const int h = rows * k;
    rgba.resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
    const auto& table = colormap_table(scale.map());
    const float width = scale.hi - scale.lo;
    const float to_index = width > 0.0f ? 255.0f / width : 0.0f;
    const float lo = scale.lo;
    // Same result as value_to_color, without its per-value branches for the common finite case.
    auto color_of = [&](float v) -> Color32
    {
        if (!std::isfinite(v))
            return value_to_color(v, scale);
        if (width <= 0.0f)
            return table[128];
        const float t = std::clamp((v - lo) * to_index, 0.0f, 255.0f);
        return table[static_cast<std::size_t>(t + 0.5f)];
    };
    if (k == 1)
    {
        const std::size_t n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
        for (std::size_t i = 0; i < n; ++i)
            rgba[i] = color_of(values[i]);
        return;
    }
    for (int r = 0; r < rows; ++r)
    {
        Color32* row0 = rgba.data() + static_cast<std::size_t>(r) * k * w;
        for (int c = 0; c < cols; ++c)
        {
            const float v = values[static_cast<std::size_t>(r) * cols + c];
            const Color32 col = color_of(v);
            const bool stripes = k >= 4 && std::isinf(v) && v < 0;
            for (int dy = 0; dy < k; ++dy)
            {
                Color32* p = row0 + static_cast<std::size_t>(dy) * w + static_cast<std::size_t>(c) * k;
                for (int dx = 0; dx < k; ++dx)
                    p[dx] = stripes && ((dx + dy) % 4 == 0) ? kNegInfStripe : col;
            }
        }
    }
}

namespace
{

std::string format_with(float v, const char* fmt)
{
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v < 0 ? "−∞" : "+∞";
    char buf[32];
    std::snprintf(buf, sizeof(buf), fmt, static_cast<double>(v));
    std::string s = buf;
    if (s == "-0" || s == "-0.00" || s == "-0.000")
        s = s.substr(1);
    return s;
}

} // namespace

std::string format_value(float v)
{
    const float a = std::fabs(v);
    // Below 0.01 two decimals would read "0.00" (a colour bar of 0.0019 labelled 0.00 at both ends).
    if (std::isfinite(v) && a != 0.0f && (a >= 1000.0f || a < 0.01f))
        return format_with(v, "%.1e");
    if (std::isfinite(v) && a >= 100.0f)
        return format_with(v, "%.0f");
    if (std::isfinite(v) && a >= 10.0f)
        return format_with(v, "%.1f");
    return format_with(v, a == 0.0f ? "%.0f" : "%.2f");
}

std::string format_probability(float p)
{
    char text[32];
    if (!std::isfinite(p))
        return format_value(p);
    std::snprintf(text, sizeof text, p >= 0.001f || p == 0.0f ? "%.3f" : "%.1e", static_cast<double>(p));
    return text;
}

std::string format_value_long(float v)
{
    return format_with(v, "%.6g");
}

std::string cell_text(float v)
{
    const std::string text = format_value(v);
    if (std::fabs(v) < 0.01f && text.find('e') != std::string::npos)
    {
        // Two decimals, a cell's room: "0.01", "0.00", and "-0.00" for a negative one (format_with drops that
        // sign, which a cell keeps).
        char buf[16];
        std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(v));
        return buf;
    }
    return text;
}

std::string cell_value_line(float v, bool masked)
{
    const std::string line = "value " + format_value_long(v);
    if (masked)
        return line + "  (masked: the cell is hatched, not numbered)";
    if (v == 0.0f)
        return line + "  (exactly zero: a cell shows 0 only then)";
    const std::string shown = cell_text(v);
    if (shown == "0.00" || shown == "-0.00")
        return line + "  (not zero: the cell rounds it to " + shown + ")";
    return line;
}

NumberFormat choose_number_format(float max_abs)
{
    NumberFormat f;
    if (!(max_abs > 0.0f) || !std::isfinite(max_abs))
        return f; // nothing but zeros (or nothing): "0.00"
    if (max_abs < 0.01f || max_abs >= 10000.0f)
        f.scientific = true;
    else
        f.decimals = max_abs >= 100.0f ? 0 : max_abs >= 10.0f ? 1 : 2;
    return f;
}

float shown_max_abs(const float* values, std::size_t count, const float* mask)
{
    float m = 0.0f;
    for (std::size_t i = 0; i < count; ++i)
        if (std::isfinite(values[i]) && (mask == nullptr || !std::isinf(mask[i])))
            m = std::max(m, std::fabs(values[i]));
    return m;
}

std::vector<ColourBarMark> colour_bar_marks(const ValueRange& range, const std::string& min_text,
                                            const std::string& max_text,
                                            const std::vector<std::string>& shown)
{
    std::vector<ColourBarMark> marks;
    if (range.finite_count == 0)
        return marks;
    const auto said = [&](const std::string& text)
    { return std::find(shown.begin(), shown.end(), text) != shown.end(); };
    if (!said(min_text))
        marks.push_back({range.min, "min " + min_text});
    if (!said(max_text) && max_text != min_text)
        marks.push_back({range.max, "max " + max_text});
    return marks;
}

std::string format_number(float v, NumberFormat format)
{
    if (format.scientific)
    {
        // Rounds to zero in this format: written as zero, never as "-0.0e+00".
        return format_with(std::fabs(v) < 5e-39f ? 0.0f : v, "%.1e");
    }
    char fmt[8];
    std::snprintf(fmt, sizeof fmt, "%%.%df", std::clamp(format.decimals, 0, 6));
    std::string s = format_with(v, fmt);
    // "-0.00", "-0.0" and "-0": a value that rounds to zero carries no sign.
    if (s.size() > 1 && s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos)
        s.erase(0, 1);
    return s;
}

namespace
{

float overlap_area(const ScreenRect& a, const ScreenRect& b)
{
    const float w = std::min(a.x + a.w, b.x + b.w) - std::max(a.x, b.x);
    const float h = std::min(a.y + a.h, b.y + b.h) - std::max(a.y, b.y);
    return w > 0.0f && h > 0.0f ? w * h : 0.0f;
}

} // namespace

ScreenRect tooltip_rect(float mx, float my, float w, float h, const ScreenRect& avoid, float display_w,
                        float display_h, float gap)
{
    const float xs[2] = {mx + gap, mx - gap - w};
    const float ys[2] = {my + gap, my - gap - h};
    ScreenRect best;
    float best_overlap = -1.0f;
    for (const float y : ys)
        for (const float x : xs)
        {
            ScreenRect r{std::clamp(x, 0.0f, std::max(0.0f, display_w - w)),
                         std::clamp(y, 0.0f, std::max(0.0f, display_h - h)), w, h};
            const float overlap = overlap_area(r, avoid);
            if (overlap == 0.0f)
                return r;
            if (best_overlap < 0.0f || overlap < best_overlap)
            {
                best = r;
                best_overlap = overlap;
            }
        }
    return best;
}

int utf8_length(std::string_view s)
{
    int n = 0;
    for (const char c : s)
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
    return n;
}

std::string truncate_utf8(std::string_view s, int max_chars)
{
    if (max_chars <= 0)
        return std::string();
    // cut: where code point max_chars - 1 starts (room for the "…"); a start of code point max_chars means
    // there are more than max_chars.
    std::size_t cut = s.size();
    int n = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
    {
        if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80)
            continue;
        if (n == max_chars - 1)
            cut = i;
        else if (n == max_chars)
            return std::string(s.substr(0, cut)) + "…";
        ++n;
    }
    return std::string(s);
}

} // namespace attnlab
