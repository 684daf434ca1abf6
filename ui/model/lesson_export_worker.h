// LessonExportWorker: the window's lesson slide export (File > Export lesson slides) on a thread of its own,
// so the frames go on and the student keeps working while every step is drawn and written. No ImGui.
//
// Who owns what:
//  - The worker builds its own AppState from a snapshot taken when the export starts (the lesson, the slide
//    settings and the window's choices that change a slide), as `attnlab lesson ID --export-dir DIR` starts
//    its own, and runs the same job (ui/model/lesson_export.h) on it: it never reads the window's state, so
//    an edit made while it runs changes nothing in the slides, and the files are the command line's, byte for
//    byte. A step that trains a run trains it on that state's own training thread.
//  - The only state both threads touch is the progress (under mutex_) and the cancel flag. The frame copies
//    the progress out (progress()); cancel() asks the worker to stop and returns at once: it stops before the
//    next slide, or within a training step, and removes its hidden folder, so nothing of the export is left.
//  - The destructor cancels and joins (the window quitting while an export runs waits for at most the slide
//    being drawn).
#pragma once

#include "core/io/lesson_file.h"
#include "ui/model/lesson_export.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace attnlab
{

// What the export needs, copied when it starts.
struct LessonExportSnapshot
{
    Lesson lesson;                // the lesson open in the window
    LessonExportSpec spec;        // the folder, format and size (spec.step: 0, every step)
    bool dark_theme = true;       // View > Dark theme: the slides' page
    bool stretch_weights = false; // View > Stretch weight colours
};

enum class LessonExportState
{
    Running,
    Done,      // every file is in place (written)
    Failed,    // error says why; nothing of the export is left in the folder
    Cancelled, // cancel() came in time: nothing of the export is left in the folder
};

// The export's progress as the frame shows it.
struct LessonExportProgress
{
    LessonExportState state = LessonExportState::Running;
    int steps_total = 0;     // slides to write
    int steps_done = 0;      // slides written (to the hidden folder until the last)
    int waits_for = 0;       // the training step the slide being made waits for (0: none)
    int trained = 0;         // its run's step now
    bool compared = false;   // the run training is one the step compares its own with (trained first)
    bool cancelling = false; // cancel() was asked and the worker has not stopped yet
    std::string error;       // Failed: why
    std::string note;        // the slides' font is missing ("" : it is there)
    std::vector<std::string> written; // Done: the files in place, in order
};

class LessonExportWorker
{
public:
    LessonExportWorker() = default;
    ~LessonExportWorker(); // cancels and joins
    LessonExportWorker(const LessonExportWorker&) = delete;
    LessonExportWorker& operator=(const LessonExportWorker&) = delete;

    // Called on the worker thread when a slide is written, a step starts waiting for its run, and at the end
    // (the window wakes its event loop with it). Set it before start().
    void set_on_progress(std::function<void()> on_progress) { on_progress_ = std::move(on_progress); }
    // Called on the worker thread before it makes each slide, with the slides written so far (tests hold the
    // worker there to look at the frames in between). Set it before start().
    void set_before_slide(std::function<void(int steps_done)> before_slide)
    {
        before_slide_ = std::move(before_slide);
    }
    // Starts the export on its thread (once per worker).
    void start(LessonExportSnapshot snapshot);
    // Asks the worker to stop and returns at once; progress() says Cancelled when it has (or Done when the
    // last file was already in place).
    void cancel();
    bool cancel_requested() const { return cancel_.load(std::memory_order_acquire); }
    // A copy of the progress.
    LessonExportProgress progress() const;
    // Running is over (the thread is ending or ended).
    bool finished() const { return progress().state != LessonExportState::Running; }
    // Waits for the thread to end.
    void join();
    const LessonExportSpec& spec() const { return spec_; }

private:
    void run(LessonExportSnapshot snapshot);
    // Copies the job's figures into progress_ (waking the frame when they changed).
    void publish(const LessonSlideExport& job);
    void end(LessonExportState state, std::string error, std::vector<std::string> written);
    // Sleeps up to `ms`, or until cancel().
    void wait(int ms);

    LessonExportSpec spec_; // the worker's copy is its own; this one is read by the frame
    std::function<void()> on_progress_;
    std::function<void(int)> before_slide_;
    std::atomic<bool> cancel_{false};
    mutable std::mutex mutex_;
    std::condition_variable cancelled_;
    LessonExportProgress progress_; // under mutex_
    std::thread thread_;
};

} // namespace attnlab
