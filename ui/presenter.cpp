// Presenter mode: for a lecture, one large view (the step's highlighted stages, or its view) and the step's
// text as a caption, without the editing chrome.
#include "ui/presenter.h"

#include "ui/heatmap.h"
#include "ui/lessons.h"
#include "ui/panels/panels.h"
#include "ui/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

namespace attnlab
{

namespace
{

constexpr ImGuiWindowFlags kFixed = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;

ImVec4 accent()
{
    return ImGui::GetStyle().Colors[ImGuiCol_PlotHistogram];
}

// Space a heatmap needs besides its cells: row labels and colour bar across, column labels and the colour
// bar's bottom label down (an estimate of what draw_heatmap lays out).
struct HeatmapExtra
{
    float w = 0.0f, h = 0.0f;
};

HeatmapExtra heatmap_extra(const MatrixView& view, bool labels)
{
    const float fs = ImGui::GetFontSize();
    HeatmapExtra e;
    float row_w = 0.0f, col_h = labels ? fs + 4.0f : 0.0f;
    for (int r = 0; labels && r < static_cast<int>(view.m->rows()); ++r)
        row_w = std::max(row_w, ImGui::CalcTextSize(row_label(view, r).substr(0, 10).c_str()).x);
    if (labels && view.col_tokens != nullptr)
    {
        col_h = 0.0f;
        for (int c = 0; c < static_cast<int>(view.m->cols()); ++c)
            col_h = std::max(col_h, ImGui::CalcTextSize(col_label(view, c).substr(0, 10).c_str()).x);
        col_h += 6.0f;
    }
    const float bar =
        fs * 0.6f + std::max(10.0f, fs * 0.8f) + ImGui::CalcTextSize("-0.00e+00").x * 0.75f + 8.0f;
    e.w = row_w + 6.0f + bar + 8.0f;
    e.h = col_h + fs;
    return e;
}

// The step's stages, as large as the area allows: side by side with square cells when they are about square
// or tall (Q, K, V; scores), one above the other and as wide as the window when they are wide (X, concat,
// residual: T×d_model). Side by side, maps with the first one's rows and numbered columns leave out their
// labels, which would only repeat.
void highlighted_stages(AppState& state, const LessonStep& step)
{
    if (!state.status.is_ok())
        error_text(state.status.message());
    std::vector<MatrixRef> refs;
    std::vector<MatrixView> views;
    bool wide = false;
    for (Stage stage : step.stages)
    {
        MatrixRef ref;
        ref.source = step.cross ? MatrixSource::Cross : MatrixSource::Layer;
        ref.stage = stage;
        ref.layer = state.sel.layer;
        ref.b = state.sel.b;
        ref.head = state.sel.head;
        MatrixView view = resolve_matrix(state, ref);
        if (view.m == nullptr)
            continue;
        if (view.m->cols() > view.m->rows() * 3 / 2)
            wide = true;
        refs.push_back(ref);
        views.push_back(std::move(view));
    }
    const int n = static_cast<int>(refs.size());
    if (n == 0)
        return;
    std::vector<bool> labels(static_cast<std::size_t>(n), true);
    for (std::size_t i = 1; !wide && i < views.size(); ++i)
        labels[i] = !(views[i].row_tokens == views[0].row_tokens && views[i].col_tokens == nullptr);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const ImGuiStyle& style = ImGui::GetStyle();
    const float fs = ImGui::GetFontSize();
    const float header_h = ImGui::GetTextLineHeightWithSpacing() * (wide ? 1.0f : 2.0f) + style.ItemSpacing.y;
    const float gap = fs * 1.5f;
    const float slot_w = wide ? avail.x : (avail.x - gap * static_cast<float>(n - 1)) / static_cast<float>(n);
    const float slot_h =
        wide ? (avail.y - style.ItemSpacing.y * static_cast<float>(n)) / static_cast<float>(n) : avail.y;
    // One cell size for all, so the maps compare at a glance.
    // Wide maps may have flat cells (cell_h < cell), so they use the window's width.
    float cell = fs * 6.0f, cell_h = fs * 6.0f;
    float labels_w = 0.0f;
    for (int i = 0; i < n; ++i)
        labels_w += heatmap_extra(views[static_cast<std::size_t>(i)], labels[static_cast<std::size_t>(i)]).w;
    for (int i = 0; i < n; ++i)
    {
        const MatrixView& view = views[static_cast<std::size_t>(i)];
        const HeatmapExtra e = heatmap_extra(view, labels[static_cast<std::size_t>(i)]);
        // Side by side, the width left after every map's labels is shared in proportion to the columns.
        int all_cols = 0;
        for (const MatrixView& v : views)
            all_cols += static_cast<int>(v.m->cols());
        const float w_cell =
            wide ? (slot_w - e.w) / static_cast<float>(view.m->cols())
                 : (avail.x - gap * static_cast<float>(n - 1) - labels_w) / static_cast<float>(all_cols);
        cell = std::min(cell, w_cell);
        cell_h = std::min(cell_h, (slot_h - header_h - e.h) / static_cast<float>(view.m->rows()));
    }
    cell = std::max(cell, 4.0f);
    cell_h = std::max(std::min(wide ? cell : cell_h, cell_h), 2.0f);
    if (!wide)
    {
        cell = std::min(cell, cell_h);
        float total = gap * static_cast<float>(n - 1) + labels_w;
        for (const MatrixView& view : views)
            total += cell * static_cast<float>(view.m->cols());
        ImGui::SetCursorPosX(ImGui::GetCursorPosX() + std::max(0.0f, (avail.x - total) * 0.5f));
    }
    for (int i = 0; i < n; ++i)
    {
        const MatrixView& view = views[static_cast<std::size_t>(i)];
        const HeatmapExtra e = heatmap_extra(view, labels[static_cast<std::size_t>(i)]);
        const float used_w = cell * static_cast<float>(view.m->cols()) + e.w;
        if (i > 0 && !wide)
            ImGui::SameLine(0.0f, gap);
        else if (wide)
            ImGui::SetCursorPosX(ImGui::GetCursorPosX() + std::max(0.0f, (slot_w - used_w) * 0.5f));
        ImGui::PushID(i);
        ImGui::BeginGroup();
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + std::max(used_w, slot_w * 0.5f));
        ImGui::PushStyleColor(ImGuiCol_Text, accent());
        ImGui::TextUnformatted(view.title.c_str());
        ImGui::PopStyleColor();
        ImGui::SameLine(0.0f, fs);
        ImGui::TextDisabled("%s", view.shape.c_str());
        if (wide)
            ImGui::SameLine(0.0f, fs);
        const MatrixRef& ref = refs[static_cast<std::size_t>(i)];
        if (ref.stage == Stage::weights && state.mean_entropy(ref) >= 0.0f)
            ImGui::TextDisabled("%s    H = %.2f nats", view.equation.c_str(), state.mean_entropy(ref));
        else
            ImGui::TextDisabled("%s", view.equation.c_str());
        ImGui::PopTextWrapPos();
        HeatmapOptions options;
        options.width = used_w;
        options.max_cell_px = cell;
        options.max_height = cell_h * static_cast<float>(view.m->rows());
        options.labels = labels[static_cast<std::size_t>(i)];
        options.frame_color = lesson_highlight_color();
        options.frame_thickness = 3.0f;
        draw_heatmap(state, refs[static_cast<std::size_t>(i)], options);
        ImGui::EndGroup();
        ImGui::PopID();
    }
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

void draw_presenter(AppState& state)
{
    const ImGuiIO& io = ImGui::GetIO();
    const ImGuiStyle& style = ImGui::GetStyle();
    const Lesson* lesson = current_lesson(state);
    const LessonStep* step = current_step(state);
    const float W = io.DisplaySize.x;
    const float H = io.DisplaySize.y;
    const float pad = style.WindowPadding.x;

    // [SECTION] Title line: the lesson on the left, the counter and the keys on the right.
    const float title_h = ImGui::GetTextLineHeight() + style.WindowPadding.y * 2.0f;
    ImGui::SetNextWindowPos(ImVec2(0.0f, 0.0f));
    ImGui::SetNextWindowSize(ImVec2(W, title_h));
    if (ImGui::Begin("##presenter_title", nullptr, kFixed))
    {
        const std::string right = lesson != nullptr ? step_counter(state) + "     ← →   F5" : "F5: leave";
        ImGui::PushStyleColor(ImGuiCol_Text, accent());
        ImGui::TextUnformatted(lesson != nullptr ? lesson->title.c_str() : "Attention Lab");
        ImGui::PopStyleColor();
        ImGui::SameLine(W - pad - ImGui::CalcTextSize(right.c_str()).x);
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

    // [SECTION] The view: the step's stages, or its panel, or the pipeline.
    ImGui::SetNextWindowPos(ImVec2(0.0f, title_h));
    ImGui::SetNextWindowSize(ImVec2(W, std::max(50.0f, H - title_h - caption_h)));
    ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.04f, 0.04f, 0.05f, 1.0f));
    if (ImGui::Begin("##presenter_view", nullptr, kFixed))
    {
        if (!state.has_trace())
            error_text(state.status.message());
        else if (step != nullptr && step->view == LessonView::Heads)
            draw_heads_panel(state);
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
