// The Training panel's controller (no ImGui): what its buttons, a lesson step, an opened model file and the
// main panels' "show the trained model" do to the training run (ui/model/training/training_run.h) and to
// AppState::training / AppState::trained_view. ui/panels/training_panel.cpp draws the panel on top of it.
#pragma once

#include "ui/model/app_state.h"

namespace attnlab
{

// [SECTION] The panel's fields and buttons

// True when a and b describe the same model (everything but the target step count): a change elsewhere
// needs a new run.
bool same_model(const train::RunSpec& a, const train::RunSpec& b);
// Applies the panel's fields (state.training.edit) to the run: a refused field leaves its message in
// state.training.error and trains nothing.
void apply_training_fields(AppState& state);
// Keeps the probe in step with the run: a new task brings its own default sequence; an edited text is parsed
// (a wrong token is a message and the last good probe stays).
void sync_probe(TrainingPanelState& ts);
// The frame the maps show: the latest, or the one the timeline is on (nullptr before the first).
const TrainingFrame* shown_frame(const TrainingPanelState& ts);
// Whether an earlier run's maps can be drawn on the current probe: the same task (so the same vocabulary and
// labels) and a probe no longer than its T_max.
bool can_compare_maps(const TrainingPanelState& ts, const PastRun& run);
// The earlier run whose maps the maps view shows beside this run's (ts.compare_run, found again by
// ts.compare_key when the list shifted), or nullptr: none chosen, gone, or not comparable.
const PastRun* compared_run(const TrainingPanelState& ts);
// Chooses view.past[index] to compare with (-1 or out of range: none), remembered by its label and step.
void choose_compared_run(TrainingPanelState& ts, int index);
// Play / Pause (Space): applies changed fields first; Play at the target goes on for the preset's length.
void training_play_pause(AppState& state);
// Trains n steps now (Step, →), applying changed fields first.
void training_step(AppState& state, int n);
// Reset: step 0 again with the same initial weights (the run so far stays in the curves as an earlier run),
// or the changed fields' new model.
void training_reset(AppState& state);

// [SECTION] Runs from elsewhere: the command line, lessons, model files

// Opens the Training panel on task with its preset, trained synchronously for `steps` steps (for
// `attnlab screenshot --train`). On error the panel shows the message.
void open_training(AppState& state, train::TaskKind task, int steps);
// A lesson step's training: trains its runs (the compared ones first, on this thread; the step's own on the
// worker, or on this thread for pictures) unless the panel already holds them, then shows the step's timeline
// position, maps, score and probe.
void show_lesson_training(AppState& state, const LessonTraining& training);
// The training step a lesson step's text is about and the run on screen has not reached yet while it still
// trains (its show_step, or its last step when it shows the latest); 0 when there is nothing to wait for: the
// run is there, stopped, or not this step's run (a built-in model, another run trained when the step opens).
int lesson_step_waits_for(const AppState& state, const LessonTraining& training);
// After a lesson: the user's own run (kept aside when the lesson trained its runs) back in the Training
// panel.
void restore_user_training(AppState& state);
// Shows the Training panel (and hides the panels its default place covers, noting which were open).
void show_training_panel(AppState& state);
// Once a frame: while the Training panel is closed, the panels it hid are open again (they were the user's;
// closing it by its button, Alt+8, a lesson or the trained view used to leave them closed until View > Reset
// layout).
void restore_panels_under_training(AppState& state);
// Opens a trained model (a loaded attnlab-model file) in the Training panel at its step, and shows the panel
// when `show`. On error nothing changes.
Status open_trained_model(AppState& state, const TrainedModel& model, bool show = true);
// Replays the Training panel's run from its seed to its step on the worker, to get an opened model's timeline
// back; when it stops, the weights are compared with the saved ones bit for bit (equal: the timeline is
// back; not: the saved model is opened again, with a message).
Status replay_timeline(AppState& state);

// [SECTION] The trained model in the main panels

// Once a frame: copies the Training panel's probe through the weights at its shown step into
// AppState::trained_view when the user shows the trained model (cheap when nothing changed); also finishes a
// replay and starts a lesson's next waiting run.
void update_trained_view(AppState& state);
// Switches the trained view on or off (on also opens Pipeline and Heads).
void set_trained_view(AppState& state, bool on);

} // namespace attnlab
