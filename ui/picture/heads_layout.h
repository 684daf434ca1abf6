// The Heads panel's geometry and readings: how the grid of h maps is sized and labelled, how the layers x
// heads overview is sized, and which key a query looks at most. Pure functions (no ImGui), unit-tested.
#pragma once

#include "core/matrix.h"

namespace attnlab
{

// [SECTION] The grid of maps

// What the grid of h maps has to fit in. Sizes are in pixels.
struct HeadsGridRequest
{
    int heads = 1;
    int rows = 1, cols = 1; // each map's size: T x T (T_q x T_k in cross-attention)
    float width = 0.0f, height = 0.0f;
    float font_px = 17.0f;    // a label needs a cell at least this tall (rows) or wide (keys, drawn upwards)
    float title_h = 0.0f;     // the title line above each map
    float gap = 0.0f;         // between maps
    float row_label_w = 0.0f; // the widest query label, padding included
    float key_label_h = 0.0f; // the widest key label (drawn upwards, so it is that tall), padding included
    float min_map_px = 64.0f; // labels are left out before a map gets smaller than this
};

// The grid: maps of map_w x map_h in `columns` columns. Query labels are drawn once at the left of each grid
// row and key labels once under the last grid row (every map of a column has the same keys at the same x).
// An axis is labelled only when every one of its tokens gets a cell of at least font_px, so no label is
// skipped or overlaps; otherwise the tooltip names the token under the mouse.
struct HeadsGridLayout
{
    int columns = 1, grid_rows = 1;
    float cell_px = 0.0f; // square cells
    float map_w = 0.0f, map_h = 0.0f;
    bool row_labels = false, key_labels = false;
};

// The layout with the most labels that fit, and among those the largest maps: both axes, then keys only, then
// queries only, then none. A layout with labels must keep maps of at least min_map_px.
HeadsGridLayout layout_heads_grid(const HeadsGridRequest& request);

// [SECTION] The layers x heads overview

// What the overview has to fit in: one cell per (layer, head), layers down, heads across.
struct OverviewRequest
{
    int layers = 1, heads = 1, keys = 1;
    float width = 0.0f, height = 0.0f;
    float font_px = 17.0f;
    float line_h = 0.0f;        // a line of text (the head titles above, the top key under each strip)
    float gap = 0.0f;           // between cells
    float layer_label_w = 0.0f; // "layer 12" at the left of each row, padding included
    float key_label_h = 0.0f;   // the widest key label (drawn upwards under the last row), padding included
    bool whole_maps = false;    // the whole maps are drawn (no query): cells are square
};

struct OverviewLayout
{
    float cell_w = 0.0f;      // a cell's width: the strip of T keys, or the whole map
    float strip_h = 0.0f;     // a query's strip
    float strip_row_h = 0.0f; // a layer's row of strips: the strip, the line naming its top key, the gap
    float map_h = 0.0f;       // a whole map (when no query is shown)
    float map_row_h = 0.0f;   // a layer's row of whole maps: the map and the gap
    float key_px = 0.0f;      // the width of one key (below 1: several keys share a pixel column)
    int key_stride = 1;       // a key label every key_stride keys (1: all)
};

// Cells share the width. Strips are at least a label tall and at most two and a half lines; whole maps are
// square (with whole_maps, cell_w is their side: narrower than the width gives when the height is short), at
// least two labels tall unless the width is narrower. When the layers do not fit at those smallest sizes, the
// rows keep them (the panel scrolls).
OverviewLayout layout_overview(const OverviewRequest& request);

// For a strip of `keys` keys drawn `pixels` wide with fewer pixels than keys: the keys [first, last) pixel
// column p shows (each shows the largest weight among them, so a single strong key is never lost).
void keys_of_pixel(int keys, int pixels, int p, int* first, int* last);

// [SECTION] Readings

// The key a query row looks at most and its weight; col -1 when the row is out of range or empty.
struct TopKey
{
    int col = -1;
    float weight = 0.0f;
};
TopKey top_key(const Mat& weights, int row);

} // namespace attnlab
