// Start-up without a window: the config folder's files, then what the command line asked for.
#include "ui/model/startup.h"

#include "core/io/json_io.h"
#include "ui/model/app_state.h"
#include "ui/model/lessons.h"
#include "ui/model/prefs.h"
#include "ui/model/session_files.h"
#include "ui/model/training/training_controller.h"

#include <algorithm>
#include <filesystem>

namespace attnlab
{

namespace
{

std::string config_file(const char* name)
{
    const std::string dir = config_dir();
    return dir.empty() ? std::string() : dir + "/" + name;
}

// Adds a line to the status bar's message: an error joins the errors there (AppState::add_error); a note
// goes after what is there, so an error stays in sight.
void add_message(AppState& state, const std::string& text, bool is_error)
{
    if (is_error)
        state.add_error(text);
    else if (state.message.empty())
        state.set_message(text, false);
    else
        state.set_message(state.message + "  |  " + text, state.message_is_error);
}

std::filesystem::file_time_type modified(const std::string& path)
{
    std::error_code ec;
    const auto t = std::filesystem::last_write_time(path, ec);
    return ec ? std::filesystem::file_time_type::min() : t;
}

// This window's slot and its autosaves: the session's rotated and restored, the model's restored.
void claim_autosaves(AppState& state, const StartupOptions& options, StartupFiles* files)
{
    const std::string dir = config_dir();
    files->slot = WindowSlot::claim(dir);
    const int slot = files->slot.number();
    state.config_folder = dir;
    state.window_slot = slot;
    files->autosave.path = slot > 0 ? window_slot_file(dir, slot, "last_session") : std::string();
    files->model_autosave.path = slot > 0 ? window_slot_file(dir, slot, "last_model") : std::string();
    state.autosave_path = files->autosave.path;
    // A copy of the last run's autosave first: this run may start on another session and autosave it.
    if (Status s = rotate_autosaves(files->autosave.path); !s.is_ok())
        state.add_error(s.message());
    // A further window with no autosave of its own starts where the first window's autosave is, read only.
    std::error_code ec;
    const bool own_session = slot == 1 || std::filesystem::exists(files->autosave.path, ec);
    if (!options.session_from_command_line)
    {
        const Status s = own_session ? restore_autosave(state, files->autosave)
                                     : restore_autosave_copy(state, window_slot_file(dir, 1, "last_session"));
        if (!s.is_ok())
            state.add_error(s.message() + " (the built-in session is shown)");
    }
    // The model trained last time comes back in the Training panel (unless a model or task was asked for).
    ModelAutosave& model = files->model_autosave;
    const std::string own_model = model.path;
    if (slot != 1 && !std::filesystem::exists(own_model, ec))
        model.path = window_slot_file(dir, 1, "last_model");
    const bool show = state.prefs.open[static_cast<std::size_t>(PanelId::Training)];
    if (!options.model && !options.train_task)
        if (Status s = restore_model_autosave(state, model, show); !s.is_ok())
            state.add_error(s.message());
    model.path = own_model;

    if (slot == 0)
        add_message(state,
                    std::to_string(kMaxWindowSlots) + " other windows use " + dir +
                        ": this window's work is not autosaved (File > Save session as keeps it)",
                    true);
    else if (slot > 1)
        add_message(state,
                    "Another Attention Lab window uses " + dir + ": this window autosaves to " +
                        files->autosave.path + " (File > Recent lists every window's autosave)",
                    false);
    // Work a window left in its own autosave (it ran beside another one, or crashed) and that is newer than
    // this window's: said once per start, until this window's autosave is newer.
    const auto own_time = modified(files->autosave.path);
    for (const std::string& other : other_window_autosaves(dir, slot))
        if (other != window_slot_file(dir, 1, "last_session") && modified(other) > own_time)
        {
            add_message(state,
                        "A window that ran beside another one left its work in " + other +
                            " (File > Recent opens it)",
                        false);
            break;
        }
}

// Preferences, recent files, the autosaved session and model (a window, not a picture).
void read_config(AppState& state, const StartupOptions& options, StartupFiles* files)
{
    std::error_code ec;
    std::filesystem::create_directories(config_dir(), ec);
    // No preferences yet: the very first start, which points to the tour.
    state.show_tour_hint = !std::filesystem::exists(prefs_path(), ec);
    if (Status s = load_prefs(prefs_path(), state.prefs); !s)
        state.add_error(s.message());
    if (state.show_tour_hint) // written now, so even a run that is killed shows the hint only once
        save_prefs(prefs_path(), state.prefs);
    files->imgui_ini = config_file("imgui.ini");
    state.recent_files_path = recent_files_path();
    load_recent_files_into(state);
    state.opened.recent_path = recent_models_path();
    load_recent_models_into(state);
    if (!state.session_path.empty())
    {
        push_recent_file(state.recent_files, state.session_path);
        save_recent_files(state.recent_files_path, state.recent_files);
    }
    claim_autosaves(state, options, files);
}

// The session's weights file, when it names one (a file that does not load is a message: seeded weights).
void load_weights(AppState& state)
{
    if (state.session.weights_path.empty())
        return;
    ModelWeights weights;
    if (const Status s = load_any_weights_file(state.session.weights_path, state.session.config, &weights);
        !s)
        state.add_error(s.message());
    else
        state.engine.set_imported_weights(std::move(weights));
}

// The lesson (with the user's session kept aside, so leaving it gives it back), the task or the model.
void open_asked_for(AppState& state, const StartupOptions& options)
{
    state.lesson.library = options.lessons;
    if (options.lesson >= 0 && options.lesson < static_cast<int>(options.lessons.lessons.size()))
        enter_lesson(state, options.lesson, std::max(0, options.lesson_step - 1));
    if (options.train_task)
    {
        open_training(state, *options.train_task, options.train_steps);
        state.presenter_view = PresenterView::Training; // presenter mode shows the run asked for
    }
    if (options.model)
    {
        if (const Status s = open_model(state, *options.model, options.model_path); !s)
            state.add_error(s.message());
    }
    else if (!options.session.model_path.empty() && !options.train_task)
    {
        // The trained model the session names, as File > Open opens it.
        if (const Status s = open_session_model(state, options.session.model_path, "The session opened"); !s)
            state.add_error(s.message());
    }
    if (options.trained_view && state.training_run.configured())
    {
        set_trained_view(state, true);
        state.prefs.open[static_cast<std::size_t>(PanelId::Training)] = false;
    }
}

// --model DIR, or the folder the session refers to: loaded on its thread in a window (the progress popup
// shows), at once for a picture. A folder that does not open is a message.
void open_model_folder_asked_for(AppState& state, const StartupOptions& options)
{
    state.opened.load_wait_ms = options.picture ? -1.0 : 0.0;
    if (!options.model_folder.empty())
    {
        if (const Status s = open_model_folder(state, options.model_folder); !s)
            state.add_error(s.message());
    }
    else if (!state.session.model_folder.empty())
        reopen_session_model(state, "The session opened");
}

void apply_theme(AppState& state, const StartupOptions& options)
{
    if (options.lesson_export && !prefs_path().empty())
    {
        // Lesson slides follow the window's choices that change a slide (View > Dark theme, View > Light
        // presenter theme, View > Stretch weight colours; --theme says otherwise for the themes), so they are
        // the files File > Export lesson slides writes.
        ViewPrefs saved;
        load_prefs(prefs_path(), saved);
        state.prefs.dark_theme = saved.dark_theme;
        state.prefs.presenter_light = saved.presenter_light;
        state.prefs.stretch_weights = saved.stretch_weights;
    }
    if (!options.theme.empty())
    {
        state.prefs.dark_theme = options.theme == "dark";
        state.prefs.presenter_light = options.theme == "light"; // presenter mode's theme follows it
    }
}

} // namespace

std::string prefs_path()
{
    return config_file("prefs.ini");
}
std::string autosave_path()
{
    return config_file("last_session.json");
}
std::string model_autosave_path()
{
    return config_file("last_model.json");
}
std::string recent_files_path()
{
    return config_file("recent_sessions.txt");
}
std::string recent_models_path()
{
    return config_file("recent_models.txt");
}

std::unique_ptr<AppState> start_app(const StartupOptions& options, float content_scale, StartupFiles* files)
{
    auto state = std::make_unique<AppState>();
    state->content_scale = content_scale;
    state->session = options.session;
    state->saved_session = options.session; // what the run begins with is not an unsaved change
    state->session_path = options.session_path;
    *files = StartupFiles{};
    if (options.picture)
        state->mouse_ignored = true;
    else if (!config_dir().empty())
        read_config(*state, options, files);
    load_weights(*state);
    open_asked_for(*state, options);
    open_model_folder_asked_for(*state, options);
    state->presenter = options.presenter;
    state->prefs.whole_batch = state->prefs.whole_batch || options.whole_batch;
    apply_theme(*state, options);
    return state;
}

} // namespace attnlab
