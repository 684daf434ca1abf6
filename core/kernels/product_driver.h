// The blocking around a product kernel: packing a transposed B, C = A op(B) and C = Aᵀ B in tiles, with the
// causal skips. Shared text of the per-instruction-set files (avx2_products.cpp, avx512_products.cpp), which
// include it inside their anonymous namespace after defining MR and NR (the tile), MC (rows per block) and
// tile(): each copy is compiled with its file's flags and stays private to it (kernels.h says why). The
// transposes run on 8 x 8 AVX blocks, which both sets have.
#pragma once

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

// Bᵀ (k x n) of a B stored n x k (rows ldb apart) into panels of NR columns, panel j0/NR at Bp + j0·k, each
// k x NR, zero past column n.
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
// place, or Bᵀ of a B stored n x k packed first. Tiles of MR rows by NR columns, the rows in blocks
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

// Rows of Aᵀ B's sum per block: the tile's slice of A and a panel's slice of B (KC x NR) stay in the
// first-level cache while the tiles of a panel pass.
constexpr Index KC = 128;

// C (m x n) = Aᵀ B, A (k x m), B (k x n), rows lda, ldb, ldc apart, both read in place (A's row p gives a
// tile's MR rows side by side, B's row p its NR columns). The sum runs in blocks of KC rows; each tile's
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
