// Trained models as files: "attnlab-model" (config, task, vocabulary, settings, metric history, weights)
// and "attnlab-model-trace" (every intermediate of one forward pass, and optionally the gradients).
#pragma once

#include "atomic_file.h"

#include "core/status.h"
#include "core/train/trainer.h"

#include <string>
#include <string_view>
#include <vector>

namespace attnlab
{

inline constexpr const char* kModelFormat = "attnlab-model";
inline constexpr int kModelVersion = 1;
inline constexpr const char* kModelTraceFormat = "attnlab-model-trace";
inline constexpr int kModelTraceVersion = 1;

// One logged step of a training run.
struct MetricRow
{
    int step = 0;
    float loss = 0;          // the training batch's mean loss at this step (before the update)
    float held_out_loss = 0; // Trainer::evaluate() after the step
    float accuracy = 0;      // held-out accuracy after the step
    std::vector<float> previous_token, induction; // [l·h + j] head scores on the held-out set
    std::vector<float> word_start;                // [l·h + j] (text models; empty for the other tasks)
    // [l·h + j] the diagonal and anti-diagonal scores (Copy's and Reverse's); empty in files written before
    // they were kept, whose reopened curves then read 0.
    std::vector<float> diagonal, anti_diagonal;
};

// A row from a step's figures and the evaluation made right after it.
MetricRow metric_row(const train::StepStats& step, const train::EvalStats& eval);

// What a text model was trained on (the "text" object; core/io/FORMAT.md): a built-in corpus by its key, or a
// user's file by its path, size and hash, so that a reopened model can say whether the file has changed.
struct TrainedText
{
    std::string corpus;      // "austen", "devil"; "" for a user's file
    std::string file;        // the user's file as given ("" for a built-in corpus)
    std::uint64_t bytes = 0; // the file's size (user's file)
    std::uint64_t hash = 0;  // FNV-1a 64 of the file's bytes (user's file; train::fnv1a64)
    float repeat = 0;        // the share of training sequences with a repeated snippet
    int min_count = 3;       // tokens seen fewer times fold into the unknown symbol
    train::TextLevel level = train::TextLevel::Char; // a token per character or per word
    int max_words = train::kDefaultWordVocabulary;   // the word level's vocabulary size
};

// What a task trains on as a model file records it: Text's corpus (built-in key, or the file's path, size and
// hash), repeat share and folding; all empty for the other tasks.
TrainedText trained_text_of(const train::Task& task);

// Everything an "attnlab-model" file holds (core/io/FORMAT.md).
struct TrainedModel
{
    std::string task;                    // the task's key ("reverse")
    train::ModelConfig config;           // the model's shape, mask and initialisation seed
    std::vector<std::string> vocabulary; // token strings by id (at most config.vocab_size of them)
    train::TrainSettings settings;       // batch, steps asked for, optimizer, data seed, held-out size
    int steps_taken = 0;                 // AdamW steps the weights have had
    std::vector<MetricRow> history;      // one row per logged step, in order
    train::Params params; // every tensor; a sinusoidal P holds the sinusoids (not written to the file)
    TrainedText text; // task "text" only: the corpus; vocabulary then holds one character (or word) a token

    // Where the window was on this model (optional "view" object; the command line neither writes nor needs
    // it): the timeline's step, whether the main panels showed the model, the probe typed.
    bool has_view = false;
    int view_step = 0; // 0..steps_taken
    bool view_main_panels = false;
    std::string view_probe; // "" : the task's default
};

// Whether a text model's text is still what it was trained on: OK for a built-in corpus, or a file of the
// same size and hash; otherwise a sentence saying what changed (missing, another size, other content). Not an
// error for opening the model: its vocabulary is in the file, so it opens and runs either way.
Status check_trained_text(const TrainedModel& model);

// The Text task a text model was trained on, read again (its corpus loaded, repeats as recorded), to train on
// or to take held-out text from. Errors: the corpus cannot be read (check_trained_text's reasons).
Status trained_text_task(const TrainedModel& model, train::Task* out);

// train::parameter_count(config) without allocating the tensors (for size checks before allocating).
long long trained_scalar_count(const train::ModelConfig& config);

// The trainer's model as it is now, with the rows logged so far.
TrainedModel trained_model(const train::Trainer& trainer, std::vector<MetricRow> history);

// [SECTION] attnlab-model

// Writes the model as "attnlab-model" version 1 to an opened file (then commits it), or to path. Floats use
// the shortest text that reads back to the same float: a saved then loaded model is bit-identical.
Status write_model_file(const TrainedModel& model, AtomicFile& file);
Status write_model_file(const TrainedModel& model, const std::string& path);
std::string model_to_json(const TrainedModel& model);

// Reads a model file (at most kMaxWeightsFileBytes). Every malformed field or shape mismatch is an error
// naming the field and the expected shape; a file of a newer version is refused. On error out is unchanged.
Status load_model_file(const std::string& path, TrainedModel* out);
// The same from text; source names it in messages ("model.json").
Status parse_model_json(std::string_view text, const std::string& source, TrainedModel* out);

// [SECTION] attnlab-model-trace

// One forward pass of a model on a batch (and, when grads is set, its backward pass): what
// `attnlab export --model` writes. acts were filled by forward(model.config, model.params, batch, ...),
// act_grads and grads by backward() of the same pass.
struct ModelPass
{
    const TrainedModel* model = nullptr;
    const train::Batch* batch = nullptr;
    const train::Activations* acts = nullptr;
    const train::ActGrads* act_grads = nullptr; // with grads: ∂L/∂A_h per layer
    const train::Params* grads = nullptr;       // null: no "gradients" object
};

// Writes "attnlab-model-trace" version 1 (core/io/FORMAT.md). The file appears only when it is complete.
Status write_model_trace_json(const ModelPass& pass, const std::string& path);
std::string model_trace_to_json(const ModelPass& pass);

// One forward pass of an opened (pretrained) model, a Hugging Face folder (core/io/hf_model.h): what
// `attnlab export --model DIR` writes. The same format with "model" (what it is and where it came from) in
// place of "task", "step" and "weights", and the architecture's extra stages (BERT's embedding LayerNorm and
// masked-LM head). acts were filled by forward(*config, *params, *batch, ...) with every intermediate kept.
struct OpenedModelPass
{
    const train::ModelConfig* config = nullptr;
    const train::Params* params = nullptr; // its positions P[0..T) are written
    const train::Batch* batch = nullptr;
    const train::Activations* acts = nullptr;
    std::string architecture;              // config.json's model_type: "gpt2", "bert"
    std::string label;                     // "GPT-2 (124M parameters)"
    std::string source;                    // "GPT-2 (124M parameters), pretrained, from /models/gpt2"
    std::string folder;                    // the folder as given
    long long parameters = 0;              // every weight the model uses
    std::vector<std::string> pieces;       // [B·T] each token as a chip shows it ("␣world", "##able")
    std::vector<std::string> vocab_tokens; // [B·T] the vocabulary's string of each ("Ġworld", "##able")
};

// Writes "attnlab-model-trace" version 1 for an opened model (core/io/FORMAT.md). The file appears only when
// it is complete.
Status write_opened_model_trace_json(const OpenedModelPass& pass, const std::string& path);
std::string opened_model_trace_to_json(const OpenedModelPass& pass);

} // namespace attnlab
