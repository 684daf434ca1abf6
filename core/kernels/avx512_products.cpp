// The training engine's products on AVX-512 (compiled with -mavx512f and AVX2's flags; kernels.h says why
// this file includes neither Eigen nor the standard library): the AVX2 set's structure with 16-lane
// registers.
#include "core/kernels/kernels.h"

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)

#include "core/kernels/kernel_util.h"

#include <immintrin.h>

namespace attnlab::kernels
{

namespace
{

// [SECTION] AVX-512 kernels
//
// A tile of C of 6 rows by 32 columns lives in 12 zmm registers through the whole sum over k: each step
// loads 32 numbers of B (2 registers), broadcasts one number of A per row (6) and does 12 multiply-adds of
// 16 lanes, twice the work of the AVX2 tile per instruction. Each entry of C is the same multiply-add chain
// over k as in the AVX2 set, so both give the same bits. Ragged columns are masked (AVX-512's mask
// registers); the packing, the blocking and the causal skips are the AVX2 set's, with 32-column panels.
constexpr Index MR = 6, NR = 32;
// Rows of A per block for the training shapes (kernel_util.h's row_block).
constexpr Index MC = 48;

// The first `valid` of 16 lanes set (valid clamped to [0, 16]).
inline __mmask16 lane_mask(Index valid)
{
    return valid >= 16 ? __mmask16(0xFFFF) : valid <= 0 ? __mmask16(0) : __mmask16((1u << valid) - 1u);
}

// One row of a tile: 32 numbers, cols of them stored (= or +=, when Accumulate), the others untouched.
template <bool Accumulate> inline void store_row(float* c, __m512 lo, __m512 hi, Index cols)
{
    if (cols >= NR)
    {
        if (Accumulate)
        {
            lo = _mm512_add_ps(lo, _mm512_loadu_ps(c));
            hi = _mm512_add_ps(hi, _mm512_loadu_ps(c + 16));
        }
        _mm512_storeu_ps(c, lo);
        _mm512_storeu_ps(c + 16, hi);
        return;
    }
    const __mmask16 m0 = lane_mask(cols), m1 = lane_mask(cols - 16);
    if (Accumulate)
    {
        lo = _mm512_add_ps(lo, _mm512_maskz_loadu_ps(m0, c));
        hi = _mm512_add_ps(hi, _mm512_maskz_loadu_ps(m1, c + 16));
    }
    _mm512_mask_storeu_ps(c, m0, lo);
    _mm512_mask_storeu_ps(c + 16, m1, hi);
}

// (lo, hi) += a · (b0, b1): one row of a tile, one step of k.
inline void fma_row(const float* a, __m512 b0, __m512 b1, __m512& lo, __m512& hi)
{
    const __m512 v = _mm512_set1_ps(*a);
    lo = _mm512_fmadd_ps(v, b0, lo);
    hi = _mm512_fmadd_ps(v, b1, hi);
}

// Where a kernel finds A and B: A(r, p) at a + r·a_row + p·a_step (a row-major A read in place: a_row = lda,
// a_step = 1; Aᵀ read in place: a_row = 1, a_step = lda), B(p, 0..32) at b + p·b_step (a packed panel:
// b_step = 32; a row-major B read in place: b_step = ldb).
struct Operands
{
    const float* a;
    Index a_row, a_step;
    const float* b;
    Index b_step;
};

// C[0, rows) x [0, cols) = (or +=, when Accumulate) Σ_{p < k} A[0, rows)(p) B(p)[0, cols). Rows past `rows`
// read row 0 again and are not stored; columns past `cols` are zeros in a packed B, or masked out of the
// loads of an unpacked one (MaskB), and are not stored.
template <bool Accumulate, bool MaskB>
void kernel(Index k, const Operands& o, float* C, Index ldc, Index rows, Index cols)
{
    const float* a0 = o.a;
    const float* a1 = o.a + (rows > 1 ? o.a_row : 0);
    const float* a2 = o.a + (rows > 2 ? 2 * o.a_row : 0);
    const float* a3 = o.a + (rows > 3 ? 3 * o.a_row : 0);
    const float* a4 = o.a + (rows > 4 ? 4 * o.a_row : 0);
    const float* a5 = o.a + (rows > 5 ? 5 * o.a_row : 0);
    const float* b = o.b;
    const __mmask16 m0 = lane_mask(cols), m1 = lane_mask(cols - 16);
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m512 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (Index p = 0, at = 0; p < k; ++p, at += o.a_step, b += o.b_step)
    {
        const __m512 b0 = MaskB ? _mm512_maskz_loadu_ps(m0, b) : _mm512_loadu_ps(b);
        const __m512 b1 = MaskB ? _mm512_maskz_loadu_ps(m1, b + 16) : _mm512_loadu_ps(b + 16);
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

// One tile, the kernel picked by its flags.
void tile(bool accumulate, bool mask_b, Index k, const Operands& o, float* C, Index ldc, Index rows,
          Index cols)
{
    if (accumulate)
        mask_b ? kernel<true, true>(k, o, C, ldc, rows, cols) : kernel<true, false>(k, o, C, ldc, rows, cols);
    else
        mask_b ? kernel<false, true>(k, o, C, ldc, rows, cols)
               : kernel<false, false>(k, o, C, ldc, rows, cols);
}

// out[c·ldo + r] = in[r·ldi + c] for an 8 x 8 block: eight rows in, eight columns out.
inline void transpose8(const float* in, Index ldi, float* out, Index ldo)
{
    __m256 r0 = _mm256_loadu_ps(in), r1 = _mm256_loadu_ps(in + ldi), r2 = _mm256_loadu_ps(in + 2 * ldi),
           r3 = _mm256_loadu_ps(in + 3 * ldi), r4 = _mm256_loadu_ps(in + 4 * ldi),
           r5 = _mm256_loadu_ps(in + 5 * ldi), r6 = _mm256_loadu_ps(in + 6 * ldi),
           r7 = _mm256_loadu_ps(in + 7 * ldi);
    // pairs of rows interleaved, then pairs of pairs, then the 128-bit halves swapped into place
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    const __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    r0 = _mm256_shuffle_ps(t0, t2, 0x44);
    r1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    r2 = _mm256_shuffle_ps(t1, t3, 0x44);
    r3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    r4 = _mm256_shuffle_ps(t4, t6, 0x44);
    r5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    r6 = _mm256_shuffle_ps(t5, t7, 0x44);
    r7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    _mm256_storeu_ps(out, _mm256_permute2f128_ps(r0, r4, 0x20));
    _mm256_storeu_ps(out + ldo, _mm256_permute2f128_ps(r1, r5, 0x20));
    _mm256_storeu_ps(out + 2 * ldo, _mm256_permute2f128_ps(r2, r6, 0x20));
    _mm256_storeu_ps(out + 3 * ldo, _mm256_permute2f128_ps(r3, r7, 0x20));
    _mm256_storeu_ps(out + 4 * ldo, _mm256_permute2f128_ps(r0, r4, 0x31));
    _mm256_storeu_ps(out + 5 * ldo, _mm256_permute2f128_ps(r1, r5, 0x31));
    _mm256_storeu_ps(out + 6 * ldo, _mm256_permute2f128_ps(r2, r6, 0x31));
    _mm256_storeu_ps(out + 7 * ldo, _mm256_permute2f128_ps(r3, r7, 0x31));
}

// Bᵀ (k x n) of a B stored n x k (rows ldb apart) into panels of NR (32) columns, panel j0/NR at Bp + j0·k,
// each k x NR, zero past column n.
void pack_bt(const float* B, Index ldb, Index k, Index n, float* Bp)
{
    for (Index j0 = 0; j0 < n; j0 += NR)
    {
        float* panel = Bp + j0 * k;
        const Index width = min_of(NR, n - j0);
        if (width < NR)
            fill_zero(panel, k * NR);
        Index j = 0;
        for (; j + 8 <= width; j += 8) // 8 x 8 blocks in registers
        {
            const float* src = B + (j0 + j) * ldb;
            Index p = 0;
            for (; p + 8 <= k; p += 8)
                transpose8(src + p, ldb, panel + p * NR + j, NR);
            for (; p < k; ++p)
                for (Index u = 0; u < 8; ++u)
                    panel[p * NR + j + u] = src[u * ldb + p];
        }
        for (; j < width; ++j)
        {
            const float* src = B + (j0 + j) * ldb;
            for (Index p = 0; p < k; ++p)
                panel[p * NR + j] = src[p];
        }
    }
}

// C (m x n, rows ldc apart) = (or +=) A (m x k, rows lda apart) op(B): B (k x n, rows ldb apart) read in
// place, or Bᵀ of a B stored n x k packed first. Tiles of 6 rows by 32 columns, the rows in blocks
// (kernel_util.h's row_block).
void a_times_b(const float* A, Index lda, Index m, Index k, const float* B, Index ldb, bool trans_b, Index n,
               float* C, Index ldc, bool accumulate, Lower lower, ScratchFn scratch)
{
    const float* Bp = B;
    if (trans_b)
    {
        float* packed = scratch((n + NR - 1) / NR * NR * max_of(k, 1));
        pack_bt(B, ldb, k, n, packed);
        Bp = packed;
    }
    const Index mc = row_block(m, k, MC, MR);
    for (Index i0 = 0; i0 < m; i0 += mc)
    {
        const Index i1 = min_of(m, i0 + mc);
        for (Index j0 = 0; j0 < n; j0 += NR)
        {
            const Index cols = min_of(NR, n - j0);
            const Operands o{nullptr, lda, 1, trans_b ? Bp + j0 * k : B + j0, trans_b ? NR : ldb};
            for (Index i = i0; i < i1; i += MR)
            {
                const Index rows = min_of(MR, i1 - i);
                if (lower == Lower::C && j0 >= i + rows)
                    continue; // wholly above the diagonal
                // Lower::A: the tile's rows have no weight past column i + rows - 1
                const Index kk = lower == Lower::A ? min_of(k, i + rows) : k;
                Operands oi = o;
                oi.a = A + i * lda;
                tile(accumulate, !trans_b && cols < NR, kk, oi, C + i * ldc + j0, ldc, rows, cols);
            }
        }
    }
}

// Rows of Aᵀ B's sum per block: the tile's slice of A and a panel's slice of B (KC x 32) stay in the
// first-level cache while the tiles of a panel pass.
constexpr Index KC = 128;

// C (m x n) = Aᵀ B, A (k x m), B (k x n), rows lda, ldb, ldc apart, both read in place (A's row p gives a
// tile's 6 rows side by side, B's row p its 32 columns). The sum runs in blocks of KC rows; each tile's
// first block writes C, the others add to it. Lower::A: tile i's sum starts at row i (A is zero above it).
void at_times_b(const float* A, Index lda, Index m, Index k, const float* B, Index ldb, Index n, float* C,
                Index ldc, Lower lower)
{
    for (Index i = 0; i < m && k == 0; ++i)
        fill_zero(C + i * ldc, n);
    for (Index p0 = 0; p0 < k; p0 += KC)
    {
        const Index kc = min_of(KC, k - p0);
        for (Index j0 = 0; j0 < n; j0 += NR)
        {
            const Index cols = min_of(NR, n - j0);
            for (Index i = 0; i < m; i += MR)
            {
                const Index rows = min_of(MR, m - i);
                const Index start = lower == Lower::A ? max_of(0, i - p0) : 0;
                if (start >= kc)
                    continue; // the tile's sum starts in a later block
                const bool first = lower == Lower::A ? p0 <= i : p0 == 0;
                const Index p = p0 + start;
                const Operands o{A + p * lda + i, 1, lda, B + p * ldb + j0, ldb};
                tile(!first, cols < NR, kc - start, o, C + i * ldc + j0, ldc, rows, cols);
            }
        }
    }
}

// The rows (softmax, LayerNorm) are the AVX2 set's: short rows gain little from 16 lanes, and the two sets
// keep the same bits.
const TrainKernels kAvx512{"avx512-6x32",
                           NR,
                           &a_times_b,
                           &at_times_b,
                           &softmax_row_avx2,
                           &layer_norm_rows_avx2,
                           &layer_norm_backward_rows_avx2};

} // namespace

const TrainKernels* train_kernels_avx512()
{
    return &kAvx512;
}

} // namespace attnlab::kernels

#else // not built for x86-64 with AVX-512: no such set

namespace attnlab::kernels
{

const TrainKernels* train_kernels_avx512()
{
    return nullptr;
}

} // namespace attnlab::kernels

#endif
