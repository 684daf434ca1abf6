// The panels: one free function each (ui/panels/<name>_panel.cpp), and the table that builds the View menu.
#pragma once

#include "ui/app_state.h"

#include <array>

namespace attnlab
{

void draw_input_panel(AppState& state);
void draw_model_panel(AppState& state);
void draw_pipeline_panel(AppState& state);
void draw_heads_panel(AppState& state);
void draw_inspector_panel(AppState& state);
void draw_comparisons_panel(AppState& state);
void draw_lesson_panel(AppState& state);
void draw_training_panel(AppState& state);

// Opens the Training panel on task with its preset, trained synchronously for `steps` steps (for
// `attnlab screenshot --train`). On error the panel shows the message.
void open_training(AppState& state, train::TaskKind task, int steps);
// A lesson step's training: trains its runs (the compared ones first, on this thread; the step's own on the
// worker, or on this thread for pictures) unless the panel already holds them, then shows the step's timeline
// position, maps, score and probe.
void show_lesson_training(AppState& state, const LessonTraining& training);
// After a lesson: the user's own run (kept aside when the lesson trained its runs) back in the Training
// panel.
void restore_user_training(AppState& state);
// Shows the Training panel (and hides the panels its default place covers).
void show_training_panel(AppState& state);
// Opens a trained model (a loaded attnlab-model file) in the Training panel at its step, and shows the panel
// when `show`. On error nothing changes.
Status open_trained_model(AppState& state, const TrainedModel& model, bool show = true);
// Replays the Training panel's run from its seed to its step on the worker, to get an opened model's timeline
// back; when it stops, the weights are compared with the saved ones bit for bit (equal: the timeline is
// back; not: the saved model is opened again, with a message).
Status replay_timeline(AppState& state);

// The main panels and the trained model: once a frame, copies the Training panel's probe through the weights
// at its shown step into AppState::trained_view when the user shows the trained model (cheap when nothing
// changed). set_trained_view switches it on or off (on also opens Pipeline and Heads).
void update_trained_view(AppState& state);
void set_trained_view(AppState& state, bool on);
// The trained model's probe field (the Training panel's), for the Input panel while the trained model shows.
void draw_trained_probe_input(AppState& state);
// A line at the top of a main panel: which model it shows, with a button to switch. Draws nothing when the
// session shows and there is no trained model.
void trained_view_banner(AppState& state);
// The panel whose settings an invalid session's message is about: Model (its shape, its weights) or Input
// (the sentences). The message is written there only; the status bar points to it.
PanelId status_error_panel(const AppState& state);

struct PanelInfo
{
    PanelId id;
    const char* name;     // window title
    const char* shortcut; // shown in the View menu ("Alt+1"), handled in ui/app_ui.cpp
    void (*draw)(AppState&);
};

// In PanelId order.
const std::array<PanelInfo, kPanelCount>& panel_table();

} // namespace attnlab
