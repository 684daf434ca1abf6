// What a trained model does: loss and accuracy on counted positions, and what each head attends to.
#pragma once

#include "batch.h"
#include "model.h"
#include "transformer.h"

#include <vector>

namespace attnlab::train
{

// Prediction quality over the positions batch.acc_mask counts (argmax of probs against the target).
struct Accuracy
{
    double correct = 0, counted = 0;       // positions
    double exact = 0, sequences = 0;       // sequences with every counted position right / with one counted
    double loss_sum = 0, loss_counted = 0; // Σ loss over loss_mask positions, and their number

    void add(const Batch& batch, const Activations& acts);
    double accuracy() const { return counted > 0 ? correct / counted : 0; }
    double exact_match() const { return sequences > 0 ? exact / sequences : 0; }
    double mean_loss() const { return loss_counted > 0 ? loss_sum / loss_counted : 0; }
};

// What one head attends to, as mean attention weight over the query rows batch.acc_mask counts:
//  - previous_token: on key i − 1 (rows i >= 1);
//  - induction (prefix matching, Olsson et al. 2022): summed over the keys j whose previous token x[j − 1]
//    equals the query's token x[i] (rows that have such a key);
//  - diagonal: on key i; anti_diagonal: on key T − 1 − i (the mirrored position of Reverse).
struct HeadScores
{
    double previous_token = 0, induction = 0, diagonal = 0, anti_diagonal = 0;
};

// Sums of the scores above over a batch, for every layer and head ([l·h + j]); finish() turns them into
// means.
class HeadScoreSums
{
public:
    void reset(const ModelConfig& config);
    void add(const ModelConfig& config, const Batch& batch, const Activations& acts);
    // The means so far, [l·h + j], into out (no heap call when out already has that size).
    void finish(std::vector<HeadScores>& out) const;

private:
    int n_heads_ = 0;
    std::vector<HeadScores> sums_;
    std::vector<double> rows_, prev_rows_, induction_rows_;
};

} // namespace attnlab::train
