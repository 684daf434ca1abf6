// Export of a heatmap: a slide-ready PNG drawn on the CPU with stb_truetype, and CSV of the matrix.
//
// Index of this file:
// [SECTION] What a heatmap picture says
// [SECTION] The heatmap picture
// [SECTION] Files
// [SECTION] The training curves picture
//
// The curve plots are laid out in curve_plot.h; this file only paints them.
#include "ui/picture/export.h"

#include "core/io/atomic_file.h"
#include "core/train/tasks.h"
#include "ui/model/training/training_curves.h"
#include "ui/picture/colormap.h"
#include "ui/picture/curve_plot.h"
#include "ui/picture/heatmap_math.h"
#include "ui/picture/slides.h"

#include <stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnlab
{

int default_export_scale(int rows, int cols)
{
    const int n = std::max(1, std::max(rows, cols));
    return std::clamp(640 / n, 2, 64);
}

// [SECTION] What a heatmap picture says

namespace
{

// "T×T = 6×6" style joins: " · " between the parts of a title.
void append_part(std::string& s, const std::string& part)
{
    if (part.empty())
        return;
    if (!s.empty())
        s += " · ";
    s += part;
}

// Every "_h" of a symbol ("Q_h", "A_h") with the head's number from 1: "Q_2".
std::string with_head(std::string s, int head)
{
    const std::string j = "_" + std::to_string(head + 1);
    for (std::size_t at = s.find("_h"); at != std::string::npos; at = s.find("_h", at + j.size()))
        s.replace(at, 2, j);
    return s;
}

bool has_padding(const std::vector<std::string>* tokens)
{
    return tokens != nullptr && std::find(tokens->begin(), tokens->end(), "<pad>") != tokens->end();
}

std::string temperature_text(float tau)
{
    char s[32];
    std::snprintf(s, sizeof s, "τ = %g", static_cast<double>(tau));
    return s;
}

} // namespace

std::string matrix_name(const AppState& state, const MatrixRef& ref)
{
    if (ref.source == MatrixSource::Comparison)
    {
        const MatrixView view = resolve_matrix(state, ref);
        const bool per_head = ref.comparison == ComparisonMatrix::Q_two_step ||
                              ref.comparison == ComparisonMatrix::Q_collapsed ||
                              ref.comparison == ComparisonMatrix::Q_difference ||
                              ref.comparison == ComparisonMatrix::W_collapsed;
        return per_head ? with_head(view.title, ref.head) : view.title;
    }
    if (ref.source == MatrixSource::Weight)
        return resolve_matrix(state, ref).title; // "W_2^Q  (head 2)", "W^O"
    const StageInfo& info = stage_info(ref.stage);
    std::string name = ref.source == MatrixSource::Cross && ref.stage == Stage::X
                           ? "Target X_q"
                           : stage_name(state.trace(), ref.stage);
    if (!info.per_head)
        return name;
    if (name.find("_h") != std::string::npos)
        return with_head(name, ref.head);
    // The equation's left side when it is one symbol ("A_h = softmax(…)", "head_h = A_h V_h").
    const std::string eq = info.equation;
    const std::size_t eq_at = eq.find(" = ");
    if (eq_at != std::string::npos && eq.substr(0, eq_at).find(' ') == std::string::npos &&
        eq.find("_h") < eq_at)
        return name + " " + with_head(eq.substr(0, eq_at), ref.head);
    return name + " · head " + std::to_string(ref.head + 1);
}

std::string matrix_context(const AppState& state, const MatrixRef& ref)
{
    std::string s;
    if (!state.has_trace())
        return s;
    const Trace& t = state.trace();
    const bool comparison = ref.source == MatrixSource::Comparison;
    const bool cross = ref.source == MatrixSource::Cross;
    if (t.trained)
        append_part(s, "trained model");
    if (ref.source == MatrixSource::Weight)
    {
        // The model's matrix: the same for every sentence, mask and τ.
        append_part(s, "layer " + std::to_string(ref.layer + 1));
        return s;
    }
    if (cross)
        append_part(s, "cross-attention");
    else if (comparison || stage_info(ref.stage).scope == StageScope::Layer) // the embedding is in no layer
        append_part(s, "layer " + std::to_string(ref.layer + 1));
    append_part(s, "sentence " + std::to_string(ref.b + 1));
    // Where the mask and τ change the numbers: from the masked scores (mask) and the weights (τ) to the
    // block's output, and the single-head comparison built the same way.
    const int order = static_cast<int>(ref.stage);
    const bool single = comparison && (ref.comparison == ComparisonMatrix::single_weights ||
                                       ref.comparison == ComparisonMatrix::single_out);
    const bool block = !comparison && stage_info(ref.stage).attention_block;
    const bool shows_mask = single || (block && order >= static_cast<int>(Stage::masked));
    const bool shows_tau = single || (block && order >= static_cast<int>(Stage::weights));
    if (shows_mask && ref.b >= 0 && ref.b < t.batch_size())
    {
        const bool causal = !cross && t.config.mask == MaskKind::Causal;
        const bool padding = has_padding(&t.tokens.tokens[static_cast<std::size_t>(ref.b)]);
        append_part(s, causal && padding ? "causal + padding mask"
                       : causal          ? "causal mask"
                       : padding         ? "padding mask"
                                         : "no mask");
    }
    if (shows_tau)
        append_part(s, temperature_text(state.session.config.temperature));
    return s;
}

HeatmapPicture heatmap_picture(const MatrixView& view)
{
    HeatmapPicture p;
    p.view = view;
    p.title = view.title;
    p.subtitle = view.equation;
    if (!view.shape.empty())
    {
        // The shape never breaks across lines: its spaces are no-break spaces.
        std::string shape;
        for (char ch : view.shape)
            shape += ch == ' ' ? std::string("\u00a0") : std::string(1, ch);
        p.subtitle += (p.subtitle.empty() ? "" : "  ·  ") + shape;
    }
    p.row_axis = view.row_axis;
    p.col_axis = view.col_axis;
    return p;
}

HeatmapPicture heatmap_picture(const AppState& state, const MatrixRef& ref)
{
    HeatmapPicture p = heatmap_picture(resolve_matrix(state, ref));
    p.title = matrix_name(state, ref);
    append_part(p.title, matrix_context(state, ref));
    return p;
}

// [SECTION] The heatmap picture

namespace
{

// Where everything of a heatmap picture goes, relative to its top-left corner. Measuring and drawing share
// it, so a slide's layout is exactly what gets drawn.
struct HeatmapLayout
{
    int width = 0, height = 0;
    int rows = 0, cols = 0, cell = 1;
    float title_y = 0, subtitle_y = 0;
    std::vector<std::string> subtitle_lines; // wrapped to the map's width (or the title's, when wider)
    int x_img = 0, y_img = 0, image_w = 0, image_h = 0;
    int x_sums = 0;         // the Σ column's left edge (HeatmapPicture::row_sums), a cell wide
    float row_axis_x = 0;   // the rotated row axis title's left edge
    float col_labels_h = 0; // the column labels' height under the image
    int x_bar = 0, bar_w = 0, bar_h = 0;
    int rstride = 1, cstride = 1;
    float label_px = 0.0f; // the row and column labels' size: the font's, or smaller to fit small cells
    bool col_tokens = false;
    bool col_flat =
        false; // token column labels lying flat: each fits its cell (a turned "I" reads as a dash)
    std::vector<std::string> row_labels, col_labels;
    NumberFormat format;
    float number_px = 0.0f; // 0: no numbers in the cells
    bool has_masked = false;
    ColorScale scale;
    ValueRange range;
};

// Beside the hatched swatch under the colour bar (the subtitle says what the mask does: −∞ or weight 0).
constexpr const char* kMaskedLegend = "masked";

HeatmapLayout layout_heatmap(const HeatmapPicture& p, const TextRasterizer& text, const PictureFonts& f,
                             int cell_px)
{
    HeatmapLayout L;
    const MatrixView& view = p.view;
    const Mat& m = *view.m;
    L.rows = static_cast<int>(m.rows());
    L.cols = static_cast<int>(m.cols());
    L.cell = std::clamp(cell_px, 1, 256);
    const std::size_t n = static_cast<std::size_t>(m.size());
    const bool mask_fits =
        view.mask != nullptr && view.mask->rows() == m.rows() && view.mask->cols() == m.cols();
    for (int r = 0; r < L.rows && !L.has_masked; ++r)
        for (int c = 0; c < L.cols && !L.has_masked; ++c)
            L.has_masked = cell_masked(view, r, c);

    // Labels shrink to their cells (every token named: a slide about "it" shows "it") down to 0.6 of the
    // font and never under 12 px; below that they are thinned so they never overlap.
    L.col_tokens = view.col_tokens != nullptr;
    const float floor_px = std::max(f.min_text, std::min(f.label, std::max(12.0f, 0.6f * f.label)));
    L.label_px = std::clamp(static_cast<float>(L.cell) / 1.15f, floor_px, std::max(floor_px, f.label));
    const float lpx = L.label_px;
    L.rstride = label_stride(L.rows, static_cast<float>(L.cell), lpx * 1.15f);
    L.cstride = label_stride(L.cols, static_cast<float>(L.cell), L.col_tokens ? lpx * 1.15f : lpx * 2.4f);
    L.row_labels.assign(static_cast<std::size_t>(L.rows), std::string());
    L.col_labels.assign(static_cast<std::size_t>(L.cols), std::string());
    float row_w = 0.0f, col_h = L.col_tokens ? 0.0f : lpx * 1.3f;
    for (int r = 0; r < L.rows && p.row_labels; r += L.rstride)
    {
        auto& s = L.row_labels[static_cast<std::size_t>(r)];
        s = row_label(view, r, 14);
        row_w = std::max(row_w, text.width(s, lpx));
    }
    for (int c = 0; c < L.cols; c += L.cstride)
    {
        auto& s = L.col_labels[static_cast<std::size_t>(c)];
        s = col_label(view, c, 14);
        if (L.col_tokens)
            col_h = std::max(col_h, text.width(s, lpx));
    }
    L.col_flat = L.col_tokens && L.cstride == 1 && col_h + 6.0f <= static_cast<float>(L.cell);
    if (L.col_flat)
        col_h = lpx * 1.3f;
    L.col_labels_h = col_h;
    const float axis_h = f.label * 1.35f; // a line of axis title
    L.row_axis_x = 0.0f;
    const float row_axis_w = p.row_axis.empty() || !p.row_labels ? 0.0f : axis_h + 4.0f;
    L.x_img = p.row_labels ? static_cast<int>(std::ceil(row_axis_w + row_w + 10.0f)) : 0;
    L.image_w = L.cols * L.cell;
    L.image_h = L.rows * L.cell;
    const float below = 6.0f + col_h + (p.col_axis.empty() ? 0.0f : 4.0f + axis_h);

    // Numbers and the colour bar in one format, chosen from the largest number shown.
    L.range = value_range(m.data(), n);
    L.scale = choose_scale(L.range, view.probability, view.stretch ? stretch_top(m.data(), n) : 0.0f);
    L.format = choose_number_format(shown_max_abs(m.data(), n, mask_fits ? view.mask->data() : nullptr));
    float bar_label_w = 0.0f;
    if (p.colorbar)
    {
        for (float v : {L.scale.lo, L.scale.hi, 0.5f * (L.scale.lo + L.scale.hi)})
            bar_label_w = std::max(bar_label_w, text.width(format_number(v, L.format), f.body));
        for (float v : {L.range.min, L.range.max}) // "min -1.93", "max 0.81"
            bar_label_w = std::max(bar_label_w, text.width("min " + format_number(v, L.format), f.body));
        if (L.has_masked)
            bar_label_w = std::max(bar_label_w, text.width(kMaskedLegend, f.body));
        L.bar_w = std::max(14, static_cast<int>(f.body * 1.1f));
        L.bar_h = std::max(L.image_h, static_cast<int>(f.body * 4.5f));
    }
    // The Σ column half a line right of the cells, then the colour bar.
    L.x_sums = L.x_img + L.image_w + (p.row_sums ? static_cast<int>(f.body * 0.5f) : 0);
    const int cells_right = p.row_sums ? L.x_sums + L.cell : L.x_img + L.image_w;
    if (p.colorbar)
        L.x_bar = cells_right + static_cast<int>(f.body);
    // Numbers grow with large cells (a slide read from the back of a room), up to 1.4 times the body text.
    float number_px = std::min(f.body * 1.4f, static_cast<float>(L.cell) * 0.38f);
    const float number_floor = std::max(10.0f, f.min_text);
    if (text.loaded() && number_px >= number_floor && L.rows * L.cols <= 4096)
    {
        float widest = 0.0f;
        for (int r = 0; r < L.rows; ++r)
            for (int c = 0; c < L.cols; ++c)
                if (!cell_masked(view, r, c))
                    widest = std::max(widest, text.width(format_number(m(r, c), L.format), number_px));
        while (number_px >= number_floor && widest > static_cast<float>(L.cell) - 4.0f)
        {
            widest *= 0.9f;
            number_px *= 0.9f;
        }
        L.number_px = number_px >= number_floor ? number_px : 0.0f;
    }

    const int right =
        p.colorbar ? L.x_bar + L.bar_w + 8 + static_cast<int>(std::ceil(bar_label_w)) : cells_right + 2;
    const int col_axis_w = static_cast<int>(L.x_img + text.width(p.col_axis, f.label));
    const int body_w = std::max(right, col_axis_w);

    // Header: the title on one line, the subtitle wrapped to the map's width; the body goes under them.
    const float title_w = text.width(p.title, f.title);
    L.subtitle_lines = text.wrap(p.subtitle, f.body, std::max(static_cast<float>(body_w), title_w));
    float subtitle_w = 0.0f;
    for (const std::string& line : L.subtitle_lines)
        subtitle_w = std::max(subtitle_w, text.width(line, f.body));
    float y = 0.0f;
    L.title_y = y;
    if (!p.title.empty())
        y += f.title * 1.35f;
    L.subtitle_y = y;
    y += static_cast<float>(L.subtitle_lines.size()) * f.body * 1.3f;
    if (y > 0.0f)
        y += 10.0f;
    L.y_img = static_cast<int>(std::ceil(y));
    L.width =
        std::max({body_w, static_cast<int>(std::ceil(title_w)), static_cast<int>(std::ceil(subtitle_w))}) + 2;
    const int legend_h = p.colorbar && L.has_masked ? static_cast<int>(f.body * 2.0f) + 8 : 0;
    L.height = L.y_img + std::max(L.image_h + static_cast<int>(std::ceil(below)), L.bar_h + legend_h) + 2;
    return L;
}

} // namespace

void measure_heatmap_picture(const HeatmapPicture& p, const TextRasterizer& text, const PictureFonts& fonts,
                             int cell_px, int* width, int* height, int* image_top)
{
    *width = *height = 0;
    if (image_top != nullptr)
        *image_top = 0;
    if (p.view.m == nullptr || p.view.m->size() == 0)
        return;
    const HeatmapLayout L = layout_heatmap(p, text, fonts, cell_px);
    *width = L.width;
    *height = L.height;
    if (image_top != nullptr)
        *image_top = L.y_img;
}

namespace
{

// What every step of drawing a heatmap picture reads: the picture, its layout, where it goes and how text
// and colours look.
struct HeatmapCanvas
{
    Image& img;
    const HeatmapPicture& p;
    const HeatmapLayout& L;
    const TextRasterizer& text;
    const PictureFonts& f;
    const Palette& palette;
    int x, y;   // the picture's top left
    int xi, yi; // the image's top left
};

// Cells: the colour map, masked ones hatched as in the window, column blocks, numbers and outlined cells.
void draw_heatmap_cells(const HeatmapCanvas& k)
{
    const MatrixView& view = k.p.view;
    const Mat& m = *view.m;
    const HeatmapLayout& L = k.L;
    const int xi = k.xi, yi = k.yi, cell = L.cell;
    std::vector<Color32> colors;
    fill_heatmap_pixels(m.data(), L.rows, L.cols, L.scale, 1, colors);
    for (int r = 0; r < L.rows; ++r)
        for (int c = 0; c < L.cols; ++c)
        {
            const int x0 = xi + c * cell, y0 = yi + r * cell;
            if (cell_masked(view, r, c))
                hatch_rect(k.img, x0, y0, x0 + cell, y0 + cell);
            else
                fill_rect(k.img, x0, y0, x0 + cell, y0 + cell,
                          colors[static_cast<std::size_t>(r) * L.cols + c]);
        }
    if (view.column_blocks > 0)
        for (int c = view.column_blocks; c < L.cols; c += view.column_blocks)
            fill_rect(k.img, xi + c * cell - 1, yi - 4, xi + c * cell + 1, yi + L.image_h + 4, k.palette.ink);
    frame_rect(k.img, xi - 1, yi - 1, xi + L.image_w + 1, yi + L.image_h + 1, k.palette.frame);
    if (L.number_px > 0.0f)
        for (int r = 0; r < L.rows; ++r)
            for (int c = 0; c < L.cols; ++c)
            {
                if (cell_masked(view, r, c))
                    continue;
                const std::string s = format_number(m(r, c), L.format);
                const float w = k.text.width(s, L.number_px);
                k.text.draw(k.img, static_cast<float>(xi + c * cell) + (static_cast<float>(cell) - w) * 0.5f,
                            static_cast<float>(yi + r * cell) +
                                (static_cast<float>(cell) - L.number_px * 1.15f) * 0.5f,
                            L.number_px, text_color_on(colors[static_cast<std::size_t>(r) * L.cols + c]), s);
            }
    if (k.p.row_sums)
    {
        // Plain cells on the page (a sum is no weight, so it takes no colour of the map), framed as the map
        // is.
        const int xs = k.x + L.x_sums;
        frame_rect(k.img, xs - 1, yi - 1, xs + cell + 1, yi + L.image_h + 1, k.palette.frame);
        for (int r = 0; r < L.rows && L.number_px > 0.0f; ++r)
        {
            const std::string s = format_number(m.row(r).sum(), L.format);
            const float w = k.text.width(s, L.number_px);
            k.text.draw(k.img, static_cast<float>(xs) + (static_cast<float>(cell) - w) * 0.5f,
                        static_cast<float>(yi + r * cell) +
                            (static_cast<float>(cell) - L.number_px * 1.15f) * 0.5f,
                        L.number_px, k.palette.ink, s);
        }
    }
    for (const auto& [r, c] : k.p.outlined)
        if (r >= 0 && r < L.rows && c >= 0 && c < L.cols)
        {
            const int t = std::max(2, cell / 12);
            frame_rect(k.img, xi + c * cell - t, yi + r * cell - t, xi + (c + 1) * cell + t,
                       yi + (r + 1) * cell + t, k.p.outline_color, t);
        }
}

// Labels: tokens in ink (<pad> in grey), numbered rows and columns in grey. Axis titles: the column axis
// centred under its labels, the row axis reading upwards beside its labels.
void draw_heatmap_labels(const HeatmapCanvas& k)
{
    const HeatmapLayout& L = k.L;
    const HeatmapPicture& p = k.p;
    const PictureFonts& f = k.f;
    const Palette& palette = k.palette;
    const int xi = k.xi, yi = k.yi, cell = L.cell;
    const float lpx = L.label_px;
    for (int r = 0; r < L.rows && p.row_labels; r += L.rstride)
    {
        const std::string& s = L.row_labels[static_cast<std::size_t>(r)];
        const float w = k.text.width(s, lpx);
        const bool grey = p.view.row_tokens == nullptr || s == "<pad>";
        k.text.draw(k.img, static_cast<float>(xi) - 8.0f - w,
                    static_cast<float>(yi) + (r + 0.5f) * cell - lpx * 0.6f, lpx,
                    grey ? palette.grey_ink : palette.ink, s);
    }
    for (int c = 0; c < L.cols; c += L.cstride)
    {
        const std::string& s = L.col_labels[static_cast<std::size_t>(c)];
        const float w = k.text.width(s, lpx);
        if (L.col_flat)
            k.text.draw(k.img, static_cast<float>(xi) + (c + 0.5f) * cell - w * 0.5f,
                        static_cast<float>(yi + L.image_h) + 4.0f, lpx,
                        s == "<pad>" ? palette.grey_ink : palette.ink, s);
        else if (L.col_tokens)
            k.text.draw(k.img, static_cast<float>(xi) + (c + 0.5f) * cell - lpx * 0.6f,
                        static_cast<float>(yi + L.image_h) + 6.0f + w, lpx,
                        s == "<pad>" ? palette.grey_ink : palette.ink, s, true);
        else
            k.text.draw(k.img, static_cast<float>(xi) + (c + 0.5f) * cell - w * 0.5f,
                        static_cast<float>(yi + L.image_h) + 4.0f, lpx, palette.grey_ink, s);
    }
    if (p.row_sums)
    {
        const float w = k.text.width("Σ", lpx);
        k.text.draw(k.img, static_cast<float>(k.x + L.x_sums) + (static_cast<float>(cell) - w) * 0.5f,
                    static_cast<float>(yi + L.image_h) + 4.0f, lpx, palette.ink, "Σ");
    }
    if (!p.col_axis.empty())
    {
        const float w = k.text.width(p.col_axis, f.label);
        k.text.draw(k.img, static_cast<float>(xi) + (static_cast<float>(L.image_w) - w) * 0.5f,
                    static_cast<float>(yi + L.image_h) + 10.0f + L.col_labels_h, f.label, palette.grey_ink,
                    p.col_axis);
    }
    if (!p.row_axis.empty() && p.row_labels)
    {
        const float w = k.text.width(p.row_axis, f.label);
        k.text.draw(k.img, static_cast<float>(k.x) + L.row_axis_x,
                    static_cast<float>(yi) + (static_cast<float>(L.image_h) + w) * 0.5f, f.label,
                    palette.grey_ink, p.row_axis, true);
    }
}

// Colour bar: high at the top, labels in the cells' number format, the data's min and max marked and named
// where its ends do not give them, and the hatched "masked" swatch under it when a cell is masked.
void draw_heatmap_colorbar(const HeatmapCanvas& k)
{
    const HeatmapLayout& L = k.L;
    const PictureFonts& f = k.f;
    const Palette& palette = k.palette;
    const int yi = k.yi;
    const auto& table = colormap_table(L.scale.map());
    const int xb = k.x + L.x_bar, bar_h = L.bar_h;
    for (int r = 0; r < bar_h; ++r)
    {
        const auto idx = static_cast<std::size_t>(std::lround(
            (1.0f - static_cast<float>(r) / static_cast<float>(std::max(1, bar_h - 1))) * 255.0f));
        fill_rect(k.img, xb, yi + r, xb + L.bar_w, yi + r + 1, table[idx]);
    }
    frame_rect(k.img, xb - 1, yi - 1, xb + L.bar_w + 1, yi + bar_h + 1, palette.frame);
    const float tx = static_cast<float>(xb + L.bar_w + 8);
    const auto bar_y = [&](float v)
    { return static_cast<float>(yi) + (1.0f - scale_position(v, L.scale)) * static_cast<float>(bar_h - 1); };
    std::vector<float> label_ys;
    std::vector<std::string> shown;
    const auto bar_label = [&](const std::string& label, float text_y)
    {
        k.text.draw(k.img, tx, text_y, f.body, palette.ink, label);
        label_ys.push_back(text_y);
    };
    shown.push_back(format_number(L.scale.hi, L.format));
    bar_label(shown.back(), static_cast<float>(yi) - 4.0f);
    shown.push_back(format_number(L.scale.lo, L.format));
    bar_label(shown.back(), static_cast<float>(yi + bar_h) - f.body);
    if (bar_h > f.body * 4.0f)
    {
        shown.push_back(format_number(0.5f * (L.scale.lo + L.scale.hi), L.format));
        bar_label(shown.back(), static_cast<float>(yi) + bar_h * 0.5f - f.body * 0.6f);
    }
    // The data's true min and max, as in the window: marked and labelled "min" / "max" where the scale's
    // labels do not already give them, and left out with their label where it would crowd another.
    for (const ColourBarMark& mark : colour_bar_marks(L.range, format_number(L.range.min, L.format),
                                                      format_number(L.range.max, L.format), shown))
    {
        const float yy = bar_y(mark.value);
        const float ty = yy - f.body * 0.6f;
        bool crowded = false;
        for (float other : label_ys)
            crowded = crowded || std::fabs(other - ty) < f.body * 1.05f;
        if (crowded)
            continue;
        fill_rect(k.img, xb - 5, static_cast<int>(yy) - 1, xb + L.bar_w + 5, static_cast<int>(yy) + 2,
                  palette.ink);
        bar_label(mark.text, ty);
    }
    if (L.has_masked)
    {
        const int ys = yi + bar_h + 14;
        const int sw = static_cast<int>(f.body * 1.3f);
        hatch_rect(k.img, xb, ys, xb + L.bar_w, ys + sw);
        k.text.draw(k.img, tx, static_cast<float>(ys) + (static_cast<float>(sw) - f.body * 1.15f) * 0.5f,
                    f.body, palette.ink, kMaskedLegend);
    }
}

} // namespace

void draw_heatmap_picture(Image& img, int x, int y, const HeatmapPicture& p, const TextRasterizer& text,
                          const PictureFonts& f, const Palette& palette, int cell_px)
{
    if (p.view.m == nullptr || p.view.m->size() == 0)
        return;
    const HeatmapLayout L = layout_heatmap(p, text, f, cell_px);
    const float fx = static_cast<float>(x), fy = static_cast<float>(y);
    text.draw(img, fx, fy + L.title_y, f.title, palette.ink, p.title);
    for (std::size_t i = 0; i < L.subtitle_lines.size(); ++i)
        text.draw(img, fx, fy + L.subtitle_y + static_cast<float>(i) * f.body * 1.3f, f.body,
                  palette.grey_ink, L.subtitle_lines[i]);
    const HeatmapCanvas canvas{img, p, L, text, f, palette, x, y, x + L.x_img, y + L.y_img};
    draw_heatmap_cells(canvas);
    draw_heatmap_labels(canvas);
    if (p.colorbar)
        draw_heatmap_colorbar(canvas);
}

Image render_heatmap_image(const HeatmapPicture& p, int cell_px, bool dark, std::string* note)
{
    Image img;
    if (p.view.m == nullptr || p.view.m->size() == 0)
        return img;
    TextRasterizer text;
    text.load_default(note);
    const PictureFonts fonts;
    const Palette palette = picture_palette(dark);
    const int margin = 28;
    int w = 0, h = 0;
    measure_heatmap_picture(p, text, fonts, cell_px, &w, &h);
    img.reset(w + 2 * margin, h + 2 * margin, palette.paper);
    draw_heatmap_picture(img, margin, margin, p, text, fonts, palette, cell_px);
    return img;
}

Image render_heatmap_image(const MatrixView& view, int cell_px, std::string* note)
{
    return render_heatmap_image(heatmap_picture(view), cell_px, false, note);
}

// [SECTION] Files

namespace
{

void write_to_string(void* context, void* data, int size)
{
    static_cast<std::string*>(context)->append(static_cast<const char*>(data),
                                               static_cast<std::size_t>(size));
}

Status write_bytes(const std::string& bytes, const std::string& path)
{
    AtomicFile file;
    if (Status s = file.open(path); !s.is_ok())
        return s;
    file.write(bytes);
    return file.commit();
}

} // namespace

Status write_png(const Image& image, const std::string& path)
{
    if (image.width <= 0 || image.height <= 0)
        return Status::error("nothing to export: the matrix is empty");
    std::string bytes;
    if (stbi_write_png_to_func(write_to_string, &bytes, image.width, image.height, 4, image.pixels.data(),
                               image.width * 4) == 0)
        return Status::error("could not encode the PNG for " + path);
    return write_bytes(bytes, path);
}

Status write_rgb_png_bottom_up(const std::uint8_t* rgb, int width, int height, const std::string& path)
{
    std::string bytes;
    const int stride = width * 3;
    // Point at the last row and use a negative stride: the PNG's top row is the framebuffer's top.
    if (stbi_write_png_to_func(write_to_string, &bytes, width, height, 3,
                               rgb + static_cast<std::ptrdiff_t>(height - 1) * stride, -stride) == 0)
        return Status::error("could not encode the PNG for " + path);
    return write_bytes(bytes, path);
}

Status export_matrix_csv(const MatrixView& view, const std::string& path)
{
    if (view.m == nullptr)
        return Status::error("nothing to export: the matrix is not available");
    const Mat& m = *view.m;
    auto field = [](const std::string& s)
    {
        if (s.find_first_of(",\"\n") == std::string::npos)
            return s;
        std::string q = "\"";
        for (char ch : s)
            q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        return q + "\"";
    };
    std::string out;
    out += "row";
    for (int c = 0; c < m.cols(); ++c)
        out += "," + field(col_label(view, c));
    out += "\n";
    char buf[32];
    for (int r = 0; r < m.rows(); ++r)
    {
        out += field(row_label(view, r));
        for (int c = 0; c < m.cols(); ++c)
        {
            const float v = m(r, c);
            if (std::isinf(v))
                out += v < 0 ? ",-inf" : ",inf";
            else
            {
                std::snprintf(buf, sizeof(buf), ",%.9g", static_cast<double>(v));
                out += buf;
            }
        }
        out += "\n";
    }
    return write_bytes(out, path);
}

Status export_heatmap(const HeatmapPicture& p, const std::string& path, int cell_px, PictureFormat format)
{
    if (p.view.m == nullptr)
        return Status::error("nothing to export: the matrix is not available");
    return write_picture(render_heatmap_image(p, cell_px), path, format);
}

Status export_heatmap_png(const HeatmapPicture& p, const std::string& path, int cell_px)
{
    return export_heatmap(p, path, cell_px, PictureFormat::Png);
}

Status export_heatmap_png(const MatrixView& view, const std::string& path, int cell_px)
{
    return export_heatmap_png(heatmap_picture(view), path, cell_px);
}

// [SECTION] The training curves picture

namespace
{

// The curve pictures' label size (px): half-size pasting keeps it at 8.5 px, still readable on a slide.
constexpr float kCurveLabelPx = 17.0f;
// The steepest drop's band on light and on dark paper.
constexpr Color32 kCurveBandColor = pack_rgba(252, 232, 200);
constexpr Color32 kCurveBandColorDark = pack_rgba(80, 58, 30);
// The room under a plot's axes: the step labels, then the step axis title.
constexpr int kCurveBelowAxes = 52;
// The room left of the axes: the rotated y axis title, then the value labels.
constexpr int kCurveLeftOfAxes = 98;

// The loss plot's title line as the window draws it: "loss (log scale):" and its key (loss_plot_key: the
// losses' colours, the steepest drop's patch), so the band's name stays off the data. Where it is wider than
// w the scale is said shorter ("loss (log):"), then the line is written at the label size.
void draw_loss_key(Image& img, const TextRasterizer& text, const Palette& palette,
                   const std::vector<LossKeyEntry>& key, int x, int y, int w)
{
    using Mark = LossKeyEntry::Mark;
    std::string prefix = "loss (log scale):";
    float px = 20.0f;
    const auto width = [&]
    {
        float total = text.width(prefix, px);
        for (const LossKeyEntry& k : key)
            total += px * 1.6f + text.width(k.text, px);
        return total;
    };
    if (width() > static_cast<float>(w))
        prefix = "loss (log):";
    if (width() > static_cast<float>(w))
        px = kCurveLabelPx;
    float cx = static_cast<float>(x);
    text.draw(img, cx, static_cast<float>(y), px, palette.ink, prefix);
    cx += text.width(prefix, px);
    const int top = y + static_cast<int>(px * 0.15f), bottom = y + static_cast<int>(px * 1.05f);
    for (const LossKeyEntry& k : key)
    {
        cx += px * 0.6f;
        const int sx = static_cast<int>(cx), sw = static_cast<int>(px * 0.8f);
        Color32 ink = palette.ink;
        if (k.mark == Mark::bar)
            fill_rect(img, sx, y + static_cast<int>(px * 0.45f), sx + sw, y + static_cast<int>(px * 0.8f),
                      k.color | 0xFF000000u);
        else if (k.mark == Mark::band)
        {
            // The band's own fill, framed: the patch is the shaded region's colour.
            fill_rect(img, sx + sw / 4, top, sx + sw - sw / 4, bottom,
                      palette.dark ? kCurveBandColorDark : kCurveBandColor);
            frame_rect(img, sx + sw / 4, top, sx + sw - sw / 4, bottom, band_label_color_on(palette.paper));
            ink = band_label_color_on(palette.paper);
        }
        else
            draw_polyline(img, {{cx, y + px * 0.62f}, {cx + static_cast<float>(sw), y + px * 0.62f}}, 2.0f,
                          curve_color_on(k.color, palette.paper) | 0xFF000000u);
        cx += static_cast<float>(sw) + px * 0.25f;
        text.draw(img, cx, static_cast<float>(y), px, ink, k.text);
        cx += text.width(k.text, px);
    }
}

// One plot with its title (key: the loss plot's key, drawn as its title line; nullptr: the plot's title).
void draw_curve_plot(Image& img, const TextRasterizer& text, const Palette& palette, const CurvePlot& plot,
                     const std::string& y_title, const TrainingCurves& c, int x, int y, int w, int h,
                     int cursor_step, const std::vector<LossKeyEntry>* key = nullptr)
{
    const float label_px = kCurveLabelPx;
    if (key != nullptr)
        draw_loss_key(img, text, palette, *key, x, y, w);
    else
        text.draw(img, static_cast<float>(x), static_cast<float>(y), 20.0f, palette.ink, plot.title);
    const int ax = x + kCurveLeftOfAxes, ay = y + 34, bx = x + w, by = y + h - kCurveBelowAxes;
    CurvePlotStyle style;
    style.tick_gap = 2.0f * label_px;
    style.percent_decimals = 0;
    style.thin = false; // the picture keeps every step's wiggle
    style.clamp = true;
    style.linear_ticks = true;
    style.x_tick_gap = 5.0f * label_px; // "12000" and a space
    const PlotRect axes{static_cast<float>(ax), static_cast<float>(ay), static_cast<float>(bx),
                        static_cast<float>(by)};
    const CurvePlotPicture p = layout_curve_plot(plot, c, axes, cursor_step, style);
    const Color32 grid = palette.dark ? pack_rgba(60, 60, 68) : pack_rgba(225, 225, 230);
    for (const PlotTick& t : p.y_ticks)
    {
        text.draw(img, static_cast<float>(ax) - text.width(t.text, label_px) - 6.0f, t.y - label_px * 0.6f,
                  label_px, palette.grey_ink, t.text);
        fill_rect(img, ax, static_cast<int>(t.y), bx, static_cast<int>(t.y) + 1, grid);
    }
    for (const PlotXTick& t : p.x_ticks)
    {
        const int tx = static_cast<int>(t.x);
        fill_rect(img, tx, ay, tx + 1, by, grid);
        fill_rect(img, tx, by, tx + 1, by + 5, palette.frame);
        const float tw = text.width(t.text, label_px);
        // Centred under the tick, kept inside the plot's width.
        const float lx =
            std::clamp(t.x - tw * 0.5f, static_cast<float>(ax) - 6.0f, static_cast<float>(bx) - tw);
        text.draw(img, lx, static_cast<float>(by) + 6.0f, label_px, palette.grey_ink, t.text);
    }
    const std::string x_title = "training step";
    text.draw(img, static_cast<float>(ax + bx) * 0.5f - text.width(x_title, label_px) * 0.5f,
              static_cast<float>(by) + 8.0f + label_px * 1.3f, label_px, palette.grey_ink, x_title);
    const float y_title_w = text.width(y_title, label_px);
    text.draw(img, static_cast<float>(x),
              std::min(static_cast<float>(by), static_cast<float>(ay + by) * 0.5f + y_title_w * 0.5f),
              label_px, palette.grey_ink, y_title, true);
    if (p.has_band)
    {
        const int x0 = static_cast<int>(p.band_x0);
        fill_rect(img, x0, ay, std::max(static_cast<int>(p.band_x1), x0 + 2), by,
                  palette.dark ? kCurveBandColorDark : kCurveBandColor);
    }
    if (p.has_cursor)
    {
        // The step the maps show (the window's timeline cursor).
        const int cx = static_cast<int>(p.cursor_x);
        fill_rect(img, cx - 1, ay, cx + 1, by, palette.grey_ink);
    }
    for (const PlotLine& line : p.lines)
    {
        std::vector<std::pair<float, float>> points;
        points.reserve(line.points.size());
        for (const PlotPoint& q : line.points)
            points.emplace_back(q.x, q.y);
        draw_polyline(img, points, line.width * 1.6f, curve_color_on(line.color, palette.paper));
    }
    frame_rect(img, ax, ay, bx + 1, by + 1, palette.frame);
}

// The y axis titles of the three plots.
const char* const kLossAxisTitle = "loss (nats)";
const char* const kAccuracyAxisTitle = "accuracy";
const char* const kHeadsAxisTitle = "head score";

// One legend entry: a line in the series' colour and width (or a filled box for a band), then its text.
struct LegendEntry
{
    Color32 color = 0;
    float width = 1.5f; // the line's width at the panel's size (0: a box)
    std::string label;
};

// The entries in rows within [x, x + w), from y; returns the y under the last row.
int draw_legend_entries(Image& img, const TextRasterizer& text, const std::vector<LegendEntry>& entries,
                        int x, int y, int w, Color32 ink, Color32 paper)
{
    const float px = kCurveLabelPx;
    const int row_h = static_cast<int>(px * 1.55f);
    const int swatch_w = 30, space = 8, between = 22;
    int cx = x;
    for (const LegendEntry& e : entries)
    {
        const int entry_w = swatch_w + space + static_cast<int>(std::ceil(text.width(e.label, px)));
        if (cx > x && cx + entry_w > x + w)
        {
            cx = x;
            y += row_h;
        }
        const float mid = static_cast<float>(y) + px * 0.6f;
        if (e.width <= 0.0f)
        {
            fill_rect(img, cx, y + 2, cx + swatch_w, y + static_cast<int>(px) + 2, e.color | 0xFF000000u);
            frame_rect(img, cx, y + 2, cx + swatch_w, y + static_cast<int>(px) + 2, pack_rgba(200, 120, 0));
        }
        else
            draw_polyline(img, {{static_cast<float>(cx), mid}, {static_cast<float>(cx + swatch_w), mid}},
                          e.width * 1.6f, curve_color_on(e.color, paper) | 0xFF000000u);
        text.draw(img, static_cast<float>(cx + swatch_w + space), static_cast<float>(y), px, ink, e.label);
        cx += entry_w + between;
    }
    return y + row_h;
}

// The legend under each plot: its series (this run's named for what they are, earlier runs by their label,
// every head with its score at the last evaluation). The steepest drop is named in the loss plot's key.
std::vector<LegendEntry> plot_legend(const CurvePlot& plot, const TrainingCurves& c,
                                     const TrainingSnapshot& run, train::HeadScoreKind score)
{
    std::vector<LegendEntry> out;
    const bool heads = &plot == &c.heads;
    for (std::size_t i = 0; i < plot.series.size(); ++i)
    {
        const CurveSeries& s = plot.series[i];
        std::string label = s.label;
        if (heads && !run.evals.empty())
        {
            const train::HeadScores* at = held_out_scores_at(run, run.evals.back().step, static_cast<int>(i));
            if (at != nullptr)
            {
                char value[16];
                std::snprintf(value, sizeof value, " %.2f", train::head_score(*at, score));
                label += value;
            }
        }
        out.push_back(LegendEntry{s.color, s.width, label});
    }
    return out;
}

int legend_height(const TextRasterizer& text, const std::vector<LegendEntry>& entries, int w)
{
    Image scratch;
    scratch.reset(1, 1, 0, false);
    return draw_legend_entries(scratch, text, entries, 0, 0, w, 0, 0);
}

constexpr int kCurvePlotGap = 40;

} // namespace

train::HeadScoreKind curves_export_score(const TrainingSnapshot& run)
{
    return train::task_info(run.config.task).score;
}

void draw_curve_plots(Image& img, const TextRasterizer& text, const Palette& palette,
                      const TrainingSnapshot& run, int target_steps, int score_kind, int x, int y, int w,
                      int h, int cursor_step, bool fit_to_run, int until_step)
{
    const TrainingCurves c = training_curves(run, target_steps, score_kind, fit_to_run, until_step);
    const int plot_w = (w - 2 * kCurvePlotGap) / 3;
    const std::vector<LossKeyEntry> key = loss_plot_key(c, run, false);
    draw_curve_plot(img, text, palette, c.loss, kLossAxisTitle, c, x, y, plot_w, h, cursor_step, &key);
    draw_curve_plot(img, text, palette, c.accuracy, kAccuracyAxisTitle, c, x + plot_w + kCurvePlotGap, y,
                    plot_w, h, cursor_step);
    draw_curve_plot(img, text, palette, c.heads, kHeadsAxisTitle, c, x + 2 * (plot_w + kCurvePlotGap), y,
                    plot_w, h, cursor_step);
}

Image render_curves_image(const TrainingSnapshot& run, int target_steps, std::string* note, bool fit_to_run)
{
    TextRasterizer text;
    text.load_default(note);
    const Palette palette = picture_palette(false);
    const int width = 1800, margin = 28, top = 110, plots_h = 460;
    const train::HeadScoreKind score = curves_export_score(run);
    const TrainingCurves c = training_curves(run, target_steps, static_cast<int>(score), fit_to_run);
    const int plot_w = (width - 2 * margin - 2 * kCurvePlotGap) / 3;
    const CurvePlot* plots[3] = {&c.loss, &c.accuracy, &c.heads};
    std::vector<LegendEntry> legends[3];
    int legend_h = 0;
    for (int i = 0; i < 3; ++i)
    {
        legends[i] = plot_legend(*plots[i], c, run, score);
        legend_h = std::max(legend_h, legend_height(text, legends[i], plot_w));
    }
    Image img;
    img.reset(width, top + plots_h + 16 + legend_h + 20, palette.paper);
    char heading[256];
    std::snprintf(heading, sizeof heading, "%s: step %d", run.config.label().c_str(), run.step);
    text.draw(img, margin, margin, 28.0f, palette.ink, heading);
    if (!run.evals.empty())
    {
        char sub[128];
        std::snprintf(sub, sizeof sub,
                      "held-out (sequences never trained on) at step %d: loss %.3f, accuracy %.1f %%",
                      run.evals.back().step, static_cast<double>(run.evals.back().loss),
                      100.0 * static_cast<double>(run.evals.back().accuracy));
        text.draw(img, margin, margin + 38.0f, 19.0f, palette.grey_ink, sub);
    }
    draw_curve_plots(img, text, palette, run, target_steps, static_cast<int>(score), margin, top,
                     width - 2 * margin, plots_h, -1, fit_to_run);
    // A legend under each plot: the heads' colours are those of the window's head chips.
    for (int i = 0; i < 3; ++i)
        draw_legend_entries(img, text, legends[i], margin + i * (plot_w + kCurvePlotGap), top + plots_h + 16,
                            plot_w, palette.ink, palette.paper);
    return img;
}

Status export_curves_png(const TrainingSnapshot& run, int target_steps, const std::string& path,
                         bool fit_to_run)
{
    if (run.evals.empty() && run.loss.empty())
        return Status::error("no curves yet: train a few steps first");
    return write_png(render_curves_image(run, target_steps, nullptr, fit_to_run), path);
}

Status export_curves_picture(const TrainingSnapshot& run, int target_steps, const std::string& path,
                             bool fit_to_run)
{
    if (run.evals.empty() && run.loss.empty())
        return Status::error("no curves yet: train a few steps first");
    return write_picture(render_curves_image(run, target_steps, nullptr, fit_to_run), path,
                         picture_format_of_path(path));
}

std::string head_chain_export_path(const MatrixRef& ref, ExportFormat format)
{
    return std::string("attnlab-chain") +
           (ref.source == MatrixSource::Cross ? std::string("-cross")
                                              : "-layer" + std::to_string(ref.layer + 1)) +
           "-sentence" + std::to_string(ref.b + 1) + "-head" + std::to_string(ref.head + 1) +
           (format == ExportFormat::Svg   ? ".svg"
            : format == ExportFormat::Pdf ? ".pdf"
                                          : ".png");
}

void run_export_dialog(AppState& state)
{
    const ExportDialog& d = state.export_dialog;
    if (d.head_chain)
    {
        // The chain's nine maps on one slide, in the window's theme as lesson slides are.
        const Image slide =
            render_head_chain_slide(state, d.matrix, d.slide_width, d.slide_height, state.prefs.dark_theme);
        const PictureFormat format = d.format == ExportFormat::Svg   ? PictureFormat::Svg
                                     : d.format == ExportFormat::Pdf ? PictureFormat::Pdf
                                                                     : PictureFormat::Png;
        const Status s = d.format == ExportFormat::Csv
                             ? Status::error("a head's chain is a picture: choose PNG, SVG or PDF")
                             : write_picture(slide, d.path, format);
        if (s.is_ok())
            state.set_message(
                "Exported the chain of head " + std::to_string(d.matrix.head + 1) + " to " + d.path, false);
        else
            state.set_message("Export failed: " + s.message(), true);
        return;
    }
    const HeatmapPicture picture = heatmap_picture(state, d.matrix);
    const Status s =
        d.format == ExportFormat::Csv   ? export_matrix_csv(picture.view, d.path)
        : d.format == ExportFormat::Svg ? export_heatmap(picture, d.path, d.scale, PictureFormat::Svg)
        : d.format == ExportFormat::Pdf ? export_heatmap(picture, d.path, d.scale, PictureFormat::Pdf)
                                        : export_heatmap(picture, d.path, d.scale, PictureFormat::Png);
    if (s.is_ok())
        state.set_message("Exported " + picture.title + " to " + d.path, false);
    else
        state.set_message("Export failed: " + s.message(), true);
}

} // namespace attnlab
