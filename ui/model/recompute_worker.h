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
#include "core/train/readouts.h"
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
    int threads = 1;                // the threads its products could split over (RecomputeWorker::request)
};

// What an opened model's run gives the frame besides nothing else: its trace and what the panels read out of
// it, computed on the worker so no frame ranks a 50,000-token row.
struct OpenedRun
{
    Trace trace;
    // The 5 most probable tokens: at every position (GPT-2's next tokens) or at each [MASK] (BERT's fillers).
    std::vector<train::PositionTop> predictions;
    // The same with every head on, when the run switched heads off (empty otherwise): "before" beside
    // "after".
    std::vector<train::PositionTop> before;
    train::HeadMask heads_off; // the heads the run switched off (empty: none)
    bool has_lens = false;     // lens holds this run's logit lens (asked for with the run)
    train::LogitLens lens;
};

// What the worker runs an opened model with besides the session's text.
struct OpenedRequest
{
    std::shared_ptr<const HfLoadedModel> model; // nullptr: the session's own weights run
    train::HeadMask heads_off;                  // heads switched off (empty: none)
    bool lens = false;                          // also compute the logit lens (costly: on request)
};

// How many tokens of an opened model the window shows: its context, or fewer when keeping every intermediate
// of a longer text would take more than kOpenedMemoryBudget bytes. The window holds the worker's activations
// and two traces (the one shown, the one being made): about 14 floats for each of the layers · heads · T²
// attention entries and 6 for each of the T · V logits (measured at T = 1009 on GPT-2 small: 10 GB). A
// multiple of 64 when it is cut.
inline constexpr double kOpenedMemoryBudget = 3.0e9;
int opened_token_limit(const train::ModelConfig& config);

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
    // thread starts with the first request. With opened.model (a model folder, core/io/hf_model.h) the
    // session's text runs through that model instead (B = 1, the whole text as one sequence; target and
    // config unused), with opened's heads off and, when asked, the logit lens. With one_thread the run's
    // products stay on the worker's thread (a training run has the other core); otherwise they split over
    // every core OpenMP has (core/gemm.h: the same bits either way).
    void request(const Session& session, std::shared_ptr<const ModelWeights> imported_weights,
                 unsigned long long version, OpenedRequest opened = {}, bool one_thread = false);
    // Waits up to `wait` (zero: not at all) for a finished run. When there is one, its trace and weights go
    // to `shown` (only when it succeeded; Engine::take_trace), or for an opened model's run its outputs to
    // `opened_run` (swapped; dropped when nullptr); *result says what it was, the worker may start the next
    // request, and it returns true. Frame thread only.
    bool take(Engine& shown, RecomputeResult* result, std::chrono::nanoseconds wait,
              OpenedRun* opened_run = nullptr);
    // The same, waiting as long as it takes; false only when nothing is requested, running or finished.
    bool take_when_done(Engine& shown, RecomputeResult* result, OpenedRun* opened_run = nullptr);
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
        OpenedRequest opened;
        bool one_thread = false;
    };

    void loop();
    // The opened model's run of r (on the worker thread): opened_run_ and opened_out_.
    Status run_opened(const Request& r);

    Engine engine_;        // the worker's own: touched by the worker while it runs, by take() while it waits
    HfRun opened_run_;     // the same for an opened model's runs (its activations are used up by the trace)
    OpenedRun opened_out_; // the last opened model's run for the panels (handed over by take())
    // The predictions with every head on of the last text run with heads off, so switching more heads off
    // does not run the whole model twice.
    std::weak_ptr<const HfLoadedModel> before_model_;
    std::vector<int> before_ids_;
    std::vector<train::PositionTop> before_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;         // any change of the members below
    std::optional<Request> queued_;           // under mutex_: the next run
    bool running_ = false;                    // under mutex_
    std::optional<RecomputeResult> finished_; // under mutex_: waits for take()
    bool stop_ = false;                       // under mutex_
    // Under mutex_: the opened run take() replaced. The worker frees it and gives the memory back to the
    // system (tens of ms for GPT-2 small), so the window holds one trace of the model, not two, and the frame
    // thread does not pay for it.
    OpenedRun stale_;
    bool stale_pending_ = false;
    int runs_ = 0;                      // under mutex_
    std::function<void()> on_finished_; // set before the thread starts, then only read by it
    std::thread thread_;                // started by the first request (frame thread only)
};

} // namespace attnlab
