// The forward pass: embeddings, N post-LN encoder layers, optional cross-attention; every intermediate kept.
#include "engine.h"

#include "embedding.h"
#include "gemm.h"
#include "softmax.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

namespace attnlab
{

// [SECTION] Validation

double trace_floats(const Config& c, int B, int T, int T_target)
{
    // Every stage of the table, plus what a trace keeps besides them: the mask of each block, the token
    // embeddings and positional encoding and, for cross-attention, its target embedding, X_q and X_kv. Equal
    // to trace_float_count() of the trace a forward pass makes (a test holds it).
    const double d = c.d_model, Tq = T_target, Tk = T;
    double layer = Tk * Tk;
    double cross = Tq * Tk + 2.0 * Tq * d + Tk * d;
    for (const StageInfo& info : stage_table())
    {
        if (!engine_layer_stage(info))
            continue;
        layer += stage_floats(c, info.id, T, T, false);
        if (info.attention_block && T_target > 0)
            cross += stage_floats(c, info.id, T_target, T, true);
    }
    double total = B * (c.n_layers * layer + Tk * d) + Tk * d;
    if (T_target > 0)
        total += B * cross + Tq * d;
    return total;
}

double packed_weight_floats(const Config& c, bool cross)
{
    const auto packed = [](Eigen::Index k, Eigen::Index n)
    { return static_cast<double>(packed_operand_floats(k, n)); };
    const Eigen::Index d = c.d_model, d_k = c.resolved_d_k(), d_v = c.resolved_d_v(),
                       d_ff = c.resolved_d_ff();
    const double attention =
        c.n_heads * (2 * packed(d, d_k) + packed(d, d_v)) + packed(c.n_heads * d_v, d); // W_Q, W_K, W_V, W_O
    const double layer = attention + packed(d, d_ff) + packed(d_ff, d);                 // W_1, W_2
    return c.n_layers * layer + (cross ? attention : 0.0);
}

double weight_floats(const Config& c, bool cross)
{
    const double h = c.n_heads, d = c.d_model, d_k = c.resolved_d_k(), d_v = c.resolved_d_v();
    const double d_ff = c.resolved_d_ff();
    const double attention = h * d * (2 * d_k + d_v) + h * d_v * d; // W_Q, W_K, W_V, W_O
    const double layer = attention + 4 * d + d * d_ff + d_ff + d_ff * d + d;
    return c.n_layers * layer + (cross ? attention : 0.0) + packed_weight_floats(c, cross);
}

Status prepare_inputs(const Session& session, TokenBatch& source, TokenBatch& target)
{
    if (Status s = validate_config(session.config); !s)
        return s;
    for (const std::string* text : {&session.text, &session.target})
        if (const std::size_t at = invalid_utf8_offset(*text); at != std::string_view::npos)
            return Status::error(std::string(text == &session.text ? "the text" : "the target") +
                                 " is not valid UTF-8 (byte " + std::to_string(at) +
                                 "): save or paste it as UTF-8");
    source = tokenize_batch(session.text);
    if (source.batch_size() == 0)
        return Status::error("the text has no tokens: type a sentence (one sentence per line)");
    if (source.batch_size() > Limits::max_sentences)
        return Status::error("the text has " + std::to_string(source.batch_size()) + " sentences; at most " +
                             std::to_string(Limits::max_sentences) + " fit in a batch: remove some lines");
    if (source.T > Limits::max_tokens)
        return Status::error("the longest sentence has " + std::to_string(source.T) + " tokens; at most " +
                             std::to_string(Limits::max_tokens) + " are allowed: shorten it");
    target = tokenize_batch(session.target);
    if (target.batch_size() > 0)
    {
        if (target.batch_size() != 1 && target.batch_size() != source.batch_size())
            return Status::error("the target has " + std::to_string(target.batch_size()) +
                                 " sentences but the source has " + std::to_string(source.batch_size()) +
                                 ": give one target line for all, or one per source line");
        if (target.T > Limits::max_tokens)
            return Status::error("the longest target sentence has " + std::to_string(target.T) +
                                 " tokens; at most " + std::to_string(Limits::max_tokens) + " are allowed");
        if (target.batch_size() == 1 && source.batch_size() > 1)
        {
            // One target line serves every source sentence.
            target.tokens.resize(static_cast<size_t>(source.batch_size()), target.tokens[0]);
            target.lengths.resize(static_cast<size_t>(source.batch_size()), target.lengths[0]);
        }
    }
    const double floats = trace_floats(session.config, source.batch_size(), source.T, target.T) +
                          weight_floats(session.config, target.T > 0);
    if (floats > Limits::max_trace_floats)
        return Status::error("this session would keep " +
                             std::to_string(static_cast<long long>(floats * 4 / 1e6)) +
                             " MB of intermediates and weights (limit " +
                             std::to_string(static_cast<long long>(Limits::max_trace_floats * 4 / 1e6)) +
                             " MB): use fewer tokens, sentences, heads, layers or a smaller d_model");
    return Status::ok();
}

Status validate_session(const Session& session)
{
    TokenBatch source, target;
    return prepare_inputs(session, source, target);
}

// [SECTION] Attention

void build_mask(int T_q, int T_k, int key_length, bool causal, Mat& mask)
{
    const float neg_inf = -std::numeric_limits<float>::infinity();
    mask.resize(T_q, T_k);
    for (int i = 0; i < T_q; ++i)
        for (int j = 0; j < T_k; ++j)
            mask(i, j) = (j >= key_length || (causal && j > i)) ? neg_inf : 0.0f;
}

float score_scale(const Config& config)
{
    return config.scale ? 1.0f / std::sqrt(static_cast<float>(config.resolved_d_k())) : 1.0f;
}

namespace
{

// Head j's packed copy in panels (null when there is none).
const PackedOperand* head_panel(const std::vector<PackedOperand>& panels, int j)
{
    return static_cast<size_t>(j) < panels.size() ? &panels[static_cast<size_t>(j)] : nullptr;
}

} // namespace

bool attention_forward(const Mat& X_q, const Mat& X_kv, const AttentionWeights& w, float scale,
                       float temperature, int b, AttentionTrace& attn, const AttentionPanels* panels,
                       const ProductEpilogue& output)
{
    bool scores_finite = true;
    const int h = attn.n_heads;
    const Eigen::Index T_q = X_q.rows(), T_k = X_kv.rows();
    const Eigen::Index d_v = w.W_V[0].cols();
    const float inv_temperature = 1.0f / temperature;
    const Mat& mask = attn.mask[static_cast<size_t>(b)];
    // A mask of zeros (no padding, no causal mask) is not read again per head and row: attention_row adds
    // +0.0f instead, the same bits.
    const float* mask_rows = mask_is_zero(mask) ? nullptr : mask.data();
    Mat& concat = attn.concat[static_cast<size_t>(b)];
    concat.resize(T_q, h * d_v);
    for (int j = 0; j < h; ++j)
    {
        HeadTrace& head = attn.head(b, j);
        const auto hj = static_cast<size_t>(j);
        gemm(X_q, w.W_Q[hj], panels ? head_panel(panels->W_Q, j) : nullptr, head.Q);  // Q_h = X W_h^Q
        gemm(X_kv, w.W_K[hj], panels ? head_panel(panels->W_K, j) : nullptr, head.K); // K_h = X W_h^K
        gemm(X_kv, w.W_V[hj], panels ? head_panel(panels->W_V, j) : nullptr, head.V); // V_h = X W_h^V
        gemm_bt(head.Q, head.K, head.scores);                                         // Q_h K_hᵀ
        head.scaled.resize(T_q, T_k);
        head.masked.resize(T_q, T_k);
        head.weights.resize(T_q, T_k);
        head.fully_masked.resize(static_cast<size_t>(T_q));
        // One pass per row while it is in cache: / √d_k, + M, softmax(masked / τ), and the check of the
        // scores.
        for (Eigen::Index i = 0; i < T_q; ++i)
        {
            const Eigen::Index at = i * T_k;
            bool row_finite = true;
            const bool ok = attention_row(head.scores.data() + at, mask_rows ? mask_rows + at : nullptr, T_k,
                                          scale, inv_temperature, head.scaled.data() + at,
                                          head.masked.data() + at, head.weights.data() + at, &row_finite);
            head.fully_masked[static_cast<size_t>(i)] = ok ? 0 : 1;
            scores_finite = scores_finite && row_finite;
        }
        attention_rows_done();
        gemm(head.weights, head.V, head.head_out);       // A_h V_h
        concat.middleCols(j * d_v, d_v) = head.head_out; // Concat(head_1, ..., head_h)
    }
    // Concat(head_1, ..., head_h) W^O
    gemm(concat, w.W_O, panels ? &panels->W_O : nullptr, attn.mha[static_cast<size_t>(b)], output);
    return scores_finite;
}

// [SECTION] Forward pass

bool encoder_layer_forward(const Config& c, const LayerWeights& lw, int b, int key_length, LayerTrace& layer,
                           const LayerPanels* panels)
{
    const auto bi = static_cast<size_t>(b);
    const Mat& X = layer.X[bi];
    const int T = static_cast<int>(X.rows());
    build_mask(T, T, key_length, c.mask == MaskKind::Causal, layer.attn.mask[bi]);
    // The biases, the ReLU and the residual adds go with the products (gemm.h's ProductEpilogue: in the
    // kernel's store on AVX-512 and AVX2, the same bits as passes after it).
    // X + MultiHead(X); without the residual connection the sub-layer's output alone
    ProductEpilogue plus_x;
    if (c.residual)
        plus_x = ProductEpilogue{nullptr, false, &X, &layer.residual[bi]};
    const bool scores_finite = attention_forward(X, X, lw.attn, score_scale(c), c.temperature, b, layer.attn,
                                                 panels ? &panels->attn : nullptr, plus_x);
    if (!c.residual)
        layer.residual[bi] = layer.attn.mha[bi];
    layer_norm_rows(layer.residual[bi], lw.gamma_1, lw.beta_1, layer.norm1[bi]);
    // FFN(x) = max(0, x W_1 + b_1) W_2 + b_2
    Mat& hidden = layer.ffn_hidden[bi];
    gemm(layer.norm1[bi], lw.W_1, panels ? &panels->W_1 : nullptr, hidden, ProductEpilogue{&lw.b_1, true});
    // norm1 + FFN(norm1), or FFN(norm1) alone
    ProductEpilogue plus_b2{&lw.b_2, false};
    if (c.residual)
        plus_b2 = ProductEpilogue{&lw.b_2, false, &layer.norm1[bi], &layer.residual2[bi]};
    gemm(hidden, lw.W_2, panels ? &panels->W_2 : nullptr, layer.ffn[bi], plus_b2);
    if (!c.residual)
        layer.residual2[bi] = layer.ffn[bi];
    layer_norm_rows(layer.residual2[bi], lw.gamma_2, lw.beta_2, layer.norm2[bi]);
    return scores_finite;
}

void size_attention(AttentionTrace& attn, int B, int h)
{
    attn.n_heads = h;
    attn.heads.resize(static_cast<size_t>(B) * static_cast<size_t>(h));
    attn.mask.resize(static_cast<size_t>(B));
    attn.concat.resize(static_cast<size_t>(B));
    attn.mha.resize(static_cast<size_t>(B));
}

void size_layer(LayerTrace& layer, int B, int h)
{
    for (std::vector<Mat>* v : {&layer.X, &layer.residual, &layer.norm1, &layer.ffn_hidden, &layer.ffn,
                                &layer.residual2, &layer.norm2})
        v->resize(static_cast<size_t>(B));
    size_attention(layer.attn, B, h);
}

namespace
{

// Token embeddings for a batch, recomputed row by row: only the rows whose token changed (or all of them
// when the seed or d_model changed), so typing a word costs one row, not T.
void embed_batch(const Config& c, const TokenBatch& batch, const TokenBatch& previous,
                 const Config& previous_config, std::vector<Mat>& embedding)
{
    const bool same_space = previous_config.seed == c.seed && previous_config.d_model == c.d_model;
    embedding.resize(static_cast<size_t>(batch.batch_size()));
    for (int b = 0; b < batch.batch_size(); ++b)
    {
        const auto bi = static_cast<size_t>(b);
        Mat& e = embedding[bi];
        const std::vector<std::string>& tokens = batch.tokens[bi];
        const bool reuse = same_space && bi < previous.tokens.size() && e.rows() == batch.T &&
                           e.cols() == c.d_model && previous.tokens[bi].size() == tokens.size();
        if (!reuse)
        {
            embed_tokens(tokens, c.d_model, c.seed, e);
            continue;
        }
        for (size_t t = 0; t < tokens.size(); ++t)
            if (previous.tokens[bi][t] != tokens[t])
                embed_token(tokens[t], c.d_model, c.seed, e.row(static_cast<Eigen::Index>(t)));
    }
}

// Without a target the cross-attention caches go stale (the seed may change meanwhile): forget their tokens.
void cross_tokens_forget(CrossTrace& cross)
{
    cross.target.tokens.clear();
    cross.target.lengths.clear();
    cross.target.T = 0;
    cross.positional.resize(0, 0); // d_model or the kind may change before a target comes back
}

// Whether every entry is finite, from the bits: an exponent of all ones (infinity or NaN) plus one carries
// into the sign bit. Integer operations only, which the compiler vectorises: Eigen's allFinite took 1.9 % of
// a layer at T = 128 (perf) for two matrices of T x d_model. Not inlined, so that a profile names it
// (tests/bench/profile_forward.py).
[[gnu::noinline]] bool all_finite(const std::vector<Mat>& mats)
{
    for (const Mat& m : mats)
    {
        const float* p = m.data();
        const Eigen::Index n = m.size();
        std::uint32_t any_not_finite = 0;
        for (Eigen::Index i = 0; i < n; ++i)
        {
            std::uint32_t bits;
            std::memcpy(&bits, p + i, sizeof bits);
            any_not_finite |= (bits & 0x7f800000u) + 0x00800000u;
        }
        if (any_not_finite & 0x80000000u)
            return false;
    }
    return true;
}

} // namespace

Status forward(const Config& c, const TokenBatch& source, const TokenBatch& target,
               const ModelWeights& weights, Trace& trace, const WeightPanels* panels)
{
    const int B = source.batch_size(), T = source.T, h = c.n_heads;

    // Token embeddings (cached per sentence) and the positional encoding (cached per T, d_model, kind).
    embed_batch(c, source, trace.tokens, trace.config, trace.embedding);
    const bool pe_unchanged = !trace.empty() && trace.config.positional == c.positional &&
                              trace.positional.rows() == T && trace.positional.cols() == c.d_model;
    if (!pe_unchanged)
        positional_encoding(c.positional, T, c.d_model, trace.positional);
    if (trace.tokens.tokens != source.tokens || trace.tokens.lengths != source.lengths ||
        trace.tokens.T != source.T)
        trace.tokens = source;
    // The caches above now hold what this config asks for; record it before anything can fail.
    const Config previous = trace.config;
    trace.config = c;
    trace.d_k = c.resolved_d_k();
    trace.d_v = c.resolved_d_v();
    trace.d_ff = c.resolved_d_ff();

    trace.layers.resize(static_cast<size_t>(c.n_layers));
    for (int l = 0; l < c.n_layers; ++l)
    {
        LayerTrace& layer = trace.layers[static_cast<size_t>(l)];
        const LayerWeights& lw = weights.layers[static_cast<size_t>(l)];
        // Every head's scores are finite (attention_row checks each as it passes): scaled and masked follow
        // them (masked adds −∞ by design), and with finite scores the weights are too. An overflow in V or
        // head_out reaches mha, which is checked below.
        bool scores_finite = true;
        const LayerPanels* lp = panels && static_cast<size_t>(l) < panels->layers.size()
                                    ? &panels->layers[static_cast<size_t>(l)]
                                    : nullptr;
        size_layer(layer, B, h);
        for (int b = 0; b < B; ++b)
        {
            const auto bi = static_cast<size_t>(b);
            if (l == 0)
                layer.X[bi] = trace.embedding[bi] + trace.positional; // X = Embedding + PE
            else
                layer.X[bi] = trace.layers[static_cast<size_t>(l - 1)].norm2[bi];
            scores_finite = encoder_layer_forward(c, lw, b, source.lengths[bi], layer, lp) && scores_finite;
        }
        if (!all_finite(layer.norm2) || !all_finite(layer.attn.mha) || !scores_finite)
            return Status::error("layer " + std::to_string(l + 1) +
                                 " produced a NaN or infinite value: the weights are too large for float; "
                                 "scale them down or use seeded weights");
    }

    trace.has_cross = target.batch_size() > 0;
    if (trace.has_cross)
    {
        bool scores_finite = true;
        CrossTrace& cross = trace.cross;
        const int T_q = target.T;
        embed_batch(c, target, cross.target, previous, cross.embedding);
        if (!pe_unchanged || cross.positional.rows() != T_q || cross.positional.cols() != c.d_model)
            positional_encoding(c.positional, T_q, c.d_model, cross.positional);
        if (cross.target.tokens != target.tokens || cross.target.lengths != target.lengths)
            cross.target = target;
        cross.X_q.resize(static_cast<size_t>(B));
        cross.X_kv.resize(static_cast<size_t>(B));
        size_attention(cross.attn, B, h);
        for (int b = 0; b < B; ++b)
        {
            const auto bi = static_cast<size_t>(b);
            cross.X_q[bi] = cross.embedding[bi] + cross.positional; // target X = Embedding + PE
            cross.X_kv[bi] = trace.layers.back().norm2[bi];         // the encoder's output
            // Queries may look at every real source token (no look-ahead mask across the two texts).
            build_mask(T_q, T, source.lengths[bi], false, cross.attn.mask[bi]);
            scores_finite =
                attention_forward(cross.X_q[bi], cross.X_kv[bi], weights.cross, score_scale(c), c.temperature,
                                  b, cross.attn, panels ? &panels->cross : nullptr) &&
                scores_finite;
        }
        if (!all_finite(cross.attn.mha) || !scores_finite)
            return Status::error(
                "cross-attention produced a NaN or infinite value: the weights are too large");
    }
    else
    {
        cross_tokens_forget(trace.cross);
    }
    return Status::ok();
}

// [SECTION] Engine

Status Engine::run(const Session& session)
{
    if (!tokens_valid_ || session.text != text_ || session.target != target_text_)
    {
        TokenBatch source, target;
        if (Status s = prepare_inputs(session, source, target); !s)
            return s;
        source_ = std::move(source);
        target_ = std::move(target);
        text_ = session.text;
        target_text_ = session.target;
        tokens_valid_ = true;
    }
    else if (Status s = validate_config(session.config); !s)
    {
        return s;
    }
    else if (double floats = trace_floats(session.config, source_.batch_size(), source_.T, target_.T) +
                             weight_floats(session.config, target_.T > 0);
             floats > Limits::max_trace_floats)
    {
        // Same texts, new sizes: re-run the full check for its message.
        TokenBatch source, target;
        return prepare_inputs(session, source, target);
    }

    const Config& c = session.config;
    if (imported_)
    {
        if (Status s = check_weights(*next_weights_, c); !s)
            return Status::error("the imported weights do not fit this model: " + s.message());
    }
    else
    {
        const Config& w = weights_config_;
        const bool same = weights_valid_ && w.seed == c.seed && w.d_model == c.d_model &&
                          w.n_heads == c.n_heads && w.resolved_d_k() == c.resolved_d_k() &&
                          w.resolved_d_v() == c.resolved_d_v() && w.resolved_d_ff() == c.resolved_d_ff() &&
                          w.n_layers == c.n_layers;
        if (!same)
        {
            next_weights_ = std::make_shared<const ModelWeights>(init_weights(c));
            weights_config_ = c;
            weights_valid_ = true;
        }
    }

    // The weights stay the same between most runs: their right operands are packed once, here.
    const bool cross = target_.T > 0;
    if (panels_from_ != next_weights_ || panels_cross_ != cross)
    {
        pack_weights(*next_weights_, cross, panels_);
        panels_from_ = next_weights_;
        panels_cross_ = cross;
    }
    if (Status s = forward(c, source_, target_, *next_weights_, *scratch_, &panels_); !s)
        return s;
    std::swap(current_, scratch_);
    if (weights_ != next_weights_ || generation_ == 0)
        ++weights_generation_;
    weights_ = next_weights_; // the shown trace and its weights change together
    ++generation_;
    return Status::ok();
}

void Engine::set_imported_weights(ModelWeights weights)
{
    next_weights_ = std::make_shared<const ModelWeights>(std::move(weights));
    imported_ = true;
    weights_valid_ = false;
}

void Engine::clear_imported_weights()
{
    if (imported_)
    {
        imported_ = false;
        weights_valid_ = false;
    }
}

void Engine::share_imported_weights(std::shared_ptr<const ModelWeights> weights)
{
    if (!weights)
    {
        clear_imported_weights();
        return;
    }
    next_weights_ = std::move(weights);
    imported_ = true;
    weights_valid_ = false;
}

void Engine::take_trace(Engine& other)
{
    std::swap(current_, other.current_);
    if (weights_ != other.weights_) // new weights: pictures of them are made again (weights_generation)
        ++weights_generation_;
    weights_ = other.weights_;
    ++generation_;
}

} // namespace attnlab
