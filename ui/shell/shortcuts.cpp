// The keyboard shortcuts: what each key does in the frame, and the Help list of them (its panel row made from
// the panel table).
#include "ui/shell/shortcuts.h"

#include "ui/model/lesson_export.h"
#include "ui/model/lessons.h"
#include "ui/model/training/training_controller.h"
#include "ui/shell/app_ui.h"
#include "ui/shell/file_actions.h"
#include "ui/shell/presenter.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <string>
#include <vector>

namespace attnlab
{

namespace
{

// [SECTION] The Help list

// "Alt+1 … Alt+8" and "Show / hide a panel (Input, Model, …)": the panels' row of Help, in Alt digit order.
ShortcutInfo panel_keys_row()
{
    std::vector<const PanelFacts*> by_digit;
    for (const PanelFacts& p : kPanelTable)
        by_digit.push_back(&p);
    std::sort(by_digit.begin(), by_digit.end(),
              [](const PanelFacts* a, const PanelFacts* b) { return a->alt_digit < b->alt_digit; });
    ShortcutInfo row;
    row.keys =
        std::string(panel_shortcut(by_digit.front()->id)) + " … " + panel_shortcut(by_digit.back()->id);
    row.action = "Show / hide a panel (";
    for (const PanelFacts* p : by_digit)
        row.action += std::string(p == by_digit.front() ? "" : ", ") + p->title;
    row.action += ")";
    return row;
}

std::vector<ShortcutInfo> make_shortcut_table()
{
    return {
        {"Ctrl+O", "Open a session file"},
        {"Ctrl+S", "Save the session (asks for a path the first time)"},
        {"Ctrl+E", "Export the last hovered heatmap (PNG or CSV)"},
        {"Ctrl+Shift+E", "Export the open lesson's slides: a PNG or SVG per step, or one PDF"},
        {"Ctrl+T", "Show the trained model or the session in the main panels (once a model is trained)"},
        {"→  /  Space  /  Page Down",
         "Next step of the lesson (→ and Space when no text field has focus; Page Down, a clicker's key, "
         "also from one); in presenter mode's Pipeline view outside a lesson, the next group of stages"},
        {"←  /  Page Up", "Previous step of the lesson (or group of stages)"},
        {"Home  /  End", "First / last step of the lesson"},
        {"B  /  .", "Presenter mode: blank the screen (black), as a clicker's blank key does; again, Esc or "
                    "a step key brings the slide back"},
        {"F5", "Presenter mode, full screen: one large view and the step's text as a caption (Esc or F5 "
               "leaves; a resting pointer hides with its tooltips)"},
        {"[  /  ]", "Previous / next head"},
        {"Ctrl+=  /  Ctrl+-  /  Ctrl+0",
         "Larger / smaller / default text (in presenter mode: the presenter's own size, kept apart)"},
        {"T", "In presenter mode: light or dark presenter theme (bright or dark lecture hall)"},
        {"E",
         "In presenter mode: the edit bar (the sentence, Enter applies it; - / + for h, d_model, mask and "
         "τ, each change said in the title line); E or Esc hides it"},
        {"H  /  D  /  M  /  =  -",
         "In presenter mode's edit bar, out of its sentence field (Esc): more heads h, double d_model (with "
         "Shift: fewer, half), switch the causal mask, double / halve τ"},
        {"1  2  3  4  5",
         "In presenter mode outside a lesson: Pipeline, Heads, Inspector, Comparisons (one at a time: 4 "
         "again shows the next), Training"},
        {"P  /  S  /  R",
         "In presenter mode's Training view: play or pause, one step, reset the run (R twice)"},
        {"Shift+↓  /  Shift+↑",
         "In presenter mode: the view a page down / up, where enlarged text (Ctrl+=) made it taller than the "
         "screen (the mouse wheel scrolls it too)"},
        {"F11", "Fullscreen"},
        panel_keys_row(),
        {"Click a cell", "Pin it in the Inspector (click again to unpin)"},
        {"Esc", "Unpin the pinned cell and the pinned query token"},
        {"Click a token (Heads panel)", "Pin it as the query in every head (click again to unpin)"},
        {"↑  /  ↓  (Heads panel)", "Move the pinned query to the previous / next token"},
        {"V  (Heads panel)", "Next view: the layer's heads, all layers x heads, cross-attention"},
        {"Right click a heatmap", "Export it as PNG or CSV"},
        {"Right click a head's chip or its map in All layers",
         "With a model folder open: switch that head off (its output zeroed), or on again"},
        {"Ctrl+Q", "Quit"},
    };
}

// [SECTION] Keys

bool key_pressed(int key)
{
    return ImGui::IsKeyPressed(key, false);
}

} // namespace

void handle_shortcuts(AppState& state)
{
    const ImGuiIO& io = ImGui::GetIO();
    const bool popup = ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel);
    if (io.KeyCtrl && !io.KeyAlt)
    {
        if (key_pressed(keys::O))
            open_file_dialog(state, FileAction::OpenSession);
        if (key_pressed(keys::S))
            save_session_or_ask(state);
        if (key_pressed(keys::E) && io.KeyShift)
            open_lesson_export_dialog(state);
        else if (key_pressed(keys::E))
            open_export_dialog(state, state.last_heatmap);
        if (key_pressed(keys::Q))
            state.request_quit = true;
        if (key_pressed(keys::T) && state.training_run.configured())
            set_trained_view(state, !state.trained_view.on);
        if (key_pressed(keys::Equal))
            step_text_size(state, 1);
        if (key_pressed(keys::Minus))
            step_text_size(state, -1);
        if (key_pressed(keys::Digit0))
            step_text_size(state, 0);
    }
    // Presenter mode shows no panels: Alt+digit there would hide one unseen (found missing after F5).
    if (io.KeyAlt && !io.KeyCtrl && !state.presenter)
        for (const PanelFacts& p : kPanelTable)
            if (key_pressed(keys::Digit0 + p.alt_digit))
                toggle_panel(state, p.id);
    if (key_pressed(keys::F11))
        state.request_fullscreen_toggle = true;
    if (key_pressed(keys::F5) && !popup)
    {
        state.presenter = !state.presenter;
        state.presenter_blank = false;
        state.request_font_rebuild = true;
    }
    // A presenter's clicker sends Page Down and Page Up: in a lesson they step even from a text field, which
    // they leave first (a lecturer who had clicked into the sentence paged through it, the slide frozen).
    const bool page = key_pressed(keys::PageDown) || key_pressed(keys::PageUp);
    if (io.WantTextInput && page && lesson_active(state) && !io.KeyCtrl && !io.KeyAlt && !popup)
    {
        ImGui::ClearActiveID();
        if (key_pressed(keys::PageDown))
            state.presenter ? presenter_next_step(state) : next_step(state);
        else
            previous_step(state);
    }
    else if (state.presenter && state.presenter_blank && !io.KeyCtrl && !io.KeyAlt && !popup)
    {
        // A blanked screen: B or "." again, Esc or a step key brings the slide back (without stepping on).
        for (const int key : {keys::B, keys::Period, keys::Right, keys::Left, keys::Space, keys::PageDown,
                              keys::PageUp, keys::Home, keys::End})
            if (key_pressed(key))
                state.presenter_blank = false;
        if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
            state.presenter_blank = false;
    }
    else if (!io.WantTextInput && !io.KeyCtrl && !io.KeyAlt && !popup)
    {
        if (state.presenter && (key_pressed(keys::B) || key_pressed(keys::Period)))
            state.presenter_blank = true;
        if (key_pressed(keys::LeftBracket))
            state.select_head(state.sel.head - 1);
        if (key_pressed(keys::RightBracket))
            state.select_head(state.sel.head + 1);
        if (key_pressed(keys::T) && state.presenter)
            toggle_presenter_theme(state);
        if (key_pressed(keys::E) && state.presenter)
            toggle_presenter_edit(state);
        // The edit bar's settings from the keyboard (its sentence field left with Esc): a clicker's lecturer
        // changes them without the mouse. An opened model's settings are its own, bar or no bar:
        // presenter_edit_step changes nothing then and says so.
        if (state.presenter &&
            (state.presenter_edit || (state.showing_opened() && !presenter_shows_training(state))))
        {
            const int direction = io.KeyShift ? -1 : +1;
            if (key_pressed(keys::H))
                presenter_edit_step(state, PresenterSetting::heads, direction);
            if (key_pressed(keys::D))
                presenter_edit_step(state, PresenterSetting::d_model, direction);
            if (key_pressed(keys::M))
                presenter_edit_step(state, PresenterSetting::mask, 1);
            if (state.presenter_edit && key_pressed(keys::Equal))
                presenter_edit_step(state, PresenterSetting::temperature, +1);
            if (state.presenter_edit && key_pressed(keys::Minus))
                presenter_edit_step(state, PresenterSetting::temperature, -1);
        }
        else if (state.presenter && !presenter_shows_training(state) &&
                 (key_pressed(keys::H) || key_pressed(keys::D) || key_pressed(keys::M)))
            // Without the bar they did nothing, and nothing said why.
            state.set_message(
                "H, D and M change h, d_model and the mask with the edit bar open: press E first", false);
        // Shift+↓ / Shift+↑: the view a page down or up, where enlarged text made it outgrow the screen (↓ /
        // ↑ alone move the Heads view's pinned query).
        if (state.presenter && io.KeyShift)
        {
            if (ImGui::IsKeyPressed(keys::Down))
                ++state.presenter_scroll_pages;
            if (ImGui::IsKeyPressed(keys::Up))
                --state.presenter_scroll_pages;
        }
        // The Training view's keys: P plays or pauses, S takes one step, R resets (a lesson's run too).
        if (presenter_shows_training(state))
        {
            if (key_pressed(keys::P))
            {
                // Play at the target goes on for the preset length again; the panel's line that says so is
                // not on screen here, so the title line says it.
                const int target = state.training.edit.steps;
                training_play_pause(state);
                if (state.training.edit.steps != target)
                    state.set_message(state.training.notice, false);
            }
            if (key_pressed(keys::S))
                training_step(state, 1);
            if (key_pressed(keys::R))
            {
                // A run with steps taken resets on a second R within a few seconds: one stray key in a
                // lecture threw away the run the slide was about.
                const double now = ImGui::GetTime();
                const int step = state.training.view.step;
                if (step > 0 &&
                    !(state.presenter_reset_asked >= 0.0 && now - state.presenter_reset_asked < 3.0))
                {
                    state.presenter_reset_asked = now;
                    state.set_message("R again resets the run (its " + std::to_string(step) +
                                          " steps stay as the earlier run's curves)",
                                      false);
                }
                else
                {
                    state.presenter_reset_asked = -1.0;
                    training_reset(state);
                }
            }
        }
        // Presenter mode outside a lesson: 1-5 pick its view (a lesson's step picks its own).
        if (state.presenter && current_lesson(state) == nullptr)
            for (int v = 0; v < static_cast<int>(PresenterView::Count); ++v)
                if (key_pressed(keys::Digit0 + 1 + v))
                {
                    const auto view = static_cast<PresenterView>(v);
                    // The Comparisons view shows one comparison at a time: its key again, the next one.
                    if (view == PresenterView::Comparisons && state.presenter_view == view)
                        state.presenter_comparison = next_comparison(state.presenter_comparison);
                    state.presenter_view = view;
                }
        if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false) && state.presenter &&
            state.presenter_edit)
            state.presenter_edit = false; // the edit bar first, presenter mode on the next Esc
        else if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
        {
            if (state.presenter && !state.pinned.valid && !state.heads_panel.query.valid() &&
                !state.heads_panel.cross_query.valid())
            {
                state.presenter = false;
                state.request_font_rebuild = true;
            }
            state.pinned = CellRef{};
            state.unpin_queries();
        }
        // A lesson's steps, or outside one presenter mode's Pipeline view's groups of stages.
        const bool stages = state.presenter && current_lesson(state) == nullptr &&
                            state.presenter_view == PresenterView::Pipeline;
        if (key_pressed(keys::Right) || key_pressed(keys::Space) || key_pressed(keys::PageDown))
        {
            if (stages)
                presenter_pipeline_step(state, +1);
            else if (state.presenter)
                presenter_next_step(state);
            else
                next_step(state);
        }
        if (key_pressed(keys::Left) || key_pressed(keys::PageUp))
            stages ? presenter_pipeline_step(state, -1) : previous_step(state);
        // A lesson's first and last step, as a slide deck's Home and End.
        if (const Lesson* lesson = current_lesson(state); lesson != nullptr && !lesson->steps.empty())
        {
            if (key_pressed(keys::Home))
                go_to_step(state, 0);
            if (key_pressed(keys::End))
                go_to_step(state, static_cast<int>(lesson->steps.size()) - 1);
        }
    }
}

const ShortcutInfo* shortcut_table(int* count)
{
    static const std::vector<ShortcutInfo> table = make_shortcut_table();
    *count = static_cast<int>(table.size());
    return table.data();
}

} // namespace attnlab
