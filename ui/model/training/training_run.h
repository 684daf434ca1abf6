// TrainingRun: a Trainer stepped on a worker thread, publishing snapshots (loss, held-out curves, head
// scores, the parameters and a timeline of earlier parameters) for the Training panel. No ImGui here.
//
// Who owns what:
//  - The trainer and the run's history belong to one thread at a time: the worker between play() and the
//    join in pause(), otherwise the UI thread (configure, reset, step_now). join() is the hand-over.
//  - The only state both threads touch is the atomics and published_ (under mutex_). The worker copies a
//    snapshot in under the lock; the UI copies it out under the lock (poll()). Parameters are shared as
//    immutable copies (shared_ptr<const Params>), so a copy of the snapshot costs a few kilobytes and the UI
//    never waits for a training step.
//  - The probe (the sequence the maps show) is not run here: the UI runs it from the published parameters
//    (TrainingProbe), so it can show any step of the timeline and any sequence the user types.
#pragma once

#include "core/io/model_file.h"
#include "core/status.h"
#include "core/train/run_spec.h"
#include "core/train/trainer.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace attnlab
{

// The held-out figures after a step (one point of the curves).
struct TrainingEval
{
    int step = 0;
    float train_loss = 0;                 // mean training-batch loss over the steps since the previous point
    float loss = 0;                       // held-out loss
    float accuracy = 0;                   // held-out accuracy on the counted positions
    std::vector<train::HeadScores> heads; // [l·h + j] on the held-out set
};

// The parameters after a step: one stop of the timeline. Immutable once published.
struct TrainingFrame
{
    int step = 0;
    std::shared_ptr<const train::Params> params;
};

// An earlier run, kept to compare with (2 layers against 1, h = 4 against h = 1, ...): its curves, and its
// final parameters, so its trained maps can be drawn on whatever probe the panel shows now (the probe can be
// edited or set by a lesson step after the run ended; the parameters are shared with its last timeline
// frame, so keeping them copies nothing, and a lesson's models are tens of kilobytes).
struct PastRun
{
    std::string label;        // its RunSpec::label(), as the legend shows it
    train::RunSpec config;    // the run's settings (its task: whether the current probe fits it)
    train::ModelConfig model; // its model's shape (n_heads, n_layers, T_max, ...)
    std::vector<float> loss;  // [step] training-batch loss
    std::vector<TrainingEval> evals;
    int step = 0;                                // its last step
    std::shared_ptr<const train::Params> params; // at that step
};

// What the UI draws: a copy of the run's state after some step.
struct TrainingSnapshot
{
    unsigned long long version = 0; // 0: nothing published yet
    train::RunSpec config;          // the run's
    train::ModelConfig model;       // its model (vocabulary size, T_max, causal, ...)
    std::vector<std::string> vocabulary;
    std::string probe_text;          // the task's default probe (Task::probe(): held out, never trained on)
    int step = 0;                    // steps taken
    int first_step = 0;              // the step the run started from (a model opened from a file: its steps)
    bool running = false;            // the worker was running when this was published
    std::vector<float> loss;         // [step − first_step] the training batch's loss at each step
    float accuracy = 0;              // mean training-batch accuracy over the last (up to) 20 steps
    double steps_per_s = 0;          // over the last play() or step_now()
    std::vector<TrainingEval> evals; // the held-out curves, every eval_every steps
    int eval_every = 1;
    std::vector<TrainingFrame> timeline; // step order; the first is the run's start, the last the current
    std::vector<PastRun> past;           // up to kKeptRuns earlier runs, oldest first
    std::string stopped_because;         // why the worker stopped by itself ("" : it did not)
    int diverged_at = -1;                // the first step whose training loss was NaN or infinite (-1: none)
    std::vector<MetricRow> history;      // the rows a saved model file keeps (one per evaluation)
    train::TrainSettings settings;       // the run's training settings (saved with the model)
    TrainedText text;                    // Text: what it trains on, as a saved model records it (else empty)

    // The parameters at the current step (nullptr before configure).
    const std::shared_ptr<const train::Params>& params() const;
    // The last timeline frame at or before step (the first frame when step is earlier).
    const TrainingFrame* frame_at(int step) const;
    // The current step's model as a file's contents (TrainedModel), for File > Save model.
    TrainedModel trained_model() const;
};

// The steepest fall of the training loss (the phase change): the window of steps over which its moving
// mean falls most. The window is a thirtieth of the run, 10 to 200 steps.
struct LossDrop
{
    int from_step = 0, to_step = 0; // the window's first and last step
    float drop = 0;                 // the fall of the moving mean over it (nats)
};
// loss[i] is the loss of step first_step + i + 1. False when the run is too short to tell.
bool steepest_drop(const std::vector<float>& loss, int first_step, LossDrop* out);

class TrainingRun
{
public:
    static constexpr int kKeptRuns = 3;      // earlier runs whose curves stay (the oldest goes first)
    static constexpr int kMaxTimeline = 200; // frames kept; beyond it every other one goes (spacing doubles)

    TrainingRun() = default;
    ~TrainingRun(); // stops and joins the worker
    TrainingRun(const TrainingRun&) = delete;
    TrainingRun& operator=(const TrainingRun&) = delete;

    // Stops the worker, builds a fresh model for config (step 0) and publishes it. The run so far (if it took
    // a step) joins the past runs. On error (train::check_run's, fields named as the Training panel labels
    // them) the previous run stays (paused) and the message is returned.
    Status configure(const train::RunSpec& config);
    // The same from a model file: its shape, settings and parameters at its step; Play goes on training it
    // (with fresh optimizer moments). Its metric history becomes the curves' held-out points.
    Status open(const TrainedModel& model);
    bool configured() const { return configured_; }
    // Starts the worker (no-op when running, not configured, at the target step, or diverged).
    void play();
    // Asks the worker to stop and joins it (waits for at most the step under way). No-op when not running.
    void pause();
    // True from play() until the worker stops (paused, reached the target or the accuracy).
    bool running() const { return worker_.joinable() && !finished_.load(std::memory_order_acquire); }
    // Pauses, then the same initial parameters (same seed: the same run again), step 0. The run so far joins
    // the past runs.
    void reset();
    // Pauses, then n steps on the calling thread, then publishes (Step, Step N, tests, screenshots). Stops
    // early when the loss stops being finite (the run diverged: its parameters are NaN from there on).
    void step_now(int n);
    // Changes the step play() stops at (the worker reads it at each step).
    void set_target_steps(int n) { target_.store(n, std::memory_order_relaxed); }
    // Stops the worker once the held-out accuracy reaches this (0: never).
    void set_stop_accuracy(float a) { stop_accuracy_.store(a, std::memory_order_relaxed); }
    // At most this many steps per second (0: as fast as it goes): a slow-motion pace to watch the change.
    void set_max_steps_per_s(float r) { max_steps_per_s_.store(r, std::memory_order_relaxed); }
    // Forgets the past runs' curves. With and_current, the current run does not join them at the next
    // configure() or open() either (a lesson's comparison starts from its own runs, not the student's).
    void clear_past(bool and_current = false);

    // Copies the latest snapshot into out when it is newer than out.version. Returns true when it did.
    bool poll(TrainingSnapshot& out) const;

    // A run set aside whole (a lesson's run while one of its steps shows a built-in model), so that showing
    // it again neither retrains it nor loses its timeline.
    // Pauses and moves the current run (its trainer with the optimizer's moments, its curves, timeline and
    // earlier runs) aside, replacing any run already there; nothing is configured until the next
    // configure() or open() (the last snapshot published stays the latest until then).
    void set_aside();
    // Pauses and swaps the current run with the one set aside, then publishes the run taken back as it was
    // (play() goes on from its step). False, and nothing changes, when nothing is aside.
    bool swap_aside();
    bool has_aside() const { return aside_ != nullptr; }
    // Forgets the run set aside.
    void drop_aside() { aside_.reset(); }

private:
    // The run-specific members below, kept while the run is aside.
    struct Aside
    {
        std::unique_ptr<train::Trainer> trainer = std::make_unique<train::Trainer>();
        TrainingSnapshot work;
        std::vector<float> accuracy;
        double loss_since_eval = 0;
        int steps_since_eval = 0;
        int frame_every = 1;
        int target = 0;
        bool configured = false;
    };
    void swap_with(Aside& aside);

    // On the thread that owns the run:
    void worker_loop();
    void record(const train::StepStats& s);
    bool diverged() const { return work_.diverged_at >= 0; }
    std::string diverged_because() const;
    const train::EvalStats& evaluate_now(); // the held-out figures, as the curves' next point
    void add_frame();
    void publish(bool running);
    void keep_as_past(); // the run so far joins the past runs (when it took a step and is not dropped)
    void start_fresh();  // history for a run at trainer_'s current step
    // On the UI thread: joins a worker that stopped by itself (reached the target).
    void join_finished();

    // Owned by the worker while it runs, by the UI thread otherwise. The trainer is on the heap so that a
    // run can be set aside without moving it (its tensor lists point into it).
    std::unique_ptr<train::Trainer> trainer_ = std::make_unique<train::Trainer>();
    TrainingSnapshot work_;       // the next snapshot, built here then copied under the lock
    std::vector<float> accuracy_; // the last steps' batch accuracy
    double loss_since_eval_ = 0;  // sum of the batch losses since the last evaluation
    int steps_since_eval_ = 0;
    int frame_every_ = 1;       // steps between timeline frames (doubles when the timeline is full)
    bool configured_ = false;   // written by the UI thread only
    bool drop_current_ = false; // clear_past(true): the current run is not kept at the next configure/open

    // Shared.
    std::thread worker_;
    std::atomic<bool> stop_{false};
    std::atomic<bool> finished_{true};
    std::atomic<int> target_{0};
    std::atomic<float> stop_accuracy_{0.0f};
    std::atomic<float> max_steps_per_s_{0.0f};
    mutable std::mutex mutex_;
    TrainingSnapshot published_; // under mutex_
    unsigned long long next_version_ = 1;

    // UI thread only.
    std::unique_ptr<Aside> aside_; // the run set aside (nullptr: none)
};

} // namespace attnlab
