// The stage table and the accessors that let the UI, the export and the tests walk a Trace in order.
#include "trace.h"

#include <cassert>

namespace attnlab
{

const std::array<StageInfo, kStageCount>& stage_table()
{
    // clang-format off
    static const std::array<StageInfo, kStageCount> table = {{
        {Stage::X,         "X",         "Input X",          "X = Embedding + PE, or the previous layer's norm2", false, false, "T", "d_model"},
        {Stage::Q,         "Q",         "Queries Q_h",      "Q_h = X W_h^Q",                                       true,  true,  "T", "d_k"},
        {Stage::K,         "K",         "Keys K_h",         "K_h = X W_h^K",                                       true,  true,  "T", "d_k"},
        {Stage::V,         "V",         "Values V_h",       "V_h = X W_h^V",                                       true,  true,  "T", "d_v"},
        {Stage::scores,    "scores",    "Scores",           "Q_h K_hᵀ",                                            true,  true,  "T", "T"},
        {Stage::scaled,    "scaled",    "Scaled scores",    "Q_h K_hᵀ / √d_k",                                     true,  true,  "T", "T"},
        {Stage::masked,    "masked",    "Masked scores",    "Q_h K_hᵀ / √d_k + M   (M = −∞ where not allowed)",    true,  true,  "T", "T"},
        {Stage::weights,   "weights",   "Attention weights","A_h = softmax(masked / τ), each row sums to 1",       true,  true,  "T", "T"},
        {Stage::head_out,  "head_out",  "Head output",      "head_h = A_h V_h",                                    true,  true,  "T", "d_v"},
        {Stage::concat,    "concat",    "Concatenated heads","Concat(head_1, …, head_h)",                          false, true,  "T", "h·d_v"},
        {Stage::mha,       "mha",       "Multi-head output","MultiHead(X) = Concat(head_1, …, head_h) W^O",        false, true,  "T", "d_model"},
        {Stage::residual,  "residual",  "Residual",         "X + MultiHead(X)",                                    false, false, "T", "d_model"},
        {Stage::norm1,     "norm1",     "Add & Norm",       "LayerNorm(X + MultiHead(X))",                         false, false, "T", "d_model"},
        {Stage::ffn,       "ffn",       "Feed-forward",     "FFN(x) = max(0, x W_1 + b_1) W_2 + b_2",              false, false, "T", "d_model"},
        {Stage::residual2, "residual2", "Residual 2",       "norm1 + FFN(norm1)",                                  false, false, "T", "d_model"},
        {Stage::norm2,     "norm2",     "Add & Norm 2",     "LayerNorm(norm1 + FFN(norm1))",                       false, false, "T", "d_model"},
    }};
    // clang-format on
    return table;
}

const StageInfo& stage_info(Stage stage)
{
    assert(stage != Stage::Count);
    return stage_table()[static_cast<size_t>(stage)];
}

Stage stage_from_key(const std::string& key)
{
    for (const StageInfo& info : stage_table())
        if (key == info.key)
            return info.id;
    return Stage::Count;
}

const Mat& attention_stage_matrix(const AttentionTrace& attn, Stage stage, int b, int j)
{
    const auto bi = static_cast<size_t>(b);
    switch (stage)
    {
    case Stage::Q:
        return attn.head(b, j).Q;
    case Stage::K:
        return attn.head(b, j).K;
    case Stage::V:
        return attn.head(b, j).V;
    case Stage::scores:
        return attn.head(b, j).scores;
    case Stage::scaled:
        return attn.head(b, j).scaled;
    case Stage::masked:
        return attn.head(b, j).masked;
    case Stage::weights:
        return attn.head(b, j).weights;
    case Stage::head_out:
        return attn.head(b, j).head_out;
    case Stage::concat:
        return attn.concat[bi];
    case Stage::mha:
        return attn.mha[bi];
    default:
        break;
    }
    assert(false && "not an attention-block stage");
    return attn.mha[bi];
}

const Mat& stage_matrix(const LayerTrace& layer, Stage stage, int b, int j)
{
    const auto bi = static_cast<size_t>(b);
    switch (stage)
    {
    case Stage::X:
        return layer.X[bi];
    case Stage::residual:
        return layer.residual[bi];
    case Stage::norm1:
        return layer.norm1[bi];
    case Stage::ffn:
        return layer.ffn[bi];
    case Stage::residual2:
        return layer.residual2[bi];
    case Stage::norm2:
        return layer.norm2[bi];
    default:
        return attention_stage_matrix(layer.attn, stage, b, j);
    }
}

StageDims stage_dims(const Config& config, Stage stage, int T_q, int T_k, bool cross)
{
    const StageInfo& info = stage_info(stage);
    const bool keys_side = stage == Stage::K || stage == Stage::V;
    StageDims d;
    d.row_symbol = info.rows;
    d.rows = T_q;
    if (cross)
    {
        d.row_symbol = keys_side ? "T_k" : "T_q";
        d.rows = keys_side ? T_k : T_q;
    }
    else if (keys_side)
        d.rows = T_k;
    d.col_symbol = info.cols;
    if (d.col_symbol == "T")
    {
        d.col_symbol = cross ? "T_k" : "T";
        d.cols = T_k;
    }
    else if (d.col_symbol == "d_model")
        d.cols = config.d_model;
    else if (d.col_symbol == "d_k")
        d.cols = config.resolved_d_k();
    else if (d.col_symbol == "d_v")
        d.cols = config.resolved_d_v();
    else if (d.col_symbol == "h·d_v")
        d.cols = config.n_heads * config.resolved_d_v();
    return d;
}

std::string stage_shape(const Trace& trace, Stage stage, bool cross)
{
    const int T_q = cross ? trace.cross.target.T : trace.T();
    const StageDims d = stage_dims(trace.config, stage, T_q, trace.T(), cross);
    return d.row_symbol + "×" + d.col_symbol + " = " + std::to_string(d.rows) + "×" + std::to_string(d.cols);
}

} // namespace attnlab
