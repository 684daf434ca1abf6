// Forward and backward pass of the training model, every intermediate and every gradient kept by name.
#pragma once

#include "batch.h"
#include "model.h"

#include <cstdint>
#include <vector>

namespace attnlab::train
{

// Rows are (B·T): position t of sentence b is row b·T + t (sentence_rows() gives one sentence). The
// attention matrices of one layer are (B·h·T, T): head j of sentence b is rows [(b·h + j)·T, +T), see
// attention_block(). N = B·T, d = d_model, hd = h·d_k.
template <typename S> struct LayerActsT
{
    MatT<S> X;                  // (N, d)  the layer's input: E[tokens] + P[0..T) for layer 0
    MatT<S> ln1;                // (N, d)  pre-LN: LN1(X); post-LN: LN1(residual)
    ColT<S> ln1_mean, ln1_rstd; // (N)     the mean and 1/σ = 1/√(var + eps) of LN1's input rows
    MatT<S> Q, K, V;            // (N, hd) Q = x W_Q (x = ln1 pre-LN, X post-LN); head j: head_cols(Q, j, d_k)
    MatT<S> scores;             // (B·h·T, T) Q_h K_hᵀ
    MatT<S> scaled;             // (B·h·T, T) Q_h K_hᵀ / √d_k
    MatT<S> masked;             // (B·h·T, T) scaled + M, M = -inf where key > query (causal), else 0
    MatT<S> weights;            // (B·h·T, T) A_h = softmax(masked) along rows; masked entries exactly 0
    MatT<S> concat;   // (N, hd) Concat(head_1 … head_h), head_j = A_h V_h in columns [j d_v, +d_v)
    MatT<S> mha;      // (N, d)  concat W_O
    MatT<S> residual; // (N, d)  X + mha (mha alone without the residual connection)
    MatT<S> ln2;      // (N, d)  pre-LN: LN2(residual); post-LN: LN2(residual2)  (FFN only)
    ColT<S> ln2_mean, ln2_rstd; // (N)
    MatT<S> ffn_pre;            // (N, d_ff) f W_1 + b_1 (f = ln2 pre-LN, ln1 post-LN)
    MatT<S> ffn_hidden;         // (N, d_ff) act(ffn_pre): max(0, ·) or a GELU (ModelConfig::activation)
    MatT<S> ffn;                // (N, d)  ffn_hidden W_2 + b_2
    MatT<S> residual2;          // (N, d)  pre-LN: residual + ffn; post-LN: ln1 + ffn (ffn alone: no residual)
};

template <typename S> struct ActivationsT
{
    int B = 0, T = 0;
    MatT<S> embed;                     // (N, d) E[tokens] + P[0..T) (+ T_type[0]): layer 0's X, or its input
    ColT<S> embed_mean, embed_rstd;    // (N) with embedding_norm, whose LN_emb(embed) is layer 0's X
    std::vector<LayerActsT<S>> layers; // [n_layers]
    MatT<S> lnf;                       // (N, d) LN_f(last layer's output), pre-LN only
    ColT<S> lnf_mean, lnf_rstd;        // (N)
    // The masked-LM head (mlm_head), else 0 x 0: mlm_pre = Z W_T + b_T, mlm_hidden = act(mlm_pre),
    // mlm_norm = LN_mlm(mlm_hidden), which the unembedding then reads as Z.
    MatT<S> mlm_pre, mlm_hidden, mlm_norm; // (N, d)
    ColT<S> mlm_mean, mlm_rstd;            // (N)
    MatT<S> logits;  // (N, V) Z W_U + b_U (Z Eᵀ when tied), Z = lnf (pre-LN), mlm_norm, or the last output
    MatT<S> probs;   // (N, V) softmax(logits) along rows
    ColT<S> loss;    // (N)    -log probs[target] at every position (counted or not)
    S mean_loss = 0; // Σ loss_mask·loss / Σ loss_mask
    MatT<S> head_scores; // (T, T) scratch: Q_h K_hᵀ of the head being computed (Training)
};
using Activations = ActivationsT<float>;

// Gradients of the loss with respect to the activations of one layer, named after them (d + name).
template <typename S> struct LayerGradsT
{
    MatT<S> dX;          // (N, d)  ∂L/∂X, the layer's input
    MatT<S> dln1;        // (N, d)
    MatT<S> dQ, dK, dV;  // (N, hd)
    MatT<S> dweights;    // (B·h·T, T) ∂L/∂A_h = dhead_h V_hᵀ, per sentence and head as weights
    MatT<S> dscores;     // (B·h·T, T) ∂L/∂scores = A ∘ (dA − rowsum(dA ∘ A)) / √d_k
    MatT<S> dconcat;     // (N, hd) ∂L/∂concat = dmha W_Oᵀ (∂L/∂head_out in head j's columns)
    MatT<S> dresidual;   // (N, d)  ∂L/∂residual (= ∂L/∂mha)
    MatT<S> dln2;        // (N, d)
    MatT<S> dffn_pre;    // (N, d_ff)
    MatT<S> dffn_hidden; // (N, d_ff)
    MatT<S> dresidual2;  // (N, d)  ∂L/∂residual2 (= ∂L/∂ffn)
};

// Activation gradients and the scratch backward needs, sized once per (config, B, T).
template <typename S> struct ActGradsT
{
    std::vector<LayerGradsT<S>> layers; // [n_layers]
    MatT<S> dout;                       // (N, d) ∂L/∂(last layer's output)
    MatT<S> dlnf;                       // (N, d) ∂L/∂lnf (pre-LN)
    MatT<S> dlogits;                    // (N, V) (probs − onehot(target)) · loss_mask / Σ loss_mask
    MatT<S> head_dA, head_dS;           // (T, T) scratch: dA and dS of the head being computed (Training)
};
using ActGrads = ActGradsT<float>;

// Sizes every buffer for B sequences of T tokens (T <= T_max); no heap call when nothing changed.
template <typename S> void size_activations(const ModelConfig& config, int B, int T, ActivationsT<S>& acts);
template <typename S> void size_act_grads(const ModelConfig& config, int B, int T, ActGradsT<S>& grads);

// Adds delta to one attention weight right after the softmax: for finite differences of ∂L/∂A_h in tests.
template <typename S> struct WeightNudge
{
    int layer = 0, b = 0, head = 0, row = 0, col = 0;
    S delta = 0;
};

// How much of the attention's intermediates a pass writes.
//  - Full: everything named above: scores, scaled and masked with every key (the masked ones too), and in
//    backward dweights (∂L/∂A_h on every key, also where the mask holds the weight at 0) and dscores. For
//    probes, the display and the tests.
//  - Training: only what backward, the loss and the head scores need: weights (masked keys exactly 0). A
//    causal model's products skip the masked keys, and scores, scaled, masked, ffn_pre (the ReLU runs in
//    place in ffn_hidden), dweights, dscores and dffn_hidden keep what they held. Parameter gradients are
//    bit-identical to Full's.
enum class Detail
{
    Full,
    Training,
};

// Heads switched off (ablated): head j of layer l is off when heads_off[l·h + j] != 0. Its weights are still
// computed and kept, but its output (its columns of concat) is zero, so W_O and every later stage see nothing
// of it. Empty: every head on.
using HeadMask = std::vector<std::uint8_t>;

// Runs the model on batch and fills acts (sized by size_activations for batch's B, T). Returns the mean
// loss over the positions batch.loss_mask counts (0 when none counts). heads_off, when not null and not
// empty, has n_layers·h entries (see HeadMask).
template <typename S>
S forward(const ModelConfig& config, const ParamsT<S>& params, const Batch& batch, ActivationsT<S>& acts,
          const WeightNudge<S>* nudge = nullptr, Detail detail = Detail::Full,
          const HeadMask* heads_off = nullptr);

// The model's output head on the rows of a residual stream `last` (N, d), exactly as forward turns its last
// layer's output into logits: Z = LN_f(last) (pre-LN), the masked-LM head Z = LN_mlm(act(Z W_T + b_T)) when
// the model has one, then logits = Z W_U (Z Eᵀ when tied) + b_U. Writes acts.lnf, acts.mlm_* (with their
// means and 1/σ) and acts.logits, each already sized for N rows (as size_activations does); reads nothing
// else of acts, so a scratch ActivationsT with only those buffers sized serves (the logit lens).
template <typename S>
void output_logits(const ModelConfig& config, const ParamsT<S>& params, const MatT<S>& last,
                   ActivationsT<S>& acts);

// Back-propagates the mean loss of the last forward(batch) into grads (every parameter, overwritten) and
// act_grads (every named activation gradient). params must be those of the forward pass, and the config
// trainable() (the pretrained architectures' additions have no backward).
template <typename S>
void backward(const ModelConfig& config, const ParamsT<S>& params, const Batch& batch, ActivationsT<S>& acts,
              ActGradsT<S>& act_grads, ParamsT<S>& grads, Detail detail = Detail::Full);

// [SECTION] Views

// Rows of sentence b in an (B·T, n) matrix.
template <typename S> auto sentence_rows(const MatT<S>& m, int b, int T)
{
    return m.middleRows(static_cast<Eigen::Index>(b) * T, T);
}
// The (T, T) matrix of sentence b, head j in a (B·h·T, T) attention matrix (scores, weights, dweights ...).
template <typename S> auto attention_block(const MatT<S>& m, int b, int j, int n_heads, int T)
{
    return m.middleRows((static_cast<Eigen::Index>(b) * n_heads + j) * T, T);
}

// The layer's output (the next layer's X): residual2 / residual (pre-LN), ln2 / ln1 (post-LN).
template <typename S> const MatT<S>& layer_output(const ModelConfig& config, const LayerActsT<S>& layer)
{
    if (config.norm == NormPlacement::Pre)
        return config.has_ffn() ? layer.residual2 : layer.residual;
    return config.has_ffn() ? layer.ln2 : layer.ln1;
}

// LayerNorm's epsilon of the models trained here (ModelConfig::layer_norm_eps's default).
inline constexpr double kLayerNormEps = 1e-5;

// act(x) elementwise into y (may be x): the config's activation (Relu, GeluTanh, GeluErf).
template <typename S> void activate(Activation activation, const MatT<S>& x, MatT<S>& y);

} // namespace attnlab::train
