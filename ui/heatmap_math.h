// Heatmap geometry and pixels: mouse -> cell, label thinning, texture fill, number formatting. Pure
// functions.
#pragma once

#include "ui/colormap.h"

#include <cstdint>
#include <string>
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

// Texels per cell edge in a heatmap texture: 1 for large matrices, more for small ones so −∞ cells can
// carry stripes (at most 8, and the texture stays at most 512 texels wide).
int texels_per_cell(int rows, int cols);

// Fills rgba (rows·k x cols·k texels, row-major, top row first) with the colours of a row-major matrix.
void fill_heatmap_pixels(const float* values, int rows, int cols, const ColorScale& scale, int k,
                         std::vector<Color32>& rgba);

// "0.123", "-1.25", "12.3", "1.2e+04", "−∞", "NaN": short enough for a cell, 3 significant digits.
std::string format_value(float v);
// The same with more digits, for the inspector: "0.123457".
std::string format_value_long(float v);

// The first max_chars code points of a UTF-8 string, with "…" when cut.
std::string truncate_utf8(const std::string& s, int max_chars);
// Number of code points in a UTF-8 string.
int utf8_length(const std::string& s);

} // namespace attnlab
