// Matrix products of the training engine in float, for its small shapes: C = A B, C = A Bᵀ, C = Aᵀ B, on
// whole matrices and on strided blocks (one head of one sentence).
#pragma once

#include "model.h"

namespace attnlab::train
{

// C = A B, or C += A B when accumulate (C must then have the result's shape). C must not overlap A or B.
// Runs on the calling thread; no heap call once the packing space has grown to the largest operand seen.
void product(const MatT<float>& A, const MatT<float>& B, MatT<float>& C, bool accumulate = false);
// C = A Bᵀ, or C += A Bᵀ when accumulate: the input gradients dx = dy Wᵀ.
void product_bt(const MatT<float>& A, const MatT<float>& B, MatT<float>& C, bool accumulate = false);
// C = Aᵀ B: the weight gradients dW = xᵀ dy, summed over the B·T rows of x and dy.
void product_at(const MatT<float>& A, const MatT<float>& B, MatT<float>& C);

// [SECTION] Blocks: one head's (T, T) and (T, d_k) products, with the causal mask's triangles skipped

// What a causal mask lets a block product skip.
enum class Lower
{
    None,
    A, // A is lower triangular (A B: A(i, p) = 0 for p > i; Aᵀ B: A(p, i) = 0 for i > p): its zeros are
       // skipped (whole tiles of them; the sums of the others add exact zeros)
    C, // only C's entries on and below the diagonal are needed: tiles wholly above it are not written
};

// C (m x n) = (or +=) A (m x k) op(B), op(B) = B (k x n) or, with trans_b, Bᵀ of a B stored n x k. Every
// matrix row-major with its rows lda, ldb, ldc floats apart. lower: Lower::A or Lower::C (see Lower).
// C must not overlap A or B. The same inputs give the same bits, whatever lower says about other entries.
void block_product(const float* A, Eigen::Index lda, const float* B, Eigen::Index ldb, bool trans_b, float* C,
                   Eigen::Index ldc, Eigen::Index m, Eigen::Index n, Eigen::Index k, bool accumulate = false,
                   Lower lower = Lower::None);
// C (m x n) = Aᵀ B, A (k x m), B (k x n), strided as above. lower: Lower::A (see Lower) or None.
void block_product_at(const float* A, Eigen::Index lda, const float* B, Eigen::Index ldb, float* C,
                      Eigen::Index ldc, Eigen::Index m, Eigen::Index n, Eigen::Index k,
                      Lower lower = Lower::None);

// The same in double (the gradient check), in plain loops.
void block_product(const double* A, Eigen::Index lda, const double* B, Eigen::Index ldb, bool trans_b,
                   double* C, Eigen::Index ldc, Eigen::Index m, Eigen::Index n, Eigen::Index k,
                   bool accumulate = false, Lower lower = Lower::None);
void block_product_at(const double* A, Eigen::Index lda, const double* B, Eigen::Index ldb, double* C,
                      Eigen::Index ldc, Eigen::Index m, Eigen::Index n, Eigen::Index k,
                      Lower lower = Lower::None);

} // namespace attnlab::train
