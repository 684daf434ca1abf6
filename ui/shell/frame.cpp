// The frame: one frame of the whole UI (theme, shortcuts, menu bar, the panels of the panel table at their
// places, popups, status bar, presenter mode), and picturing the window without its dialogs.
#include "ui/shell/app_ui.h"

#include "ui/model/lesson_export.h"
#include "ui/model/lessons.h"
#include "ui/model/training/training_controller.h"
#include "ui/panels/panels.h"
#include "ui/shell/file_actions.h"
#include "ui/shell/menu_bar.h"
#include "ui/shell/panel_places.h"
#include "ui/shell/popups.h"
#include "ui/shell/presenter.h"
#include "ui/shell/shortcuts.h"
#include "ui/shell/status_bar.h"
#include "ui/shell/theme.h"

#include <imgui.h>

namespace attnlab
{

namespace
{

bool any_popup_open()
{
    return ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel);
}

// The theme of the mode shown (normal or presenter, dark or light), applied when it changed.
void apply_mode_theme(AppState& state)
{
    const int theme = state.presenter          ? (state.prefs.presenter_light ? 3 : 2)
                      : state.prefs.dark_theme ? 1
                                               : 0;
    if (theme == state.applied_theme)
        return;
    if (state.presenter)
        apply_presenter_theme(!state.prefs.presenter_light, state.content_scale * 1.5f);
    else
        apply_theme(state.prefs.dark_theme, state.content_scale);
    state.applied_theme = theme;
}

// One open panel's window at its place, with its contents; remembers where it ended up.
void draw_panel_window(AppState& state, const PanelFacts& p, const LayoutRect& fraction,
                       const LayoutRect& area)
{
    const auto index = static_cast<std::size_t>(p.id);
    place_next_panel(state, p.id, place_in_area(fraction, area));
    const ImGuiWindowFlags flags = overlaps_other_panel(state, p.id) ? 0 : ImGuiWindowFlags_NoBackground;
    if (ImGui::Begin(p.title, &state.prefs.open[index], flags))
        draw_panel(state, p.id);
    note_panel_place(state, p.id, area);
    const ImVec2 pos = ImGui::GetWindowPos();
    const ImVec2 size = ImGui::GetWindowSize();
    state.panel_rects[index] = {pos.x, pos.y, size.x, size.y};
    ImGui::End();
}

// Every panel of the panel table in `area`: the open ones at the user's place or their default one, then a
// lesson step's view brought to the front.
void draw_panels(AppState& state, const LayoutRect& area)
{
    if (state.reset_layout)
        reset_panels(state);
    state.reset_layout = false;
    const std::array<LayoutRect, kPanelCount> defaults =
        default_layout(state.prefs.open, lesson_view_panel(state));
    for (const PanelFacts& p : kPanelTable)
    {
        if (state.prefs.open[static_cast<std::size_t>(p.id)])
            draw_panel_window(state, p, panel_fraction(state.prefs, defaults, p.id), area);
        else
        {
            state.panel_rects[static_cast<std::size_t>(p.id)] = {0.0f, 0.0f, 0.0f, 0.0f};
            forget_panel_place(state, p.id);
        }
    }
    // Focusing a window closes the popups open over it: while one is open the step's view comes to the front
    // when it closes.
    if (any_popup_open())
        return;
    if (state.lesson.focus_panel != PanelId::Count && lesson_active(state))
    {
        // The lesson's text first, then the step's view on top of everything else.
        ImGui::SetWindowFocus(panel_facts(PanelId::Lesson).title);
        ImGui::SetWindowFocus(panel_facts(state.lesson.focus_panel).title);
    }
    state.lesson.focus_panel = PanelId::Count;
}

// Characters the text uses that the atlas lacks (CJK and others) ask for a new atlas before the next frame;
// so do an opened model's token pieces and the marks its chips may show.
void note_new_characters(AppState& state)
{
    OpenedModelState& o = state.opened;
    if (state.showing_opened() && o.glyphs_generation != o.generation)
    {
        o.glyphs_generation = o.generation;
        // The carriage return's mark (␍, which DejaVu Sans lacks) may be in the predictions and the logit
        // lens, whose pieces are not the text's.
        bool added = state.glyphs.add_from("\u240D");
        for (const std::vector<std::string>& sentence : o.run.trace.tokens.tokens)
            for (const std::string& piece : sentence)
                added = state.glyphs.add_from(piece) || added;
        if (added)
            state.request_font_rebuild = true;
    }
    if (state.glyphs_version == state.session_version)
        return;
    state.glyphs_version = state.session_version;
    state.glyphs.beyond_bmp = characters_beyond_bmp(state.session.text + "\n" + state.session.target);
    state.glyphs.in_text = characters_beyond_ascii(state.session.text + "\n" + state.session.target);
    bool added = state.glyphs.add_from(state.session.text);
    added = state.glyphs.add_from(state.session.target) || added;
    for (const std::string& path : state.recent_files)
        added = state.glyphs.add_from(path) || added;
    if (added)
        state.request_font_rebuild = true;
}

void draw_frame(AppState& state)
{
    apply_mode_theme(state);
    note_new_characters(state);
    state.lesson.cells_outlined = 0;
    handle_shortcuts(state);
    poll_model_load(state);
    update_trained_view(state);
    restore_panels_under_training(state);
    lesson_export_frame(state);
    if (state.request_file_action != FileAction::None)
    {
        open_file_dialog(state, state.request_file_action);
        state.request_file_action = FileAction::None;
    }
    if (state.presenter)
    {
        if (state.presenter_blank)
            ImGui::GetBackgroundDrawList()->AddRectFilled(ImVec2(0.0f, 0.0f), ImGui::GetIO().DisplaySize,
                                                          IM_COL32(0, 0, 0, 255));
        else
            draw_presenter(state);
        draw_popups(state);
        return;
    }
    // The status bar shows this message; presenter mode notes only the ones that come after it.
    if (state.presenter_seen_message != state.message)
        state.presenter_seen_message = state.message;
    draw_menu_bar(state);
    const ImGuiIO& io = ImGui::GetIO();
    const float menu_h = ImGui::GetFrameHeight();
    const float status_h = ImGui::GetFrameHeight() + ImGui::GetStyle().WindowPadding.y * 2.0f;
    // Every panel's place follows the window's size: fractions of the area between the menu and the status
    // bar.
    draw_panels(state, work_area(io.DisplaySize.x, io.DisplaySize.y, menu_h, status_h));
    draw_popups(state);
    draw_status_bar(state, io.DisplaySize.y - status_h, status_h);
}

} // namespace

bool begin_window_capture(AppState& state)
{
    if (state.request_window_png.empty() || state.window_png_clean_frames < 1)
        return false;
    ImGuiIO& io = ImGui::GetIO();
    state.window_png_capturing = true;
    state.window_png_mouse_was_ignored = (io.ConfigFlags & ImGuiConfigFlags_NoMouse) != 0;
    io.ConfigFlags |= ImGuiConfigFlags_NoMouse;
    return true;
}

void end_window_capture(AppState& state, const Status& written)
{
    if (!state.window_png_capturing)
        return;
    if (!state.window_png_mouse_was_ignored)
        ImGui::GetIO().ConfigFlags &= ~ImGuiConfigFlags_NoMouse;
    state.set_message(written.is_ok() ? "Saved the window to " + state.request_window_png
                                      : "Window PNG failed: " + written.message(),
                      !written.is_ok());
    state.request_window_png.clear();
    state.window_png_clean_frames = 0;
    state.window_png_capturing = false;
}

void draw_app(AppState& state)
{
    const bool popup_before = any_popup_open();
    draw_frame(state);
    // A frame counts as clean for the window's picture when no popup was open at its start or its end.
    if (state.request_window_png.empty() || popup_before || any_popup_open())
        state.window_png_clean_frames = 0;
    else
        ++state.window_png_clean_frames;
}

} // namespace attnlab
