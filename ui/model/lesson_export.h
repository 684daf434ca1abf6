// A lesson's slide set: every step (or one) drawn and written to a hidden folder in DIR as PNG or SVG files
// or one PDF, then moved into place, so an error or a cancel leaves nothing half-written. The command line
// (`attnlab lesson ID --export-dir DIR`, app/lesson_export.cpp) and the window (File > Export lesson slides)
// run the same job: the command line a step after a few frames, the window on a worker thread over its own
// copy of the lesson (ui/model/lesson_export_worker.h) while its frames go on. No ImGui.
#pragma once

#include "core/status.h"
#include "ui/model/app_state.h"
#include "ui/picture/raster.h"
#include "ui/picture/vector_out.h"

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace attnlab
{

// What to export: the folder, the format and the slides' size; `step` 1-based (0: every step).
struct LessonExportSpec
{
    std::string dir;
    PictureFormat format = PictureFormat::Png;
    int width = 1920, height = 1080;
    int step = 0;
};

// The frames a step waits for after it is entered before its picture is taken: a new window and a scrolling
// pipeline settle over them (the command line draws them; the window's frames go on by themselves).
inline constexpr int kLessonExportSettleFrames = 4;

// Draws one frame of the window; with a path, writes that frame's pixels there as a PNG (presenter mode's
// slides) and returns why it could not.
using LessonFrameFn = std::function<Status(const std::string& capture_path)>;

enum class LessonExportTick
{
    Waiting, // the step is entered and settles, computes or trains
    Wrote,   // a step's slide is written (to the hidden folder); more follow
    Done,    // every file is in place
    Failed,  // error() says why; nothing of this export is left in the folder
};

// Makes folder `dir` (and its parents) when it is missing and checks that it takes a file; fresh: an old
// folder of that name is removed first, and a folder that fails the check is removed again. Returns why not
// (the system's words: "Permission denied", "Not a directory").
Status make_writable_folder(const std::string& dir, bool fresh = false);

// One export of the open lesson's steps.
class LessonSlideExport
{
public:
    LessonSlideExport() = default;
    ~LessonSlideExport(); // a job left unfinished removes its hidden folder
    LessonSlideExport(const LessonSlideExport&) = delete;
    LessonSlideExport& operator=(const LessonSlideExport&) = delete;

    // Checks the lesson and the folder (created when missing; it must be writable) and makes the hidden
    // folder the slides are written to first. `capture`: presenter mode's pixels for each step instead of a
    // clean slide (PNG only). On error nothing is made.
    Status begin(AppState& state, const LessonExportSpec& spec, LessonFrameFn capture = nullptr);
    // One step of the job: enters the next lesson step, then, when it has settled (the frames given by
    // frame_drawn()), its session is computed and its training run trained to its end (as the command line
    // trains it before its first picture; a paused run is played), draws its slide and writes it; after the
    // last, moves the files into place.
    LessonExportTick tick(AppState& state);
    // Counts a frame drawn since the step was entered.
    void frame_drawn() { ++frames_; }
    // Stops: the hidden folder and its slides go.
    void cancel();

    const std::string& error() const { return error_; }
    // The files in place after Done, in order.
    const std::vector<std::string>& written() const { return written_; }
    // A note about the slides' font when it is missing ("" : none).
    const std::string& note() const { return note_; }
    int steps_total() const { return last_ - first_ + 1; }
    int steps_done() const { return next_ - first_; }
    // The training step the step being written waits for (0: none) and the run's step now.
    int waits_for() const { return waits_for_; }
    int trained() const { return trained_; }
    // The run trained now is one the step compares its own with (trained first); waits_for() is its last
    // step.
    bool waits_for_compared() const { return compared_; }
    const std::string& dir() const { return spec_.dir; }
    PictureFormat format() const { return spec_.format; }

private:
    LessonExportTick fail(std::string message);
    LessonExportTick write_step(AppState& state);
    LessonExportTick finish();

    LessonExportSpec spec_;
    LessonFrameFn capture_;
    std::string lesson_id_;
    std::string temp_; // the hidden folder ("" : none)
    int first_ = 0, last_ = -1, next_ = 0;
    bool entered_ = false; // step next_ is entered
    int frames_ = 0;       // frames drawn since
    int waits_for_ = 0, trained_ = 0;
    bool compared_ = false;
    std::vector<std::string> names_; // the files, as they will be named in the folder
    std::vector<Image> pages_;       // the PDF's, written after the last step
    std::vector<std::string> written_;
    std::string error_, note_;
};

// The command line's export: begins a job on state's lesson, draws frames with draw_frame and ticks it until
// it ends; prints each file written to `out`, an error (and a missing font's note) to `err` as "attnlab
// lesson: …". presenter: each step is the window's pixels (PNG only). Returns the exit code (0, or 1).
int run_lesson_export(AppState& state, const LessonExportSpec& spec, bool presenter,
                      const LessonFrameFn& draw_frame, std::ostream& out, std::ostream& err);

// [SECTION] The window's dialog

// The folder the dialog offers first: "<lesson id>-slides".
std::string default_lesson_export_dir(const AppState& state);
// Opens the dialog on the next frame (nothing when no lesson is open), with the default folder when none is
// typed yet. While an export runs the dialog shows its progress.
void open_lesson_export_dialog(AppState& state);
// Starts the dialog's export on its worker (ui/model/lesson_export_worker.h), over a snapshot of the open
// lesson and the slide settings, after checking the folder here (made when missing; it must take a file): the
// worker in state.lesson_export.job and the dialog asked to close, or the error in state.lesson_export.error
// (and nothing made).
Status start_lesson_export(AppState& state);
// Once a frame: when the export has ended, the status bar says where the slides went ("7 slides written to
// DIR"), or that it was cancelled, or why none were written and what to do (and the dialog opens again with
// it, to choose another folder); the worker goes.
void lesson_export_frame(AppState& state);
// Asks the export under way to stop (it ends within a slide, or a training step; lesson_export_frame then
// says it was cancelled). Nothing of it is left in the folder.
void cancel_lesson_export(AppState& state);
// "Exporting slides 3 / 7 …" (with the training it waits for, or "Cancelling …"): the status bar's line while
// an export runs; "" when none does.
std::string lesson_export_progress_text(const AppState& state);
// The fraction of the export done (0 to 1), for a progress bar.
float lesson_export_fraction(const AppState& state);

} // namespace attnlab
