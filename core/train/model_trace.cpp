// Copies a trained model's intermediates into the engine's Trace layout (see model_trace.h).
#include "model_trace.h"

#include <initializer_list>
#include <limits>

namespace attnlab::train
{

namespace
{

// Sizes v to n matrices and copies src into entry b (Eigen reuses the storage when the shape is the same).
template <typename Block> void put(std::vector<Mat>& v, int n, int b, const Block& src)
{
    v.resize(static_cast<std::size_t>(n));
    v[static_cast<std::size_t>(b)] = src;
}

// put() of a whole activation matrix: with one sentence (n == 1) and `own` set, src's storage moves into v
// (nothing copied, src left empty); else its rows of sentence b are copied.
void put_rows(std::vector<Mat>& v, int n, int b, int T, Mat& src, bool own)
{
    if (own && n == 1 && src.rows() == T)
    {
        v.resize(1);
        v[0] = std::move(src);
        src.resize(0, 0);
        return;
    }
    put(v, n, b, sentence_rows(src, b, T));
}

// Copies one layer's activations into lt; with own set, la's storage moves where a stage is the whole
// matrix, and la is emptied after (the caller's activations are used up).
void fill_layer(const ModelConfig& config, LayerActsT<float>& la, const LayerGradsT<float>* lg, int B, int T,
                LayerTrace& lt, bool own)
{
    const int h = config.n_heads, d_k = config.d_k();
    const bool pre = config.norm == NormPlacement::Pre, ffn = config.has_ffn();
    AttentionTrace& attn = lt.attn;
    attn.n_heads = h;
    attn.heads.resize(static_cast<std::size_t>(B * h));
    // Stages a model does not have stay empty: the pipeline leaves them out.
    for (std::vector<Mat>* v :
         {&lt.ln1, &lt.ln2, &lt.norm1, &lt.norm2, &lt.ffn, &lt.ffn_hidden, &lt.residual2})
        v->clear();
    Mat mask = Mat::Zero(T, T);
    if (config.causal)
        for (int i = 0; i < T; ++i)
            for (int j = i + 1; j < T; ++j)
                mask(i, j) = -std::numeric_limits<float>::infinity();
    for (int b = 0; b < B; ++b)
    {
        put_rows(lt.X, B, b, T, la.X, own);
        put_rows(pre ? lt.ln1 : lt.norm1, B, b, T, la.ln1, own);
        for (int j = 0; j < h; ++j)
        {
            HeadTrace& hd = attn.head(b, j);
            hd.Q = head_cols(sentence_rows(la.Q, b, T), j, d_k);
            hd.K = head_cols(sentence_rows(la.K, b, T), j, d_k);
            hd.V = head_cols(sentence_rows(la.V, b, T), j, d_k);
            hd.scores = attention_block(la.scores, b, j, h, T);
            hd.scaled = attention_block(la.scaled, b, j, h, T);
            hd.masked = attention_block(la.masked, b, j, h, T);
            hd.weights = attention_block(la.weights, b, j, h, T);
            hd.head_out = head_cols(sentence_rows(la.concat, b, T), j, d_k);
            if (lg != nullptr)
                hd.dweights = attention_block(lg->dweights, b, j, h, T);
            else
                hd.dweights.resize(0, 0);
            hd.fully_masked.assign(static_cast<std::size_t>(T), 0); // causal or none: every row sees a key
        }
        put(attn.mask, B, b, mask);
        put_rows(attn.concat, B, b, T, la.concat, own);
        put_rows(attn.mha, B, b, T, la.mha, own);
        put_rows(lt.residual, B, b, T, la.residual, own);
        if (ffn)
        {
            put_rows(pre ? lt.ln2 : lt.norm2, B, b, T, la.ln2, own);
            put_rows(lt.ffn_hidden, B, b, T, la.ffn_hidden, own);
            put_rows(lt.ffn, B, b, T, la.ffn, own);
            put_rows(lt.residual2, B, b, T, la.residual2, own);
        }
    }
    if (own)
        la = LayerActsT<float>{};
}

} // namespace

Config engine_config(const ModelConfig& config)
{
    Config c;
    c.d_model = config.d_model;
    c.n_heads = config.n_heads;
    c.d_ff = config.resolved_d_ff();
    c.n_layers = config.n_layers;
    c.mask = config.causal ? MaskKind::Causal : MaskKind::None;
    c.positional = config.positions == PositionKind::None ? PositionalKind::None : PositionalKind::Sinusoidal;
    c.residual = config.residual;
    c.temperature = 1.0f;
    c.scale = true;
    c.seed = config.seed;
    return c;
}

namespace
{

// fill_trace and take_trace: with own set, acts is used up (see put_rows); else it is only read.
void fill_trace_from(const ModelConfig& config, const ParamsT<float>& params, const Batch& batch,
                     Activations& acts, const ActGrads* grads, const std::vector<std::string>& vocabulary,
                     Trace& trace, bool own)
{
    const int B = batch.B, T = batch.T;
    trace.config = engine_config(config);
    trace.d_k = config.d_k();
    trace.d_v = config.d_v();
    trace.d_ff = config.has_ffn() ? config.resolved_d_ff() : 0;
    trace.trained = true;
    trace.pre_ln = config.norm == NormPlacement::Pre;
    trace.vocabulary = vocabulary;
    trace.has_cross = false;
    trace.activation = config.activation == Activation::GeluTanh  ? TraceActivation::GeluTanh
                       : config.activation == Activation::GeluErf ? TraceActivation::GeluErf
                                                                  : TraceActivation::Relu;
    trace.attention_bias = config.attention_bias;
    trace.tied_unembedding = config.tied_unembedding;
    trace.unembedding_bias = config.unembedding_bias;
    trace.token_types = config.token_types > 0;
    trace.layer_norm_eps = config.layer_norm_eps;

    trace.tokens.T = T;
    trace.tokens.tokens.resize(static_cast<std::size_t>(B));
    trace.tokens.lengths.assign(static_cast<std::size_t>(B), T);
    for (int b = 0; b < B; ++b)
    {
        auto& row = trace.tokens.tokens[static_cast<std::size_t>(b)];
        row.resize(static_cast<std::size_t>(T));
        for (int t = 0; t < T; ++t)
        {
            const int id = batch.tokens[static_cast<std::size_t>(b * T + t)];
            row[static_cast<std::size_t>(t)] = id >= 0 && id < static_cast<int>(vocabulary.size())
                                                   ? vocabulary[static_cast<std::size_t>(id)]
                                                   : "#" + std::to_string(id);
        }
    }

    trace.positional = params.P.topRows(T);
    trace.layers.resize(static_cast<std::size_t>(config.n_layers));
    for (int l = 0; l < config.n_layers; ++l)
        fill_layer(config, acts.layers[static_cast<std::size_t>(l)],
                   grads != nullptr ? &grads->layers[static_cast<std::size_t>(l)] : nullptr, B, T,
                   trace.layers[static_cast<std::size_t>(l)], own);

    bool has_targets = false; // a masked-LM run has none: then no loss stage
    for (std::size_t i = 0; i < batch.loss_mask.size(); ++i)
        has_targets = has_targets || batch.loss_mask[i] != 0;
    // Stages a model does not have stay empty: the pipeline leaves them out (the others keep their buffers).
    const auto keep_if = [](bool has, std::initializer_list<std::vector<Mat>*> stages)
    {
        for (std::vector<Mat>* v : stages)
            if (!has)
                v->clear();
    };
    keep_if(config.has_final_norm(), {&trace.lnf});
    keep_if(config.embedding_norm, {&trace.embed, &trace.embed_norm});
    keep_if(config.mlm_head, {&trace.mlm_pre, &trace.mlm_hidden, &trace.mlm_norm});
    keep_if(has_targets, {&trace.loss, &trace.loss_uncounted});
    for (int b = 0; b < B; ++b)
    {
        // The token lookup: row t is E's row of token t (X of layer 0 adds the positions to it).
        trace.embedding.resize(static_cast<std::size_t>(B));
        Mat& e = trace.embedding[static_cast<std::size_t>(b)];
        e.resize(T, config.d_model);
        for (int t = 0; t < T; ++t)
            e.row(t) = params.E.row(batch.tokens[static_cast<std::size_t>(b * T + t)]);
        if (config.embedding_norm) // layer 0's X is LN_emb(embed)
        {
            put_rows(trace.embed, B, b, T, acts.embed, own);
            put(trace.embed_norm, B, b, trace.layers.front().X[static_cast<std::size_t>(b)]);
        }
        if (config.has_final_norm())
            put_rows(trace.lnf, B, b, T, acts.lnf, own);
        if (config.mlm_head)
        {
            put_rows(trace.mlm_pre, B, b, T, acts.mlm_pre, own);
            put_rows(trace.mlm_hidden, B, b, T, acts.mlm_hidden, own);
            put_rows(trace.mlm_norm, B, b, T, acts.mlm_norm, own);
        }
        put_rows(trace.logits, B, b, T, acts.logits, own);
        put_rows(trace.probs, B, b, T, acts.probs, own);
        if (!has_targets)
            continue;
        Mat loss(T, 1), uncounted(T, 1);
        for (int t = 0; t < T; ++t)
        {
            const auto i = static_cast<std::size_t>(b * T + t);
            const bool counted = batch.loss_mask[i] != 0;
            loss(t, 0) = counted ? acts.loss(static_cast<Eigen::Index>(i)) : 0.0f;
            uncounted(t, 0) = counted ? 0.0f : -std::numeric_limits<float>::infinity();
        }
        put(trace.loss, B, b, loss);
        put(trace.loss_uncounted, B, b, uncounted);
    }
}

} // namespace

void fill_trace(const ModelConfig& config, const ParamsT<float>& params, const Batch& batch,
                const Activations& acts, const ActGrads* grads, const std::vector<std::string>& vocabulary,
                Trace& trace)
{
    // own == false: acts is only read, so casting its const away changes nothing.
    fill_trace_from(config, params, batch, const_cast<Activations&>(acts), grads, vocabulary, trace, false);
}

void take_trace(const ModelConfig& config, const ParamsT<float>& params, const Batch& batch,
                Activations& acts, const std::vector<std::string>& vocabulary, Trace& trace)
{
    fill_trace_from(config, params, batch, acts, nullptr, vocabulary, trace, true);
    acts = Activations{};
}

void to_model_weights(const ModelConfig& config, const ParamsT<float>& params, ModelWeights& weights)
{
    weights.layers.resize(static_cast<std::size_t>(config.n_layers));
    weights.cross = AttentionWeights{};
    for (int l = 0; l < config.n_layers; ++l)
        to_layer_weights(config, params, l, weights.layers[static_cast<std::size_t>(l)]);
}

void to_layer_weights(const ModelConfig& config, const ParamsT<float>& params, int layer, LayerWeights& w)
{
    const int h = config.n_heads, d_k = config.d_k();
    const LayerParamsT<float>& p = params.layers[static_cast<std::size_t>(layer)];
    w.attn.W_Q.resize(static_cast<std::size_t>(h));
    w.attn.W_K.resize(static_cast<std::size_t>(h));
    w.attn.W_V.resize(static_cast<std::size_t>(h));
    for (int j = 0; j < h; ++j)
    {
        w.attn.W_Q[static_cast<std::size_t>(j)] = head_cols(p.W_Q, j, d_k);
        w.attn.W_K[static_cast<std::size_t>(j)] = head_cols(p.W_K, j, d_k);
        w.attn.W_V[static_cast<std::size_t>(j)] = head_cols(p.W_V, j, d_k);
    }
    w.attn.W_O = p.W_O;
    w.gamma_1 = p.ln1_gamma;
    w.beta_1 = p.ln1_beta;
    if (!config.has_ffn())
    {
        w.W_1.resize(0, 0);
        w.W_2.resize(0, 0);
        w.b_1.resize(0);
        w.b_2.resize(0);
        w.gamma_2.resize(0);
        w.beta_2.resize(0);
        return;
    }
    w.W_1 = p.W_1;
    w.b_1 = p.b_1;
    w.W_2 = p.W_2;
    w.b_2 = p.b_2;
    w.gamma_2 = p.ln2_gamma;
    w.beta_2 = p.ln2_beta;
}

} // namespace attnlab::train
