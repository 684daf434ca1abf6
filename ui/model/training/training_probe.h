// TrainingProbe: the probe sequence run through one set of trained parameters (forward and backward), with
// what the Training panel's maps show: A_h and ∂L/∂A_h per layer and head, logits, probabilities, the
// predicted token and the loss at each position. No ImGui here.
#pragma once

#include "core/matrix.h"
#include "core/status.h"
#include "core/train/metrics.h"
#include "core/train/transformer.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace attnlab
{

class TrainingProbe
{
public:
    // Runs batch (B = 1) through params when params (by identity) or batch_version changed since the last
    // call; returns true when it did. batch holds token ids of model's vocabulary, T <= model.T_max.
    bool update(const train::ModelConfig& model, const std::shared_ptr<const train::Params>& params,
                const train::Batch& batch, unsigned long long batch_version);
    // Forgets the last pass (the next update recomputes).
    void clear();
    // The token ids that end a word (train::Task::word_boundaries): what the word-start score of scores()
    // looks for; empty (the default) for tasks without words, whose word-start score is 0. A change makes
    // the next update recompute.
    void set_word_boundaries(const std::vector<std::uint8_t>& boundaries);

    // Bumped at each recompute: the heatmaps' version.
    unsigned long long version() const { return version_; }
    bool empty() const { return params_ == nullptr; }
    int T() const { return T_; }
    int n_layers() const { return n_layers_; }
    int n_heads() const { return n_heads_; }

    // (T, T) per head k = l·h + j.
    const Mat& weights(int k) const { return weights_[static_cast<std::size_t>(k)]; }
    const Mat& dweights(int k) const { return dweights_[static_cast<std::size_t>(k)]; }
    // (T, T): 0, or −∞ where the causal mask hides a key.
    const Mat& mask() const { return mask_; }
    // (T, V)
    const Mat& logits() const { return logits_; }
    const Mat& probs() const { return probs_; }
    // [t] argmax of probs at position t; the loss −log p(token t+1) for t < T − 1 (the last has none).
    const std::vector<int>& predicted() const { return predicted_; }
    const std::vector<float>& loss() const { return loss_; }
    float mean_loss() const { return mean_loss_; }
    // [l·h + j] on this sequence.
    const std::vector<train::HeadScores>& scores() const { return scores_; }
    // The chance level of scores(): what a head spreading its weight evenly over the keys it may see
    // (A[i, j] = 1/(i + 1) under the causal mask, else 1/T) scores on this sequence. A short probe's is high:
    // on "She smiled." (T = 11) the previous-token score of even weights is .20.
    const train::HeadScores& even_scores() const { return even_scores_; }
    // Every intermediate (B = 1) and every activation gradient of the last pass (transformer.h's names).
    const train::Activations& acts() const { return acts_; }
    const train::ActGrads& act_grads() const { return act_grads_; }

private:
    std::shared_ptr<const train::Params> params_;
    unsigned long long batch_version_ = 0;
    unsigned long long version_ = 0;
    int T_ = 0, n_layers_ = 0, n_heads_ = 0;
    train::Activations acts_;
    train::ActGrads act_grads_;
    train::Params grads_;
    std::vector<Mat> weights_, dweights_;
    Mat mask_, logits_, probs_;
    std::vector<int> predicted_;
    std::vector<float> loss_;
    float mean_loss_ = 0;
    std::vector<train::HeadScores> scores_;
    train::HeadScores even_scores_;
    std::vector<std::uint8_t> word_boundaries_;
};

} // namespace attnlab
