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

// The FFN's hidden layer, the FFN and the masked-LM head's activation with a GELU, or nullptr for the ReLU
// (the table's own equations).
const char* gelu_equation(Stage stage, TraceActivation activation, bool pre_ln)
{
    if (activation == TraceActivation::Relu)
        return nullptr;
    const bool tanh_form = activation == TraceActivation::GeluTanh;
    switch (stage)
    {
    case Stage::ffn_hidden:
        if (tanh_form)
            return pre_ln ? "GELU(LN2(residual) W_1 + b_1), tanh form: 0.5 x (1 + tanh(√(2/π) (x + 0.044715 "
                            "x³)))"
                          : "GELU(norm1 W_1 + b_1), tanh form: 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))";
        return pre_ln ? "GELU(LN2(residual) W_1 + b_1), erf form: 0.5 x (1 + erf(x / √2))"
                      : "GELU(norm1 W_1 + b_1), erf form: 0.5 x (1 + erf(x / √2))";
    case Stage::ffn:
        if (tanh_form)
            return pre_ln ? "FFN(LN2(residual)) = GELU(ln2 W_1 + b_1) W_2 + b_2   (GELU's tanh form)"
                          : "FFN(x) = GELU(x W_1 + b_1) W_2 + b_2   (GELU's tanh form)";
        return pre_ln ? "FFN(LN2(residual)) = GELU(ln2 W_1 + b_1) W_2 + b_2   (GELU's erf form)"
                      : "FFN(x) = GELU(x W_1 + b_1) W_2 + b_2   (GELU's erf form)";
    case Stage::mlm_hidden:
        return tanh_form ? "GELU(mlm_pre), tanh form: 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))"
                         : "GELU(mlm_pre), erf form: 0.5 x (1 + erf(x / √2))";
    default:
        return nullptr;
    }
}

// Q, K, V and MultiHead with the attention's biases (never in cross-attention), or nullptr.
const char* bias_equation(Stage stage, bool pre_ln)
{
    switch (stage)
    {
    case Stage::Q:
        return pre_ln ? "Q_h = LN1(X) W_h^Q + b_h^Q" : "Q_h = X W_h^Q + b_h^Q";
    case Stage::K:
        return pre_ln ? "K_h = LN1(X) W_h^K + b_h^K" : "K_h = X W_h^K + b_h^K";
    case Stage::V:
        return pre_ln ? "V_h = LN1(X) W_h^V + b_h^V" : "V_h = X W_h^V + b_h^V";
    case Stage::mha:
        return pre_ln ? "MultiHead(LN1(X)) = Concat(head_1, …, head_h) W^O + b^O"
                      : "MultiHead(X) = Concat(head_1, …, head_h) W^O + b^O";
    default:
        return nullptr;
    }
}

// The logits of a tied or bias-free unembedding, or nullptr for the table's Z W_U + b_U.
const char* unembedding_equation(const Trace& trace)
{
    if (trace.tied_unembedding)
        return trace.unembedding_bias
                   ? "logits = Z Eᵀ + b: the token embedding E, tied, scores every token of the vocabulary"
                   : "logits = Z Eᵀ: the token embedding E, tied, scores every token of the vocabulary";
    if (!trace.unembedding_bias)
        return "logits = Z W_U: a score for every token of the vocabulary";
    return nullptr;
}

} // namespace

const char* stage_name(const Trace& trace, Stage stage)
{
    if (stage == Stage::probs && trace.config.mask != MaskKind::Causal)
        return "Token probabilities";
    return stage_info(stage).name;
}

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
    if (!cross && trace.attention_bias)
        if (const char* equation = bias_equation(stage, trace.pre_ln))
            return equation;
    if (!cross)
        if (const char* equation = gelu_equation(stage, trace.activation, trace.pre_ln))
            return equation;
    if (stage == Stage::logits)
        if (const char* equation = unembedding_equation(trace))
            return equation;
    if (stage == Stage::embed && !trace.token_types)
        return "E[tokens] + P: the token and position rows added";
    if (stage == Stage::embed_norm && !trace.token_types)
        return "LN_emb(E[tokens] + P): each row to mean 0, variance 1, then · γ + β; layer 1's X";
    if (stage == Stage::X && !cross && !trace.embed_norm.empty())
        return trace.pre_ln ? "X = LN_emb(embedding sum) in layer 1, else the previous layer's residual2"
                            : "X = LN_emb(embedding sum) in layer 1, else the previous layer's norm2";
    if (stage == Stage::probs && !trace.mlm_norm.empty())
        return "p = softmax(logits) along each row: p(token at i | the whole text), the fillers of a [MASK] "
               "at i";
    if (!cross && trace.pre_ln && info.pre_ln_equation != nullptr)
        return info.pre_ln_equation;
    if (stage == Stage::positional && trace.trained)
        return "P[0..T): one trained row per position (or the fixed sinusoids), the same for every sentence";
    if (stage == Stage::embedding && trace.trained)
        return "E[tokens]: one trained row of E (V×d_model) per token";
    return info.equation;
}

const char* stage_cell_formula(const Trace& trace, Stage stage)
{
    const bool gelu = trace.activation != TraceActivation::Relu;
    switch (stage)
    {
    case Stage::ffn_hidden:
        if (gelu)
            return "ffn_hidden[i, c] = GELU(x_i · W_1[:, c] + b_1[c]): hidden unit c of token i";
        break;
    case Stage::ffn:
        if (gelu)
            return "ffn = GELU(x W_1 + b_1) W_2 + b_2, row by row (x = the FFN's input)";
        break;
    case Stage::mlm_hidden:
        if (gelu)
            return "mlm_hidden[i, c] = GELU(mlm_pre[i, c])";
        return "mlm_hidden[i, c] = max(0, mlm_pre[i, c])";
    case Stage::mha:
        if (trace.attention_bias)
            return "mha[i, c] = concat_i · W^O[:, c] + b^O[c]";
        break;
    case Stage::logits:
        if (trace.tied_unembedding)
            return trace.unembedding_bias
                       ? "logits[i, v] = Z_i · E[v, :] + b[v]: row v of the token embedding"
                       : "logits[i, v] = Z_i · E[v, :]: row v of the token embedding";
        if (!trace.unembedding_bias)
            return "logits[i, v] = Z_i · W_U[:, v]";
        break;
    default:
        break;
    }
    return stage_info(stage).cell_formula;
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
    else if (d.col_symbol == "d_ff")
        d.cols = config.resolved_d_ff();
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
