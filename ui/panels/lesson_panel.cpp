// Lesson panel: the lessons (title, summary, broken files with their message) and the stepper of the open
// one: Previous / Next, the counter "3 / 9", the step's title and text beside the pipeline.
#include "ui/model/lesson_export.h"
#include "ui/model/lessons.h"
#include "ui/model/training/training_controller.h"
#include "ui/panels/panels.h"
#include "ui/shell/widgets.h"

#include <imgui.h>

#include <cstdio>

#include <string>

namespace attnlab
{

namespace
{

const char* view_name(LessonView view)
{
    switch (view)
    {
    case LessonView::Heads:
        return "Heads";
    case LessonView::Comparisons:
        return "Comparisons";
    case LessonView::Training:
        return "Training";
    case LessonView::Pipeline:
        break;
    }
    return "Pipeline";
}

// The stages a step highlights, "scores, weights" (with "cross-attention" in front for that block).
std::string stage_list(const LessonStep& step)
{
    std::string s = step.cross ? "cross-attention: " : "";
    for (std::size_t i = 0; i < step.stages.size(); ++i)
        s += (i ? ", " : "") + std::string(stage_info(step.stages[i]).key);
    return s;
}

void stepper(AppState& state, const Lesson& lesson, const LessonStep& step)
{
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_PlotHistogram]);
    text_wrappedf("%s", lesson.title.c_str());
    ImGui::PopStyleColor();

    const int k = state.lesson.step;
    const int n = static_cast<int>(lesson.steps.size());
    ImGui::BeginDisabled(k == 0);
    if (ImGui::Button("← Previous"))
        previous_step(state);
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::Text("%s", step_counter(state).c_str());
    ImGui::SameLine();
    const int wait = next_step_waits_for(state);
    ImGui::BeginDisabled(k + 1 >= n || wait > 0);
    if (ImGui::Button("Next →"))
        next_step(state);
    ImGui::EndDisabled();
    if (wait > 0)
    {
        // Beside Next when it fits, else on a line of its own (at 1280x720 it was cut to "training:").
        char progress[64];
        std::snprintf(progress, sizeof progress, "training: step %d of %d", state.training.view.step, wait);
        same_line_if_fits(ImGui::CalcTextSize(progress).x);
        ImGui::TextDisabled("%s", progress);
    }
    // The lesson's actions under the stepper, where a long step text cannot push them below the fold.
    if (ImGui::SmallButton("Leave the lesson"))
    {
        leave_lesson(state);
        return;
    }
    item_tooltip("Back to your own session, as you left it.");
    same_line_if_fits(button_width("Presenter mode"));
    if (ImGui::SmallButton("Presenter mode"))
    {
        state.presenter = true;
        state.request_font_rebuild = true;
    }
    item_tooltip("Large type and the step's view alone, for a projector (F5 switches it).");
    same_line_if_fits(button_width("Export slides…"));
    if (ImGui::SmallButton("Export slides…"))
        open_lesson_export_dialog(state);
    item_tooltip("Every step of this lesson as a slide: a PNG or SVG per step, or one PDF (Ctrl+Shift+E).");
    ImGui::Separator();

    text_wrappedf("%s", step.title.c_str());
    ImGui::Spacing();
    // The text waits for the run it describes; a note says when it describes settings since changed.
    bool waits = false;
    const std::string note = lesson_caption_note(state, step, &waits);
    if (!waits)
        text_wrappedf("%s", step.text.c_str());
    if (!note.empty())
    {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        text_wrappedf("%s", note.c_str());
        ImGui::PopStyleColor();
    }
    ImGui::Spacing();
    if (!step.stages.empty())
    {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(lesson_highlight_color()));
        text_wrappedf("highlighted: %s", stage_list(step).c_str());
        ImGui::PopStyleColor();
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    text_wrappedf("layer %d, sentence %d, head %d, view: %s", step.layer + 1, step.sentence + 1,
                  step.head + 1, view_name(step.view));
    text_wrappedf("← → Space or Page Up / Down (a clicker): step.  F5: presenter mode.");
    ImGui::PopStyleColor();
}

void lesson_list(AppState& state)
{
    const LessonLibrary& library = state.lesson.library;
    if (library.lessons.empty() && library.errors.empty())
        ImGui::TextDisabled("No lessons found.");
    for (int i = 0; i < static_cast<int>(library.lessons.size()); ++i)
    {
        const Lesson& lesson = library.lessons[static_cast<std::size_t>(i)];
        ImGui::PushID(i);
        const std::string label = lesson.title + "  (" + std::to_string(lesson.steps.size()) + " steps)";
        if (ImGui::Selectable(label.c_str(), i == state.lesson.lesson))
            enter_lesson(state, i, 0);
        if (ImGui::CalcTextSize(label.c_str()).x > ImGui::GetContentRegionAvail().x)
            item_tooltip(label.c_str()); // a title wider than the panel is cut: here in full
        ImGui::Indent();
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        text_wrappedf("%s   [%s]", lesson.summary.c_str(), lesson.id.c_str());
        ImGui::PopStyleColor();
        ImGui::Unindent();
        ImGui::PopID();
    }
    for (const std::string& e : library.errors)
        error_text("Not loaded: " + e);
}

} // namespace

void draw_lesson_panel(AppState& state)
{
    const Lesson* lesson = current_lesson(state);
    const LessonStep* step = current_step(state);
    if (lesson != nullptr && step != nullptr)
    {
        const bool to_top = state.lesson.panel_top_request;
        state.lesson.panel_top_request = false;
        if (to_top)
            ImGui::SetScrollY(0.0f);
        stepper(state, *lesson, *step);
        if (!lesson_active(state))
            return; // left during this frame
        if (to_top)
            ImGui::SetNextItemOpen(false);
        if (ImGui::CollapsingHeader("All lessons"))
            lesson_list(state);
        return;
    }
    text_wrappedf("Each lesson answers a question learners ask, step by step, on the engine's real "
                  "numbers. Pick one:");
    ImGui::Spacing();
    lesson_list(state);
}

} // namespace attnlab
