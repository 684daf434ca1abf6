// The stage table and the accessors that let the UI, the export and the tests walk a Trace in order.
#include "trace.h"

#include <cassert>

namespace attnlab
{

const std::array<StageInfo, kStageCount>& stage_table()
{
    return kStageTable;
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
    const StageInfo& info = stage_info(stage);
    assert(info.attention_block && "not an attention-block stage");
    if (info.head_matrix != nullptr)
        return attn.head(b, j).*info.head_matrix;
    return (attn.*info.block_matrices)[static_cast<size_t>(b)];
}

const Mat& stage_matrix(const LayerTrace& layer, Stage stage, int b, int j)
{
    const StageInfo& info = stage_info(stage);
    if (info.layer_matrices != nullptr)
        return (layer.*info.layer_matrices)[static_cast<size_t>(b)];
    return attention_stage_matrix(layer.attn, stage, b, j);
}

const Mat* find_stage_matrix(const Trace& trace, Stage stage, int layer, int b, int j)
{
    const StageInfo& info = stage_info(stage);
    if (b < 0 || b >= trace.batch_size())
        return nullptr;
    const auto bi = static_cast<std::size_t>(b);
    const Mat* m = nullptr;
    if (info.shared_matrix != nullptr)
        m = &(trace.*info.shared_matrix);
    else if (info.model_matrices != nullptr)
        m = bi < (trace.*info.model_matrices).size() ? &(trace.*info.model_matrices)[bi] : nullptr;
    else if (layer >= 0 && layer < static_cast<int>(trace.layers.size()))
    {
        const LayerTrace& lt = trace.layers[static_cast<std::size_t>(layer)];
        if (info.layer_matrices != nullptr)
            m = bi < (lt.*info.layer_matrices).size() ? &(lt.*info.layer_matrices)[bi] : nullptr;
        else if (info.block_matrices != nullptr)
            m = bi < (lt.attn.*info.block_matrices).size() ? &(lt.attn.*info.block_matrices)[bi] : nullptr;
        else if (j >= 0 && j < lt.attn.n_heads &&
                 lt.attn.heads.size() == static_cast<std::size_t>(trace.batch_size() * lt.attn.n_heads))
            m = &(lt.attn.head(b, j).*info.head_matrix);
    }
    return m != nullptr && m->size() > 0 ? m : nullptr;
}

bool stage_present(const Trace& trace, Stage stage, int layer)
{
    return find_stage_matrix(trace, stage, layer, 0, 0) != nullptr;
}

namespace
{

// A layer's Add & Norm stages when the residual connection is off (Config::residual false), or nullptr.
const char* no_residual_equation(Stage stage, bool pre_ln)
{
    switch (stage)
    {
    case Stage::residual:
        return pre_ln ? "MultiHead(LN1(X))   (residual off: X not added back)"
                      : "MultiHead(X)   (residual off: X not added back)";
    case Stage::norm1:
        return "LayerNorm(MultiHead(X))   (residual off)";
    case Stage::residual2:
        return pre_ln ? "FFN(LN2(residual))   (residual off: the layer's output)"
                      : "FFN(norm1)   (residual off: norm1 not added back)";
    case Stage::norm2:
        return "LayerNorm(FFN(norm1))   (residual off)";
    default:
        return nullptr;
    }
}

} // namespace

const char* stage_equation(const Trace& trace, Stage stage, bool cross)
{
    const StageInfo& info = stage_info(stage);
    if (cross && info.cross_equation != nullptr)
        return info.cross_equation;
    if (!cross && !trace.config.residual)
        if (const char* equation = no_residual_equation(stage, trace.pre_ln))
            return equation;
    if (stage == Stage::positional && trace.config.positional == PositionalKind::None)
        return "P = 0: positional encoding off (X = embedding alone)";
    if (!cross && trace.pre_ln && info.pre_ln_equation != nullptr)
        return info.pre_ln_equation;
    if (stage == Stage::positional && trace.trained)
        return "P[0..T): one trained row per position (or the fixed sinusoids), the same for every sentence";
    if (stage == Stage::embedding && trace.trained)
        return "E[tokens]: one trained row of E (V×d_model) per token";
    return info.equation;
}

StageDims stage_dims(const Config& config, Stage stage, int T_q, int T_k, bool cross, int vocab)
{
    const StageInfo& info = stage_info(stage);
    const bool keys_side = info.rows_are_keys;
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
    else if (d.col_symbol == "V")
        d.cols = vocab;
    else if (d.col_symbol == "1")
        d.cols = 1;
    return d;
}

double stage_floats(const Config& config, Stage stage, int T_q, int T_k, bool cross)
{
    const StageDims d = stage_dims(config, stage, T_q, T_k, cross);
    const double matrices = stage_info(stage).per_head ? config.n_heads : 1;
    return matrices * static_cast<double>(d.rows) * static_cast<double>(d.cols);
}

std::string stage_shape(const Trace& trace, Stage stage, bool cross)
{
    const int T_q = cross ? trace.cross.target.T : trace.T();
    const StageDims d =
        stage_dims(trace.config, stage, T_q, trace.T(), cross, static_cast<int>(trace.vocabulary.size()));
    return d.row_symbol + "×" + d.col_symbol + " = " + std::to_string(d.rows) + "×" + std::to_string(d.cols);
}

} // namespace attnlab
