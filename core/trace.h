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
    std::vector<Mat> ffn_hidden; // [B] (T, d_ff) max(0, norm1 W_1 + b_1), the FFN's inner activation
    std::vector<Mat> ffn;        // [B] max(0, norm1 W_1 + b_1) W_2 + b_2
    std::vector<Mat> residual2;  // [B] norm1 + FFN(norm1)
    std::vector<Mat> norm2;      // [B] LayerNorm(residual2)
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

    int batch_size() const { return tokens.batch_size(); }
    int T() const { return tokens.T; }
    // True once a forward pass has filled it.
    bool empty() const { return layers.empty(); }
};

// [SECTION] The stage table: the UI's pipeline, the export and the tests walk the same list.

enum class Stage
{
    X,
    Q,
    K,
    V,
    scores,
    scaled,
    masked,
    weights,
    head_out,
    concat,
    mha,
    residual,
    norm1,
    ffn,
    residual2,
    norm2,
    Count
};
inline constexpr int kStageCount = static_cast<int>(Stage::Count);

struct StageInfo
{
    Stage id;
    const char* key;      // "scores": the name used in the JSON export and tests
    const char* name;     // "Scores": the display name
    const char* equation; // "Q_h K_hᵀ": in the paper's notation (UTF-8)
    bool per_head;        // one matrix per head
    bool attention_block; // part of an attention block (so also present in cross-attention)
    const char* rows;     // symbol of the row count: "T" (for cross-attention blocks, T_q / T_k apply)
    const char* cols;     // symbol of the column count: "d_model", "d_k", "T", "h·d_v", ...
};

// The table, in computation order.
const std::array<StageInfo, kStageCount>& stage_table();
const StageInfo& stage_info(Stage stage);
// Stage from its key ("weights"); Stage::Count if unknown.
Stage stage_from_key(const std::string& key);

// The matrix of a stage of a layer for sentence b (and head j when the stage is per head).
const Mat& stage_matrix(const LayerTrace& layer, Stage stage, int b, int j);
// The same for an attention block (Q ... mha); X is not part of an AttentionTrace.
const Mat& attention_stage_matrix(const AttentionTrace& attn, Stage stage, int b, int j);
// The shape of a stage for one sentence, in symbols and numbers, from the config and the lengths alone (no
// forward pass): T_q rows of queries, T_k keys (both T for self-attention).
struct StageDims
{
    std::string row_symbol, col_symbol; // "T", "d_k"; "T_q", "T_k" in cross-attention
    int rows = 0, cols = 0;
};
StageDims stage_dims(const Config& config, Stage stage, int T_q, int T_k, bool cross);
// "T×d_k = 5×4": the shape of a stage for one sentence, in symbols and numbers.
std::string stage_shape(const Trace& trace, Stage stage, bool cross = false);

} // namespace attnlab
