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

// The step's stages, as large as the area allows: side by side when they are about square or tall
// (Q, K, V; scores), one above the other when they are wide (X, concat, residual: T×d_model).
void highlighted_stages(AppState& state, const LessonStep& step)
{
    if (!state.status.is_ok())
        error_text(state.status.message());
    std::vector<MatrixRef> refs;
    bool wide = false;
    for (Stage stage : step.stages)
    {
        MatrixRef ref;
        ref.source = step.cross ? MatrixSource::Cross : MatrixSource::Layer;
        ref.stage = stage;
        ref.layer = state.sel.layer;
        ref.b = state.sel.b;
        ref.head = state.sel.head;
        const MatrixView view = resolve_matrix(state, ref);
        if (view.m != nullptr && view.m->cols() > view.m->rows() * 3 / 2)
            wide = true;
        refs.push_back(ref);
    }
    const int n = static_cast<int>(refs.size());
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const ImGuiStyle& style = ImGui::GetStyle();
    const float fs = ImGui::GetFontSize();
    const float header_h = ImGui::GetTextLineHeightWithSpacing() * 2.0f;
    const float gap = fs * 1.5f;
    const float w = wide ? avail.x : (avail.x - gap * static_cast<float>(n - 1)) / static_cast<float>(n);
    // Column labels under the map take about eight characters of the font.
    const float labels_h = fs * 5.0f;
    const float cell_area_h =
        wide ? (avail.y - static_cast<float>(n) * (header_h + labels_h + style.ItemSpacing.y)) /
                   static_cast<float>(n)
             : avail.y - header_h - labels_h;
    for (int i = 0; i < n; ++i)
    {
        if (i > 0 && !wide)
            ImGui::SameLine(0.0f, gap);
        ImGui::PushID(i);
        ImGui::BeginGroup();
        const MatrixView view = resolve_matrix(state, refs[static_cast<std::size_t>(i)]);
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w);
        ImGui::PushStyleColor(ImGuiCol_Text, accent());
        ImGui::TextUnformatted(view.title.c_str());
        ImGui::PopStyleColor();
        ImGui::SameLine(0.0f, fs);
        ImGui::TextDisabled("%s", view.shape.c_str());
        ImGui::TextDisabled("%s", view.equation.c_str());
        ImGui::PopTextWrapPos();
        HeatmapOptions options;
        options.width = w;
        options.max_cell_px = fs * 6.0f;
        options.max_height = std::max(fs * 3.0f, cell_area_h);
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
