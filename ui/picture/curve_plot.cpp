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
    PlotLine line{{}, series.color, series.width};
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

} // namespace

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
    p.x_first = std::to_string(c.x_min);
    p.x_last = "step " + std::to_string(c.x_max);
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
