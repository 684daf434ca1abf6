// A training run as every way in asks for one (the Training panel, a lesson file, attnlab train): a task's
// preset with some fields changed, the one table of those fields' names and limits, and the one check.
#pragma once

#include "tasks.h"

#include "core/status.h"

#include <cstdint>
#include <string>

namespace attnlab::train
{

// The fields of a run that have limits, in the order of the limits table (run_spec.cpp).
enum class RunField
{
    Layers,
    Heads,
    DModel,
    DFF,
    Steps,
    Batch,
    LearningRate,
    WeightDecay,
    Count
};
inline constexpr int kRunFieldCount = static_cast<int>(RunField::Count);

// One row per field: its names in each place and its limits. A limit that is open (lr > 0) excludes its
// bound. layers, d_model and d_ff have the engine's limits (train::validate).
struct RunFieldInfo
{
    RunField field;
    const char* key;   // in lesson files: "lr"
    const char* flag;  // on the command line: "--lr"
    const char* label; // in the Training panel: "learning rate"
    double min, max;
    bool min_open, max_open;
    const char* hint; // a value to try, said when the value is refused ("" : none)
};
const RunFieldInfo& run_field(RunField field);

// Which of its names a message gives a field.
enum class FieldNames
{
    Key,   // "\"lr\"", for a lesson file
    Flag,  // "--lr", for the command line
    Label, // "learning rate", for the Training panel
};

// The largest memory a run may take (parameters, gradients, AdamW's moments, activations): 4 GB.
inline constexpr double kMaxRunBytes = 4.0 * (1u << 30);

// A task and every field a run may change from its preset. RunSpec(task) is the preset; a field assigned
// after that is an override.
struct RunSpec
{
    TaskKind task = TaskKind::Reverse;
    int n_layers = 0, n_heads = 0, d_model = 0;
    int d_ff = 0; // 0: 4 d_model
    bool attention_only = false;
    NormPlacement norm = NormPlacement::Pre;
    PositionKind positions = PositionKind::Learned;
    bool residual = true;      // each sub-layer adds to its input (false: replaces it, see ModelConfig)
    float lr = 0.0f;           // AdamW's learning rate
    float weight_decay = 0.0f; // AdamW's decoupled weight decay
    int batch_size = 0;        // sequences per step
    int steps = 0;             // the run's length (the Training panel's target step)
    std::uint64_t seed = 1;    // the initial parameters and the training batches
    // Text only: the built-in book's key ("austen", "devil") or a UTF-8 file's path, and the share of
    // training sequences that repeat a snippet (what makes induction heads form on text).
    std::string corpus = "austen";
    float repeat = 0.0f;
    TextLevel level = TextLevel::Char; // a token per character or per word

    // The task's preset (default: Reverse's).
    explicit RunSpec(TaskKind task = TaskKind::Reverse);
    // The fields of a model's preset (a model file's config and settings).
    static RunSpec of_model(TaskKind task, const Preset& preset);

    // The task's preset with these fields, for the trainer. Unchecked: see check_run.
    Preset preset() const;
    // "Reverse, 2 layers, h = 2, d_model = 48, lr 1e-03, seed 1": the legend of a run's curves (with ", no
    // residual" and ", no positions" when those are switched off).
    std::string label() const;
    // Every field equal: the same run, bit for bit.
    bool operator==(const RunSpec& o) const;
    bool operator!=(const RunSpec& o) const { return !(*this == o); }

private:
    RunSpec(TaskKind task, const Preset& preset);
};

// The task a run trains on: the row's, or for Text its corpus (read, and checked as the file reader does)
// with its repeat share. Errors name the corpus and what is wrong; out is unchanged on error.
Status run_task(const RunSpec& spec, Task* out);

// The one check of a run, whoever asks: the model's shape (the engine's rules), every field of the table
// within its limits, and the memory the run would take. The message names the field as `names` says and
// what to change.
Status check_run(const RunSpec& spec, FieldNames names);

} // namespace attnlab::train
