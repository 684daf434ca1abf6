// attnlab train: trains a small transformer on a task, shows its progress, and writes the model and a CSV
// log.
#include "commands.h"

#include "core/cpu.h"
#include "core/io/atomic_file.h"
#include "core/io/model_file.h"
#include "core/train/run_spec.h"
#include "core/train/trainer.h"

#include <CLI/CLI.hpp>
#include <Eigen/Core>

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>
#include <ostream>
#include <sstream>

namespace attnlab
{

namespace
{

using Clock = std::chrono::steady_clock;

// Set by SIGINT; the step callback stops the run after the current step. A second SIGINT ends the program
// (the handler puts the default action back).
volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void on_sigint(int /*signal*/)
{
    g_interrupted = 1;
    std::signal(SIGINT, SIG_DFL);
}

// Installs on_sigint for the lifetime of the object, then puts the previous action back.
class SigintGuard
{
public:
    SigintGuard()
    {
        g_interrupted = 0;
        struct sigaction action = {};
        action.sa_handler = on_sigint;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, &previous_);
    }
    ~SigintGuard() { sigaction(SIGINT, &previous_, nullptr); }
    SigintGuard(const SigintGuard&) = delete;
    SigintGuard& operator=(const SigintGuard&) = delete;

private:
    struct sigaction previous_ = {};
};

// The shortest text that reads back to the same float ("nan" for NaN).
void append_float(std::string& s, float value)
{
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    s.append(buffer, result.ptr);
}

std::string fixed(double value, int digits)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

std::string duration_text(double seconds)
{
    if (!(seconds >= 0) || seconds > 1e7)
        return "?";
    const long long s = std::llround(seconds);
    if (s < 60)
        return std::to_string(s) + "s";
    if (s < 3600)
        return std::to_string(s / 60) + "m" + (s % 60 < 10 ? "0" : "") + std::to_string(s % 60) + "s";
    return std::to_string(s / 3600) + "h" + (s / 60 % 60 < 10 ? "0" : "") + std::to_string(s / 60 % 60) + "m";
}

// Text models add a word-start score per head. Layers and heads count from 1 ("L1H1"), as on every screen.
std::string csv_header(const train::ModelConfig& c, bool word_scores)
{
    std::string s = "step,loss,held_out_loss,accuracy";
    for (int l = 0; l < c.n_layers; ++l)
        for (int j = 0; j < c.n_heads; ++j)
        {
            const std::string head = "L" + std::to_string(l + 1) + "H" + std::to_string(j + 1);
            s += "," + head + "_prev," + head + "_induction";
            if (word_scores)
                s += "," + head + "_word";
        }
    return s + "\n";
}

std::string csv_row(const MetricRow& row)
{
    std::string s = std::to_string(row.step);
    for (const float v : {row.loss, row.held_out_loss, row.accuracy})
    {
        s += ',';
        append_float(s, v);
    }
    for (size_t k = 0; k < row.previous_token.size(); ++k)
    {
        s += ',';
        append_float(s, row.previous_token[k]);
        s += ',';
        append_float(s, row.induction[k]);
        if (k < row.word_start.size())
        {
            s += ',';
            append_float(s, row.word_start[k]);
        }
    }
    return s + "\n";
}

// *field = the option's value when it was given.
template <typename T> void override_with(const std::optional<T>& option, T* field)
{
    if (option)
        *field = *option;
}

// The task: Text reads its corpus (--corpus, the built-in "austen" when not given) and takes --repeat and
// --level.
Status make_task(const TrainArgs& args, train::TaskKind kind, std::optional<train::Task>* out)
{
    if (kind != train::TaskKind::Text)
    {
        if (args.corpus || args.repeat || args.level)
            return Status::error(std::string(args.corpus   ? "--corpus"
                                             : args.repeat ? "--repeat"
                                                           : "--level") +
                                 " goes with --task text only (the " + args.task +
                                 " task makes its own data)");
        out->emplace(kind);
        return Status::ok();
    }
    const float repeat = args.repeat.value_or(0.0f);
    if (!(repeat >= 0 && repeat <= 1))
        return Status::error(
            "--repeat is the share of sequences that repeat a snippet, from 0 to 1 (try 0.5), "
            "not " +
            format_number(repeat));
    train::TextCorpusOptions options;
    options.T = train::task_info(kind).T;
    if (args.level)
        if (Status s = train::parse_text_level(*args.level, &options.level); !s)
            return Status::error("--level: " + s.message());
    std::shared_ptr<const train::TextCorpus> corpus;
    if (Status s = train::load_text_corpus(args.corpus.value_or("austen"), options, &corpus); !s)
        return Status::error("--corpus: " + s.message());
    out->emplace(std::move(corpus), repeat);
    return (*out)->status();
}

// The task's run spec with the options given on top, checked (core/train/run_spec.h), as the trainer's
// preset.
Status make_preset(const TrainArgs& args, train::TaskKind* kind, const train::Task& task, train::Preset* out)
{
    *kind = task.kind();
    train::RunSpec spec(*kind);
    override_with(args.layers, &spec.n_layers);
    override_with(args.heads, &spec.n_heads);
    override_with(args.d_model, &spec.d_model);
    override_with(args.d_ff, &spec.d_ff);
    override_with(args.attention_only, &spec.attention_only);
    if (args.norm)
    {
        if (*args.norm != "pre" && *args.norm != "post")
            return Status::error("--norm must be pre or post, not '" + *args.norm + "'");
        spec.norm = *args.norm == "pre" ? train::NormPlacement::Pre : train::NormPlacement::Post;
    }
    if (args.positional && !train::parse_positions(*args.positional, &spec.positions))
        return Status::error("--positional must be learned, sinusoidal or none, not '" + *args.positional +
                             "'");
    override_with(args.residual, &spec.residual);
    if (args.seed)
    {
        // Parsed here rather than by CLI11, which clamps -1, 2^64 and 1e23 to 2^64 - 1 without a word;
        // refused as export --seed refuses them.
        const std::string& t = *args.seed;
        std::uint64_t seed = 0;
        const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), seed);
        if (t.empty() || ec != std::errc() || end != t.data() + t.size())
            return Status::error("--seed: \"" + t + "\" is not a whole number from 0 to " +
                                 std::to_string(std::numeric_limits<std::uint64_t>::max()));
        spec.seed = seed;
    }
    override_with(args.steps, &spec.steps);
    override_with(args.batch, &spec.batch_size);
    override_with(args.lr, &spec.lr);
    override_with(args.weight_decay, &spec.weight_decay);
    if (args.threads < 1 || args.threads > 256)
        return Status::error("--threads must be between 1 and 256, not " + std::to_string(args.threads));
    ATTNLAB_TRY(train::check_run(spec, train::FieldNames::Flag));
    *out = spec.preset();
    out->model.vocab_size = task.vocab_size(); // Text: its corpus's, not the default one's
    return Status::ok();
}

// Progress on out: one line redrawn in place on a terminal, else a line every ~2 s.
class Progress
{
public:
    Progress(std::ostream& out, bool terminal, int total)
        : out_(out), terminal_(terminal), total_(total), start_(Clock::now()), last_(start_)
    {
    }

    void update(const train::StepStats& s, double step_seconds)
    {
        const Clock::time_point now = Clock::now();
        const double since = std::chrono::duration<double>(now - last_).count();
        const bool last_step = s.step == total_;
        if (s.step != 1 && !last_step && since < (terminal_ ? 0.1 : 2.0))
            return;
        last_ = now;
        const double rate = step_seconds > 0 ? s.step / step_seconds : 0;
        std::ostringstream line;
        if (terminal_)
        {
            constexpr int width = 24;
            const int filled = static_cast<int>(static_cast<long long>(width) * s.step / total_);
            line << "\r[" << std::string(static_cast<size_t>(filled), '#')
                 << std::string(static_cast<size_t>(width - filled), '.') << "] ";
        }
        line << "step " << s.step << "/" << total_ << " loss=" << fixed(s.loss, 4)
             << " accuracy=" << fixed(s.accuracy, 3) << " steps/s=" << fixed(rate, 1)
             << " eta=" << duration_text(rate > 0 ? (total_ - s.step) / rate : -1);
        if (terminal_)
            out_ << line.str() << "\x1b[K" << std::flush;
        else
            out_ << line.str() << "\n" << std::flush;
        drawn_ = true;
    }

    // Ends the line redrawn in place.
    void finish()
    {
        if (terminal_ && drawn_)
            out_ << "\n";
    }

private:
    std::ostream& out_;
    bool terminal_;
    int total_;
    Clock::time_point start_, last_;
    bool drawn_ = false;
};

// An option that sets `target` when it is given (left empty otherwise, so the task's preset stays).
template <typename T>
void optional_option(CLI::App* cmd, const char* name, std::optional<T>& target, const char* help)
{
    cmd->add_option_function<T>(
        name, [&target](const T& v) { target = v; }, help);
}

} // namespace

CLI::App* add_train_command(CLI::App& app, TrainArgs& args)
{
    CLI::App* cmd = app.add_subcommand(
        "train", "Train a small transformer on a task (list them with: tasks) and write the model as JSON");
    cmd->add_option("--task", args.task, "The task: " + train::task_keys())->required();
    cmd->add_option("-o,--output", args.output, "Output model file (JSON)")->required();
    optional_option(cmd, "--layers", args.layers, "Layers (default: the task's preset)");
    optional_option(cmd, "--heads", args.heads, "Heads h per layer (must divide d_model)");
    optional_option(cmd, "--d-model", args.d_model, "Model width d_model");
    optional_option(cmd, "--d-ff", args.d_ff, "FFN inner width (0: 4 d_model)");
    cmd->add_flag_function(
        "--attention-only", [&args](std::int64_t count) { args.attention_only = count > 0; },
        "No FFN sub-layer (--attention-only=false for one)");
    optional_option(cmd, "--norm", args.norm, "pre (GPT-2) or post (the paper's)");
    optional_option(cmd, "--positional", args.positional,
                    "learned, sinusoidal or none (X = E[tokens] alone)");
    cmd->add_flag_function(
        "--no-residual", [&args](std::int64_t count) { args.residual = count == 0; },
        "Sub-layers replace their input instead of adding to it: A = MHA(LN1(X)), not X + MHA(LN1(X))");
    optional_option(cmd, "--steps", args.steps, "Training steps");
    optional_option(cmd, "--batch", args.batch, "Sequences per step");
    optional_option(cmd, "--lr", args.lr, "AdamW learning rate");
    optional_option(cmd, "--weight-decay", args.weight_decay, "AdamW decoupled weight decay");
    optional_option(cmd, "--seed", args.seed, "Seed of the initial weights and of the training batches");
    cmd->add_option("--threads", args.threads, "Threads for the matrix products (default 1)");
    cmd->add_option("--log", args.log, "Write a CSV row per logged step (loss, held-out loss, head scores)");
    optional_option(cmd, "--corpus", args.corpus,
                    ("--task text: a built-in text (" + train::builtin_corpus_keys() +
                     "; default austen) or a UTF-8 text file of at most 16 MiB")
                        .c_str());
    optional_option(cmd, "--repeat", args.repeat,
                    "--task text: the share of sequences (0-1) in which an 8-24 character snippet repeats "
                    "to the end of the window; a repeat can only be predicted by finding the earlier copy, "
                    "which makes induction heads form (try 0.5)");
    optional_option(
        cmd, "--level", args.level,
        "--task text: char (default: a token per character) or word (a token per word or "
        "punctuation mark, the 1,999 commonest seen 3 times or more; the rest one unknown token)");
    return cmd;
}

int run_train(const TrainArgs& args, std::ostream& out, std::ostream& err)
{
    train::TaskKind kind = train::TaskKind::Count;
    std::optional<train::Task> task;
    train::Preset preset;
    train::Trainer trainer;
    Status status = train::parse_task(args.task, &kind);
    if (status)
        status = make_task(args, kind, &task);
    if (status)
        status = make_preset(args, &kind, *task, &preset);
    if (status)
        status = trainer.init(*task, preset);
    // The output files are opened (as temporary files beside them) before any step, so a path that cannot be
    // written is reported at once.
    AtomicFile model_file, log_file;
    if (status)
        status = model_file.open(args.output);
    if (status && !args.log.empty())
        status = log_file.open(args.log);
    if (!status)
    {
        print_error(err, "train", status.message());
        return 1;
    }

    Eigen::setNbThreads(args.threads);
    const train::ModelConfig& c = trainer.model();
    const int total = trainer.settings().steps;
    // A logged row every ~1% of the run, at least every 100 steps, and at the last step.
    const int log_every = std::clamp(total / 100, 1, 100);
    const bool terminal = &out == &std::cout && isatty(STDOUT_FILENO);
    out << "train " << args.task << ": " << c.n_layers << " layers, " << c.n_heads << " heads, d_model "
        << c.d_model << (c.attention_only ? ", attention-only" : "") << ", "
        << (c.norm == train::NormPlacement::Pre ? "pre" : "post") << "-LN, " << train::to_string(c.positions)
        << " positions" << (c.residual ? "" : ", no residual") << ", " << trained_scalar_count(c)
        << " parameters; " << total << " steps of " << trainer.settings().batch_size << " sequences\n";
    if (const std::shared_ptr<const train::TextCorpus>& corpus = trainer.task().corpus())
        out << "text " << corpus->source.name() << ": " << corpus->summary() << "; repeat share "
            << format_number(trainer.task().repeat_share()) << "\n";
    out << std::flush;
    if (!args.log.empty())
        log_file.write(csv_header(c, !trainer.task().word_boundaries().empty()));

    std::vector<MetricRow> history;
    Progress progress(out, terminal, total);
    double step_seconds = 0;
    bool interrupted = false;
    {
        SigintGuard guard;
        Clock::time_point step_start = Clock::now();
        trainer.run(total,
                    [&](const train::StepStats& s)
                    {
                        step_seconds += std::chrono::duration<double>(Clock::now() - step_start).count();
                        interrupted = g_interrupted != 0;
                        if (s.step % log_every == 0 || s.step == total || interrupted)
                        {
                            history.push_back(metric_row(s, trainer.evaluate()));
                            if (!args.log.empty())
                                log_file.write(csv_row(history.back()));
                        }
                        progress.update(s, step_seconds);
                        step_start = Clock::now();
                        return !interrupted;
                    });
    }
    progress.finish();
    const int steps = trainer.steps_taken();
    interrupted = interrupted && steps < total;
    if (interrupted)
        err << "attnlab train: interrupted at step " << steps << "; writing the model trained so far to "
            << args.output << " (Ctrl+C again to quit without it)\n"
            << std::flush;

    const train::EvalStats eval = trainer.evaluate();
    status = write_model_file(trained_model(trainer, std::move(history)), model_file);
    if (status && !args.log.empty())
        status = log_file.commit();
    if (!status)
    {
        print_error(err, "train", status.message());
        return 1;
    }
    out << "wrote " << args.output << (args.log.empty() ? "" : " and " + args.log) << "\n";
    out << "steps=" << steps << " ms_per_step=" << fixed(steps > 0 ? 1000.0 * step_seconds / steps : 0, 3)
        << " loss=" << fixed(eval.loss, 4) << " accuracy=" << fixed(eval.accuracy, 4) << " "
        << kernels_in_use() << "\n";
    return interrupted ? 130 : 0;
}

} // namespace attnlab
