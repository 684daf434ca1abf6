// Session files in the app: open and save with the recent files list, and the autosave that a crash or a
// closed window never loses.
#include "ui/model/session_files.h"

#include "core/io/atomic_file.h"
#include "core/io/builtin_models.h"
#include "core/io/json_io.h"
#include "core/io/model_file.h"
#include "core/io/session_file.h"
#include "ui/model/config_files.h"
#include "ui/model/lessons.h"
#include "ui/model/training/training_controller.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

namespace attnlab
{

namespace
{

void remember(AppState& state, const std::string& path)
{
    push_recent_file(state.recent_files, path);
    if (!state.recent_files_path.empty())
        save_recent_files(state.recent_files_path, state.recent_files);
}

// The file the user's own session came from (during a lesson the one kept aside); "" : none.
std::string& user_session_path(AppState& state)
{
    return lesson_active(state) ? state.lesson.user_session_path : state.session_path;
}

// The same file, however its path was written ("./a.json", "/home/x/a.json").
bool same_file(const std::string& a, const std::string& b)
{
    if (a.empty() || b.empty())
        return false;
    std::error_code ec_a, ec_b;
    const auto norm_a = std::filesystem::absolute(a, ec_a).lexically_normal();
    const auto norm_b = std::filesystem::absolute(b, ec_b).lexically_normal();
    return ec_a || ec_b ? a == b : norm_a == norm_b;
}

} // namespace

// [SECTION] Open and save

namespace
{

// Loads a session file and its weights into state (leaving an open lesson first). On error nothing changes.
// A weights file that does not load is reported in the status bar, and the session opens with seeded weights.
Status load_into_state(AppState& state, const std::string& path, const std::string& opened_message)
{
    Session loaded;
    if (Status s = load_session_file(path, &loaded); !s.is_ok())
        return s;
    // In memory the weights path is absolute, so the autosave and a later "save as" elsewhere still find it.
    loaded.weights_path = absolute_weights_path(path, loaded.weights_path);
    loaded.model_path = absolute_weights_path(path, loaded.model_path);
    loaded.model_folder = absolute_weights_path(path, loaded.model_folder);
    ModelWeights weights;
    Status weights_status;
    if (!loaded.weights_path.empty())
        weights_status = load_any_weights_file(loaded.weights_path, loaded.config, &weights);
    if (lesson_active(state))
        leave_lesson(state);
    state.session = loaded;
    state.saved_session = loaded;
    state.engine.clear_imported_weights();
    if (!loaded.weights_path.empty() && weights_status.is_ok())
        state.engine.set_imported_weights(std::move(weights));
    state.edit();
    if (!weights_status.is_ok())
    {
        state.set_message(opened_message + ", but its weights did not load: " + weights_status.message(),
                          true);
        reopen_session_model(state, opened_message);
        return Status();
    }
    state.set_message(opened_message, false);
    if (!loaded.model_path.empty())
        open_session_model(state, loaded.model_path, opened_message); // a failure is said; the session stays
    // The session's model folder (a missing one is said; the session stays open), or none: a model that
    // was open closes.
    reopen_session_model(state, opened_message);
    return Status();
}

} // namespace

Status open_session_file(AppState& state, const std::string& path)
{
    ATTNLAB_TRY(load_into_state(state, path, "Opened " + path));
    state.session_path = path;
    remember(state, path);
    return Status();
}

// The file name a session's trained model is saved under: "lecture.json" -> "lecture.model.json".
std::string model_path_beside(const std::string& session_path)
{
    std::filesystem::path p(session_path);
    const std::string stem = p.extension() == ".json" ? p.stem().string() : p.filename().string();
    return (p.parent_path() / (stem + ".model.json")).string();
}

Status save_session_as(AppState& state, const std::string& path)
{
    Session portable = state.session;
    portable.weights_path = portable_weights_path(path, state.session.weights_path);
    portable.model_path = portable_weights_path(path, state.session.model_path);
    portable.model_folder = portable_weights_path(path, state.session.model_folder);
    // A trained model goes with the session (not a lesson step's run): saved beside it unless it is a file
    // already, so the session refers to a model that exists.
    state.training_run.poll(state.training.view);
    const TrainingSnapshot& v = state.training.view;
    if (!lesson_active(state) && v.params() && v.step > 0)
    {
        std::string model = state.training.model_path;
        if (model.empty() || v.step != v.first_step)
        {
            model = model_path_beside(path);
            ATTNLAB_TRY(write_model_file(model_with_view(state), model));
            state.training.model_path = model;
        }
        portable.model_path = portable_weights_path(path, absolute_weights_path("", model));
    }
    if (Status s = save_session_file(portable, path); !s.is_ok())
        return s;
    state.session_path = path;
    if (!lesson_active(state)) // during a lesson the step's session was saved: the user's own is not
        state.saved_session = state.session;
    remember(state, path);
    state.set_message("Saved " + path, false);
    return Status();
}

// [SECTION] Unsaved changes

bool has_unsaved_changes(const AppState& state)
{
    return !state.saved_session.has_value() || user_session(state) != *state.saved_session;
}

Status request_open_session(AppState& state, const std::string& path, bool autosave)
{
    if (!has_unsaved_changes(state))
        return autosave ? open_autosave_file(state, path) : open_session_file(state, path);
    Session check; // read now, so a file that cannot open never asks a question first
    ATTNLAB_TRY(load_session_file(path, &check));
    UnsavedPrompt& u = state.unsaved;
    u.path = path;
    u.autosave = autosave;
    u.open_request = true;
    u.error.clear();
    const std::string& own = user_session_path(state);
    u.save_path = own.empty() ? "session.json" : own;
    return Status();
}

Status answer_unsaved_changes(AppState& state, UnsavedAnswer answer)
{
    UnsavedPrompt& u = state.unsaved;
    if (u.path.empty())
        return Status();
    if (answer == UnsavedAnswer::Cancel)
    {
        state.set_message("Kept the session on screen; " + u.path + " was not opened", false);
        u = UnsavedPrompt{};
        return Status();
    }
    if (answer == UnsavedAnswer::Save)
        if (Status s = save_user_session(state, u.save_path); !s.is_ok())
        {
            u.error = "Not saved: " + s.message();
            return s;
        }
    const UnsavedPrompt waiting = u;
    u = UnsavedPrompt{};
    const Status s =
        waiting.autosave ? open_autosave_file(state, waiting.path) : open_session_file(state, waiting.path);
    if (!s.is_ok())
        state.set_message(s.message() + " (the current session stays)", true);
    else if (answer == UnsavedAnswer::Save && !state.message_is_error)
        state.set_message("Saved " + waiting.save_path + ", then opened " + waiting.path, false);
    return s;
}

Status save_user_session(AppState& state, const std::string& path)
{
    if (path.empty())
        return Status::error("type the name of the file to save the session to");
    const Session& own = user_session(state);
    Session portable = own;
    portable.weights_path = portable_weights_path(path, own.weights_path);
    ATTNLAB_TRY(save_session_file(portable, path));
    user_session_path(state) = path;
    state.saved_session = own;
    remember(state, path);
    state.set_message("Saved " + path, false);
    return Status();
}

Status open_recent_file(AppState& state, const std::string& path)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
    {
        drop_missing_files(state.recent_files);
        if (!state.recent_files_path.empty())
            save_recent_files(state.recent_files_path, state.recent_files);
        std::string text =
            path + " no longer exists: removed from the recent files; the session on screen stays";
        std::string& own = user_session_path(state);
        if (same_file(path, own))
        {
            // Its file is gone: Ctrl+S must ask where to save it, and opening another file must ask first.
            own.clear();
            state.saved_session.reset();
            text += ", unsaved";
        }
        state.set_message(text, true);
        return Status::error(text);
    }
    Status s =
        looks_like_model_file(path) ? request_open_model(state, path) : request_open_session(state, path);
    if (!s.is_ok())
        state.set_message(s.message() + " (the current session stays)", true);
    return s;
}

// [SECTION] Quitting

namespace
{

// The user's trained model that a quit could lose: its task and step, or false when there is none (no run,
// a run with no step taken, or a lesson's run). While an opened model's timeline is replayed, the model is
// the one replayed to, at its step (the run on screen is on its way there).
bool user_model_step(const AppState& state, train::TaskKind* task, int* step)
{
    if (!state.training_run.configured() || lesson_active(state))
        return false;
    const TrainingPanelState& ts = state.training;
    if (ts.replay_expect != nullptr)
    {
        *task = ts.view.config.task; // the replay's run is configured from the replayed model
        *step = ts.replay_target;
        return true;
    }
    const TrainingSnapshot& v = ts.view;
    if (!v.params() || (v.step == v.first_step && v.first_step == 0))
        return false;
    *task = v.config.task;
    *step = v.step;
    return true;
}

// Remembers that a file holds the Training panel's model at its current task and step.
void mark_model_in_file(AppState& state)
{
    const TrainingSnapshot& v = state.training.view;
    state.quit.model_file_task = train::task_info(v.config.task).key;
    state.quit.model_file_step = v.step;
}

// Where Save writes the model at a quit: its own file (last opened or saved), else "trained_model.json"
// beside the session's own file, or in the current folder when it has none.
std::string default_model_save_path(AppState& state)
{
    if (!state.training.model_path.empty())
        return state.training.model_path;
    const std::string& own = user_session_path(state);
    if (own.empty())
        return "trained_model.json";
    return (std::filesystem::path(own).parent_path() / "trained_model.json").string();
}

} // namespace

bool quit_would_lose_work(const AppState& state, const Autosave& autosave)
{
    if (!has_unsaved_changes(state))
        return false;
    return autosave.path.empty() || !autosave.has_written || autosave.written != user_session(state);
}

bool quit_would_lose_model(const AppState& state, const ModelAutosave& model_autosave)
{
    train::TaskKind kind{};
    int step = 0;
    if (!user_model_step(state, &kind, &step))
        return false;
    const std::string task = train::task_info(kind).key;
    if (task == state.quit.model_file_task && step == state.quit.model_file_step)
        return false;
    const bool autosaved = !model_autosave.path.empty() && model_autosave.error.empty() &&
                           model_autosave.written_task == task && model_autosave.written_step == step;
    return !autosaved;
}

bool quit_now_or_ask(AppState& state, Autosave& autosave, ModelAutosave& model_autosave, double now_s)
{
    autosave_tick(state, autosave, now_s, true);
    model_autosave_tick(state, model_autosave, true);
    if (state.training_run.configured())
        state.training_run.poll(state.training.view);
    if (state.quit.confirmed)
        return true;
    const bool session = quit_would_lose_work(state, autosave);
    const bool model = quit_would_lose_model(state, model_autosave);
    if (!session && !model)
        return true;
    QuitPrompt& q = state.quit;
    q.session = session;
    q.model = model;
    q.reason = autosave.path.empty()    ? std::string("this window has no autosave")
               : autosave.error.empty() ? std::string("the autosave has not written it yet")
                                        : "the autosave failed: " + autosave.error;
    train::TaskKind kind{};
    int step = 0;
    if (model && user_model_step(state, &kind, &step))
        q.model_name = std::string(train::task_info(kind).title) + ", step " + std::to_string(step);
    q.model_reason = model_autosave.path.empty()    ? std::string("this window has no model autosave")
                     : model_autosave.error.empty() ? std::string("the model autosave has not written it yet")
                                                    : "the model autosave failed: " + model_autosave.error;
    if (!q.asking)
    {
        const std::string& own = user_session_path(state);
        q.save_path = own.empty() ? "session.json" : own;
        q.model_save_path = default_model_save_path(state);
        q.error.clear();
    }
    q.asking = true;
    q.open_request = true;
    return false;
}

Status answer_quit(AppState& state, QuitAnswer answer)
{
    QuitPrompt& q = state.quit;
    if (answer == QuitAnswer::Cancel)
    {
        const std::string what = q.session && q.model ? "the session on screen and the trained model are"
                                 : q.model            ? "the trained model is"
                                                      : "the session on screen is";
        const std::string how = q.session && q.model ? "File > Save session as and Save model keep them"
                                : q.model            ? "Save model in the Training panel keeps it"
                                                     : "File > Save session as keeps it";
        state.set_message("Quit cancelled: " + what + " still in no file (" + how + ")", true);
        QuitPrompt kept;
        kept.model_file_task = q.model_file_task;
        kept.model_file_step = q.model_file_step;
        q = kept;
        return Status();
    }
    if (answer == QuitAnswer::Save)
    {
        // What is written is no longer asked about, so a second Save after a failure writes only the rest.
        if (q.session)
        {
            if (Status s = save_user_session(state, q.save_path); !s.is_ok())
            {
                q.error = "Not saved: " + s.message();
                return s;
            }
            q.session = false;
        }
        if (q.model)
        {
            if (Status s = save_model_file(state, q.model_save_path); !s.is_ok())
            {
                q.error = "The model was not saved: " + s.message();
                return s;
            }
            q.model = false;
        }
    }
    q.asking = false;
    q.confirmed = answer == QuitAnswer::Quit;
    state.request_quit = true;
    return Status();
}

// [SECTION] Trained models and training curves

Status open_model_file(AppState& state, const std::string& path)
{
    TrainedModel model;
    ATTNLAB_TRY(load_model_file(path, &model));
    return open_model(state, model, path);
}

Status open_model(AppState& state, const TrainedModel& model, const std::string& path)
{
    ATTNLAB_TRY(open_trained_model(state, model));
    state.training.model_path = path;
    state.quit.model_file_task = model.task;
    state.quit.model_file_step = model.steps_taken;
    remember(state, path);
    state.set_message("Opened the trained model " + path + " (" + model.task + ", step " +
                          std::to_string(model.steps_taken) + ")",
                      false);
    return Status();
}

Status open_session_model(AppState& state, const std::string& path, const std::string& opened_message)
{
    TrainedModel model;
    Status s = load_model_file(path, &model);
    if (s.is_ok())
        s = open_trained_model(state, model, state.trained_view.on || model.view_main_panels);
    if (!s.is_ok())
    {
        state.set_message(
            opened_message + ", but its trained model " + path + " did not open: " + s.message(), true);
        return Status::error(state.message);
    }
    state.training.model_path = path;
    // The model is its file as saved: quitting does not ask to save it again.
    state.quit.model_file_task = model.task;
    state.quit.model_file_step = model.steps_taken;
    return Status();
}

bool model_in_no_file(const AppState& state)
{
    train::TaskKind kind{};
    int step = 0;
    if (!user_model_step(state, &kind, &step))
        return false;
    return train::task_info(kind).key != state.quit.model_file_task || step != state.quit.model_file_step;
}

Status request_open_model(AppState& state, const std::string& path, const std::string& builtin_key)
{
    // Read first, so a file that cannot open never asks a question.
    TrainedModel model;
    ATTNLAB_TRY(path.empty() ? load_builtin_model(builtin_key, &model) : load_model_file(path, &model));
    if (!model_in_no_file(state))
        return path.empty() ? open_builtin_model(state, builtin_key) : open_model(state, model, path);
    ReplaceModelPrompt& r = state.replace_model;
    r = ReplaceModelPrompt{};
    r.path = path;
    r.builtin_key = builtin_key;
    const BuiltinModel* builtin = find_builtin_model(builtin_key);
    r.opening = !path.empty()        ? path
                : builtin != nullptr ? std::string("the built-in model “") + builtin->title + "”"
                                     : "the built-in model " + builtin_key;
    r.open_request = true;
    train::TaskKind kind{};
    int step = 0;
    user_model_step(state, &kind, &step);
    r.model_name = std::string(train::task_info(kind).title) + ", step " + std::to_string(step);
    r.save_path = default_model_save_path(state);
    return Status();
}

Status answer_replace_model(AppState& state, UnsavedAnswer answer)
{
    ReplaceModelPrompt& r = state.replace_model;
    if (!r.waiting())
        return Status();
    const std::string what = r.opening;
    if (answer == UnsavedAnswer::Cancel)
    {
        state.set_message("Kept the trained model on screen; " + what + " was not opened", false);
        r = ReplaceModelPrompt{};
        return Status();
    }
    if (answer == UnsavedAnswer::Save)
        if (Status s = save_model_file(state, r.save_path); !s.is_ok())
        {
            r.error = "Not saved: " + s.message();
            return s;
        }
    const ReplaceModelPrompt waiting = r;
    r = ReplaceModelPrompt{};
    const Status s = waiting.path.empty() ? open_builtin_model(state, waiting.builtin_key)
                                          : open_model_file(state, waiting.path);
    if (!s.is_ok())
        state.set_message(s.message() + " (the trained model on screen stays)", true);
    else if (answer == UnsavedAnswer::Save)
        state.set_message("Saved the trained model to " + waiting.save_path + ", then opened " + what, false);
    return s;
}

Status open_builtin_model(AppState& state, const std::string& key)
{
    TrainedModel model;
    ATTNLAB_TRY(load_builtin_model(key, &model));
    ATTNLAB_TRY(open_trained_model(state, model));
    // Not the model's own file: Save asks where (the asset stays as its command made it), Recent skips it.
    state.training.model_path.clear();
    state.quit.model_file_task = model.task;
    state.quit.model_file_step = model.steps_taken;
    state.set_message("Opened the built-in model " + key + " (" + model.task + ", step " +
                          std::to_string(model.steps_taken) + ")",
                      false);
    return Status();
}

Status save_model_file(AppState& state, const std::string& path)
{
    // The snapshot is consistent even while the worker trains: it was published whole.
    state.training_run.poll(state.training.view);
    const TrainingSnapshot& v = state.training.view;
    if (!v.params())
        return Status::error("there is no trained model yet: pick a task in the Training panel first");
    ATTNLAB_TRY(write_model_file(model_with_view(state), path));
    state.training.model_path = path;
    mark_model_in_file(state);
    remember(state, path);
    state.set_message("Saved the model at step " + std::to_string(v.step) + " to " + path, false);
    return Status();
}

bool looks_like_model_file(const std::string& path)
{
    // The format line is written first: the file's first 4 KiB say it (a model can be hundreds of MB). Only
    // a regular file is opened: a FIFO would block the open, and the loader refuses it with a message.
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        return false;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    return head.find("\"attnlab-model\"") != std::string::npos;
}

std::string curves_csv(const TrainingSnapshot& run)
{
    std::string out = "step,train_loss,held_out_loss,held_out_accuracy";
    const int h = run.model.n_heads;
    const int n = run.model.n_layers * h;
    for (int k = 0; k < n; ++k)
        for (const char* score : {"previous_token", "induction", "diagonal", "anti_diagonal"})
            out += ",L" + std::to_string(k / h + 1) + "h" + std::to_string(k % h + 1) + "_" + score;
    out += "\n";
    for (const TrainingEval& e : run.evals)
    {
        out += std::to_string(e.step) + "," + format_number(static_cast<double>(e.train_loss)) + "," +
               format_number(static_cast<double>(e.loss)) + "," +
               format_number(static_cast<double>(e.accuracy));
        for (int k = 0; k < n; ++k)
        {
            const train::HeadScores s = k < static_cast<int>(e.heads.size())
                                            ? e.heads[static_cast<std::size_t>(k)]
                                            : train::HeadScores{};
            for (const double x : {s.previous_token, s.induction, s.diagonal, s.anti_diagonal})
                out += "," + format_number(x);
        }
        out += "\n";
    }
    return out;
}

Status write_curves_csv(const TrainingSnapshot& run, const std::string& path)
{
    if (run.evals.empty())
        return Status::error("no curves yet: train a few steps first (a point is taken every " +
                             std::to_string(run.eval_every) + " steps)");
    AtomicFile file;
    ATTNLAB_TRY(file.open(path));
    file.write(curves_csv(run));
    return file.commit();
}

namespace
{

// The "view" fields alone (no copy of the weights: the autosave compares them every frame).
void fill_view(const AppState& state, TrainedModel& m)
{
    const TrainingPanelState& ts = state.training;
    m.has_view = true;
    m.view_step = ts.follow_latest ? ts.view.step : std::clamp(ts.shown_step, 0, ts.view.step);
    m.view_main_panels = state.trained_view.on;
    m.view_probe = ts.probe_text == ts.view.probe_text ? std::string() : ts.probe_text;
}

std::string view_key(const TrainedModel& m)
{
    return std::to_string(m.view_step) + (m.view_main_panels ? "/main/" : "/panel/") + m.view_probe;
}

double seconds_now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace

TrainedModel model_with_view(const AppState& state)
{
    TrainedModel m = state.training.view.trained_model();
    fill_view(state, m);
    return m;
}

bool model_autosave_tick(AppState& state, ModelAutosave& autosave, bool force)
{
    if (autosave.path.empty() || !state.training_run.configured() ||
        (state.training_run.running() && !force) || state.training.replay_expect != nullptr ||
        lesson_active(state))
        return false;
    state.training_run.poll(state.training.view);
    const TrainingSnapshot& v = state.training.view;
    const std::string task = train::task_info(v.config.task).key;
    if (!v.params() || (v.step == v.first_step && v.first_step == 0))
        return false;
    const bool new_step = v.step != autosave.written_step || task != autosave.written_task;
    // Where the user is on the model (timeline, main panels, probe) is kept too, at most every 2 s while it
    // changes (scrubbing), and always at exit.
    TrainedModel view;
    fill_view(state, view);
    const std::string key = view_key(view);
    const double now = seconds_now();
    const bool new_view = key != autosave.written_view && (force || now - autosave.last_write_s > 2.0);
    if (!new_step && !new_view)
        return false;
    autosave.last_write_s = now;
    autosave.written_view = key;
    // The app's own file: a link at its name is replaced, never written through.
    AtomicFile file;
    Status s = file.open(autosave.path, OutputKind::OwnFile);
    if (s.is_ok())
        s = write_model_file(model_with_view(state), file);
    if (!s.is_ok())
    {
        if (s.message() != autosave.error)
            state.set_message("The trained model could not be kept: " + s.message(), true);
        autosave.error = s.message();
        autosave.written_step = v.step; // not again for this step: the next step tries again
        autosave.written_task = task;
        return false;
    }
    autosave.error.clear();
    autosave.written_step = v.step;
    autosave.written_task = task;
    return true;
}

Status restore_model_autosave(AppState& state, ModelAutosave& autosave, bool show)
{
    if (autosave.path.empty() || !std::filesystem::exists(autosave.path))
        return Status();
    TrainedModel model;
    if (Status s = load_model_file(autosave.path, &model); !s)
        return Status::error("the last trained model did not open: " + s.message());
    ATTNLAB_TRY(open_trained_model(state, model, show));
    autosave.written_step = model.steps_taken;
    autosave.written_task = model.task;
    autosave.written_view = model.has_view ? view_key(model) : std::string();
    return Status();
}

// [SECTION] Recent files

std::vector<std::string> load_recent_files(const std::string& path, Status* status)
{
    std::string text;
    Status s = read_config_file(path, &text, "recent files list", "the recent files list starts empty");
    if (status != nullptr)
        *status = s;
    return recent_files_from_text(text, kMaxRecentFiles);
}

Status save_recent_files(const std::string& path, const std::vector<std::string>& files)
{
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (!dir.empty())
        std::filesystem::create_directories(dir, ec);
    return write_file_atomically(path, recent_files_to_text(files), OutputKind::OwnFile);
}

void push_recent_file(std::vector<std::string>& files, const std::string& path)
{
    std::error_code ec;
    std::string entry = std::filesystem::absolute(path, ec).lexically_normal().string();
    if (ec)
        entry = path;
    files.erase(std::remove(files.begin(), files.end(), entry), files.end());
    files.insert(files.begin(), entry);
    if (static_cast<int>(files.size()) > kMaxRecentFiles)
        files.resize(static_cast<std::size_t>(kMaxRecentFiles));
}

std::vector<std::string> drop_missing_files(std::vector<std::string>& files, bool folders)
{
    std::vector<std::string> dropped;
    auto missing = [&](const std::string& f)
    {
        std::error_code ec;
        if (folders ? std::filesystem::is_directory(f, ec) : std::filesystem::is_regular_file(f, ec))
            return false;
        dropped.push_back(f);
        return true;
    };
    files.erase(std::remove_if(files.begin(), files.end(), missing), files.end());
    return dropped;
}

void load_recent_files_into(AppState& state)
{
    if (state.recent_files_path.empty())
        return;
    Status read;
    state.recent_files = load_recent_files(state.recent_files_path, &read);
    if (!read)
    {
        state.add_error(read.message());
        return;
    }
    const std::vector<std::string> dropped = drop_missing_files(state.recent_files);
    if (dropped.empty())
        return;
    save_recent_files(state.recent_files_path, state.recent_files);
    std::string names;
    for (const std::string& f : dropped)
        names += (names.empty() ? "" : ", ") + f;
    state.set_message("Removed from the recent files (no longer there): " + names, false);
}

// [SECTION] Autosave

bool autosave_tick(AppState& state, Autosave& autosave, double now_s, bool force)
{
    autosave.pending = false;
    if (autosave.path.empty())
        return false;
    const Session& session = user_session(state);
    if (autosave.has_written && session == autosave.written)
        return false;
    if (!force && now_s - autosave.last_write_s < autosave.min_interval_s)
    {
        autosave.pending = autosave.error.empty(); // a failing write is tried again, but at the idle rate
        return false;
    }
    autosave.last_write_s = now_s;
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(autosave.path).parent_path(), ec);
    // The app's own file: a link at its name is replaced, never written through (save_session_file would).
    if (Status s = write_file_atomically(autosave.path, session_to_json(session), OutputKind::OwnFile);
        !s.is_ok())
    {
        if (s.message() != autosave.error)
            state.set_message(
                "Autosave failed: " + s.message() +
                    "; your changes are not kept if the app closes (use File > Save session as)",
                true);
        autosave.error = s.message();
        return false;
    }
    if (!autosave.error.empty())
        state.set_message("Autosave works again: " + autosave.path, false);
    autosave.error.clear();
    autosave.written = session;
    autosave.has_written = true;
    ++autosave.writes;
    return true;
}

namespace
{

// "dir/last_session.2.json" for "dir/last_session.json" and 2.
std::string kept_autosave_path(const std::string& path, int n)
{
    const std::filesystem::path p(path);
    return (p.parent_path() / (p.stem().string() + "." + std::to_string(n) + p.extension().string()))
        .string();
}

} // namespace

Status rotate_autosaves(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (path.empty() || !fs::is_regular_file(path, ec))
        return Status();
    std::string current, newest;
    if (Status s = read_file(path, &current, kMaxSessionFileBytes, "session file"); !s.is_ok())
        return Status::error("the autosave was not copied before this run: " + s.message());
    if (read_file(kept_autosave_path(path, 1), &newest).is_ok() && newest == current)
        return Status();
    for (int n = kKeptAutosaves - 1; n >= 1; --n)
    {
        const std::string from = kept_autosave_path(path, n);
        if (fs::is_regular_file(from, ec))
            fs::rename(from, kept_autosave_path(path, n + 1), ec);
    }
    if (Status s = write_file_atomically(kept_autosave_path(path, 1), current, OutputKind::OwnFile);
        !s.is_ok())
        return Status::error("the autosave was not copied before this run: " + s.message());
    return Status();
}

std::vector<std::string> autosave_files(const std::string& path)
{
    std::vector<std::string> files;
    if (path.empty())
        return files;
    std::error_code ec;
    for (int n = 0; n <= kKeptAutosaves; ++n)
    {
        const std::string f = n == 0 ? path : kept_autosave_path(path, n);
        if (std::filesystem::is_regular_file(f, ec))
            files.push_back(f);
    }
    return files;
}

std::string unreadable_autosave_path(const std::string& path)
{
    const std::filesystem::path p(path);
    std::error_code ec;
    for (int n = 1;; ++n)
    {
        const std::string suffix = n == 1 ? "-unreadable" : "-unreadable-" + std::to_string(n);
        const std::filesystem::path candidate =
            p.parent_path() / (p.stem().string() + suffix + p.extension().string());
        if (!std::filesystem::exists(std::filesystem::symlink_status(candidate, ec)) || n >= 1000)
            return candidate.string();
    }
}

Status open_autosave_file(AppState& state, const std::string& path)
{
    ATTNLAB_TRY(load_into_state(
        state, path, "Opened the autosave " + path + " (unsaved: File > Save session as keeps it)"));
    state.session_path.clear();
    return Status();
}

Status restore_autosave_copy(AppState& state, const std::string& path)
{
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec))
        return Status();
    Session restored;
    if (Status s = load_session_file(path, &restored); !s.is_ok())
        return Status::error("the autosaved session was not restored: " + s.message());
    restored.weights_path = absolute_weights_path(path, restored.weights_path);
    state.session = restored;
    state.saved_session = restored;
    state.edit();
    return Status();
}

Status restore_autosave(AppState& state, Autosave& autosave)
{
    std::error_code ec;
    if (autosave.path.empty() || !std::filesystem::exists(autosave.path, ec))
        return Status();
    Session restored;
    if (Status s = load_session_file(autosave.path, &restored); !s.is_ok())
    {
        // The file is moved aside before the next autosave can replace it: a session from a newer version,
        // or one a crash damaged, may still be the only copy of someone's work.
        const std::string kept = unreadable_autosave_path(autosave.path);
        std::filesystem::rename(autosave.path, kept, ec);
        if (ec)
        {
            autosave.path.clear(); // cannot move it: never write over it in this run
            return Status::error("the autosaved session was not restored: " + s.message() +
                                 "; autosave is off in this run so the file is left as it was");
        }
        return Status::error("the autosaved session was not restored: " + s.message() + "; it is kept as " +
                             kept);
    }
    restored.weights_path = absolute_weights_path(autosave.path, restored.weights_path);
    state.session = restored;
    state.saved_session = restored;
    state.edit();
    autosave.written = restored;
    autosave.has_written = true;
    return Status();
}

} // namespace attnlab
