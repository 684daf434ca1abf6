// The main menu bar: File (sessions, models, exports), View (panels, theme, presenter mode), Lessons, Help,
// the first start's tour hint and the session's path.
#include "ui/shell/menu_bar.h"

#include "core/io/builtin_models.h"
#include "ui/model/lesson_export.h"
#include "ui/model/lessons.h"
#include "ui/model/session_files.h"
#include "ui/model/training/training_controller.h"
#include "ui/model/window_slot.h"
#include "ui/shell/file_actions.h"
#include "ui/shell/presenter.h"
#include "ui/shell/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <ctime>

#include <sys/stat.h>

namespace attnlab
{

namespace
{

// Ends a menu of the menu bar: Esc closes it, with any submenu open in it (keyboard navigation is off, so
// ImGui's own Esc does not, and the next click meant for the panels picked a menu item instead).
void end_bar_menu()
{
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
        ImGui::CloseCurrentPopup();
    ImGui::EndMenu();
}

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
    if (!ImGui::BeginMenu("Recent", !state.recent_files.empty() || !state.config_folder.empty()))
        return;
    const std::vector<std::string> autosaves = autosave_files(state.autosave_path);
    const std::vector<std::string> others = other_window_autosaves(state.config_folder, state.window_slot);
    if (state.recent_files.empty() && autosaves.empty() && others.empty())
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
    if (!others.empty())
    {
        // Each window on this config folder autosaves to its own file (ui/model/window_slot.h).
        ImGui::Separator();
        ImGui::TextDisabled("Other windows' autosaves");
        for (std::size_t i = 0; i < others.size(); ++i)
        {
            ImGui::PushID(2000 + static_cast<int>(i));
            const std::string label = others[i] + "  (" + modified_time(others[i]) + ")";
            if (ImGui::MenuItem(label.c_str()))
                chosen_autosave = others[i];
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

// File > Recent models: the model folders opened last (a folder that is gone is dropped with a message).
void recent_models_menu(AppState& state)
{
    if (!ImGui::BeginMenu("Recent models", !state.opened.recent.empty()))
        return;
    std::string chosen;
    for (std::size_t i = 0; i < state.opened.recent.size(); ++i)
    {
        ImGui::PushID(static_cast<int>(i));
        if (ImGui::MenuItem(state.opened.recent[i].c_str()))
            chosen = state.opened.recent[i];
        ImGui::PopID();
    }
    ImGui::EndMenu();
    if (!chosen.empty())
        open_recent_model(state, chosen); // a folder that is gone is said in the status bar
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
    end_bar_menu();
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

// File: sessions, recent files, trained models and curves, exports, Quit.
void file_menu(AppState& state)
{
    if (!ImGui::BeginMenu("File"))
        return;
    if (ImGui::MenuItem("Open session…", "Ctrl+O"))
        open_file_dialog(state, FileAction::OpenSession);
    if (ImGui::MenuItem("Save session", "Ctrl+S"))
        save_session_or_ask(state);
    if (ImGui::MenuItem("Save session as…"))
        open_file_dialog(state, FileAction::SaveSession);
    recent_menu(state);
    ImGui::Separator();
    if (ImGui::MenuItem("Open model folder…", nullptr, false, !state.opened.loader.busy()))
        open_file_dialog(state, FileAction::OpenModelFolder);
    item_tooltip("A Hugging Face GPT-2 or BERT folder (config.json, model.safetensors, tokenizer files): the "
                 "main panels show every intermediate of the sentence box's text run through it.");
    recent_models_menu(state);
    if (ImGui::MenuItem("Train on a text file…"))
        open_file_dialog(state, FileAction::TrainTextFile);
    item_tooltip("Any UTF-8 text file of yours (a book, notes, code): the Training panel's Text task learns "
                 "to predict its next character, and its heads are shown as they form.");
    if (ImGui::MenuItem("Close model", nullptr, false, state.opened.model != nullptr))
        close_model(state);
    if (state.opened.model)
        item_tooltip(("Closes " + state.opened.model->source() +
                      "; the main panels show the session's own model again.")
                         .c_str());
    ImGui::Separator();
    if (ImGui::MenuItem("Open trained model…"))
        open_file_dialog(state, FileAction::OpenModel);
    if (ImGui::BeginMenu("Open built-in trained model"))
    {
        for (const BuiltinModel& m : builtin_models())
        {
            if (ImGui::MenuItem((std::string("Built-in: ") + m.title).c_str()))
                if (const Status s = request_open_model(state, std::string(), m.key); !s)
                    state.set_message(s.message(), true);
            item_tooltip("Trained by one command from a fixed seed, so anyone can make it again "
                         "(assets/models/README.md); it opens at once in the Training panel.");
        }
        ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Save trained model…", nullptr, false, state.training_run.configured()))
        open_file_dialog(state, FileAction::SaveModel);
    if (ImGui::MenuItem("Export training curves as CSV…", nullptr, false, state.training_run.configured()))
        open_file_dialog(state, FileAction::ExportCurvesCsv);
    if (ImGui::MenuItem("Export training curves as PNG, SVG or PDF…", nullptr, false,
                        state.training_run.configured()))
        open_file_dialog(state, FileAction::ExportCurvesPng);
    ImGui::Separator();
    if (ImGui::MenuItem("Export heatmap…", "Ctrl+E"))
        open_export_dialog(state, state.last_heatmap);
    if (ImGui::MenuItem("Export lesson slides…", "Ctrl+Shift+E", false,
                        lesson_active(state) && state.lesson_export.job == nullptr))
        open_lesson_export_dialog(state);
    item_tooltip(
        lesson_active(state)
            ? "Every step of the open lesson as a slide (its maps and its text as the caption): one "
              "PNG or SVG per step, or one PDF with a page per step, 16:9 or 16:10; the same files as "
              "attnlab lesson ID --export-dir DIR."
            : "Open a lesson first (Lessons menu): its steps become the slides.");
    if (ImGui::MenuItem("Export window as PNG…"))
        open_file_dialog(state, FileAction::ExportWindowPng);
    if (ImGui::MenuItem("Export trace as JSON…"))
        open_file_dialog(state, FileAction::ExportTraceJson);
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q"))
        state.request_quit = true;
    end_bar_menu();
}

// View: a line per panel of the panel table, then the look, presenter mode and the layout.
void view_menu(AppState& state)
{
    if (!ImGui::BeginMenu("View"))
        return;
    for (const PanelFacts& p : kPanelTable)
        if (ImGui::MenuItem(p.title, panel_shortcut(p.id), state.prefs.open[static_cast<std::size_t>(p.id)]))
            toggle_panel(state, p.id);
    ImGui::Separator();
    ImGui::MenuItem("Dark theme", nullptr, &state.prefs.dark_theme);
    item_tooltip("The window's theme. Presenter mode has its own: T there, or Light presenter theme below.");
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
    end_bar_menu();
}

// Help: the keyboard shortcuts and About windows (ui/shell/popups.h).
void help_menu(AppState& state)
{
    if (!ImGui::BeginMenu("Help"))
        return;
    ImGui::MenuItem("Keyboard shortcuts", nullptr, &state.show_help);
    ImGui::MenuItem("About Attention Lab", nullptr, &state.show_about);
    end_bar_menu();
}

} // namespace

void draw_menu_bar(AppState& state)
{
    if (!ImGui::BeginMainMenuBar())
        return;
    file_menu(state);
    view_menu(state);
    lessons_menu(state);
    help_menu(state);
    tour_hint(state);
    if (!state.session_path.empty())
    {
        ImGui::SameLine(0.0f, ImGui::GetFontSize() * 2.0f);
        ImGui::TextDisabled("%s", state.session_path.c_str());
    }
    ImGui::EndMainMenuBar();
}

} // namespace attnlab
