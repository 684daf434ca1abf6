// TrainingRun: a Trainer stepped on a worker thread, publishing snapshots (loss, accuracy, probe maps) for
// the Training panel. No ImGui here.
//
// Who owns what:
//  - The trainer and the run's history belong to one thread at a time: the worker between play() and the
//    join in pause(), otherwise the UI thread (configure, reset, step_now). join() is the hand-over.
//  - The only state both threads touch is stop_ / finished_ (atomics) and published_ (under mutex_). The
//    worker copies a finished snapshot in under the lock; the UI copies it out under the lock (poll()). Each
//    copy is a few kilobytes, so the UI never waits for a training step.
#pragma once

#include "core/matrix.h"
#include "core/status.h"
#include "core/train/trainer.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace attnlab
{

// What the user chose: a task and the preset fields the panel lets them change.
struct TrainingConfig
{
    train::TaskKind task = train::TaskKind::Reverse;
    int n_layers = 2;
    int n_heads = 2; // h
    int d_model = 48;
    bool attention_only = false;
    float lr = 1e-3f;
    std::uint64_t seed = 1; // the initial parameters and the training batches
    int target_steps = 500; // play() stops here

    // The task's preset model and settings.
    static TrainingConfig from_preset(train::TaskKind task);
    bool operator==(const TrainingConfig& o) const;
    bool operator!=(const TrainingConfig& o) const { return !(*this == o); }
};

// What the UI draws: a copy of the run's state after some step.
struct TrainingSnapshot
{
    unsigned long long version = 0; // 0: nothing published yet
    TrainingConfig config;          // the run's (what the maps were made with)
    int step = 0;                   // steps taken
    bool running = false;           // the worker was running when this was published
    std::vector<float> loss;        // [step] the training batch's loss at each step
    float accuracy = 0;             // mean training-batch accuracy over the last (up to) 20 steps
    double steps_per_s = 0;         // over the last play() or step_now()
    // The probe: the task's first held-out sequence (B = 1) run through the current parameters.
    int T = 0;
    std::vector<std::string> tokens; // (T) the probe's tokens
    std::vector<Mat> weights;        // [l·h + j] (T, T) A_h = softmax(Q_h K_hᵀ / √d_k + M)
    Mat mask;                        // (T, T) 0, or −∞ where a key is masked (causal), for the heatmap
    std::vector<train::HeadScores> scores; // [l·h + j] on the probe
};

class TrainingRun
{
public:
    TrainingRun() = default;
    ~TrainingRun(); // stops and joins the worker
    TrainingRun(const TrainingRun&) = delete;
    TrainingRun& operator=(const TrainingRun&) = delete;

    // Stops the worker, builds a fresh model for config (step 0) and publishes it. On error the previous run
    // stays (paused) and the message is returned.
    Status configure(const TrainingConfig& config);
    bool configured() const { return configured_; }
    // Starts the worker (no-op when running, not configured, or at the target step).
    void play();
    // Asks the worker to stop and joins it (waits for at most the step under way). No-op when not running.
    void pause();
    // True from play() until the worker stops (paused, or reached the target).
    bool running() const { return worker_.joinable() && !finished_.load(std::memory_order_acquire); }
    // Pauses, then the same initial parameters (same seed: the same run again), step 0.
    void reset();
    // Pauses, then n steps on the calling thread, then publishes (for tests and `screenshot --train`).
    void step_now(int n);
    // Changes the step play() stops at (the worker reads it at each step).
    void set_target_steps(int n) { target_.store(n, std::memory_order_relaxed); }

    // Copies the latest snapshot into out when it is newer than out.version. Returns true when it did.
    bool poll(TrainingSnapshot& out) const;

private:
    // On the thread that owns the run:
    void worker_loop();
    void record(const train::StepStats& s);
    void publish(bool running); // probes, then copies work_ to published_ under the lock
    // On the UI thread: joins a worker that stopped by itself (reached the target).
    void join_finished();

    // Owned by the worker while it runs, by the UI thread otherwise.
    train::Trainer trainer_;
    train::Batch probe_batch_;
    train::HeadScoreSums score_sums_;
    TrainingSnapshot work_;       // the next snapshot, built here then copied under the lock
    std::vector<float> accuracy_; // the last steps' batch accuracy
    bool configured_ = false;     // written by the UI thread only

    // Shared.
    std::thread worker_;
    std::atomic<bool> stop_{false};
    std::atomic<bool> finished_{true};
    std::atomic<int> target_{0};
    mutable std::mutex mutex_;
    TrainingSnapshot published_; // under mutex_
    unsigned long long next_version_ = 1;
};

} // namespace attnlab
