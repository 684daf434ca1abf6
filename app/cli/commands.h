// The headless subcommands (export, bench, lessons, tasks, train) and the command-line plumbing shared by
// attnlab and attnlab-headless.
#pragma once

#include "session_options.h"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace CLI
{
class App;
} // namespace CLI

namespace attnlab
{

// [SECTION] export: one JSON file with every intermediate (core/io/FORMAT.md).

struct ExportArgs
{
    SessionOptions session;
    std::string output;     // -o FILE
    std::string model;      // --model FILE: a trained model (attnlab train); --text is then its tokens.
                            // --model FOLDER: a Hugging Face model folder; --text is then any text
    bool gradients = false; // --gradients (with --model): also ∂L/∂ every weight and ∂L/∂A_h
};

// Adds "export" to app. The returned subcommand is owned by app.
CLI::App* add_export_command(CLI::App& app, ExportArgs& args);
// Builds the session, loads its weights, runs the engine and writes the file. Returns the exit code: 0, or
// 1 after one line on err (and no output file).
int run_export(const ExportArgs& args, std::ostream& out, std::ostream& err);
// export --model: runs the trained model on --text (the model's tokens separated by spaces, one sentence per
// line, all of one length; without --text the task's default probe, Task::probe()) and writes
// "attnlab-model-trace" (core/io/FORMAT.md). Same exit codes as run_export.
int run_model_export(const ExportArgs& args, std::ostream& out, std::ostream& err);
// export --model FOLDER: opens the Hugging Face folder (core/io/hf_model.h), runs --text through it and
// writes "attnlab-model-trace" for an opened model (core/io/FORMAT.md). Only --text and -o go with it; a text
// longer than the model's context is refused naming the limit. Same exit codes as run_export.
int run_hf_export(const ExportArgs& args, std::ostream& out, std::ostream& err);
// Whether --model names a folder (an opened model) rather than a file (a trained model).
bool is_model_folder_argument(const std::string& model);

// [SECTION] bench: forward-pass timings beside the machine's own GEMM rate.

struct BenchArgs
{
    int T = 0, d_model = 0, heads = 0, d_ff = 0; // 0: not given
    int threads = 1;
    int repeats = 7;
    std::string model; // --model FOLDER: time a Hugging Face model folder instead of the seeded shapes
    std::string text;  // --text: the sentence run through it
};

CLI::App* add_bench_command(CLI::App& app, BenchArgs& args);
// Prints one line per shape: "T=<T> d_model=<d> h=<h> forward_ms=<median> ...". Without --t, --d-model or
// --heads it runs (128, 512, 8), (512, 512, 8) and (1024, 768, 12). Returns the exit code.
int run_bench(const BenchArgs& args, std::ostream& out, std::ostream& err);
// bench --model FOLDER --text TEXT: prints a header line, then "T=<T> ... open_ms=<load_hf_model>
// forward_ms=<median run_hf_text, every intermediate kept> trace_ms=<median take_hf_trace> trace_mb=<the
// trace's floats> rss_mb=<peak resident memory, VmHWM> rest_mb=<resident memory now, VmRSS>". Returns the
// exit code (1 after one line on err).
int run_hf_bench(const BenchArgs& args, std::ostream& out, std::ostream& err);

// [SECTION] lessons: the built-in lessons, one per line, id first.

struct LessonsArgs
{
    std::string dir; // empty: default_lessons_dir()
};

CLI::App* add_lessons_command(CLI::App& app, LessonsArgs& args);
// Prints "<id>  <title>  (<n> steps)" per lesson; a broken lesson file is reported on err (exit code 1)
// after the others are listed.
int run_lessons(const LessonsArgs& args, std::ostream& out, std::ostream& err);

// [SECTION] tasks: the training tasks, one per line, id first, with their preset.

struct TasksArgs
{
};

CLI::App* add_tasks_command(CLI::App& app, TasksArgs& args);
// Prints "<id>  layers=N heads=N d_model=N ... lr=X  <description>" per task. Returns 0.
int run_tasks(const TasksArgs& args, std::ostream& out, std::ostream& err);

// [SECTION] train: train a small transformer on a task and write the model (core/io/FORMAT.md).

// An option left unset keeps the task's preset.
struct TrainArgs
{
    std::string task;   // --task ID (attnlab tasks lists them)
    std::string output; // -o MODEL
    std::string log;    // --log FILE.csv: one row per logged step ("" = none)
    std::optional<int> layers, heads, d_model, d_ff, steps, batch;
    std::optional<bool> attention_only;
    std::optional<std::string> norm;       // "pre" | "post"
    std::optional<std::string> positional; // "learned" | "sinusoidal" | "none"
    std::optional<bool> residual;          // --no-residual: false
    std::optional<float> lr, weight_decay;
    std::optional<std::string> seed;   // the initial parameters and the training batches (0 to 2^64 - 1)
    int threads = 1;                   // Eigen::setNbThreads
    std::optional<std::string> corpus; // --task text: a built-in text ("austen", "devil") or a file path
    std::optional<float> repeat;       // --task text: the share of sequences with a repeated snippet
    std::optional<std::string> level;  // --task text: "char" (default) or "word"
};

CLI::App* add_train_command(CLI::App& app, TrainArgs& args);
// Trains, showing progress on out (redrawn in place when out is std::cout on a terminal, else a line every
// ~2 s), writes the model to args.output (and the CSV log), and ends with the line
// "steps=N ms_per_step=X loss=Y accuracy=Z" (held-out loss and accuracy). Returns 0; 1 after one line on err
// (no file written); 130 when SIGINT stopped it (after writing the model trained so far).
int run_train(const TrainArgs& args, std::ostream& out, std::ostream& err);

// [SECTION] Plumbing

// The headless subcommands on one app, with their arguments.
struct HeadlessCommands
{
    ExportArgs export_args;
    BenchArgs bench_args;
    LessonsArgs lessons_args;
    TasksArgs tasks_args;
    TrainArgs train_args;
    CLI::App* export_command = nullptr;
    CLI::App* bench_command = nullptr;
    CLI::App* lessons_command = nullptr;
    CLI::App* tasks_command = nullptr;
    CLI::App* train_command = nullptr;
};

void add_headless_commands(CLI::App& app, HeadlessCommands& commands);
// Runs the subcommand that was parsed; returns -1 when none of export, bench, lessons, tasks, train was
// given.
int run_headless_command(const HeadlessCommands& commands, std::ostream& out, std::ostream& err);

// Parses the command line. Returns true when the program should go on; otherwise *exit_code is set: 0 after
// --help (printed to out), 2 after a usage error (one line on err).
bool parse_command_line(CLI::App& app, int argc, const char* const* argv, std::ostream& out,
                        std::ostream& err, int* exit_code);

// The median of timings (an empty list gives 0), as every bench line reports them.
double median_of(std::vector<double> values);

// Prints "attnlab <what>: <message>" as one line (newlines in the message become spaces).
void print_error(std::ostream& err, const std::string& what, const std::string& message);

// The whole attnlab-headless program: the commands above, no window.
int run_headless_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

} // namespace attnlab
