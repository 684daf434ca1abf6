// Row-wise softmax with max subtraction; a row whose entries are all -inf becomes zeros and is flagged.
#pragma once

#include "matrix.h"

#include <cstdint>
#include <vector>

namespace attnlab
{

// y = softmax(x / τ) over n entries, with inv_temperature = 1 / τ. Returns false (and writes zeros) when
// every entry is -inf: a fully masked row has no distribution, and 0/0 would be NaN. y may alias x.
bool softmax_row(const float* x, Eigen::Index n, float inv_temperature, float* y);

// One row of attention's middle stages, done while the row is in cache: scaled = scores · scale,
// masked = scaled + mask, weights = softmax(masked / τ). scaled and masked go to memory with non-temporal
// stores (only the display reads them again, so they need not pass through the cache, and a plain store would
// first read each line it writes). Returns false for a fully masked row (its weights are zeros). On AVX2 and
// AVX-512 one pass over the row does the product, the sum and both copies (core/kernels), the same bits.
// *scores_finite (when given): whether every score of the row is finite. A null mask stands for zeros (each
// entry + 0.0f: the same bits as a mask of +0.0f, without reading it; mask_is_zero says when that holds).
bool attention_row(const float* scores, const float* mask, Eigen::Index n, float scale, float inv_temperature,
                   float* scaled, float* masked, float* weights, bool* scores_finite = nullptr);
// Whether every entry of the mask is +0.0f (the bits: a -0 entry would turn a -0 score into -0, not +0).
bool mask_is_zero(const Mat& mask);
// Orders the non-temporal stores of attention_row before what follows (call once after a batch of rows).
void attention_rows_done();

// out(i, :) = softmax(in(i, :) / τ) over the columns (keys). fully_masked[i] = 1 when row i is all -inf
// (then out(i, :) = 0). Returns the number of such rows. out may alias in.
int softmax_rows(const Mat& in, float temperature, Mat& out, std::vector<std::uint8_t>& fully_masked);

// Shannon entropy -Σ_j a_j ln a_j of one row of weights, in nats: 0 for a one-hot row, ln(n) for uniform.
float row_entropy(const float* weights, Eigen::Index n);
// The mean entropy of the rows of a weights matrix (fully masked rows count as 0).
float mean_row_entropy(const Mat& weights);

// LayerNorm over each row: (x - mean) / sqrt(var + eps) * γ + β, biased variance as in the paper's code.
void layer_norm_rows(const Mat& in, const RowVec& gamma, const RowVec& beta, Mat& out, float eps = 1e-5f);

} // namespace attnlab
