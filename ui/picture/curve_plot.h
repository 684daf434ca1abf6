// One training-curve plot as pure geometry (no ImGui): its axes, tick texts, the curves as polylines in
// pixels, the steepest-drop band, the cursor and what the pointer is over. The PNG export (export.cpp) and
// the Training panel (panels/training_panel_curves.cpp) only paint it, so both show the same plot.
#pragma once

#include "ui/model/training/training_curves.h"

#include <functional>
#include <string>
#include <vector>

namespace attnlab
{

struct PlotPoint
{
    float x = 0.0f, y = 0.0f; // pixels, y down
};

// A rectangle in pixels: (x0, y0) top left, (x1, y1) bottom right.
struct PlotRect
{
    float x0 = 0.0f, y0 = 0.0f, x1 = 1.0f, y1 = 1.0f;
};

// What differs between the two painters; everything else is shared.
struct CurvePlotStyle
{
    // A decade label on a log axis is kept only this far (pixels) from the ends and from the label below it.
    float tick_gap = 20.0f;
    // Decimals of a percent: 1 gives "100.0 %" (the panel), 0 gives "100 %" (the PNG).
    int percent_decimals = 1;
    // At most one point per pixel column, the mean of the points in it (the panel, drawn at screen size).
    bool thin = true;
    // Points outside the axes moved onto their top or bottom edge, and values <= 0 on a log axis left out
    // (the PNG, which has no clip rectangle). Otherwise they stay where they fall, for the painter to clip.
    bool clamp = false;
    // > 0: the step axis also gets labelled ticks at round steps (1, 2 or 5 times a power of ten), their
    // centres at least this many pixels apart (the PNG and SVG; 0: only the ends, as the panel shows them).
    float x_tick_gap = 0.0f;
    // A linear y axis also gets round values between its ends (tick_gap apart at least), not only the ends;
    // a log axis also 2, 5 and 3 times the powers of ten where they crowd no other tick.
    bool linear_ticks = false;
};

// A step label under the axes.
struct PlotXTick
{
    int step = 0;
    float x = 0.0f; // pixels
    std::string text;
};

// A y label with its grid line.
struct PlotTick
{
    float value = 0.0f;
    float y = 0.0f; // pixels
    std::string text;
};

// One series as a line in pixels (non-finite values left out).
struct PlotLine
{
    std::vector<PlotPoint> points;
    Color32 color = 0;
    float width = 1.5f; // the series' width
    bool thin = false;  // the series' CurveSeries::thin
};

struct CurvePlotPicture
{
    PlotRect axes;
    int x_min = 0, x_max = 1;       // the steps at the left and right edges
    std::vector<PlotTick> y_ticks;  // the lowest and highest value, then the decades between on a log axis
    std::string x_first, x_last;    // "0" under the left end, "step 600" under the right end
    std::vector<PlotXTick> x_ticks; // round steps, left to right (CurvePlotStyle::x_tick_gap > 0 only)
    bool has_band = false;          // the steepest drop of the loss (loss plot only), from band_x0 to band_x1
    float band_x0 = 0.0f, band_x1 = 0.0f;
    bool has_cursor = false; // the step the maps show, at cursor_x
    float cursor_x = 0.0f;
    std::vector<PlotLine> lines; // one per series, in the plot's order
};

// A label under the step axis: its text from its left edge x (pixels).
struct PlotXLabel
{
    float x = 0.0f;
    std::string text;
};

// The step axis's labels, left to right, each at least `space` pixels from the next (`width` measures a
// text): the right end's step right-aligned under it ("step 400", or "400" where the word leaves no room for
// the left end's label), the left end's ("0") at the left edge where it clears the right one, and between
// them the round steps of p.x_ticks (CurvePlotStyle::x_tick_gap) centred under their ticks where they clear
// both ends and each other.
std::vector<PlotXLabel> x_axis_labels(const CurvePlotPicture& p,
                                      const std::function<float(const std::string&)>& width, float space);

// The round step (1, 2 or 5 times a power of ten, at least 1) that puts at most max_ticks intervals in span.
double round_tick_step(double span, int max_ticks);

// Where a label of w x h pixels goes inside the loss plot's axes by its steepest-drop band so that it
// touches no curve (the cursor's thin line may pass under it): right of the band's left edge at the top,
// then at the bottom, then left of it (top, bottom), then right of the band, then anywhere inside the axes,
// the nearest to the band's top first. False (and *out untouched) when no place is free: leave it out.
bool place_band_label(const CurvePlotPicture& p, float w, float h, PlotRect* out);

// A value as the plots write it: "0.123", "5.7e-05" (below 0.01), "12.5 %" for a percent plot (decimals as
// given), "not finite (diverged)" for NaN or infinity.
std::string curve_value_text(float v, bool percent, int percent_decimals);

// The texts of a log axis's ticks, one rule for the whole axis: plain decimals ("2.4", "0.10", "0.0076") when
// the positive values lie in [kPlainTickLowest, kPlainTickHighest), else every one as a power of ten
// ("2.4e0", "1.0e-3", "2.9e-6"); each with the same number of significant digits, 2, or more where 2 would
// write two different values alike. Non-finite or non-positive values are written as curve_value_text writes
// them.
inline constexpr double kPlainTickLowest = 1e-3;
inline constexpr double kPlainTickHighest = 1e4;
std::vector<std::string> log_axis_tick_texts(const std::vector<float>& values);

// Lays out `plot` (one of c's three) with its axes in `axes`; the cursor line at step `cursor` when it lies
// in [c.x_min, c.x_max] (-1: none).
CurvePlotPicture layout_curve_plot(const CurvePlot& plot, const TrainingCurves& c, const PlotRect& axes,
                                   int cursor, const CurvePlotStyle& style);

// The step under pixel column x, clamped to the plot's steps.
int curve_step_at(const CurvePlotPicture& p, float x);

// The pointer's tooltip at `step`: "step 120", then per series its label and the value of its first point at
// or after the step (its last point when none) with that point's step.
std::string curve_hover_text(const CurvePlot& plot, int step, int percent_decimals);

} // namespace attnlab
