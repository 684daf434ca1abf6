// Top tokens, the logit lens and attention sinks, read out of a forward pass (see readouts.h).
#include "readouts.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

namespace attnlab::train
{

std::vector<TokenProb> top_k(const Eigen::Ref<const Eigen::RowVectorXf>& probs, int k)
{
    std::vector<int> ids(static_cast<std::size_t>(probs.size()));
    std::iota(ids.begin(), ids.end(), 0);
    // Most probable first, then the lower id; NaN after every number.
    const auto before = [&probs](int a, int b)
    {
        const float pa = probs(a), pb = probs(b);
        const bool na = std::isnan(pa), nb = std::isnan(pb);
        if (na != nb)
            return nb;
        if (!na && pa != pb)
            return pa > pb;
        return a < b;
    };
    std::size_t n = 0;
    for (int id : ids)
        n += std::isnan(probs(id)) ? 0 : 1;
    const std::size_t kept = std::min(n, static_cast<std::size_t>(std::max(0, k)));
    std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(kept), ids.end(), before);
    std::vector<TokenProb> out(kept);
    for (std::size_t i = 0; i < kept; ++i)
        out[i] = {ids[i], probs(ids[i])};
    return out;
}

std::vector<PositionTop> next_token_top_k(const Activations& acts, int b, int k)
{
    assert(b >= 0 && b < acts.B);
    std::vector<PositionTop> out(static_cast<std::size_t>(acts.T));
    for (int t = 0; t < acts.T; ++t)
    {
        PositionTop& row = out[static_cast<std::size_t>(t)];
        row.position = t;
        row.top = top_k(acts.probs.row(static_cast<Eigen::Index>(b) * acts.T + t), k);
    }
    return out;
}

std::vector<PositionTop> mask_fill_top_k(const Batch& batch, const Activations& acts, int b, int mask_id,
                                         int k)
{
    assert(b >= 0 && b < acts.B && batch.B == acts.B && batch.T == acts.T);
    std::vector<PositionTop> out;
    if (mask_id < 0)
        return out;
    for (int t = 0; t < acts.T; ++t)
    {
        const int n = b * acts.T + t;
        if (batch.tokens[static_cast<std::size_t>(n)] != mask_id)
            continue;
        out.push_back({t, top_k(acts.probs.row(n), k)});
    }
    return out;
}

LogitLens logit_lens(const ModelConfig& config, const Params& params, const Activations& acts, int b)
{
    assert(b >= 0 && b < acts.B && config.vocab_size > 0);
    const int T = acts.T, d = config.d_model, V = config.vocab_size;
    LogitLens lens;
    lens.n_layers = config.n_layers;
    lens.T = T;
    lens.top.resize(static_cast<std::size_t>(config.n_layers + 1));
    // Only the output head's buffers, for T rows: output_logits reads and writes nothing else.
    Activations scratch;
    scratch.B = 1;
    scratch.T = T;
    const Eigen::Index nl = config.has_final_norm() ? T : 0, nm = config.mlm_head ? T : 0;
    scratch.lnf.setZero(nl, d);
    scratch.lnf_mean.setZero(nl);
    scratch.lnf_rstd.setZero(nl);
    for (MatT<float>* m : {&scratch.mlm_pre, &scratch.mlm_hidden, &scratch.mlm_norm})
        m->setZero(nm, d);
    scratch.mlm_mean.setZero(nm);
    scratch.mlm_rstd.setZero(nm);
    scratch.logits.setZero(T, V);
    Eigen::RowVectorXf probs(V);
    MatT<float> stream(T, d);
    for (int row = 0; row <= config.n_layers; ++row)
    {
        // Row 0: layer 1's input; row l + 1: layer l's output.
        const MatT<float>& residual =
            row == 0 ? acts.layers.front().X
                     : layer_output(config, acts.layers[static_cast<std::size_t>(row - 1)]);
        stream = sentence_rows(residual, b, T);
        output_logits(config, params, stream, scratch);
        auto& tops = lens.top[static_cast<std::size_t>(row)];
        tops.resize(static_cast<std::size_t>(T));
        for (int t = 0; t < T; ++t)
        {
            // softmax along the row; only the largest entry's probability is kept: 1 / Σ exp(l − max)
            Eigen::Index argmax = 0;
            const float max = scratch.logits.row(t).maxCoeff(&argmax);
            probs = (scratch.logits.row(t).array() - max).exp().matrix();
            tops[static_cast<std::size_t>(t)] = {static_cast<int>(argmax), 1.0f / probs.sum()};
        }
    }
    return lens;
}

Mat hide_first_key(const Mat& weights)
{
    Mat out = weights;
    if (out.cols() == 0)
        return out;
    out.col(0).setZero();
    for (Eigen::Index i = 0; i < out.rows(); ++i)
    {
        const float rest = out.row(i).sum();
        if (rest > 0.0f)
            out.row(i) /= rest;
        else
            out.row(i).setZero(); // nothing but the first key had weight: no share to spread
    }
    return out;
}

} // namespace attnlab::train
