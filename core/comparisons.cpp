// Packed vs per-head projections, the slides' two-step projection vs its collapsed matrix, single vs
// multi-head.
#include "comparisons.h"

#include "engine.h"
#include "softmax.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace attnlab
{

void compute_comparisons(const Trace& trace, const ModelWeights& weights, int layer, int b, int head,
                         Comparisons& out)
{
    assert(!trace.empty() && layer >= 0 && layer < static_cast<int>(trace.layers.size()));
    assert(b >= 0 && b < trace.batch_size() && head >= 0 && head < trace.config.n_heads);
    const LayerTrace& lt = trace.layers[static_cast<size_t>(layer)];
    const AttentionWeights& w = weights.layers[static_cast<size_t>(layer)].attn;
    // What the heads project: X, or LN1(X) in a pre-LN layer (a trained model's).
    const Mat& X = trace.pre_ln ? lt.ln1[static_cast<size_t>(b)] : lt.X[static_cast<size_t>(b)];
    const int h = trace.config.n_heads, d_k = trace.d_k;
    out.layer = layer;
    out.b = b;
    out.head = head;

    // (a) X W^Q with W^Q = [W_1^Q | ... | W_h^Q]: column block j is exactly the per-head Q_j.
    pack_heads(w.W_Q, out.W_Q_packed);
    out.Q_packed.noalias() = X * out.W_Q_packed;
    out.packed_max_diff = 0.0f;
    for (int j = 0; j < h; ++j)
    {
        const Mat& Q_j = lt.attn.head(b, j).Q;
        const float diff =
            (out.Q_packed.middleCols(static_cast<Eigen::Index>(j) * d_k, d_k) - Q_j).cwiseAbs().maxCoeff();
        out.packed_max_diff = std::max(out.packed_max_diff, diff);
    }

    // (b) q = x W^Q, then q W_h^Q (two linear maps in a row) equals x (W^Q W_h^Q): one matrix.
    out.W_slide = slide_projection(trace.config);
    const Mat& W_h = w.W_Q[static_cast<size_t>(head)];
    out.Q_slide.noalias() = X * out.W_slide;
    out.Q_two_step.noalias() = out.Q_slide * W_h;
    out.W_collapsed.noalias() = out.W_slide * W_h;
    out.Q_collapsed.noalias() = X * out.W_collapsed;
    out.Q_difference = out.Q_two_step - out.Q_collapsed;
    out.two_step_max_diff = out.Q_difference.cwiseAbs().maxCoeff();

    // (c) Single-head attention over the packed matrices: one T x T map with d_k = h·d_k.
    Mat K_packed, V_packed, W_K_packed, W_V_packed;
    pack_heads(w.W_K, W_K_packed);
    pack_heads(w.W_V, W_V_packed);
    K_packed.noalias() = X * W_K_packed;
    V_packed.noalias() = X * W_V_packed;
    Mat scores;
    scores.noalias() = out.Q_packed * K_packed.transpose();
    scores *= trace.config.scale ? 1.0f / std::sqrt(static_cast<float>(h * d_k)) : 1.0f;
    scores += lt.attn.mask[static_cast<size_t>(b)];
    std::vector<std::uint8_t> fully_masked;
    softmax_rows(scores, trace.config.temperature, out.single_weights, fully_masked);
    Mat single_concat;
    single_concat.noalias() = out.single_weights * V_packed;
    out.single_out.noalias() = single_concat * w.W_O;
    out.single_vs_multi_max_diff =
        (out.single_out - lt.attn.mha[static_cast<size_t>(b)]).cwiseAbs().maxCoeff();
}

} // namespace attnlab
