// What a forward pass predicts, read out for the panels: the top tokens of a probability row (GPT-2's next
// tokens, BERT's fillers of a [MASK]), the logit lens (each layer's residual stream through the output head),
// and attention sinks (the first key's column hidden, the rest renormalised).
#pragma once

#include "core/train/batch.h"
#include "core/train/model.h"
#include "core/train/transformer.h"

#include <vector>

namespace attnlab::train
{

// A token id and its probability.
struct TokenProb
{
    int id = -1;
    float p = 0.0f;
};

// The k most probable entries of a probability row (any row of numbers: the order is the same for logits),
// most probable first; equal values keep the lower id first. k is clamped to [0, row length]. NaN entries
// are never chosen.
std::vector<TokenProb> top_k(const Eigen::Ref<const Eigen::RowVectorXf>& probs, int k);

// One position of a sentence and its top tokens.
struct PositionTop
{
    int position = 0;
    std::vector<TokenProb> top; // most probable first
};

// GPT-2's next-token predictions: for every position t of sentence b, the k most probable tokens after
// tokens 0..t (rows of acts.probs, from forward on a batch of acts.B sentences of acts.T tokens).
std::vector<PositionTop> next_token_top_k(const Activations& acts, int b, int k);

// BERT's fillers: for every position of sentence b whose token is mask_id, the k most probable tokens there.
// Empty when the sentence has no mask_id (or mask_id < 0).
std::vector<PositionTop> mask_fill_top_k(const Batch& batch, const Activations& acts, int b, int mask_id,
                                         int k);

// [SECTION] Logit lens

// What each layer's residual stream would predict if the model stopped there: the output head (LN_f and the
// unembedding for GPT-2, the masked-LM head for BERT: output_logits) applied to every row, and the top token
// and its probability (softmax over the vocabulary) at every position.
struct LogitLens
{
    int n_layers = 0, T = 0;
    // [n_layers + 1][T]: row 0 reads layer 1's input X_0 (the embeddings, after BERT's embedding LayerNorm),
    // row l + 1 reads layer l's output (so row n_layers is the model's own prediction).
    std::vector<std::vector<TokenProb>> top;

    const TokenProb& at(int row, int t) const
    {
        return top[static_cast<std::size_t>(row)][static_cast<std::size_t>(t)];
    }
};

// The logit lens of sentence b of a forward pass (acts, any Detail) through params. config's model must have
// a vocabulary (vocab_size > 0). Allocates its own scratch: T rows of logits, one layer at a time. Costs
// n_layers + 1 output heads (GPT-2 small at T = 64: 13 products of 64×768 by 768×50257, some 64 GFLOP), so
// it runs on request, not on every edit.
LogitLens logit_lens(const ModelConfig& config, const Params& params, const Activations& acts, int b);

// [SECTION] Attention sinks

// A (T_q, T_k) attention map with the first key's column hidden: that column set to 0 and each row divided by
// the sum of its other weights, so it sums to 1 over keys 1..T_k − 1 and keeps their ratios. A row whose
// other weights are all 0 (the first query of a causal map: it sees only key 0) stays all 0, never NaN. With
// a single key every row is 0. Many heads of trained models park most of their weight on the first token (a
// "sink" they attend to when nothing else matches); hiding it shows where the rest goes.
Mat hide_first_key(const Mat& weights);

} // namespace attnlab::train
