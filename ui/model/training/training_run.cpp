// TrainingRun: the worker thread, the hand-over of the trainer and the snapshots it publishes.
#include "ui/model/training/training_run.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

namespace attnlab
{

namespace
{

using Clock = std::chrono::steady_clock;

// The worker publishes at most this often (the UI draws at 60 Hz).
constexpr auto kPublishEvery = std::chrono::milliseconds(50);
// Steps the accuracy is averaged over.
constexpr std::size_t kAccuracyWindow = 20;
// Held-out sequences a window run evaluates on (the command line's default is 512): the curves need many
// points, and each costs held_out_size / batch forward passes.
constexpr int kHeldOutSize = 256;

double seconds_since(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

// About 60 points over a run of `target` steps, at least 10 steps apart.
int eval_spacing(int target)
{
    return std::max(10, (target + 30) / 60);
}

} // namespace

// [SECTION] TrainingSnapshot

const std::shared_ptr<const train::Params>& TrainingSnapshot::params() const
{
    static const std::shared_ptr<const train::Params> none;
    return timeline.empty() ? none : timeline.back().params;
}

const TrainingFrame* TrainingSnapshot::frame_at(int at_step) const
{
    if (timeline.empty())
        return nullptr;
    // The last frame whose step is <= at_step.
    const auto it = std::upper_bound(timeline.begin(), timeline.end(), at_step,
                                     [](int s, const TrainingFrame& f) { return s < f.step; });
    return it == timeline.begin() ? &timeline.front() : &*(it - 1);
}

TrainedModel TrainingSnapshot::trained_model() const
{
    TrainedModel m;
    m.task = train::task_info(config.task).key;
    m.config = model;
    m.vocabulary = vocabulary;
    m.settings = settings;
    m.steps_taken = step;
    m.history = history;
    m.text = text;
    if (params())
        m.params = *params();
    return m;
}

// [SECTION] The phase change

bool steepest_drop(const std::vector<float>& loss, int first_step, LossDrop* out)
{
    const int n = static_cast<int>(loss.size());
    const int width = std::clamp(n / 30, 10, 200);
    const int smooth = std::max(5, width / 4);
    if (n < 2 * width + smooth)
        return false;
    // Moving mean over `smooth` steps ending at each step.
    std::vector<double> mean(static_cast<std::size_t>(n), 0.0);
    double sum = 0;
    for (int i = 0; i < n; ++i)
    {
        sum += static_cast<double>(loss[static_cast<std::size_t>(i)]);
        if (i >= smooth)
            sum -= static_cast<double>(loss[static_cast<std::size_t>(i - smooth)]);
        mean[static_cast<std::size_t>(i)] = sum / std::min(i + 1, smooth);
    }
    double best = -1e300;
    int at = -1;
    for (int i = smooth - 1 + width; i < n; ++i)
    {
        const double d = mean[static_cast<std::size_t>(i - width)] - mean[static_cast<std::size_t>(i)];
        if (d > best)
        {
            best = d;
            at = i;
        }
    }
    if (at < 0)
        return false;
    out->from_step = first_step + at - width + 1;
    out->to_step = first_step + at + 1;
    out->drop = static_cast<float>(best);
    return true;
}

// [SECTION] Control (UI thread)

TrainingRun::~TrainingRun()
{
    pause();
}

Status TrainingRun::configure(const train::RunSpec& config)
{
    pause();
    ATTNLAB_TRY(train::check_run(config, train::FieldNames::Label));
    train::Preset preset = config.preset();
    preset.train.held_out_size = kHeldOutSize;
    train::Task task(config.task == train::TaskKind::Text ? train::TaskKind::Reverse : config.task);
    ATTNLAB_TRY(train::run_task(config, &task)); // Text: its corpus read, with its repeat share
    preset.model.vocab_size = task.vocab_size();
    if (Status s = trainer_->init(task, preset); !s)
        return s;
    keep_as_past();
    work_.config = config;
    target_.store(config.steps, std::memory_order_relaxed);
    start_fresh();
    return Status::ok();
}

Status TrainingRun::open(const TrainedModel& model)
{
    pause();
    train::TaskKind kind = train::TaskKind::Count;
    ATTNLAB_TRY(train::parse_task(model.task, &kind));
    train::Preset preset;
    preset.model = model.config;
    preset.train = model.settings;
    preset.train.held_out_size = kHeldOutSize;
    if (kind == train::TaskKind::Text)
    {
        // A text model trains on, and is scored on, the text it was trained on (its file, or a built-in
        // book).
        train::Task task(train::TaskKind::Text);
        ATTNLAB_TRY(trained_text_task(model, &task));
        ATTNLAB_TRY(trainer_->init(task, preset));
    }
    else if (Status s = trainer_->init(kind, preset); !s)
        return s;
    if (Status s = trainer_->restore(model.params); !s)
    {
        configured_ = false; // the trainer holds a half-made model: nothing to show until the next configure
        return s;
    }
    trainer_->set_steps_taken(model.steps_taken);
    keep_as_past();
    work_.config = train::RunSpec::of_model(kind, preset);
    if (kind == train::TaskKind::Text)
    {
        work_.config.corpus = model.text.corpus.empty() ? model.text.file : model.text.corpus;
        work_.config.repeat = model.text.repeat;
        work_.config.level = model.text.level;
    }
    work_.config.steps = std::max(model.settings.steps, model.steps_taken);
    target_.store(work_.config.steps, std::memory_order_relaxed);
    start_fresh();
    // The file's history as the held-out curves (with the scores the file keeps per head).
    const int n_heads_total = model.config.n_layers * model.config.n_heads;
    for (const MetricRow& row : model.history)
    {
        TrainingEval e;
        e.step = row.step;
        e.train_loss = row.loss;
        e.loss = row.held_out_loss;
        e.accuracy = row.accuracy;
        e.heads.resize(static_cast<std::size_t>(n_heads_total));
        for (std::size_t k = 0; k < e.heads.size(); ++k)
        {
            if (k < row.previous_token.size())
                e.heads[k].previous_token = row.previous_token[k];
            if (k < row.induction.size())
                e.heads[k].induction = row.induction[k];
            if (k < row.word_start.size())
                e.heads[k].word_start = row.word_start[k];
            if (k < row.diagonal.size())
                e.heads[k].diagonal = row.diagonal[k];
            if (k < row.anti_diagonal.size())
                e.heads[k].anti_diagonal = row.anti_diagonal[k];
        }
        if (e.step <= model.steps_taken)
            work_.evals.push_back(std::move(e));
    }
    work_.history = model.history;
    publish(false);
    return Status::ok();
}

void TrainingRun::play()
{
    if (!configured_ || running())
        return;
    join_finished();
    if (trainer_->steps_taken() >= target_.load(std::memory_order_relaxed) || diverged())
        return;
    stop_.store(false, std::memory_order_relaxed);
    work_.stopped_because.clear();
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
    keep_as_past();
    trainer_->reset();
    start_fresh();
}

void TrainingRun::step_now(int n)
{
    pause();
    if (!configured_)
        return;
    const Clock::time_point t0 = Clock::now();
    for (int i = 0; i < n && !diverged(); ++i)
        record(trainer_->step());
    if (diverged())
        work_.stopped_because = diverged_because();
    const double s = seconds_since(t0);
    work_.steps_per_s = s > 0.0 && n > 0 ? n / s : 0.0;
    publish(false);
}

void TrainingRun::clear_past(bool and_current)
{
    pause();
    work_.past.clear();
    drop_current_ = and_current;
    if (configured_)
        publish(false);
}

// [SECTION] A run set aside

void TrainingRun::swap_with(Aside& aside)
{
    std::swap(trainer_, aside.trainer);
    std::swap(work_, aside.work);
    std::swap(accuracy_, aside.accuracy);
    std::swap(loss_since_eval_, aside.loss_since_eval);
    std::swap(steps_since_eval_, aside.steps_since_eval);
    std::swap(frame_every_, aside.frame_every);
    std::swap(configured_, aside.configured);
    const int target = target_.load(std::memory_order_relaxed);
    target_.store(aside.target, std::memory_order_relaxed);
    aside.target = target;
}

void TrainingRun::set_aside()
{
    pause();
    aside_ = std::make_unique<Aside>(); // an unconfigured run, swapped in for the current one
    swap_with(*aside_);
}

bool TrainingRun::swap_aside()
{
    if (aside_ == nullptr)
        return false;
    pause();
    swap_with(*aside_);
    if (configured_)
        publish(false);
    return true;
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

void TrainingRun::start_fresh()
{
    const train::Task& task = trainer_->task();
    work_.model = trainer_->model();
    work_.vocabulary = task.vocabulary();
    const train::Batch probe = task.probe();
    work_.probe_text = task.to_text(probe.tokens.data(), probe.T);
    work_.settings = trainer_->settings();
    work_.text = trained_text_of(task);
    work_.first_step = trainer_->steps_taken();
    work_.loss.clear();
    work_.accuracy = 0;
    work_.steps_per_s = 0;
    work_.evals.clear();
    work_.history.clear();
    work_.timeline.clear();
    work_.stopped_because.clear();
    work_.diverged_at = -1;
    work_.eval_every = eval_spacing(work_.config.steps);
    frame_every_ = work_.eval_every;
    accuracy_.clear();
    loss_since_eval_ = 0;
    steps_since_eval_ = 0;
    configured_ = true;
    add_frame();
    publish(false);
}

void TrainingRun::keep_as_past()
{
    const bool dropped = drop_current_;
    drop_current_ = false;
    if (dropped || !configured_ || work_.loss.empty())
        return;
    PastRun p;
    p.label = work_.config.label();
    p.config = work_.config;
    p.model = work_.model;
    p.loss = work_.loss;
    p.evals = work_.evals;
    // The last published frame is the run's last step (every way to step publishes, and configure() and
    // open() have already re-initialised the trainer when they get here).
    if (!work_.timeline.empty())
    {
        p.step = work_.timeline.back().step;
        p.params = work_.timeline.back().params;
    }
    work_.past.push_back(std::move(p));
    if (work_.past.size() > static_cast<std::size_t>(kKeptRuns))
        work_.past.erase(work_.past.begin());
}

void TrainingRun::worker_loop()
{
    const Clock::time_point start = Clock::now();
    const int start_step = trainer_->steps_taken();
    Clock::time_point last_publish = start;
    Clock::time_point last_step = start - std::chrono::hours(1);
    while (!stop_.load(std::memory_order_acquire))
    {
        const int target = target_.load(std::memory_order_relaxed);
        if (trainer_->steps_taken() >= target)
        {
            work_.stopped_because = "reached the target of " + std::to_string(target) + " steps";
            break;
        }
        // Slow motion: wait (in short slices, so Pause stays prompt) until the next step is due.
        const float rate = max_steps_per_s_.load(std::memory_order_relaxed);
        if (rate > 0.0f)
        {
            const auto due = last_step + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(1.0 / static_cast<double>(rate)));
            if (Clock::now() < due)
            {
                std::this_thread::sleep_for(
                    std::min<Clock::duration>(due - Clock::now(), std::chrono::milliseconds(10)));
                continue;
            }
        }
        last_step = Clock::now();
        record(trainer_->step());
        if (diverged())
        {
            work_.stopped_because = diverged_because();
            break;
        }
        const float stop_at = stop_accuracy_.load(std::memory_order_relaxed);
        if (stop_at > 0.0f && steps_since_eval_ == 0 && !work_.evals.empty() &&
            work_.evals.back().accuracy >= stop_at)
        {
            char why[96];
            std::snprintf(why, sizeof why, "reached %.1f %% held-out accuracy at step %d",
                          100.0 * static_cast<double>(work_.evals.back().accuracy), work_.evals.back().step);
            work_.stopped_because = why;
            break;
        }
        if (Clock::now() - last_publish >= kPublishEvery || rate > 0.0f)
        {
            const double s = seconds_since(start);
            work_.steps_per_s = s > 0.0 ? (trainer_->steps_taken() - start_step) / s : 0.0;
            publish(true);
            last_publish = Clock::now();
        }
    }
    const double s = seconds_since(start);
    work_.steps_per_s = s > 0.0 ? (trainer_->steps_taken() - start_step) / s : 0.0;
    publish(false);
    finished_.store(true, std::memory_order_release);
}

std::string TrainingRun::diverged_because() const
{
    return "the run diverged at step " + std::to_string(work_.diverged_at) +
           " (its loss or gradients became NaN or infinite)";
}

void TrainingRun::record(const train::StepStats& s)
{
    // A loss or gradient that is not finite means NaN or infinite parameters from here on: every further
    // step is NaN, so training stops.
    if ((!std::isfinite(s.loss) || !std::isfinite(s.grad_norm)) && work_.diverged_at < 0)
        work_.diverged_at = s.step;
    work_.loss.push_back(s.loss);
    accuracy_.push_back(s.accuracy);
    if (accuracy_.size() > kAccuracyWindow)
        accuracy_.erase(accuracy_.begin());
    loss_since_eval_ += static_cast<double>(s.loss);
    steps_since_eval_ += 1;
    if (s.step % work_.eval_every == 0)
        work_.history.push_back(metric_row(s, evaluate_now()));
    if (s.step % frame_every_ == 0)
        add_frame();
}

const train::EvalStats& TrainingRun::evaluate_now()
{
    const train::EvalStats& e = trainer_->evaluate();
    TrainingEval p;
    p.step = trainer_->steps_taken();
    p.train_loss = steps_since_eval_ > 0 ? static_cast<float>(loss_since_eval_ / steps_since_eval_) : 0.0f;
    p.loss = static_cast<float>(e.loss);
    p.accuracy = static_cast<float>(e.accuracy);
    p.heads = e.heads;
    work_.evals.push_back(std::move(p));
    loss_since_eval_ = 0;
    steps_since_eval_ = 0;
    return e;
}

void TrainingRun::add_frame()
{
    std::vector<TrainingFrame>& t = work_.timeline;
    const int step = trainer_->steps_taken();
    if (!t.empty() && t.back().step == step)
        return;
    // A trailing frame off the spacing was only there for being the current step: the new one replaces it.
    if (t.size() > 1 && t.back().step % frame_every_ != 0)
        t.pop_back();
    t.push_back({step, std::make_shared<const train::Params>(trainer_->params())});
    if (static_cast<int>(t.size()) > kMaxTimeline)
    {
        // Full: keep every other frame (the first stays), and take frames half as often from now on.
        frame_every_ *= 2;
        std::vector<TrainingFrame> kept;
        for (std::size_t i = 0; i < t.size(); ++i)
            if (i == 0 || i + 1 == t.size() || t[i].step % frame_every_ == 0)
                kept.push_back(t[i]);
        t.swap(kept);
    }
}

void TrainingRun::publish(bool running)
{
    work_.step = trainer_->steps_taken();
    work_.running = running;
    float sum = 0.0f;
    for (const float a : accuracy_)
        sum += a;
    work_.accuracy = accuracy_.empty() ? 0.0f : sum / static_cast<float>(accuracy_.size());
    add_frame(); // the current parameters, for the maps

    const std::lock_guard<std::mutex> lock(mutex_);
    work_.version = next_version_++;
    published_ = work_;
}

} // namespace attnlab
