// The heatmap widget: a matrix as one texture with token labels, a colour bar, hover, pin and export menu.
#pragma once

#include "ui/model/app_state.h"
#include "ui/picture/colormap.h"

#include <imgui.h>

namespace attnlab
{

struct HeatmapOptions
{
    float width = 0.0f;       // total width including labels and colour bar; 0: the available width
    float max_cell_px = 0.0f; // cells never get larger than this; 0: large enough for numbers inside (48 px
                              // at the default font, more at larger ones)
    float max_height = 0.0f;  // > 0: cells get flatter rather than the image taller than this
    // > 0: the same for the whole widget, labels and colour bar included (column labels are left out when
    // they would leave the image under 4 lines of text)
    float max_total_height = 0.0f;
    bool labels = true; // token / index labels on both axes
    // With labels: also the row labels (a map beside one with the same rows may leave them out).
    bool row_labels = true;
    bool col_labels = true;      // with labels: also the column labels (the heads grid leaves them out)
    bool colorbar = true;        // the colour bar with the true range
    int highlight_row = -1;      // a row outlined across the whole map (the heads grid's hovered query)
    int pinned_row = -1;         // a row outlined in the pinned colour (the heads grid's pinned query)
    bool dim_other_rows = false; // with pinned_row: the other rows are drawn darker
    Color32 frame_color = 0;     // > 0: a frame around the image in this colour (a head's own colour)
    float frame_thickness = 2.0f;
    // >= 0 with view.column_blocks: that block of columns framed in block_color (the packed W^Q's selected
    // head).
    int highlight_block = -1;
    Color32 block_color = 0;
    bool pin_on_click = true;         // false: a click only reports `clicked` (the heads grid selects a head)
    const char* click_hint = nullptr; // the tooltip's last line when pin_on_click is false
    // false: a right click only reports `right_clicked` (the heads grid of an opened model switches the head
    // off) instead of opening the export menu.
    bool export_menu = true;
    // > 0: the axis labels at this text size in pixels (presenter grids shrink them to fit small cells, so
    // every token is named); 0: the current font's.
    float label_font_px = 0.0f;
    // > 0: the numbers in the cells may shrink to this text size to fit their cells (presenter grids: the
    // labels' floor, cell_number_px); 0: at the font's size or not at all.
    float min_number_px = 0.0f;
    // > 0: the numbers in the cells never larger than this (a presenter grid writes every map's numbers at
    // one size, the smallest any of them needs); 0: no cap.
    float max_number_px = 0.0f;
    // With labels: the axes' titles ("query", "key": the view's row_axis and col_axis), the rows' reading
    // upwards left of the row labels, the columns' under the column labels.
    bool axis_titles = false;
    // A Σ column a cell wide right of the image (before the colour bar), each row's sum in it, with "Σ" under
    // it and the sum written out in its tooltip: where the softmax's axis is the subject.
    bool row_sums = false;
};

struct HeatmapResult
{
    bool visible = false; // drawn (false when scrolled out of view: nothing was uploaded)
    bool hovered = false;
    int row = -1, col = -1; // the hovered cell
    bool clicked = false;   // left click on a cell this frame
    float number_px = 0.0f; // the text size the numbers in the cells were written at (0: none written)
    bool right_clicked =
        false; // right click on a cell this frame, without the export menu (export_menu false)
};

// The room a heatmap takes around its image, in pixels at the current font: row labels on the left, the
// colour bar and its numbers on the right, column labels and the colour bar's last line below. The image
// starts at the widget's left edge plus `left`.
struct HeatmapMargins
{
    float left = 0.0f;       // row labels
    float right = 0.0f;      // the gap, the colour bar and its numbers
    float col_labels = 0.0f; // column labels under the image
    float below = 0.0f;      // under the column labels: the colour bar's last number
    int sum_cols = 0;        // columns of cells beside the image (the Σ column), a cell wide each; `right`
                             // has the gap before them, not their cells
};
HeatmapMargins heatmap_margins(const MatrixView& view, const HeatmapOptions& options);
// Where rows are too short for a label each, their labels are thinned and carry their index ("i=4 cross"),
// and draw_heatmap widens the row labels' room to fit them (a layout that counted only heatmap_margins' room
// saw that map's cells shrink). heatmap_thinned_row_label_room: that room (padding and axis title included),
// measured once; 0 when the rows are not labelled with tokens. heatmap_row_labels_thinned: whether rows
// cell_h pixels tall are thinned.
float heatmap_thinned_row_label_room(const MatrixView& view, const HeatmapOptions& options);
bool heatmap_row_labels_thinned(const MatrixView& view, const HeatmapOptions& options, float cell_h);

// The text size draw_heatmap would write the numbers in the cells at, with square cells `cell` pixels wide
// (options.min_number_px and max_number_px apply); 0 when they would not be written.
float heatmap_numbers_px(AppState& state, const MatrixRef& ref, const HeatmapOptions& options, float cell);

// Draws the matrix `ref` resolves to; "not available" text when it does not resolve.
HeatmapResult draw_heatmap(AppState& state, const MatrixRef& ref, const HeatmapOptions& options = {});
// The items of a map's right-click menu (inside a popup the caller began): `title` greyed, then Export PNG /
// SVG / PDF / CSV…, a head's whole chain for a per-head map, and Unpin cell while a cell is pinned.
void heatmap_export_menu_items(AppState& state, const MatrixRef& ref, const std::string& title);

// Draws a colour bar for a scale in [x0, x0 + w] x [y0, y0 + h] with its labels to the right.
// Returns the width used including the labels.
float draw_colorbar(const ColorScale& scale, const ValueRange& range, float x0, float y0, float w, float h);

// The colour of pinned things: a pinned cell's outline, the heads grid's pinned query row.
Color32 pinned_color();

// Draws text rotated by -90° (reading upwards) that starts at `bottom_left` and goes up (key labels), at
// `size` pixels (0: the current font's).
void draw_text_upwards(ImDrawList* dl, ImVec2 bottom_left, ImU32 color, const char* text, float size = 0.0f);

} // namespace attnlab
