// Heatmap geometry and pixels: mouse -> cell, label thinning, texture fill, number formatting. Pure
// functions.
#pragma once

#include "ui/picture/colormap.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab
{

struct CellHit
{
    bool inside = false;
    int row = -1, col = -1;
};

// The cell under (x, y) for a rows x cols matrix drawn in the rectangle [x0, x0 + width) x [y0, y0 + height).
// Points on the right or bottom edge belong to the outside, so every inside point maps to exactly one cell.
CellHit cell_at(float x, float y, float x0, float y0, float width, float height, int rows, int cols);

// Show every k-th label of n so that labels of label_px pixels do not overlap cells of cell_px pixels.
// Returns k >= 1 (1: every label).
int label_stride(int n, float cell_px, float label_px);

// The indices an axis of n labels shows, in order: every stride-th, and the named ones (a lesson step's
// cells, the pinned query) whatever the stride; a stride-th label nearer a named one than label_px (cells of
// cell_px) is left out so the two do not overlap. Named indices outside [0, n) are ignored.
std::vector<int> labelled_indices(int n, int stride, float cell_px, float label_px,
                                  const std::vector<int>& named);

// The size of the numbers written in cells of cell_w x cell_h pixels whose widest number is widest_px wide
// at font_px: the font's size where that fits (4 px to spare across, 2 down), else the largest whole size
// that does, down to floor_px (kept as it is where only it fits); 0 (no numbers) when even floor_px does not
// fit or there is no number.
// floor_px >= font_px: the font's size or nothing.
float cell_number_px(float cell_w, float cell_h, float widest_px, float font_px, float floor_px);

// Texels per cell edge in a heatmap texture: 1 for large matrices, more for small ones so −∞ cells can
// carry stripes (at most 8, and the texture stays at most 512 texels wide).
int texels_per_cell(int rows, int cols);

// Fills rgba (rows·k x cols·k texels, row-major, top row first) with the colours of a row-major matrix.
void fill_heatmap_pixels(const float* values, int rows, int cols, const ColorScale& scale, int k,
                         std::vector<Color32>& rgba);

// A rectangle on screen, in pixels.
struct ScreenRect
{
    float x = 0.0f, y = 0.0f, w = 0.0f, h = 0.0f;
};

// Where a tooltip of w x h pixels goes for the mouse at (mx, my), `gap` pixels away from it: below right (as
// usual), below left, above right or above left, the first that keeps clear of `avoid` (the Inspector, which
// shows the hovered cell in full), each pushed inside the display. When none keeps clear, the one that covers
// the least of it. Returns the tooltip's top-left corner.
ScreenRect tooltip_rect(float mx, float my, float w, float h, const ScreenRect& avoid, float display_w,
                        float display_h, float gap);

// "0.12", "-1.25", "12.3", "1.2e+04", "1.9e-03", "−∞", "NaN": short enough for a cell, never "0.00" for a
// value that is not zero (scientific below 0.01 and from 1000 on).
std::string format_value(float v);
// The same with more digits, for the inspector: "0.123457".
std::string format_value_long(float v);
// A live heatmap cell's number: format_value, except that a tiny value ("2.9e-04", which needs more room) is
// rounded to "0.00" or "-0.00". An exact zero stays "0", so the two read differently.
std::string cell_text(float v);
// The hovered cell's value in full, for its tooltip ("value 0.123457"); for a value a cell shows as 0.00 or
// 0, which of the two it is, so a reader who sees both on one map knows why. A masked cell (hatched, with no
// number) says so instead.
std::string cell_value_line(float v, bool masked = false);
// A probability in a list (the predictions, the logit lens): "0.123" from 0.001 up, "2.1e-05" below it, so
// the small ones of a 50,000-token vocabulary are not all "0.000".
std::string format_probability(float p);

// One number format for every number of a picture (cells and colour bar), so a reader never compares
// "9.0e-10" with "0.00": fixed with the same decimals for all, or scientific for all when the largest
// magnitude is below 0.01 or from 10000 on.
struct NumberFormat
{
    bool scientific = false; // "%.1e": "1.4e-05", "0.0e+00"
    int decimals = 2;        // fixed: digits after the point ("0.25", "12.5", "310")
};
// From the largest finite magnitude shown: 2 decimals below 10, 1 below 100, 0 below 10000.
NumberFormat choose_number_format(float max_abs);
// max_abs over the finite values of a row-major matrix, leaving out cells where mask (same size, optional)
// is −∞: masked cells show no number.
float shown_max_abs(const float* values, std::size_t count, const float* mask = nullptr);
// v in that format; −∞ as "−∞", NaN as "NaN", and never "-0.00".
std::string format_number(float v, NumberFormat format);

// A mark on a colour bar at the data's true min or max, and its label ("min -1.93", "max 0.81").
struct ColourBarMark
{
    float value = 0.0f;
    std::string text;
};
// The marks a colour bar whose labels read `shown` (its ends and middle, in the bar's format) puts at the
// data's min and max: one whose number a label already gives is left out (a symmetric scale's end is the
// data's largest magnitude; a sequential scale's ends are its min and max); the others say "min" or "max",
// so that a learner does not take them for ticks of the scale. min_text, max_text: range.min and range.max in
// the bar's format.
std::vector<ColourBarMark> colour_bar_marks(const ValueRange& range, const std::string& min_text,
                                            const std::string& max_text,
                                            const std::vector<std::string>& shown);

// The first max_chars code points of a UTF-8 string, with "…" when cut. It reads no further than the
// (max_chars + 1)-th code point, so a label cut from a token of megabytes costs what a short one does.
std::string truncate_utf8(std::string_view s, int max_chars);
// Number of code points in a UTF-8 string.
int utf8_length(std::string_view s);

} // namespace attnlab
