// Presenter mode: for a lecture, one large view (the step's highlighted stages, its heads or its comparison)
// and the step's text as a caption, without the editing chrome; its own text size and theme.
#pragma once

#include "ui/model/app_state.h"

namespace attnlab
{

// Draws the whole presenter frame (between NewFrame and Render): a title line with the lesson and the step
// counter, the view filling the window, the caption at the bottom.
void draw_presenter(AppState& state);

// True when presenter mode shows the Training view: a lesson step whose view is Training, or key 5 outside a
// lesson. Its keys then train: P plays or pauses, S takes one step, R resets.
bool presenter_shows_training(const AppState& state);

// Ctrl+= (step +1), Ctrl+- (-1) and Ctrl+0 (0: the default). In presenter mode they change the presenter's
// scale (AppState::presenter_scale) and say so in its title line for two seconds; otherwise the normal font
// size, said in the status bar. Either asks for the font to be rebuilt.
void step_text_size(AppState& state, int step);
// What presenter mode's edit bar steps (its - and + buttons).
enum class PresenterSetting
{
    heads,       // h, through the counts that divide d_model (while d_k is the default)
    d_model,     // halved or doubled, kept a multiple of h
    mask,        // none <-> causal (either direction)
    temperature, // τ halved or doubled, within its limits
};

// One step of a setting from the edit bar: changes the session (the engine recomputes before the next frame)
// and says the new value in the title line for two seconds, or why nothing changed.
void presenter_edit_step(AppState& state, PresenterSetting setting, int direction);

// E in presenter mode: the edit bar on or off (opening it copies the session's first sentence into its
// field). Not in the Training view, whose run the bar does not set: the title line says where it is set.
void toggle_presenter_edit(AppState& state);

// Presenter mode's Pipeline view outside a lesson walks the layer a group of stages at a time, each group
// laid out as a lesson step's maps: the input; Q, K, V; the scores scaled; masked and weights; the head's
// output to MultiHead; the residual and first norm; the feed-forward to the second norm.
struct PipelineGroup
{
    const char* name;  // in the title line: "the input X"
    const char* shows; // in the caption's heading, what its maps show ("{head}": the head shown, from 1)
    std::vector<Stage> stages;
};
const std::vector<PipelineGroup>& presenter_pipeline_groups();
// The next (direction 1) or previous (-1) group, kept within the list.
void presenter_pipeline_step(AppState& state, int direction);
// → or a clicker in a lesson: the next step, or where that step waits for its training run, the title line
// says which step of the run it opens at and where the run is (the status bar is hidden here).
void presenter_next_step(AppState& state);

// The comparison after `c` in the Comparisons view's order: packed W^Q, two maps in a row, one head against h
// (then the first again).
ComparisonSection next_comparison(ComparisonSection c);

// T in presenter mode: the light presenter theme on or off (a preference, also in the View menu).
void toggle_presenter_theme(AppState& state);

} // namespace attnlab
