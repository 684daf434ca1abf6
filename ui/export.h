// Export of a heatmap: a slide-ready PNG (title, equation, token labels, colour bar) drawn on the CPU with
// stb_truetype, and CSV of the matrix. No ImGui and no GL, so it runs in headless tests.
#pragma once

#include "core/status.h"
#include "ui/app_state.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab
{

// An RGBA8 picture in memory, top row first (R in the low byte).
struct Image
{
    int width = 0, height = 0;
    std::vector<std::uint32_t> pixels;
};

// A cell size (pixels) that makes the matrix about 640 pixels on its longer side, between 2 and 64.
int default_export_scale(int rows, int cols);

// Draws the heatmap picture: white background, title, equation and shape, row labels, column labels
// (rotated), the cells at cell_px pixels each (numbers inside when they fit), a colour bar with its range
// and −∞ swatch. note is set when the font is missing (the picture then has no text).
Image render_heatmap_image(const MatrixView& view, int cell_px, std::string* note = nullptr);

// Encodes to PNG and writes it through a temporary file; the error names the path and the reason.
Status write_png(const Image& image, const std::string& path);
// Writes RGB rows (bottom row first, as glReadPixels gives them) as a PNG.
Status write_rgb_png_bottom_up(const std::uint8_t* rgb, int width, int height, const std::string& path);

// "", col labels... then one line per row: label, values; −∞ as -inf. Through a temporary file.
Status export_matrix_csv(const MatrixView& view, const std::string& path);
// Renders and writes the PNG.
Status export_heatmap_png(const MatrixView& view, const std::string& path, int cell_px);

// The Training panel's curves as a slide: the run's settings and step, held-out figures, the loss (log
// scale, its steepest drop marked), accuracy and head-score plots, earlier runs overlaid, and a legend.
Image render_curves_image(const TrainingSnapshot& run, int target_steps, int score_kind,
                          std::string* note = nullptr);
Status export_curves_png(const TrainingSnapshot& run, int target_steps, int score_kind,
                         const std::string& path);

// Runs the export the dialog describes; the result goes to state.message.
void run_export_dialog(AppState& state);

} // namespace attnlab
