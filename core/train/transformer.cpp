// Forward and backward pass of the training model, in float (training) and double (the gradient check).
#include "transformer.h"

#include "products.h"

#include "core/cpu.h"
#include "core/kernels/kernels.h"
#include "core/softmax.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace attnlab::train
{

namespace
{

using Index = Eigen::Index;

// [SECTION] Products: products.h's kernels in float (no heap call once warm), Eigen in double

void mm(const MatT<float>& A, const MatT<float>& B, MatT<float>& C) // C = A B
{
    product(A, B, C);
}
void mm(const MatT<double>& A, const MatT<double>& B, MatT<double>& C)
{
    C.noalias() = A * B;
}
void mm_bt(const MatT<float>& A, const MatT<float>& B, MatT<float>& C) // C = A Bᵀ
{
    product_bt(A, B, C);
}
void mm_bt(const MatT<double>& A, const MatT<double>& B, MatT<double>& C)
{
    C.noalias() = A * B.transpose();
}
void mm_bt_add(const MatT<float>& A, const MatT<float>& B, MatT<float>& C) // C += A Bᵀ
{
    product_bt(A, B, C, true);
}
void mm_bt_add(const MatT<double>& A, const MatT<double>& B, MatT<double>& C)
{
    C.noalias() += A * B.transpose();
}
void mm_at(const MatT<float>& A, const MatT<float>& B, MatT<float>& C) // C = Aᵀ B
{
    product_at(A, B, C);
}
void mm_at(const MatT<double>& A, const MatT<double>& B, MatT<double>& C)
{
    C.noalias() = A.transpose() * B;
}

template <typename S> void shape(MatT<S>& m, Index rows, Index cols)
{
    if (m.rows() != rows || m.cols() != cols)
        m.setZero(rows, cols);
}
template <typename S> void shape(ColT<S>& v, Index rows)
{
    if (v.rows() != rows)
        v.setZero(rows);
}

// db = Σ_rows dy, row by row so the sum runs along contiguous memory in a fixed order.
template <typename S> void column_sums(const MatT<S>& dy, MatT<S>& db)
{
    db.setZero();
    for (Index i = 0; i < dy.rows(); ++i)
        db += dy.row(i);
}

// y = softmax(x) over n entries; -inf entries get exactly 0; a row of only -inf gives zeros. y may alias x.
// The rows are short (the keys of one query, the vocabulary) and there are tens of thousands a step: with
// AVX2 the exponentials run 8 at a time, the last ones masked, instead of through the scalar expf.
void softmax(const float* x, Index n, float* y)
{
    if (const kernels::TrainKernels* K = active_kernels())
        K->softmax_row(x, n, 1.0f, y);
    else
        softmax_row(x, n, 1.0f, y);
}
void softmax(const double* x, Index n, double* y)
{
    double max = -std::numeric_limits<double>::infinity();
    for (Index j = 0; j < n; ++j)
        max = std::max(max, x[j]);
    if (!(max > -std::numeric_limits<double>::infinity()))
    {
        std::fill(y, y + n, 0.0);
        return;
    }
    double sum = 0;
    for (Index j = 0; j < n; ++j)
    {
        y[j] = std::exp(x[j] - max); // exp(-inf) = 0
        sum += y[j];
    }
    for (Index j = 0; j < n; ++j)
        y[j] /= sum;
}

// [SECTION] LayerNorm: y = (x − mean) / √(var + eps) · γ + β along each row

template <typename S>
void layer_norm(const MatT<S>& x, const MatT<S>& gamma, const MatT<S>& beta, MatT<S>& y, ColT<S>& mean,
                ColT<S>& rstd, float epsilon)
{
    const S eps = static_cast<S>(epsilon);
    for (Index i = 0; i < x.rows(); ++i)
    {
        const S m = x.row(i).mean();
        const S var = (x.row(i).array() - m).square().mean();
        const S r = S(1) / std::sqrt(var + eps);
        mean(i) = m;
        rstd(i) = r;
        y.row(i).array() = (x.row(i).array() - m) * r * gamma.array() + beta.array();
    }
}

// With x̂ = (x − mean)·r and g = dy ∘ γ: dγ = Σ dy ∘ x̂, dβ = Σ dy, and dx += r (g − mean(g) − x̂ mean(g ∘ x̂))
// (the two row means). dgamma and dbeta are overwritten, dx is added to.
template <typename S>
void layer_norm_backward(const MatT<S>& dy, const MatT<S>& x, const ColT<S>& mean, const ColT<S>& rstd,
                         const MatT<S>& gamma, MatT<S>& dx, MatT<S>& dgamma, MatT<S>& dbeta)
{
    dgamma.setZero();
    dbeta.setZero();
    const Index n = x.cols();
    for (Index i = 0; i < x.rows(); ++i)
    {
        const S m = mean(i), r = rstd(i);
        const auto xhat = (x.row(i).array() - m) * r;
        const auto g = dy.row(i).array() * gamma.array();
        dgamma.array() += dy.row(i).array() * xhat;
        dbeta += dy.row(i);
        const S mean_g = g.sum() / static_cast<S>(n);
        const S mean_gx = (g * xhat).sum() / static_cast<S>(n);
        dx.row(i).array() += r * (g - mean_g - xhat * mean_gx);
    }
}

// The float rows: the active set's kernels (8 lanes at a time, kernels/avx2_products.cpp), else the template.
void layer_norm(const MatT<float>& x, const MatT<float>& gamma, const MatT<float>& beta, MatT<float>& y,
                ColT<float>& mean, ColT<float>& rstd, float epsilon)
{
    if (const kernels::TrainKernels* K = active_kernels())
        K->layer_norm_rows(x.data(), x.rows(), x.cols(), gamma.data(), beta.data(), y.data(), mean.data(),
                           rstd.data(), epsilon);
    else
        layer_norm<float>(x, gamma, beta, y, mean, rstd, epsilon);
}

void layer_norm_backward(const MatT<float>& dy, const MatT<float>& x, const ColT<float>& mean,
                         const ColT<float>& rstd, const MatT<float>& gamma, MatT<float>& dx,
                         MatT<float>& dgamma, MatT<float>& dbeta)
{
    if (const kernels::TrainKernels* K = active_kernels())
        K->layer_norm_backward_rows(dy.data(), x.data(), x.rows(), x.cols(), mean.data(), rstd.data(),
                                    gamma.data(), dx.data(), dgamma.data(), dbeta.data());
    else
        layer_norm_backward<float>(dy, x, mean, rstd, gamma, dx, dgamma, dbeta);
}

// [SECTION] Attention
//
// One head of one sentence multiplies (T, d_k) by (d_k, T) and back, T and d_k in the tens. Each product is
// one call of products.h's block kernels on strided views of Q, K, V (head j: columns [j d_k, +d_k) of
// rows hd = h·d_k apart), A_h and the head's output; with a causal mask the tiles wholly above the diagonal
// (Training) and the zero weights there (always) are skipped.

// One head of one sentence. Full fills scores, scaled and masked (every key, the masked ones included);
// Training writes only the weights (see Detail), the scores going through scratch (T, T).
template <typename S>
void head_forward(const ModelConfig& c, int T, Index hd, Index dk, S scale, const S* Qh, const S* Kh,
                  const S* Vh, Index r0, bool full, LayerActsT<S>& a, S* scratch, S* out,
                  const WeightNudge<S>* nudge)
{
    const S minus_inf = -std::numeric_limits<S>::infinity();
    S* scores = full ? a.scores.row(r0).data() : scratch;
    S* weights = a.weights.row(r0).data();
    // scores = Q_h K_hᵀ (T, T); only its lower triangle when causal and Training
    block_product(Qh, hd, Kh, hd, true, scores, T, T, T, dk, false,
                  c.causal && !full ? Lower::C : Lower::None);
    for (Index i = 0; i < T; ++i)
    {
        // keys 0..i when causal: the others have weight exactly 0 and are skipped
        const Index n_keys = c.causal ? i + 1 : T;
        const S* row = scores + i * T;
        S* w = weights + i * T;
        if (full)
        {
            S* scaled = a.scaled.row(r0 + i).data();
            S* masked = a.masked.row(r0 + i).data();
            for (Index k = 0; k < T; ++k)
            {
                scaled[k] = row[k] * scale;                     // / √d_k
                masked[k] = k < n_keys ? scaled[k] : minus_inf; // + M
            }
        }
        for (Index k = 0; k < n_keys; ++k)
            w[k] = row[k] * scale;
        softmax(w, n_keys, w); // A_h = softmax(masked), 0 on the masked keys
        std::fill(w + n_keys, w + T, S(0));
    }
    if (nudge != nullptr)
        weights[nudge->row * T + nudge->col] += nudge->delta;
    // head_j = A_h V_h (T, d_k); causal: A_h is lower triangular (unless nudged above the diagonal)
    block_product(weights, T, Vh, hd, false, out, hd, T, dk, T, false,
                  c.causal && nudge == nullptr ? Lower::A : Lower::None);
}

// From the head's output gradient dO to dQ_h, dK_h, dV_h. Full also fills dweights (every key) and
// dscores; Training goes through the scratch (T, T) matrices dA and dS.
template <typename S>
void head_backward(const ModelConfig& c, int T, Index hd, Index dk, S scale, const S* Qh, const S* Kh,
                   const S* Vh, const S* dO, Index r0, bool full, const LayerActsT<S>& a, LayerGradsT<S>& g,
                   ActGradsT<S>& ag, S* dQ, S* dK, S* dV)
{
    const S* A = a.weights.row(r0).data();
    S* dA = full ? g.dweights.row(r0).data() : ag.head_dA.data();
    S* dS = full ? g.dscores.row(r0).data() : ag.head_dS.data();
    const Lower causal = c.causal ? Lower::A : Lower::None;
    // dA = dhead V_hᵀ (Full: on every key, where the head is pulled to, masked or not)
    block_product(dO, hd, Vh, hd, true, dA, T, T, T, dk, false, c.causal && !full ? Lower::C : Lower::None);
    for (Index i = 0; i < T; ++i)
    {
        const Index n = c.causal ? i + 1 : T; // keys with a weight
        const S* a_row = A + i * T;
        const S* da = dA + i * T;
        S* ds = dS + i * T;
        S row_dot = 0; // rowsum(dA ∘ A)
        for (Index k = 0; k < n; ++k)
            row_dot += a_row[k] * da[k];
        for (Index k = 0; k < n; ++k)
            ds[k] = a_row[k] * (da[k] - row_dot) * scale; // A ∘ (dA − rowsum) / √d_k
        std::fill(ds + n, ds + T, S(0));
    }
    block_product(dS, T, Kh, hd, false, dQ, hd, T, dk, T, false, causal); // dQ_h = dS K_h
    block_product_at(dS, T, Qh, hd, dK, hd, T, dk, T, causal);            // dK_h = dSᵀ Q_h
    block_product_at(A, T, dO, hd, dV, hd, T, dk, T, causal);             // dV_h = A_hᵀ dhead
}

template <typename S>
void attention_forward(const ModelConfig& c, const LayerParamsT<S>& w, const MatT<S>& x, int B, int T, int l,
                       LayerActsT<S>& a, ActivationsT<S>& acts, Detail detail, const WeightNudge<S>* nudge,
                       const HeadMask* heads_off)
{
    const int h = c.n_heads, dk = c.d_k();
    const S scale =
        S(1) / (std::sqrt(static_cast<S>(dk)) * (c.scale_by_layer ? static_cast<S>(l + 1) : S(1)));
    const bool full = detail == Detail::Full;
    mm(x, w.W_Q, a.Q); // Q = x W_Q (+ b_Q), all heads at once
    mm(x, w.W_K, a.K);
    mm(x, w.W_V, a.V);
    if (c.attention_bias)
    {
        a.Q.rowwise() += w.b_Q.row(0);
        a.K.rowwise() += w.b_K.row(0);
        a.V.rowwise() += w.b_V.row(0);
    }
    const Index hd = static_cast<Index>(h) * dk; // the row stride of Q, K, V and concat
    for (int b = 0; b < B; ++b)
        for (int j = 0; j < h; ++j)
        {
            const Index r0 = (static_cast<Index>(b) * h + j) * T,
                        at = static_cast<Index>(b) * T * hd + static_cast<Index>(j) * dk;
            const bool nudged = nudge != nullptr && nudge->layer == l && nudge->b == b && nudge->head == j;
            head_forward<S>(c, T, hd, dk, scale, a.Q.data() + at, a.K.data() + at, a.V.data() + at, r0, full,
                            a, acts.head_scores.data(), a.concat.data() + at, nudged ? nudge : nullptr);
            if (heads_off != nullptr && (*heads_off)[static_cast<size_t>(l * h + j)] != 0)
                a.concat.block(static_cast<Index>(b) * T, static_cast<Index>(j) * dk, T, dk).setZero();
        }
    mm(a.concat, w.W_O, a.mha); // Concat(...) W_O (+ b_O)
    if (c.attention_bias)
        a.mha.rowwise() += w.b_O.row(0);
}

// From dmha (∂L/∂mha) back to dx (∂L/∂x, overwritten), through W_O, every head and W_Q, W_K, W_V.
template <typename S>
void attention_backward(const ModelConfig& c, const LayerParamsT<S>& w, const MatT<S>& x, const MatT<S>& dmha,
                        int B, int T, const LayerActsT<S>& a, LayerGradsT<S>& g, LayerParamsT<S>& dw,
                        ActGradsT<S>& ag, Detail detail, MatT<S>& dx)
{
    const int h = c.n_heads, dk = c.d_k();
    const S scale = S(1) / std::sqrt(static_cast<S>(dk));
    const bool full = detail == Detail::Full;
    mm_at(a.concat, dmha, dw.W_O); // dW_O = concatᵀ dmha
    mm_bt(dmha, w.W_O, g.dconcat); // dconcat = dmha W_Oᵀ
    const Index hd = static_cast<Index>(h) * dk;
    for (int b = 0; b < B; ++b)
        for (int j = 0; j < h; ++j)
        {
            const Index r0 = (static_cast<Index>(b) * h + j) * T,
                        at = static_cast<Index>(b) * T * hd + static_cast<Index>(j) * dk;
            head_backward<S>(c, T, hd, dk, scale, a.Q.data() + at, a.K.data() + at, a.V.data() + at,
                             g.dconcat.data() + at, r0, full, a, g, ag, g.dQ.data() + at, g.dK.data() + at,
                             g.dV.data() + at);
        }
    mm_at(x, g.dQ, dw.W_Q); // dW_Q = xᵀ dQ
    mm_at(x, g.dK, dw.W_K);
    mm_at(x, g.dV, dw.W_V);
    mm_bt(g.dQ, w.W_Q, dx); // dx = dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ
    mm_bt_add(g.dK, w.W_K, dx);
    mm_bt_add(g.dV, w.W_V, dx);
}

// [SECTION] FFN: act(f W_1 + b_1) W_2 + b_2

} // namespace

template <typename S> void activate(Activation activation, const MatT<S>& x, MatT<S>& y)
{
    switch (activation)
    {
    case Activation::Relu:
        y.array() = x.array().max(S(0));
        return;
    case Activation::GeluTanh: // 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))
    {
        const S k = static_cast<S>(0.7978845608028654); // √(2/π)
        y.array() = S(0.5) * x.array() * (S(1) + (k * (x.array() + S(0.044715) * x.array().cube())).tanh());
        return;
    }
    case Activation::GeluErf: // 0.5 x (1 + erf(x / √2)), element by element (Eigen's core has no erf)
    {
        y.resize(x.rows(), x.cols());
        const S r = static_cast<S>(0.7071067811865476); // 1/√2
        const S* xs = x.data();
        S* ys = y.data();
        for (Index i = 0; i < x.size(); ++i)
            ys[i] = S(0.5) * xs[i] * (S(1) + std::erf(xs[i] * r));
        return;
    }
    }
}

namespace
{

// Full keeps ffn_pre; Training applies the ReLU in place in ffn_hidden (backward reads ReLU' from
// hidden > 0, which is pre > 0): one (N, d_ff) matrix less to write and read back.
template <typename S>
void ffn_forward(const ModelConfig& c, const LayerParamsT<S>& w, const MatT<S>& f, LayerActsT<S>& a,
                 Detail detail)
{
    MatT<S>& pre = detail == Detail::Full ? a.ffn_pre : a.ffn_hidden;
    mm(f, w.W_1, pre);
    pre.rowwise() += w.b_1.row(0);
    activate(c.activation, pre, a.ffn_hidden);
    mm(a.ffn_hidden, w.W_2, a.ffn);
    a.ffn.rowwise() += w.b_2.row(0);
}

// out = dhidden where hidden > 0, else 0 (ReLU'); out may be dhidden itself. A plain loop without a branch
// the compiler turns into a compare and a mask: Eigen's select here ran one unpredictable branch per entry, a
// seventh of a step of the reverse preset (perf).
template <typename S> void relu_backward(const MatT<S>& hidden, const MatT<S>& dhidden, MatT<S>& out)
{
    out.resize(hidden.rows(), hidden.cols());
    const S* __restrict h = hidden.data();
    const Index n = hidden.size();
    if (out.data() == dhidden.data())
    {
        S* __restrict o = out.data();
        for (Index i = 0; i < n; ++i)
            o[i] = h[i] > S(0) ? o[i] : S(0);
        return;
    }
    const S* __restrict d = dhidden.data();
    S* __restrict o = out.data();
    for (Index i = 0; i < n; ++i)
        o[i] = h[i] > S(0) ? d[i] : S(0);
}

// From dffn (∂L/∂ffn) back to df (overwritten). Full keeps dffn_hidden; Training masks it in place into
// dffn_pre.
template <typename S>
void ffn_backward(const LayerParamsT<S>& w, const MatT<S>& f, const MatT<S>& dffn, const LayerActsT<S>& a,
                  LayerGradsT<S>& g, LayerParamsT<S>& dw, MatT<S>& df, Detail detail)
{
    mm_at(a.ffn_hidden, dffn, dw.W_2); // dW_2 = hiddenᵀ dffn
    column_sums(dffn, dw.b_2);
    MatT<S>& dhidden = detail == Detail::Full ? g.dffn_hidden : g.dffn_pre;
    mm_bt(dffn, w.W_2, dhidden);
    relu_backward(a.ffn_hidden, dhidden, g.dffn_pre);
    mm_at(f, g.dffn_pre, dw.W_1);
    column_sums(g.dffn_pre, dw.b_1);
    mm_bt(g.dffn_pre, w.W_1, df);
}

} // namespace

// [SECTION] Sizes

template <typename S> void size_activations(const ModelConfig& c, int B, int T, ActivationsT<S>& acts)
{
    assert(T >= 1 && T <= c.T_max && B >= 1);
    const Index N = static_cast<Index>(B) * T, d = c.d_model, hd = c.n_heads * c.d_k(),
                ff = c.has_ffn() ? c.resolved_d_ff() : 0, att = N * c.n_heads;
    acts.B = B;
    acts.T = T;
    shape(acts.embed, N, d);
    shape(acts.embed_mean, c.embedding_norm ? N : 0);
    shape(acts.embed_rstd, c.embedding_norm ? N : 0);
    acts.layers.resize(static_cast<size_t>(c.n_layers));
    for (LayerActsT<S>& a : acts.layers)
    {
        for (MatT<S>* m : {&a.X, &a.ln1, &a.mha, &a.residual})
            shape(*m, N, d);
        for (MatT<S>* m : {&a.Q, &a.K, &a.V, &a.concat})
            shape(*m, N, hd);
        for (MatT<S>* m : {&a.scores, &a.scaled, &a.masked, &a.weights})
            shape(*m, att, T);
        shape(a.ln1_mean, N);
        shape(a.ln1_rstd, N);
        const Index nf = c.has_ffn() ? N : 0;
        for (MatT<S>* m : {&a.ln2, &a.ffn, &a.residual2})
            shape(*m, nf, d);
        shape(a.ffn_pre, nf, ff);
        shape(a.ffn_hidden, nf, ff);
        shape(a.ln2_mean, nf);
        shape(a.ln2_rstd, nf);
    }
    const Index nl = c.has_final_norm() ? N : 0;
    shape(acts.lnf, nl, d);
    shape(acts.lnf_mean, nl);
    shape(acts.lnf_rstd, nl);
    const Index nm = c.mlm_head ? N : 0;
    for (MatT<S>* m : {&acts.mlm_pre, &acts.mlm_hidden, &acts.mlm_norm})
        shape(*m, nm, d);
    shape(acts.mlm_mean, nm);
    shape(acts.mlm_rstd, nm);
    shape(acts.logits, N, c.vocab_size);
    shape(acts.probs, N, c.vocab_size);
    shape(acts.loss, N);
    shape(acts.head_scores, T, T);
}

template <typename S> void size_act_grads(const ModelConfig& c, int B, int T, ActGradsT<S>& g)
{
    const Index N = static_cast<Index>(B) * T, d = c.d_model, hd = c.n_heads * c.d_k(),
                ff = c.has_ffn() ? c.resolved_d_ff() : 0, att = N * c.n_heads;
    g.layers.resize(static_cast<size_t>(c.n_layers));
    for (LayerGradsT<S>& a : g.layers)
    {
        for (MatT<S>* m : {&a.dX, &a.dln1, &a.dresidual})
            shape(*m, N, d);
        for (MatT<S>* m : {&a.dQ, &a.dK, &a.dV, &a.dconcat})
            shape(*m, N, hd);
        shape(a.dweights, att, T);
        shape(a.dscores, att, T);
        const Index nf = c.has_ffn() ? N : 0;
        shape(a.dln2, nf, d);
        shape(a.dresidual2, nf, d);
        shape(a.dffn_pre, nf, ff);
        shape(a.dffn_hidden, nf, ff);
    }
    shape(g.dout, N, d);
    shape(g.dlnf, c.has_final_norm() ? N : 0, d);
    shape(g.dlogits, N, c.vocab_size);
    shape(g.head_dA, T, T);
    shape(g.head_dS, T, T);
}

// [SECTION] Forward

template <typename S>
void output_logits(const ModelConfig& c, const ParamsT<S>& p, const MatT<S>& last, ActivationsT<S>& acts)
{
    const float eps = c.layer_norm_eps;
    const MatT<S>* Z = &last;
    if (c.has_final_norm())
    {
        layer_norm(last, p.lnf_gamma, p.lnf_beta, acts.lnf, acts.lnf_mean, acts.lnf_rstd, eps);
        Z = &acts.lnf;
    }
    if (c.mlm_head) // Z' = LN_mlm(act(Z W_T + b_T))
    {
        mm(*Z, p.W_T, acts.mlm_pre);
        acts.mlm_pre.rowwise() += p.b_T.row(0);
        activate(c.activation, acts.mlm_pre, acts.mlm_hidden);
        layer_norm(acts.mlm_hidden, p.mlm_gamma, p.mlm_beta, acts.mlm_norm, acts.mlm_mean, acts.mlm_rstd,
                   eps);
        Z = &acts.mlm_norm;
    }
    if (c.tied_unembedding)
        mm_bt(*Z, p.E, acts.logits); // logits = Z Eᵀ (+ b_U)
    else
        mm(*Z, p.W_U, acts.logits); // logits = Z W_U (+ b_U)
    if (c.unembedding_bias)
        acts.logits.rowwise() += p.b_U.row(0);
}

template <typename S>
S forward(const ModelConfig& c, const ParamsT<S>& p, const Batch& batch, ActivationsT<S>& acts,
          const WeightNudge<S>* nudge, Detail detail, const HeadMask* heads_off)
{
    const int B = batch.B, T = batch.T, N = B * T, V = c.vocab_size;
    const float eps = c.layer_norm_eps;
    assert(acts.B == B && acts.T == T);
    if (heads_off != nullptr && heads_off->empty())
        heads_off = nullptr;
    assert(heads_off == nullptr || heads_off->size() == static_cast<size_t>(c.n_layers * c.n_heads));
    // X_0 = E[tokens] + P[0..T) (+ T_type[0]), then LN_emb when the model has it
    MatT<S>& X0 = acts.layers[0].X;
    for (int n = 0; n < N; ++n)
    {
        const int token = batch.tokens[static_cast<size_t>(n)];
        assert(token >= 0 && token < V);
        acts.embed.row(n) = p.E.row(token) + p.P.row(n % T);
        if (c.token_types > 0)
            acts.embed.row(n) += p.T_type.row(0);
    }
    if (c.embedding_norm)
        layer_norm(acts.embed, p.emb_gamma, p.emb_beta, X0, acts.embed_mean, acts.embed_rstd, eps);
    else
        X0 = acts.embed;
    for (int l = 0; l < c.n_layers; ++l)
    {
        const LayerParamsT<S>& w = p.layers[static_cast<size_t>(l)];
        LayerActsT<S>& a = acts.layers[static_cast<size_t>(l)];
        if (l > 0)
            a.X = layer_output(c, acts.layers[static_cast<size_t>(l - 1)]);
        if (c.norm == NormPlacement::Pre)
        {
            layer_norm(a.X, w.ln1_gamma, w.ln1_beta, a.ln1, a.ln1_mean, a.ln1_rstd, eps); // LN1(X)
            attention_forward(c, w, a.ln1, B, T, l, a, acts, detail, nudge, heads_off);
            if (c.residual)
                a.residual = a.X + a.mha; // A = X + MHA(LN1(X))
            else
                a.residual = a.mha; // A = MHA(LN1(X)): nothing added back
            if (c.has_ffn())
            {
                layer_norm(a.residual, w.ln2_gamma, w.ln2_beta, a.ln2, a.ln2_mean, a.ln2_rstd, eps);
                ffn_forward(c, w, a.ln2, a, detail);
                if (c.residual)
                    a.residual2 = a.residual + a.ffn; // Y = A + FFN(LN2(A))
                else
                    a.residual2 = a.ffn; // Y = FFN(LN2(A))
            }
        }
        else
        {
            attention_forward(c, w, a.X, B, T, l, a, acts, detail, nudge, heads_off);
            if (c.residual)
                a.residual = a.X + a.mha;
            else
                a.residual = a.mha;
            layer_norm(a.residual, w.ln1_gamma, w.ln1_beta, a.ln1, a.ln1_mean, a.ln1_rstd,
                       eps); // A = LN1(X + MHA(X)), or LN1(MHA(X)) without the residual
            if (c.has_ffn())
            {
                ffn_forward(c, w, a.ln1, a, detail);
                if (c.residual)
                    a.residual2 = a.ln1 + a.ffn;
                else
                    a.residual2 = a.ffn;
                layer_norm(a.residual2, w.ln2_gamma, w.ln2_beta, a.ln2, a.ln2_mean, a.ln2_rstd,
                           eps); // Y = LN2(A + FFN(A)), or LN2(FFN(A))
            }
        }
    }
    output_logits(c, p, layer_output(c, acts.layers.back()), acts);
    double total = 0;
    int counted = 0;
    for (int n = 0; n < N; ++n)
    {
        S* probs = acts.probs.row(n).data();
        softmax(acts.logits.row(n).data(), V, probs);
        const int target = batch.targets[static_cast<size_t>(n)];
        if (target < 0)
        {
            acts.loss(n) = 0;
            continue;
        }
        // -log p_target = log Σ exp(l − max) − (l_target − max), and log Σ exp(l − max) = −log p_argmax
        // (p_argmax >= 1/V, so the log never sees an underflowed probability).
        Index argmax = 0;
        const S max = acts.logits.row(n).maxCoeff(&argmax);
        acts.loss(n) = -std::log(probs[argmax]) + (max - acts.logits(n, target));
        if (batch.loss_mask[static_cast<size_t>(n)])
        {
            total += static_cast<double>(acts.loss(n));
            ++counted;
        }
    }
    acts.mean_loss = counted > 0 ? static_cast<S>(total / counted) : S(0);
    return acts.mean_loss;
}

// [SECTION] Backward

template <typename S>
void backward(const ModelConfig& c, const ParamsT<S>& p, const Batch& batch, ActivationsT<S>& acts,
              ActGradsT<S>& ag, ParamsT<S>& dp, Detail detail)
{
    assert(c.trainable());
    const int B = batch.B, T = batch.T, N = B * T;
    int counted = 0;
    for (int n = 0; n < N; ++n)
        counted += batch.loss_mask[static_cast<size_t>(n)] && batch.targets[static_cast<size_t>(n)] >= 0;
    const S inv_count = counted > 0 ? S(1) / static_cast<S>(counted) : S(0);
    // dlogits = (probs − onehot(target)) / count at counted positions, 0 elsewhere
    for (int n = 0; n < N; ++n)
    {
        const int target = batch.targets[static_cast<size_t>(n)];
        if (!batch.loss_mask[static_cast<size_t>(n)] || target < 0)
        {
            ag.dlogits.row(n).setZero();
            continue;
        }
        ag.dlogits.row(n) = acts.probs.row(n) * inv_count;
        ag.dlogits(n, target) -= inv_count;
    }
    const MatT<S>& last = layer_output(c, acts.layers.back());
    const MatT<S>& Z = c.has_final_norm() ? acts.lnf : last;
    mm_at(Z, ag.dlogits, dp.W_U); // dW_U = Zᵀ dlogits
    column_sums(ag.dlogits, dp.b_U);
    if (c.has_final_norm())
    {
        mm_bt(ag.dlogits, p.W_U, ag.dlnf);
        ag.dout.setZero();
        layer_norm_backward(ag.dlnf, last, acts.lnf_mean, acts.lnf_rstd, p.lnf_gamma, ag.dout, dp.lnf_gamma,
                            dp.lnf_beta);
    }
    else
        mm_bt(ag.dlogits, p.W_U, ag.dout);

    for (int l = c.n_layers - 1; l >= 0; --l)
    {
        const LayerParamsT<S>& w = p.layers[static_cast<size_t>(l)];
        LayerParamsT<S>& dw = dp.layers[static_cast<size_t>(l)];
        const LayerActsT<S>& a = acts.layers[static_cast<size_t>(l)];
        LayerGradsT<S>& g = ag.layers[static_cast<size_t>(l)];
        const MatT<S>& dY = l == c.n_layers - 1 ? ag.dout : ag.layers[static_cast<size_t>(l + 1)].dX;
        if (c.norm == NormPlacement::Pre)
        {
            // Without the residual, dY reaches A only through the FFN (or is A's when attention-only).
            if (c.residual || !c.has_ffn())
                g.dresidual = dY;
            else
                g.dresidual.setZero();
            if (c.has_ffn())
            {
                g.dresidual2 = dY;
                ffn_backward(w, a.ln2, g.dresidual2, a, g, dw, g.dln2, detail);
                layer_norm_backward(g.dln2, a.residual, a.ln2_mean, a.ln2_rstd, w.ln2_gamma, g.dresidual,
                                    dw.ln2_gamma, dw.ln2_beta);
            }
            attention_backward(c, w, a.ln1, g.dresidual, B, T, a, g, dw, ag, detail, g.dln1);
            if (c.residual)
                g.dX = g.dresidual;
            else
                g.dX.setZero(); // X reaches the output only through LN1
            layer_norm_backward(g.dln1, a.X, a.ln1_mean, a.ln1_rstd, w.ln1_gamma, g.dX, dw.ln1_gamma,
                                dw.ln1_beta);
        }
        else
        {
            if (c.has_ffn())
            {
                g.dresidual2.setZero();
                layer_norm_backward(dY, a.residual2, a.ln2_mean, a.ln2_rstd, w.ln2_gamma, g.dresidual2,
                                    dw.ln2_gamma, dw.ln2_beta);
                ffn_backward(w, a.ln1, g.dresidual2, a, g, dw, g.dln1, detail);
                if (c.residual)
                    g.dln1 += g.dresidual2;
            }
            else
                g.dln1 = dY;
            g.dresidual.setZero();
            layer_norm_backward(g.dln1, a.residual, a.ln1_mean, a.ln1_rstd, w.ln1_gamma, g.dresidual,
                                dw.ln1_gamma, dw.ln1_beta);
            attention_backward(c, w, a.X, g.dresidual, B, T, a, g, dw, ag, detail, g.dX);
            if (c.residual)
                g.dX += g.dresidual;
        }
    }
    // X_0 = E[tokens] + P[0..T): scatter the rows of dX_0
    const MatT<S>& dX0 = ag.layers[0].dX;
    dp.E.setZero();
    dp.P.setZero();
    const bool learned = c.positions == PositionKind::Learned;
    for (int n = 0; n < N; ++n)
    {
        dp.E.row(batch.tokens[static_cast<size_t>(n)]) += dX0.row(n);
        if (learned)
            dp.P.row(n % T) += dX0.row(n);
    }
}

template void size_activations(const ModelConfig&, int, int, ActivationsT<float>&);
template void size_activations(const ModelConfig&, int, int, ActivationsT<double>&);
template void size_act_grads(const ModelConfig&, int, int, ActGradsT<float>&);
template void size_act_grads(const ModelConfig&, int, int, ActGradsT<double>&);
template float forward(const ModelConfig&, const ParamsT<float>&, const Batch&, ActivationsT<float>&,
                       const WeightNudge<float>*, Detail, const HeadMask*);
template double forward(const ModelConfig&, const ParamsT<double>&, const Batch&, ActivationsT<double>&,
                        const WeightNudge<double>*, Detail, const HeadMask*);
template void output_logits(const ModelConfig&, const ParamsT<float>&, const MatT<float>&,
                            ActivationsT<float>&);
template void output_logits(const ModelConfig&, const ParamsT<double>&, const MatT<double>&,
                            ActivationsT<double>&);
template void activate(Activation, const MatT<float>&, MatT<float>&);
template void activate(Activation, const MatT<double>&, MatT<double>&);
template void backward(const ModelConfig&, const ParamsT<float>&, const Batch&, ActivationsT<float>&,
                       ActGradsT<float>&, ParamsT<float>&, Detail);
template void backward(const ModelConfig&, const ParamsT<double>&, const Batch&, ActivationsT<double>&,
                       ActGradsT<double>&, ParamsT<double>&, Detail);

} // namespace attnlab::train
