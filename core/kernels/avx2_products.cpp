// The training engine's products on AVX2 with FMA (compiled with -mavx2 -mfma; kernels.h says why this
// file includes neither Eigen nor the standard library). Measured on one core of an AVX2 EPYC: 82-98 GFLOP/s
// on the preset shapes (1024 rows, warm caches), against 51-67 for Eigen's kernel.
#include "core/kernels/kernels.h"

#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)

#include "core/kernels/kernel_util.h"

#include <immintrin.h>

namespace attnlab::kernels
{

namespace
{

// [SECTION] AVX2 kernels
//
// A tile of C of 6 rows by 16 columns lives in 12 ymm registers through the whole sum over k: each step
// loads 16 numbers of B (2 registers), broadcasts one number of A per row (6) and does 12 multiply-adds,
// enough independent sums to keep both FMA units busy through their latency. 16 columns divide every
// width of the presets (d_model 32, 48, 64; d_ff 4 d_model) with no waste; narrower or ragged columns are
// masked.
constexpr Index MR = 6, NR = 16;
// Rows of A per block for the training shapes (kernel_util.h's row_block).
constexpr Index MC = 48;

// The first `valid` of 8 lanes set (valid clamped to [0, 8]).
__m256i lane_mask(Index valid)
{
    alignas(32) static const int table[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    const Index v = valid < 0 ? 0 : valid > 8 ? 8 : valid;
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

// 8 lanes of p, valid of them read (the others 0).
inline __m256 load8(const float* p, Index valid)
{
    return valid >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, lane_mask(valid));
}

// One row of a tile stored with the epilogue (kernels.h) at this row: bias from the tile's first column,
// add and sum at the row's first entry. The same operations in the same order as the passes after the
// product (C + b, max(0, C) with C second so a NaN or ±0 stays C as in Eigen's cwiseMax(0), add + C).
inline void store_row_epilogue(float* c, __m256 lo, __m256 hi, Index cols, const Epilogue& e, Index j0)
{
    if (e.bias)
    {
        lo = _mm256_add_ps(lo, load8(e.bias + j0, cols));
        hi = _mm256_add_ps(hi, load8(e.bias + j0 + 8, cols - 8));
    }
    if (e.relu)
    {
        lo = _mm256_max_ps(_mm256_setzero_ps(), lo);
        hi = _mm256_max_ps(_mm256_setzero_ps(), hi);
    }
    store8<false>(c, lo, cols);
    store8<false>(c + 8, hi, cols - 8);
    if (e.sum)
    {
        store8<false>(e.sum, _mm256_add_ps(load8(e.add, cols), lo), cols);
        store8<false>(e.sum + 8, _mm256_add_ps(load8(e.add + 8, cols - 8), hi), cols - 8);
    }
}

// (lo, hi) += a · (b0, b1): one row of a tile, one step of k.
inline void fma_row(const float* a, __m256 b0, __m256 b1, __m256& lo, __m256& hi)
{
    const __m256 v = _mm256_broadcast_ss(a);
    lo = _mm256_fmadd_ps(v, b0, lo);
    hi = _mm256_fmadd_ps(v, b1, hi);
}

// C[0, rows) x [0, cols) = (or +=, when Accumulate) Σ_{p < k} A[0, rows)(p) B(p)[0, cols). Rows past `rows`
// read row 0 again and are not stored; columns past `cols` are zeros in a packed B, or masked out of the
// loads of an unpacked one (MaskB), and are not stored. FromC: the sums start from C's entries instead of 0,
// so a sum over k cut into blocks goes on as one chain of multiply-adds (C holds the chain's value, exactly).
// e (not with Accumulate; may be null): the epilogue at the tile's first entry, its bias at column j0.
template <bool Accumulate, bool MaskB, bool FromC = false>
void kernel(Index k, const Operands& o, float* C, Index ldc, Index rows, Index cols,
            const Epilogue* e = nullptr, Index j0 = 0)
{
    const float* a0 = o.a;
    const float* a1 = o.a + (rows > 1 ? o.a_row : 0);
    const float* a2 = o.a + (rows > 2 ? 2 * o.a_row : 0);
    const float* a3 = o.a + (rows > 3 ? 3 * o.a_row : 0);
    const float* a4 = o.a + (rows > 4 ? 4 * o.a_row : 0);
    const float* a5 = o.a + (rows > 5 ? 5 * o.a_row : 0);
    const float* b = o.b;
    const __m256i m0 = lane_mask(cols), m1 = lane_mask(cols - 8);
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    if constexpr (FromC)
    {
        const auto load = [&](Index r, __m256& lo, __m256& hi)
        {
            lo = _mm256_maskload_ps(C + r * ldc, m0);
            hi = _mm256_maskload_ps(C + r * ldc + 8, m1);
        };
        load(0, c00, c01);
        if (rows > 1)
            load(1, c10, c11);
        if (rows > 2)
            load(2, c20, c21);
        if (rows > 3)
            load(3, c30, c31);
        if (rows > 4)
            load(4, c40, c41);
        if (rows > 5)
            load(5, c50, c51);
    }
    for (Index p = 0, at = 0; p < k; ++p, at += o.a_step, b += o.b_step)
    {
        const __m256 b0 = MaskB ? _mm256_maskload_ps(b, m0) : _mm256_loadu_ps(b);
        const __m256 b1 = MaskB ? _mm256_maskload_ps(b + 8, m1) : _mm256_loadu_ps(b + 8);
        fma_row(a0 + at, b0, b1, c00, c01);
        fma_row(a1 + at, b0, b1, c10, c11);
        fma_row(a2 + at, b0, b1, c20, c21);
        fma_row(a3 + at, b0, b1, c30, c31);
        fma_row(a4 + at, b0, b1, c40, c41);
        fma_row(a5 + at, b0, b1, c50, c51);
    }
    if (!Accumulate && e)
    {
        const auto row = [&](Index r, __m256 lo, __m256 hi)
        {
            const Epilogue at{e->bias, e->relu, e->add ? e->add + r * ldc : nullptr,
                              e->sum ? e->sum + r * ldc : nullptr};
            store_row_epilogue(C + r * ldc, lo, hi, cols, at, j0);
        };
        row(0, c00, c01);
        if (rows > 1)
            row(1, c10, c11);
        if (rows > 2)
            row(2, c20, c21);
        if (rows > 3)
            row(3, c30, c31);
        if (rows > 4)
            row(4, c40, c41);
        if (rows > 5)
            row(5, c50, c51);
        return;
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

#include "core/kernels/product_driver.h"

// [SECTION] The forward engine's products
//
// The same tiles as a_times_b, with a right operand that meets many products (the weights) packed once into
// panels of 16 columns (k x 16 floats each, zero past column n): a panel is then contiguous, where read in
// place its rows lie n floats apart, and with n a power of two (d_model, d_ff) every row of a panel falls in
// the same few sets of the first-level cache, which then holds few of them. Each entry is the same chain of
// multiply-adds over k: the same bits as reading B in place.

Index packed_b_floats(Index k, Index n)
{
    return (n + NR - 1) / NR * NR * k;
}

// op(B) (k x n) into panels of NR columns, panel j0/NR at Bp + j0·k: B (k x n) or, with trans_b, Bᵀ of a B
// stored n x k.
void pack_b_panels(bool trans_b, const float* B, Index k, Index n, float* Bp)
{
    if (trans_b)
    {
        pack_bt(B, k, k, n, Bp);
        return;
    }
    for (Index j0 = 0; j0 < n; j0 += NR)
    {
        float* panel = Bp + j0 * k;
        const Index width = min_of(NR, n - j0);
        for (Index p = 0; p < k; ++p)
        {
            const float* src = B + p * n + j0;
            for (Index j = 0; j < width; ++j)
                panel[p * NR + j] = src[j];
            fill_zero(panel + p * NR + width, NR - width);
        }
    }
}

// Rows of a packed panel per block of the forward products' sums: 256 x 16 floats, 16 KB, stay in the
// first-level cache while the tiles of a block of rows pass (a whole panel of W_2, 2048 x 16, is 128 KB).
constexpr Index KB = 256;

// C (m x n) = A (m x k) op(B), op(B) packed by pack_b_panels: the rows of C in blocks (kernel_util.h's
// row_block), the sum over k in blocks of KB that go on from C (the same chain of multiply-adds per entry as
// one pass over k: the same bits as a_times_b). The epilogue e (may be null; its add and sum at row 0) is
// applied in the store of the last block over k.
void rows_product_packed_b(const float* A, Index m, Index k, const float* Bp, Index n, float* C,
                           const Epilogue* e)
{
    const Index mc = row_block(m, min_of(k, KB), MC, MR);
    for (Index i0 = 0; i0 < m; i0 += mc)
    {
        const Index i1 = min_of(m, i0 + mc);
        for (Index p0 = 0; p0 < k; p0 += KB)
        {
            const Index kb = min_of(KB, k - p0);
            for (Index j0 = 0; j0 < n; j0 += NR)
            {
                const Index cols = min_of(NR, n - j0);
                for (Index i = i0; i < i1; i += MR)
                {
                    const Operands o{A + i * k + p0, k, 1, Bp + j0 * k + p0 * NR, NR};
                    float* c = C + i * n + j0;
                    const Index rows = min_of(MR, i1 - i);
                    Epilogue at;
                    const Epilogue* tile_e = nullptr;
                    if (e && p0 + kb == k) // the last block: the epilogue at this tile's first entry
                    {
                        at = Epilogue{e->bias, e->relu, e->add ? e->add + i * n + j0 : nullptr,
                                      e->sum ? e->sum + i * n + j0 : nullptr};
                        tile_e = &at;
                    }
                    if (p0 == 0)
                        kernel<false, false>(kb, o, c, n, rows, cols, tile_e, j0);
                    else
                        kernel<false, false, true>(kb, o, c, n, rows, cols, tile_e, j0);
                }
            }
        }
    }
}

// C = A op(B) with B read in place (or, transposed, packed per product): a_times_b.
void rows_product_b(bool trans_b, const float* A, Index m, Index k, const float* B, Index n, float* C,
                    ScratchFn scratch)
{
    a_times_b(A, k, m, k, B, trans_b ? k : n, trans_b, n, C, n, false, Lower::None, scratch);
}

// [SECTION] Softmax rows

// exp(x) for x <= 0 in 8 lanes, Cephes' expf: x = k ln 2 + r with |r| <= ln 2 / 2, exp(r) by a degree-7
// polynomial, 2^k put in the exponent bits; relative error ~1e-7 (a few float ulps). Below -88.37 (and for
// -inf) k = -127 gives exponent bits 0: exactly 0.
inline __m256 exp_nonpositive(__m256 x)
{
    x = _mm256_max_ps(x, _mm256_set1_ps(-88.3762626647949f));
    const __m256 k =
        _mm256_floor_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), _mm256_set1_ps(0.5f)));
    __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.693359375f), x); // ln 2 in two parts, hi exact in float
    r = _mm256_fnmadd_ps(k, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    const __m256i bits =
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
}

// The first `valid` of 8 lanes set (valid in [0, 8]).
inline __m256i first_lanes(Index valid)
{
    alignas(32) static const int table[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(table + 8 - valid));
}

// The sum of 8 lanes, in a fixed order.
inline float lane_sum(__m256 v)
{
    const __m128 half = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 pair = _mm_add_ps(half, _mm_movehl_ps(half, half));
    return _mm_cvtss_f32(_mm_add_ss(pair, _mm_movehdup_ps(pair)));
}

// The largest of 8 lanes.
inline float lane_max(__m256 v)
{
    __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
    return _mm_cvtss_f32(_mm_max_ss(m4, _mm_movehdup_ps(m4)));
}

// y = softmax(x / τ) over n entries given their max (> -inf), the part of softmax_row_avx2 after the max.
void softmax_from_max(const float* x, Index n, float max, float inv_temperature, float* y);

} // namespace

// y = softmax(x) over n entries, 8 lanes at a time (kernels.h). The AVX-512 set's 16-lane rows give the same
// bits; it shares the LayerNorm rows below.
bool softmax_row_avx2(const float* x, Index n, float inv_temperature, float* y)
{
    const float minus_inf = -__builtin_inff();
    __m256 vmax = _mm256_set1_ps(minus_inf);
    for (Index j = 0; j < n; j += 8)
    {
        const Index valid = min_of(8, n - j);
        const __m256i m = first_lanes(valid);
        const __m256 v = _mm256_maskload_ps(x + j, m);
        vmax = _mm256_max_ps(vmax, _mm256_blendv_ps(_mm256_set1_ps(minus_inf), v, _mm256_castsi256_ps(m)));
    }
    const float max = lane_max(vmax);
    if (!(max > minus_inf))
    {
        fill_zero(y, n);
        return false;
    }
    softmax_from_max(x, n, max, inv_temperature, y);
    return true;
}

// One row of attention's middle stages in one pass over the row (kernels.h): scaled and masked go to memory
// with non-temporal stores, 4 floats at a time where they are 16-byte aligned (Eigen's matrices are; a row
// starts wherever T_k puts it, so its first entries go one by one), weights holds masked for the softmax,
// which starts from the max found on the way. The arithmetic is the same float product and sum per entry as
// the rest of the program's (no multiply-add is fused), so the bits are those of scaling, masking and
// softmax_row_avx2 done one after another.
namespace
{

// attention_row_avx2's pass, with the mask read (Masked) or taken as zeros (+0.0f added: the same bits as a
// mask of +0.0f, without reading T_k floats of it per row).
template <bool Masked>
bool attention_row_pass(const float* scores, const float* mask, Index n, float scale, float inv_temperature,
                        float* scaled, float* masked, float* weights, bool* scores_finite)
{
    const float minus_inf = -__builtin_inff();
    const auto misalignment = [](const float* p) { return reinterpret_cast<__UINTPTR_TYPE__>(p) & 15u; };
    const bool stream = misalignment(scaled) == misalignment(masked) && misalignment(scaled) % 4 == 0;
    // x − x is 0 for a finite x and NaN for ±inf or NaN: the sum of those is 0 exactly when every score is
    // finite (the check the engine makes of every score, done here while the row passes).
    __m128 max1 = _mm_set_ss(minus_inf), check1 = _mm_setzero_ps();
    const __m128 scale1 = _mm_set_ss(scale);
    // One entry: _ss intrinsics, which the compiler does not fuse into a multiply-add.
    const auto one = [&](Index j)
    {
        const __m128 x = _mm_load_ss(scores + j);
        check1 = _mm_add_ss(check1, _mm_sub_ss(x, x));
        const __m128 s = _mm_mul_ss(x, scale1);
        const __m128 m = _mm_add_ss(s, Masked ? _mm_load_ss(mask + j) : _mm_setzero_ps());
        _mm_store_ss(scaled + j, s);
        _mm_store_ss(masked + j, m);
        _mm_store_ss(weights + j, m);
        max1 = _mm_max_ss(max1, m);
    };
    Index j = 0;
    for (; j < n && stream && misalignment(scaled + j) != 0; ++j)
        one(j);
    const __m256 vscale = _mm256_set1_ps(scale);
    __m256 vmax = _mm256_set1_ps(minus_inf), check = _mm256_setzero_ps();
    for (; j + 8 <= n; j += 8)
    {
        const __m256 x = _mm256_loadu_ps(scores + j);
        check = _mm256_add_ps(check, _mm256_sub_ps(x, x));
        // s is also stored, so the product stays a product of its own: never fused with the sum below.
        const __m256 s = _mm256_mul_ps(x, vscale);
        const __m256 m = _mm256_add_ps(s, Masked ? _mm256_loadu_ps(mask + j) : _mm256_setzero_ps());
        if (stream)
        {
            _mm_stream_ps(scaled + j, _mm256_castps256_ps128(s));
            _mm_stream_ps(scaled + j + 4, _mm256_extractf128_ps(s, 1));
            _mm_stream_ps(masked + j, _mm256_castps256_ps128(m));
            _mm_stream_ps(masked + j + 4, _mm256_extractf128_ps(m, 1));
        }
        else
        {
            _mm256_storeu_ps(scaled + j, s);
            _mm256_storeu_ps(masked + j, m);
        }
        _mm256_storeu_ps(weights + j, m);
        vmax = _mm256_max_ps(vmax, m);
    }
    for (; j < n; ++j)
        one(j);
    *scores_finite = lane_sum(check) + _mm_cvtss_f32(check1) == 0.0f;
    const float lanes = lane_max(vmax), single = _mm_cvtss_f32(max1);
    const float max = lanes > single ? lanes : single;
    if (!(max > minus_inf))
    {
        fill_zero(weights, n);
        return false;
    }
    softmax_from_max(weights, n, max, inv_temperature, weights);
    return true;
}

} // namespace

bool attention_row_avx2(const float* scores, const float* mask, Index n, float scale, float inv_temperature,
                        float* scaled, float* masked, float* weights, bool* scores_finite)
{
    return mask ? attention_row_pass<true>(scores, mask, n, scale, inv_temperature, scaled, masked, weights,
                                           scores_finite)
                : attention_row_pass<false>(scores, mask, n, scale, inv_temperature, scaled, masked, weights,
                                            scores_finite);
}

namespace
{

void softmax_from_max(const float* x, Index n, float max, float inv_temperature, float* y)
{
    // e_j = exp((x_j − max) / τ), flushed to 0 under the smallest normal float, as softmax_row does. Whole
    // groups of 8 go through y; the last, partial group stays in a register and is stored lane by lane at the
    // end (a masked store, and a load from it, are slow on some x86 cores).
    const __m256 shift = _mm256_set1_ps(max), smallest = _mm256_set1_ps(__FLT_MIN__);
    const __m256 scale = _mm256_set1_ps(inv_temperature); // 1 in training: the product is exact
    const auto exp_of = [&](__m256 v)
    {
        const __m256 e = exp_nonpositive(_mm256_mul_ps(_mm256_sub_ps(v, shift), scale));
        return _mm256_and_ps(e, _mm256_cmp_ps(e, smallest, _CMP_GE_OQ));
    };
    __m256 vsum = _mm256_setzero_ps();
    Index j = 0;
    for (; j + 8 <= n; j += 8)
    {
        const __m256 e = exp_of(_mm256_loadu_ps(x + j));
        vsum = _mm256_add_ps(vsum, e);
        _mm256_storeu_ps(y + j, e);
    }
    const Index tail = n - j;
    __m256 last = _mm256_setzero_ps();
    if (tail > 0)
    {
        const __m256i m = first_lanes(tail);
        last = _mm256_and_ps(exp_of(_mm256_maskload_ps(x + j, m)), _mm256_castsi256_ps(m));
        vsum = _mm256_add_ps(vsum, last);
    }
    const __m256 inv = _mm256_set1_ps(1.0f / lane_sum(vsum)); // the sum is >= 1: exp(0) at the max
    for (Index q = 0; q + 8 <= n; q += 8)
        _mm256_storeu_ps(y + q, _mm256_mul_ps(_mm256_loadu_ps(y + q), inv));
    if (tail > 0)
    {
        alignas(32) float lanes[8];
        _mm256_store_ps(lanes, _mm256_mul_ps(last, inv));
        for (Index u = 0; u < tail; ++u)
            y[j + u] = lanes[u];
    }
}

} // namespace

// [SECTION] LayerNorm rows
//
// The rows run 8 lanes at a time (the d_model of the presets is a multiple of 8; the rest of a row
// goes one by one); the row sums add the lanes in a fixed order, so the bits are the same on every run.
// Eigen's expressions per row cost more in set-up than in arithmetic at d_model 32-64.

void layer_norm_rows_avx2(const float* x, Index rows, Index n, const float* gamma, const float* beta,
                          float* y, float* mean, float* rstd, float epsilon)
{
    const Index n8 = n / 8 * 8;
    const float eps = epsilon, inv_n = 1.0f / static_cast<float>(n);
    const float* g = gamma;
    const float* b = beta;
    for (Index i = 0; i < rows; ++i)
    {
        const float* xi = x + i * n;
        float* yi = y + i * n;
        __m256 vsum = _mm256_setzero_ps();
        float tail = 0;
        for (Index j = 0; j < n8; j += 8)
            vsum = _mm256_add_ps(vsum, _mm256_loadu_ps(xi + j));
        for (Index j = n8; j < n; ++j)
            tail += xi[j];
        const float m = (lane_sum(vsum) + tail) * inv_n;
        const __m256 vm = _mm256_set1_ps(m);
        __m256 vvar = _mm256_setzero_ps();
        tail = 0;
        for (Index j = 0; j < n8; j += 8)
        {
            const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(xi + j), vm);
            vvar = _mm256_fmadd_ps(d, d, vvar);
        }
        for (Index j = n8; j < n; ++j)
            tail += (xi[j] - m) * (xi[j] - m);
        const float r = 1.0f / __builtin_sqrtf((lane_sum(vvar) + tail) * inv_n + eps);
        mean[i] = m;
        rstd[i] = r;
        const __m256 vr = _mm256_set1_ps(r);
        for (Index j = 0; j < n8; j += 8)
        {
            const __m256 xhat = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(xi + j), vm), vr);
            _mm256_storeu_ps(yi + j, _mm256_fmadd_ps(xhat, _mm256_loadu_ps(g + j), _mm256_loadu_ps(b + j)));
        }
        for (Index j = n8; j < n; ++j)
            yi[j] = (xi[j] - m) * r * g[j] + b[j];
    }
}

void layer_norm_backward_rows_avx2(const float* dy, const float* x, Index rows, Index n, const float* mean,
                                   const float* rstd, const float* gamma, float* dx, float* dgamma,
                                   float* dbeta)
{
    fill_zero(dgamma, n);
    fill_zero(dbeta, n);
    const Index n8 = n / 8 * 8;
    const float inv_n = 1.0f / static_cast<float>(n);
    const float* ga = gamma;
    float* dga = dgamma;
    float* dbe = dbeta;
    for (Index i = 0; i < rows; ++i)
    {
        const float* xi = x + i * n;
        const float* dyi = dy + i * n;
        float* dxi = dx + i * n;
        const float m = mean[i], r = rstd[i];
        const __m256 vm = _mm256_set1_ps(m), vr = _mm256_set1_ps(r);
        // x̂ = (x − mean) r, g = dy ∘ γ: dγ += dy ∘ x̂, dβ += dy, and the sums of g and g ∘ x̂
        __m256 vg = _mm256_setzero_ps(), vgx = _mm256_setzero_ps();
        float tail_g = 0, tail_gx = 0;
        for (Index j = 0; j < n8; j += 8)
        {
            const __m256 xhat = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(xi + j), vm), vr);
            const __m256 d = _mm256_loadu_ps(dyi + j);
            const __m256 g = _mm256_mul_ps(d, _mm256_loadu_ps(ga + j));
            _mm256_storeu_ps(dga + j, _mm256_fmadd_ps(d, xhat, _mm256_loadu_ps(dga + j)));
            _mm256_storeu_ps(dbe + j, _mm256_add_ps(d, _mm256_loadu_ps(dbe + j)));
            vg = _mm256_add_ps(vg, g);
            vgx = _mm256_fmadd_ps(g, xhat, vgx);
        }
        for (Index j = n8; j < n; ++j)
        {
            const float xhat = (xi[j] - m) * r, g = dyi[j] * ga[j];
            dga[j] += dyi[j] * xhat;
            dbe[j] += dyi[j];
            tail_g += g;
            tail_gx += g * xhat;
        }
        const float mean_g = (lane_sum(vg) + tail_g) * inv_n, mean_gx = (lane_sum(vgx) + tail_gx) * inv_n;
        // dx += r (g − mean(g) − x̂ mean(g ∘ x̂))
        const __m256 vmg = _mm256_set1_ps(mean_g), vmgx = _mm256_set1_ps(mean_gx);
        for (Index j = 0; j < n8; j += 8)
        {
            const __m256 xhat = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(xi + j), vm), vr);
            const __m256 g = _mm256_mul_ps(_mm256_loadu_ps(dyi + j), _mm256_loadu_ps(ga + j));
            const __m256 inner = _mm256_fnmadd_ps(xhat, vmgx, _mm256_sub_ps(g, vmg));
            _mm256_storeu_ps(dxi + j, _mm256_fmadd_ps(vr, inner, _mm256_loadu_ps(dxi + j)));
        }
        for (Index j = n8; j < n; ++j)
        {
            const float xhat = (xi[j] - m) * r, g = dyi[j] * ga[j];
            dxi[j] += r * (g - mean_g - xhat * mean_gx);
        }
    }
}

namespace
{

const TrainKernels kAvx2{"avx2-6x16",
                         NR,
                         &a_times_b,
                         &at_times_b,
                         &softmax_row_avx2,
                         &attention_row_avx2,
                         &layer_norm_rows_avx2,
                         &layer_norm_backward_rows_avx2};

const GemmKernels kGemmAvx2{"avx2-6x16", &rows_product_b, &packed_b_floats, &pack_b_panels,
                            &rows_product_packed_b};

} // namespace

const TrainKernels* train_kernels_avx2()
{
    return &kAvx2;
}

const GemmKernels* gemm_kernels_avx2()
{
    return &kGemmAvx2;
}

// 12 chains x 8 lanes of c = c m + a, chain j from 1 + j / 64, m just under 1: c falls slowly towards
// a / (1 - m), near 0.08, never overflowing nor becoming subnormal however long it runs.
float fma_probe_avx2(Index iterations)
{
    const __m256 m = _mm256_set1_ps(0.9999999f), a = _mm256_set1_ps(1e-8f);
    // Each chain starts elsewhere (1 + j / 64): equal chains would be merged into one by the compiler.
    __m256 c0 = _mm256_set1_ps(1.0f), c1 = _mm256_set1_ps(1.0f + 1 / 64.0f),
           c2 = _mm256_set1_ps(1.0f + 2 / 64.0f), c3 = _mm256_set1_ps(1.0f + 3 / 64.0f),
           c4 = _mm256_set1_ps(1.0f + 4 / 64.0f), c5 = _mm256_set1_ps(1.0f + 5 / 64.0f),
           c6 = _mm256_set1_ps(1.0f + 6 / 64.0f), c7 = _mm256_set1_ps(1.0f + 7 / 64.0f),
           c8 = _mm256_set1_ps(1.0f + 8 / 64.0f), c9 = _mm256_set1_ps(1.0f + 9 / 64.0f),
           c10 = _mm256_set1_ps(1.0f + 10 / 64.0f), c11 = _mm256_set1_ps(1.0f + 11 / 64.0f);
    for (Index i = 0; i < iterations; ++i)
    {
        c0 = _mm256_fmadd_ps(c0, m, a);
        c1 = _mm256_fmadd_ps(c1, m, a);
        c2 = _mm256_fmadd_ps(c2, m, a);
        c3 = _mm256_fmadd_ps(c3, m, a);
        c4 = _mm256_fmadd_ps(c4, m, a);
        c5 = _mm256_fmadd_ps(c5, m, a);
        c6 = _mm256_fmadd_ps(c6, m, a);
        c7 = _mm256_fmadd_ps(c7, m, a);
        c8 = _mm256_fmadd_ps(c8, m, a);
        c9 = _mm256_fmadd_ps(c9, m, a);
        c10 = _mm256_fmadd_ps(c10, m, a);
        c11 = _mm256_fmadd_ps(c11, m, a);
    }
    const __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
                                                 _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7))),
                                   _mm256_add_ps(_mm256_add_ps(c8, c9), _mm256_add_ps(c10, c11)));
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, s);
    return lanes[0] + lanes[1] + lanes[2] + lanes[3] + lanes[4] + lanes[5] + lanes[6] + lanes[7];
}

} // namespace attnlab::kernels

#else // not built for x86-64 with AVX2: no such set

namespace attnlab::kernels
{

const TrainKernels* train_kernels_avx2()
{
    return nullptr;
}

const GemmKernels* gemm_kernels_avx2()
{
    return nullptr;
}

float fma_probe_avx2(Index)
{
    return 0.0f;
}

} // namespace attnlab::kernels

#endif
