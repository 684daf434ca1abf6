// Export of a heatmap: a slide-ready PNG (title, equation, axis titles, token labels, colour bar) drawn on
// the CPU with stb_truetype, and CSV of the matrix. No ImGui and no GL, so it runs in headless tests.
#pragma once

#include "core/status.h"
#include "ui/model/app_state.h"
#include "ui/picture/raster.h"
#include "ui/picture/vector_out.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attnlab
{

// A cell size (pixels) that makes the matrix about 640 pixels on its longer side, between 2 and 64.
int default_export_scale(int rows, int cols);

// [SECTION] What a heatmap picture says

// A heatmap as a picture: the matrix, its labels, and the words around it.
struct HeatmapPicture
{
    MatrixView view;
    std::string title; // "Attention weights A_2 · layer 1 · sentence 1 · causal mask · τ = 1"; "": none
    std::string subtitle;                      // the equation and the shape; "": none
    std::string row_axis;                      // "query", "position", ...; "": none
    std::string col_axis;                      // "key", "feature (d_model)", ...
    std::vector<std::pair<int, int>> outlined; // (row, col) cells framed in outline_color (lesson cells)
    Color32 outline_color = 0;
    bool colorbar = true;
    // false: no row labels and no row axis title (the map on its left in a slide's row names the same rows).
    bool row_labels = true;
    // Each row's sum in a Σ column a cell wide right of the cells (a step about the softmax's axis).
    bool row_sums = false;
};

// The matrix's name with its head: "Queries Q_2", "Attention weights A_2", "Scores · head 2", "Input X".
std::string matrix_name(const AppState& state, const MatrixRef& ref);
// Where it comes from and what shaped it: "layer 1 · sentence 1 · causal mask · τ = 1". Layers, sentences
// and heads count from 1 in every title and file name, as the window's head chips and layer selector do. The
// mask is named from the masked scores on and τ from the weights on (where they change the numbers).
std::string matrix_context(const AppState& state, const MatrixRef& ref);
// The picture of ref: name and context as the title, equation and shape below, and its axis titles. The
// view is not available (view.m == nullptr) when ref does not resolve.
HeatmapPicture heatmap_picture(const AppState& state, const MatrixRef& ref);
// A picture of a bare view (its own title, equation and shape, its axis titles).
HeatmapPicture heatmap_picture(const MatrixView& view);

// [SECTION] Drawing

// Text sizes of a picture, in pixels.
struct PictureFonts
{
    float title = 30.0f;
    float body = 20.0f;  // subtitle, colour bar, numbers in cells (at most)
    float label = 18.0f; // token labels and axis titles
    // No text under this many pixels: labels are thinned and numbers left out of cells rather than drawn
    // smaller (0: the picture's own floors, 12 px labels and 10 px numbers). Slides set it so that a slide
    // pasted at half size stays legible.
    float min_text = 0.0f;
};

// The size the picture of p takes at cell_px pixels per cell; image_top (optional): where its cells start
// under the title and subtitle (maps side by side line up their cells with it).
void measure_heatmap_picture(const HeatmapPicture& p, const TextRasterizer& text, const PictureFonts& fonts,
                             int cell_px, int* width, int* height, int* image_top = nullptr);
// Draws it with its top-left corner at (x, y): title, subtitle, row and column labels with their axis
// titles, cells (masked ones hatched as in the window, numbers inside when they fit, all in one format),
// column-block separators, outlined cells, and the colour bar with its range and the masked swatch.
void draw_heatmap_picture(Image& img, int x, int y, const HeatmapPicture& p, const TextRasterizer& text,
                          const PictureFonts& fonts, const Palette& palette, int cell_px);

// The whole picture on its own page (light: white; dark: the dark theme's page). note is set when the font
// is missing (the picture then has no text).
Image render_heatmap_image(const HeatmapPicture& p, int cell_px, bool dark = false,
                           std::string* note = nullptr);
Image render_heatmap_image(const MatrixView& view, int cell_px, std::string* note = nullptr);

// [SECTION] Files

// Encodes to PNG and writes it through a temporary file; the error names the path and the reason.
Status write_png(const Image& image, const std::string& path);
// Writes RGB rows (bottom row first, as glReadPixels gives them) as a PNG.
Status write_rgb_png_bottom_up(const std::uint8_t* rgb, int width, int height, const std::string& path);

// "", col labels... then one line per row: label, values; −∞ as -inf. Through a temporary file.
Status export_matrix_csv(const MatrixView& view, const std::string& path);
// Renders and writes the picture as PNG, SVG or PDF (one page), all three from the same layout.
Status export_heatmap(const HeatmapPicture& p, const std::string& path, int cell_px, PictureFormat format);
// Renders and writes the PNG.
Status export_heatmap_png(const HeatmapPicture& p, const std::string& path, int cell_px);
Status export_heatmap_png(const MatrixView& view, const std::string& path, int cell_px);

// [SECTION] Training curves

// The head score a curves picture shows: the one that tells the run's task's heads apart (TaskInfo::score),
// whatever the panel's selector holds (a reverse run's picture shows anti-diagonal, not previous-token).
train::HeadScoreKind curves_export_score(const TrainingSnapshot& run);

// The Training panel's curves as a slide: the run's settings and step, held-out figures, the loss (log
// scale, its steepest drop marked), accuracy and head-score plots (curves_export_score) with labelled axes
// and round step ticks, earlier runs overlaid, and under each plot a legend of its series (training and
// held-out loss in their colours, every head with its last held-out score). Labels are at least 17 px (8.5 px
// when the 1800-px picture is pasted at half size). fit_to_run as in training_curves.
Image render_curves_image(const TrainingSnapshot& run, int target_steps, std::string* note = nullptr,
                          bool fit_to_run = true);
// The three plots alone, in [x, x + w) x [y, y + h) of img (for lesson slides), with score_kind's head score;
// until_step as in training_curves (a lesson step's slide: the curves end at the step its maps show).
void draw_curve_plots(Image& img, const TextRasterizer& text, const Palette& palette,
                      const TrainingSnapshot& run, int target_steps, int score_kind, int x, int y, int w,
                      int h, int cursor_step = -1, bool fit_to_run = true, int until_step = -1);
Status export_curves_png(const TrainingSnapshot& run, int target_steps, const std::string& path,
                         bool fit_to_run = true);
// The same picture in the format the path's extension asks for (.svg, .pdf; otherwise PNG).
Status export_curves_picture(const TrainingSnapshot& run, int target_steps, const std::string& path,
                             bool fit_to_run = true);

// "attnlab-chain-layer1-sentence1-head2.svg": the file name of a head's chain slide (Csv: .png).
std::string head_chain_export_path(const MatrixRef& ref, ExportFormat format);

// Runs the export the dialog describes; the result goes to state.message.
void run_export_dialog(AppState& state);

} // namespace attnlab
