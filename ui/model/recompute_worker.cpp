// RecomputeWorker: one thread, one engine, the latest request; results handed to the frame under a mutex.
#include "ui/model/recompute_worker.h"

#include <string>
#include <utility>

namespace attnlab
{

RecomputeWorker::~RecomputeWorker()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable())
        thread_.join();
}

void RecomputeWorker::request(const Session& session, std::shared_ptr<const ModelWeights> imported_weights,
                              unsigned long long version, std::shared_ptr<const HfLoadedModel> opened)
{
    Request r{session, std::move(imported_weights), version, std::move(opened)};
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queued_ = std::move(r); // a request that has not started is replaced
    }
    changed_.notify_all();
    if (!thread_.joinable())
        thread_ = std::thread([this] { loop(); });
}

bool RecomputeWorker::take(Engine& shown, RecomputeResult* result, std::chrono::nanoseconds wait,
                           Trace* opened_trace)
{
    std::unique_lock<std::mutex> lock(mutex_);
    if (!finished_ && wait > std::chrono::nanoseconds::zero())
        changed_.wait_for(lock, wait, [this] { return finished_.has_value(); });
    if (!finished_)
        return false;
    // The worker waits for this (it starts nothing while finished_ holds a result): its engine is ours.
    if (finished_->status.is_ok() && finished_->opened)
    {
        if (opened_trace != nullptr)
            std::swap(*opened_trace, opened_trace_);
    }
    else if (finished_->status.is_ok())
        shown.take_trace(engine_);
    *result = std::move(*finished_);
    finished_.reset();
    lock.unlock();
    changed_.notify_all();
    return true;
}

bool RecomputeWorker::take_when_done(Engine& shown, RecomputeResult* result, Trace* opened_trace)
{
    {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!queued_ && !running_ && !finished_)
            return false;
        changed_.wait(lock, [this] { return finished_.has_value(); });
    }
    return take(shown, result, std::chrono::nanoseconds::zero(), opened_trace);
}

bool RecomputeWorker::busy() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return queued_ || running_ || finished_;
}

bool RecomputeWorker::running() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return running_;
}

int RecomputeWorker::runs() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return runs_;
}

void RecomputeWorker::loop()
{
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;)
    {
        // The next run starts once the last result is taken, so take() can hand the engine's trace over.
        changed_.wait(lock, [this] { return stop_ || (queued_ && !finished_); });
        if (stop_)
            return;
        Request r = std::move(*queued_);
        queued_.reset();
        running_ = true;
        ++runs_;
        lock.unlock();

        // Outside the lock: only this thread touches engine_ and the opened model's buffers now.
        const auto t0 = std::chrono::steady_clock::now();
        Status status;
        if (r.opened)
        {
            status = run_hf_text(*r.opened, r.session.text, &opened_run_);
            if (status.is_ok())
                fill_hf_trace(*r.opened, opened_run_, &opened_trace_);
        }
        else
        {
            if (engine_.shared_imported_weights() != r.imported_weights)
                engine_.share_imported_weights(r.imported_weights);
            status = engine_.run(r.session);
        }
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

        lock.lock();
        running_ = false;
        finished_ = RecomputeResult{r.version, std::move(status), ms, r.opened != nullptr};
        changed_.notify_all();
        if (on_finished_)
            on_finished_();
    }
}

} // namespace attnlab
