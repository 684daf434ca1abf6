// Matrix products of the training engine in float. The shapes of a training step are many rows (B·T, about
// a thousand) by few columns (d_model, d_k·h, d_ff: 32 to 256), tens of products a step, and each head's
// (T, T) and (T, d_k) products, thousands of tiny ones a step. Eigen's GEMM packs both operands of every
// product and accumulates into a C it needs zeroed first; here both are read in place and only a transposed
// operand is packed (Bᵀ: a weight matrix, or one head's K_h or V_h), so the products spend their time in the
// multiply-adds: 82-98 GFLOP/s on the preset shapes (1024 rows, warm caches) on one core of an AVX2 EPYC,
// against 51-67 for Eigen's. Every sum runs in a fixed order: the same inputs give the same bits. The
// kernels are core/kernels' AVX2 or AVX-512 set, whichever the CPU runs (core/cpu.h); on the baseline path
// (an older CPU, or ATTNLAB_ISA=baseline) this file's Eigen and plain-loop products stand in.
#include "products.h"

#include "core/cpu.h"
#include "core/gemm.h"
#include "core/kernels/kernels.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

namespace attnlab::train
{

namespace
{

using Index = Eigen::Index;

// A per-thread buffer that only grows: no heap call once warm.
float* scratch(Index floats)
{
    thread_local std::vector<float, Eigen::aligned_allocator<float>> buffer;
    if (buffer.size() < static_cast<size_t>(floats))
        buffer.resize(static_cast<size_t>(floats));
    return buffer.data();
}

kernels::Lower to_kernels(Lower lower)
{
    return static_cast<kernels::Lower>(static_cast<int>(lower));
}

// [SECTION] The baseline path: core's gemm for A B and A Bᵀ, Eigen's kernel for Aᵀ B

// Eigen's blocking for Cᵀ = Bᵀ A (the column-major product Eigen runs for a row-major C = Aᵀ B), with the
// packed panels in this thread's scratch (Eigen's operator* would take them from malloc past 128 KB).
using AtBlocking = ScratchBlocking<&scratch>;

// C += product, through a per-thread matrix that only grows.
MatT<float>& sum_space()
{
    thread_local MatT<float> space;
    return space;
}

// [SECTION] Plain loops: the blocks in double, and in float without AVX2

template <typename S>
void reference_product(const S* A, Index lda, const S* B, Index ldb, bool trans_b, S* C, Index ldc, Index m,
                       Index n, Index k, bool accumulate, Lower lower)
{
    for (Index i = 0; i < m; ++i)
        for (Index j = 0; j < n; ++j)
        {
            if (lower == Lower::C && j > i)
                continue;
            const Index kk = lower == Lower::A ? std::min(k, i + 1) : k;
            S sum = 0;
            for (Index p = 0; p < kk; ++p)
                sum += A[i * lda + p] * (trans_b ? B[j * ldb + p] : B[p * ldb + j]);
            C[i * ldc + j] = accumulate ? C[i * ldc + j] + sum : sum;
        }
}

template <typename S>
void reference_product_at(const S* A, Index lda, const S* B, Index ldb, S* C, Index ldc, Index m, Index n,
                          Index k, Lower lower)
{
    for (Index i = 0; i < m; ++i)
        for (Index j = 0; j < n; ++j)
        {
            S sum = 0;
            for (Index p = lower == Lower::A ? i : 0; p < k; ++p)
                sum += A[p * lda + i] * B[p * ldb + j];
            C[i * ldc + j] = sum;
        }
}

} // namespace

namespace
{

// Products at least this many multiply-adds large are split between the OpenMP threads (Eigen::nbThreads():
// 1 under OneThread, so training's many small products stay on their thread).
constexpr double kParallelMultiplyAdds = 1 << 21;

// C (m x n) = (or +=) A op(B) as a_times_b does, the columns of C cut into slabs shared out between the
// threads. A slab is at most kSlabColumns wide, so a transposed B (a tied unembedding's 50k x 768 Eᵀ) is
// packed a slab at a time, never whole. Slab edges are multiples of the kernel's 16 columns, so every entry
// is summed exactly as in one call: the same bits on any number of threads.
constexpr Index kSlabColumns = 2048;

void a_times_b_threads(const kernels::TrainKernels& K, const float* A, Index lda, Index m, Index k,
                       const float* B, Index ldb, bool trans_b, Index n, float* C, Index ldc, bool accumulate)
{
    const Index NR = K.panel_columns;
    const bool big =
        static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >= kParallelMultiplyAdds;
    const int threads = big ? Eigen::nbThreads() : 1;
    if (threads <= 1 && (!trans_b || n <= kSlabColumns))
    {
        K.a_times_b(A, lda, m, k, B, ldb, trans_b, n, C, ldc, accumulate, kernels::Lower::None, &scratch);
        return;
    }
    const Index tiles = (n + NR - 1) / NR;
    const Index slab_tiles = std::clamp<Index>((tiles + threads - 1) / threads, 1, kSlabColumns / NR);
    const int slabs = static_cast<int>((tiles + slab_tiles - 1) / slab_tiles);
#pragma omp parallel for num_threads(std::min(threads, slabs)) schedule(static) if (threads > 1)
    for (int s = 0; s < slabs; ++s)
    {
        const Index c0 = s * slab_tiles * NR, c1 = std::min(n, (s + 1) * slab_tiles * NR);
        const float* Bs = trans_b ? B + c0 * ldb : B + c0;
        K.a_times_b(A, lda, m, k, Bs, ldb, trans_b, c1 - c0, C + c0, ldc, accumulate, kernels::Lower::None,
                    &scratch);
    }
}

} // namespace

void product(const MatT<float>& A, const MatT<float>& B, MatT<float>& C, bool accumulate)
{
    assert(A.cols() == B.rows() && &C != &A && &C != &B);
    assert(!accumulate || (C.rows() == A.rows() && C.cols() == B.cols()));
    if (const kernels::TrainKernels* K = active_kernels())
    {
        C.resize(A.rows(), B.cols());
        a_times_b_threads(*K, A.data(), A.cols(), A.rows(), A.cols(), B.data(), B.cols(), false, B.cols(),
                          C.data(), C.cols(), accumulate);
        return;
    }
    if (!accumulate)
    {
        gemm(A, B, C);
        return;
    }
    gemm(A, B, sum_space());
    C += sum_space();
}

void product_bt(const MatT<float>& A, const MatT<float>& B, MatT<float>& C, bool accumulate)
{
    assert(A.cols() == B.cols() && &C != &A && &C != &B);
    assert(!accumulate || (C.rows() == A.rows() && C.cols() == B.rows()));
    if (const kernels::TrainKernels* K = active_kernels())
    {
        C.resize(A.rows(), B.rows());
        a_times_b_threads(*K, A.data(), A.cols(), A.rows(), A.cols(), B.data(), B.cols(), true, B.rows(),
                          C.data(), C.cols(), accumulate);
        return;
    }
    if (!accumulate)
    {
        gemm_bt(A, B, C);
        return;
    }
    gemm_bt(A, B, sum_space());
    C += sum_space();
}

void product_at(const MatT<float>& A, const MatT<float>& B, MatT<float>& C)
{
    assert(A.rows() == B.rows() && &C != &A && &C != &B);
    const Index m = A.cols(), n = B.cols(), k = A.rows();
    C.resize(m, n);
    if (const kernels::TrainKernels* K = active_kernels())
    {
        K->at_times_b(A.data(), m, m, k, B.data(), n, n, C.data(), n, kernels::Lower::None);
        return;
    }
    C.setZero(); // the kernel accumulates: C += Aᵀ B
    if (m == 0 || n == 0 || k == 0)
        return;
    // Row-major A is Aᵀ in column-major order, which Eigen's kernel packs as it is: no transposed copy.
    using Gemm = Eigen::internal::general_matrix_matrix_product<Index, float, Eigen::ColMajor, false, float,
                                                                Eigen::RowMajor, false, Eigen::RowMajor, 1>;
    AtBlocking blocking(n, m, k);
    Gemm::run(m, n, k, A.data(), m, B.data(), n, C.data(), 1, n, 1.0f, blocking);
}

void block_product(const float* A, Index lda, const float* B, Index ldb, bool trans_b, float* C, Index ldc,
                   Index m, Index n, Index k, bool accumulate, Lower lower)
{
    if (const kernels::TrainKernels* K = active_kernels())
        K->a_times_b(A, lda, m, k, B, ldb, trans_b, n, C, ldc, accumulate, to_kernels(lower), &scratch);
    else
        reference_product(A, lda, B, ldb, trans_b, C, ldc, m, n, k, accumulate, lower);
}

void block_product_at(const float* A, Index lda, const float* B, Index ldb, float* C, Index ldc, Index m,
                      Index n, Index k, Lower lower)
{
    assert(lower != Lower::C);
    if (const kernels::TrainKernels* K = active_kernels())
        K->at_times_b(A, lda, m, k, B, ldb, n, C, ldc, to_kernels(lower));
    else
        reference_product_at(A, lda, B, ldb, C, ldc, m, n, k, lower);
}

void block_product(const double* A, Index lda, const double* B, Index ldb, bool trans_b, double* C, Index ldc,
                   Index m, Index n, Index k, bool accumulate, Lower lower)
{
    reference_product(A, lda, B, ldb, trans_b, C, ldc, m, n, k, accumulate, lower);
}

void block_product_at(const double* A, Index lda, const double* B, Index ldb, double* C, Index ldc, Index m,
                      Index n, Index k, Lower lower)
{
    assert(lower != Lower::C);
    reference_product_at(A, lda, B, ldb, C, ldc, m, n, k, lower);
}

} // namespace attnlab::train
