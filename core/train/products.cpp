// Matrix products of the training engine in float. The shapes of a training step are many rows (B·T, about
// a thousand) by few columns (d_model, d_k·h, d_ff: 32 to 256), tens of products a step. Eigen's GEMM packs
// both operands of every product and accumulates into a C it needs zeroed first; here the many-row operand is
// read in place and only the small one is packed (or nothing is, for Aᵀ B), so the products spend their time
// in the multiply-adds. Every sum runs in a fixed order: the same inputs give the same bits.
#include "products.h"

#include "core/gemm.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

#if defined(__AVX2__) && defined(__FMA__) && !defined(ATTNLAB_TRAIN_PRODUCTS_EIGEN)
#define ATTNLAB_TRAIN_AVX2 1
#include <immintrin.h>
#endif

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

#ifdef ATTNLAB_TRAIN_AVX2

// [SECTION] AVX2 kernels
//
// A tile of C of 6 rows by 16 columns lives in 12 ymm registers through the whole sum over k: each step
// loads 16 numbers of B (2 registers), broadcasts one number of A per row (6) and does 12 multiply-adds,
// enough independent sums to keep both FMA units busy through their latency. 16 columns divide every
// width of the presets (d_model 32, 48, 64; d_ff 4 d_model) with no waste; narrower or ragged columns are
// masked.
constexpr Index MR = 6, NR = 16;
// Rows of A per block: their k values stay in the first-level cache while every panel of B passes by.
constexpr Index MC = 48;

// The first `valid` of 8 lanes set (valid clamped to [0, 8]).
__m256i lane_mask(Index valid)
{
    alignas(32) static const std::int32_t table[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                       0,  0,  0,  0,  0,  0,  0,  0};
    const Index v = std::clamp<Index>(valid, 0, 8);
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(table + 8 - v));
}

// c[0, valid) = (or +=, when Accumulate) v's lanes, valid of 8; the others untouched.
template <bool Accumulate> inline void store8(float* c, __m256 v, Index valid)
{
    if (valid >= 8)
    {
        if (Accumulate)
            v = _mm256_add_ps(v, _mm256_loadu_ps(c));
        _mm256_storeu_ps(c, v);
    }
    else if (valid > 0)
    {
        const __m256i m = lane_mask(valid);
        if (Accumulate)
            v = _mm256_add_ps(v, _mm256_maskload_ps(c, m));
        _mm256_maskstore_ps(c, m, v);
    }
}

// One row of a tile: 16 numbers, cols of them stored.
template <bool Accumulate> inline void store_row(float* c, __m256 lo, __m256 hi, Index cols)
{
    store8<Accumulate>(c, lo, cols);
    store8<Accumulate>(c + 8, hi, cols - 8);
}

// (lo, hi) += a · (b0, b1): one row of a tile, one step of k.
inline void fma_row(const float* a, __m256 b0, __m256 b1, __m256& lo, __m256& hi)
{
    const __m256 v = _mm256_broadcast_ss(a);
    lo = _mm256_fmadd_ps(v, b0, lo);
    hi = _mm256_fmadd_ps(v, b1, hi);
}

// C[0, rows) x [0, cols) = (or +=) A[0, rows) x [0, k) · Bp, Bp one packed panel (k x 16, zero past the
// product's last column). A(r, p) is at A + r·lda + p·PStep: rows of a row-major matrix read in place
// (PStep 1), or a packed tile of Aᵀ (lda 1, PStep 6). Rows past `rows` read row 0 again and are not stored.
template <bool Accumulate, Index PStep>
void kernel(Index k, const float* A, Index lda, const float* __restrict Bp, float* C, Index ldc, Index rows,
            Index cols)
{
    const float* a0 = A;
    const float* a1 = A + (rows > 1 ? lda : 0);
    const float* a2 = A + (rows > 2 ? 2 * lda : 0);
    const float* a3 = A + (rows > 3 ? 3 * lda : 0);
    const float* a4 = A + (rows > 4 ? 4 * lda : 0);
    const float* a5 = A + (rows > 5 ? 5 * lda : 0);
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (Index p = 0; p < k; ++p)
    {
        const __m256 b0 = _mm256_load_ps(Bp + p * NR), b1 = _mm256_load_ps(Bp + p * NR + 8);
        const Index at = p * PStep;
        fma_row(a0 + at, b0, b1, c00, c01);
        fma_row(a1 + at, b0, b1, c10, c11);
        fma_row(a2 + at, b0, b1, c20, c21);
        fma_row(a3 + at, b0, b1, c30, c31);
        fma_row(a4 + at, b0, b1, c40, c41);
        fma_row(a5 + at, b0, b1, c50, c51);
    }
    store_row<Accumulate>(C, c00, c01, cols);
    if (rows > 1)
        store_row<Accumulate>(C + ldc, c10, c11, cols);
    if (rows > 2)
        store_row<Accumulate>(C + 2 * ldc, c20, c21, cols);
    if (rows > 3)
        store_row<Accumulate>(C + 3 * ldc, c30, c31, cols);
    if (rows > 4)
        store_row<Accumulate>(C + 4 * ldc, c40, c41, cols);
    if (rows > 5)
        store_row<Accumulate>(C + 5 * ldc, c50, c51, cols);
}

// Packs op(B) (k x n) into panels of 16 columns, panel j0/16 at Bp + j0·k, each k x 16, zero past column n.
// op(B) = B (k x n, rows ldb apart) or, when TransB, Bᵀ of a B stored n x k.
template <bool TransB> void pack_b(const float* B, Index ldb, Index k, Index n, float* Bp)
{
    for (Index j0 = 0; j0 < n; j0 += NR)
    {
        float* panel = Bp + j0 * k;
        const Index width = std::min(NR, n - j0);
        if (!TransB)
        {
            // 16 numbers a row, loaded and stored whole (a library copy call per row cost more than the
            // copy); the lanes past n load as zeros.
            const __m256i m0 = lane_mask(width), m1 = lane_mask(width - 8);
            for (Index p = 0; p < k; ++p)
            {
                const float* src = B + p * ldb + j0;
                _mm256_store_ps(panel + p * NR, _mm256_maskload_ps(src, m0));
                _mm256_store_ps(panel + p * NR + 8, _mm256_maskload_ps(src + 8, m1));
            }
            continue;
        }
        if (width < NR)
            std::fill(panel, panel + k * NR, 0.0f);
        for (Index j = 0; j < width; ++j)
        {
            const float* src = B + (j0 + j) * ldb;
            for (Index p = 0; p < k; ++p)
                panel[p * NR + j] = src[p];
        }
    }
}

// C (m x n, rows ldc apart) = (or +=) A (m x k, rows lda apart) op(B), op(B) packed from B (rows ldb apart).
template <bool TransB>
void a_times_b(const float* A, Index lda, Index m, Index k, const float* B, Index ldb, Index n, float* C,
               Index ldc, bool accumulate, Lower lower)
{
    const Index panels = (n + NR - 1) / NR;
    float* Bp = scratch(panels * NR * std::max<Index>(k, 1));
    pack_b<TransB>(B, ldb, k, n, Bp);
    for (Index i0 = 0; i0 < m; i0 += MC)
    {
        const Index i1 = std::min(m, i0 + MC);
        for (Index j0 = 0; j0 < n; j0 += NR)
        {
            const Index cols = std::min(NR, n - j0);
            for (Index i = i0; i < i1; i += MR)
            {
                const Index rows = std::min(MR, i1 - i);
                if (lower == Lower::C && j0 >= i + rows)
                    continue; // wholly above the diagonal
                // Lower::A: the tile's rows have no weight past column i + rows - 1
                const Index kk = lower == Lower::A ? std::min(k, i + rows) : k;
                const float* a = A + i * lda;
                float* c = C + i * ldc + j0;
                if (accumulate)
                    kernel<true, 1>(kk, a, lda, Bp + j0 * k, c, ldc, rows, cols);
                else
                    kernel<false, 1>(kk, a, lda, Bp + j0 * k, c, ldc, rows, cols);
            }
        }
    }
}

// Packs rows [p0, p0 + kc) of A (columns 0..m, rows lda apart) as Aᵀ in tiles of 6 rows: tile i0/6 at
// Ap + i0·kc, holding A(p0 + p, i0 + r) at p·6 + r, zero past column m.
void pack_at(const float* A, Index lda, Index m, Index p0, Index kc, float* Ap)
{
    for (Index i0 = 0; i0 < m; i0 += MR)
    {
        float* tile = Ap + i0 * kc;
        const Index width = std::min(MR, m - i0);
        for (Index p = 0; p < kc; ++p)
        {
            const float* src = A + (p0 + p) * lda + i0;
            float* dst = tile + p * MR;
            if (width == MR)
                for (Index r = 0; r < MR; ++r) // a fixed count: moves, not a library call
                    dst[r] = src[r];
            else
                for (Index r = 0; r < MR; ++r)
                    dst[r] = r < width ? src[r] : 0.0f;
        }
    }
}

// Rows of Aᵀ B's sum per block: a packed tile of Aᵀ (6 KB) and a panel of B (16 KB) fit the first-level
// cache.
constexpr Index KC = 256;

// C (m x n) = Aᵀ B, A (k x m), B (k x n), rows lda, ldb, ldc apart: blocks of KC rows of A and B are packed
// (Aᵀ in tiles, B in panels), then every tile meets every panel; each tile's first block writes C, the
// others add to it. Lower::A: tile i's sum starts at row i of A and B (A is zero above it).
void at_times_b(const float* A, Index lda, Index m, Index k, const float* B, Index ldb, Index n, float* C,
                Index ldc, Lower lower)
{
    const Index m6 = (m + MR - 1) / MR * MR, n16 = (n + NR - 1) / NR * NR;
    const Index kc_max = std::max<Index>(1, std::min(KC, k));
    float* Bp = scratch(m6 * kc_max + n16 * kc_max); // the panels first: aligned
    float* Ap = Bp + n16 * kc_max;
    for (Index i = 0; i < m && k == 0; ++i)
        std::fill(C + i * ldc, C + i * ldc + n, 0.0f);
    for (Index p0 = 0; p0 < k; p0 += KC)
    {
        const Index kc = std::min(KC, k - p0);
        pack_at(A, lda, m, p0, kc, Ap);
        pack_b<false>(B + p0 * ldb, ldb, kc, n, Bp);
        for (Index j0 = 0; j0 < n; j0 += NR)
        {
            const Index cols = std::min(NR, n - j0);
            for (Index i = 0; i < m; i += MR)
            {
                const Index rows = std::min(MR, m - i);
                const Index start = lower == Lower::A ? std::max<Index>(0, i - p0) : 0;
                if (start >= kc)
                    continue; // the tile's sum starts in a later block
                const bool first = lower == Lower::A ? p0 <= i : p0 == 0;
                const float* a = Ap + i * kc + start * MR;
                const float* b = Bp + j0 * kc + start * NR;
                float* c = C + i * ldc + j0;
                if (first)
                    kernel<false, MR>(kc - start, a, 1, b, c, ldc, rows, cols);
                else
                    kernel<true, MR>(kc - start, a, 1, b, c, ldc, rows, cols);
            }
        }
    }
}

#else // no AVX2: core's gemm for A B and A Bᵀ, Eigen's kernel for Aᵀ B

// Eigen's blocking for Cᵀ = Bᵀ A (the column-major product Eigen runs for a row-major C = Aᵀ B), with the
// packed panels in this thread's scratch (Eigen's operator* would take them from malloc past 128 KB).
class AtBlocking : public Eigen::internal::level3_blocking<float, float>
{
public:
    AtBlocking(Index rows, Index cols, Index depth)
    {
        m_mc = rows;
        m_nc = cols;
        m_kc = depth;
        Eigen::internal::computeProductBlockingSizes<float, float, 1>(m_kc, m_mc, m_nc, Index{1});
        constexpr Index align = 16; // the second panel starts 64-byte aligned
        const Index size_a = (m_kc * m_mc + align - 1) / align * align;
        m_blockA = scratch(size_a + m_kc * m_nc);
        m_blockB = m_blockA + size_a;
    }
};

// C += product, through a per-thread matrix that only grows.
MatT<float>& sum_space()
{
    thread_local MatT<float> space;
    return space;
}

#endif

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

void product(const MatT<float>& A, const MatT<float>& B, MatT<float>& C, bool accumulate)
{
    assert(A.cols() == B.rows() && &C != &A && &C != &B);
    assert(!accumulate || (C.rows() == A.rows() && C.cols() == B.cols()));
#ifdef ATTNLAB_TRAIN_AVX2
    C.resize(A.rows(), B.cols());
    a_times_b<false>(A.data(), A.cols(), A.rows(), A.cols(), B.data(), B.cols(), B.cols(), C.data(), C.cols(),
                     accumulate, Lower::None);
#else
    if (!accumulate)
    {
        gemm(A, B, C);
        return;
    }
    gemm(A, B, sum_space());
    C += sum_space();
#endif
}

void product_bt(const MatT<float>& A, const MatT<float>& B, MatT<float>& C, bool accumulate)
{
    assert(A.cols() == B.cols() && &C != &A && &C != &B);
    assert(!accumulate || (C.rows() == A.rows() && C.cols() == B.rows()));
#ifdef ATTNLAB_TRAIN_AVX2
    C.resize(A.rows(), B.rows());
    a_times_b<true>(A.data(), A.cols(), A.rows(), A.cols(), B.data(), B.cols(), B.rows(), C.data(), C.cols(),
                    accumulate, Lower::None);
#else
    if (!accumulate)
    {
        gemm_bt(A, B, C);
        return;
    }
    gemm_bt(A, B, sum_space());
    C += sum_space();
#endif
}

void product_at(const MatT<float>& A, const MatT<float>& B, MatT<float>& C)
{
    assert(A.rows() == B.rows() && &C != &A && &C != &B);
    const Index m = A.cols(), n = B.cols(), k = A.rows();
    C.resize(m, n);
#ifdef ATTNLAB_TRAIN_AVX2
    at_times_b(A.data(), m, m, k, B.data(), n, n, C.data(), n, Lower::None);
#else
    C.setZero(); // the kernel accumulates: C += Aᵀ B
    if (m == 0 || n == 0 || k == 0)
        return;
    // Row-major A is Aᵀ in column-major order, which Eigen's kernel packs as it is: no transposed copy.
    using Gemm = Eigen::internal::general_matrix_matrix_product<Index, float, Eigen::ColMajor, false, float,
                                                                Eigen::RowMajor, false, Eigen::RowMajor, 1>;
    AtBlocking blocking(n, m, k);
    Gemm::run(m, n, k, A.data(), m, B.data(), n, C.data(), 1, n, 1.0f, blocking);
#endif
}

void block_product(const float* A, Index lda, const float* B, Index ldb, bool trans_b, float* C, Index ldc,
                   Index m, Index n, Index k, bool accumulate, Lower lower)
{
#ifdef ATTNLAB_TRAIN_AVX2
    if (trans_b)
        a_times_b<true>(A, lda, m, k, B, ldb, n, C, ldc, accumulate, lower);
    else
        a_times_b<false>(A, lda, m, k, B, ldb, n, C, ldc, accumulate, lower);
#else
    reference_product(A, lda, B, ldb, trans_b, C, ldc, m, n, k, accumulate, lower);
#endif
}

void block_product_at(const float* A, Index lda, const float* B, Index ldb, float* C, Index ldc, Index m,
                      Index n, Index k, Lower lower)
{
    assert(lower != Lower::C);
#ifdef ATTNLAB_TRAIN_AVX2
    at_times_b(A, lda, m, k, B, ldb, n, C, ldc, lower);
#else
    reference_product_at(A, lda, B, ldb, C, ldc, m, n, k, lower);
#endif
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

const char* product_kernel()
{
#ifdef ATTNLAB_TRAIN_AVX2
    return "avx2-6x16";
#else
    return "eigen";
#endif
}

} // namespace attnlab::train
