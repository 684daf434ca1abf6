// The Training panel's views beside its controls (private to the panel): the curves, the maps of the probe
// and "every stage", each in a file named after the panel (training_panel_<view>.cpp).
#pragma once

#include "core/matrix.h"
#include "ui/model/app_state.h"
#include "ui/model/training/text_readouts.h"
#include "ui/model/training/training_curves.h"
#include "ui/picture/colormap.h"

#include <imgui.h>

#include <string>
#include <utility>
#include <vector>

namespace attnlab
{

// The three plots (loss, accuracy, head scores) and the legend of runs; a click on a plot moves the timeline
// to its step. cursor: the step the maps show (-1: none). compact (presenter mode): lower plots, no axes
// switch, so the maps below keep room.
void draw_training_curves(AppState& state, int cursor, bool compact = false);

// The background the training plots are drawn on (presenter mode pushes its view's as the window's), for
// curve_color_on.
Color32 plot_background();

// The curves the panel and the presenter draw with the maps at step `cursor` (-1: none): at a lesson step's
// timeline position (its show_step) the current run's curves end at the cursor, on the whole run's axes, so
// the plots agree with the maps and the step's text. While a run the lesson compares with trains first (in
// the window, on the worker) its curves are shown whole as they grow: cut at the step's position they were
// empty axes. `whole_run` (the presenter in a lesson): the whole run's axes at every step, not fitted to the
// steps so far.
TrainingCurves shown_training_curves(const TrainingPanelState& ts, int cursor, bool whole_run = false);

// One plot with its title line, y axis, first and last step, the steepest drop, the cursor (the step the maps
// show) and the pointer's values, in size (the title line above it not counted). The loss plot's title line
// (plot is c.loss) names each loss next to a swatch of its colour. Returns the step under the
// mouse when the plot is clicked (-1 otherwise): clicking moves the timeline there.
int draw_curve_plot(const AppState& state, const CurvePlot& plot, const TrainingCurves& c, int cursor,
                    ImVec2 size);

// Presenter mode's Training view (training_panel_presenter.cpp draws it; the rest of the panel's files give
// it their parts).

// The heads' maps of the current run in a grid of `side`-pixel maps (labels included) with `gap` between
// them: a row per layer, or every head in one row (flat). Each titled with its head and, on text, its role.
void draw_training_heads(AppState& state, float side, float gap, bool flat);
// The room a head's map takes above and left of its cells in draw_training_heads, for a cell of `cell`
// pixels: the title lines and the label gutter.
float training_head_title_height();
// The widest line of scores draw_training_heads writes in full under a head's title, at the current font (0:
// a text model, whose heads name their roles instead).
float training_head_scores_width(AppState& state);
float training_head_label_gutter(float cell, bool short_labels);

// The room left of and above a probe map's cells for its labels, given the cell the full room (2.2 em) would
// leave: all of it when that cell is at least 0.7 em and some labels are short (training_labels_short); 1.1
// em on smaller cells for sparse labels (every k-th) when the row labels are short; else a sliver (no
// labels). One rule for draw_probe_map and the layouts that place its maps.
struct ProbeLabelGutter
{
    float gutter = 0.0f;
    bool sparse = false; // every k-th label, a little smaller
};
ProbeLabelGutter probe_label_gutter(float cell, bool sparse, bool rows_short, bool cols_short);
// True when the probe's maps can be drawn (a model, a probe, finite weights); else draw_training_maps says
// why.
bool training_maps_ready(AppState& state);
// The earlier run chosen to compare with, when its maps can be drawn (nullptr: none).
const PastRun* training_compared_maps(AppState& state);

// The loss strip's height for these cells at this width (draw_loss_strip_cells wraps the same way).
float loss_strip_height(const std::vector<LossCell>& cells, float width);
// The probe's loss cells at the shown step (empty: no probe yet).
std::vector<LossCell> training_loss_cells(AppState& state);
// The strip's legend line (the colour ramp and the mean).
void draw_loss_strip_legend(const std::vector<LossCell>& cells);
// Asks the sampler for the sample at the shown step (a picture waits for it) and returns the text on screen:
// the prompt's bytes first (*prompt_bytes of them); "" while none is written yet, or *error set.
std::string training_sample_text(AppState& state, std::size_t* prompt_bytes, std::string* error);
// Sample text with its prompt faint and line feeds as a faint glyph, word-wrapped at width, at most
// max_lines lines (0: all), the rest cut with an ellipsis.
void draw_sample_text(const std::string& text, std::size_t prompt_bytes, float width, int max_lines = 0);

// The maps of the probe at the timeline's step: attention (with its gradient), the output, or every stage.
void draw_training_maps(AppState& state);

// Every intermediate of one layer and head on the probe, in order, with its equation and shape.
void draw_training_stages(AppState& state);

// Row and column labels of a probe map (nullptr: none).
struct MapLabels
{
    const std::vector<std::string>* rows = nullptr;
    const std::vector<std::string>* cols = nullptr;
    // When cells are too small for every label and the labels are short (training_labels_short: a
    // character, a digit, a vote), every k-th is drawn (k = 2, 4, 8, ...) a little smaller, with a tick,
    // rather than none; the map's tooltip names every one.
    bool sparse = false;
};

// Whether every label is at most 2 em wide: short enough for a map's axis at any cell size (every k-th).
bool training_labels_short(const std::vector<std::string>& labels);

// The spacing of sparse labels: 1 when a label of `label` pixels fits a cell, else the smallest power of two
// k with k cells at least that long.
int sparse_label_step(float cell, float label);

// Draws one heatmap in an area of `area` pixels with row labels left and column labels on top when they fit,
// and with `colorbar` its colour bar and range on the right (inside the area: probe_colorbar_width).
// Returns the hovered cell (row, col) or (-1, -1).
std::pair<int, int> draw_probe_map(AppState& state, const char* key, unsigned long long version, const Mat& m,
                                   bool probability, const Mat* mask, ImVec2 area, const MapLabels& labels,
                                   ImU32 frame_color, bool colorbar = false);
// The width a probe map's colour bar takes beside it, its numbers included.
float probe_colorbar_width();

// [SECTION] Text readouts (the Text task; training_panel_text.cpp)

// The theme's panel background, opaque: the loss strip's colour of no surprise.
Color32 panel_background();
// The loss strip's cells, wrapped at width: each character on its surprise colour (the loss at the
// position that predicts it; a space, line feed or tab as a faint glyph). Returns the hovered cell or -1.
int draw_loss_strip_cells(const std::vector<LossCell>& cells, float width);
// The probe as a loss strip at the shown step, its tooltips and its legend.
void draw_loss_strip(AppState& state);
// The sample at the shown step: temperature, seed, prompt, and the text (generated on the sampler's worker;
// in pictures, before the frame is drawn).
void draw_text_samples(AppState& state);

// The probe's tokens as text ("?" for an id outside the vocabulary; a text model's space, line feed and tab
// as visible glyphs).
std::vector<std::string> training_probe_tokens(const TrainingPanelState& ts);
// The same as the vocabulary spells them (a space as a space).
std::vector<std::string> training_probe_symbols(const TrainingPanelState& ts);

} // namespace attnlab
