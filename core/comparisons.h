// Comparisons that answer the forum questions: packed vs per-head, two-step vs collapsed, single vs
// multi-head.
#pragma once

#include "matrix.h"
#include "trace.h"
#include "weights.h"

namespace attnlab
{

struct Comparisons
{
    int layer = 0; // which layer and sentence they were computed for
    int b = 0;

    // (a) One big matmul is h heads: X W^Q with W^Q = [W_1^Q | ... | W_h^Q]; its column block j is Q_j.
    Mat W_Q_packed;            // (d_model, h·d_k)
    Mat Q_packed;              // (T, h·d_k)  X W^Q
    float packed_max_diff = 0; // max_j max |block_j(X W^Q) - Q_j|

    // (b) The slides' two steps q = x W^Q, then q W_h^Q, collapse into the single matrix W^Q W_h^Q. The
    // extra W^Q is hypothetical (seeded, not part of the model): Q_two_step is not the model's Q_h = X W_h^Q.
    int head = 0;                // the head shown
    Mat W_slide;                 // (d_model, d_model) the slides' extra W^Q
    Mat Q_slide;                 // (T, d_model)  X W^Q
    Mat Q_two_step;              // (T, d_k)  (X W^Q) W_h^Q
    Mat W_collapsed;             // (d_model, d_k)  W^Q W_h^Q
    Mat Q_collapsed;             // (T, d_k)  X (W^Q W_h^Q)
    Mat Q_difference;            // (T, d_k)  (X W^Q) W_h^Q − X (W^Q W_h^Q)
    float two_step_max_diff = 0; // max |Q_difference|: rounding only (~1e-7 relative)

    // (c) Single-head attention from the packed matrices (d_k = h·d_k): one T x T map instead of h.
    Mat single_weights;                 // (T, T)  softmax(X W^Q (X W^K)ᵀ / √(h·d_k) + M)
    Mat single_out;                     // (T, d_model)  single_weights (X W^V) W^O
    float single_vs_multi_max_diff = 0; // max |single_out - mha|: not rounding, a different function
};

// Computes the comparisons for one layer and one sentence of a trace made with these weights.
void compute_comparisons(const Trace& trace, const ModelWeights& weights, int layer, int b, int head,
                         Comparisons& out);

} // namespace attnlab
