// The forward engine's products on AVX-512 (compiled with -mavx512f; kernels.h says why this file includes
// neither Eigen nor the standard library).
#include "core/kernels/kernels.h"

#if defined(__x86_64__) && defined(__AVX512F__)

#include "core/kernels/kernel_util.h"

#include <immintrin.h>

namespace attnlab::kernels
{

namespace
{

// [SECTION] AVX-512 kernel
//
// C (m x n) = A (m x k) op(B), all row-major, blocked as in Goto and van de Geijn's GEMM: for each block of
// kc rows of op(B) and nc of its columns, op(B) is packed once into panels of 64 columns (kc x 64 floats
// each, so the kernel reads them in order), then every 6 rows of A meet every panel in the kernel, which
// keeps a 6 x 64 tile of C in 24 zmm registers through the kc steps: 4 loads and 6 broadcasts for 24 FMAs. A
// is read in place (6 rows at a time, each walked in order), so the narrow products of attention (n = d_k)
// pay no packing for their large left operand. Measured on a 2-core AMD EPYC with AVX-512, whose FMA peak is
// 116 GFLOP/s: 95-114 GFLOP/s on the products of `attnlab bench` (Q K^T, the transposed one, is the
// slowest), against 72-90 for Eigen's kernel on the same products.
constexpr Index MR = 6, NR = 64, KC = 256, NC = 512;

__mmask16 lane_mask(Index valid) // the first `valid` of 16 lanes
{
    return valid >= 16 ? __mmask16(0xFFFF) : valid <= 0 ? __mmask16(0) : __mmask16((1u << valid) - 1u);
}

// One row of the C tile: 64 floats in 4 registers.
struct TileRow
{
    __m512 c0 = _mm512_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
};

// row += a · (b0 b1 b2 b3): one broadcast, 4 FMAs.
inline void fma_row(TileRow& row, float a, __m512 b0, __m512 b1, __m512 b2, __m512 b3)
{
    const __m512 v = _mm512_set1_ps(a);
    row.c0 = _mm512_fmadd_ps(v, b0, row.c0);
    row.c1 = _mm512_fmadd_ps(v, b1, row.c1);
    row.c2 = _mm512_fmadd_ps(v, b2, row.c2);
    row.c3 = _mm512_fmadd_ps(v, b3, row.c3);
}

// v + p[0, 16) (the lanes of m; the others add 0).
inline __m512 add_masked(__m512 v, __mmask16 m, const float* p)
{
    return _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, p));
}

// max(0, v) with v second, so v where v is NaN or ±0, as Eigen's cwiseMax(0). In the masked form with every
// lane set: GCC 12 warns of an uninitialized value inside _mm512_max_ps.
inline __m512 relu(__m512 v)
{
    return _mm512_mask_max_ps(v, __mmask16(0xFFFF), _mm512_setzero_ps(), v);
}

// C[0, cols) = (or +=, when Accumulate) row, the lanes past cols left alone. e, when not null, is the
// epilogue (kernels.h) at this row: bias at the row's first column, add and sum at its first entry. Inlined
// into the kernel: as a call, the row went through the stack and the call cost a vzeroupper, about 5 % of a
// layer at T = 128 (perf).
template <bool Accumulate>
__attribute__((always_inline)) inline void store_row(float* c, const TileRow& tile_row, Index cols,
                                                     const Epilogue* e)
{
    TileRow row = tile_row;
    const __mmask16 m0 = lane_mask(cols), m1 = lane_mask(cols - 16), m2 = lane_mask(cols - 32),
                    m3 = lane_mask(cols - 48);
    if (Accumulate)
    {
        row.c0 = add_masked(row.c0, m0, c);
        row.c1 = add_masked(row.c1, m1, c + 16);
        row.c2 = add_masked(row.c2, m2, c + 32);
        row.c3 = add_masked(row.c3, m3, c + 48);
    }
    if (e && e->bias) // C + b (the sum first, as the pass after the product adds)
    {
        row.c0 = add_masked(row.c0, m0, e->bias);
        row.c1 = add_masked(row.c1, m1, e->bias + 16);
        row.c2 = add_masked(row.c2, m2, e->bias + 32);
        row.c3 = add_masked(row.c3, m3, e->bias + 48);
    }
    if (e && e->relu)
    {
        row.c0 = relu(row.c0);
        row.c1 = relu(row.c1);
        row.c2 = relu(row.c2);
        row.c3 = relu(row.c3);
    }
    _mm512_mask_storeu_ps(c, m0, row.c0);
    _mm512_mask_storeu_ps(c + 16, m1, row.c1);
    _mm512_mask_storeu_ps(c + 32, m2, row.c2);
    _mm512_mask_storeu_ps(c + 48, m3, row.c3);
    if (e && e->sum) // sum = add + C
    {
        _mm512_mask_storeu_ps(e->sum, m0, add_masked(row.c0, m0, e->add));
        _mm512_mask_storeu_ps(e->sum + 16, m1, add_masked(row.c1, m1, e->add + 16));
        _mm512_mask_storeu_ps(e->sum + 32, m2, add_masked(row.c2, m2, e->add + 32));
        _mm512_mask_storeu_ps(e->sum + 48, m3, add_masked(row.c3, m3, e->add + 48));
    }
}

// The epilogue e at row r of a tile whose first entry is e's (its add and sum rows ldc apart); null for null.
inline const Epilogue* epilogue_row(const Epilogue* e, Index r, Index ldc, Epilogue& at)
{
    if (!e)
        return nullptr;
    at = Epilogue{e->bias, e->relu, e->add ? e->add + r * ldc : nullptr, e->sum ? e->sum + r * ldc : nullptr};
    return &at;
}

// C[0, Rows) x [0, cols) = (or +=, when Accumulate) A[0, Rows) x [0, kc) · Bp, with A's rows lda apart and Bp
// one packed panel (kc x 64), then e (may be null) at the tile's first entry. Columns past `cols` are zeros
// in Bp and are masked out of the stores. A tile of fewer than 6 rows (the last of a product whose rows are
// not a multiple of 6: 2 rows at T = 128 and 512) runs only its own rows, where it ran 6 and stored some:
// each entry is the same chain of multiply-adds over k, so the same bits, for a third of the work at 2 rows.
template <bool Accumulate, int Rows>
void kernel_rows(Index kc, const float* A, Index lda, const float* Bp, float* C, Index ldc, Index cols,
                 const Epilogue* e)
{
    const float* a0 = A;
    const float* a1 = A + lda;
    const float* a2 = A + 2 * lda;
    const float* a3 = A + 3 * lda;
    const float* a4 = A + 4 * lda;
    const float* a5 = A + 5 * lda;
    TileRow r0, r1, r2, r3, r4, r5; // 24 zmm registers (4 per row used)
    for (Index k = 0; k < kc; ++k)
    {
        const float* b = Bp + k * NR;
        const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
        const __m512 b2 = _mm512_loadu_ps(b + 32), b3 = _mm512_loadu_ps(b + 48);
        fma_row(r0, a0[k], b0, b1, b2, b3);
        if constexpr (Rows > 1)
            fma_row(r1, a1[k], b0, b1, b2, b3);
        if constexpr (Rows > 2)
            fma_row(r2, a2[k], b0, b1, b2, b3);
        if constexpr (Rows > 3)
            fma_row(r3, a3[k], b0, b1, b2, b3);
        if constexpr (Rows > 4)
            fma_row(r4, a4[k], b0, b1, b2, b3);
        if constexpr (Rows > 5)
            fma_row(r5, a5[k], b0, b1, b2, b3);
    }
    // One call per row by name: an array of the rows would send them through the stack.
    Epilogue at;
    store_row<Accumulate>(C, r0, cols, e);
    if constexpr (Rows > 1)
        store_row<Accumulate>(C + ldc, r1, cols, epilogue_row(e, 1, ldc, at));
    if constexpr (Rows > 2)
        store_row<Accumulate>(C + 2 * ldc, r2, cols, epilogue_row(e, 2, ldc, at));
    if constexpr (Rows > 3)
        store_row<Accumulate>(C + 3 * ldc, r3, cols, epilogue_row(e, 3, ldc, at));
    if constexpr (Rows > 4)
        store_row<Accumulate>(C + 4 * ldc, r4, cols, epilogue_row(e, 4, ldc, at));
    if constexpr (Rows > 5)
        store_row<Accumulate>(C + 5 * ldc, r5, cols, epilogue_row(e, 5, ldc, at));
}

// The tile of `rows` (1 to 6) rows: kernel_rows for that many.
template <bool Accumulate>
void kernel_6x64(Index kc, const float* A, Index lda, const float* Bp, float* C, Index ldc, Index rows,
                 Index cols, const Epilogue* e)
{
    switch (rows)
    {
    case 6:
        return kernel_rows<Accumulate, 6>(kc, A, lda, Bp, C, ldc, cols, e);
    case 5:
        return kernel_rows<Accumulate, 5>(kc, A, lda, Bp, C, ldc, cols, e);
    case 4:
        return kernel_rows<Accumulate, 4>(kc, A, lda, Bp, C, ldc, cols, e);
    case 3:
        return kernel_rows<Accumulate, 3>(kc, A, lda, Bp, C, ldc, cols, e);
    case 2:
        return kernel_rows<Accumulate, 2>(kc, A, lda, Bp, C, ldc, cols, e);
    default:
        return kernel_rows<Accumulate, 1>(kc, A, lda, Bp, C, ldc, cols, e);
    }
}

// Packs op(B)[pc, pc + kc) x [jc, jc + nc) into panels of 64 columns, zero-padded. op(B) = B (k x n,
// ldb apart) or, when TransB, Bᵀ of a B stored n x k.
template <bool TransB>
void pack_b(const float* B, Index ldb, Index pc, Index kc, Index jc, Index nc, float* Bp)
{
    for (Index j0 = 0; j0 < nc; j0 += NR)
    {
        float* panel = Bp + j0 * kc;
        const Index width = min_of(NR, nc - j0);
        if (!TransB)
        {
            for (Index k = 0; k < kc; ++k)
            {
                const float* src = B + (pc + k) * ldb + jc + j0;
                for (Index j = 0; j < width; ++j)
                    panel[k * NR + j] = src[j];
                fill_zero(panel + k * NR + width, NR - width);
            }
            continue;
        }
        if (width < NR)
            fill_zero(panel, kc * NR);
        for (Index j = 0; j < width; ++j)
        {
            const float* src = B + (jc + j0 + j) * ldb + pc;
            for (Index k = 0; k < kc; ++k)
                panel[k * NR + j] = src[k];
        }
    }
}

// C[0, m) x [jc, jc + nc) = (or, past the first block of k, +=) A[0, m) x [pc, pc + kc) · Bp, with Bp that
// block of op(B) packed (kc x nc, in panels of 64 columns). e (may be null): the epilogue, applied when this
// is the last block of k.
void multiply_block(const float* A, Index m, Index k, const float* Bp, Index n, float* C, Index jc, Index nc,
                    Index pc, Index kc, const Epilogue* e = nullptr)
{
    const bool last = pc + kc >= k;
    for (Index i = 0; i < m; i += MR)
        for (Index j0 = 0; j0 < nc; j0 += NR)
        {
            const Index rows = min_of(MR, m - i), cols = min_of(NR, nc - j0);
            float* c = C + i * n + jc + j0;
            Epilogue at;
            const Epilogue* tile_e = nullptr;
            if (e && last) // the epilogue at the tile's first entry
            {
                const Index entry = i * n + jc + j0;
                at = Epilogue{e->bias ? e->bias + jc + j0 : nullptr, e->relu,
                              e->add ? e->add + entry : nullptr, e->sum ? e->sum + entry : nullptr};
                tile_e = &at;
            }
            if (pc == 0) // the first block of k writes C, the others add to it
                kernel_6x64<false>(kc, A + i * k + pc, k, Bp + j0 * kc, c, n, rows, cols, tile_e);
            else
                kernel_6x64<true>(kc, A + i * k + pc, k, Bp + j0 * kc, c, n, rows, cols, tile_e);
        }
}

template <bool TransB>
void rows_product(const float* A, Index m, Index k, const float* B, Index n, float* C, ScratchFn scratch)
{
    const Index ldb = TransB ? k : n;
    float* Bp = scratch(KC * ((min_of(NC, n) + NR - 1) / NR * NR));
    for (Index jc = 0; jc < n; jc += NC)
    {
        const Index nc = min_of(NC, n - jc);
        for (Index pc = 0; pc < k; pc += KC)
        {
            const Index kc = min_of(KC, k - pc);
            pack_b<TransB>(B, ldb, pc, kc, jc, nc, Bp);
            multiply_block(A, m, k, Bp, n, C, jc, nc, pc, kc);
        }
    }
}

void rows_product_any(bool trans_b, const float* A, Index m, Index k, const float* B, Index n, float* C,
                      ScratchFn scratch)
{
    if (trans_b)
        rows_product<true>(A, m, k, B, n, C, scratch);
    else
        rows_product<false>(A, m, k, B, n, C, scratch);
}

// [SECTION] op(B) packed once
//
// Every block rows_product packs, one after another in the order it reads them: the blocks of NC columns in
// turn, each with its blocks of KC rows in turn, a block of kc rows and nc columns taking kc x (nc rounded up
// to 64) floats. The products with it run the same kernel calls on the same panels, so they give the same
// bits as packing per product.

// Where block (jc, pc) starts: the column blocks before it are NC wide, a multiple of 64.
Index packed_block_at(Index k, Index n, Index jc, Index pc)
{
    return jc * k + pc * ((min_of(NC, n - jc) + NR - 1) / NR * NR);
}

Index packed_floats(Index k, Index n)
{
    return (n + NR - 1) / NR * NR * k;
}

void pack_whole(bool trans_b, const float* B, Index k, Index n, float* Bp)
{
    for (Index jc = 0; jc < n; jc += NC)
        for (Index pc = 0; pc < k; pc += KC)
        {
            const Index nc = min_of(NC, n - jc), kc = min_of(KC, k - pc);
            float* block = Bp + packed_block_at(k, n, jc, pc);
            if (trans_b)
                pack_b<true>(B, k, pc, kc, jc, nc, block);
            else
                pack_b<false>(B, n, pc, kc, jc, nc, block);
        }
}

void rows_product_packed(const float* A, Index m, Index k, const float* Bp, Index n, float* C,
                         const Epilogue* epilogue)
{
    for (Index jc = 0; jc < n; jc += NC)
        for (Index pc = 0; pc < k; pc += KC)
            multiply_block(A, m, k, Bp + packed_block_at(k, n, jc, pc), n, C, jc, min_of(NC, n - jc), pc,
                           min_of(KC, k - pc), epilogue);
}

const GemmKernels kAvx512{"avx512-6x64", &rows_product_any, &packed_floats, &pack_whole,
                          &rows_product_packed};

} // namespace

const GemmKernels* gemm_kernels_avx512()
{
    return &kAvx512;
}

} // namespace attnlab::kernels

#else // not built for x86-64 with AVX-512: no such set

namespace attnlab::kernels
{

const GemmKernels* gemm_kernels_avx512()
{
    return nullptr;
}

} // namespace attnlab::kernels

#endif
