// Session files in the app: open and save with the recent files list, and the autosave that a crash or a
// closed window never loses.
#pragma once

#include "core/status.h"
#include "ui/model/app_state.h"

#include <string>
#include <vector>

namespace attnlab
{

// [SECTION] Open and save

// Opens a session file: leaves an open lesson first, loads the file's weights, puts it first in the recent
// files. A newer, broken or missing file is an error naming it, and the current session stays as it was.
Status open_session_file(AppState& state, const std::string& path);
// Saves the session on screen (during a lesson: the step's) to path and puts it first in the recent files.
Status save_session_as(AppState& state, const std::string& path);

// [SECTION] Unsaved changes

// True when the user's session (not a lesson's step) differs from what its file holds or, when it has no
// file, from the session this run began with (built in, from the command line or the restored autosave).
// Always true once its file is gone.
bool has_unsaved_changes(const AppState& state);
// Opens a session file (autosave: an autosave or a kept copy, which opens unsaved) when nothing would be
// lost. When the user's session has unsaved changes the file is only read, to check it, and waits in
// state.unsaved for the answer (answer_unsaved_changes); the session stays as it is until then. A missing,
// broken or newer file is an error naming it, and nothing waits.
Status request_open_session(AppState& state, const std::string& path, bool autosave = false);
enum class UnsavedAnswer
{
    Save,    // write the user's session to state.unsaved.save_path, then open the waiting file
    Discard, // open the waiting file
    Cancel,  // keep the session on screen and forget the waiting file
};
// A failed save opens nothing: its message is returned and kept in state.unsaved.error, and the file still
// waits (the user may type another path or answer again).
Status answer_unsaved_changes(AppState& state, UnsavedAnswer answer);
// Saves the user's own session (during a lesson the one kept aside, not the step's) to path; that file is
// then the one Ctrl+S writes and the one it is compared with.
Status save_user_session(AppState& state, const std::string& path);
// File > Recent: opens a session file (asking first when unsaved changes would be lost) or a trained model.
// A file that no longer exists is dropped from the list with a message and the session on screen stays; when
// it was that session's own file, the session no longer claims to come from it (the menu bar stops showing
// the path) and counts as unsaved. Every outcome is also said in the status bar.
Status open_recent_file(AppState& state, const std::string& path);

// [SECTION] Quitting

struct Autosave;
struct ModelAutosave;
// True when quitting now would lose work: the user's session has changes its file does not hold
// (has_unsaved_changes) and the autosave does not hold them either (this window has no autosave, or the
// autosave's last write failed, or nothing was written since the session changed).
bool quit_would_lose_work(const AppState& state, const Autosave& autosave);
// True when quitting now would lose the Training panel's trained model: the user's run (not a lesson's) has
// taken a step, no model file holds its current task and step (Save model, or the file it was opened from),
// and the model autosave does not hold it either (no path, or its write for this step failed).
bool quit_would_lose_model(const AppState& state, const ModelAutosave& model_autosave);
// Called by the window when the user asks to quit (Ctrl+Q, File > Quit, the window's close button): writes
// the autosave and the model autosave at once, then returns true when the window may close (nothing would be
// lost, or the user already chose to quit without saving). Otherwise the question (about the session, the
// trained model or both) waits in state.quit for answer_quit, the window stays, and false is returned.
bool quit_now_or_ask(AppState& state, Autosave& autosave, ModelAutosave& model_autosave, double now_s);
enum class QuitAnswer
{
    Save,   // write what is at risk (the session to state.quit.save_path, the model to model_save_path), quit
    Quit,   // quit without saving
    Cancel, // keep the window open
};
// Save: a failed write keeps the question open with its message (in state.quit.error) and returns it; what
// was written by then is no longer asked about. Save and Quit set state.request_quit, so the window closes on
// its next frame.
Status answer_quit(AppState& state, QuitAnswer answer);

// [SECTION] Trained models and training curves

// Opens an attnlab-model file in the Training panel at its step and puts it first in the recent files. A
// broken file is an error naming it and what is wrong; the run on screen stays.
Status open_model_file(AppState& state, const std::string& path);
// The same for a model already loaded from path (attnlab --model FILE, loaded once by main()).
Status open_model(AppState& state, const TrainedModel& model, const std::string& path);
// Opens the trained model a session names (path absolute): File > Open and a session given at start-up. It
// does not join File > Recent (the session did). One that does not open leaves the session open and sets the
// error "<opened_message>, but its trained model <path> did not open: <why>", which it also returns.
Status open_session_model(AppState& state, const std::string& path, const std::string& opened_message);
// True when the Training panel holds a run the user trained (not a lesson's) at a step no file holds: opening
// another model would lose its weights (the model autosave is no keeper here: it follows the model opened).
bool model_in_no_file(const AppState& state);
// File > Open trained model, File > Recent and the built-in models (path empty, builtin_key set): opens the
// model at once, or, when model_in_no_file, leaves it waiting in state.replace_model for the question (Save
// the run, then open; Discard and open; Cancel). A file that cannot be read is an error before any question,
// and the run on screen stays.
Status request_open_model(AppState& state, const std::string& path, const std::string& builtin_key = {});
// The answer to that question. Save writes the run to state.replace_model.save_path first (a failed save
// keeps the question open with its error); Cancel keeps the run and opens nothing.
Status answer_replace_model(AppState& state, UnsavedAnswer answer);
// Opens a built-in trained model (core/io/builtin_models.h: "austen") as open_model does, without making its
// asset file the model's own: Save asks where. An unknown key or a missing file is an error.
Status open_builtin_model(AppState& state, const std::string& key);
// Saves the Training panel's model at its current step (with settings and metric history).
Status save_model_file(AppState& state, const std::string& path);
// True when the file starts like an attnlab-model file (File > Recent opens it as a model, not a session).
bool looks_like_model_file(const std::string& path);
// The training curves as CSV: one row per held-out point (step, training loss, held-out loss and accuracy,
// then per head its previous-token, induction, diagonal and anti-diagonal scores).
std::string curves_csv(const TrainingSnapshot& run);
Status write_curves_csv(const TrainingSnapshot& run, const std::string& path);

// The Training panel's model, kept beside the session autosave: written when a run pauses or stops at a new
// step and when the window closes, opened again at the next start. A trained model is never lost.
struct ModelAutosave
{
    std::string path;      // "" : none
    int written_step = -1; // the step the file holds (-1: nothing written this run)
    std::string written_task;
    std::string written_view; // the "view" the file holds (timeline step, main panels, probe), as a key
    double last_write_s = -1e300;
    std::string error; // why the last write failed ("" : it did not)
};
// The Training panel's model at its current step with where the window is on it (the timeline's step, the
// main panels, the probe): what Save model and the autosave write.
TrainedModel model_with_view(const AppState& state);
// Writes the run's model when it is paused (or `force`, at exit) at a step the file does not hold yet, and
// only once the run has taken a step. Returns true when written; a failure is said once in the status bar.
bool model_autosave_tick(AppState& state, ModelAutosave& autosave, bool force);
// Opens the autosaved model in the Training panel, showing the panel when `show` (no file: nothing happens,
// no message).
Status restore_model_autosave(AppState& state, ModelAutosave& autosave, bool show);

// [SECTION] Recent files: a text file in the config folder, one path per line, most recent first.

inline constexpr int kMaxRecentFiles = 10;

// The list in the file at path (recent_files_from_text). A missing file is an empty list; so is a refused
// one (not a regular file, or over 16 MB: read_config_file), and *status (when given) then says why.
std::vector<std::string> load_recent_files(const std::string& path, Status* status = nullptr);
// Written atomically; a link or anything else that is not a regular file at path is replaced, never written
// through (OutputKind::OwnFile).
Status save_recent_files(const std::string& path, const std::vector<std::string>& files);
// Moves (or adds) path to the front, without duplicates, keeping at most kMaxRecentFiles.
void push_recent_file(std::vector<std::string>& files, const std::string& path);
// Removes the files (folders: the folders) that no longer exist and returns them.
std::vector<std::string> drop_missing_files(std::vector<std::string>& files, bool folders = false);
// Loads state.recent_files from state.recent_files_path, dropping missing files (a message names them). A
// refused file leaves the list empty, with the reason in the status bar.
void load_recent_files_into(AppState& state);

// [SECTION] Autosave

struct Autosave
{
    std::string path; // "" : no autosave
    // At most one write per this many seconds while editing, so a change is on disk this long after it at
    // the latest (while the window's loop runs: it keeps drawing while `pending`).
    double min_interval_s = 0.25;
    Session written;              // what the file holds
    bool has_written = false;     // false: nothing written or restored yet
    double last_write_s = -1e300; // clock of the last write
    int writes = 0;
    std::string error;    // why the last write failed ("" : it did not)
    bool pending = false; // the session differs from the file and a write waits for min_interval_s
};

// Earlier autosaves kept beside the file: last_session.1.json (the newest) to last_session.3.json.
inline constexpr int kKeptAutosaves = 3;

// Writes user_session(state) to autosave.path (atomically) when it differs from what the file holds and
// min_interval_s has passed since the last write (else sets autosave.pending); `force` (at exit) skips the
// wait. Returns true when written. A link (or anything but a regular file) at autosave.path is replaced,
// never written through, and so for the kept copies and the model autosave (OutputKind::OwnFile). A failed
// write is tried again after min_interval_s; the status bar says so the first time (and again when the reason
// changes), and says when autosave works again.
bool autosave_tick(AppState& state, Autosave& autosave, double now_s, bool force);
// Call once at start, before anything writes the autosave: copies the autosave to "<stem>.1.json", shifting
// the older copies up to kKeptAutosaves (the oldest is dropped), unless .1 already holds the same bytes. So a
// start with --text or --session, which then autosaves its own session, never loses the previous one.
Status rotate_autosaves(const std::string& path);
// The autosave and its kept copies that exist, newest first (File > Recent offers them).
std::vector<std::string> autosave_files(const std::string& path);
// Replaces state.session with the autosaved one when the file exists. A broken or newer file leaves the
// session as it is and returns the error (for the status bar); the file is renamed to
// unreadable_autosave_path() first, so later autosaves never write over it (when it cannot be renamed,
// autosave.path is cleared instead). A missing file is not an error.
Status restore_autosave(AppState& state, Autosave& autosave);
// Starts on the session in another window's autosave at path, as restore_autosave does but without touching
// the file (neither set aside when broken nor written later: this window autosaves elsewhere). A missing file
// is not an error.
Status restore_autosave_copy(AppState& state, const std::string& path);
// Opens an autosave (or a kept copy) like a session file, but as an unsaved session: it does not become the
// file Ctrl+S writes and does not enter the recent files.
Status open_autosave_file(AppState& state, const std::string& path);
// "dir/last_session-unreadable.json" for "dir/last_session.json", or "-unreadable-2.json", "-3", ... : the
// first name not taken, so a second unreadable autosave never replaces the first one set aside.
std::string unreadable_autosave_path(const std::string& path);

} // namespace attnlab
