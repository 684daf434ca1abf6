// Presenter mode: for a lecture, one large view (the step's highlighted stages, its heads or its comparison)
// and the step's text as a caption, without the editing chrome; its own text size and theme.
#include "ui/presenter.h"

#include "ui/heatmap.h"
#include "ui/heatmap_math.h"
#include "ui/lessons.h"
#include "ui/panels/panels.h"
#include "ui/presenter_layout.h"
#include "ui/theme.h"
#include "ui/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace attnlab
{

namespace
{

constexpr ImGuiWindowFlags kFixed = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
constexpr double kNoteSeconds = 2.0; // how long the title line shows a new text size

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

// A header above a map: the title (in its colour) and parts such as "T×T = 6×6" and "H = 1.11 nats", laid
// out in order on as many lines as the map's width needs, never breaking inside a part. A part wider than the
// map (a long equation) wraps on its own lines.
struct Header
{
    std::string title;
    ImVec4 title_color;
    std::vector<std::string> parts;
};

struct HeaderLines
{
    std::vector<int> line;          // each piece's line (the title is piece 0)
    int lines = 0;                  // lines in all, wrapped pieces counted whole
    std::vector<int> wrapped_lines; // > 1: the piece wraps over that many lines
};

std::vector<std::string> header_pieces(const Header& header)
{
    std::vector<std::string> pieces = {header.title};
    pieces.insert(pieces.end(), header.parts.begin(), header.parts.end());
    return pieces;
}

HeaderLines header_lines(const Header& header, float max_w)
{
    const std::vector<std::string> pieces = header_pieces(header);
    const float space = ImGui::CalcTextSize("   ").x;
    std::vector<float> widths;
    for (const std::string& p : pieces)
        widths.push_back(ImGui::CalcTextSize(p.c_str()).x);
    HeaderLines out;
    out.line = flow_parts(widths, space, max_w);
    out.wrapped_lines.assign(pieces.size(), 1);
    // A piece wider than the map is alone on its line(s): count how many it wraps over, and move the pieces
    // after it down.
    int shift = 0;
    for (std::size_t i = 0; i < pieces.size(); ++i)
    {
        out.line[i] += shift;
        if (widths[i] > max_w)
        {
            const float h = ImGui::CalcTextSize(pieces[i].c_str(), nullptr, false, max_w).y;
            out.wrapped_lines[i] = std::max(1, static_cast<int>(std::lround(h / ImGui::GetTextLineHeight())));
            shift += out.wrapped_lines[i] - 1;
        }
        out.lines = std::max(out.lines, out.line[i] + out.wrapped_lines[i]);
    }
    return out;
}

void draw_header(const Header& header, ImVec2 pos, float max_w)
{
    const std::vector<std::string> pieces = header_pieces(header);
    const HeaderLines lines = header_lines(header, max_w);
    const float line_h = ImGui::GetTextLineHeightWithSpacing();
    const float space = ImGui::CalcTextSize("   ").x;
    float x = pos.x;
    int current = -1;
    for (std::size_t i = 0; i < pieces.size(); ++i)
    {
        if (lines.line[i] != current)
        {
            current = lines.line[i];
            x = pos.x;
        }
        ImGui::SetCursorScreenPos(ImVec2(x, pos.y + line_h * static_cast<float>(current)));
        ImGui::PushStyleColor(ImGuiCol_Text,
                              i == 0 ? header.title_color : ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        if (lines.wrapped_lines[i] > 1)
        {
            ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + max_w);
            ImGui::TextUnformatted(pieces[i].c_str());
            ImGui::PopTextWrapPos();
        }
        else
            ImGui::TextUnformatted(pieces[i].c_str());
        ImGui::PopStyleColor();
        x += ImGui::CalcTextSize(pieces[i].c_str()).x + space;
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

    float widget_w(std::size_t i) const
    {
        const MapPlacement& p = grid.maps[i];
        return (p.row_labels ? boxes[i].left : 0.0f) + p.image.w + boxes[i].right;
    }
    // A header may use the spare room up to the next column (half a share after the last one).
    float header_w(std::size_t i) const
    {
        const bool last_column =
            static_cast<int>(i) % grid.columns == grid.columns - 1 || i + 1 == boxes.size();
        return widget_w(i) + grid.spare * (last_column ? 0.5f : 1.0f);
    }
};

GridPlan plan_map_grid(AppState& state, const std::vector<GridMap>& maps, ImVec2 avail)
{
    const float fs = ImGui::GetFontSize();
    const float gap = fs * 1.2f;
    const float line_h = ImGui::GetTextLineHeightWithSpacing();
    GridPlan plan;
    std::vector<const void*> seen;
    for (std::size_t k = 0; k < maps.size(); ++k)
    {
        const GridMap& map = maps[k];
        const MatrixView view = resolve_matrix(state, map.ref);
        if (view.m == nullptr)
            continue;
        plan.shown.push_back(k);
        const HeatmapMargins m = heatmap_margins(view, map.options);
        MapBox box;
        box.rows = static_cast<int>(view.m->rows());
        box.cols = static_cast<int>(view.m->cols());
        box.left = m.left;
        box.right = m.right;
        box.top = line_h + 4.0f;
        box.col_labels = m.col_labels;
        box.below = m.below + 4.0f;
        box.row_axis = map.options.labels ? axis_id(view.row_tokens, view.m->rows(), seen) : -1;
        box.col_axis = map.options.labels ? axis_id(view.col_tokens, view.m->cols(), seen) : -1;
        plan.boxes.push_back(box);
    }
    // The headers' height depends on the maps' widths and the widths on the headers' height: a first guess
    // of one line each, then the lines the laid-out widths need, until they agree. Headers only grow from
    // round to round (taller headers, narrower maps, more lines), so this settles in a few rounds.
    const float max_cell = fs * 6.0f;
    for (int round = 0; round < 5; ++round)
    {
        plan.grid = layout_maps(plan.boxes, avail.x, avail.y, gap, max_cell);
        bool changed = false;
        for (std::size_t i = 0; i < plan.boxes.size(); ++i)
        {
            const int lines = header_lines(maps[plan.shown[i]].header, plan.header_w(i)).lines;
            const float top = line_h * static_cast<float>(lines) + 4.0f;
            if (top > plan.boxes[i].top)
            {
                plan.boxes[i].top = top;
                changed = true;
            }
        }
        if (!changed)
            return plan;
    }
    plan.grid = layout_maps(plan.boxes, avail.x, avail.y, gap, max_cell); // with the last headers
    return plan;
}

// Lays the maps out over the rest of the window (square cells, the grid shape with the largest cells) and
// draws each with its header. Returns what each map reported (hover, click), in order.
std::vector<HeatmapResult> draw_map_grid(AppState& state, const std::vector<GridMap>& maps)
{
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const GridPlan plan = plan_map_grid(state, maps, avail);
    std::vector<HeatmapResult> results(maps.size());
    for (std::size_t i = 0; i < plan.boxes.size(); ++i)
    {
        const GridMap& map = maps[plan.shown[i]];
        const MapPlacement& p = plan.grid.maps[i];
        const float left = p.row_labels ? plan.boxes[i].left : 0.0f;
        const ImVec2 widget(origin.x + p.image.x - left, origin.y + p.image.y);
        ImGui::PushID(static_cast<int>(i));
        // The headers of a grid row start on one line (their maps' images are aligned below the tallest).
        float row_top = 0.0f;
        for (std::size_t k = 0; k < plan.boxes.size(); ++k)
            if (plan.grid.maps[k].image.y == p.image.y)
                row_top = std::max(row_top, plan.boxes[k].top);
        draw_header(map.header, ImVec2(widget.x, widget.y - row_top), plan.header_w(i));
        HeatmapOptions options = map.options;
        options.row_labels = p.row_labels;
        options.col_labels = options.col_labels && p.col_labels;
        options.width = plan.widget_w(i);
        options.max_cell_px = std::max(1.0f, plan.grid.cell);
        options.max_height = std::max(1.0f, p.image.h);
        ImGui::SetCursorScreenPos(widget);
        results[plan.shown[i]] = draw_heatmap(state, map.ref, options);
        ImGui::PopID();
    }
    ImGui::SetCursorScreenPos(origin);
    ImGui::Dummy(ImVec2(avail.x, std::min(avail.y, plan.grid.height)));
    return results;
}

// "H = 1.11 nats" for an attention map (nothing for other matrices).
std::string entropy_part(AppState& state, const MatrixRef& ref, bool unit)
{
    const float H = state.mean_entropy(ref);
    if (H < 0.0f)
        return std::string();
    char text[32];
    std::snprintf(text, sizeof text, unit ? "H = %.2f nats" : "H = %.2f", static_cast<double>(H));
    return text;
}

Header stage_header(AppState& state, const MatrixRef& ref, const MatrixView& view)
{
    Header header{view.title, accent(), {view.shape, view.equation}};
    const bool weights =
        (ref.source != MatrixSource::Comparison && ref.stage == Stage::weights) ||
        (ref.source == MatrixSource::Comparison && ref.comparison == ComparisonMatrix::single_weights);
    if (weights)
        header.parts.push_back(entropy_part(state, ref, true));
    return header;
}

// [SECTION] The step's stages

void highlighted_stages(AppState& state, const LessonStep& step)
{
    if (!state.status.is_ok())
        error_text(state.status.message());
    std::vector<GridMap> maps;
    for (Stage stage : step.stages)
    {
        GridMap map;
        map.ref.source = step.cross ? MatrixSource::Cross : MatrixSource::Layer;
        map.ref.stage = stage;
        map.ref.layer = state.sel.layer;
        map.ref.b = state.sel.b;
        map.ref.head = state.sel.head;
        const MatrixView view = resolve_matrix(state, map.ref);
        if (view.m == nullptr)
            continue;
        map.header = stage_header(state, map.ref, view);
        map.options.frame_color = frame_color(state);
        map.options.frame_thickness = 3.0f;
        maps.push_back(std::move(map));
    }
    draw_map_grid(state, maps);
}

// [SECTION] Heads: every head's map, with query and key labels and what the colours and H mean in words

// A flow of legend items: the next one on the line of the previous item when it fits, else on the next.
void legend_item(float w, bool first)
{
    const float space = ImGui::CalcTextSize("   ").x;
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (!first && ImGui::GetItemRectMax().x + space + w <= right)
        ImGui::SameLine(0.0f, space);
}

void legend_text(const std::string& text, bool first)
{
    legend_item(ImGui::CalcTextSize(text.c_str()).x, first);
    ImGui::TextUnformatted(text.c_str());
}

void heads_legend(AppState& state)
{
    const Trace& t = state.trace();
    const int T = t.T();
    const float fs = ImGui::GetFontSize();
    char what[96];
    std::snprintf(what, sizeof what, "weights A_h of layer %d, sentence b = %d, T = %d", state.sel.layer + 1,
                  state.sel.b, T);
    ImGui::PushStyleColor(ImGuiCol_Text, accent());
    legend_text(what, true);
    ImGui::PopStyleColor();
    // The colour scale, drawn: one strip for all heads.
    const bool stretch = state.prefs.stretch_weights;
    const std::string lo = "weight 0", hi = stretch ? "largest (each map)" : "1";
    const float bar_w = fs * 6.0f;
    const float space = ImGui::CalcTextSize(" ").x;
    legend_item(ImGui::CalcTextSize(lo.c_str()).x + bar_w + ImGui::CalcTextSize(hi.c_str()).x + 4.0f * space,
                false);
    ImGui::TextUnformatted(lo.c_str());
    ImGui::SameLine(0.0f, space);
    {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        ImDrawList* dl = ImGui::GetWindowDrawList();
        const auto& table = colormap_table(Colormap::Sequential);
        for (int s = 0; s < 32; ++s)
        {
            const ImU32 a = table[static_cast<std::size_t>(s * 255 / 31)];
            const ImU32 b = table[static_cast<std::size_t>(std::min(255, (s + 1) * 255 / 31))];
            dl->AddRectFilledMultiColor(
                ImVec2(p.x + bar_w * static_cast<float>(s) / 32.0f, p.y + 3.0f),
                ImVec2(p.x + bar_w * static_cast<float>(s + 1) / 32.0f, p.y + fs - 3.0f), a, b, b, a);
        }
        ImGui::Dummy(ImVec2(bar_w, fs));
    }
    ImGui::SameLine(0.0f, space);
    ImGui::TextUnformatted(hi.c_str());
    if (t.config.mask == MaskKind::Causal)
        legend_text("hatched: masked (a query never sees later keys)", false);
    char entropy[128];
    std::snprintf(entropy, sizeof entropy, "H: mean row entropy, 0 = one key … %.2f = all keys equal",
                  std::log(static_cast<double>(std::max(1, T))));
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    legend_text(entropy, false);
    if (!state.engine.has_imported_weights())
    {
        char seeded[96];
        std::snprintf(seeded, sizeof seeded, "untrained (random, seed %llu)",
                      static_cast<unsigned long long>(t.config.seed));
        legend_text(seeded, false);
    }
    ImGui::PopStyleColor();
    ImGui::Dummy(ImVec2(1.0f, fs * 0.3f));
}

void presenter_heads(AppState& state)
{
    heads_legend(state);
    const int h = state.heads();
    std::vector<GridMap> maps;
    for (int j = 0; j < h; ++j)
    {
        GridMap map;
        map.ref.source = MatrixSource::Layer;
        map.ref.stage = Stage::weights;
        map.ref.layer = state.sel.layer;
        map.ref.b = state.sel.b;
        map.ref.head = j;
        map.header.title = "head " + std::to_string(j + 1);
        map.header.title_color = head_text_color(j);
        map.header.parts = {entropy_part(state, map.ref, false)};
        map.options.colorbar = false;
        map.options.frame_color = head_color(j);
        map.options.frame_thickness = j == state.sel.head ? 4.0f : 2.0f;
        map.options.highlight_row = state.heads_hover_row;
        map.options.pin_on_click = false;
        maps.push_back(std::move(map));
    }
    // Hovering a row lights the same query in every head; a click selects the head. Both are for the
    // lecturer's pointer: what the audience needs is written on the maps.
    const std::vector<HeatmapResult> results = draw_map_grid(state, maps);
    for (int j = 0; j < static_cast<int>(results.size()); ++j)
    {
        const HeatmapResult& r = results[static_cast<std::size_t>(j)];
        if (r.hovered)
            state.heads_hover_row_next = r.row;
        if (r.clicked)
            state.sel.head = j;
    }
}

// [SECTION] Single-head vs multi-head

void presenter_single_head(AppState& state)
{
    state.ensure_comparisons();
    const float diff = state.comparisons.single_vs_multi_max_diff;
    const std::string claim = state.heads() == 1
                                  ? "h = 1: the one head is single-head attention; the outputs differ by " +
                                        format_value_long(diff) + " (rounding only)"
                                  : "One map against h maps: the outputs differ by up to " +
                                        format_value_long(diff) + " (not rounding)";
    ImGui::PushStyleColor(ImGuiCol_Text, accent());
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x);
    ImGui::TextUnformatted(claim.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
    ImGui::Dummy(ImVec2(1.0f, ImGui::GetFontSize() * 0.3f));
    std::vector<GridMap> maps(4);
    for (GridMap& map : maps)
    {
        map.ref.layer = state.sel.layer;
        map.ref.b = state.sel.b;
        map.ref.head = state.sel.head;
    }
    maps[0].ref.source = MatrixSource::Comparison;
    maps[0].ref.comparison = ComparisonMatrix::single_weights;
    maps[1].ref.stage = Stage::weights;
    maps[2].ref.source = MatrixSource::Comparison;
    maps[2].ref.comparison = ComparisonMatrix::single_out;
    maps[3].ref.stage = Stage::mha;
    maps[3].ref.head = 0;
    for (GridMap& map : maps)
        map.header = stage_header(state, map.ref, resolve_matrix(state, map.ref));
    // The two T×T maps are the point (one map against one of h); the outputs join them when that leaves the
    // maps at least 60% of their size alone (on a 16:9 screen they would shrink them to a third, so the
    // claim above states their difference instead).
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const std::vector<GridMap> pair(maps.begin(), maps.begin() + 2);
    const float pair_cell = plan_map_grid(state, pair, avail).grid.cell;
    const float all_cell = plan_map_grid(state, maps, avail).grid.cell;
    draw_map_grid(state, all_cell >= 0.6f * pair_cell ? maps : pair);
}

std::string session_caption(const AppState& state)
{
    std::string text = state.session.text;
    std::replace(text.begin(), text.end(), '\n', ' ');
    const Config& c = state.session.config;
    return "“" + text + "”   d_model = " + std::to_string(c.d_model) + ", h = " + std::to_string(c.n_heads) +
           ", mask: " + to_string(c.mask);
}

} // namespace

// [SECTION] Text size and theme

void step_text_size(AppState& state, int step)
{
    char text[96];
    if (state.presenter)
    {
        state.prefs.presenter_scale = step_presenter_scale(state.prefs.presenter_scale, step);
        std::snprintf(text, sizeof text, "presenter text %d%%  (Ctrl+0: 100%%)",
                      static_cast<int>(std::lround(state.prefs.presenter_scale * 100.0f)));
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

// [SECTION] The frame

void draw_presenter(AppState& state)
{
    const ImGuiIO& io = ImGui::GetIO();
    const ImGuiStyle& style = ImGui::GetStyle();
    const Lesson* lesson = current_lesson(state);
    const LessonStep* step = current_step(state);
    const float W = io.DisplaySize.x;
    const float H = io.DisplaySize.y;
    const float pad = style.WindowPadding.x;

    // [SECTION] Title line: the lesson on the left, the counter and the keys on the right, a new text size or
    // theme in the middle for a moment.
    const float title_h = ImGui::GetTextLineHeight() + style.WindowPadding.y * 2.0f;
    ImGui::SetNextWindowPos(ImVec2(0.0f, 0.0f));
    ImGui::SetNextWindowSize(ImVec2(W, title_h));
    if (ImGui::Begin("##presenter_title", nullptr, kFixed))
    {
        const std::string right = lesson != nullptr ? step_counter(state) + "     ← →   F5" : "F5: leave";
        const bool show_note = !state.presenter_note.empty() && ImGui::GetTime() < state.presenter_note_until;
        const float right_x = W - pad - ImGui::CalcTextSize(right.c_str()).x;
        const float note_w = show_note ? ImGui::CalcTextSize(state.presenter_note.c_str()).x : 0.0f;
        ImGui::PushStyleColor(ImGuiCol_Text, accent());
        // The lesson's title gives way to the note where they would meet.
        const std::string title = lesson != nullptr ? lesson->title : std::string("Attention Lab");
        const float title_room = (show_note ? (W - note_w) * 0.5f : right_x) - pad - ImGui::GetFontSize();
        std::string shown = title;
        for (int n = utf8_length(title); n > 4 && ImGui::CalcTextSize(shown.c_str()).x > title_room; --n)
            shown = truncate_utf8(title, n);
        ImGui::TextUnformatted(shown.c_str());
        ImGui::PopStyleColor();
        if (show_note)
        {
            ImGui::SameLine((W - note_w) * 0.5f);
            ImGui::TextUnformatted(state.presenter_note.c_str());
        }
        ImGui::SameLine(right_x);
        ImGui::TextUnformatted(right.c_str());
    }
    ImGui::End();

    // [SECTION] Caption: the step's title and text, wrapped to the window's width.
    const std::string heading = step != nullptr ? step->title : std::string("Presenter mode");
    const std::string text = step != nullptr ? step->text : session_caption(state);
    const float wrap_w = W - 2.0f * pad;
    const float text_h = ImGui::CalcTextSize(text.c_str(), nullptr, false, wrap_w).y;
    const float caption_h = std::min(H * 0.45f, ImGui::GetTextLineHeightWithSpacing() + style.ItemSpacing.y +
                                                    text_h + style.WindowPadding.y * 2.0f + 2.0f);
    ImGui::SetNextWindowPos(ImVec2(0.0f, H - caption_h));
    ImGui::SetNextWindowSize(ImVec2(W, caption_h));
    if (ImGui::Begin("##presenter_caption", nullptr, kFixed))
    {
        ImGui::PushStyleColor(ImGuiCol_Text, accent());
        ImGui::TextUnformatted(heading.c_str());
        ImGui::PopStyleColor();
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap_w);
        ImGui::TextUnformatted(text.c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::End();

    // [SECTION] The view: the step's stages, heads, comparison or panel, or the pipeline.
    ImGui::SetNextWindowPos(ImVec2(0.0f, title_h));
    ImGui::SetNextWindowSize(ImVec2(W, std::max(50.0f, H - title_h - caption_h)));
    float bg[4];
    presenter_view_background(!state.prefs.presenter_light, bg);
    ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(bg[0], bg[1], bg[2], bg[3]));
    if (ImGui::Begin("##presenter_view", nullptr, kFixed))
    {
        if (step != nullptr && step->view == LessonView::Training)
            draw_training_panel(state);
        else if (!state.has_trace())
            error_text(state.status.message());
        else if (step != nullptr && step->view == LessonView::Heads)
            presenter_heads(state);
        else if (step != nullptr && step->view == LessonView::Comparisons &&
                 step->comparison == ComparisonSection::SingleHead)
            presenter_single_head(state);
        else if (step != nullptr && step->view == LessonView::Comparisons)
            draw_comparisons_panel(state);
        else if (step != nullptr && !step->stages.empty())
            highlighted_stages(state, *step);
        else
            draw_pipeline_panel(state);
    }
    ImGui::End();
    ImGui::PopStyleColor();
}

} // namespace attnlab
