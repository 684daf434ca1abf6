// Matrix products of the training engine in float, for its small shapes: C = A B, C = A Bᵀ, C = Aᵀ B.
#pragma once

#include "model.h"

namespace attnlab::train
{

// C = A B, or C += A B when accumulate (C must then have the result's shape). C must not overlap A or B.
// Runs on the calling thread; no heap call once the packing space has grown to the largest B seen.
void product(const MatT<float>& A, const MatT<float>& B, MatT<float>& C, bool accumulate = false);
// C = A Bᵀ, or C += A Bᵀ when accumulate: the input gradients dx = dy Wᵀ.
void product_bt(const MatT<float>& A, const MatT<float>& B, MatT<float>& C, bool accumulate = false);
// C = Aᵀ B: the weight gradients dW = xᵀ dy, summed over the B·T rows of x and dy.
void product_at(const MatT<float>& A, const MatT<float>& B, MatT<float>& C);

// The kernel this build uses: "avx2-6x16" (AVX2 and FMA), else "eigen" (core's gemm and Eigen's kernel).
const char* product_kernel();

} // namespace attnlab::train
