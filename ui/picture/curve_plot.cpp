// One training-curve plot as pure geometry: axes, ticks, polylines, band, cursor and hover.
#include "ui/picture/curve_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace attnlab
{

namespace
{

using DataPoints = std::vector<std::pair<float, float>>;

// Steps to x and values to y inside the axes (a log axis in decades).
struct PlotScale
{
    PlotRect axes;
    bool log_y = false;
    float x_min = 0.0f, x_span = 1.0f;
    float y_lo = 0.0f, y_hi = 1.0f; // in axis units (decades on a log axis)

    float axis_y(float v) const { return log_y ? std::log10(std::max(v, 1e-12f)) : v; }
    float x(float step) const { return axes.x0 + (step - x_min) / x_span * (axes.x1 - axes.x0); }
    float y(float v) const { return axes.y1 - (axis_y(v) - y_lo) / (y_hi - y_lo) * (axes.y1 - axes.y0); }
};

PlotScale plot_scale(const CurvePlot& plot, const TrainingCurves& c, const PlotRect& axes, float* lo,
                     float* hi)
{
    plot_y_range(plot, lo, hi);
    PlotScale s;
    s.axes = axes;
    s.log_y = plot.log_y;
    s.x_min = static_cast<float>(c.x_min);
    s.x_span = static_cast<float>(std::max(1, c.x_max - c.x_min));
    s.y_lo = s.axis_y(*lo);
    s.y_hi = s.axis_y(*hi);
    if (s.y_hi - s.y_lo < 1e-6f)
    {
        s.y_lo -= 0.5f;
        s.y_hi += 0.5f;
    }
    return s;
}

// At most one point per pixel column: the mean of the finite points that fall in it.
DataPoints thin(const DataPoints& pts, int x_min, int x_max, float width_px)
{
    if (pts.size() <= static_cast<std::size_t>(width_px) || width_px < 2.0f)
        return pts;
    DataPoints out;
    const float per = static_cast<float>(std::max(1, x_max - x_min)) / width_px;
    const auto column_of = [&](float x) { return static_cast<int>((x - static_cast<float>(x_min)) / per); };
    std::size_t i = 0;
    while (i < pts.size())
    {
        const int column = column_of(pts[i].first);
        double sx = 0, sy = 0;
        int n = 0;
        for (; i < pts.size() && column_of(pts[i].first) == column; ++i)
            if (std::isfinite(pts[i].second)) // a diverged step's NaN would make the whole column NaN
            {
                sx += pts[i].first;
                sy += pts[i].second;
                ++n;
            }
        if (n > 0)
            out.emplace_back(static_cast<float>(sx / n), static_cast<float>(sy / n));
    }
    return out;
}

PlotLine plot_line(const CurveSeries& series, const TrainingCurves& c, const PlotScale& s, bool log_y,
                   const CurvePlotStyle& style)
{
    PlotLine line{{}, series.color, series.width, series.thin};
    const DataPoints pts =
        style.thin ? thin(series.points, c.x_min, c.x_max, s.axes.x1 - s.axes.x0) : series.points;
    line.points.reserve(pts.size());
    for (const auto& [step, v] : pts)
    {
        if (!std::isfinite(v) || (style.clamp && log_y && v <= 0.0f))
            continue;
        const float y = style.clamp ? std::clamp(s.y(v), s.axes.y0, s.axes.y1) : s.y(v);
        line.points.push_back(PlotPoint{s.x(step), y});
    }
    return line;
}

// Whether the segment a-b touches the rectangle r (Liang–Barsky clipping).
bool segment_touches(const PlotPoint& a, const PlotPoint& b, const PlotRect& r)
{
    float t0 = 0.0f, t1 = 1.0f;
    const float dx = b.x - a.x, dy = b.y - a.y;
    const float p[4] = {-dx, dx, -dy, dy};
    const float q[4] = {a.x - r.x0, r.x1 - a.x, a.y - r.y0, r.y1 - a.y};
    for (int i = 0; i < 4; ++i)
    {
        if (p[i] == 0.0f)
        {
            if (q[i] < 0.0f)
                return false; // parallel to this edge and outside it
            continue;
        }
        const float t = q[i] / p[i];
        if (p[i] < 0.0f)
            t0 = std::max(t0, t);
        else
            t1 = std::min(t1, t);
        if (t0 > t1)
            return false;
    }
    return true;
}

bool crosses_a_line(const CurvePlotPicture& p, const PlotRect& r)
{
    for (const PlotLine& line : p.lines)
    {
        if (line.points.size() == 1 && segment_touches(line.points[0], line.points[0], r))
            return true;
        for (std::size_t i = 1; i < line.points.size(); ++i)
            if (segment_touches(line.points[i - 1], line.points[i], r))
                return true;
    }
    return false;
}

// Ticks at the multiples of a round step in [lo, hi], each at least `gap` (in value units) from the ends.
std::vector<double> round_ticks_between(double lo, double hi, double step, double gap)
{
    std::vector<double> out;
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-6; v += step)
        if (v - lo >= gap - 1e-9 && hi - v >= gap - 1e-9)
            out.push_back(v);
    return out;
}

} // namespace

std::vector<PlotXLabel> x_axis_labels(const CurvePlotPicture& p,
                                      const std::function<float(const std::string&)>& width, float space)
{
    const PlotRect& a = p.axes;
    struct Placed
    {
        float x0, x1;
        std::string text;
    };
    // The round steps strictly between the ends, centred under their ticks and kept inside the axes.
    std::vector<Placed> between;
    for (const PlotXTick& t : p.x_ticks)
        if (t.step > p.x_min && t.step < p.x_max)
        {
            const float w = width(t.text);
            const float x0 = std::clamp(t.x - w * 0.5f, a.x0, a.x1 - w);
            between.push_back(Placed{x0, x0 + w, t.text});
        }
    // The right end names the axis ("step 400") unless that leaves no room for the left end's label.
    std::string last = p.x_last;
    if (width(last) + space + width(p.x_first) > a.x1 - a.x0 && last.rfind("step ", 0) == 0)
        last.erase(0, 5);
    std::vector<Placed> kept{{a.x1 - width(last), a.x1, last}};
    const auto free = [&](const Placed& q)
    {
        for (const Placed& k : kept)
            if (q.x0 < k.x1 + space && k.x0 < q.x1 + space)
                return false;
        return true;
    };
    if (const Placed first{a.x0, a.x0 + width(p.x_first), p.x_first}; free(first))
        kept.push_back(first);
    for (const Placed& q : between)
        if (free(q))
            kept.push_back(q);
    std::sort(kept.begin(), kept.end(), [](const Placed& l, const Placed& r) { return l.x0 < r.x0; });
    std::vector<PlotXLabel> out;
    for (const Placed& k : kept)
        out.push_back(PlotXLabel{k.x0, k.text});
    return out;
}

double round_tick_step(double span, int max_ticks)
{
    if (!(span > 0.0) || max_ticks < 1)
        return 1.0;
    const double raw = span / max_ticks;
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0, 10.0})
        if (m * decade >= raw * (1.0 - 1e-9))
            return m * decade;
    return 10.0 * decade;
}

bool place_band_label(const CurvePlotPicture& p, float w, float h, PlotRect* out)
{
    if (!p.has_band)
        return false;
    const PlotRect& a = p.axes;
    const float pad = std::max(2.0f, h * 0.2f);
    const float top = a.y0 + pad, bottom = a.y1 - pad - h;
    const float right_of_left_edge = p.band_x0 + pad;
    std::vector<PlotPoint> corners = {
        {right_of_left_edge, top},
        {right_of_left_edge, bottom},
        {p.band_x0 - pad - w, top},
        {p.band_x0 - pad - w, bottom},
        {std::max(p.band_x1, p.band_x0) + pad, top},
        {std::max(p.band_x1, p.band_x0) + pad, bottom},
    };
    // Then any place inside the axes (a quarter label's width and half its height apart), the nearest to
    // the band's top first.
    std::vector<PlotPoint> rest;
    for (float y = top; y <= bottom; y += h * 0.5f)
        for (float x = a.x0 + pad; x + w <= a.x1 - pad; x += std::max(1.0f, w * 0.25f))
            rest.push_back(PlotPoint{x, y});
    const auto distance = [&](const PlotPoint& q) { return std::hypot(q.x - right_of_left_edge, q.y - top); };
    std::stable_sort(rest.begin(), rest.end(),
                     [&](const PlotPoint& l, const PlotPoint& r) { return distance(l) < distance(r); });
    corners.insert(corners.end(), rest.begin(), rest.end());
    for (const PlotPoint& c : corners)
    {
        const PlotRect r{c.x, c.y, c.x + w, c.y + h};
        if (r.x0 < a.x0 || r.x1 > a.x1 || r.y0 < a.y0 || r.y1 > a.y1)
            continue;
        if (!crosses_a_line(p, r))
        {
            *out = r;
            return true;
        }
    }
    return false;
}

std::string curve_value_text(float v, bool percent, int percent_decimals)
{
    if (!std::isfinite(v))
        return "not finite (diverged)";
    char s[32];
    if (percent)
        std::snprintf(s, sizeof s, "%.*f %%", percent_decimals, 100.0 * static_cast<double>(v));
    else if (v != 0.0f && std::fabs(v) < 0.01f)
        std::snprintf(s, sizeof s, "%.1e", static_cast<double>(v)); // short enough for the axis
    else
        std::snprintf(s, sizeof s, "%.3g", static_cast<double>(v));
    return s;
}

namespace
{

// v (> 0) with `digits` significant digits, as a power of ten ("2.4e-3") or in plain decimals ("0.0024").
std::string significant_text(double v, int digits, bool power_of_ten)
{
    int e = static_cast<int>(std::floor(std::log10(v)));
    double m = v / std::pow(10.0, e);
    if (std::round(m * std::pow(10.0, digits - 1)) >= std::pow(10.0, digits)) // 9.96 to 2 digits is 10
    {
        ++e;
        m /= 10.0;
    }
    char s[48];
    if (power_of_ten)
        std::snprintf(s, sizeof s, "%.*fe%d", digits - 1, m, e);
    else
        std::snprintf(s, sizeof s, "%.*f", std::max(0, digits - 1 - e), v);
    return s;
}

} // namespace

std::vector<std::string> log_axis_tick_texts(const std::vector<float>& values)
{
    double lo = 0.0, hi = 0.0;
    for (const float v : values)
        if (std::isfinite(v) && v > 0.0f)
        {
            lo = lo == 0.0 ? v : std::min(lo, static_cast<double>(v));
            hi = std::max(hi, static_cast<double>(v));
        }
    // Plain decimals while they stay short ("0.0010" at most): a student reads "2.4" and "0.0076" at once.
    const bool power_of_ten = hi > 0.0 && (lo < kPlainTickLowest || hi >= kPlainTickHighest);
    std::vector<std::string> out;
    for (int digits = 2;; ++digits)
    {
        out.clear();
        for (const float v : values)
            out.push_back(std::isfinite(v) && v > 0.0f ? significant_text(v, digits, power_of_ten)
                                                       : curve_value_text(v, false, 0));
        bool apart = true; // different values get different texts
        for (std::size_t i = 0; i < values.size() && apart; ++i)
            for (std::size_t j = i + 1; j < values.size() && apart; ++j)
                apart = values[i] == values[j] || out[i] != out[j];
        if (apart || digits >= 6)
            return out;
    }
}

CurvePlotPicture layout_curve_plot(const CurvePlot& plot, const TrainingCurves& c, const PlotRect& axes,
                                   int cursor, const CurvePlotStyle& style)
{
    CurvePlotPicture p;
    p.axes = axes;
    p.x_min = c.x_min;
    p.x_max = c.x_max;
    float lo = 0.0f, hi = 1.0f;
    const PlotScale s = plot_scale(plot, c, axes, &lo, &hi);
    const auto tick = [&](float v) {
        p.y_ticks.push_back(PlotTick{v, s.y(v), curve_value_text(v, plot.percent, style.percent_decimals)});
    };
    tick(lo);
    tick(hi);
    if (style.linear_ticks && !plot.log_y && s.y_hi > s.y_lo)
    {
        // Round values between the ends, tick_gap apart and as far from the ends.
        const float px_per_unit = (axes.y1 - axes.y0) / (s.y_hi - s.y_lo);
        const int room = static_cast<int>((axes.y1 - axes.y0) / std::max(1.0f, style.tick_gap));
        const double step = round_tick_step(static_cast<double>(hi) - lo, std::max(1, room));
        for (const double v : round_ticks_between(lo, hi, step, style.tick_gap / px_per_unit))
            tick(static_cast<float>(v));
    }
    // The decades between, where they do not crowd the ends or each other.
    float last_y = axes.y1;
    if (plot.log_y)
        for (float d = std::ceil(s.y_lo); d < s.y_hi; d += 1.0f)
        {
            const float y = s.y(std::pow(10.0f, d));
            if (y < axes.y1 - style.tick_gap && y > axes.y0 + style.tick_gap && y < last_y - style.tick_gap)
            {
                tick(std::pow(10.0f, d));
                last_y = y;
            }
        }
    if (style.linear_ticks && plot.log_y)
    {
        // 2 and 5 times each power of ten in the range (then 3), where they crowd no tick already there:
        // a loss that falls by less than a decade still gets values between its ends.
        const auto clear = [&](float y)
        {
            for (const PlotTick& t : p.y_ticks)
                if (std::fabs(t.y - y) < style.tick_gap)
                    return false;
            return y > axes.y0 && y < axes.y1;
        };
        for (const float m : {2.0f, 5.0f, 3.0f})
            for (float d = std::floor(s.y_lo); d <= s.y_hi; d += 1.0f)
            {
                const float v = m * std::pow(10.0f, d);
                if (v > lo && v < hi && clear(s.y(v)))
                    tick(v);
            }
    }
    if (plot.log_y && !plot.percent) // one number format for the whole axis
    {
        std::vector<float> values;
        for (const PlotTick& t : p.y_ticks)
            values.push_back(t.value);
        const std::vector<std::string> texts = log_axis_tick_texts(values);
        for (std::size_t i = 0; i < texts.size(); ++i)
            p.y_ticks[i].text = texts[i];
    }
    p.x_first = std::to_string(c.x_min);
    p.x_last = "step " + std::to_string(c.x_max);
    if (style.x_tick_gap > 0.0f)
    {
        const float width = axes.x1 - axes.x0;
        const int room = std::max(1, static_cast<int>(width / style.x_tick_gap));
        const double span = std::max(1, c.x_max - c.x_min);
        const double step = std::max(1.0, round_tick_step(span, room));
        for (double v = std::ceil(c.x_min / step) * step; v <= c.x_max + 1e-6; v += step)
        {
            const float x = s.x(static_cast<float>(v));
            // The last round step stays clear of the right end's label room (it is labelled on its own only
            // when it is the end).
            if (!p.x_ticks.empty() && x - p.x_ticks.back().x < style.x_tick_gap)
                continue;
            const int k = static_cast<int>(std::lround(v));
            p.x_ticks.push_back(PlotXTick{k, x, std::to_string(k)});
        }
    }
    if (&plot == &c.loss && c.has_drop)
    {
        p.has_band = true;
        p.band_x0 = s.x(static_cast<float>(c.drop.from_step));
        p.band_x1 = s.x(static_cast<float>(c.drop.to_step));
    }
    if (cursor >= c.x_min && cursor <= c.x_max)
    {
        p.has_cursor = true;
        p.cursor_x = s.x(static_cast<float>(cursor));
    }
    for (const CurveSeries& series : plot.series)
        p.lines.push_back(plot_line(series, c, s, plot.log_y, style));
    return p;
}

int curve_step_at(const CurvePlotPicture& p, float x)
{
    const float span = static_cast<float>(std::max(1, p.x_max - p.x_min));
    const int step =
        p.x_min + static_cast<int>(std::lround((x - p.axes.x0) / (p.axes.x1 - p.axes.x0) * span));
    return std::clamp(step, p.x_min, p.x_max);
}

std::string curve_hover_text(const CurvePlot& plot, int step, int percent_decimals)
{
    std::string tip = "step " + std::to_string(step);
    for (const CurveSeries& s : plot.series)
    {
        if (s.points.empty())
            continue;
        // The first point at or after the step.
        const auto it =
            std::lower_bound(s.points.begin(), s.points.end(), static_cast<float>(step),
                             [](const std::pair<float, float>& q, float x) { return q.first < x; });
        const std::pair<float, float> q = it == s.points.end() ? s.points.back() : *it;
        tip += "\n" + s.label + ": " + curve_value_text(q.second, plot.percent, percent_decimals) +
               " (step " + std::to_string(static_cast<int>(q.first)) + ")";
    }
    return tip;
}

} // namespace attnlab
