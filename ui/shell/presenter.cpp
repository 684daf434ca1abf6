// Presenter mode: for a lecture, one large view (the step's highlighted stages, its heads or its comparison)
// and the step's text as a caption, without the editing chrome; its own text size and theme.
//
// Index of this file:
// [SECTION] Headers: parts that never break inside
// [SECTION] A grid of maps filling the view
// [SECTION] Heads: every head's map, with query and key labels and what the colours and H mean in words
// [SECTION] The comparisons: what the step shows, in a sentence with its number, above the maps
// [SECTION] A view of maps: what it writes above them, and the maps
// [SECTION] Text size and theme
// [SECTION] The edit bar
// [SECTION] The frame: title line, caption and view
//
// Which maps a step shows is decided in picture/step_maps.h.
#include "ui/shell/presenter.h"

#include "core/train/tasks.h"
#include "ui/heatmap/heatmap.h"
#include "ui/model/lesson_export.h"
#include "ui/model/lessons.h"
#include "ui/model/text_wrap.h"
#include "ui/panels/panels.h"
#include "ui/picture/heatmap_math.h"
#include "ui/picture/presenter_layout.h"
#include "ui/picture/step_maps.h"
#include "ui/shell/app_ui.h"
#include "ui/shell/fonts.h"
#include "ui/shell/theme.h"
#include "ui/shell/widgets.h"

#include <imgui.h>
#include <imgui_internal.h> // ImGuiInputTextState: the sentence field's cursor

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab
{

namespace
{

constexpr ImGuiWindowFlags kFixed = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
constexpr double kNoteSeconds = 2.0;      // how long the title line shows a new text size
constexpr double kErrorNoteSeconds = 8.0; // and an error message, long enough to read it whole

ImVec4 accent()
{
    return ImGui::GetStyle().Colors[ImGuiCol_PlotHistogram];
}

// Frames around the step's maps: the lessons' cyan on black; a darker blue on white, where cyan fades.
Color32 frame_color(const AppState& state)
{
    return state.prefs.presenter_light ? pack_rgba(0, 95, 170) : lesson_highlight_color();
}

void note(AppState& state, std::string text)
{
    state.presenter_note = std::move(text);
    state.presenter_note_until = ImGui::GetTime() + kNoteSeconds;
}

// [SECTION] Headers: parts that never break inside

// One piece of a header: its text, a shorter form for a narrow map ("T×d_k = 10×4" -> "10×4"), and whether
// it may wrap over lines (a long equation, a title) or must stay whole ("H = 1.11").
struct HeaderPart
{
    std::string text;
    std::string narrow; // "" : none
    bool may_wrap = false;
    // The widest texts this part may show (its full and narrow forms): it takes their room even while it
    // shows less or nothing, so a header does not reflow when the pointer changes what it says ("" : none).
    std::string widest;
    std::string widest_narrow;
};

HeaderPart header_part(std::string text, std::string narrow = "", bool may_wrap = false)
{
    HeaderPart part;
    part.text = std::move(text);
    part.narrow = std::move(narrow);
    part.may_wrap = may_wrap;
    return part;
}

// A header above a map: the title (in its colour) and parts such as "T×T = 6×6" and "H = 1.11 nats", laid
// out in order on as many lines as the map's width needs, never breaking inside a part that must stay whole.
// A part wider than the map takes its narrow form, or wraps on lines of its own when it may.
struct Header
{
    std::string title;
    ImVec4 title_color;
    std::vector<HeaderPart> parts;
};

HeaderPart shape_part(const std::string& shape)
{
    const auto eq = shape.find(" = ");
    return header_part(shape, eq == std::string::npos ? std::string() : shape.substr(eq + 3));
}

struct HeaderLayout
{
    std::vector<std::string> pieces; // the title, then each part in the form chosen
    std::vector<float> widths;
    std::vector<int> line;          // each piece's first line
    std::vector<int> wrapped_lines; // lines each piece takes (> 1: it wraps)
    int lines = 0;
};

HeaderLayout header_layout(const Header& header, float max_w)
{
    HeaderLayout out;
    std::vector<bool> may_wrap = {true};
    out.pieces.push_back(header.title);
    out.widths.push_back(ImGui::CalcTextSize(header.title.c_str()).x);
    auto width = [](const std::string& text)
    { return text.empty() ? 0.0f : ImGui::CalcTextSize(text.c_str()).x; };
    for (const HeaderPart& part : header.parts)
    {
        if (part.text.empty() && part.widest.empty())
            continue;
        const bool fits = std::max(width(part.text), width(part.widest)) <= max_w;
        const bool narrow = !fits && !(part.narrow.empty() && part.widest_narrow.empty());
        out.pieces.push_back(narrow ? part.narrow : part.text);
        out.widths.push_back(
            std::max(width(out.pieces.back()), width(narrow ? part.widest_narrow : part.widest)));
        may_wrap.push_back(part.may_wrap);
    }
    out.line = flow_parts(out.widths, ImGui::CalcTextSize("   ").x, max_w);
    out.wrapped_lines.assign(out.pieces.size(), 1);
    // A piece wider than the map is alone on its line: when it may wrap, count the lines it takes and move
    // the pieces after it down; one that must stay whole runs past the map's edge instead.
    int shift = 0;
    for (std::size_t i = 0; i < out.pieces.size(); ++i)
    {
        out.line[i] += shift;
        if (may_wrap[i] && out.widths[i] > max_w)
        {
            const float h = ImGui::CalcTextSize(out.pieces[i].c_str(), nullptr, false, max_w).y;
            out.wrapped_lines[i] = std::max(1, static_cast<int>(std::lround(h / ImGui::GetTextLineHeight())));
            shift += out.wrapped_lines[i] - 1;
        }
        out.lines = std::max(out.lines, out.line[i] + out.wrapped_lines[i]);
    }
    return out;
}

void draw_header(const Header& header, ImVec2 pos, float max_w)
{
    const HeaderLayout layout = header_layout(header, max_w);
    const float line_h = ImGui::GetTextLineHeightWithSpacing();
    const float space = ImGui::CalcTextSize("   ").x;
    float x = pos.x;
    int current = -1;
    for (std::size_t i = 0; i < layout.pieces.size(); ++i)
    {
        if (layout.line[i] != current)
        {
            current = layout.line[i];
            x = pos.x;
        }
        ImGui::SetCursorScreenPos(ImVec2(x, pos.y + line_h * static_cast<float>(current)));
        ImGui::PushStyleColor(ImGuiCol_Text,
                              i == 0 ? header.title_color : ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        if (layout.wrapped_lines[i] > 1)
        {
            ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + max_w);
            ImGui::TextUnformatted(layout.pieces[i].c_str());
            ImGui::PopTextWrapPos();
        }
        else
            ImGui::TextUnformatted(layout.pieces[i].c_str());
        ImGui::PopStyleColor();
        x += layout.widths[i] + space;
    }
}

// [SECTION] A grid of maps filling the view

struct GridMap
{
    MatrixRef ref;
    Header header;
    HeatmapOptions options; // labels, colour bar, frame; the grid sets the size
};

// Labels on the same axis are shared by neighbours: token axes by their token list, numbered axes by length.
int axis_id(const std::vector<std::string>* tokens, long count, std::vector<const void*>& seen)
{
    if (tokens == nullptr)
        return 1000000 + static_cast<int>(count);
    const auto it = std::find(seen.begin(), seen.end(), static_cast<const void*>(tokens));
    if (it != seen.end())
        return static_cast<int>(it - seen.begin());
    seen.push_back(tokens);
    return static_cast<int>(seen.size()) - 1;
}

// Where a grid of maps goes: the maps that resolve, their boxes (labels measured at the current font, headers
// at the widths they get) and the layout in an area of `avail`.
struct GridPlan
{
    std::vector<std::size_t> shown; // indices of the maps that resolve, one box each
    std::vector<MapBox> boxes;
    MapGrid grid;
    float label_px = 0.0f; // the axis labels' text size (the font's, or smaller to fit small cells)
    std::vector<float> candidate_cells; // the cell each number of columns gives (index: columns - 1)

    float widget_w(std::size_t i) const
    {
        const MapPlacement& p = grid.maps[i];
        return (p.row_labels ? boxes[i].left : 0.0f) + p.image.w + boxes[i].right;
    }
    // A header may use the spare room up to the next column (half a share after the last one).
    float own_header_w(std::size_t i) const
    {
        const bool last_column =
            static_cast<int>(i) % grid.columns == grid.columns - 1 || i + 1 == boxes.size();
        return widget_w(i) + grid.spare * (last_column ? 0.5f : 1.0f);
    }
    // Maps of one shape in a grid row (a head each) break their headers alike: at the narrowest room of them
    // (the leftmost, wider by its row labels, kept its "H =" on the title line while the others wrapped it).
    float header_w(std::size_t i) const
    {
        float w = own_header_w(i);
        for (std::size_t k = 0; k < boxes.size(); ++k)
            if (grid.maps[k].image.y == grid.maps[i].image.y && boxes[k].rows == boxes[i].rows &&
                boxes[k].cols == boxes[i].cols)
                w = std::min(w, own_header_w(k));
        return w;
    }
};

GridPlan plan_at(AppState& state, const std::vector<GridMap>& maps, ImVec2 avail, float label_px,
                 float min_cell)
{
    const float fs = ImGui::GetFontSize();
    const float gap = fs * 1.2f;
    const float line_h = ImGui::GetTextLineHeightWithSpacing();
    GridPlan plan;
    plan.label_px = label_px;
    std::vector<const void*> seen;
    // Per shown map: its view and options as measured, and its row labels' room once thinned (measured here
    // once; the rounds below only ask whether a cell size thins them).
    std::vector<MatrixView> views;
    std::vector<HeatmapOptions> measured;
    std::vector<float> thinned_left;
    for (std::size_t k = 0; k < maps.size(); ++k)
    {
        const GridMap& map = maps[k];
        views.push_back(resolve_matrix(state, map.ref));
        const MatrixView& view = views.back();
        if (view.m == nullptr)
        {
            views.pop_back();
            continue;
        }
        plan.shown.push_back(k);
        measured.push_back(map.options);
        measured.back().label_font_px = label_px;
        thinned_left.push_back(heatmap_thinned_row_label_room(view, measured.back()));
        const HeatmapMargins m = heatmap_margins(view, measured.back());
        MapBox box;
        box.rows = static_cast<int>(view.m->rows());
        box.cols = static_cast<int>(view.m->cols()) + m.sum_cols;
        box.left = m.left;
        box.right = m.right;
        box.top = line_h + 4.0f;
        box.col_labels = m.col_labels;
        box.below = m.below + 4.0f;
        box.row_axis = map.options.labels ? axis_id(view.row_tokens, view.m->rows(), seen) : -1;
        box.col_axis = map.options.labels ? axis_id(view.col_tokens, view.m->cols(), seen) : -1;
        plan.boxes.push_back(box);
    }
    // The headers' height depends on the maps' widths and the widths on the headers' height. For each number
    // of columns: a first guess of one line each, then the lines the laid-out widths need (headers only grow,
    // maps only narrow, so this settles in a few rounds); then the number of columns with the largest cells,
    // as layout_maps chooses (more rows must win by a pixel).
    const float max_cell = fs * 6.0f;
    const std::vector<MapBox> first_guess = plan.boxes;
    GridPlan best;
    std::vector<float> candidate_cells(first_guess.size(), 0.0f);
    for (int columns = static_cast<int>(first_guess.size()); columns >= 1; --columns)
    {
        GridPlan candidate = plan;
        candidate.boxes = first_guess;
        for (int round = 0; round < 6; ++round)
        {
            candidate.grid = layout_maps(candidate.boxes, avail.x, avail.y, gap, max_cell, columns, min_cell);
            bool changed = false;
            for (std::size_t i = 0; i < candidate.boxes.size(); ++i)
            {
                const int lines = header_layout(maps[candidate.shown[i]].header, candidate.header_w(i)).lines;
                const float top = line_h * static_cast<float>(lines) + 4.0f;
                if (top > candidate.boxes[i].top)
                {
                    candidate.boxes[i].top = top;
                    changed = true;
                }
                // Rows too short for a label each: the labels are thinned and carry their index, which
                // widens them (drawn so, a map with the labels had smaller cells than its neighbours).
                const MapPlacement& placed_map = candidate.grid.maps[i];
                if (placed_map.row_labels && thinned_left[i] > candidate.boxes[i].left + 0.5f &&
                    heatmap_row_labels_thinned(views[i], measured[i], placed_map.cell))
                {
                    candidate.boxes[i].left = thinned_left[i];
                    changed = true;
                }
            }
            if (!changed)
                break;
        }
        candidate.grid = layout_maps(candidate.boxes, avail.x, avail.y, gap, max_cell, columns, min_cell);
        // Shapes compare by the cell all maps share (before a map of its own shape grew into the room left).
        candidate_cells[static_cast<std::size_t>(columns - 1)] = candidate.grid.shared_cell;
        // At the floor every shape has the same cells: the one that fits across with the fewest rows wins.
        const bool fits = candidate.grid.width <= avail.x + 0.5f;
        const bool best_fits = !best.shown.empty() && best.grid.width <= avail.x + 0.5f;
        if (best.shown.empty() || (fits && !best_fits) ||
            (fits == best_fits && candidate.grid.shared_cell > best.grid.shared_cell + 1.0f))
            best = std::move(candidate);
    }
    if (best.shown.empty())
        return plan;
    best.candidate_cells = std::move(candidate_cells);
    return best;
}

// Runs f with the current font at 1 / zoom its size: text measured as it was at 100%.
template <class F> auto with_text_at_100(float zoom, F f)
{
    ImFont* font = ImGui::GetFont();
    const float scale = font->Scale;
    font->Scale = scale / zoom;
    ImGui::PushFont(font);
    auto result = f();
    font->Scale = scale; // before PopFont, which sets the sizes from it
    ImGui::PopFont();
    return result;
}

// The plan for the maps in `avail` at the current text, axis labels as large as the font while they fit
// their cells, else smaller (never under presenter_label_size's floor).
GridPlan plan_labelled(AppState& state, const std::vector<GridMap>& maps, ImVec2 avail)
{
    const float fs = ImGui::GetFontSize();
    GridPlan plan = plan_at(state, maps, avail, fs, 0.0f);
    const float label_px = presenter_label_size(plan.grid.cell, fs);
    if (label_px < fs)
        plan = plan_at(state, maps, avail, label_px, 0.0f);
    return plan;
}

// The cell the maps had at 100% text (zoom times smaller) in an area of area_100: labels and headers measured
// at that text.
float unzoomed_cell(AppState& state, const std::vector<GridMap>& maps, ImVec2 area_100, float zoom)
{
    return with_text_at_100(zoom, [&] { return plan_labelled(state, maps, area_100).grid.cell; });
}

// The plan for the maps in `avail`: cells square and as large as the room allows; axis labels as large as
// the font while they fit their cells, else smaller (never under presenter_label_size's floor), so that every
// token keeps its label. After Ctrl+= the cells keep at least their size at 100% text and room for their
// values if they had it: the larger text makes the grid taller than the view rather than the maps smaller
// (the view scrolls). base_view: the view window's size at 100% (where the caption went then; 0: as much
// larger as the title line and a caption under it were smaller, or as much wider as a caption beside it was
// narrower).
GridPlan plan_map_grid(AppState& state, const std::vector<GridMap>& maps, ImVec2 avail, ImVec2 view,
                       ImVec2 base_view)
{
    const float fs = ImGui::GetFontSize();
    GridPlan plan = plan_labelled(state, maps, avail);
    const float zoom = presenter_zoom(state, ImGui::GetIO().DisplaySize.y);
    if (zoom <= 1.0f || plan.boxes.empty())
        return plan;
    // The same maps at 100%: every margin and gap shrinks with the text, in the view they had then (the text
    // above the grid shrinking too).
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const ImVec2 pad = ImGui::GetStyle().WindowPadding;
    const float base_h = base_view.y > 0.0f
                             ? base_view.y - 2.0f * pad.y - (view.y - 2.0f * pad.y - avail.y) / zoom
                             : avail.y + (display.y - view.y) * (1.0f - 1.0f / zoom);
    const float base_w = base_view.x > 0.0f ? base_view.x - 2.0f * pad.x
                                            : avail.x + (display.x - view.x) * (1.0f - 1.0f / zoom);
    const float base_cell = unzoomed_cell(state, maps, ImVec2(base_w, base_h), zoom);
    float min_cell = zoomed_min_cell(base_cell, ImGui::CalcTextSize("-0.00").x / zoom, zoom);
    const AppState::UnzoomedCell& drawn = state.presenter_unzoomed;
    if (drawn.width == display.x && drawn.height == display.y && drawn.maps.size() == maps.size() &&
        std::equal(maps.begin(), maps.end(), drawn.maps.begin(),
                   [](const GridMap& m, const MatrixRef& ref) { return m.ref == ref; }))
        min_cell = std::max(min_cell, drawn.cell);
    if (min_cell <= plan.grid.cell)
        return plan;
    return plan_at(state, maps, avail, presenter_label_size(min_cell, fs), min_cell);
}

// The room left in the current window as if it showed no horizontal scroll bar. A grid planned in the room
// the bar leaves changed with the bar: one frame its cells made the grid wider than the view (the bar came),
// the next smaller cells fitted (the bar went), and the view flickered each frame (text enlarged with
// Ctrl+=).
ImVec2 room_without_horizontal_bar()
{
    ImVec2 avail = ImGui::GetContentRegionAvail();
    if (ImGui::GetCurrentWindow()->ScrollbarX)
        avail.y += ImGui::GetStyle().ScrollbarSize;
    return avail;
}

// Lays the maps out over the rest of the window (square cells, the grid shape with the largest cells) and
// draws each with its header. Returns what each map reported (hover, click), in order.
std::vector<HeatmapResult> draw_map_grid(AppState& state, const std::vector<GridMap>& maps, ImVec2 base_view)
{
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 avail = room_without_horizontal_bar();
    const GridPlan plan = plan_map_grid(state, maps, avail, ImGui::GetWindowSize(), base_view);
    if (!(presenter_zoom(state, ImGui::GetIO().DisplaySize.y) > 1.0f))
    {
        AppState::UnzoomedCell& drawn = state.presenter_unzoomed;
        drawn.maps.clear();
        for (const GridMap& m : maps)
            drawn.maps.push_back(m.ref);
        drawn.width = ImGui::GetIO().DisplaySize.x;
        drawn.height = ImGui::GetIO().DisplaySize.y;
        drawn.cell = plan.grid.cell;
    }
    state.presenter_grid_cells = plan.candidate_cells;
    state.presenter_grid_columns = plan.grid.columns;
    state.presenter_label_px = plan.label_px;
    // Each map's options at its place. The values in the cells wherever they fit at a size the back row still
    // reads, the labels' floor, and at one size in every map that writes them (the smallest any of them
    // needs), so that no map's numbers look smaller than its neighbour's; a map whose values do not fit at
    // the floor leaves them out.
    std::vector<HeatmapOptions> placed(plan.boxes.size());
    float number_px = 0.0f;
    for (std::size_t i = 0; i < plan.boxes.size(); ++i)
    {
        const MapPlacement& p = plan.grid.maps[i];
        HeatmapOptions& options = placed[i];
        options = maps[plan.shown[i]].options;
        options.row_labels = p.row_labels;
        options.col_labels = options.col_labels && p.col_labels;
        options.width = plan.widget_w(i);
        options.max_cell_px = std::max(1.0f, p.cell);
        options.max_height = std::max(1.0f, p.image.h);
        options.label_font_px = plan.label_px;
        options.min_number_px = presenter_min_text_px(ImGui::GetFontSize());
        const float px = heatmap_numbers_px(state, maps[plan.shown[i]].ref, options, p.cell);
        if (px > 0.0f)
            number_px = number_px > 0.0f ? std::min(number_px, px) : px;
    }
    std::vector<HeatmapResult> results(maps.size());
    state.presenter_number_px.assign(maps.size(), 0.0f);
    state.presenter_map_cells.assign(maps.size(), 0.0f);
    for (std::size_t i = 0; i < plan.boxes.size(); ++i)
    {
        const GridMap& map = maps[plan.shown[i]];
        const MapPlacement& p = plan.grid.maps[i];
        const float left = p.row_labels ? plan.boxes[i].left : 0.0f;
        const ImVec2 widget(origin.x + p.image.x - left, origin.y + p.image.y);
        ImGui::PushID(static_cast<int>(i));
        // The headers of a grid row start on one line, as low as the tallest of them allows (a header may
        // need fewer lines than its room: the room's top stays empty).
        const float line_h = ImGui::GetTextLineHeightWithSpacing();
        int row_lines = 1;
        for (std::size_t k = 0; k < plan.boxes.size(); ++k)
            if (plan.grid.maps[k].image.y == p.image.y)
                row_lines =
                    std::max(row_lines, header_layout(maps[plan.shown[k]].header, plan.header_w(k)).lines);
        const float row_top = line_h * static_cast<float>(row_lines) + 4.0f;
        draw_header(map.header, ImVec2(widget.x, widget.y - row_top), plan.header_w(i));
        HeatmapOptions& options = placed[i];
        options.max_number_px = number_px;
        ImGui::SetCursorScreenPos(widget);
        results[plan.shown[i]] = draw_heatmap(state, map.ref, options);
        state.presenter_number_px[plan.shown[i]] = results[plan.shown[i]].number_px;
        state.presenter_map_cells[plan.shown[i]] = p.cell;
        ImGui::PopID();
    }
    // A grid taller or wider than the view (text enlarged with Ctrl+=) scrolls.
    ImGui::SetCursorScreenPos(origin);
    ImGui::Dummy(ImVec2(plan.grid.width > avail.x ? plan.grid.width : avail.x, plan.grid.height));
    return results;
}

// "H = 1.11 nats" (narrow: "H = 1.11") for an attention map; nothing for other matrices.
HeaderPart entropy_part(AppState& state, const MatrixRef& ref)
{
    const float H = state.mean_entropy(ref);
    if (H < 0.0f)
        return HeaderPart{};
    char text[32];
    std::snprintf(text, sizeof text, "H = %.2f", static_cast<double>(H));
    return header_part(std::string(text) + " nats", text);
}

Header stage_header(AppState& state, const MatrixRef& ref, const MatrixView& view)
{
    Header header{view.title, accent(), {shape_part(view.shape), header_part(view.equation, "", true)}};
    const bool weights =
        (ref.source != MatrixSource::Comparison && ref.stage == Stage::weights) ||
        (ref.source == MatrixSource::Comparison && ref.comparison == ComparisonMatrix::single_weights);
    if (weights)
        header.parts.push_back(entropy_part(state, ref));
    return header;
}

// [SECTION] Heads: every head's map, with query and key labels and what the colours and H mean in words

// One item of the heads legend: a line of text in a colour, or the colour scale drawn as a strip between
// its two ends.
struct LegendItem
{
    enum Kind
    {
        Text,
        Accent,
        Quiet,
        Scale,
    } kind = Text;
    std::string text; // the scale: its high end ("1")
};

std::vector<LegendItem> heads_legend_items(const AppState& state)
{
    const Trace& t = state.trace();
    const int T = t.T();
    std::vector<LegendItem> items;
    char what[96];
    std::snprintf(what, sizeof what, "weights A_h of layer %d, sentence %d, T = %d", state.sel.layer + 1,
                  state.sel.b + 1, T);
    items.push_back({LegendItem::Accent, what});
    items.push_back({LegendItem::Scale, state.prefs.stretch_weights ? "largest (each map)" : "1"});
    const QueryPin& pin = state.heads_panel.query;
    if (pin.valid() && pin.row < T)
        items.push_back(
            {LegendItem::Accent,
             "query “" +
                 t.tokens.tokens[static_cast<std::size_t>(state.sel.b)][static_cast<std::size_t>(pin.row)] +
                 "” in every head"});
    if (t.config.mask == MaskKind::Causal)
        items.push_back({LegendItem::Text, "hatched: masked (a query never sees later keys)"});
    char entropy[128];
    std::snprintf(entropy, sizeof entropy, "H: mean row entropy, 0 = one key … %.2f = all keys equal",
                  std::log(static_cast<double>(std::max(1, T))));
    items.push_back({LegendItem::Quiet, entropy});
    if (state.showing_opened())
        items.push_back({LegendItem::Quiet, state.opened.model->label() + ", pretrained"});
    else if (state.showing_trained())
        items.push_back({LegendItem::Quiet, "trained in Attention Lab"});
    else if (!state.engine.has_imported_weights())
    {
        char seeded[96];
        std::snprintf(seeded, sizeof seeded, "untrained (random, seed %llu)",
                      static_cast<unsigned long long>(t.config.seed));
        items.push_back({LegendItem::Quiet, seeded});
    }
    return items;
}

constexpr const char* kScaleLow = "weight 0";

// The width an item takes on its line (the scale: both ends, its strip and the spaces between).
float legend_item_width(const LegendItem& item)
{
    if (item.kind != LegendItem::Scale)
        return ImGui::CalcTextSize(item.text.c_str()).x;
    const float space = ImGui::CalcTextSize(" ").x;
    return ImGui::CalcTextSize(kScaleLow).x + ImGui::GetFontSize() * 6.0f +
           ImGui::CalcTextSize(item.text.c_str()).x + 4.0f * space;
}

// The legend's height in a view whose content is content_w wide: its items flow over lines (each on the line
// of the previous one when it fits, as legend_item draws them), then a small gap.
float heads_legend_height(const std::vector<LegendItem>& items, float content_w)
{
    std::vector<float> widths;
    for (const LegendItem& item : items)
        widths.push_back(legend_item_width(item));
    const std::vector<int> lines = flow_parts(widths, ImGui::CalcTextSize("   ").x, content_w);
    const int n = lines.empty() ? 0 : lines.back() + 1;
    return static_cast<float>(n) * ImGui::GetTextLineHeightWithSpacing() + ImGui::GetFontSize() * 0.3f +
           ImGui::GetStyle().ItemSpacing.y;
}

// A flow of legend items: the next one on the line of the previous item when it fits, else on the next.
void legend_item(float w, bool first)
{
    const float space = ImGui::CalcTextSize("   ").x;
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (!first && ImGui::GetItemRectMax().x + space + w <= right)
        ImGui::SameLine(0.0f, space);
}

void heads_legend(const std::vector<LegendItem>& items)
{
    const float fs = ImGui::GetFontSize();
    const float space = ImGui::CalcTextSize(" ").x;
    const ImGuiStyle& style = ImGui::GetStyle();
    for (std::size_t i = 0; i < items.size(); ++i)
    {
        const LegendItem& item = items[i];
        legend_item(legend_item_width(item), i == 0);
        if (item.kind == LegendItem::Scale)
        {
            // The colour scale, drawn: one strip for all heads.
            const float bar_w = fs * 6.0f;
            ImGui::TextUnformatted(kScaleLow);
            ImGui::SameLine(0.0f, space);
            const ImVec2 p = ImGui::GetCursorScreenPos();
            colormap_strip(ImGui::GetWindowDrawList(), p.x, p.y + 3.0f, bar_w, p.y + fs - 3.0f);
            ImGui::Dummy(ImVec2(bar_w, fs));
            ImGui::SameLine(0.0f, space);
            ImGui::TextUnformatted(item.text.c_str());
            continue;
        }
        const bool coloured = item.kind != LegendItem::Text;
        if (coloured)
            ImGui::PushStyleColor(ImGuiCol_Text, item.kind == LegendItem::Accent
                                                     ? accent()
                                                     : style.Colors[ImGuiCol_TextDisabled]);
        ImGui::TextUnformatted(item.text.c_str());
        if (coloured)
            ImGui::PopStyleColor();
    }
    ImGui::Dummy(ImVec2(1.0f, fs * 0.3f));
}

// "→ animal 0.62" (narrow: "→ animal"): the key a query row weighs most in a map; nothing for no row.
HeaderPart row_top_key_part(const Mat& weights, int row, const std::vector<std::string>& keys)
{
    if (row < 0 || row >= weights.rows() || weights.cols() == 0)
        return HeaderPart{};
    Eigen::Index col = 0;
    const float weight = weights.row(row).maxCoeff(&col);
    if (!std::isfinite(weight) || col >= static_cast<Eigen::Index>(keys.size()))
        return HeaderPart{};
    const std::string key = "→ " + truncate_utf8(keys[static_cast<std::size_t>(col)], 10);
    char number[16];
    std::snprintf(number, sizeof number, " %.2f", static_cast<double>(weight));
    return header_part(key + number, key);
}

// The query's top key part (nothing without a query). hold_room: it takes the room of the widest any row
// would show, so that hovering a row, or moving between the maps, does not move the grid (the maps moved a
// line down and up under the pointer, which could then leave them and come back every frame). That widest
// line is kept in state.top_key_rooms until the map or the font changes.
HeaderPart top_key_part(AppState& state, const MatrixView& view, int query,
                        const std::vector<std::string>& keys, bool hold_room)
{
    const Mat& weights = *view.m;
    HeaderPart part = row_top_key_part(weights, query, keys);
    if (!hold_room)
        return part;
    AppState::TopKeyRoom& room = state.top_key_rooms[view.key];
    const void* font = ImGui::GetFont();
    const float font_size = ImGui::GetFontSize();
    if (room.version != view.version || room.font != font || room.font_size != font_size)
    {
        if (state.top_key_rooms.size() > 1024) // maps of earlier sessions and shapes: start over
        {
            state.top_key_rooms.clear();
            return top_key_part(state, view, query, keys, hold_room);
        }
        room = AppState::TopKeyRoom{view.version, font, font_size, "", ""};
        float widest = 0.0f, widest_narrow = 0.0f; // each row's texts measured once
        for (int row = 0; row < weights.rows(); ++row)
        {
            HeaderPart other = row_top_key_part(weights, row, keys);
            if (const float w = ImGui::CalcTextSize(other.text.c_str()).x; w > widest)
            {
                widest = w;
                room.widest = std::move(other.text);
            }
            if (const float w = ImGui::CalcTextSize(other.narrow.c_str()).x; w > widest_narrow)
            {
                widest_narrow = w;
                room.widest_narrow = std::move(other.narrow);
            }
        }
    }
    part.widest = room.widest;
    part.widest_narrow = room.widest_narrow;
    return part;
}

// ↑ / ↓ move the pinned query (from none: the first or the last token), as in the Heads panel.
void move_query_pin(AppState& state, const std::vector<std::string>& tokens)
{
    const ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput || io.KeyCtrl || io.KeyAlt || tokens.empty())
        return;
    // (With Shift they page the view: shortcuts.cpp.)
    const int step = io.KeyShift                       ? 0
                     : ImGui::IsKeyPressed(keys::Down) ? 1
                     : ImGui::IsKeyPressed(keys::Up)   ? -1
                                                       : 0;
    if (step == 0)
        return;
    QueryPin& pin = state.heads_panel.query;
    const int T = static_cast<int>(tokens.size());
    set_query_pin(pin, pin.valid() ? std::clamp(pin.row + step, 0, T - 1) : (step > 0 ? 0 : T - 1), tokens);
}

// Every head's map, their headers naming what the query (the one under the pointer, else the pinned one)
// looks at most. The headers hold that line's room while the pointer shows (a resting one hides, and with it
// the room, so the audience gets the larger maps): held only once the pointer was over the maps, the maps
// moved down under it, so a click meant for one row pinned another. A picture holds it for a pinned query.
std::vector<GridMap> heads_maps(AppState& state, const std::vector<MatrixRef>& refs)
{
    const std::vector<std::string>& tokens =
        state.trace().tokens.tokens[static_cast<std::size_t>(state.sel.b)];
    const QueryPin& pin = state.heads_panel.query;
    const int T = static_cast<int>(tokens.size());
    const int pinned = pin.valid() && pin.row < T ? pin.row : -1;
    const int hovered = state.heads_hover_row >= 0 && state.heads_hover_row < T ? state.heads_hover_row : -1;
    const int query = hovered >= 0 ? hovered : pinned;
    std::vector<GridMap> maps;
    for (const MatrixRef& ref : refs)
    {
        const int j = ref.head;
        GridMap map;
        map.ref = ref;
        map.header.title = "head " + std::to_string(j + 1);
        map.header.title_color = head_text_color(j);
        map.header.parts = {header_part(entropy_part(state, map.ref).narrow)};
        if (const MatrixView view = resolve_matrix(state, map.ref); view.m != nullptr)
            map.header.parts.push_back(
                top_key_part(state, view, query, tokens,
                             pinned >= 0 || (!state.mouse_ignored && ImGui::IsMousePosValid())));
        map.options.colorbar = false;
        map.options.frame_color = head_color(j);
        map.options.frame_thickness = j == state.sel.head ? 4.0f : 2.0f;
        map.options.highlight_row = hovered;
        map.options.pinned_row = pinned;
        map.options.dim_other_rows = pinned >= 0;
        map.options.pin_on_click = false;
        map.options.click_hint = "click: pin this query in every head (again: unpin) and select the head";
        maps.push_back(std::move(map));
    }
    return maps;
}

// Hovering a row lights the same query in every head; a click pins it there and selects the head. Both are
// for the lecturer's pointer: what the audience needs is written on the maps.
void heads_pointer(AppState& state, const std::vector<HeatmapResult>& results)
{
    const std::vector<std::string>& tokens =
        state.trace().tokens.tokens[static_cast<std::size_t>(state.sel.b)];
    for (int j = 0; j < static_cast<int>(results.size()); ++j)
    {
        const HeatmapResult& r = results[static_cast<std::size_t>(j)];
        if (r.hovered)
            state.heads_hover_row_next = r.row;
        if (r.clicked)
        {
            state.sel.head = j;
            toggle_query_pin(state.heads_panel.query, r.row, tokens);
        }
    }
}

// [SECTION] The comparisons: what the step shows, in a sentence with its number, above the maps

void claim_line(const std::string& text)
{
    ImGui::PushStyleColor(ImGuiCol_Text, accent());
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
    ImGui::Dummy(ImVec2(1.0f, ImGui::GetFontSize() * 0.3f));
}

// The height claim_line takes over content_w, with the spacing after it.
float claim_height(const std::string& text, float content_w)
{
    return ImGui::CalcTextSize(text.c_str(), nullptr, false, content_w).y + ImGui::GetFontSize() * 0.3f +
           2.0f * ImGui::GetStyle().ItemSpacing.y;
}

GridMap comparison_map(AppState& state, const MatrixRef& ref)
{
    GridMap map;
    map.ref = ref;
    map.header = stage_header(state, map.ref, resolve_matrix(state, map.ref));
    return map;
}

// [SECTION] A view of maps: what it writes above them, and the maps

// What a view of maps draws: a legend (the heads) or a claim (a comparison) above the grid, then its maps.
// Built once a frame and used twice: to measure the cells each place of the caption leaves (place_caption)
// and to draw.
struct MapView
{
    bool heads = false;
    std::vector<LegendItem> legend;
    std::string claim;
    std::vector<GridMap> maps;
    std::size_t pair = 0; // > 0: the first `pair` maps alone when all would leave them under 60 % their size
    ImVec2 base_view;     // zoomed: the view window's size at 100%, where the caption went then (0: unknown)

    // The height of the legend or claim over content_w, with the spacing after it.
    float preamble_height(float content_w) const
    {
        if (heads)
            return heads_legend_height(legend, content_w);
        return claim.empty() ? 0.0f : claim_height(claim, content_w);
    }
};

// The packed X W^Q beside the h per-head Q_h it splits into.
MapView packed_view(AppState& state, const std::vector<MatrixRef>& refs)
{
    MapView v;
    v.claim = "X W^Q is h column blocks (the lines), block h being head h's Q_h: largest difference " +
              format_value(state.comparisons.packed_max_diff) +
              " (rounding only). Each Q_h is coloured on its own scale.";
    v.maps = {comparison_map(state, refs[0])};
    for (std::size_t i = 1; i < refs.size(); ++i)
    {
        const int j = refs[i].head;
        GridMap map = comparison_map(state, refs[i]);
        const MatrixView view = resolve_matrix(state, map.ref);
        map.header = Header{"Q_" + std::to_string(j + 1), head_text_color(j), {shape_part(view.shape)}};
        // Only the pattern is compared here: five colour bars would take the room of the maps.
        map.options.colorbar = false;
        map.options.frame_color = head_color(j);
        v.maps.push_back(std::move(map));
    }
    return v;
}

MapView two_step_view(AppState& state, const std::vector<MatrixRef>& refs)
{
    MapView v;
    v.claim = "(X W^Q) W_h^Q and X (W^Q W_h^Q) differ by at most " +
              format_value(state.comparisons.two_step_max_diff) + ": rounding only";
    for (const MatrixRef& ref : refs) // the two products and their difference
        v.maps.push_back(comparison_map(state, ref));
    return v;
}

// The two T×T maps are the point (one map against one of h); the outputs join them when that leaves the maps
// at least 60% of their size alone (on a 16:9 screen they would shrink them to a third, so the claim states
// their difference instead).
MapView single_head_view(AppState& state, const std::vector<MatrixRef>& refs)
{
    MapView v;
    const float diff = state.comparisons.single_vs_multi_max_diff;
    v.claim = state.heads() == 1 ? "h = 1: the one head is single-head attention; the outputs differ by " +
                                       format_value_long(diff) + " (rounding only)"
                                 : "One map against h maps: the outputs differ by up to " +
                                       format_value_long(diff) + " (not rounding)";
    for (const MatrixRef& ref : refs)
        v.maps.push_back(comparison_map(state, ref));
    v.pair = 2;
    return v;
}

// A step's stages; where the softmax's axis is the subject (row_sums), each map names its axes and the
// weights add up their rows.
MapView stages_view(AppState& state, const std::vector<MatrixRef>& refs, bool row_sums)
{
    MapView v;
    for (const MatrixRef& ref : refs)
    {
        GridMap map;
        map.ref = ref;
        const MatrixView view = resolve_matrix(state, map.ref);
        if (view.m == nullptr)
            continue;
        map.header = stage_header(state, map.ref, view);
        map.options.frame_color = frame_color(state);
        map.options.frame_thickness = 3.0f;
        map.options.axis_titles = row_sums;
        map.options.row_sums = row_sums && view.probability;
        v.maps.push_back(std::move(map));
    }
    return v;
}

MapView heads_view(AppState& state, const std::vector<MatrixRef>& refs)
{
    MapView v;
    v.heads = true;
    v.legend = heads_legend_items(state);
    v.maps = heads_maps(state, refs);
    return v;
}

// The maps of a view drawn in `avail` (the single-head comparison: the pair alone when all would shrink it).
std::vector<GridMap> maps_shown(AppState& state, const MapView& v, ImVec2 avail, ImVec2 view)
{
    if (v.pair == 0 || v.pair >= v.maps.size())
        return v.maps;
    const std::vector<GridMap> pair(v.maps.begin(), v.maps.begin() + static_cast<long>(v.pair));
    const float pair_cell = plan_map_grid(state, pair, avail, view, v.base_view).grid.shared_cell;
    const float all_cell = plan_map_grid(state, v.maps, avail, view, v.base_view).grid.shared_cell;
    return all_cell >= 0.6f * pair_cell ? v.maps : pair;
}

// The share of the view's grid of maps a presenter view window of w x h shows (1: all; less when text
// enlarged with Ctrl+= made it outgrow the window, the cells kept), and its cell.
struct MapViewFit
{
    float cell = 0.0f;
    float shown = 1.0f;
};
MapViewFit map_view_fit(AppState& state, const MapView& v, float w, float h)
{
    const ImVec2 pad = ImGui::GetStyle().WindowPadding;
    const float content_w = std::max(1.0f, w - 2.0f * pad.x);
    const ImVec2 avail(content_w, std::max(1.0f, h - 2.0f * pad.y - v.preamble_height(content_w)));
    const MapGrid grid =
        plan_map_grid(state, maps_shown(state, v, avail, ImVec2(w, h)), avail, ImVec2(w, h), v.base_view)
            .grid;
    const float shown_h = grid.height > avail.y ? avail.y / grid.height : 1.0f;
    const float shown_w = grid.width > avail.x ? avail.x / grid.width : 1.0f;
    return {grid.shared_cell, shown_h * shown_w};
}

// The cell the view's maps get in a presenter view window of w x h, as the caption's place weighs it: times
// the share of the grid the window shows. Where every place leaves the cells their size at 100%, the one
// that hides least of the grid wins: the caption goes beside a grid that a band under it would half cover.
float map_view_cell(AppState& state, const MapView& v, float w, float h)
{
    const MapViewFit fit = map_view_fit(state, v, w, h);
    return fit.cell * fit.shown;
}

// True when a view window of w x h hides part of the view's grid (it scrolls).
bool map_view_hidden(AppState& state, const MapView& v, float w, float h)
{
    return map_view_fit(state, v, w, h).shown < 0.999f;
}

// The cell the view's maps had at 100% text (zoom times smaller) in a view window of w x h then.
float map_view_cell_at_100(AppState& state, const MapView& v, float w, float h, float zoom)
{
    return with_text_at_100(
        zoom,
        [&]
        {
            const ImVec2 pad = ImGui::GetStyle().WindowPadding;
            const float content_w = std::max(1.0f, w - 2.0f * pad.x);
            const ImVec2 area(content_w, std::max(1.0f, h - 2.0f * pad.y - v.preamble_height(content_w)));
            return plan_labelled(state, v.maps, area).grid.shared_cell;
        });
}

// The view drawn in the current window: the legend or claim, then the grid; the heads answer the pointer.
void draw_map_view(AppState& state, const MapView& v)
{
    if (!state.status.is_ok())
        error_text(state.status.message());
    if (v.heads)
        heads_legend(v.legend);
    else if (!v.claim.empty())
        claim_line(v.claim);
    const std::vector<HeatmapResult> results = draw_map_grid(
        state, maps_shown(state, v, room_without_horizontal_bar(), ImGui::GetWindowSize()), v.base_view);
    if (v.heads)
        heads_pointer(state, results);
}

// One comparison section laid out for the projector (a lesson step's, or outside a lesson the one key 4
// chose).
MapView comparison_view(AppState& state, ComparisonSection section, const std::vector<MatrixRef>& refs)
{
    state.ensure_comparisons();
    if (section == ComparisonSection::Packed)
        return packed_view(state, refs);
    if (section == ComparisonSection::TwoStep)
        return two_step_view(state, refs);
    return single_head_view(state, refs);
}

// The view of maps a step (or outside a lesson, key 2: the heads) shows; none for the panels and the Training
// view, which lay themselves out.
std::optional<MapView> map_view(AppState& state, const LessonStep* step)
{
    if (presenter_shows_training(state) || !state.has_trace())
        return std::nullopt;
    const StepMaps shown = step_maps(state, step);
    const bool heads = shown.kind == StepMapsKind::Heads ||
                       (step == nullptr && state.presenter_view == PresenterView::Heads);
    if (heads)
        move_query_pin(state, state.trace().tokens.tokens[static_cast<std::size_t>(state.sel.b)]);
    if (shown.kind == StepMapsKind::Heads)
        return heads_view(state, shown.maps);
    if (shown.kind == StepMapsKind::Stages)
        return stages_view(state, shown.maps, shown.row_sums);
    if (shown.kind == StepMapsKind::Comparisons && shown.comparison != ComparisonSection::All)
        return comparison_view(state, shown.comparison, shown.maps);
    if (step == nullptr && state.presenter_view == PresenterView::Comparisons)
    {
        state.ensure_comparisons();
        const ComparisonSection section = state.presenter_comparison == ComparisonSection::All
                                              ? ComparisonSection::Packed
                                              : state.presenter_comparison;
        return comparison_view(state, section, comparison_maps(state, section));
    }
    if (step == nullptr && state.presenter_view == PresenterView::Pipeline)
    {
        const auto& groups = presenter_pipeline_groups();
        const PipelineGroup& group = groups[static_cast<std::size_t>(
            std::clamp(state.presenter_stage_group, 0, static_cast<int>(groups.size()) - 1))];
        std::vector<MatrixRef> refs;
        for (const Stage stage : group.stages)
            refs.push_back(selected_stage(state, stage, state.sel.head));
        // The softmax's group names the axes and adds up each row of the weights, as the lesson step does.
        const bool softmax =
            std::find(group.stages.begin(), group.stages.end(), Stage::weights) != group.stages.end();
        return stages_view(state, refs, softmax);
    }
    if (step == nullptr && state.presenter_view == PresenterView::Heads)
    {
        std::vector<MatrixRef> refs;
        for (int j = 0; j < state.heads(); ++j)
            refs.push_back(selected_stage(state, Stage::weights, j));
        return heads_view(state, refs);
    }
    return std::nullopt;
}

std::string session_caption(const AppState& state)
{
    std::string text = state.session.text;
    std::replace(text.begin(), text.end(), '\n', ' ');
    if (state.showing_opened())
    {
        // The folder's model, not the session's settings (which wait until it is closed).
        const train::ModelConfig& m = state.opened.model->config;
        return "“" + text + "”   " + state.opened.model->label() +
               ": d_model = " + std::to_string(m.d_model) + ", h = " + std::to_string(m.n_heads) + ", " +
               std::to_string(m.n_layers) + " layers, " + (m.causal ? "causal" : "bidirectional");
    }
    // Every setting the edit bar changes is named once it is off its default, so τ = 2 is never left unsaid.
    const Config& c = state.session.config;
    std::string caption = "“" + text + "”   d_model = " + std::to_string(c.d_model) +
                          ", h = " + std::to_string(c.n_heads) + ", mask: " + to_string(c.mask);
    if (c.temperature != 1.0f)
    {
        char tau[32];
        std::snprintf(tau, sizeof tau, ", τ = %.2f", static_cast<double>(c.temperature));
        caption += tau;
    }
    if (!c.scale)
        caption += ", not divided by √d_k";
    return caption;
}

} // namespace

bool presenter_shows_training(const AppState& state)
{
    if (!state.presenter)
        return false;
    const LessonStep* step = current_step(state);
    if (step != nullptr)
        return step_maps(state, step).kind == StepMapsKind::Training;
    return current_lesson(state) == nullptr && state.presenter_view == PresenterView::Training;
}

// [SECTION] Text size and theme

void step_text_size(AppState& state, int step)
{
    char text[96];
    if (state.presenter)
    {
        state.presenter_scale = step_presenter_scale(state.presenter_scale, step);
        std::snprintf(text, sizeof text, "presenter text %d%%  (Ctrl+0: 100%%)",
                      static_cast<int>(std::lround(state.presenter_scale * 100.0f)));
        note(state, text);
    }
    else
    {
        state.prefs.font_size = step_font_size(state.prefs.font_size, step);
        std::snprintf(text, sizeof text, "Font size %.0f px (Ctrl+0: %.0f px)",
                      static_cast<double>(state.prefs.font_size), static_cast<double>(kDefaultFontSize));
        state.set_message(text, false);
    }
    state.request_font_rebuild = true;
}

void toggle_presenter_theme(AppState& state)
{
    state.prefs.presenter_light = !state.prefs.presenter_light;
    if (state.presenter)
        note(state, state.prefs.presenter_light ? "light theme (T: dark)" : "dark theme (T: light)");
}

// [SECTION] The edit bar

namespace
{

// An opened model's whole text on the edit bar's one line: its line breaks as spaces.
std::string presenter_whole_text(std::string text)
{
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
}

} // namespace

void toggle_presenter_edit(AppState& state)
{
    // The bar edits the session the maps views show; the Training view shows a run, which the bar would leave
    // untouched while its title line said "h = 8".
    if (!state.presenter_edit && presenter_shows_training(state))
    {
        note(state, "the Training view's run is set in the Training panel");
        return;
    }
    state.presenter_edit = !state.presenter_edit;
    if (!state.presenter_edit)
        return;
    if (state.showing_opened())
    {
        // An opened model reads the whole text as one sequence: the field holds all of it (its line breaks as
        // spaces), and the settings are the model's own.
        state.presenter_text = presenter_whole_text(state.session.text);
        note(state,
             "Enter applies the text, Esc keeps it; " + state.opened.model->label() + " keeps its settings");
        return;
    }
    state.presenter_text = state.session.text.substr(0, state.session.text.find('\n'));
    note(state, "Enter applies the sentence, Esc keeps it; then keys H D M = - (Shift: back)");
}

const std::vector<PipelineGroup>& presenter_pipeline_groups()
{
    static const std::vector<PipelineGroup> groups = {
        {"the input X",
         "the input X = token embedding + positional encoding",
         {Stage::embedding, Stage::positional, Stage::X}},
        {"Q, K, V", "queries Q_h, keys K_h and values V_h of head {head}", {Stage::Q, Stage::K, Stage::V}},
        {"scores and √d_k",
         "the scores Q_h K_h^T of head {head}, then divided by √d_k",
         {Stage::scores, Stage::scaled}},
        {"mask and softmax",
         "mask and softmax: the attention weights A_h of head {head}",
         {Stage::masked, Stage::weights}},
        {"heads to MultiHead",
         "each head's output A_h V_h, the heads side by side, then times W^O",
         {Stage::head_out, Stage::concat, Stage::mha}},
        {"residual and norm",
         "the residual X + MultiHead(X), then layer norm",
         {Stage::residual, Stage::norm1}},
        {"feed-forward",
         "the feed-forward network, its residual, then layer norm",
         {Stage::ffn, Stage::residual2, Stage::norm2}},
    };
    return groups;
}

void presenter_pipeline_step(AppState& state, int direction)
{
    const int n = static_cast<int>(presenter_pipeline_groups().size());
    state.presenter_stage_group = std::clamp(state.presenter_stage_group + direction, 0, n - 1);
}

void presenter_next_step(AppState& state)
{
    const int wait = next_step_waits_for(state);
    if (wait > 0)
        note(state, "next step at training step " + std::to_string(wait) + " (now " +
                        std::to_string(state.training.view.step) + ")");
    next_step(state);
}

ComparisonSection next_comparison(ComparisonSection c)
{
    return c == ComparisonSection::Packed    ? ComparisonSection::TwoStep
           : c == ComparisonSection::TwoStep ? ComparisonSection::SingleHead
                                             : ComparisonSection::Packed;
}

void presenter_edit_step(AppState& state, PresenterSetting setting, int direction)
{
    if (state.showing_opened())
    {
        // The views show the opened model, whose shape its files fix: a change would go to the session behind
        // it, unseen.
        note(state, state.opened.model->label() + " keeps its settings (File > Close model: the session's)");
        return;
    }
    Config& c = state.session.config;
    const Config before = c;
    char text[96] = "";
    switch (setting)
    {
    case PresenterSetting::heads:
        c.n_heads = c.d_k == 0 || c.d_v == 0 ? next_head_count(c.d_model, c.n_heads, direction)
                                             : std::clamp(c.n_heads + direction, 1, Limits::max_heads);
        std::snprintf(text, sizeof text,
                      c.n_heads != before.n_heads ? "h = %d" : "h = %d (no further that way)", c.n_heads);
        break;
    case PresenterSetting::d_model:
    {
        const int next = direction > 0 ? c.d_model * 2 : c.d_model / 2;
        const bool whole = (c.d_k != 0 && c.d_v != 0) || (c.n_heads > 0 && next % c.n_heads == 0);
        if (next >= 1 && next <= Limits::max_d_model && whole)
            c.d_model = next;
        std::snprintf(text, sizeof text,
                      c.d_model != before.d_model ? "d_model = %d" : "d_model = %d (h = %d must divide it)",
                      c.d_model, c.n_heads);
        break;
    }
    case PresenterSetting::mask:
        c.mask = c.mask == MaskKind::None ? MaskKind::Causal : MaskKind::None;
        std::snprintf(text, sizeof text, "mask: %s", to_string(c.mask));
        break;
    case PresenterSetting::temperature:
        c.temperature = std::clamp(direction > 0 ? c.temperature * 2.0f : c.temperature * 0.5f,
                                   Limits::min_temperature, Limits::max_temperature);
        std::snprintf(text, sizeof text, "τ = %.2f", static_cast<double>(c.temperature));
        break;
    }
    if (!(c == before))
        state.edit();
    note(state, text);
}

// [SECTION] The frame: title line, caption and view

namespace
{

// The title line's right end outside a lesson: the view, and in Comparisons the one shown.
std::string presenter_view_title(const AppState& state)
{
    std::string name = presenter_view_name(state.presenter_view);
    if (state.presenter_view == PresenterView::Pipeline)
    {
        const auto& groups = presenter_pipeline_groups();
        const int g = std::clamp(state.presenter_stage_group, 0, static_cast<int>(groups.size()) - 1);
        return name + ": " + groups[static_cast<std::size_t>(g)].name + " (" + std::to_string(g + 1) + "/" +
               std::to_string(groups.size()) + ", ← →)";
    }
    if (state.presenter_view != PresenterView::Comparisons)
        return name;
    const ComparisonSection c = state.presenter_comparison;
    return name + ": " +
           (c == ComparisonSection::TwoStep      ? "two maps in a row"
            : c == ComparisonSection::SingleHead ? "one head against h"
                                                 : "packed W^Q") +
           " (4: next)";
}

// The title line: the lesson on the left, the counter and the keys on the right, a new text size or theme in
// the middle for a moment. Returns its height.
float presenter_title(AppState& state, const Lesson* lesson)
{
    const ImGuiStyle& style = ImGui::GetStyle();
    const float W = ImGui::GetIO().DisplaySize.x;
    const float pad = style.WindowPadding.x;
    const float title_h = ImGui::GetTextLineHeight() + style.WindowPadding.y * 2.0f;
    ImGui::SetNextWindowPos(ImVec2(0.0f, 0.0f));
    ImGui::SetNextWindowSize(ImVec2(W, title_h));
    if (ImGui::Begin("##presenter_title", nullptr, kFixed))
    {
        // Presenter mode has no status bar: a new message (an export written, a file that could not be read)
        // is a note here, an error for longer; a slide export under way says how far it is before the keys.
        if (state.message != state.presenter_seen_message)
        {
            state.presenter_seen_message = state.message;
            // A note of this view's own (the same key's answer, put shorter) stays, unless the message is an
            // error.
            const bool noting =
                !state.presenter_note.empty() && ImGui::GetTime() < state.presenter_note_until;
            if (!state.message.empty() && (state.message_is_error || !noting))
            {
                note(state, state.message);
                state.presenter_note_until =
                    ImGui::GetTime() + (state.message_is_error ? kErrorNoteSeconds : kNoteSeconds * 2.0);
            }
        }
        const std::string exporting = lesson_export_progress_text(state);
        const std::string right =
            (exporting.empty() ? std::string() : exporting + "     ") +
            (lesson != nullptr ? step_counter(state) + "     ← →   F5"
                               : presenter_view_title(state) + "  (1-5: view)   F5: leave");
        // A note (a change just made) takes the right-hand text's place for its two seconds, in the accent
        // colour: centred, a long one ran over the view's name.
        const bool show_note = !state.presenter_note.empty() && ImGui::GetTime() < state.presenter_note_until;
        const std::string& shown_right = show_note ? state.presenter_note : right;
        const float right_x = std::max(pad, W - pad - ImGui::CalcTextSize(shown_right.c_str()).x);
        ImGui::PushStyleColor(ImGuiCol_Text, accent());
        // The lesson's title gives way to the right-hand text where they would meet.
        const std::string title = lesson != nullptr ? lesson->title : std::string("Attention Lab");
        const float title_room = right_x - pad - ImGui::GetFontSize();
        std::string shown = title;
        for (int n = utf8_length(title); n > 4 && ImGui::CalcTextSize(shown.c_str()).x > title_room; --n)
            shown = truncate_utf8(title, n);
        if (ImGui::CalcTextSize(shown.c_str()).x <= title_room)
            ImGui::TextUnformatted(shown.c_str());
        ImGui::PopStyleColor();
        ImGui::SameLine(right_x);
        if (show_note)
            ImGui::PushStyleColor(ImGuiCol_Text, accent());
        ImGui::TextUnformatted(shown_right.c_str());
        if (show_note)
            ImGui::PopStyleColor();
    }
    ImGui::End();
    return title_h;
}

// The edit bar under the title line (E): the sentence (Enter applies it) and - / + for h, d_model, mask and
// τ, each change said in the title line; with an opened model, its whole text and the model's name in place
// of the settings. The view starts below it, so it never covers a map. Returns its height (0 when closed).
float presenter_edit_bar(AppState& state, float top)
{
    if (state.presenter_edit && presenter_shows_training(state))
        state.presenter_edit = false; // opened in another view: the run shown is not the session it edits
    if (!state.presenter_edit)
        return 0.0f;
    const ImGuiStyle& style = ImGui::GetStyle();
    const float W = ImGui::GetIO().DisplaySize.x;
    const float bar_h = ImGui::GetFrameHeight() + style.WindowPadding.y * 2.0f;
    ImGui::SetNextWindowPos(ImVec2(0.0f, top));
    ImGui::SetNextWindowSize(ImVec2(W, bar_h));
    if (ImGui::Begin("##presenter_edit", nullptr, kFixed))
    {
        const Config& c = state.session.config;
        const float fs = ImGui::GetFontSize();
        const float gap = fs;
        const bool opened = state.showing_opened();
        const std::string fixed = opened ? state.opened.model->label() + ": its own settings" : std::string();
        // Buttons sized by their own text; the sentence takes what they leave.
        char heads[32], width[32], tau[32];
        std::snprintf(heads, sizeof heads, "h = %d", c.n_heads);
        std::snprintf(width, sizeof width, "d_model = %d", c.d_model);
        std::snprintf(tau, sizeof tau, "τ = %.2f", static_cast<double>(c.temperature));
        const std::string mask = std::string("mask: ") + to_string(c.mask);
        const float button = ImGui::GetFrameHeight();
        const float inner = style.ItemInnerSpacing.x;
        auto stepper_w = [&](const char* label)
        { return ImGui::CalcTextSize(label).x + 2.0f * (button + inner) + gap; };
        const float controls = opened ? ImGui::CalcTextSize(fixed.c_str()).x + gap
                                      : stepper_w(heads) + stepper_w(width) + stepper_w(tau) +
                                            ImGui::CalcTextSize(mask.c_str()).x +
                                            style.FramePadding.x * 2.0f + gap;
        const char* field_label = opened ? "text" : "sentence";
        ImGui::SetNextItemWidth(std::max(fs * 8.0f, W - 2.0f * style.WindowPadding.x - controls -
                                                        ImGui::CalcTextSize(field_label).x - inner));
        if (ImGui::IsWindowAppearing())
        {
            ImGui::SetKeyboardFocusHere();
            state.presenter_edit_cursor_pending = true;
        }
        const bool applied = input_text(field_label, &state.presenter_text, true);
        // Focused by E, ImGui selects the whole sentence, which the next key would replace (H, meant for h,
        // left the sentence "h"): the cursor goes to its end instead, once the field is active.
        if (state.presenter_edit_cursor_pending)
            if (ImGuiInputTextState* field = ImGui::GetInputTextState(ImGui::GetItemID()))
            {
                field->Stb.cursor = field->CurLenW;
                field->ClearSelection();
                state.presenter_edit_cursor_pending = false;
            }
        if (applied && opened)
        {
            // The whole text; one unchanged but for its line breaks stays as it was.
            if (state.presenter_text != presenter_whole_text(state.session.text))
            {
                state.session.text = state.presenter_text;
                state.edit();
            }
            note(state, "text applied");
        }
        else if (applied)
        {
            const std::size_t nl = state.session.text.find('\n');
            const std::string rest = nl == std::string::npos ? std::string() : state.session.text.substr(nl);
            if (state.presenter_text + rest != state.session.text)
            {
                state.session.text = state.presenter_text + rest;
                state.edit();
            }
            note(state, "sentence applied; keys H D M = - now change the settings");
        }
        item_tooltip(
            opened ? "Enter applies the text (the model reads it whole, as one sequence) and Esc leaves "
                     "the field; then E or Esc hides this bar"
                   : "Enter applies the sentence (the first one of the batch) and Esc leaves the field; "
                     "then E or Esc hides this bar");
        if (opened)
        {
            ImGui::SameLine(0.0f, gap);
            ImGui::AlignTextToFramePadding();
            ImGui::TextDisabled("%s", fixed.c_str());
        }
        else
        {
            auto stepper = [&](const char* label, PresenterSetting setting)
            {
                ImGui::PushID(label);
                ImGui::SameLine(0.0f, gap);
                ImGui::AlignTextToFramePadding();
                ImGui::TextUnformatted(label);
                for (const int direction : {-1, +1})
                {
                    ImGui::SameLine(0.0f, inner);
                    if (ImGui::Button(direction < 0 ? "-" : "+", ImVec2(button, button)))
                        presenter_edit_step(state, setting, direction);
                }
                ImGui::PopID();
            };
            stepper(heads, PresenterSetting::heads);
            stepper(width, PresenterSetting::d_model);
            ImGui::SameLine(0.0f, gap);
            if (ImGui::Button(mask.c_str()))
                presenter_edit_step(state, PresenterSetting::mask, 1);
            stepper(tau, PresenterSetting::temperature);
        }
    }
    ImGui::End();
    return bar_h;
}

// The caption: the step's title (or what the view shows outside a lesson), its text and a note.
struct CaptionWords
{
    std::string heading, text, note;
};

// The caption's heading outside a lesson: the view and what it shows ("Pipeline: the input X = token
// embedding + positional encoding"); the line under it gives the sentence and the settings.
std::string view_heading(const AppState& state)
{
    const std::string name = presenter_view_name(state.presenter_view);
    switch (state.presenter_view)
    {
    case PresenterView::Pipeline:
    {
        const auto& groups = presenter_pipeline_groups();
        const int g = std::clamp(state.presenter_stage_group, 0, static_cast<int>(groups.size()) - 1);
        std::string shows = groups[static_cast<std::size_t>(g)].shows;
        if (const auto at = shows.find("{head}"); at != std::string::npos)
            shows.replace(at, 6, std::to_string(state.sel.head + 1));
        return name + ": " + shows;
    }
    case PresenterView::Heads:
        return name + ": attention weights A_h of each head";
    case PresenterView::Inspector:
        return name + ": one weight, step by step";
    case PresenterView::Comparisons:
        return name + ": " +
               (state.presenter_comparison == ComparisonSection::TwoStep ? "two projections in a row are one"
                : state.presenter_comparison == ComparisonSection::SingleHead
                    ? "one attention map against h of them"
                    : "one packed X W^Q holds every head's Q_h");
    case PresenterView::Training:
    case PresenterView::Count:
        break;
    }
    return "Training: no run yet";
}

CaptionWords caption_words(AppState& state, const LessonStep* step)
{
    CaptionWords words;
    // Outside a lesson the Training view's caption names its run, not the session it does not show.
    const bool training =
        step == nullptr && presenter_shows_training(state) && state.training_run.configured();
    words.heading = step != nullptr ? step->title
                    : training
                        ? std::string("Training: ") + train::task_info(state.training.view.config.task).title
                        : view_heading(state);
    // A step's text waits for the run it describes; a note says when it describes settings since changed.
    bool waits = false;
    words.note = step != nullptr ? lesson_caption_note(state, *step, &waits) : std::string();
    words.text = step == nullptr ? (training ? state.training.view.config.label() : session_caption(state))
                 : waits         ? std::string()
                                 : step->text;
    return words;
}

// The caption's font at px (the caption font scaled to it; the text font when the atlas has none), until
// pop_caption_font.
void push_caption_font(float px)
{
    ImFont* font = caption_font();
    if (font == nullptr)
    {
        ImGui::PushFont(ImGui::GetFont());
        return;
    }
    font->Scale = px / font->FontSize;
    ImGui::PushFont(font);
}

void pop_caption_font()
{
    ImGui::PopFont();
    if (ImFont* font = caption_font())
        font->Scale = 1.0f;
}

// The caption's text and note broken into lines of at most wrap_w in the current font, at spaces only:
// ImGui's own wrapping may leave a "." alone on a line after a closing quote.
struct CaptionLines
{
    std::string text, note;
};
CaptionLines caption_lines(const CaptionWords& words, float wrap_w)
{
    const auto width_of = [](std::string_view s)
    { return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x; };
    return {wrap_lines(words.text, wrap_w, width_of), wrap_lines(words.note, wrap_w, width_of)};
}

// The caption's height in a window `width` wide at font size px: heading, text and note wrapped inside the
// padding.
float caption_height(const CaptionWords& words, float width, float px)
{
    const ImGuiStyle& style = ImGui::GetStyle();
    const float wrap_w = std::max(1.0f, width - 2.0f * style.WindowPadding.x);
    push_caption_font(px);
    const CaptionLines lines = caption_lines(words, wrap_w);
    float text_h = words.text.empty() ? 0.0f : ImGui::CalcTextSize(lines.text.c_str()).y;
    if (!words.note.empty())
        text_h +=
            ImGui::CalcTextSize(lines.note.c_str()).y + (words.text.empty() ? 0.0f : style.ItemSpacing.y);
    const float heading_h = ImGui::CalcTextSize(words.heading.c_str(), nullptr, false, wrap_w).y;
    pop_caption_font();
    return heading_h + style.ItemSpacing.y * 2.0f + text_h + style.WindowPadding.y * 2.0f + 2.0f;
}

// The caption in its place (a band at the bottom or a column on the right), in the caption's font at px.
void presenter_caption(const CaptionWords& words, const LayoutRect& place, float px)
{
    ImGui::SetNextWindowPos(ImVec2(place.x, place.y));
    ImGui::SetNextWindowSize(ImVec2(place.w, place.h));
    if (ImGui::Begin("##presenter_caption", nullptr, kFixed))
    {
        push_caption_font(px);
        const float wrap_w = std::max(1.0f, place.w - 2.0f * ImGui::GetStyle().WindowPadding.x);
        const CaptionLines lines = caption_lines(words, wrap_w);
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap_w);
        ImGui::PushStyleColor(ImGuiCol_Text, accent());
        ImGui::TextUnformatted(words.heading.c_str());
        ImGui::PopStyleColor();
        if (!words.text.empty())
            ImGui::TextUnformatted(lines.text.c_str());
        if (!words.note.empty())
        {
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
            ImGui::TextUnformatted(lines.note.c_str());
            ImGui::PopStyleColor();
        }
        ImGui::PopTextWrapPos();
        pop_caption_font();
    }
    ImGui::End();
}

// Outside a lesson: the panel keys 1, 3 and 4 chose (key 2, the heads, is a view of maps).
void session_view(AppState& state)
{
    switch (state.presenter_view)
    {
    case PresenterView::Inspector:
        draw_inspector_panel(state);
        break;
    case PresenterView::Comparisons:
        state.ensure_comparisons();
        draw_comparisons_panel(state);
        break;
    case PresenterView::Heads:
    case PresenterView::Pipeline:
    case PresenterView::Count:
        draw_pipeline_panel(state);
        break;
    case PresenterView::Training:
        break; // drawn before any trace is needed (presenter_view)
    }
}

// The view in its place: the step's maps (stages, heads or a comparison), a panel, or the pipeline.
void presenter_view(AppState& state, const LessonStep* step, const std::optional<MapView>& maps,
                    const LayoutRect& place)
{
    ImGui::SetNextWindowPos(ImVec2(place.x, place.y));
    ImGui::SetNextWindowSize(ImVec2(place.w, std::max(50.0f, place.h)));
    // A view scrolled down (text enlarged with Ctrl+=) shows the next step or group from its top.
    const Lesson* lesson = current_lesson(state);
    const AppState::PresenterShown showing{lesson, state.lesson.step, static_cast<int>(state.presenter_view),
                                           state.presenter_stage_group,
                                           static_cast<int>(state.presenter_comparison)};
    if (!(showing == state.presenter_shown))
    {
        ImGui::SetNextWindowScroll(ImVec2(0.0f, 0.0f));
        state.presenter_shown = showing;
    }
    float bg[4];
    presenter_view_background(!state.prefs.presenter_light, bg);
    ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(bg[0], bg[1], bg[2], bg[3]));
    // A grid of maps gets scroll bars when it outgrows the view (text enlarged with Ctrl+=), and so do the
    // Inspector's chain (a long sentence's row of weights) and the Training view after Ctrl+= (its maps keep
    // their cells); the other panels keep their own layout.
    const bool scrolls =
        (step == nullptr && state.presenter_view == PresenterView::Inspector) ||
        (presenter_shows_training(state) && presenter_zoom(state, ImGui::GetIO().DisplaySize.y) > 1.0f);
    const ImGuiWindowFlags flags =
        maps      ? (kFixed & ~ImGuiWindowFlags_NoScrollbar) | ImGuiWindowFlags_HorizontalScrollbar
        : scrolls ? kFixed & ~ImGuiWindowFlags_NoScrollbar
                  : kFixed;
    if (ImGui::Begin("##presenter_view", nullptr, flags))
    {
        // Shift+↓ / Shift+↑ asked for pages: nine tenths of the view each, so a line stays in sight.
        if (state.presenter_scroll_pages != 0)
        {
            // (ImGui keeps the scroll within the content, measured when the frame ends.)
            const float page = ImGui::GetWindowHeight() * 0.9f;
            ImGui::SetScrollY(std::max(0.0f, ImGui::GetScrollY() +
                                                 page * static_cast<float>(state.presenter_scroll_pages)));
            state.presenter_scroll_pages = 0;
        }
        const StepMaps shown = step_maps(state, step);
        if (presenter_shows_training(state))
            draw_training_presenter_view(state);
        else if (!state.has_trace())
            error_text(state.status.message());
        else if (maps)
            draw_map_view(state, *maps);
        else if (shown.kind == StepMapsKind::Comparisons)
        {
            state.ensure_comparisons();
            draw_comparisons_panel(state); // every comparison at once: the panel's own sections
        }
        else if (step != nullptr)
            draw_pipeline_panel(state);
        else
            session_view(state);
    }
    ImGui::End();
    ImGui::PopStyleColor();
}

} // namespace

void draw_presenter(AppState& state)
{
    const LessonStep* step = current_step(state);
    float title_h = presenter_title(state, current_lesson(state));
    title_h += presenter_edit_bar(state, title_h);
    // The caption at a 24th of the screen, under the maps or beside them, whichever leaves them the larger
    // cells (choose_caption); the Training view's plots and maps take the rest of the height.
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const CaptionWords words = caption_words(state, step);
    std::optional<MapView> maps = map_view(state, step);
    std::function<float(float, float)> cell;
    if (maps)
        cell = [&](float w, float h) { return map_view_cell(state, *maps, w, h); };
    const ImFont* font = caption_font();
    const float caption_px = font != nullptr ? font->FontSize : ImGui::GetFontSize();
    const float zoom = presenter_zoom(state, display.y);
    if (maps && zoom > 1.0f)
    {
        // Where the caption went at 100% text (every size zoom times smaller): the view the maps keep their
        // cells from.
        const CaptionChoice at_100 = choose_caption(
            display.x, display.y - title_h / zoom, ImGui::GetFontSize() / zoom, caption_px / zoom,
            [&](float w, float size) { return caption_height(words, w, size); },
            [&](float w, float h) { return map_view_cell_at_100(state, *maps, w, h, zoom); });
        maps->base_view = ImVec2(at_100.placement.view.w, at_100.placement.view.h);
    }
    const auto choose = [&](float px)
    {
        return choose_caption(
            display.x, display.y - title_h, ImGui::GetFontSize(), px,
            [&](float w, float size) { return caption_height(words, w, size); }, cell);
    };
    CaptionChoice chosen = choose(caption_px);
    // Enlarged with Ctrl+=, a caption at its full size may fit only in a band that hides part of the maps
    // under it (they keep their cells and outgrow the view): at the text's size (still larger than the
    // caption at 100%) it may fit beside them instead, and takes that place when it hides less of them.
    if (maps && zoom > 1.0f && caption_px > ImGui::GetFontSize() &&
        map_view_hidden(state, *maps, chosen.placement.view.w, chosen.placement.view.h))
    {
        const CaptionChoice smaller = choose(ImGui::GetFontSize());
        if (smaller.placement.cell > chosen.placement.cell + 1.0f)
            chosen = smaller;
    }
    state.presenter_caption_px = chosen.font_px;
    state.presenter_caption_beside = chosen.placement.side == CaptionSide::Right;
    CaptionPlacement placed = chosen.placement;
    placed.caption.y += title_h;
    placed.view.y += title_h;
    presenter_caption(words, placed.caption, chosen.font_px);
    presenter_view(state, step, maps, placed.view);
}

} // namespace attnlab
