// Trainer: a task, its model and AdamW, stepped one batch at a time: the API of `attnlab train` and the
// Training panel.
//
// Typical use:
//     Trainer trainer;
//     Preset preset = Task(TaskKind::Reverse).preset();   // override fields of preset.model / .train here
//     if (Status s = trainer.init(TaskKind::Reverse, preset); !s) { print s.message(); }
//     trainer.run(500, [](const StepStats& s) { print s.step, s.loss; return true; });
//     EvalStats e = trainer.evaluate();                    // held-out loss, accuracy, head scores
//     trainer.probe(batch);                                // every intermediate and gradient of a sequence
//     trainer.probe_activations().layers[0].weights ...    // see transformer.h for the names and shapes
//
// Everything runs on the calling thread (the UI runs it on a worker thread of its own; nothing here knows
// about it). Same task, preset and seeds give bit-identical losses and parameters. Once warm (after the first
// step and the first evaluation), step() and evaluate() make no heap call.
#pragma once

#include "adamw.h"
#include "metrics.h"
#include "model.h"
#include "tasks.h"
#include "transformer.h"

#include "core/status.h"

#include <functional>
#include <vector>

namespace attnlab::train
{

// One training step's figures.
struct StepStats
{
    int step = 0;            // steps taken so far, this one included (1 after the first)
    float loss = 0;          // mean loss of this step's batch (before the update)
    float accuracy = 0;      // on this batch's counted positions, before the update
    float grad_norm = 0;     // global gradient norm before clipping
    float learning_rate = 0; // the rate this step used
};

// The model on the task's held-out set.
struct EvalStats
{
    int step = 0;
    double loss = 0, accuracy = 0, exact_match = 0;
    std::vector<HeadScores> heads; // [l·h + j]
    bool word_scores = false;      // the task has word boundaries: HeadScores::word_start means something
};

class Trainer
{
public:
    // Builds the model for task with preset (validated; on error nothing changes), initialises the parameters
    // from preset.model.seed and the optimizer, and makes the held-out set. vocab_size, T_max and causal
    // are the task's unless preset.model sets them (vocab_size and T_max may only grow).
    Status init(TaskKind task, const Preset& preset);
    // The same for a task made elsewhere (Text on a corpus: Task(corpus, repeat_share)). An error when the
    // task cannot train (task.status()).
    Status init(const Task& task, const Preset& preset);
    // The same parameters as after init (same seed), step count 0: "reset, same initialisation".
    void reset();

    // One AdamW step on the next training batch (batch s of the data seed).
    StepStats step();
    // n steps; on_step (if set) after each; it returns false to stop early. Returns the steps taken.
    int run(int n, const std::function<bool(const StepStats&)>& on_step = {});
    // Loss, accuracy, exact match and head scores over the held-out set (parameters unchanged). The result
    // stays valid until the next evaluate(); it runs through the training buffers, so activations() then hold
    // the last held-out batch.
    const EvalStats& evaluate();

    // Forward and backward (no update) on any batch of the task's T (e.g. one probe sequence, B = 1). Reads:
    // probe_activations() (every intermediate), probe_act_grads() (∂L/∂A_h in layers[l].dweights, ...),
    // probe_grads() (∂L/∂ every parameter).
    Status probe(const Batch& batch);
    const Activations& probe_activations() const { return probe_acts_; }
    const ActGrads& probe_act_grads() const { return probe_act_grads_; }
    const Params& probe_grads() const { return probe_grads_; }

    // The last training step's batch, intermediates and gradients. Steps and evaluate() run with
    // Detail::Training (transformer.h): scores, scaled, masked, dweights and dscores are not kept there; a
    // probe() has them all.
    const Batch& batch() const { return batch_; }
    const Activations& activations() const { return acts_; }
    const ActGrads& act_grads() const { return act_grads_; }
    const Params& grads() const { return grads_; }

    const Task& task() const { return task_; }
    const ModelConfig& model() const { return preset_.model; }
    const TrainSettings& settings() const { return preset_.train; }
    // Optimizer settings may change between steps (learning rate, weight decay, clipping).
    OptimizerSettings& optimizer_settings() { return preset_.train.optimizer; }
    int steps_taken() const { return step_; }
    // A model restored from a file goes on from its step: the next batch is that step's (the optimizer's
    // moments start again from zero).
    void set_steps_taken(int n) { step_ = n; }

    // The parameters, by name ("E", "layers.0.W_Q", ...; see named_tensors) for save/load and display.
    std::vector<NamedTensor> tensors() { return named_tensors(preset_.model, params_); }
    const Params& params() const { return params_; }
    // A copy of the parameters, and back (checked against the model's shapes; the optimizer state stays).
    Params snapshot() const { return params_; }
    Status restore(const Params& params);

private:
    void make_lists();

    Task task_{TaskKind::Copy};
    Preset preset_;
    Params params_, grads_, probe_grads_;
    std::vector<NamedTensor> param_list_, grad_list_;
    AdamW adam_;
    Batch batch_;
    Activations acts_, probe_acts_;
    ActGrads act_grads_, probe_act_grads_;
    std::vector<Batch> held_out_;
    HeadScoreSums head_sums_;
    EvalStats eval_;
    int step_ = 0;
};

} // namespace attnlab::train
