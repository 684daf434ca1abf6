// Lessons in the app: entering a step (its session, selection, view and highlights), stepping, leaving.
#pragma once

#include "ui/model/app_state.h"
#include "ui/picture/colormap.h"

#include <string>
#include <vector>

namespace attnlab
{

// Loads every lesson of dir into state.lesson.library (broken files become messages there).
void load_lesson_library(AppState& state, const std::string& dir);

// The lesson and step being followed, or nullptr when no lesson is open.
const Lesson* current_lesson(const AppState& state);
const LessonStep* current_step(const AppState& state);
bool lesson_active(const AppState& state);

// Opens lesson `index` (in state.lesson.library) at `step` (clamped). The user's own session, its path,
// selection, imported weights and folded stages are kept aside the first time, so leave_lesson() gives them
// back.
void enter_lesson(AppState& state, int index, int step = 0);
// Goes to step `step` of the open lesson (clamped): applies its session (the engine recomputes once on
// the next update), selects its layer, sentence and head, opens and focuses its view (and the Model panel
// when it names a setting), unfolds its stages and folds those between them, and asks the pipeline to scroll
// the first of them to its top (over the next few frames).
void go_to_step(AppState& state, int step);
// The next step, unless its text is about a training step the lesson's run has not reached yet (then a
// message says so and the step stays).
void next_step(AppState& state);
// The training step the next step's text is about while the run has not reached it (0: Next goes on at once).
int next_step_waits_for(const AppState& state);
void previous_step(AppState& state);
// Closes the lesson and restores what enter_lesson() kept aside (with the user's folded stages).
void leave_lesson(AppState& state);

// The session the user owns: the one kept aside while a lesson is open, else the current one. This is the
// one that is autosaved and saved by Ctrl+S.
const Session& user_session(const AppState& state);

// "3 / 9" for the open lesson ("" when none).
std::string step_counter(const AppState& state);

// Whether the current step highlights `stage` (of its cross-attention block when cross).
bool lesson_highlights_stage(const AppState& state, Stage stage, bool cross);
// The panel the current step shows (Pipeline, Heads or Comparisons); PanelId::Count when no lesson is open.
PanelId lesson_view_panel(const AppState& state);
// Whether the current step asks the student to change the Model panel's setting `key` (a settings table key,
// core/settings.h).
bool lesson_highlights_setting(const AppState& state, const char* key);
// The cells the current step highlights in the matrix `ref` (same stage, block, layer, sentence and, for
// per-head stages, head).
std::vector<LessonCell> lesson_cells(const AppState& state, const MatrixRef& ref);
// The colour of lesson highlights (frames, headers, cell outlines): a strong orange that reads on both
// themes and on every colour map.
Color32 lesson_highlight_color();

// [SECTION] Captions that follow the session and the run

// The settings the step set that the live session no longer has, as "h = 4 (now 8)" parts joined by ", "
// (the sentence as "the sentence"); "" when the session still has the step's.
std::string lesson_settings_drift(const Session& step_session, const Session& live);
// The selection the step's text quotes that is no longer selected, as "head 1 (now 2)" parts joined by ", ":
// a text naming "head 1" (or "layer 2", "sentence 2", "the second sentence") describes that head's numbers,
// which [ and ] or the sliders replace on screen. A selection the text does not name is free to change
// ("Use [ and ] to step through the heads"). "" when nothing quoted changed.
std::string lesson_selection_drift(const LessonStep& step, const Selection& live);
// The run step a training step's text waits for while the run shown is not there yet: the step's timeline
// position (show_step), else the run's last step; -1 when the text can be read now (no training, or the run
// shown is the step's own and has reached that step). `shown` and `shown_step` are the run the Training
// panel shows and its steps taken.
int lesson_text_waits_for(const LessonTraining& training, const train::RunSpec& shown, int shown_step);
// Whether a training step's text can be read while a run it compares with trains first: it is about step 0
// of its run (show_step 0), where every run is untrained, and names none of the compared runs (their curves,
// "the grey curves", are drawn only once those runs are trained). Other steps wait for their run.
bool lesson_text_reads_before_its_run(const LessonStep& step);
// What a caption of the current step adds: while the step's run is short of the step its text describes, a
// line saying where the run is (and *text_waits = true: show the line instead of the text; a text about step
// 0 that names no compared run is shown at once, the line saying which run trains first); when the live
// settings differ from the step's, a line saying the text describes the step's. "" when neither.
std::string lesson_caption_note(const AppState& state, const LessonStep& step, bool* text_waits);

// The font size in pixels (at content scale 1) the UI should use: the preference, or in presenter mode a
// size that grows with the window's height times the presenter's own scale (presenter_font_size).
float ui_font_size(const AppState& state, float window_height);
// The presenter caption's font size for that height (presenter_caption_font_size); 0 outside presenter mode.
float ui_caption_font_size(const AppState& state, float window_height);
// How many times its size at 100% Ctrl+= made presenter mode's text at this window height (1 at 100%; below
// 1 after Ctrl+-).
float presenter_zoom(const AppState& state, float window_height);

} // namespace attnlab
