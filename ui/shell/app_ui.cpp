// The whole frame of the app: menu bar, keyboard shortcuts, panels at their default places, popups and the
// status bar.
#include "ui/shell/app_ui.h"

#include "core/io/json_io.h"
#include "core/io/session_file.h"
#include "ui/model/lessons.h"
#include "ui/model/session_files.h"
#include "ui/model/training/training_controller.h"
#include "ui/panels/panels.h"
#include "ui/picture/export.h"
#include "ui/picture/heatmap_math.h"
#include "ui/shell/panel_places.h"
#include "ui/shell/presenter.h"
#include "ui/shell/theme.h"
#include "ui/shell/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <ctime>
#include <iterator>

#include <sys/stat.h>

namespace attnlab
{

// [SECTION] Tables

namespace
{

const ShortcutInfo kShortcuts[] = {
    {"Ctrl+O", "Open a session file"},
    {"Ctrl+S", "Save the session (asks for a path the first time)"},
    {"Ctrl+E", "Export the last hovered heatmap (PNG or CSV)"},
    {"→  /  Space  /  Page Down", "Next step of the lesson (when no text field has focus; a clicker works)"},
    {"←  /  Page Up", "Previous step of the lesson"},
    {"F5", "Presenter mode: one large view and the step's text as a caption (Esc or F5 leaves)"},
    {"[  /  ]", "Previous / next head"},
    {"Ctrl+=  /  Ctrl+-  /  Ctrl+0",
     "Larger / smaller / default text (in presenter mode: the presenter's own size, kept apart)"},
    {"T", "In presenter mode: light or dark presenter theme (bright or dark lecture hall)"},
    {"F11", "Fullscreen"},
    {"Alt+1 … Alt+8",
     "Show / hide a panel (Input, Model, Pipeline, Heads, Inspector, Comparisons, Lesson, Training)"},
    {"Click a cell", "Pin it in the Inspector (click again to unpin)"},
    {"Esc", "Unpin the pinned cell and the pinned query token"},
    {"Click a token (Heads panel)", "Pin it as the query in every head (click again to unpin)"},
    {"↑  /  ↓  (Heads panel)", "Move the pinned query to the previous / next token"},
    {"V  (Heads panel)", "Next view: the layer's heads, all layers x heads, cross-attention"},
    {"Right click a heatmap", "Export it as PNG or CSV"},
    {"Ctrl+Q", "Quit"},
};

} // namespace

const ShortcutInfo* shortcut_table(int* count)
{
    *count = static_cast<int>(std::size(kShortcuts));
    return kShortcuts;
}

const std::array<PanelInfo, kPanelCount>& panel_table()
{
    static const std::array<PanelInfo, kPanelCount> table = {{
        {PanelId::Input, "Input", "Alt+1", draw_input_panel},
        {PanelId::Model, "Model", "Alt+2", draw_model_panel},
        {PanelId::Pipeline, "Pipeline", "Alt+3", draw_pipeline_panel},
        {PanelId::Heads, "Heads", "Alt+4", draw_heads_panel},
        {PanelId::Inspector, "Inspector", "Alt+5", draw_inspector_panel},
        {PanelId::Comparisons, "Comparisons", "Alt+6", draw_comparisons_panel},
        {PanelId::Lesson, "Lesson", "Alt+7", draw_lesson_panel},
        {PanelId::Training, "Training", "Alt+8", draw_training_panel},
    }};
    return table;
}

namespace
{

// [SECTION] Actions shared by menus and shortcuts

void open_file_dialog(AppState& state, FileAction action)
{
    FileDialog& d = state.file_dialog;
    d.open_request = true;
    d.action = action;
    d.error.clear();
    switch (action)
    {
    case FileAction::OpenSession:
    case FileAction::SaveSession:
        d.path = state.session_path.empty() ? "session.json" : state.session_path;
        break;
    case FileAction::ExportTraceJson:
        d.path = "attnlab-trace.json";
        break;
    case FileAction::ExportWindowPng:
        d.path = "attnlab-window.png";
        break;
    case FileAction::OpenModel:
    case FileAction::SaveModel:
        d.path = state.training.model_path.empty()
                     ? std::string(train::task_info(state.training.view.config.task).key) + "-model.json"
                     : state.training.model_path;
        break;
    case FileAction::ExportCurvesCsv:
        d.path = std::string(train::task_info(state.training.view.config.task).key) + "-curves.csv";
        break;
    case FileAction::ExportCurvesPng:
        d.path = std::string(train::task_info(state.training.view.config.task).key) + "-curves.png";
        break;
    case FileAction::None:
        break;
    }
}

void open_export_dialog(AppState& state, const MatrixRef& ref)
{
    ExportDialog& d = state.export_dialog;
    d.open_request = true;
    d.matrix = ref;
    d.path = default_export_path(ref, d.format);
    d.error.clear();
}

void save_session(AppState& state)
{
    if (state.session_path.empty())
    {
        open_file_dialog(state, FileAction::SaveSession);
        return;
    }
    const Status s = save_session_as(state, state.session_path);
    if (!s.is_ok())
        state.set_message("Save failed: " + s.message(), true);
}

// Runs the file action; returns the error message ("" on success).
std::string run_file_action(AppState& state)
{
    const FileDialog& d = state.file_dialog;
    switch (d.action)
    {
    case FileAction::OpenSession:
        // With unsaved changes the file waits for the question (unsaved_popup) and this dialog closes.
        return request_open_session(state, d.path).message();
    case FileAction::SaveSession:
        return save_session_as(state, d.path).message();
    case FileAction::ExportTraceJson:
    {
        if (!state.has_trace())
            return "nothing to export yet";
        const Status s =
            // The session's pass (a trained model's is written by `attnlab export --model`).
            write_trace_json(state.engine.trace(), state.engine.weights(), d.path,
                             state.session.weights_path);
        if (!s.is_ok())
            return s.message();
        state.set_message("Exported the trace to " + d.path, false);
        return std::string();
    }
    case FileAction::ExportWindowPng:
        // The window writes it after the next frame is drawn and reports the result in the status bar.
        state.request_window_png = d.path;
        return std::string();
    case FileAction::OpenModel:
        return open_model_file(state, d.path).message();
    case FileAction::SaveModel:
        return save_model_file(state, d.path).message();
    case FileAction::ExportCurvesCsv:
    {
        const Status s = write_curves_csv(state.training.view, d.path);
        if (s.is_ok())
            state.set_message("Exported the training curves to " + d.path, false);
        return s.message();
    }
    case FileAction::ExportCurvesPng:
    {
        const Status s = export_curves_png(state.training.view, state.training.edit.steps,
                                           state.training.score_kind, d.path);
        if (s.is_ok())
            state.set_message("Exported a picture of the training curves to " + d.path, false);
        return s.message();
    }
    case FileAction::None:
        break;
    }
    return std::string();
}

// [SECTION] Shortcuts

bool key_pressed(int key)
{
    return ImGui::IsKeyPressed(key, false);
}

void handle_shortcuts(AppState& state)
{
    const ImGuiIO& io = ImGui::GetIO();
    const bool popup = ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel);
    if (io.KeyCtrl && !io.KeyAlt)
    {
        if (key_pressed(keys::O))
            open_file_dialog(state, FileAction::OpenSession);
        if (key_pressed(keys::S))
            save_session(state);
        if (key_pressed(keys::E))
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
    if (io.KeyAlt && !io.KeyCtrl)
        for (int p = 0; p < kPanelCount; ++p)
            if (key_pressed(keys::Digit1 + p))
                state.prefs.open[static_cast<std::size_t>(p)] =
                    !state.prefs.open[static_cast<std::size_t>(p)];
    if (key_pressed(keys::F11))
        state.request_fullscreen_toggle = true;
    if (key_pressed(keys::F5) && !popup)
    {
        state.presenter = !state.presenter;
        state.request_font_rebuild = true;
    }
    if (!io.WantTextInput && !io.KeyCtrl && !io.KeyAlt && !popup)
    {
        if (key_pressed(keys::LeftBracket))
            state.select_head(state.sel.head - 1);
        if (key_pressed(keys::RightBracket))
            state.select_head(state.sel.head + 1);
        if (key_pressed(keys::T) && state.presenter)
            toggle_presenter_theme(state);
        if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
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
        if (key_pressed(keys::Right) || key_pressed(keys::Space) || key_pressed(keys::PageDown))
            next_step(state);
        if (key_pressed(keys::Left) || key_pressed(keys::PageUp))
            previous_step(state);
    }
}

// [SECTION] Menu bar

// "14:02:31" or "2026-11-20 14:02": when a file was last written, for the autosave entries.
std::string modified_time(const std::string& path)
{
    struct stat st = {};
    if (::stat(path.c_str(), &st) != 0)
        return "?";
    const std::time_t t = st.st_mtime;
    const std::time_t now = std::time(nullptr);
    std::tm local = {};
    localtime_r(&t, &local);
    char text[32];
    std::strftime(text, sizeof text, now - t < 20 * 3600 ? "%H:%M:%S" : "%Y-%m-%d %H:%M", &local);
    return text;
}

// File > Recent: the session files opened or saved last (a file that is gone is dropped with a message), then
// the autosave and its kept copies, so an earlier run's work can always be opened again.
void recent_menu(AppState& state)
{
    // The autosaves are looked up only while the menu is open, not every frame.
    if (!ImGui::BeginMenu("Recent", !state.recent_files.empty() || !state.autosave_path.empty()))
        return;
    const std::vector<std::string> autosaves = autosave_files(state.autosave_path);
    if (state.recent_files.empty() && autosaves.empty())
        ImGui::TextDisabled("(no session files yet)");
    std::string chosen, chosen_autosave;
    for (std::size_t i = 0; i < state.recent_files.size(); ++i)
    {
        ImGui::PushID(static_cast<int>(i));
        if (ImGui::MenuItem(state.recent_files[i].c_str()))
            chosen = state.recent_files[i];
        ImGui::PopID();
    }
    if (!autosaves.empty())
    {
        if (!state.recent_files.empty())
            ImGui::Separator();
        ImGui::TextDisabled("Autosaved sessions");
        for (std::size_t i = 0; i < autosaves.size(); ++i)
        {
            ImGui::PushID(1000 + static_cast<int>(i));
            const std::string label =
                (i == 0 ? std::string("This run's autosave") : "Earlier autosave " + std::to_string(i)) +
                "  (" + modified_time(autosaves[i]) + ")";
            if (ImGui::MenuItem(label.c_str()))
                chosen_autosave = autosaves[i];
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("%s", autosaves[i].c_str());
            ImGui::PopID();
        }
    }
    ImGui::EndMenu();
    if (!chosen_autosave.empty())
    {
        if (Status s = request_open_session(state, chosen_autosave, true); !s.is_ok())
            state.set_message(s.message() + " (the current session stays)", true);
        return;
    }
    if (!chosen.empty())
        open_recent_file(state, chosen); // says in the status bar what happened
}

// Lessons: every built-in lesson, the broken files, and leaving the open one.
void lessons_menu(AppState& state)
{
    if (!ImGui::BeginMenu("Lessons"))
        return;
    const LessonLibrary& library = state.lesson.library;
    for (int i = 0; i < static_cast<int>(library.lessons.size()); ++i)
    {
        ImGui::PushID(i);
        const Lesson& lesson = library.lessons[static_cast<std::size_t>(i)];
        if (ImGui::MenuItem(lesson.title.c_str(), nullptr, i == state.lesson.lesson))
            enter_lesson(state, i, 0);
        ImGui::PopID();
    }
    if (!library.errors.empty())
        ImGui::TextDisabled("%d lesson file(s) not loaded: see the Lesson panel",
                            static_cast<int>(library.errors.size()));
    ImGui::Separator();
    if (ImGui::MenuItem("Leave the lesson", nullptr, false, lesson_active(state)))
        leave_lesson(state);
    ImGui::EndMenu();
}

// The very first start's hint, beside the menus where nothing covers it: begin with the tour. It goes when
// followed, dismissed or once any lesson is open.
void tour_hint(AppState& state)
{
    if (lesson_active(state))
        state.show_tour_hint = false;
    if (!state.show_tour_hint)
        return;
    const auto& lessons = state.lesson.library.lessons;
    const auto tour =
        std::find_if(lessons.begin(), lessons.end(), [](const Lesson& l) { return l.id == "tour"; });
    ImGui::SameLine(0.0f, ImGui::GetFontSize() * 2.0f);
    ImGui::TextUnformatted("New here? Begin with the tour (Lessons menu):");
    if (tour != lessons.end())
    {
        ImGui::SameLine();
        // In the lessons' highlight colour, with dark text: it reads on both themes.
        const ImVec4 c = ImGui::ColorConvertU32ToFloat4(lesson_highlight_color());
        ImGui::PushStyleColor(ImGuiCol_Button, c);
        ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(c.x * 0.85f, c.y * 0.85f, c.z * 0.85f, 1.0f));
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.0f, 0.0f, 0.0f, 1.0f));
        const bool start = ImGui::SmallButton("Start the tour");
        ImGui::PopStyleColor(3);
        if (start)
        {
            enter_lesson(state, static_cast<int>(tour - lessons.begin()), 0);
            state.show_tour_hint = false;
        }
        item_tooltip(tour->title.c_str());
    }
    ImGui::SameLine();
    if (ImGui::SmallButton("Not now"))
        state.show_tour_hint = false;
    item_tooltip("The lessons stay in the Lessons menu; this hint is not shown again.");
}

void main_menu(AppState& state)
{
    if (!ImGui::BeginMainMenuBar())
        return;
    if (ImGui::BeginMenu("File"))
    {
        if (ImGui::MenuItem("Open session…", "Ctrl+O"))
            open_file_dialog(state, FileAction::OpenSession);
        if (ImGui::MenuItem("Save session", "Ctrl+S"))
            save_session(state);
        if (ImGui::MenuItem("Save session as…"))
            open_file_dialog(state, FileAction::SaveSession);
        recent_menu(state);
        ImGui::Separator();
        if (ImGui::MenuItem("Open trained model…"))
            open_file_dialog(state, FileAction::OpenModel);
        if (ImGui::MenuItem("Save trained model…", nullptr, false, state.training_run.configured()))
            open_file_dialog(state, FileAction::SaveModel);
        if (ImGui::MenuItem("Export training curves as CSV…", nullptr, false,
                            state.training_run.configured()))
            open_file_dialog(state, FileAction::ExportCurvesCsv);
        if (ImGui::MenuItem("Export training curves as PNG…", nullptr, false,
                            state.training_run.configured()))
            open_file_dialog(state, FileAction::ExportCurvesPng);
        ImGui::Separator();
        if (ImGui::MenuItem("Export heatmap…", "Ctrl+E"))
            open_export_dialog(state, state.last_heatmap);
        if (ImGui::MenuItem("Export window as PNG…"))
            open_file_dialog(state, FileAction::ExportWindowPng);
        if (ImGui::MenuItem("Export trace as JSON…"))
            open_file_dialog(state, FileAction::ExportTraceJson);
        ImGui::Separator();
        if (ImGui::MenuItem("Quit", "Ctrl+Q"))
            state.request_quit = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View"))
    {
        for (const PanelInfo& p : panel_table())
            ImGui::MenuItem(p.name, p.shortcut, &state.prefs.open[static_cast<std::size_t>(p.id)]);
        ImGui::Separator();
        ImGui::MenuItem("Dark theme", nullptr, &state.prefs.dark_theme);
        ImGui::MenuItem("Numbers in cells", nullptr, &state.prefs.numbers_in_cells);
        ImGui::MenuItem("Stretch weight colours", nullptr, &state.prefs.stretch_weights);
        if (ImGui::MenuItem("Trained model in the main panels", "Ctrl+T", state.trained_view.on,
                            state.training_run.configured()))
            set_trained_view(state, !state.trained_view.on);
        if (ImGui::MenuItem("Larger font", "Ctrl+="))
            step_text_size(state, 1);
        if (ImGui::MenuItem("Smaller font", "Ctrl+-"))
            step_text_size(state, -1);
        ImGui::Separator();
        ImGui::MenuItem("Light presenter theme", "T", &state.prefs.presenter_light);
        if (ImGui::MenuItem("Presenter mode", "F5", state.presenter))
        {
            state.presenter = !state.presenter;
            state.request_font_rebuild = true;
        }
        if (ImGui::MenuItem("Reset layout"))
            state.reset_layout = true;
        if (ImGui::MenuItem("Fullscreen", "F11"))
            state.request_fullscreen_toggle = true;
        ImGui::EndMenu();
    }
    lessons_menu(state);
    if (ImGui::BeginMenu("Help"))
    {
        ImGui::MenuItem("Keyboard shortcuts", nullptr, &state.show_help);
        ImGui::MenuItem("About Attention Lab", nullptr, &state.show_about);
        ImGui::EndMenu();
    }
    tour_hint(state);
    if (!state.session_path.empty())
    {
        ImGui::SameLine(0.0f, ImGui::GetFontSize() * 2.0f);
        ImGui::TextDisabled("%s", state.session_path.c_str());
    }
    ImGui::EndMainMenuBar();
}

// [SECTION] Popups

void file_popup(AppState& state)
{
    FileDialog& d = state.file_dialog;
    const char* title = "File###file_dialog";
    if (d.open_request)
    {
        ImGui::OpenPopup(title);
        d.open_request = false;
    }
    if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize))
        return;
    const char* what = d.action == FileAction::OpenSession       ? "Open session from"
                       : d.action == FileAction::SaveSession     ? "Save session to"
                       : d.action == FileAction::ExportTraceJson ? "Export the whole trace (JSON) to"
                       : d.action == FileAction::OpenModel ? "Open a trained model (attnlab-model JSON) from"
                       : d.action == FileAction::SaveModel ? "Save the trained model (attnlab-model JSON) to"
                       : d.action == FileAction::ExportCurvesCsv ? "Export the training curves (CSV) to"
                       : d.action == FileAction::ExportCurvesPng
                           ? "Save a picture of the training curves (PNG) to"
                           : "Save a picture of the window (PNG) to";
    ImGui::TextUnformatted(what);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30.0f);
    if (ImGui::IsWindowAppearing())
        ImGui::SetKeyboardFocusHere();
    const bool enter = input_text("##path", &d.path, true);
    if (!d.error.empty())
        error_text(d.error);
    if (ImGui::Button("OK") || enter)
    {
        d.error = run_file_action(state);
        if (d.error.empty())
            ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
        ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
}

// The question before a file replaces a session with unsaved changes: Save (to its file, or a path typed
// here), Discard or Cancel. Esc cancels.
void unsaved_popup(AppState& state)
{
    UnsavedPrompt& u = state.unsaved;
    const char* title = "Unsaved changes###unsaved_changes";
    if (u.open_request)
    {
        ImGui::OpenPopup(title);
        u.open_request = false;
    }
    if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize))
        return;
    if (u.path.empty()) // answered elsewhere
    {
        ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
        return;
    }
    ImGui::TextUnformatted("The session on screen has changes that are in no file.");
    ImGui::Text("Opening %s replaces it.", u.path.c_str());
    ImGui::Spacing();
    ImGui::TextUnformatted("Save the session to");
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30.0f);
    input_text("##save_path", &u.save_path);
    if (!u.error.empty())
        error_text(u.error);
    if (ImGui::Button("Save, then open"))
    {
        if (answer_unsaved_changes(state, UnsavedAnswer::Save).is_ok() || u.path.empty())
            ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Discard changes and open"))
    {
        answer_unsaved_changes(state, UnsavedAnswer::Discard);
        ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
    {
        answer_unsaved_changes(state, UnsavedAnswer::Cancel);
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

void export_popup(AppState& state)
{
    ExportDialog& d = state.export_dialog;
    const char* title = "Export heatmap###export_dialog";
    const MatrixView view = resolve_matrix(state, d.matrix);
    if (d.open_request)
    {
        ImGui::OpenPopup(title);
        d.open_request = false;
        if (view.m != nullptr)
            d.scale =
                default_export_scale(static_cast<int>(view.m->rows()), static_cast<int>(view.m->cols()));
    }
    if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize))
        return;
    // The picture's own title, so the dialog names exactly what the file will say.
    ImGui::TextUnformatted(heatmap_picture(state, d.matrix).title.c_str());
    ImGui::TextDisabled("%s   [%s]", view.equation.c_str(), view.shape.c_str());
    int format = d.format == ExportFormat::Png ? 0 : 1;
    if (ImGui::RadioButton("PNG picture (for slides)", &format, 0) |
        ImGui::RadioButton("CSV numbers", &format, 1))
    {
        d.format = format == 0 ? ExportFormat::Png : ExportFormat::Csv;
        d.path = default_export_path(d.matrix, d.format);
    }
    if (d.format == ExportFormat::Png)
    {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12.0f);
        ImGui::SliderInt("pixels per cell", &d.scale, 1, 96);
        if (view.m != nullptr)
            ImGui::TextDisabled("the matrix will be %d×%d pixels, plus title, labels and colour bar",
                                static_cast<int>(view.m->cols()) * d.scale,
                                static_cast<int>(view.m->rows()) * d.scale);
    }
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30.0f);
    const bool enter = input_text("file", &d.path, true);
    if (!d.error.empty())
        error_text(d.error);
    if (ImGui::Button("Export") || enter)
    {
        run_export_dialog(state);
        if (state.message_is_error)
            d.error = state.message;
        else
        {
            d.error.clear();
            ImGui::CloseCurrentPopup();
        }
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
        ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
}

void help_windows(AppState& state)
{
    if (state.show_help)
    {
        ImGui::SetNextWindowPos(
            ImVec2(ImGui::GetIO().DisplaySize.x * 0.5f, ImGui::GetIO().DisplaySize.y * 0.4f),
            ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
        if (ImGui::Begin("Keyboard shortcuts", &state.show_help, ImGuiWindowFlags_AlwaysAutoResize))
        {
            int n = 0;
            const ShortcutInfo* table = shortcut_table(&n);
            if (ImGui::BeginTable("##keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV))
            {
                for (int i = 0; i < n; ++i)
                {
                    ImGui::TableNextRow();
                    ImGui::TableNextColumn();
                    ImGui::TextUnformatted(table[i].keys);
                    ImGui::TableNextColumn();
                    ImGui::TextUnformatted(table[i].action);
                }
                ImGui::EndTable();
            }
        }
        ImGui::End();
    }
    if (state.show_about)
    {
        if (ImGui::Begin("About Attention Lab", &state.show_about, ImGuiWindowFlags_AlwaysAutoResize))
        {
            ImGui::TextUnformatted("Attention Lab: every intermediate of multi-head attention, live.");
            ImGui::TextUnformatted(
                "Notation of “Attention Is All You Need” (Vaswani et al., 2017): row vectors, "
                "Q_h = X W_h^Q, A_h = softmax(Q_h K_hᵀ / √d_k + M).");
            ImGui::TextDisabled("Dear ImGui %s", IMGUI_VERSION);
        }
        ImGui::End();
    }
}

// [SECTION] Layout and status bar

// True when panel `index` overlapped another open panel last frame (or has no rectangle yet).
bool overlaps_other_panel(const AppState& state, std::size_t index)
{
    const auto& a = state.panel_rects[index];
    if (a[2] <= 0.0f || a[3] <= 0.0f)
        return true;
    const float eps = 1.0f; // panels that only touch along an edge do not overlap
    for (std::size_t k = 0; k < state.panel_rects.size(); ++k)
    {
        const auto& b = state.panel_rects[k];
        if (k == index || b[2] <= 0.0f || b[3] <= 0.0f)
            continue;
        if (a[0] + eps < b[0] + b[2] && b[0] + eps < a[0] + a[2] && a[1] + eps < b[1] + b[3] &&
            b[1] + eps < a[1] + a[3])
            return true;
    }
    return false;
}

void status_bar(AppState& state, float y, float height)
{
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(0.0f, y));
    ImGui::SetNextWindowSize(ImVec2(io.DisplaySize.x, height));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                   ImGuiWindowFlags_NoBringToFrontOnFocus;
    if (ImGui::Begin("##status", nullptr, flags))
    {
        if (state.has_trace())
        {
            const Trace& t = state.trace();
            ImGui::TextDisabled("B = %d  T = %d  d_model = %d  h = %d  d_k = %d  d_v = %d  layers = %d   |   "
                                "recompute %.1f ms",
                                t.batch_size(), t.T(), t.config.d_model, state.heads(), t.d_k, t.d_v,
                                static_cast<int>(t.layers.size()), state.recompute_ms);
            if (state.frame_ms > 0.0f)
            {
                ImGui::SameLine();
                ImGui::TextDisabled("  frame %.1f ms", state.frame_ms);
            }
            ImGui::SameLine();
        }
        // An invalid session keeps the last good picture on screen: say so wherever the user is looking. The
        // message itself is in the panel it is about; only when that panel is closed is it written here.
        std::string stale;
        if (!state.status.is_ok() && state.has_trace())
        {
            // While the trained model shows, the session's panels show its settings, not this message.
            const PanelId home = status_error_panel(state);
            stale = state.prefs.open[static_cast<std::size_t>(home)] && !state.showing_trained()
                        ? std::string("showing the last valid result: the ") +
                              panel_table()[static_cast<std::size_t>(home)].name + " panel says why"
                        : "showing the last valid result: " + state.status.message();
        }
        const std::string& text = !stale.empty()           ? stale
                                  : !state.message.empty() ? state.message
                                                           : state.font_message;
        if (!text.empty())
        {
            ImGui::TextUnformatted("   ");
            ImGui::SameLine();
            // One line: a long message is cut with "…" and shown whole in a tooltip.
            // The longest cut that fits is found by halving, so a long message costs a few measurements a
            // frame.
            const float room = ImGui::GetContentRegionAvail().x;
            std::string shown = text;
            if (ImGui::CalcTextSize(text.c_str()).x > room)
            {
                int lo = 8, hi = utf8_length(text); // a cut to lo characters is shown even if it does not fit
                while (hi - lo > 1)
                {
                    const int mid = (lo + hi) / 2;
                    if (ImGui::CalcTextSize(truncate_utf8(text, mid).c_str()).x <= room)
                        lo = mid;
                    else
                        hi = mid;
                }
                shown = truncate_utf8(text, lo); // ends in "…"
            }
            const bool error = !stale.empty() || state.message_is_error || state.message.empty();
            if (error)
                ImGui::PushStyleColor(ImGuiCol_Text, error_color());
            ImGui::TextUnformatted(shown.c_str());
            if (error)
                ImGui::PopStyleColor();
            if (shown != text)
                item_tooltip(text.c_str());
        }
    }
    ImGui::End();
}

} // namespace

// [SECTION] The frame

namespace
{

bool any_popup_open()
{
    return ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel);
}

void draw_frame(AppState& state);

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

namespace
{

void draw_frame(AppState& state)
{
    const int theme = state.presenter          ? (state.prefs.presenter_light ? 3 : 2)
                      : state.prefs.dark_theme ? 1
                                               : 0;
    if (theme != state.applied_theme)
    {
        if (state.presenter)
            apply_presenter_theme(!state.prefs.presenter_light, state.content_scale * 1.5f);
        else
            apply_theme(state.prefs.dark_theme, state.content_scale);
        state.applied_theme = theme;
    }
    state.lesson.cells_outlined = 0;
    handle_shortcuts(state);
    update_trained_view(state);
    if (state.request_file_action != FileAction::None)
    {
        open_file_dialog(state, state.request_file_action);
        state.request_file_action = FileAction::None;
    }
    if (state.presenter)
    {
        draw_presenter(state);
        help_windows(state);
        file_popup(state);
        unsaved_popup(state);
        export_popup(state);
        return;
    }
    main_menu(state);

    const ImGuiIO& io = ImGui::GetIO();
    const float menu_h = ImGui::GetFrameHeight();
    const float status_h = ImGui::GetFrameHeight() + ImGui::GetStyle().WindowPadding.y * 2.0f;
    if (state.reset_layout)
        state.prefs.places = {};
    state.reset_layout = false;
    // Every panel's place follows the window's size: fractions of the area between the menu and the status
    // bar.
    const LayoutRect area = work_area(io.DisplaySize.x, io.DisplaySize.y, menu_h, status_h);
    const std::array<LayoutRect, kPanelCount> defaults =
        default_layout(state.prefs.open, lesson_view_panel(state));
    for (const PanelInfo& p : panel_table())
    {
        const auto index = static_cast<std::size_t>(p.id);
        bool& open = state.prefs.open[index];
        if (!open)
        {
            state.panel_rects[index] = {0.0f, 0.0f, 0.0f, 0.0f};
            forget_panel_place(state, p.id);
            continue;
        }
        place_next_panel(state, p.id, place_in_area(panel_fraction(state.prefs, defaults, p.id), area));
        const ImGuiWindowFlags flags = overlaps_other_panel(state, index) ? 0 : ImGuiWindowFlags_NoBackground;
        if (ImGui::Begin(p.name, &open, flags))
            p.draw(state);
        note_panel_place(state, p.id, area);
        const ImVec2 pos = ImGui::GetWindowPos();
        const ImVec2 size = ImGui::GetWindowSize();
        state.panel_rects[index] = {pos.x, pos.y, size.x, size.y};
        ImGui::End();
    }
    if (state.lesson.focus_panel >= 0 && lesson_active(state))
    {
        // The lesson's text first, then the step's view on top of everything else.
        ImGui::SetWindowFocus(panel_table()[static_cast<std::size_t>(PanelId::Lesson)].name);
        ImGui::SetWindowFocus(panel_table()[static_cast<std::size_t>(state.lesson.focus_panel)].name);
    }
    state.lesson.focus_panel = -1;
    help_windows(state);
    file_popup(state);
    unsaved_popup(state);
    export_popup(state);
    status_bar(state, io.DisplaySize.y - status_h, status_h);
}

} // namespace

} // namespace attnlab
