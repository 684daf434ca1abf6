// RecomputeWorker: the session's forward pass on a thread of its own, so a large session never stops the
// frames. The latest request wins; a finished run waits until the frame takes it (AppState::update).
//
// Threads: the frame thread calls request() and take(); the worker thread runs its own Engine on its own copy
// of the session. They share only the members marked "under mutex_". The worker touches its engine only while
// it runs a request, and it starts the next run only after the frame took the last result, so take() may hand
// the engine's trace over (Engine::take_trace) under the mutex without racing the worker.
#pragma once

#include "core/engine.h"
#include "core/io/hf_model.h"
#include "core/session.h"
#include "core/status.h"
#include "core/weights.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace attnlab
{

// What one finished run gives the frame.
struct RecomputeResult
{
    unsigned long long version = 0; // the session version the run computed
    Status status;                  // its result: an error leaves the shown trace as it was
    double ms = 0.0;                // the run's wall time on the worker
    bool opened = false;            // the run was the session's text through an opened model folder
};

class RecomputeWorker
{
public:
    RecomputeWorker() = default;
    // Stops the worker: a run going on finishes first (the engine cannot be interrupted), then the thread is
    // joined. A result nobody took is dropped.
    ~RecomputeWorker();
    RecomputeWorker(const RecomputeWorker&) = delete;
    RecomputeWorker& operator=(const RecomputeWorker&) = delete;

    // Called on the worker thread each time a run finishes (the window wakes its event loop with it). Set it
    // before the first request.
    void set_on_finished(std::function<void()> on_finished) { on_finished_ = std::move(on_finished); }
    // Asks for a run of `session` (copied) with these imported weights (nullptr: the seeded ones), replacing
    // a request that has not started yet: the latest edit wins. A run going on is finished, not stopped. The
    // thread starts with the first request. With `opened` (a model folder, core/io/hf_model.h) the session's
    // text runs through that model instead (B = 1, the whole text as one sequence; target and config unused).
    void request(const Session& session, std::shared_ptr<const ModelWeights> imported_weights,
                 unsigned long long version, std::shared_ptr<const HfLoadedModel> opened = nullptr);
    // Waits up to `wait` (zero: not at all) for a finished run. When there is one, its trace and weights go
    // to `shown` (only when it succeeded; Engine::take_trace), or for an opened model's run its trace to
    // `opened_trace` (swapped; dropped when nullptr); *result says what it was, the worker may start the next
    // request, and it returns true. Frame thread only.
    bool take(Engine& shown, RecomputeResult* result, std::chrono::nanoseconds wait,
              Trace* opened_trace = nullptr);
    // The same, waiting as long as it takes; false only when nothing is requested, running or finished.
    bool take_when_done(Engine& shown, RecomputeResult* result, Trace* opened_trace = nullptr);
    // A request waiting, running or finished and not taken yet.
    bool busy() const;
    // A run going on right now (false while a request waits or a result waits to be taken).
    bool running() const;
    // Engine runs started so far (a request replaced before it started does not count).
    int runs() const;

private:
    struct Request
    {
        Session session;
        std::shared_ptr<const ModelWeights> imported_weights;
        unsigned long long version = 0;
        std::shared_ptr<const HfLoadedModel> opened;
    };

    void loop();

    Engine engine_;      // the worker's own: touched by the worker while it runs, by take() while it waits
    HfRun opened_run_;   // the same for an opened model's runs: its buffers, reused
    Trace opened_trace_; // the last opened model's run in the Trace layout (handed over by take())
    mutable std::mutex mutex_;
    std::condition_variable changed_;         // any change of the members below
    std::optional<Request> queued_;           // under mutex_: the next run
    bool running_ = false;                    // under mutex_
    std::optional<RecomputeResult> finished_; // under mutex_: waits for take()
    bool stop_ = false;                       // under mutex_
    int runs_ = 0;                            // under mutex_
    std::function<void()> on_finished_;       // set before the thread starts, then only read by it
    std::thread thread_;                      // started by the first request (frame thread only)
};

} // namespace attnlab
