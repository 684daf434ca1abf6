// Presenter mode's pure layout: the font size for a window's height, the text size steps, where the caption
// goes (under the maps or beside them), and where a set of heatmaps goes in the view so that their cells are
// square and as large as the window allows (side by side, stacked or in a grid, whichever gives the larger
// cells). No ImGui, so tests compute it for any window.
#pragma once

#include "ui/model/layout.h"

#include <functional>
#include <string>
#include <vector>

namespace attnlab
{

// [SECTION] Text size

// Presenter mode's font size in pixels (at content scale 1): a 32nd of the window's height (34 px on a
// 1080-line screen, 22.5 px at 720) times the presenter's scale, kept between 12 and 80 px.
float presenter_font_size(float window_height, float presenter_scale);

// The caption's font size in pixels (at content scale 1): a 24th of the window's height (30 px on 720 lines,
// 45 px on 1080), larger than the rest of the presenter's text so that the back row reads it, times the
// presenter's scale, kept between 12 and 106 px.
float presenter_caption_font_size(float window_height, float presenter_scale);

// One Ctrl+= (step +1), Ctrl+- (step -1) or Ctrl+0 (step 0: back to 1) applied to a presenter scale, in
// tenths, kept within kMinPresenterScale..kMaxPresenterScale.
float step_presenter_scale(float scale, int step);
// The same for the normal font size: a pixel a step, 0 back to kDefaultFontSize, within the font limits.
float step_font_size(float size, int step);

// [SECTION] Maps

// The axis labels' text size in a presenter grid whose cells are `cell` pixels: the font's size while a
// label fits its cell, else as small as the cell (so every token keeps its label) down to a floor of 0.6 of
// the font, and never under 12 px; below the floor the labels thin out.
float presenter_label_size(float cell, float font_size);
// That floor: the smallest text a presenter map writes on or beside its cells (axis labels, the numbers in
// the cells), 0.6 of the font and never under 12 px (a font under it keeps its size).
float presenter_min_text_px(float font_size);

// The smallest cell a presenter grid keeps after Ctrl+= made its text `zoom` times its size at 100%: the
// cell it had at 100% (base_cell), and when the cell values fitted then (base_cell >= base_number_w + 4),
// also room for them at the larger text. zoom <= 1: no floor (0).
float zoomed_min_cell(float base_cell, float base_number_w, float zoom);

// One heatmap to place: its matrix's shape (one square cell per entry) and the room its labels take around
// the image, in pixels.
struct MapBox
{
    int rows = 1, cols = 1;
    float left = 0.0f;       // row labels
    float right = 0.0f;      // colour bar and its numbers (or a small margin)
    float top = 0.0f;        // title lines
    float col_labels = 0.0f; // column labels under the image
    float below = 0.0f;      // under the column labels (the colour bar's last number)
    // Maps in one grid row with the same row_axis (>= 0) show the row labels on the leftmost only; maps in
    // one grid column with the same col_axis (>= 0) show the column labels on the lowest only.
    int row_axis = -1;
    int col_axis = -1;
};

struct MapPlacement
{
    LayoutRect image;       // the cells, relative to the area's top left corner
    float cell = 0.0f;      // this map's cell side (MapGrid::cell, or larger in a one-column grid)
    bool row_labels = true; // false: left out, the map on its left shows the same ones
    bool col_labels = true; // false: left out, the map below shows the same ones
};

struct MapGrid
{
    // A cell's side in pixels, the same for every map so they compare at a glance; in one column, a map
    // whose keys differ from its neighbours' may get larger cells from the height the others leave.
    float cell = 0.0f;
    // The cell every map had before a map of its own shape grew (layout_maps; else = cell): grid shapes are
    // compared by it.
    float shared_cell = 0.0f;
    int columns = 0; // maps per grid row (row-major order)
    std::vector<MapPlacement> maps;
    float width = 0.0f, height = 0.0f; // the whole grid, labels included (spare room not counted)
    float spare = 0.0f; // room left across the area, given to each column on its right (half at the edges)
};

// Places the maps in a grid inside area_w x area_h with `gap` pixels between grid cells, choosing the number
// of columns (1..n) that gives the largest square cells (at most max_cell); on a tie, the one with fewer
// rows. Room left across the area is shared out between the columns (so headers wider than their maps have
// room); the grid is centred down the area, and a short last row (3 maps in 2 columns) across it, so that
// no quarter of the view is left empty beside it (the maps above it then show their own column labels). An
// empty list gives an empty grid. columns > 0: that many columns (at most n) instead of the best. min_cell >
// 0: cells are never smaller, even when the grid then outgrows the area (the view scrolls); of the shapes
// that need it, the one that fits across with the fewest rows.
//
// In a grid of several columns, a map of a shape no other map has (a head's T×d_v output beside the T×d_model
// ones) may show its own labels and take larger cells than the rest: as large as the grid then allows with
// the others at kUniqueKeepShare of their cell or more (the most the others can keep), when that gives it at
// least kUniqueGrowGain times their shared cell. MapGrid::cell is then the others' cell. Not with min_cell.
inline constexpr float kUniqueGrowGain = 1.5f;
inline constexpr float kUniqueKeepShare = 0.8f;
MapGrid layout_maps(const std::vector<MapBox>& maps, float area_w, float area_h, float gap, float max_cell,
                    int columns = 0, float min_cell = 0.0f);

// [SECTION] The caption: under the maps or beside them

// Where the caption goes in the room under the title line (w x h): in a band across the bottom (under wide,
// short maps, which leave height spare) or in a column on the right (beside square or tall maps, which leave
// width spare), whichever gives the maps larger cells.
enum class CaptionSide
{
    Below,
    Right,
};
inline constexpr float kCaptionBandMaxShare = 0.45f; // of the room's height; a longer caption scrolls
// The widths a right-hand column may take, as shares of the room's width.
inline constexpr float kCaptionColumnShares[] = {0.25f, 0.3f, 0.35f, 0.4f};
struct CaptionPlacement
{
    CaptionSide side = CaptionSide::Below;
    LayoutRect caption; // relative to the room's top left corner
    LayoutRect view;    // the maps' view: the rest of the room
    float cell = 0.0f;  // the maps' cell in `view` (0: no maps)
};

// caption_height(width): the caption's height wrapped to that width (its padding included); map_cell(w, h):
// the maps' cell in a view of w x h (empty: the view is a panel or the Training view, which keep the band).
// A column is only a candidate when the whole caption fits its height; it wins when its cells are more than
// a pixel larger than under the band (ties keep the band), and of the columns giving the largest cells (to a
// pixel) the widest, which wraps the caption to the fewest lines.
CaptionPlacement place_caption(float w, float h, const std::function<float(float)>& caption_height,
                               const std::function<float(float, float)>& map_cell);

// The caption's size and place for a step: at caption_px (a 24th of the screen: read from the back row of
// a lecture room) wherever the whole caption fits its place, a column beside the maps or the band within
// kCaptionBandMaxShare; else the largest whole pixel size between text_px and caption_px at which it does
// (the caption is never cut: a lesson's text should be short enough not to need it). The maps take what the
// caption leaves. caption_height(width, px): the caption's height wrapped to width at font size px;
// map_cell(w, h): the maps' cell in a view of w x h (empty: a panel or the Training view, which keep the
// band).
struct CaptionChoice
{
    float font_px = 0.0f;
    CaptionPlacement placement;
};
CaptionChoice choose_caption(float w, float h, float text_px, float caption_px,
                             const std::function<float(float, float)>& caption_height,
                             const std::function<float(float, float)>& map_cell);

// [SECTION] The Training view

// Where presenter mode's Training view puts its parts, below its status line, in an area of w x h pixels:
// the probe's head maps on the right with square cells as large as the height allows (a row per layer, or
// every head in one row when that gives larger cells), the plots in a left column of at least min_left
// that takes the width the maps leave (half a gap stays right of the maps for their titles), and under the
// plots (a text model) the sample and loss strip. Without text readouts, when a grid of few maps across the
// view's width would leave the height under it free, the maps may go across the top and the plots side by
// side under them instead (plots_below): taken when that makes the cells at least kPlotsBelowGain times
// larger, with the plots at least min_below_h high.
inline constexpr float kPlotsBelowGain = 1.2f;
struct TrainingPresenterLayout
{
    LayoutRect curves;        // the loss plot, the head-score plot and its legend
    LayoutRect text;          // the text readouts (h = 0: none asked for)
    LayoutRect maps;          // the heads' maps, labels and titles included
    MapGrid grid;             // the maps placed in `maps` (positions relative to its top left corner)
    bool plots_below = false; // the maps across the top, the plots side by side under them
    float height = 0.0f;      // the parts' height: h, or more when min_cell made them outgrow it
};

// heads: one box per head, layer by layer (heads_per_layer of each); gap: between maps and parts; max_cell:
// the largest cell; min_left: the plots' column at its narrowest. min_text_h > 0: a text model, whose
// readouts go under the plots: the plots get 55 % of the height, or what leaves the readouts min_text_h when
// that is less, and never less than min_curves_h (a short view: the readouts get what is left, even under
// min_text_h, so that the plots are never cut). min_below_h > 0: the plots' least height side by side under
// the maps (0: never under them). min_cell > 0 (text enlarged with Ctrl+=: the cell at 100%): the parts are
// laid out in the least height from h up that gives the maps cells at least that large (`height`; the view
// scrolls), so that larger text never makes the maps smaller.
TrainingPresenterLayout layout_training_presenter(float w, float h, const std::vector<MapBox>& heads,
                                                  int heads_per_layer, float gap, float max_cell,
                                                  float min_left, float min_curves_h, float min_text_h,
                                                  float min_below_h = 0.0f, float min_cell = 0.0f);

// The Training view's plot column: the loss plot over the head-score plot, each under its title line, and
// the head legend (a table, legend_w wide) beside the head-score plot when that leaves the plot at least half
// the column (or, when the column is too short for the legend under the plots at their least, 30 % of it),
// else under it. A plot of height H (PlotChrome: its top pad and step labels) has axes
// H - kPlotChromeEm em high. The rule: the loss plot's axes at least kLossAxesMinEm em, the head-score
// plot's kHeadAxesMinEm em (90 and 68 px at 720 lines, 135 and 101 px at 1080), whatever the text model's
// readouts or the caption leave; above that the loss plot gets 55 % of the room.
inline constexpr float kPlotChromeEm = 1.7f;
inline constexpr float kLossAxesMinEm = 4.0f;
inline constexpr float kHeadAxesMinEm = 3.0f;
inline constexpr float kLegendBesideShare = 0.5f;      // the legend's most of the column's width
inline constexpr float kLegendBesideShortShare = 0.7f; // the same in a short column
struct TrainingCurvesColumn
{
    float loss_h = 0.0f, heads_h = 0.0f; // each plot's height, chrome included (title line not)
    bool legend_beside = false;          // the legend right of the head-score plot
    float heads_w = 0.0f;                // the head-score plot's width
    float min_height = 0.0f;             // the column's height with both plots at their least
};
// w x h: the column; fs: the font size; line: a text line with its spacing; spacing: between items; layers:
// the legend's rows after its heading row.
TrainingCurvesColumn layout_training_curves(float w, float h, float fs, float line, float spacing, int layers,
                                            float legend_w);

// [SECTION] Text that must not break inside

// Parts of a line (e.g. "T×T = 6×6", "H = 1.11 nats") laid out in order within max_w: a part goes on the
// current line when it fits after `space`, else it starts a new line; a part is never broken (a part wider
// than max_w stands alone on its line). Returns each part's line index.
std::vector<int> flow_parts(const std::vector<float>& widths, float space, float max_w);

} // namespace attnlab
