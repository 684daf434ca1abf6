// RecomputeWorker: one thread, one engine, the latest request; results handed to the frame under a mutex.
#include "ui/model/recompute_worker.h"

#include <algorithm>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
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
                              unsigned long long version, OpenedRequest opened, bool one_thread)
{
    Request r{session, std::move(imported_weights), version, std::move(opened), one_thread};
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queued_ = std::move(r); // a request that has not started is replaced
    }
    changed_.notify_all();
    if (!thread_.joinable())
        thread_ = std::thread([this] { loop(); });
}

bool RecomputeWorker::take(Engine& shown, RecomputeResult* result, std::chrono::nanoseconds wait,
                           OpenedRun* opened_run)
{
    std::unique_lock<std::mutex> lock(mutex_);
    if (!finished_ && wait > std::chrono::nanoseconds::zero())
        changed_.wait_for(lock, wait, [this] { return finished_.has_value(); });
    if (!finished_)
        return false;
    // The worker waits for this (it starts nothing while finished_ holds a result): its engine is ours.
    if (finished_->status.is_ok() && finished_->opened)
    {
        if (opened_run != nullptr)
            std::swap(*opened_run, opened_out_);
        // The run it replaces is not kept for reuse: a second trace of the model would double the memory.
        stale_ = std::move(opened_out_);
        opened_out_ = OpenedRun{};
        stale_pending_ = true;
    }
    else if (finished_->status.is_ok())
        shown.take_trace(engine_);
    *result = std::move(*finished_);
    finished_.reset();
    lock.unlock();
    changed_.notify_all();
    return true;
}

bool RecomputeWorker::take_when_done(Engine& shown, RecomputeResult* result, OpenedRun* opened_run)
{
    {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!queued_ && !running_ && !finished_)
            return false;
        changed_.wait(lock, [this] { return finished_.has_value(); });
    }
    return take(shown, result, std::chrono::nanoseconds::zero(), opened_run);
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

namespace
{

// What the output stage predicts, in words: GPT-2's next tokens at every position, BERT's fillers at each
// [MASK].
std::vector<train::PositionTop> run_predictions(const HfLoadedModel& model, const HfRun& run)
{
    constexpr int k = 5;
    if (model.config.causal)
        return train::next_token_top_k(run.acts, 0, k);
    return train::mask_fill_top_k(run.batch, run.acts, 0, model.mask_id, k);
}

} // namespace

int opened_token_limit(const train::ModelConfig& config)
{
    const auto bytes = [&](double T)
    {
        const double maps = static_cast<double>(config.n_layers) * config.n_heads * T * T;
        return 4.0 * (14.0 * maps + 6.0 * T * static_cast<double>(config.vocab_size));
    };
    if (bytes(config.T_max) <= kOpenedMemoryBudget)
        return config.T_max;
    int T = 64;
    while (T + 64 < config.T_max && bytes(T + 64) <= kOpenedMemoryBudget)
        T += 64;
    return T;
}

Status RecomputeWorker::run_opened(const Request& r)
{
    const HfLoadedModel& model = *r.opened.model;
    Encoding encoding;
    ATTNLAB_TRY(encode_for_model(model, r.session.text, &encoding));
    // Longer texts than the window can hold every intermediate of are refused before any is made.
    const int limit = opened_token_limit(model.config);
    if (static_cast<int>(encoding.ids.size()) > limit)
        return Status::error(
            "The text is " + std::to_string(encoding.ids.size()) +
            " tokens long; the window shows every intermediate of " + model.label() + " for at most " +
            std::to_string(limit) + " tokens (more would take over " +
            std::to_string(static_cast<int>(kOpenedMemoryBudget / 1e9)) +
            " GB of memory): shorten the text. attnlab export --model takes up to the model's "
            "context (" +
            std::to_string(model.config.T_max) + " tokens).");
    const train::HeadMask& off = r.opened.heads_off;
    const bool ablated = std::find(off.begin(), off.end(), std::uint8_t{1}) != off.end();
    if (!ablated)
    {
        before_model_.reset();
        before_ids_.clear();
        before_.clear();
    }
    else if (before_model_.lock() != r.opened.model || before_ids_ != encoding.ids)
    {
        // "Before": the same text with every head on, run again only when the text or the model changed.
        ATTNLAB_TRY(run_hf_ids(model, encoding.ids, &opened_run_));
        before_ = run_predictions(model, opened_run_);
        before_model_ = r.opened.model;
        before_ids_ = encoding.ids;
    }
    ATTNLAB_TRY(run_hf_ids(model, encoding.ids, &opened_run_, ablated ? &off : nullptr));
    opened_run_.encoding = std::move(encoding);
    opened_out_.predictions = run_predictions(model, opened_run_);
    opened_out_.before = ablated ? before_ : std::vector<train::PositionTop>{};
    opened_out_.heads_off = ablated ? off : train::HeadMask{};
    opened_out_.has_lens = r.opened.lens && model.config.vocab_size > 0;
    if (opened_out_.has_lens)
        opened_out_.lens = train::logit_lens(model.config, *model.params, opened_run_.acts, 0);
    // Last, as it uses the activations up: the window holds the trace, not the pass as well.
    take_hf_trace(model, opened_run_, &opened_out_.trace);
    return Status::ok();
}

void RecomputeWorker::loop()
{
#ifdef _OPENMP
    const int all_cores = omp_get_max_threads(); // this thread's count before any request changed it
#else
    const int all_cores = 1;
#endif
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;)
    {
        // The next run starts once the last result is taken, so take() can hand the engine's trace over.
        changed_.wait(lock, [this] { return stop_ || (queued_ && !finished_) || stale_pending_; });
        if (stop_)
            return;
        if (stale_pending_)
        {
            OpenedRun stale = std::move(stale_);
            stale_ = OpenedRun{};
            stale_pending_ = false;
            lock.unlock();
            stale = OpenedRun{};
#if defined(__GLIBC__)
            malloc_trim(0); // glibc keeps freed blocks of this size resident unless asked
#endif
            lock.lock();
            continue;
        }
        Request r = std::move(*queued_);
        queued_.reset();
        running_ = true;
        ++runs_;
        lock.unlock();

        // Outside the lock: only this thread touches engine_ and the opened model's buffers now. The thread
        // count is this thread's OpenMP setting, which gemm() reads (core/gemm.h).
        const int threads = r.one_thread ? 1 : all_cores;
#ifdef _OPENMP
        omp_set_num_threads(threads);
#endif
        const auto t0 = std::chrono::steady_clock::now();
        Status status;
        if (r.opened.model)
            status = run_opened(r);
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
        finished_ = RecomputeResult{r.version, std::move(status), ms, r.opened.model != nullptr, threads};
        changed_.notify_all();
        if (on_finished_)
            on_finished_();
    }
}

} // namespace attnlab
