// AdamW (Loshchilov and Hutter): Adam's update plus weight decay applied to the weights directly.
#include "adamw.h"

#include <cassert>
#include <cmath>

namespace attnlab::train
{

float learning_rate(const OptimizerSettings& s, int step)
{
    if (s.schedule == Schedule::Constant)
        return s.lr;
    if (step < s.warmup_steps)
        return s.lr * static_cast<float>(step + 1) / static_cast<float>(s.warmup_steps);
    const int span = s.total_steps - s.warmup_steps;
    if (span <= 0)
        return s.lr;
    const double progress = std::min(1.0, static_cast<double>(step - s.warmup_steps) / span);
    const double min_lr = static_cast<double>(s.lr) * s.min_lr_ratio;
    return static_cast<float>(min_lr +
                              0.5 * (s.lr - min_lr) * (1.0 + std::cos(3.141592653589793 * progress)));
}

double global_norm(const std::vector<NamedTensor>& tensors)
{
    double sum = 0;
    for (const NamedTensor& t : tensors)
        sum += static_cast<double>(t.value->squaredNorm());
    return std::sqrt(sum);
}

void AdamW::init(const std::vector<NamedTensor>& params)
{
    m_.resize(params.size());
    v_.resize(params.size());
    for (size_t i = 0; i < params.size(); ++i)
    {
        m_[i].setZero(params[i].value->rows(), params[i].value->cols());
        v_[i].setZero(params[i].value->rows(), params[i].value->cols());
    }
    t_ = 0;
}

float AdamW::step(const std::vector<NamedTensor>& params, const std::vector<NamedTensor>& grads,
                  const OptimizerSettings& s)
{
    assert(params.size() == grads.size() && params.size() == m_.size());
    const double norm = global_norm(grads);
    const float clip = s.grad_clip > 0 && norm > s.grad_clip ? static_cast<float>(s.grad_clip / norm) : 1.0f;
    const float lr = learning_rate(s, t_);
    ++t_;
    // m̂ = m / (1 − β1^t), v̂ = v / (1 − β2^t); p -= lr (m̂ / (√v̂ + eps)) after p -= lr λ p
    const float bias1 = 1.0f - static_cast<float>(std::pow(static_cast<double>(s.beta1), t_));
    const float bias2 = 1.0f - static_cast<float>(std::pow(static_cast<double>(s.beta2), t_));
    const float step_size = lr / bias1, inv_sqrt_bias2 = 1.0f / std::sqrt(bias2);
    for (size_t i = 0; i < params.size(); ++i)
    {
        auto p = params[i].value->array();
        auto g = grads[i].value->array();
        auto m = m_[i].array();
        auto v = v_[i].array();
        if (clip != 1.0f)
            g *= clip;
        if (params[i].decay && s.weight_decay != 0)
            p *= 1.0f - lr * s.weight_decay;
        m = s.beta1 * m + (1.0f - s.beta1) * g;
        v = s.beta2 * v + (1.0f - s.beta2) * g.square();
        p -= step_size * m / (v.sqrt() * inv_sqrt_bias2 + s.eps);
    }
    return static_cast<float>(norm);
}

} // namespace attnlab::train
