// Training tasks: seeded batch generators with their vocabulary, counted positions and preset model.
#pragma once

#include "adamw.h"
#include "batch.h"
#include "metrics.h"
#include "model.h"

#include "core/status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::train
{

enum class TaskKind
{
    Copy,      // 8 digits, '|', the same 8 digits: an offset-diagonal head
    Reverse,   // 8 digits, '|', the 8 digits reversed: anti-diagonal heads
    Sort,      // minGPT's: 6 symbols of {0, 1, 2}, then the same sorted
    Induction, // 32 tokens of 32 repeating with a random period 4-16: previous-token and induction heads
    Brackets,  // 12 of ( and ), '=', then yes / no: balanced? Read at one position, no causal mask
    Agreement, // "the keys to the old cabinet" → are: the verb agrees with a subject across a distractor noun
    Tally,     // 24 votes A / B; at each the vote before and who leads: one sharp head and one even head
    Count
};
inline constexpr int kTaskCount = static_cast<int>(TaskKind::Count);

// What training runs with besides the model.
struct TrainSettings
{
    int batch_size = 64;
    int steps = 1000; // the preset's suggested length of a run
    OptimizerSettings optimizer;
    std::uint64_t data_seed = 1; // the training batches (the held-out set does not depend on it)
    int held_out_size = 512;     // sequences in the held-out set (rounded up to whole batches)
};

// A model and its training settings for a task.
struct Preset
{
    ModelConfig model;
    TrainSettings train;
};

// The preset a task's row gives: the model's shape and the run's length. Every task trains pre-LN with
// learned positions, AdamW with β1 = 0.9 and gradients clipped at 1.
struct TaskPreset
{
    int n_layers = 2, n_heads = 2, d_model = 32;
    bool attention_only = false;
    int batch_size = 64, steps = 1000;
    float lr = 1e-3f;
    float beta2 = 0.95f, weight_decay = 0.1f;
    float embedding_std = 0.02f; // E and P start as N(0, std²)
};

// One row per task, every fact about it but its generator (Task::generate): adding a task is its row here,
// its TaskKind and its case in the generator. The command line (--task, attnlab tasks), lesson files, model
// files and the Training panel all read this table.
struct TaskInfo
{
    TaskKind kind;
    const char* key;         // the command line's and the files' name: "reverse"
    const char* title;       // the UI's: "Reverse"
    const char* description; // one sentence for the UI and attnlab tasks
    const char* vocabulary;  // the tokens, separated by single spaces; a token's id is its place
    int T;                   // the length of every input sequence
    bool causal;             // false: every position sees every other
    TaskPreset preset;
    HeadScoreKind score;         // the head score that tells its heads apart (the curve shown first)
    HeadScoreKind map_scores[2]; // the two scores above each head's map
};
const TaskInfo& task_info(TaskKind kind);
// Parses a task key; an unknown name gives an error listing the valid ones.
Status parse_task(std::string_view key, TaskKind* out);
// "copy, reverse, sort, ...": every task key in the table's order (help texts, messages).
std::string task_keys();

// Where the two nouns of an Agreement sentence (its token ids) are: the subject (the first noun, whose number
// the verb takes) and the distractor (the second, nearer the verb, which the verb ignores); -1 if missing.
struct AgreementNouns
{
    int subject = -1, distractor = -1;
};
AgreementNouns agreement_nouns(const int* tokens, int n);

// A task: vocabulary, sequence length, mask and the generator. Sequences are split once by a hash of their
// tokens into training (4 in 5) and held-out (1 in 5): training batches never contain a held-out sequence.
class Task
{
public:
    explicit Task(TaskKind kind);

    TaskKind kind() const { return kind_; }
    const TaskInfo& info() const { return task_info(kind_); }
    // Token strings: vocabulary()[id].
    const std::vector<std::string>& vocabulary() const { return vocabulary_; }
    int vocab_size() const { return static_cast<int>(vocabulary_.size()); }
    int T() const { return T_; } // the length of every input sequence
    bool causal() const { return causal_; }
    // The preset model (vocab_size, T_max and the mask set for this task) and training settings.
    Preset preset() const;

    // B training sequences, a pure function of (seed, index): the batch of step s is make_batch(seed, s,
    // ...). No heap call when batch already has this size.
    void make_batch(std::uint64_t seed, std::uint64_t index, int B, Batch& batch) const;
    // The fixed held-out set, in batches of B sequences (n rounded up to a multiple of B).
    std::vector<Batch> held_out(int n, int B) const;

    // "3 1 4 | 4 1 3": a sequence of token ids as text, tokens separated by spaces.
    std::string to_text(const int* tokens, int n) const;

private:
    bool generate(std::uint64_t key, int* tokens, int* targets, std::uint8_t* loss_mask,
                  std::uint8_t* acc_mask) const;

    TaskKind kind_;
    std::vector<std::string> vocabulary_;
    int T_ = 0;
    bool causal_ = true;
};

} // namespace attnlab::train
