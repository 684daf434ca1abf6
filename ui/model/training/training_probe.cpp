// TrainingProbe: one forward and backward pass of the probe, copied into the matrices the maps draw.
#include "ui/model/training/training_probe.h"

#include "core/train/one_thread.h"

#include <limits>

namespace attnlab
{

bool TrainingProbe::update(const train::ModelConfig& model,
                           const std::shared_ptr<const train::Params>& params, const train::Batch& batch,
                           unsigned long long batch_version)
{
    if (params == nullptr || batch.B != 1 || batch.T < 1 || batch.T > model.T_max)
        return false;
    if (params == params_ && batch_version == batch_version_)
        return false;
    params_ = params;
    batch_version_ = batch_version;
    ++version_;
    const int T = batch.T;
    const int h = model.n_heads;
    T_ = T;
    n_layers_ = model.n_layers;
    n_heads_ = h;

    const train::OneThread one_thread;
    train::size_activations(model, 1, T, acts_);
    train::size_act_grads(model, 1, T, act_grads_);
    train::size_params(model, grads_);
    mean_loss_ = train::forward(model, *params, batch, acts_);
    train::backward(model, *params, batch, acts_, act_grads_, grads_);

    const std::size_t n = static_cast<std::size_t>(model.n_layers) * static_cast<std::size_t>(h);
    weights_.resize(n);
    dweights_.resize(n);
    for (int l = 0; l < model.n_layers; ++l)
        for (int j = 0; j < h; ++j)
        {
            const std::size_t k = static_cast<std::size_t>(l * h + j);
            weights_[k] =
                train::attention_block(acts_.layers[static_cast<std::size_t>(l)].weights, 0, j, h, T);
            dweights_[k] =
                train::attention_block(act_grads_.layers[static_cast<std::size_t>(l)].dweights, 0, j, h, T);
        }
    mask_ = Mat::Zero(T, T);
    if (model.causal)
        for (int i = 0; i < T; ++i)
            for (int j = i + 1; j < T; ++j)
                mask_(i, j) = -std::numeric_limits<float>::infinity();
    logits_ = acts_.logits;
    probs_ = acts_.probs;
    predicted_.assign(static_cast<std::size_t>(T), 0);
    loss_.assign(static_cast<std::size_t>(T), 0.0f);
    for (int t = 0; t < T; ++t)
    {
        Eigen::Index best = 0;
        probs_.row(t).maxCoeff(&best);
        predicted_[static_cast<std::size_t>(t)] = static_cast<int>(best);
        loss_[static_cast<std::size_t>(t)] =
            batch.loss_mask[static_cast<std::size_t>(t)] ? acts_.loss(t) : 0.0f;
    }
    train::HeadScoreSums sums;
    sums.set_word_boundaries(word_boundaries_); // kept by reset, for the even scores below too
    sums.reset(model);
    sums.add(model, batch, acts_);
    sums.finish(scores_);

    // The same scores for one head of even weights over the visible keys: their chance level on this text.
    train::ModelConfig one = model;
    one.n_layers = 1;
    one.n_heads = 1;
    train::Activations even;
    even.layers.resize(1);
    Mat& A = even.layers[0].weights; // (T, T)
    A = Mat::Zero(T, T);
    for (int i = 0; i < T; ++i)
    {
        const int visible = model.causal ? i + 1 : T;
        A.row(i).head(visible).setConstant(1.0f / static_cast<float>(visible));
    }
    std::vector<train::HeadScores> even_scores;
    sums.reset(one);
    sums.add(one, batch, even);
    sums.finish(even_scores);
    even_scores_ = even_scores.front();
    return true;
}

void TrainingProbe::set_word_boundaries(const std::vector<std::uint8_t>& boundaries)
{
    if (boundaries == word_boundaries_)
        return;
    word_boundaries_ = boundaries;
    clear();
}

void TrainingProbe::clear()
{
    params_.reset();
    batch_version_ = 0;
}

} // namespace attnlab
