// The heatmap widget: a matrix as one texture with token labels, a colour bar, hover, pin and export menu.
#include "ui/heatmap/heatmap.h"

#include "ui/model/lessons.h"
#include "ui/picture/export.h"
#include "ui/picture/heatmap_math.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <iterator>
#include <string>
#include <vector>

namespace attnlab
{

namespace
{

constexpr int kMaxLabelChars = 10;

ImU32 label_color()
{
    return ImGui::GetColorU32(ImGuiCol_Text);
}
ImU32 dim_color()
{
    return ImGui::GetColorU32(ImGuiCol_TextDisabled);
}

std::string short_label(const MatrixView& view, bool rows, int index)
{
    return rows ? row_label(view, index, kMaxLabelChars) : col_label(view, index, kMaxLabelChars);
}

// The axis labels' text size: the options' own (a grid of small maps), else the current font's.
float label_font_px(const HeatmapOptions& options)
{
    return options.label_font_px > 0.0f ? options.label_font_px : ImGui::GetFontSize();
}

ImVec2 label_size(const std::string& text, float px)
{
    return ImGui::GetFont()->CalcTextSizeA(px, FLT_MAX, 0.0f, text.c_str());
}

// A thinned token label's position, named as the tooltip and the equations name it ("i=8 " before a query
// row's token, "j=8 " before a key's): a bare "8" does not say it is a position, counted from 0.
std::string index_prefix(bool rows, int index)
{
    return std::string(rows ? "i=" : "j=") + std::to_string(index) + " ";
}

// The widest label of an axis of n token labels once thinned (every one with its index), measured on at most
// ~64 of them as heatmap_margins does.
float widest_thinned_label(const MatrixView& view, bool rows, int n, float px)
{
    float w = 0.0f;
    for (int k = 0; k < n; k += std::max(1, n / 64))
        w = std::max(w, label_size(short_label(view, rows, k), px).x);
    return w + label_size(index_prefix(rows, n - 1), px).x;
}

// The hovered cell's tooltip, beside the mouse on the side away from the Inspector (which shows the same
// cell with its whole computation, and must stay readable).
void cell_tooltip(const AppState& state, const MatrixView& view, const Mat& m, int row, int col,
                  const char* hint)
{
    const std::string lines[] = {
        view.title,
        // Positions as the matrices number them, from 0, and named so ("i = 0": the first token).
        "row i = " + std::to_string(row) + "  " + row_label(view, row, kMaxQuotedTokenChars) + "   ·   col " +
            (view.col_tokens != nullptr ? "j = " : "c = ") + std::to_string(col) + "  " +
            col_label(view, col, kMaxQuotedTokenChars),
        cell_value_line(m(row, col), cell_masked(view, row, col)),
        hint,
    };
    const ImGuiStyle& style = ImGui::GetStyle();
    float w = 0.0f;
    for (const std::string& line : lines)
        w = std::max(w, ImGui::CalcTextSize(line.c_str()).x);
    w += style.WindowPadding.x * 2.0f;
    const float h = ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(std::size(lines)) +
                    style.WindowPadding.y * 2.0f;
    const auto& r = state.panel_rects[static_cast<std::size_t>(PanelId::Inspector)];
    const ImGuiIO& io = ImGui::GetIO();
    const ScreenRect at = tooltip_rect(io.MousePos.x, io.MousePos.y, w, h, ScreenRect{r[0], r[1], r[2], r[3]},
                                       io.DisplaySize.x, io.DisplaySize.y, ImGui::GetFontSize());
    ImGui::SetNextWindowPos(ImVec2(at.x, at.y));
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(lines[0].c_str());
    ImGui::TextUnformatted(lines[1].c_str());
    ImGui::TextUnformatted(lines[2].c_str());
    ImGui::TextDisabled("%s", lines[3].c_str());
    ImGui::EndTooltip();
}

} // namespace

// The text is laid out at the clip rectangle's corner, where ImGui never culls it, then its vertices are
// moved.
void draw_text_upwards(ImDrawList* dl, ImVec2 bottom_left, ImU32 color, const char* text, float size)
{
    const ImVec2 origin = dl->GetClipRectMin();
    const int v0 = dl->VtxBuffer.Size;
    dl->AddText(ImGui::GetFont(), size > 0.0f ? size : ImGui::GetFontSize(), origin, color, text);
    for (int i = v0; i < dl->VtxBuffer.Size; ++i)
    {
        ImDrawVert& v = dl->VtxBuffer[i];
        const float dx = v.pos.x - origin.x;
        const float dy = v.pos.y - origin.y;
        v.pos = ImVec2(bottom_left.x + dy, bottom_left.y - dx);
    }
}

Color32 pinned_color()
{
    return IM_COL32(255, 200, 0, 255);
}

float draw_colorbar(const ColorScale& scale, const ValueRange& range, float x0, float y0, float w, float h)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const auto& table = colormap_table(scale.map());
    const int segments = 32;
    for (int s = 0; s < segments; ++s)
    {
        // Top = high values.
        const float t_top = 1.0f - static_cast<float>(s) / segments;
        const float t_bot = 1.0f - static_cast<float>(s + 1) / segments;
        const ImU32 c_top = table[static_cast<std::size_t>(std::lround(t_top * 255.0f))];
        const ImU32 c_bot = table[static_cast<std::size_t>(std::lround(t_bot * 255.0f))];
        const float ya = y0 + h * static_cast<float>(s) / segments;
        const float yb = y0 + h * static_cast<float>(s + 1) / segments;
        dl->AddRectFilledMultiColor(ImVec2(x0, ya), ImVec2(x0 + w, yb), c_top, c_top, c_bot, c_bot);
    }
    dl->AddRect(ImVec2(x0, y0), ImVec2(x0 + w, y0 + h), dim_color());
    const float fs = ImGui::GetFontSize();
    const float tx = x0 + w + 4.0f;
    float used = 0.0f;
    auto label = [&](float y, const std::string& text)
    {
        dl->AddText(ImVec2(tx, y), label_color(), text.c_str());
        used = std::max(used, ImGui::CalcTextSize(text.c_str()).x);
    };
    std::vector<float> label_ys = {y0 - 2.0f, y0 + h - fs + 2.0f};
    std::vector<std::string> shown = {format_value(scale.hi), format_value(scale.lo)};
    label(label_ys[0], shown[0]);
    if (h > 3.0f * fs)
    {
        label_ys.push_back(y0 + h * 0.5f - fs * 0.5f);
        shown.push_back(format_value(0.5f * (scale.lo + scale.hi)));
        label(label_ys.back(), shown.back());
    }
    label(label_ys[1], shown[1]);
    // The data's true min and max, marked and labelled "min" / "max" where the scale's labels do not already
    // give them (its ends may be wider: [0, 1], or symmetric about 0); a mark whose label would crowd
    // another is left out with it.
    for (const ColourBarMark& mark :
         colour_bar_marks(range, format_value(range.min), format_value(range.max), shown))
    {
        const float y = y0 + h * (1.0f - scale_position(mark.value, scale));
        bool crowded = false;
        for (float other : label_ys)
            crowded = crowded || std::fabs(other - (y - fs * 0.5f)) < fs * 0.95f;
        if (crowded)
            continue;
        dl->AddLine(ImVec2(x0 - 3, y), ImVec2(x0 + w + 3, y), IM_COL32(0, 0, 0, 255), 3.0f);
        dl->AddLine(ImVec2(x0 - 3, y), ImVec2(x0 + w + 3, y), IM_COL32(255, 255, 255, 255), 1.0f);
        label(y - fs * 0.5f, mark.text);
        label_ys.push_back(y - fs * 0.5f);
    }
    if (range.has_neg_inf)
    {
        const float ys = y0 + h + 4.0f;
        dl->AddRectFilled(ImVec2(x0, ys), ImVec2(x0 + w, ys + fs * 0.8f), kNegInfColor);
        dl->AddLine(ImVec2(x0, ys + fs * 0.8f), ImVec2(x0 + w, ys), kNegInfStripe, 2.0f);
        dl->AddText(ImVec2(tx, ys - 2.0f), label_color(), "−∞");
    }
    return w + 4.0f + used;
}

namespace
{

// Whether every column label fits its cell lying flat (then it is not turned to read upwards: a turned "I"
// reads as a dash).
bool col_labels_flat(const MatrixView& view, float cell_w, float px)
{
    if (view.col_tokens == nullptr)
        return false;
    for (int c = 0; c < static_cast<int>(view.m->cols()); ++c)
        if (label_size(short_label(view, false, c), px).x + 6.0f > cell_w)
            return false;
    return true;
}

// A line of axis title at the labels' size, with its gap to the labels.
float axis_title_h(float label_px)
{
    return label_px + 8.0f;
}

// Between the image and its Σ column.
float sum_gap()
{
    return ImGui::GetFontSize() * 0.5f;
}

} // namespace

HeatmapMargins heatmap_margins(const MatrixView& view, const HeatmapOptions& options)
{
    HeatmapMargins margins;
    if (view.m == nullptr)
        return margins;
    const int rows = static_cast<int>(view.m->rows());
    const int cols = static_cast<int>(view.m->cols());
    const float fs = ImGui::GetFontSize();
    const float lpx = label_font_px(options);
    if (options.labels && options.row_labels)
    {
        // Measure only the labels that can be shown (at most ~64), so T = 512 costs little.
        const int rstride = std::max(1, rows / 64);
        const float index_w =
            rows > 16 && view.row_tokens != nullptr ? label_size(index_prefix(true, rows), lpx).x : 0.0f;
        for (int r = 0; r < rows; r += rstride)
            margins.left = std::max(margins.left, label_size(short_label(view, true, r), lpx).x);
        margins.left += index_w + 6.0f;
        if (options.axis_titles && !view.row_axis.empty())
            margins.left += axis_title_h(lpx);
    }
    if (options.labels && options.col_labels)
    {
        if (view.col_tokens != nullptr)
        {
            const int cstride = std::max(1, cols / 64);
            for (int c = 0; c < cols; c += cstride)
                margins.col_labels =
                    std::max(margins.col_labels, label_size(short_label(view, false, c), lpx).x);
            margins.col_labels += 6.0f;
        }
        else
            margins.col_labels = lpx + 4.0f;
        if (options.axis_titles && !view.col_axis.empty())
            margins.col_labels += axis_title_h(lpx);
    }
    margins.right = 6.0f;
    if (options.row_sums)
    {
        margins.sum_cols = 1;
        margins.right += sum_gap();
    }
    if (options.colorbar)
    {
        margins.right +=
            fs * 0.6f + std::max(10.0f, fs * 0.8f) +
            std::max(ImGui::CalcTextSize("-0.00e+00").x * 0.75f, ImGui::CalcTextSize("min -0.00").x) + 8.0f;
        margins.below = fs;
    }
    return margins;
}

namespace
{

// Where everything goes: row labels | image | colour bar, column labels under the image.
struct HeatmapGeometry
{
    int rows = 0, cols = 0;
    float cell_w = 0.0f, cell_h = 0.0f;
    float image_w = 0.0f, image_h = 0.0f;
    float row_label_w = 0.0f;
    bool col_labels = false; // column labels drawn (they go when they would leave the image too small)
    float col_band = 0.0f;   // the column labels' height, without the axis title under them
    bool row_title = false, col_title = false; // the axes' titles drawn
    int sum_cols = 0;                          // the Σ column (HeatmapMargins::sum_cols)
    float sum_x = 0.0f;                        // its left edge after the image's right edge
    float bar_w = 0.0f, gap = 0.0f;
    ImVec2 total;      // the whole widget
    ImVec2 img0, img1; // the image's corners on screen (set once p0 is known)
};

// The geometry for given margins (heatmap_geometry chooses them).
HeatmapGeometry place_heatmap(const MatrixView& view, const HeatmapOptions& options,
                              const HeatmapMargins& margins)
{
    HeatmapGeometry g;
    g.rows = static_cast<int>(view.m->rows());
    g.cols = static_cast<int>(view.m->cols());
    const float fs = ImGui::GetFontSize();
    const float total_w = options.width > 0.0f ? options.width : ImGui::GetContentRegionAvail().x;
    g.row_label_w = margins.left;
    float col_label_h = margins.col_labels;
    g.col_labels = options.labels && options.col_labels;
    g.row_title = options.labels && options.row_labels && options.axis_titles && !view.row_axis.empty();
    g.col_title = g.col_labels && options.axis_titles && !view.col_axis.empty();
    g.col_band = col_label_h - (g.col_title ? axis_title_h(label_font_px(options)) : 0.0f);
    g.sum_cols = margins.sum_cols;
    g.sum_x = g.sum_cols > 0 ? sum_gap() : 0.0f;
    // A height for the whole widget: the image gives up what the labels and the colour bar's numbers need,
    // and the column labels go when they would leave the image under 4 lines of text.
    float max_image_h = options.max_height;
    if (options.max_total_height > 0.0f)
    {
        const float below = options.colorbar ? fs : 0.0f;
        if (g.col_labels && options.max_total_height - col_label_h - below < 4.0f * fs)
        {
            g.col_labels = g.col_title = false;
            col_label_h = 0.0f;
        }
        const float fit = std::max(fs, options.max_total_height - col_label_h - below);
        max_image_h = max_image_h > 0.0f ? std::min(max_image_h, fit) : fit;
    }
    g.bar_w = options.colorbar ? std::max(10.0f, fs * 0.8f) : 0.0f;
    g.gap = options.colorbar ? fs * 0.6f : 0.0f;
    const float image_w_avail = std::max(8.0f, total_w - g.row_label_w - margins.right);
    // Cells may grow to fit a number at the current font size (presenter mode, larger fonts, HiDPI).
    const float numbers_cell = ImGui::CalcTextSize("-0.00").x + 10.0f;
    g.cell_w = std::min(options.max_cell_px > 0.0f ? options.max_cell_px : std::max(48.0f, numbers_cell),
                        image_w_avail / static_cast<float>(g.cols + g.sum_cols));
    // Square cells, but a row at least a line of text tall: a very wide matrix (X at d_model 1024 has cells
    // under a pixel wide) stays tall enough to see and to label.
    g.cell_h = std::max(g.cell_w, fs);
    if (max_image_h > 0.0f && g.cell_h * g.rows > max_image_h)
        g.cell_h = max_image_h / static_cast<float>(g.rows);
    g.image_w = g.cell_w * g.cols;
    g.image_h = g.cell_h * g.rows;
    const float extra_h = (options.colorbar && g.image_h < 3.0f * fs) ? 3.0f * fs - g.image_h : 0.0f;
    g.total =
        ImVec2(g.row_label_w + g.image_w + g.cell_w * static_cast<float>(g.sum_cols) + margins.right - 6.0f,
               g.image_h + col_label_h + extra_h + margins.below);
    return g;
}

HeatmapGeometry heatmap_geometry(const MatrixView& view, const HeatmapOptions& options)
{
    HeatmapMargins margins = heatmap_margins(view, options);
    const HeatmapGeometry g = place_heatmap(view, options, margins);
    // Thinned token labels all carry their index: when the cells come out too small for a label each, the
    // margins make room for it (the cells then shrink a little, which may thin the labels more, never less).
    const float px = label_font_px(options);
    bool widened = false;
    if (heatmap_row_labels_thinned(view, options, g.cell_h))
    {
        const float need = heatmap_thinned_row_label_room(view, options);
        widened = need > margins.left;
        margins.left = std::max(margins.left, need);
    }
    if (g.col_labels && view.col_tokens != nullptr && !col_labels_flat(view, g.cell_w, px) &&
        label_stride(g.cols, g.cell_w, px) > 1)
    {
        const float need =
            widest_thinned_label(view, false, g.cols, px) + 6.0f + (g.col_title ? axis_title_h(px) : 0.0f);
        widened = widened || need > margins.col_labels;
        margins.col_labels = std::max(margins.col_labels, need);
    }
    return widened ? place_heatmap(view, options, margins) : g;
}

// The size of the numbers in the cells and the Σ column: the font's where the widest fits its cell, else
// smaller down to options.min_number_px (cell_number_px); 0: none. Values in scientific notation (large
// ones) do not count: they are left out where they do not fit, as the tooltip and the Inspector have them.
float numbers_px(const MatrixView& view, const HeatmapOptions& options, const HeatmapGeometry& g)
{
    const Mat& m = *view.m;
    if (g.rows * g.cols > 1024)
        return 0.0f;
    const float fs = ImGui::GetFontSize();
    float widest = 0.0f;
    auto measure = [&](const std::string& text)
    {
        if (text.find('e') == std::string::npos)
            widest = std::max(widest, label_size(text, fs).x);
    };
    for (int r = 0; r < g.rows; ++r)
        for (int c = 0; c < g.cols; ++c)
            if (!cell_masked(view, r, c))
                measure(cell_text(m(r, c)));
    for (int r = 0; r < g.rows && g.sum_cols > 0; ++r)
        measure(format_value(m.row(r).sum()));
    const float floor_px = options.min_number_px > 0.0f ? options.min_number_px : fs;
    const float px = cell_number_px(g.cell_w, g.cell_h, widest, fs, floor_px);
    return options.max_number_px > 0.0f ? std::min(px, options.max_number_px) : px;
}

// The numbers inside the cells at px, when they fit (never over a masked cell: it is hatched only).
// Returns whether they were written.
bool draw_cell_numbers(ImDrawList* dl, const AppState& state, const MatrixView& view,
                       const HeatmapEntry& entry, const HeatmapGeometry& g, float px)
{
    const Mat& m = *view.m;
    if (!state.prefs.numbers_in_cells || !(px > 0.0f))
        return false;
    // Every value would read 0.00 (a difference of rounding size, ~1e-7): the colour bar gives the scale.
    const float max_abs = std::max(std::fabs(entry.range.min), std::fabs(entry.range.max));
    if (entry.range.finite_count > 0 && max_abs > 0.0f && max_abs < 0.005f)
        return false;
    ImFont* font = ImGui::GetFont();
    for (int r = 0; r < g.rows; ++r)
        for (int c = 0; c < g.cols; ++c)
        {
            if (cell_masked(view, r, c))
                continue; // hatched only: a masked weight's 0 (or a masked score's −∞) is no number
            const float v = m(r, c);
            const std::string text = cell_text(v);
            const ImVec2 ts = label_size(text, px);
            if (ts.x + 2.0f > g.cell_w)
                continue; // a large value in scientific notation: the tooltip and inspector have it
            const ImVec2 cell0(g.img0.x + c * g.cell_w, g.img0.y + r * g.cell_h);
            const ImVec2 pos(cell0.x + (g.cell_w - ts.x) * 0.5f, cell0.y + (g.cell_h - ts.y) * 0.5f);
            dl->AddText(font, px, pos, text_color_on(value_to_color(v, entry.scale)), text.c_str());
        }
    return true;
}

// A whole row outlined just outside its cells (which stay visible): in white when hovered, in the pinned
// colour when pinned; black around either, so it shows on light and dark cells alike.
void outline_row(ImDrawList* dl, const HeatmapGeometry& g, int r, ImU32 color, float thickness)
{
    const float y0 = g.img0.y + static_cast<float>(r) * g.cell_h;
    const float y1 = y0 + std::max(g.cell_h, 1.0f);
    const float in = thickness * 0.5f + 0.5f;
    dl->AddRect(ImVec2(g.img0.x - in - thickness, y0 - in - thickness),
                ImVec2(g.img1.x + in + thickness, y1 + in + thickness), IM_COL32(0, 0, 0, 255), 0.0f, 0,
                1.5f);
    dl->AddRect(ImVec2(g.img0.x - in, y0 - in), ImVec2(g.img1.x + in, y1 + in), color, 0.0f, 0, thickness);
}

void outline_cell(ImDrawList* dl, const HeatmapGeometry& g, int r, int c, ImU32 color, float thickness)
{
    const ImVec2 a(g.img0.x + c * g.cell_w, g.img0.y + r * g.cell_h);
    const ImVec2 b(a.x + std::max(g.cell_w, 3.0f), a.y + std::max(g.cell_h, 3.0f));
    dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), IM_COL32(0, 0, 0, 255), 0.0f, 0,
                thickness + 2.0f);
    dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), color, 0.0f, 0, thickness);
}

// Head-block dividers, the frame, the pinned and highlighted rows, the pinned cell and a lesson's cells.
void draw_marks(ImDrawList* dl, AppState& state, const MatrixRef& ref, const MatrixView& view,
                const HeatmapOptions& options, const HeatmapGeometry& g)
{
    if (view.column_blocks > 0)
        for (int c = view.column_blocks; c < g.cols; c += view.column_blocks)
        {
            const float x = g.img0.x + c * g.cell_w;
            dl->AddLine(ImVec2(x, g.img0.y - 3.0f), ImVec2(x, g.img1.y + 3.0f),
                        ImGui::GetColorU32(ImGuiCol_Text), 2.0f);
        }
    if (view.column_blocks > 0 && options.highlight_block >= 0 &&
        options.highlight_block * view.column_blocks < g.cols)
    {
        const float x0 =
            g.img0.x + static_cast<float>(options.highlight_block * view.column_blocks) * g.cell_w;
        const float x1 = std::min(g.img1.x, x0 + static_cast<float>(view.column_blocks) * g.cell_w);
        dl->AddRect(ImVec2(x0 - 3.0f, g.img0.y - 3.0f), ImVec2(x1 + 3.0f, g.img1.y + 3.0f),
                    IM_COL32(0, 0, 0, 255), 0.0f, 0, 5.0f);
        dl->AddRect(ImVec2(x0 - 3.0f, g.img0.y - 3.0f), ImVec2(x1 + 3.0f, g.img1.y + 3.0f),
                    options.block_color, 0.0f, 0, 3.0f);
    }
    if (options.frame_color != 0)
        dl->AddRect(ImVec2(g.img0.x - options.frame_thickness, g.img0.y - options.frame_thickness),
                    ImVec2(g.img1.x + options.frame_thickness, g.img1.y + options.frame_thickness),
                    options.frame_color, 0.0f, 0, options.frame_thickness);
    const bool pinned_row = options.pinned_row >= 0 && options.pinned_row < g.rows;
    if (pinned_row && options.dim_other_rows)
    {
        // The other rows dimmed, so the pinned row is what the eye finds, even at a few pixels a row.
        const float y0 = g.img0.y + static_cast<float>(options.pinned_row) * g.cell_h;
        const ImU32 shade = IM_COL32(0, 0, 0, 130);
        dl->AddRectFilled(g.img0, ImVec2(g.img1.x, y0), shade);
        dl->AddRectFilled(ImVec2(g.img0.x, y0 + g.cell_h), g.img1, shade);
    }
    if (pinned_row)
        outline_row(dl, g, options.pinned_row, pinned_color(), 2.0f);
    if (options.highlight_row >= 0 && options.highlight_row < g.rows &&
        options.highlight_row != options.pinned_row)
        outline_row(dl, g, options.highlight_row, IM_COL32(255, 255, 255, 255), 1.5f);
    if (state.pinned.valid && state.pinned.matrix == ref)
        outline_cell(dl, g, state.pinned.row, state.pinned.col, pinned_color(), 2.0f);
    for (const LessonCell& cell : lesson_cells(state, ref))
        if (cell.row < g.rows && cell.col < g.cols)
        {
            outline_cell(dl, g, cell.row, cell.col, lesson_highlight_color(), 3.0f);
            ++state.lesson.cells_outlined;
        }
}

// The hovered cell (outline, tooltip, click to pin) and the right-click menu (export, unpin).
void handle_pointer(ImDrawList* dl, AppState& state, const MatrixRef& ref, const MatrixView& view,
                    const HeatmapOptions& options, const HeatmapGeometry& g, bool item_hovered,
                    bool item_clicked, HeatmapResult& result)
{
    if (item_hovered)
    {
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        const CellHit hit =
            cell_at(mouse.x, mouse.y, g.img0.x, g.img0.y, g.image_w, g.image_h, g.rows, g.cols);
        if (hit.inside)
        {
            result.hovered = true;
            result.row = hit.row;
            result.col = hit.col;
            state.hovered_next.valid = true;
            state.hovered_next.matrix = ref;
            state.hovered_next.row = hit.row;
            state.hovered_next.col = hit.col;
            state.last_heatmap = ref;
            outline_cell(dl, g, hit.row, hit.col, IM_COL32(255, 255, 255, 255), 1.5f);
            if (!options.export_menu && ImGui::IsMouseClicked(ImGuiMouseButton_Right))
                result.right_clicked = true;
            if (item_clicked)
            {
                result.clicked = true;
                if (options.pin_on_click)
                {
                    const CellRef cell = state.hovered_next;
                    state.pinned = (state.pinned == cell) ? CellRef{} : cell;
                }
            }
            cell_tooltip(state, view, *view.m, hit.row, hit.col,
                         options.pin_on_click ? "click: pin in the Inspector · right click: export"
                         : options.click_hint != nullptr ? options.click_hint
                                                         : "click: select this head · right click: export");
        }
    }
    if (options.export_menu && ImGui::BeginPopupContextItem("##heatmap_menu"))
    {
        heatmap_export_menu_items(state, ref, view.title);
        ImGui::EndPopup();
    }
}

// The Σ column: each row's sum in a plain cell (it is no weight, so it takes no colour of the map), the sum
// written out in the tooltip of the hovered one.
void draw_row_sums(ImDrawList* dl, const AppState& state, const MatrixView& view, const HeatmapGeometry& g,
                   float px)
{
    const Mat& m = *view.m;
    const float x0 = g.img1.x + g.sum_x, x1 = x0 + g.cell_w;
    const bool numbers = px > 0.0f;
    for (int r = 0; r < g.rows; ++r)
    {
        const float y0 = g.img0.y + static_cast<float>(r) * g.cell_h;
        dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y0 + g.cell_h), ImGui::GetColorU32(ImGuiCol_FrameBg));
        if (!numbers)
            continue;
        const std::string text = format_value(m.row(r).sum());
        const ImVec2 ts = label_size(text, px);
        dl->AddText(ImGui::GetFont(), px,
                    ImVec2(x0 + (g.cell_w - ts.x) * 0.5f, y0 + (g.cell_h - ts.y) * 0.5f), label_color(),
                    text.c_str());
    }
    dl->AddRect(ImVec2(x0, g.img0.y), ImVec2(x1, g.img1.y), dim_color());
    ImGui::SetCursorScreenPos(ImVec2(x0, g.img0.y));
    ImGui::InvisibleButton("##sums", ImVec2(std::max(1.0f, g.cell_w), std::max(1.0f, g.image_h)));
    if (!ImGui::IsItemHovered() || state.mouse_ignored || g.cell_h <= 0.0f)
        return;
    const int r =
        std::clamp(static_cast<int>((ImGui::GetIO().MousePos.y - g.img0.y) / g.cell_h), 0, g.rows - 1);
    std::string terms;
    for (int c = 0; c < g.cols && g.cols <= 8; ++c)
        terms += (c > 0 ? " + " : "") + format_value(m(r, c));
    ImGui::SetTooltip("Σ of row i = %d  %s, over the %d columns:\n%s%s%s", r,
                      row_label(view, r, kMaxQuotedTokenChars).c_str(), g.cols, terms.c_str(),
                      terms.empty() ? "" : " = ", format_value_long(m.row(r).sum()).c_str());
}

// Token (or index) labels on both axes, thinned so they never overlap. Thinned token labels all carry their
// index, "i=8 was" for a query row and "j=8 was" for a key (heatmap_geometry made room for it), so "every
// other row" reads as positions; a lesson step's cells and the pinned query or cell keep their labels
// whatever the stride.
void draw_labels(ImDrawList* dl, const AppState& state, const MatrixRef& ref, const MatrixView& view,
                 const HeatmapOptions& options, const HeatmapGeometry& g)
{
    const float px = label_font_px(options);
    ImFont* font = ImGui::GetFont();
    std::vector<int> named_rows, named_cols;
    for (const LessonCell& cell : lesson_cells(state, ref))
    {
        named_rows.push_back(cell.row);
        named_cols.push_back(cell.col);
    }
    if (state.pinned.valid && state.pinned.matrix == ref)
    {
        named_rows.push_back(state.pinned.row);
        named_cols.push_back(state.pinned.col);
    }
    named_rows.push_back(options.pinned_row);
    if (options.labels && options.row_labels)
    {
        const int rstride = label_stride(g.rows, g.cell_h, px);
        for (const int r : labelled_indices(g.rows, rstride, g.cell_h, px, named_rows))
        {
            std::string text = short_label(view, true, r);
            if (rstride > 1 && view.row_tokens != nullptr)
                text = index_prefix(true, r) + text;
            const ImVec2 ts = label_size(text, px);
            const float y = g.img0.y + (r + 0.5f) * g.cell_h - ts.y * 0.5f;
            const bool pad = view.row_tokens != nullptr && short_label(view, true, r) == "<pad>";
            dl->AddText(font, px, ImVec2(g.img0.x - ts.x - 4.0f, y), pad ? dim_color() : label_color(),
                        text.c_str());
        }
    }
    if (g.row_title)
    {
        const float w = label_size(view.row_axis, px).x;
        draw_text_upwards(dl, ImVec2(g.img0.x - g.row_label_w, g.img0.y + (g.image_h + w) * 0.5f),
                          dim_color(), view.row_axis.c_str(), px);
    }
    if (!g.col_labels)
        return;
    if (g.col_title)
    {
        // Under the labels: right under them when they lie flat, else under the longest turned one.
        const float w = label_size(view.col_axis, px).x;
        const float band = col_labels_flat(view, g.cell_w, px) ? px + 6.0f : g.col_band;
        dl->AddText(font, px, ImVec2(g.img0.x + (g.image_w - w) * 0.5f, g.img1.y + band + 4.0f), dim_color(),
                    view.col_axis.c_str());
    }
    if (g.sum_cols > 0)
    {
        const float w = label_size("Σ", px).x;
        dl->AddText(font, px, ImVec2(g.img1.x + g.sum_x + (g.cell_w - w) * 0.5f, g.img1.y + 4.0f),
                    label_color(), "Σ");
    }
    if (view.col_tokens != nullptr)
    {
        const bool flat = col_labels_flat(view, g.cell_w, px);
        const int cstride = flat ? 1 : label_stride(g.cols, g.cell_w, px);
        for (const int c : labelled_indices(g.cols, cstride, g.cell_w, px, named_cols))
        {
            const std::string token = short_label(view, false, c);
            const std::string text = cstride > 1 ? index_prefix(false, c) + token : token;
            const ImVec2 ts = label_size(text, px);
            const ImU32 color = token == "<pad>" ? dim_color() : label_color();
            if (flat)
            {
                dl->AddText(font, px, ImVec2(g.img0.x + (c + 0.5f) * g.cell_w - ts.x * 0.5f, g.img1.y + 4.0f),
                            color, text.c_str());
                continue;
            }
            const float x = g.img0.x + (c + 0.5f) * g.cell_w - ts.y * 0.5f;
            draw_text_upwards(dl, ImVec2(x, g.img1.y + 4.0f + ts.x), color, text.c_str(), px);
        }
        return;
    }
    const float num_w = label_size("0000", px).x;
    const int cstride = label_stride(g.cols, g.cell_w, num_w);
    for (int c = 0; c < g.cols; c += cstride)
    {
        const std::string text = std::to_string(c);
        const ImVec2 ts = label_size(text, px);
        const float x = g.img0.x + (c + 0.5f) * g.cell_w - ts.x * 0.5f;
        dl->AddText(font, px, ImVec2(x, g.img1.y + 2.0f), dim_color(), text.c_str());
    }
}

} // namespace

float heatmap_numbers_px(AppState& state, const MatrixRef& ref, const HeatmapOptions& options, float cell)
{
    const MatrixView view = resolve_matrix(state, ref);
    if (view.m == nullptr || !(cell > 0.0f))
        return 0.0f;
    HeatmapGeometry g;
    g.rows = static_cast<int>(view.m->rows());
    g.cols = static_cast<int>(view.m->cols());
    g.sum_cols = options.row_sums ? 1 : 0;
    g.cell_w = g.cell_h = cell;
    return numbers_px(view, options, g);
}

float heatmap_thinned_row_label_room(const MatrixView& view, const HeatmapOptions& options)
{
    if (view.m == nullptr || !options.labels || !options.row_labels || view.row_tokens == nullptr)
        return 0.0f;
    const float px = label_font_px(options);
    const bool title = options.axis_titles && !view.row_axis.empty();
    return widest_thinned_label(view, true, static_cast<int>(view.m->rows()), px) + 6.0f +
           (title ? axis_title_h(px) : 0.0f);
}

bool heatmap_row_labels_thinned(const MatrixView& view, const HeatmapOptions& options, float cell_h)
{
    return view.m != nullptr && options.labels && options.row_labels && view.row_tokens != nullptr &&
           label_stride(static_cast<int>(view.m->rows()), cell_h, label_font_px(options)) > 1;
}

void heatmap_export_menu_items(AppState& state, const MatrixRef& ref, const std::string& title)
{
    ImGui::TextDisabled("%s", title.c_str());
    for (const ExportFormat format :
         {ExportFormat::Png, ExportFormat::Svg, ExportFormat::Pdf, ExportFormat::Csv})
        if (ImGui::MenuItem(format == ExportFormat::Png   ? "Export PNG…"
                            : format == ExportFormat::Svg ? "Export SVG…"
                            : format == ExportFormat::Pdf ? "Export PDF…"
                                                          : "Export CSV…"))
        {
            state.export_dialog.open_request = true;
            state.export_dialog.matrix = ref;
            state.export_dialog.format = format;
            state.export_dialog.path = default_export_path(ref, format);
            state.export_dialog.head_chain = false;
        }
    // One head's whole chain, from any of its per-head maps.
    if ((ref.source == MatrixSource::Layer || ref.source == MatrixSource::Cross) &&
        stage_info(ref.stage).per_head && ImGui::MenuItem("Export this head's whole chain as one slide…"))
    {
        ExportDialog& d = state.export_dialog;
        d.open_request = true;
        d.matrix = ref;
        d.head_chain = true;
        if (d.format == ExportFormat::Csv)
            d.format = ExportFormat::Png;
        d.path = head_chain_export_path(ref, d.format);
    }
    if (state.pinned.valid && ImGui::MenuItem("Unpin cell"))
        state.pinned = CellRef{};
}

HeatmapResult draw_heatmap(AppState& state, const MatrixRef& ref, const HeatmapOptions& options)
{
    HeatmapResult result;
    const MatrixView view = resolve_matrix(state, ref);
    if (view.m == nullptr)
    {
        ImGui::TextDisabled("(not available)");
        return result;
    }
    HeatmapGeometry g = heatmap_geometry(view, options);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    if (!ImGui::IsRectVisible(p0, ImVec2(p0.x + g.total.x, p0.y + g.total.y)))
    {
        ImGui::Dummy(g.total);
        return result;
    }
    result.visible = true;
    g.img0 = ImVec2(p0.x + g.row_label_w, p0.y);
    g.img1 = ImVec2(g.img0.x + g.image_w, g.img0.y + g.image_h);

    const HeatmapEntry& entry =
        state.heatmaps.get(view.key, view.version, *view.m, view.probability, view.mask, view.stretch);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImGui::PushID(view.key.c_str());
    ImGui::SetCursorScreenPos(g.img0);
    ImGui::InvisibleButton("##cells", ImVec2(std::max(1.0f, g.image_w), std::max(1.0f, g.image_h)));
    const bool item_hovered = ImGui::IsItemHovered() && !state.mouse_ignored;
    const bool item_clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left) && !state.mouse_ignored;
    if (entry.texture != 0)
        dl->AddImage(reinterpret_cast<ImTextureID>(entry.texture), g.img0, g.img1);
    else
        dl->AddRectFilled(g.img0, g.img1, kNegInfColor);
    const float number_px = numbers_px(view, options, g);
    if (draw_cell_numbers(dl, state, view, entry, g, number_px))
        result.number_px = number_px;
    draw_marks(dl, state, ref, view, options, g);
    handle_pointer(dl, state, ref, view, options, g, item_hovered, item_clicked, result);
    if (g.sum_cols > 0)
        draw_row_sums(dl, state, view, g, number_px);
    ImGui::PopID();

    draw_labels(dl, state, ref, view, options, g);
    if (options.colorbar)
    {
        const float bar_h = std::max(g.image_h, 3.0f * ImGui::GetFontSize());
        const float sums_w = g.sum_cols > 0 ? g.sum_x + g.cell_w * static_cast<float>(g.sum_cols) : 0.0f;
        draw_colorbar(entry.scale, entry.range, g.img1.x + sums_w + g.gap, g.img0.y, g.bar_w, bar_h);
    }
    ImGui::SetCursorScreenPos(p0);
    ImGui::Dummy(g.total);
    return result;
}

} // namespace attnlab
