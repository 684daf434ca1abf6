// AdamW with decoupled weight decay, global-norm gradient clipping and a learning-rate schedule.
#pragma once

#include "model.h"

#include <vector>

namespace attnlab::train
{

enum class Schedule
{
    Constant,     // lr at every step
    WarmupCosine, // lr · step / warmup_steps, then a cosine from lr down to min_lr_ratio · lr at total_steps
};

struct OptimizerSettings
{
    float lr = 1e-3f;
    float beta1 = 0.9f, beta2 = 0.95f;
    float eps = 1e-8f;
    float weight_decay =
        0.1f;               // decoupled: p -= lr · weight_decay · p, on the tensors named with decay = true
    float grad_clip = 1.0f; // the gradients' global L2 norm is scaled down to this; 0: no clipping
    Schedule schedule = Schedule::Constant;
    int warmup_steps = 0;
    int total_steps = 0; // where the cosine reaches its floor (WarmupCosine)
    float min_lr_ratio = 0.1f;
};

// The learning rate of step (0-based).
float learning_rate(const OptimizerSettings& settings, int step);

// The moments of every tensor of a named list, updated in place. Decisions (see named_tensors): decay goes to
// the matrices W_Q, W_K, W_V, W_O, W_1, W_2, W_U only.
class AdamW
{
public:
    // Zero moments shaped as params; step count back to 0.
    void init(const std::vector<NamedTensor>& params);

    // One update of params from grads (same order and shapes as at init). grads are clipped in place when
    // their global norm exceeds settings.grad_clip. Returns the global norm before clipping. No heap call.
    float step(const std::vector<NamedTensor>& params, const std::vector<NamedTensor>& grads,
               const OptimizerSettings& settings);

    int steps_taken() const { return t_; }
    const std::vector<MatT<float>>& first_moments() const { return m_; }  // m, per tensor
    const std::vector<MatT<float>>& second_moments() const { return v_; } // v, per tensor

private:
    std::vector<MatT<float>> m_, v_;
    int t_ = 0;
};

// √(Σ g²) over every tensor, accumulated in double in list order (deterministic).
double global_norm(const std::vector<NamedTensor>& tensors);

} // namespace attnlab::train
