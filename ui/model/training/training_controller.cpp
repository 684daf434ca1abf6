// The Training panel's controller: applies its fields to the run, keeps the probe in step, plays, steps and
// replays runs, queues a lesson's runs on the worker, opens trained models, and copies the shown step into
// the main panels (the trained view). No ImGui: ui/panels/training_panel.cpp draws it.
#include "ui/model/training/training_controller.h"

#include "core/io/builtin_models.h"
#include "core/train/model_trace.h"
#include "core/train/tasks.h"
#include "core/train/token_text.h"
#include "ui/model/lessons.h"

#include <algorithm>
#include <string>
#include <vector>

namespace attnlab
{

// The fields that need a new model (everything but the target step count).
bool same_model(const train::RunSpec& a, const train::RunSpec& b)
{
    train::RunSpec x = a;
    x.steps = b.steps;
    return x == b;
}

void apply_training_fields(AppState& state)
{
    TrainingPanelState& ts = state.training;
    if (ts.edit.task != ts.view.config.task || !state.training_run.configured())
        ts.score_kind = static_cast<int>(train::task_info(ts.edit.task).score);
    ts.raised_from = ts.raised_to = -1; // a new run from the fields: their target is the target
    ts.lesson_key.clear();
    ts.lesson_queue.clear(); // the user's own fields: a lesson's runs waiting are dropped
    const Status s = state.training_run.configure(ts.edit);
    ts.error = s.is_ok() ? std::string() : s.message();
    ts.notice.clear();
    ts.error_for = ts.edit;
    state.training_run.poll(ts.view);
    ts.follow_latest = true;
    if (!ts.run_message.empty() && state.message == ts.run_message)
        state.set_message("", false);
    ts.run_message.clear();
}

// Keeps the probe in step with the run: a new task brings its own default sequence; an edited text is parsed
// (a wrong token is a message and the last good probe stays).
void sync_probe(TrainingPanelState& ts)
{
    const TrainingSnapshot& v = ts.view;
    if (v.vocabulary != ts.probe_vocabulary)
    {
        ts.probe_vocabulary = v.vocabulary;
        ts.probe_text = v.probe_text;
        ts.probe_dirty = true;
    }
    if (!ts.probe_dirty)
        return;
    ts.probe_dirty = false;
    train::Batch batch;
    Status s;
    if (v.config.task == train::TaskKind::Text)
    {
        // A text model reads the probe as characters or words, one token each (an unknown one as U+FFFD).
        train::TextVocabulary text;
        s = train::TextVocabulary::from_symbols(v.config.level, v.vocabulary, &text);
        if (s)
            s = train::plain_text_batch(ts.probe_text, text, v.model.T_max, &batch);
        if (s) // the word-start score on the probe looks for the same spaces as on held-out text
        {
            ts.probe.set_word_boundaries(text.word_boundaries());
            ts.compare_probe.set_word_boundaries(text.word_boundaries());
        }
    }
    else
    {
        s = train::text_batch(ts.probe_text, v.vocabulary, v.model.T_max, &batch);
        ts.probe.set_word_boundaries({});
        ts.compare_probe.set_word_boundaries({});
    }
    if (s && batch.B != 1)
        s = Status::error("the probe is one sequence: write it on one line");
    if (s) // the positions the task scores, with its targets: the loss and gradients shown are the trained
           // ones
        train::Task(v.config.task).label(batch, static_cast<int>(v.vocabulary.size()));
    if (!s)
    {
        ts.probe_error = s.message();
        return;
    }
    ts.probe_error.clear();
    ts.probe_batch = std::move(batch);
    ++ts.probe_version;
}

// The frame the maps show: the latest, or the one the timeline is on.
const TrainingFrame* shown_frame(const TrainingPanelState& ts)
{
    const TrainingSnapshot& v = ts.view;
    if (v.timeline.empty())
        return nullptr;
    return ts.follow_latest ? &v.timeline.back() : v.frame_at(ts.shown_step);
}

namespace
{

std::string past_run_key(const PastRun& r)
{
    return r.label + "/" + std::to_string(r.step);
}

} // namespace

bool can_compare_maps(const TrainingPanelState& ts, const PastRun& run)
{
    return run.params != nullptr && run.config.task == ts.view.config.task && ts.probe_batch.T >= 1 &&
           ts.probe_batch.T <= run.model.T_max;
}

const PastRun* compared_run(const TrainingPanelState& ts)
{
    const std::vector<PastRun>& past = ts.view.past;
    if (ts.compare_run < 0)
        return nullptr;
    const PastRun* found = nullptr;
    if (ts.compare_run < static_cast<int>(past.size()) &&
        (ts.compare_key.empty() ||
         past_run_key(past[static_cast<std::size_t>(ts.compare_run)]) == ts.compare_key))
        found = &past[static_cast<std::size_t>(ts.compare_run)];
    else if (!ts.compare_key.empty())
        for (const PastRun& r : past)
            if (past_run_key(r) == ts.compare_key)
                found = &r;
    return found != nullptr && can_compare_maps(ts, *found) ? found : nullptr;
}

void choose_compared_run(TrainingPanelState& ts, int index)
{
    const bool valid = index >= 0 && index < static_cast<int>(ts.view.past.size());
    ts.compare_run = valid ? index : -1;
    ts.compare_key = valid ? past_run_key(ts.view.past[static_cast<std::size_t>(index)]) : std::string();
}

namespace
{

// Play at the target step goes on for the task's preset length again and says so in a line under the
// progress bar. Pressing Play asks for training; refusing would need a second action in another field, and
// raising the target silently leaves the student wondering where the new number came from.
void raise_target(TrainingPanelState& ts, TrainingRun& run)
{
    const int reached = ts.edit.steps;
    const int more = train::RunSpec(ts.edit.task).steps;
    ts.edit.steps =
        std::min(static_cast<int>(train::run_field(train::RunField::Steps).max), ts.view.step + more);
    run.set_target_steps(ts.edit.steps);
    if (ts.raised_to != reached) // raised again: Reset still goes back to the target before the first raise
        ts.raised_from = reached;
    ts.raised_to = ts.edit.steps;
    ts.notice = "Step " + std::to_string(ts.view.step) + " had reached the target of " +
                std::to_string(reached) + " steps: Play goes on for " +
                std::to_string(ts.edit.steps - ts.view.step) + " more, to step " +
                std::to_string(ts.edit.steps) + " (change it in \"target steps\").";
}

} // namespace

namespace
{

// After Play, Step or Reset: the timeline follows the newest step, except on a lesson's run whose step shows
// one step of it (its caption describes that step: the maps stay there while the run trains past it).
void follow_the_run(TrainingPanelState& ts)
{
    const bool lesson_step = !ts.lesson_key.empty() && ts.lesson_step_at >= 0;
    ts.follow_latest = !lesson_step;
    if (lesson_step)
        ts.shown_step = ts.lesson_step_at;
}

} // namespace

void training_play_pause(AppState& state)
{
    TrainingPanelState& ts = state.training;
    TrainingRun& run = state.training_run;
    if (run.running())
    {
        run.pause();
        return;
    }
    if (!same_model(ts.edit, ts.view.config) || !run.configured())
        apply_training_fields(state);
    if (!ts.error.empty())
        return; // the fields are refused (the message says why): nothing trains
    if (ts.view.diverged_at >= 0)
        return; // NaN weights train no further: the panel's message says to lower the rate and Reset
    ts.notice.clear();
    if (ts.view.step >= ts.edit.steps)
        raise_target(ts, run);
    follow_the_run(ts);
    run.play();
}

void training_step(AppState& state, int n)
{
    TrainingPanelState& ts = state.training;
    if (!same_model(ts.edit, ts.view.config) || !state.training_run.configured())
        apply_training_fields(state);
    if (ts.error.empty())
    {
        state.training_run.step_now(n);
        follow_the_run(ts);
    }
}

void training_reset(AppState& state)
{
    TrainingPanelState& ts = state.training;
    // A target that Play raised goes back to what it was (the task's preset, or the lesson's or the field's
    // target): step 0 of 1500 after the preset's 500 would train three times as long as the run asked for.
    if (ts.raised_to >= 0 && ts.edit.steps == ts.raised_to)
    {
        ts.edit.steps = ts.raised_from;
        state.training_run.set_target_steps(ts.edit.steps);
    }
    ts.raised_from = ts.raised_to = -1;
    if (!same_model(ts.edit, ts.view.config) || !state.training_run.configured())
        apply_training_fields(state);
    else
        state.training_run.reset();
    ts.notice.clear();
    if (ts.error.empty())
        follow_the_run(ts);
}

namespace
{

std::string lesson_key(const LessonTraining& t)
{
    if (!t.model.empty())
        return "built-in model " + t.model;
    std::string key;
    for (const train::RunSpec& r : t.compare)
        key += r.label() + "/" + std::to_string(r.steps) + ";";
    return key + t.run.label() + "/" + std::to_string(t.run.steps);
}

// Starts a lesson's next waiting run when the worker is free (the one before joins the earlier runs). The
// step's timeline position, set when the step opened, stays.
void advance_lesson_queue(AppState& state)
{
    TrainingPanelState& ts = state.training;
    TrainingRun& run = state.training_run;
    if (ts.lesson_queue.empty() || run.running())
        return;
    std::vector<train::RunSpec> rest(ts.lesson_queue.begin() + 1, ts.lesson_queue.end());
    ts.edit = ts.lesson_queue.front();
    const std::string key = ts.lesson_key;
    const bool follow = ts.follow_latest;
    const int shown = ts.shown_step;
    apply_training_fields(state);
    ts.lesson_key = key;
    ts.follow_latest = follow;
    ts.shown_step = shown;
    if (!ts.error.empty())
        return;
    ts.lesson_queue = std::move(rest);
    run.set_target_steps(ts.edit.steps);
    run.play();
}

// Swaps the lesson runs the panel holds (ts.lesson_key) with those set aside (ts.aside_key), with the runs
// each still had waiting; the runs taken back go on training when they were.
void swap_lesson_runs(AppState& state)
{
    TrainingPanelState& ts = state.training;
    TrainingRun& run = state.training_run;
    const bool running = run.running();
    run.swap_aside();
    std::swap(ts.lesson_key, ts.aside_key);
    std::swap(ts.lesson_queue, ts.aside_queue);
    const bool resume = ts.aside_running;
    ts.aside_running = running;
    run.poll(ts.view);
    ts.edit = ts.view.config;
    ts.error.clear();
    ts.notice.clear();
    ts.replay_expect = nullptr;
    if (resume)
        run.play(); // before the queue advances: the run taken back finishes first
}

} // namespace

void show_lesson_training(AppState& state, const LessonTraining& t)
{
    TrainingPanelState& ts = state.training;
    TrainingRun& run = state.training_run;
    const std::string key = lesson_key(t);
    if (ts.lesson_key != key && run.has_aside() && ts.aside_key == key)
    {
        // Back to a step whose runs were set aside (the step before the built-in model's): shown as they
        // were, still training if they were, and the runs this step showed go aside in turn.
        swap_lesson_runs(state);
        ts.lesson_key = key;
    }
    if (ts.lesson_key != key)
    {
        // The lesson runs shown so far go aside whole: going back to their step shows them again.
        const bool set_aside = !ts.lesson_key.empty() && run.configured();
        if (set_aside)
        {
            ts.aside_running = run.running();
            run.set_aside();
            ts.aside_key = ts.lesson_key;
            ts.aside_queue = std::move(ts.lesson_queue);
        }
        // On error the runs set aside come back, with the message.
        auto refused = [&]()
        {
            if (!set_aside)
                return;
            const std::string error = ts.error;
            swap_lesson_runs(state);
            run.drop_aside();
            ts.aside_key.clear();
            ts.aside_queue.clear();
            ts.error = error;
        };
        if (ts.lesson_key.empty() && !ts.user_run_kept && run.configured() &&
            ts.view.step > ts.view.first_step)
        {
            run.pause();
            run.poll(ts.view);
            ts.user_run = ts.view.trained_model();
            ts.user_run_kept = true;
        }
        run.clear_past(
            /*and_current=*/true); // the lesson's runs alone: compare[i] is past[i], its colour fixed
        ts.lesson_queue.clear();
        if (!t.model.empty())
        {
            // A built-in trained model, opened at once (read from assets/models, as File → Open built-in
            // trained model does).
            TrainedModel model;
            Status s = load_builtin_model(t.model, &model);
            if (s)
                s = open_trained_model(state, model, false);
            if (!s)
            {
                ts.error = s.message();
                refused();
                return;
            }
        }
        else if (state.mouse_ignored)
        {
            // A picture: every run is trained before the frame.
            for (const train::RunSpec& c : t.compare)
                if (run.configure(c).is_ok())
                    run.step_now(c.steps);
            ts.edit = t.run;
            apply_training_fields(state); // the compared runs become the curves' earlier runs
            if (!ts.error.empty())
                return refused();
            run.step_now(t.run.steps);
        }
        else
        {
            // The window: each run trains on the worker in turn (the compared ones first, so their curves
            // are the earlier runs'), and the student watches; the window stays responsive.
            for (const train::RunSpec& c : t.compare)
                ts.lesson_queue.push_back(c);
            ts.lesson_queue.push_back(t.run);
            advance_lesson_queue(state);
            if (!ts.error.empty())
                return refused();
        }
        run.poll(ts.view);
        ts.lesson_key = key;
    }
    sync_probe(ts);
    const std::string probe = t.probe.empty() ? ts.view.probe_text : t.probe;
    if (ts.probe_text != probe)
    {
        ts.probe_text = probe;
        ts.probe_dirty = true;
    }
    ts.follow_latest = t.show_step < 0;
    ts.shown_step = std::max(0, t.show_step);
    ts.lesson_step_at = t.show_step;
    ts.map_kind = t.map_kind;
    ts.score_kind = t.score_kind;
    // compare[i] is past[i] (the lesson's runs alone): by index, as the runs may still be training.
    ts.compare_run = t.compare_maps;
    ts.compare_key.clear();
}

int lesson_step_waits_for(const AppState& state, const LessonTraining& t)
{
    const TrainingPanelState& ts = state.training;
    if (!t.on || !t.model.empty() || ts.lesson_key != lesson_key(t))
        return 0;
    const int need = t.show_step < 0 ? t.run.steps : t.show_step;
    if (!ts.lesson_queue.empty())
        return need; // the runs to compare with train first
    const bool mine = same_model(ts.view.config, t.run);
    return mine && state.training_run.running() && ts.view.step < need ? need : 0;
}

void restore_user_training(AppState& state)
{
    TrainingPanelState& ts = state.training;
    ts.lesson_queue.clear();
    state.training_run.drop_aside(); // the lesson's runs set aside go with the lesson
    ts.aside_key.clear();
    ts.aside_queue.clear();
    ts.aside_running = false;
    ts.lesson_step_at = -1;
    choose_compared_run(ts, -1); // the student's own maps alone, as outside every lesson
    if (!ts.user_run_kept)
        return;
    ts.user_run_kept = false;
    if (open_trained_model(state, ts.user_run, false).is_ok())
    {
        // Opening made the lesson's last run an earlier run: the legend is the user's again. The timeline
        // comes back by replaying the run from its seed (checked bit for bit against the kept weights).
        state.training_run.clear_past();
        state.training_run.poll(ts.view);
        replay_timeline(state);
        state.set_message("Left the lesson: your own session and trained model are back", false);
    }
    ts.user_run = TrainedModel{};
}

void open_training(AppState& state, train::TaskKind task, int steps)
{
    state.training.edit = train::RunSpec(task);
    apply_training_fields(state);
    state.training.score_kind = static_cast<int>(train::task_info(task).score); // also when the task stays
    if (state.training.error.empty() && steps > 0)
        state.training_run.step_now(steps);
    state.training_run.poll(state.training.view);
    show_training_panel(state);
}

void show_training_panel(AppState& state)
{
    state.prefs.open[static_cast<std::size_t>(PanelId::Training)] = true;
    // The panels under the Training panel's default place: hidden anyway, and a software renderer would still
    // fill their pixels (3x the frame time under llvmpipe).
    for (const PanelId id : {PanelId::Pipeline, PanelId::Heads, PanelId::Inspector, PanelId::Comparisons})
    {
        const auto i = static_cast<std::size_t>(id);
        state.training.hid_panels[i] = state.training.hid_panels[i] || state.prefs.open[i];
        state.prefs.open[i] = false;
    }
}

void restore_panels_under_training(AppState& state)
{
    auto& hid = state.training.hid_panels;
    const bool training_open = state.prefs.open[static_cast<std::size_t>(PanelId::Training)];
    for (std::size_t i = 0; i < hid.size(); ++i)
    {
        if (state.prefs.open[i])
            hid[i] = false; // opened since (View menu, a lesson step, the trained view): not hidden any more
        else if (hid[i] && !training_open)
        {
            state.prefs.open[i] = true;
            hid[i] = false;
        }
    }
}

namespace
{

bool same_params(const train::Params& a, const train::Params& b)
{
    if (a.E != b.E || a.P != b.P || a.layers.size() != b.layers.size() || a.lnf_gamma != b.lnf_gamma ||
        a.lnf_beta != b.lnf_beta || a.W_U != b.W_U || a.b_U != b.b_U)
        return false;
    for (std::size_t l = 0; l < a.layers.size(); ++l)
    {
        const train::LayerParamsT<float>& x = a.layers[l];
        const train::LayerParamsT<float>& y = b.layers[l];
        if (x.ln1_gamma != y.ln1_gamma || x.ln1_beta != y.ln1_beta || x.W_Q != y.W_Q || x.W_K != y.W_K ||
            x.W_V != y.W_V || x.W_O != y.W_O || x.ln2_gamma != y.ln2_gamma || x.ln2_beta != y.ln2_beta ||
            x.W_1 != y.W_1 || x.b_1 != y.b_1 || x.W_2 != y.W_2 || x.b_2 != y.b_2)
            return false;
    }
    return true;
}

// When a replay has stopped: the timeline is back if it ended on the saved weights bit for bit; otherwise
// the saved model comes back as it was opened (one step, no timeline) and the message says why.
void finish_replay(AppState& state)
{
    TrainingPanelState& ts = state.training;
    if (ts.replay_expect == nullptr || state.training_run.running())
        return;
    state.training_run.poll(ts.view);
    const std::shared_ptr<const train::Params> expect = std::move(ts.replay_expect);
    ts.replay_expect = nullptr;
    const bool same =
        ts.view.step == ts.replay_target && ts.view.params() && same_params(*ts.view.params(), *expect);
    if (same)
    {
        state.set_message(
            "Timeline rebuilt: the replay from the seed ends on the saved weights, bit for bit.", false);
        return;
    }
    const int shown = ts.shown_step;
    const int reached = ts.view.step;
    TrainedModel model = std::move(ts.replay_model);
    model.has_view = false;
    state.training_run.clear_past(/*and_current=*/true);
    if (state.training_run.open(model).is_ok())
        state.training_run.poll(ts.view);
    ts.edit = ts.view.config;
    ts.follow_latest = true;
    if (reached != ts.replay_target)
        state.set_message("The replay stopped at step " + std::to_string(reached) + " of " +
                              std::to_string(ts.replay_target) +
                              ": the saved model is back (Rebuild the timeline starts it again).",
                          true);
    else
        state.set_message(
            "The timeline could not be rebuilt: replaying from the seed did not reach the saved weights "
            "(trained with other settings, or continued from another file). Showing the saved step " +
                std::to_string(model.steps_taken) + (shown < model.steps_taken ? " only." : "."),
            true);
}

} // namespace

Status replay_timeline(AppState& state)
{
    TrainingPanelState& ts = state.training;
    TrainingRun& run = state.training_run;
    run.poll(ts.view);
    if (!ts.view.params() || ts.view.step == 0)
        return Status::error("there is no trained model to replay");
    if (ts.replay_expect != nullptr)
        return Status::ok();
    TrainedModel model = ts.view.trained_model();
    const int target = ts.view.step;
    train::RunSpec config = ts.view.config;
    config.steps = target;
    auto expect = ts.view.params();
    ATTNLAB_TRY(run.configure(config));
    run.clear_past(); // the opened model's one step is not a run to compare with
    run.set_target_steps(target);
    run.set_stop_accuracy(0.0f);
    run.set_max_steps_per_s(0.0f);
    ts.replay_expect = std::move(expect);
    ts.replay_target = target;
    ts.replay_model = std::move(model);
    ts.edit = config;
    run.play();
    run.poll(ts.view);
    return Status::ok();
}

Status open_trained_model(AppState& state, const TrainedModel& model, bool show)
{
    ATTNLAB_TRY(state.training_run.open(model));
    TrainingPanelState& ts = state.training;
    ts.replay_expect = nullptr;
    state.training_run.poll(ts.view);
    ts.edit = ts.view.config;
    // The task's own head score, whatever was shown before (a session restored at start-up opens its model
    // here: the curves showed the previous-token score of a Reverse run under maps titled "anti-diag").
    ts.score_kind = static_cast<int>(train::task_info(ts.view.config.task).score);
    ts.raised_from = ts.raised_to = -1;
    ts.error.clear();
    ts.notice.clear();
    ts.follow_latest = true;
    if (model.has_view)
    {
        // Where the user was: the main panels, the probe, and the timeline's step (an earlier step than the
        // file's weights comes back by replaying the run from its seed).
        state.trained_view.on = model.view_main_panels;
        if (!model.view_probe.empty())
        {
            ts.probe_vocabulary = ts.view.vocabulary;
            ts.probe_text = model.view_probe;
            ts.probe_dirty = true;
        }
        if (model.view_step < model.steps_taken)
        {
            ts.follow_latest = false;
            ts.shown_step = model.view_step;
            if (!replay_timeline(state).is_ok())
                ts.follow_latest = true;
        }
    }
    if (show)
        show_training_panel(state);
    return Status::ok();
}

void update_trained_view(AppState& state)
{
    TrainedView& tv = state.trained_view;
    TrainingPanelState& ts = state.training;
    finish_replay(state);
    advance_lesson_queue(state);
    if (!tv.on || !state.training_run.configured())
        return;
    state.training_run.poll(ts.view);
    sync_probe(ts);
    const TrainingFrame* f = shown_frame(ts);
    if (f == nullptr || ts.probe_batch.T == 0)
        return;
    ts.probe.update(ts.view.model, f->params, ts.probe_batch, ts.probe_version);
    if (ts.probe.empty() || ts.probe.version() == tv.probe_version)
        return;
    if (!ts.probe.acts().probs.allFinite())
    {
        // A diverged step: no NaN on screen. The main panels keep the last finite step (or show the session)
        // and say why.
        tv.probe_version = ts.probe.version();
        if (tv.trace.empty())
            state.trained_view.on = false;
        state.set_message("The trained model's weights at step " + std::to_string(f->step) +
                              " are not finite (the run diverged): the main panels keep the last finite step",
                          true);
        return;
    }
    train::fill_trace(ts.view.model, *f->params, ts.probe_batch, ts.probe.acts(), &ts.probe.act_grads(),
                      ts.view.vocabulary, tv.trace);
    train::to_model_weights(ts.view.model, *f->params, tv.weights);
    tv.probe_version = ts.probe.version();
    ++tv.generation;
    tv.label = std::string(train::task_info(ts.view.config.task).key) + " · step " + std::to_string(f->step) +
               (f->step == 0 ? " (random weights: untrained)" : "");
    state.clamp_selection();
}

namespace
{

constexpr const char* kTrainedInMainPanels =
    "The trained model is in the main panels. Alt+8: the Training panel again; Ctrl+T: back to the session.";

} // namespace

void set_trained_view(AppState& state, bool on)
{
    bool& training_open = state.prefs.open[static_cast<std::size_t>(PanelId::Training)];
    state.trained_view.on = on;
    if (on)
    {
        state.prefs.open[static_cast<std::size_t>(PanelId::Pipeline)] = true;
        state.prefs.open[static_cast<std::size_t>(PanelId::Heads)] = true;
        update_trained_view(state);
        // The Training panel covers the Pipeline and the Heads: it steps aside so they show (a lesson's step
        // keeps it, its text is about it).
        if (training_open && !lesson_active(state))
        {
            training_open = false;
            state.trained_view.closed_training = true;
            state.set_message(kTrainedInMainPanels, false);
        }
    }
    else
    {
        if (state.trained_view.closed_training)
        {
            training_open = true; // back where the student was
            state.trained_view.closed_training = false;
        }
        // The status bar no longer says the trained model is there (another message stays).
        if (state.message == kTrainedInMainPanels)
            state.set_message("The main panels show the session again. Ctrl+T: the trained model.", false);
    }
    state.pinned.valid = false;
    state.clamp_selection();
}

} // namespace attnlab
