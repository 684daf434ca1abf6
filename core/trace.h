// Trace: every intermediate of the forward pass, in computation order, with a table describing each stage.
#pragma once

#include "matrix.h"
#include "session.h"
#include "tokenizer.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab
{

// One head of one attention block, for one sentence of the batch. T_q = T_k = T for self-attention.
struct HeadTrace
{
    Mat Q;        // (T_q, d_k)  Q_h = X W_h^Q
    Mat K;        // (T_k, d_k)  K_h = X W_h^K
    Mat V;        // (T_k, d_v)  V_h = X W_h^V
    Mat scores;   // (T_q, T_k)  Q_h K_hᵀ
    Mat scaled;   // (T_q, T_k)  Q_h K_hᵀ / √d_k
    Mat masked;   // (T_q, T_k)  scaled + M, -inf where a key is not allowed
    Mat weights;  // (T_q, T_k)  A_h = softmax(masked / τ) along each row (over the keys)
    Mat head_out; // (T_q, d_v)  A_h V_h
    // (T_q, T_k) ∂L/∂A_h: only in the trace of a trained model run with its loss (else empty).
    Mat dweights;
    // (T_q) 1 where every key of row i is masked: that row of weights is all zeros (never NaN).
    std::vector<std::uint8_t> fully_masked;
};

// One multi-head attention block over a batch.
struct AttentionTrace
{
    int n_heads = 0;
    std::vector<HeadTrace> heads; // [B·h], sentence b's head j at b·h + j
    std::vector<Mat> mask;        // [B] (T_q, T_k) M: 0 where allowed, -inf where not
    std::vector<Mat> concat;      // [B] (T_q, h·d_v)  Concat(head_1, ..., head_h)
    std::vector<Mat> mha;         // [B] (T_q, d_model) Concat(...) W^O

    HeadTrace& head(int b, int j)
    {
        return heads[static_cast<size_t>(b) * static_cast<size_t>(n_heads) + static_cast<size_t>(j)];
    }
    const HeadTrace& head(int b, int j) const
    {
        return heads[static_cast<size_t>(b) * static_cast<size_t>(n_heads) + static_cast<size_t>(j)];
    }
};

// One post-LN encoder layer over a batch. Every matrix is (T, d_model).
struct LayerTrace
{
    std::vector<Mat> X;          // [B] the layer's input: embedding + PE for layer 0, else the previous norm2
    AttentionTrace attn;         // self-attention of X
    std::vector<Mat> residual;   // [B] X + MultiHead(X)
    std::vector<Mat> norm1;      // [B] LayerNorm(residual)
    std::vector<Mat> ffn_hidden; // [B] (T, d_ff) act(norm1 W_1 + b_1): the FFN's ReLU (or GELU) layer
    std::vector<Mat> ffn;        // [B] max(0, norm1 W_1 + b_1) W_2 + b_2
    std::vector<Mat> residual2;  // [B] norm1 + FFN(norm1)
    std::vector<Mat> norm2;      // [B] LayerNorm(residual2)
    // Pre-LN layers only (a trained model's GPT-2 layer), else empty: the attention reads ln1 = LN1(X) and
    // the FFN ln2 = LN2(residual); residual2 = residual + FFN(ln2) is the output; norm1 and norm2 are empty.
    std::vector<Mat> ln1; // [B]
    std::vector<Mat> ln2; // [B]
};

// Cross-attention: queries from the target sentence, keys and values from the encoder's output.
struct CrossTrace
{
    TokenBatch target; // [B][T_q] target tokens (one line broadcast to every source, or one per source)
    std::vector<Mat> embedding; // [B] (T_q, d_model) target token embeddings
    Mat positional;             // (T_q, d_model) positional encoding of the target positions
    std::vector<Mat> X_q;       // [B] (T_q, d_model) target embedding + PE
    std::vector<Mat> X_kv;      // [B] (T_k, d_model) the last layer's norm2
    AttentionTrace attn;        // Q, K, V, ... are T_q x d_k, T_k x d_k, ...; scores are T_q x T_k
};

// The FFN's non-linearity, as train::Activation (kept here so core's trace needs nothing of train).
enum class TraceActivation
{
    Relu,     // max(0, x)
    GeluTanh, // 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³))): GPT-2's
    GeluErf,  // 0.5 x (1 + erf(x / √2)): BERT's
};

// The whole forward pass.
struct Trace
{
    Config config; // as given (0 = default), see d_k / d_v / d_ff for the resolved sizes
    int d_k = 0, d_v = 0, d_ff = 0;
    TokenBatch tokens;              // [B][T]
    std::vector<Mat> embedding;     // [B] (T, d_model) token embeddings
    Mat positional;                 // (T, d_model) positional encoding (zeros when PositionalKind::None)
    std::vector<LayerTrace> layers; // [n_layers]
    bool has_cross = false;
    CrossTrace cross;

    // A trained language model's trace (core/train/model_trace.h) also has these; the seeded engine leaves
    // them empty. A model without a final norm (post-LN) leaves lnf empty.
    bool trained = false;
    bool pre_ln = false;                 // layers are pre-LN: see LayerTrace::ln1
    std::vector<std::string> vocabulary; // [V] the tokens: the columns of logits and probs
    std::vector<Mat> lnf;                // [B] (T, d_model) LN_f(last layer's output)
    // The masked-LM head (BERT's, else empty): mlm_pre = Z W_T + b_T, mlm_hidden = act(mlm_pre), and
    // mlm_norm = LN_mlm(mlm_hidden), which the unembedding reads.
    std::vector<Mat> mlm_pre, mlm_hidden, mlm_norm; // [B] (T, d_model)
    std::vector<Mat> logits;                        // [B] (T, V) Z W_U + b_U (Z Eᵀ (+ b_U) when tied)
    std::vector<Mat> probs; // [B] (T, V) softmax(logits) along rows: p(next token | tokens ≤ t)
    std::vector<Mat> loss;  // [B] (T, 1) −log p(token t + 1); the last position has none (0). Empty when
                            // no position has a target (a masked-LM run)
    // [B] (T, 1) −∞ where loss has no target (the last position: no next token), else 0: the panels draw
    // those cells as masked instead of a loss of 0.
    std::vector<Mat> loss_uncounted;
    // BERT's embedding LayerNorm (else empty): embed = E[tokens] + P + T_type[0], and embed_norm =
    // LN_emb(embed), which is layer 0's X.
    std::vector<Mat> embed;      // [B] (T, d_model)
    std::vector<Mat> embed_norm; // [B] (T, d_model)
    // What the equations of a trained or pretrained model's trace depend on (train::fill_trace sets them
    // from its ModelConfig; the seeded engine keeps these defaults, which describe it).
    TraceActivation activation = TraceActivation::Relu; // the FFN's (and the masked-LM head's) act
    bool attention_bias = false;   // Q_h = x W_h^Q + b_h^Q, likewise K, V, and MultiHead adds b^O
    bool tied_unembedding = false; // logits = Z Eᵀ: the token embedding read backwards, no W_U
    bool unembedding_bias = true;  // logits add b_U
    bool token_types = false;      // embed adds the token type embedding T_type[0]
    float layer_norm_eps = 1e-5f;  // ε of every LayerNorm
    // A model opened from a folder (core/io/hf_model.h) says which: "GPT-2 (124M parameters), pretrained,
    // from DIR". Empty for the session's seeded or imported weights and for a model trained here.
    std::string model_source;

    int batch_size() const { return tokens.batch_size(); }
    int T() const { return tokens.T; }
    // True once a forward pass has filled it.
    bool empty() const { return layers.empty(); }
};

// [SECTION] The stage table: the UI's pipeline, the export and the tests walk the same list.

enum class Stage
{
    embedding,
    positional,
    embed,
    embed_norm,
    X,
    ln1,
    Q,
    K,
    V,
    scores,
    scaled,
    masked,
    weights,
    dweights,
    head_out,
    concat,
    mha,
    residual,
    norm1,
    ln2,
    ffn_hidden,
    ffn,
    residual2,
    norm2,
    lnf,
    mlm_pre,
    mlm_hidden,
    mlm_norm,
    logits,
    probs,
    loss,
    Count
};
inline constexpr int kStageCount = static_cast<int>(Stage::Count);

// Where a stage sits in the pipeline: before the layers (once per sentence), in every layer, after them.
enum class StageScope
{
    Input,
    Layer,
    Output,
};

// How the Inspector explains one cell of a stage.
enum class StageExplain
{
    Projection,     // Q, K, V: the dot product of X's row i with W's column c, term by term
    AttentionChain, // scores, scaled, masked, weights: the whole chain for the cell, with the real numbers
    Formula,        // every other stage: its cell_formula with the real numbers where they fit
};

// Every fact about a stage, in one row: a new stage is one row here plus its computation (the pipeline, the
// Inspector, the export, the memory count, lesson validation and the tests all read this table).
struct StageInfo
{
    Stage id;
    const char* key;      // "scores": the name used in the JSON export and tests
    const char* name;     // "Scores": the display name
    const char* equation; // "Q_h K_hᵀ": in the paper's notation (UTF-8)
    // The equation in a cross-attention block (queries from the target, keys and values from the encoder),
    // or nullptr when it reads the same.
    const char* cross_equation;
    // The Inspector's line for one cell (with StageExplain::Formula), e.g. "mha[i, c] = concat_i · W^O[:,
    // c]".
    const char* cell_formula;
    // The equation in a pre-LN layer (a trained model's), or nullptr when it reads the same.
    const char* pre_ln_equation;
    StageScope scope;
    // The seeded engine computes it for every session; false: only a trained model's trace has it.
    bool seeded;
    bool per_head;        // one matrix per head
    bool attention_block; // part of an attention block (so also present in cross-attention)
    const char* rows;     // symbol of the row count: "T" (for cross-attention blocks, T_q / T_k apply)
    bool rows_are_keys;   // one row per key (K, V): T_k rows in cross-attention, T_q for the others
    const char* cols;     // symbol of the column count: "d_model", "d_k", "T", "h·d_v", "d_ff", "V", "1"
    StageExplain explain;
    // Where the matrix lives: exactly one of the five is set (checked at compile time below).
    Mat HeadTrace::*head_matrix;                      // per head: attn.head(b, j).*head_matrix
    std::vector<Mat> AttentionTrace::*block_matrices; // per block: (attn.*block_matrices)[b]
    std::vector<Mat> LayerTrace::*layer_matrices;     // per layer: (layer.*layer_matrices)[b]
    std::vector<Mat> Trace::*model_matrices;          // once per sentence: (trace.*model_matrices)[b]
    Mat Trace::*shared_matrix;                        // once for every sentence: trace.*shared_matrix

    // Columns are keys (the T×T stages): labelled with the key tokens.
    constexpr bool cols_are_keys() const { return cols[0] == 'T' && cols[1] == '\0'; }
};

// clang-format off
inline constexpr std::array<StageInfo, kStageCount> kStageTable = {{
    {Stage::embedding, "embedding", "Token embedding", "E[tokens]: one row of the embedding table per token", nullptr,
     "embedding[i, c] = E[token i, c]: row i is the token's learned or seeded vector",
     nullptr,
     StageScope::Input, true, false, false, "T", false, "d_model", StageExplain::Formula,
     nullptr, nullptr, nullptr, &Trace::embedding, nullptr},
    {Stage::positional, "positional", "Positional encoding", "P[0..T): sinusoids PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(…)", nullptr,
     "positional[i, c] = P[i, c]: the same for every sentence, it tells the layers where token i sits",
     nullptr,
     StageScope::Input, true, false, false, "T", false, "d_model", StageExplain::Formula,
     nullptr, nullptr, nullptr, nullptr, &Trace::positional},
    {Stage::embed, "embed", "Embedding sum", "E[tokens] + P + T_type[0]: the token, position and token type rows added", nullptr,
     "embed[i, c] = E[token i, c] + P[i, c] + T_type[0, c]: what the embedding LayerNorm reads",
     nullptr,
     StageScope::Input, false, false, false, "T", false, "d_model", StageExplain::Formula,
     nullptr, nullptr, nullptr, &Trace::embed, nullptr},
    {Stage::embed_norm, "embed_norm", "Embedding LayerNorm", "LN_emb(E[tokens] + P + T_type[0]): each row to mean 0, variance 1, then · γ + β; layer 1's X", nullptr,
     "LayerNorm over row i: (x − mean_i) / √(var_i + ε) · γ + β",
     nullptr,
     StageScope::Input, false, false, false, "T", false, "d_model", StageExplain::Formula,
     nullptr, nullptr, nullptr, &Trace::embed_norm, nullptr},
    {Stage::X, "X", "Input X", "X = Embedding + PE, or the previous layer's norm2", "X_q = target embedding + PE",
     "X = token embedding + positional encoding",
     "X = E[tokens] + P, or the previous layer's residual2",
     StageScope::Layer, true, false, false, "T", false, "d_model", StageExplain::Formula,
     nullptr, nullptr, &LayerTrace::X, nullptr, nullptr},
    {Stage::ln1, "ln1", "LayerNorm 1", "LN1(X): each row to mean 0, variance 1, then · γ_1 + β_1", nullptr,
     "LayerNorm over row i: (x − mean_i) / √(var_i + ε) · γ + β",
     nullptr,
     StageScope::Layer, false, false, false, "T", false, "d_model", StageExplain::Formula,
     nullptr, nullptr, &LayerTrace::ln1, nullptr, nullptr},
    {Stage::Q, "Q", "Queries Q_h", "Q_h = X W_h^Q", "Q_h = X_q W_h^Q  (target)",
     nullptr,
     "Q_h = LN1(X) W_h^Q",
     StageScope::Layer, true, true, true, "T", false, "d_k", StageExplain::Projection,
     &HeadTrace::Q, nullptr, nullptr, nullptr, nullptr},
    {Stage::K, "K", "Keys K_h", "K_h = X W_h^K", "K_h = X_kv W_h^K  (encoder output)",
     nullptr,
     "K_h = LN1(X) W_h^K",
     StageScope::Layer, true, true, true, "T", true, "d_k", StageExplain::Projection,
     &HeadTrace::K, nullptr, nullptr, nullptr, nullptr},
    {Stage::V, "V", "Values V_h", "V_h = X W_h^V", "V_h = X_kv W_h^V  (encoder output)",
     nullptr,
     "V_h = LN1(X) W_h^V",
     StageScope::Layer, true, true, true, "T", true, "d_v", StageExplain::Projection,
     &HeadTrace::V, nullptr, nullptr, nullptr, nullptr},
    {Stage::scores, "scores", "Scores", "Q_h K_hᵀ", nullptr,
     nullptr,
     nullptr,
     StageScope::Layer, true, true, true, "T", false, "T", StageExplain::AttentionChain,
     &HeadTrace::scores, nullptr, nullptr, nullptr, nullptr},
    {Stage::scaled, "scaled", "Scaled scores", "Q_h K_hᵀ / √d_k", nullptr,
     nullptr,
     nullptr,
     StageScope::Layer, true, true, true, "T", false, "T", StageExplain::AttentionChain,
     &HeadTrace::scaled, nullptr, nullptr, nullptr, nullptr},
    {Stage::masked, "masked", "Masked scores", "Q_h K_hᵀ / √d_k + M   (M = −∞ where not allowed)", nullptr,
     nullptr,
     nullptr,
     StageScope::Layer, true, true, true, "T", false, "T", StageExplain::AttentionChain,
     &HeadTrace::masked, nullptr, nullptr, nullptr, nullptr},
    {Stage::weights, "weights", "Attention weights", "A_h = softmax(masked / τ), each row sums to 1", nullptr,
     nullptr,
     nullptr,
     StageScope::Layer, true, true, true, "T", false, "T", StageExplain::AttentionChain,
     &HeadTrace::weights, nullptr, nullptr, nullptr, nullptr},
    {Stage::dweights, "dweights", "Gradient ∂L/∂A_h", "∂L/∂A_h: how the loss changes as each attention weight grows", nullptr,
     "∂L/∂A_h[i, j] > 0: more weight on key j would raise the loss; < 0: lower it",
     nullptr,
     StageScope::Layer, false, true, true, "T", false, "T", StageExplain::Formula,
     &HeadTrace::dweights, nullptr, nullptr, nullptr, nullptr},
    {Stage::head_out, "head_out", "Head output", "head_h = A_h V_h", nullptr,
     "head_out[i, c] = Σ_j A_h[i, j] · V_h[j, c]",
     nullptr,
     StageScope::Layer, true, true, true, "T", false, "d_v", StageExplain::Formula,
     &HeadTrace::head_out, nullptr, nullptr, nullptr, nullptr},
    {Stage::concat, "concat", "Concatenated heads", "Concat(head_1, …, head_h)", nullptr,
     "concat[i, c] = head_out of head ⌊c / d_v⌋ + 1, column c mod d_v",
     nullptr,
     StageScope::Layer, true, false, true, "T", false, "h·d_v", StageExplain::Formula,
     nullptr, &AttentionTrace::concat, nullptr, nullptr, nullptr},
    {Stage::mha, "mha", "Multi-head output", "MultiHead(X) = Concat(head_1, …, head_h) W^O", nullptr,
     "mha[i, c] = concat_i · W^O[:, c]",
     "MultiHead(LN1(X)) = Concat(head_1, …, head_h) W^O",
     StageScope::Layer, true, false, true, "T", false, "d_model", StageExplain::Formula,
     nullptr, &AttentionTrace::mha, nullptr, nullptr, nullptr},
    {Stage::residual, "residual", "Residual", "X + MultiHead(X)", nullptr,
     "residual = X + MultiHead(X): the input is added back, so the layer only learns a change to X",
     "X + MultiHead(LN1(X))",
     StageScope::Layer, true, false, false, "T", false, "d_model", StageExplain::Formula,
     nullptr, nullptr, &LayerTrace::residual, nullptr, nullptr},
    {Stage::norm1, "norm1", "Add & Norm", "LayerNorm(X + MultiHead(X))", nullptr,
     "LayerNorm over row i: (x − mean_i) / √(var_i + ε) · γ + β",
     nullptr,
     StageScope::Layer, true, false, false, "T", false, "d_model", StageExplain::Formula,
     nullptr, nullptr, &LayerTrace::norm1, nullptr, nullptr},
    {Stage::ln2, "ln2", "LayerNorm 2", "LN2(residual): each row to mean 0, variance 1, then · γ_2 + β_2", nullptr,
     "LayerNorm over row i: (x − mean_i) / √(var_i + ε) · γ + β",
     nullptr,
     StageScope::Layer, false, false, false, "T", false, "d_model", StageExplain::Formula,
     nullptr, nullptr, &LayerTrace::ln2, nullptr, nullptr},
    {Stage::ffn_hidden, "ffn_hidden", "FFN hidden layer", "max(0, norm1 W_1 + b_1): the FFN's d_ff hidden units after the ReLU", nullptr,
     "ffn_hidden[i, c] = max(0, x_i · W_1[:, c] + b_1[c]): hidden unit c of token i",
     "max(0, LN2(residual) W_1 + b_1): the FFN's d_ff hidden units after the ReLU",
     StageScope::Layer, true, false, false, "T", false, "d_ff", StageExplain::Formula,
     nullptr, nullptr, &LayerTrace::ffn_hidden, nullptr, nullptr},
    {Stage::ffn, "ffn", "Feed-forward", "FFN(x) = max(0, x W_1 + b_1) W_2 + b_2", nullptr,
     "ffn = max(0, norm1 W_1 + b_1) W_2 + b_2, row by row",
     "FFN(LN2(residual)) = max(0, ln2 W_1 + b_1) W_2 + b_2",
     StageScope::Layer, true, false, false, "T", false, "d_model", StageExplain::Formula,
     nullptr, nullptr, &LayerTrace::ffn, nullptr, nullptr},
    {Stage::residual2, "residual2", "Residual 2", "norm1 + FFN(norm1)", nullptr,
     "residual2 = norm1 + FFN(norm1)",
     "residual + FFN(LN2(residual)): the layer's output",
     StageScope::Layer, true, false, false, "T", false, "d_model", StageExplain::Formula,
     nullptr, nullptr, &LayerTrace::residual2, nullptr, nullptr},
    {Stage::norm2, "norm2", "Add & Norm 2", "LayerNorm(norm1 + FFN(norm1))", nullptr,
     "LayerNorm over row i: (x − mean_i) / √(var_i + ε) · γ + β",
     nullptr,
     StageScope::Layer, true, false, false, "T", false, "d_model", StageExplain::Formula,
     nullptr, nullptr, &LayerTrace::norm2, nullptr, nullptr},
    {Stage::lnf, "lnf", "Final LayerNorm", "Z = LN_f(last layer's output)", nullptr,
     "LayerNorm over row i: (x − mean_i) / √(var_i + ε) · γ + β",
     nullptr,
     StageScope::Output, false, false, false, "T", false, "d_model", StageExplain::Formula,
     nullptr, nullptr, nullptr, &Trace::lnf, nullptr},
    {Stage::mlm_pre, "mlm_pre", "MLM transform", "Y W_T + b_T: the masked-LM head's dense layer on the last layer's output Y", nullptr,
     "mlm_pre[i, c] = Y_i · W_T[:, c] + b_T[c]",
     nullptr,
     StageScope::Output, false, false, false, "T", false, "d_model", StageExplain::Formula,
     nullptr, nullptr, nullptr, &Trace::mlm_pre, nullptr},
    {Stage::mlm_hidden, "mlm_hidden", "MLM activation", "act(mlm_pre): the FFN's non-linearity, element by element", nullptr,
     "mlm_hidden[i, c] = act(mlm_pre[i, c])",
     nullptr,
     StageScope::Output, false, false, false, "T", false, "d_model", StageExplain::Formula,
     nullptr, nullptr, nullptr, &Trace::mlm_hidden, nullptr},
    {Stage::mlm_norm, "mlm_norm", "MLM LayerNorm", "Z = LN_mlm(mlm_hidden): the rows the tied decoder reads", nullptr,
     "LayerNorm over row i: (x − mean_i) / √(var_i + ε) · γ + β",
     nullptr,
     StageScope::Output, false, false, false, "T", false, "d_model", StageExplain::Formula,
     nullptr, nullptr, nullptr, &Trace::mlm_norm, nullptr},
    {Stage::logits, "logits", "Logits", "logits = Z W_U + b_U: a score for every token of the vocabulary", nullptr,
     "logits[i, v] = Z_i · W_U[:, v] + b_U[v]",
     nullptr,
     StageScope::Output, false, false, false, "T", false, "V", StageExplain::Formula,
     nullptr, nullptr, nullptr, &Trace::logits, nullptr},
    {Stage::probs, "probs", "Next-token probabilities", "p = softmax(logits) along each row: p(next token | tokens 0..i)", nullptr,
     "probs[i, v] = exp(logits[i, v]) / Σ_u exp(logits[i, u])",
     nullptr,
     StageScope::Output, false, false, false, "T", false, "V", StageExplain::Formula,
     nullptr, nullptr, nullptr, &Trace::probs, nullptr},
    {Stage::loss, "loss", "Loss per position", "−log p(token i + 1 | tokens 0..i): cross-entropy of the next token", nullptr,
     "loss[i] = −log probs[i, token i + 1]; the last position has no next token",
     nullptr,
     StageScope::Output, false, false, false, "T", false, "1", StageExplain::Formula,
     nullptr, nullptr, nullptr, &Trace::loss, nullptr},
}};
// clang-format on

// The table's promises, checked by the compiler: a row per stage in the enum's order, each with exactly one
// place for its matrix, a per-head matrix exactly for per-head stages, the attention block's stages in an
// AttentionTrace, and a layer's stages, and only they, in a layer.
constexpr bool stage_table_is_consistent()
{
    for (int i = 0; i < kStageCount; ++i)
    {
        const StageInfo& s = kStageTable[static_cast<std::size_t>(i)];
        const int places = (s.head_matrix != nullptr) + (s.block_matrices != nullptr) +
                           (s.layer_matrices != nullptr) + (s.model_matrices != nullptr) +
                           (s.shared_matrix != nullptr);
        const bool in_layer =
            s.head_matrix != nullptr || s.block_matrices != nullptr || s.layer_matrices != nullptr;
        if (static_cast<int>(s.id) != i || places != 1 || s.per_head != (s.head_matrix != nullptr) ||
            s.attention_block != (s.head_matrix != nullptr || s.block_matrices != nullptr) ||
            in_layer != (s.scope == StageScope::Layer) || s.key == nullptr || s.name == nullptr ||
            s.equation == nullptr || s.rows == nullptr || s.cols == nullptr)
            return false;
        if (s.explain == StageExplain::Formula && s.cell_formula == nullptr)
            return false;
    }
    return true;
}
static_assert(stage_table_is_consistent(), "kStageTable: one complete row per Stage, in the enum's order");

// The table, in computation order.
const std::array<StageInfo, kStageCount>& stage_table();
const StageInfo& stage_info(Stage stage);
// Stage from its key ("weights"); Stage::Count if unknown.
Stage stage_from_key(const std::string& key);

// The matrix of a stage of a layer for sentence b (and head j when the stage is per head). Layer stages only.
const Mat& stage_matrix(const LayerTrace& layer, Stage stage, int b, int j);
// Any stage: `layer` matters for layer stages only. nullptr when the trace does not have it (a stage only
// trained models have, b, j or layer out of range).
const Mat* find_stage_matrix(const Trace& trace, Stage stage, int layer, int b, int j);
// Whether the trace has the stage (in layer `layer` for layer stages): the pipeline shows only these.
bool stage_present(const Trace& trace, Stage stage, int layer = 0);
// The seeded engine's layer stages (what its LayerTrace holds for every session): the export and the
// memory count walk these.
constexpr bool engine_layer_stage(const StageInfo& info)
{
    return info.seeded && info.scope == StageScope::Layer;
}
// The stage's equation for this trace, the one place that chooses it: pre-LN and cross-attention blocks read
// differently, and so do the Add & Norm stages without the residual connection, the positional encoding when
// it is off, and a pretrained model's stages (attention biases, GELU's tanh or erf form, the embedding
// LayerNorm, a tied unembedding, the masked-LM head: see Trace's flags).
const char* stage_equation(const Trace& trace, Stage stage, bool cross);
// The stage's display name for this trace: the table's, except the probabilities of a model that is not
// causal (BERT's fillers, a task's answers), which are "Token probabilities", not "Next-token".
const char* stage_name(const Trace& trace, Stage stage);
// The Inspector's line for one cell of a StageExplain::Formula stage in this trace: the table's cell_formula,
// or its form for the trace's activation, attention biases and unembedding.
const char* stage_cell_formula(const Trace& trace, Stage stage);
// The same for an attention block (Q ... mha); X is not part of an AttentionTrace.
const Mat& attention_stage_matrix(const AttentionTrace& attn, Stage stage, int b, int j);
// The shape of a stage for one sentence, in symbols and numbers, from the config and the lengths alone (no
// forward pass): T_q rows of queries, T_k keys (both T for self-attention).
struct StageDims
{
    std::string row_symbol, col_symbol; // "T", "d_k"; "T_q", "T_k" in cross-attention
    int rows = 0, cols = 0;
};
// vocab: V, the column count of logits and probs (0 when there is no vocabulary).
StageDims stage_dims(const Config& config, Stage stage, int T_q, int T_k, bool cross, int vocab = 0);
// Floats of a stage for one sentence: every head's matrix when it is per head.
double stage_floats(const Config& config, Stage stage, int T_q, int T_k, bool cross);
// "T×d_k = 5×4": the shape of a stage for one sentence, in symbols and numbers.
std::string stage_shape(const Trace& trace, Stage stage, bool cross = false);

} // namespace attnlab
