// The window's lesson slide export on its own thread, over its own AppState built from a snapshot.
#include "ui/model/lesson_export_worker.h"

#include "ui/model/app_state.h"
#include "ui/model/lessons.h"
#include "ui/model/training/training_controller.h"

#include <chrono>
#include <memory>
#include <utility>

namespace attnlab
{

namespace
{

// The export's own state, as `attnlab lesson ID --export-dir DIR` starts it: the lesson alone, entered at the
// first step exported, with the window's choices that change a slide. Unlike a picture's state it trains a
// step's runs on its training thread (as the window does), so cancel() stops a long run within a step.
std::unique_ptr<AppState> export_state(const LessonExportSnapshot& snapshot)
{
    auto state = std::make_unique<AppState>();
    state->prefs.dark_theme = snapshot.dark_theme;
    state->prefs.stretch_weights = snapshot.stretch_weights;
    state->lesson.library.lessons.push_back(snapshot.lesson);
    enter_lesson(*state, 0, snapshot.spec.step > 0 ? snapshot.spec.step - 1 : 0);
    return state;
}

} // namespace

LessonExportWorker::~LessonExportWorker()
{
    cancel();
    join();
}

void LessonExportWorker::start(LessonExportSnapshot snapshot)
{
    if (thread_.joinable())
        return;
    spec_ = snapshot.spec;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        progress_ = LessonExportProgress{};
        const int n = static_cast<int>(snapshot.lesson.steps.size());
        progress_.steps_total = snapshot.spec.step > 0 ? 1 : n;
    }
    thread_ = std::thread([this, s = std::move(snapshot)]() mutable { run(std::move(s)); });
}

void LessonExportWorker::cancel()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        cancel_.store(true, std::memory_order_release);
        if (progress_.state == LessonExportState::Running)
            progress_.cancelling = true;
    }
    cancelled_.notify_all();
}

LessonExportProgress LessonExportWorker::progress() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return progress_;
}

void LessonExportWorker::join()
{
    if (thread_.joinable())
        thread_.join();
}

void LessonExportWorker::wait(int ms)
{
    std::unique_lock<std::mutex> lock(mutex_);
    cancelled_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return cancel_requested(); });
}

void LessonExportWorker::publish(const LessonSlideExport& job)
{
    bool changed = false;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        LessonExportProgress& p = progress_;
        changed = p.steps_done != job.steps_done() || p.waits_for != job.waits_for() ||
                  p.compared != job.waits_for_compared() || p.note != job.note();
        p.steps_total = job.steps_total();
        p.steps_done = job.steps_done();
        p.waits_for = job.waits_for();
        p.trained = job.trained();
        p.compared = job.waits_for_compared();
        p.note = job.note();
    }
    if (changed && on_progress_)
        on_progress_();
}

void LessonExportWorker::end(LessonExportState state, std::string error, std::vector<std::string> written)
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        progress_.state = state;
        progress_.cancelling = false;
        progress_.waits_for = 0;
        progress_.error = std::move(error);
        progress_.written = std::move(written);
    }
    if (on_progress_)
        on_progress_();
}

void LessonExportWorker::run(LessonExportSnapshot snapshot)
{
    // The job goes before its state (its destructor removes a hidden folder left by an error).
    std::unique_ptr<AppState> state = export_state(snapshot);
    LessonSlideExport job;
    if (const Status s = job.begin(*state, snapshot.spec); !s.is_ok())
        return end(LessonExportState::Failed, s.message(), {});
    publish(job);
    int asked_before = -1; // the slide before_slide_ was last called for
    for (;;)
    {
        if (before_slide_ && asked_before != job.steps_done())
        {
            asked_before = job.steps_done();
            before_slide_(asked_before);
        }
        if (cancel_requested())
        {
            job.cancel();
            return end(LessonExportState::Cancelled, std::string(), {});
        }
        // What the window's frame does between the job's ticks: a lesson's waiting runs start in turn, and
        // the step's trace comes in.
        update_trained_view(*state);
        state->finish_recompute();
        job.frame_drawn();
        const LessonExportTick t = job.tick(*state);
        publish(job);
        if (t == LessonExportTick::Done)
            return end(LessonExportState::Done, std::string(), job.written());
        if (t == LessonExportTick::Failed)
            return end(LessonExportState::Failed, job.error(), {});
        if (job.waits_for() > 0)
            wait(5); // the run trains on its own thread
    }
}

} // namespace attnlab
