// TrainingRun: the worker thread, the hand-over of the trainer and the snapshots it publishes.
#include "ui/training_run.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace attnlab
{

namespace
{

using Clock = std::chrono::steady_clock;

// The worker publishes at most this often (the UI draws at 60 Hz; the probe costs one B = 1 pass).
constexpr auto kPublishEvery = std::chrono::milliseconds(50);
// Steps the accuracy is averaged over.
constexpr std::size_t kAccuracyWindow = 20;

double seconds_since(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

} // namespace

// [SECTION] TrainingConfig

TrainingConfig TrainingConfig::from_preset(train::TaskKind task)
{
    const train::Preset p = train::Task(task).preset();
    TrainingConfig c;
    c.task = task;
    c.n_layers = p.model.n_layers;
    c.n_heads = p.model.n_heads;
    c.d_model = p.model.d_model;
    c.attention_only = p.model.attention_only;
    c.lr = p.train.optimizer.lr;
    c.seed = p.model.seed;
    c.target_steps = p.train.steps;
    return c;
}

bool TrainingConfig::operator==(const TrainingConfig& o) const
{
    return task == o.task && n_layers == o.n_layers && n_heads == o.n_heads && d_model == o.d_model &&
           attention_only == o.attention_only && lr == o.lr && seed == o.seed &&
           target_steps == o.target_steps;
}

// [SECTION] Control (UI thread)

TrainingRun::~TrainingRun()
{
    pause();
}

Status TrainingRun::configure(const TrainingConfig& config)
{
    pause();
    const train::Task task(config.task);
    train::Preset preset = task.preset();
    preset.model.n_layers = config.n_layers;
    preset.model.n_heads = config.n_heads;
    preset.model.d_model = config.d_model;
    preset.model.attention_only = config.attention_only;
    preset.model.seed = config.seed;
    preset.train.data_seed = config.seed;
    preset.train.optimizer.lr = config.lr;
    if (!(config.lr > 0.0f && config.lr < 1.0f))
        return Status::error("the learning rate must be in (0, 1)");
    if (Status s = trainer_.init(config.task, preset); !s)
        return s;

    probe_batch_ = task.held_out(1, 1).front();
    const int T = probe_batch_.T;
    work_ = TrainingSnapshot{};
    work_.config = config;
    work_.T = T;
    work_.tokens.clear();
    for (int t = 0; t < T; ++t)
        work_.tokens.push_back(task.vocabulary()[static_cast<std::size_t>(probe_batch_.tokens[t])]);
    work_.mask = Mat::Zero(T, T);
    if (trainer_.model().causal)
        for (int i = 0; i < T; ++i)
            for (int j = i + 1; j < T; ++j)
                work_.mask(i, j) = -std::numeric_limits<float>::infinity();
    accuracy_.clear();
    target_.store(config.target_steps, std::memory_order_relaxed);
    configured_ = true;
    publish(false);
    return Status::ok();
}

void TrainingRun::play()
{
    if (!configured_ || running())
        return;
    join_finished();
    if (trainer_.steps_taken() >= target_.load(std::memory_order_relaxed))
        return;
    stop_.store(false, std::memory_order_relaxed);
    finished_.store(false, std::memory_order_release);
    // From here until pause() joins, the trainer and the history belong to the worker.
    worker_ = std::thread(&TrainingRun::worker_loop, this);
}

void TrainingRun::pause()
{
    if (!worker_.joinable())
        return;
    stop_.store(true, std::memory_order_release);
    worker_.join(); // the hand-over: everything the worker wrote is visible from here
    stop_.store(false, std::memory_order_relaxed);
}

void TrainingRun::join_finished()
{
    if (worker_.joinable())
        worker_.join();
}

void TrainingRun::reset()
{
    pause();
    if (!configured_)
        return;
    trainer_.reset();
    work_.loss.clear();
    accuracy_.clear();
    publish(false);
}

void TrainingRun::step_now(int n)
{
    pause();
    if (!configured_)
        return;
    const Clock::time_point t0 = Clock::now();
    for (int i = 0; i < n; ++i)
        record(trainer_.step());
    const double s = seconds_since(t0);
    work_.steps_per_s = s > 0.0 && n > 0 ? n / s : 0.0;
    publish(false);
}

bool TrainingRun::poll(TrainingSnapshot& out) const
{
    const std::lock_guard<std::mutex> lock(mutex_);
    if (published_.version == out.version)
        return false;
    out = published_;
    return true;
}

// [SECTION] The thread that owns the run (the worker, or the UI thread while it is stopped)

void TrainingRun::worker_loop()
{
    const Clock::time_point start = Clock::now();
    const int start_step = trainer_.steps_taken();
    Clock::time_point last_publish = start;
    while (!stop_.load(std::memory_order_acquire) &&
           trainer_.steps_taken() < target_.load(std::memory_order_relaxed))
    {
        record(trainer_.step());
        if (Clock::now() - last_publish >= kPublishEvery)
        {
            const double s = seconds_since(start);
            work_.steps_per_s = s > 0.0 ? (trainer_.steps_taken() - start_step) / s : 0.0;
            publish(true);
            last_publish = Clock::now();
        }
    }
    const double s = seconds_since(start);
    work_.steps_per_s = s > 0.0 ? (trainer_.steps_taken() - start_step) / s : 0.0;
    publish(false);
    finished_.store(true, std::memory_order_release);
}

void TrainingRun::record(const train::StepStats& s)
{
    work_.loss.push_back(s.loss);
    accuracy_.push_back(s.accuracy);
    if (accuracy_.size() > kAccuracyWindow)
        accuracy_.erase(accuracy_.begin());
}

void TrainingRun::publish(bool running)
{
    work_.step = trainer_.steps_taken();
    work_.running = running;
    float sum = 0.0f;
    for (const float a : accuracy_)
        sum += a;
    work_.accuracy = accuracy_.empty() ? 0.0f : sum / static_cast<float>(accuracy_.size());

    // The probe: every intermediate of the held-out sequence under the current parameters.
    const Status s = trainer_.probe(probe_batch_);
    assert(s.is_ok());
    (void)s;
    const train::ModelConfig& model = trainer_.model();
    const train::Activations& acts = trainer_.probe_activations();
    const int h = model.n_heads;
    const int T = probe_batch_.T;
    work_.weights.resize(static_cast<std::size_t>(model.n_layers) * static_cast<std::size_t>(h));
    for (int l = 0; l < model.n_layers; ++l)
        for (int j = 0; j < h; ++j)
            work_.weights[static_cast<std::size_t>(l * h + j)] =
                train::attention_block(acts.layers[static_cast<std::size_t>(l)].weights, 0, j, h, T);
    score_sums_.reset(model);
    score_sums_.add(model, probe_batch_, acts);
    score_sums_.finish(work_.scores);

    const std::lock_guard<std::mutex> lock(mutex_);
    work_.version = next_version_++;
    published_ = work_;
}

} // namespace attnlab
