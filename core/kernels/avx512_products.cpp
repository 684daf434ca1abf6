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

// lo += a · b0: one row of a tile of 16 columns, one step of k.
inline void fma_half_row(const float* a, __m512 b0, __m512& lo)
{
    lo = _mm512_fmadd_ps(_mm512_set1_ps(*a), b0, lo);
}

// C[0, rows) x [0, cols) = (or +=, when Accumulate) Σ_{p < k} A[0, rows)(p) B(p)[0, cols). Rows past `rows`
// read row 0 again and are not stored; columns past `cols` are zeros in a packed B, or masked out of the
// loads of an unpacked one (MaskB), and are not stored. Half (cols <= 16): the right half of the tile is
// left out, half the multiply-adds for the narrow products of small models (d_k of 16 or 24, T of 16): each
// entry is the same chain over k, so the same bits.
template <bool Accumulate, bool MaskB, bool Half>
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
        if constexpr (Half)
        {
            fma_half_row(a0 + at, b0, c00);
            fma_half_row(a1 + at, b0, c10);
            fma_half_row(a2 + at, b0, c20);
            fma_half_row(a3 + at, b0, c30);
            fma_half_row(a4 + at, b0, c40);
            fma_half_row(a5 + at, b0, c50);
            continue;
        }
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

// One tile, the kernel picked by its flags and its width.
template <bool Half>
void tile_of_width(bool accumulate, bool mask_b, Index k, const Operands& o, float* C, Index ldc, Index rows,
                   Index cols)
{
    if (accumulate)
        mask_b ? kernel<true, true, Half>(k, o, C, ldc, rows, cols)
               : kernel<true, false, Half>(k, o, C, ldc, rows, cols);
    else
        mask_b ? kernel<false, true, Half>(k, o, C, ldc, rows, cols)
               : kernel<false, false, Half>(k, o, C, ldc, rows, cols);
}

void tile(bool accumulate, bool mask_b, Index k, const Operands& o, float* C, Index ldc, Index rows,
          Index cols)
{
    if (cols <= 16)
        tile_of_width<true>(accumulate, mask_b, k, o, C, ldc, rows, cols);
    else
        tile_of_width<false>(accumulate, mask_b, k, o, C, ldc, rows, cols);
}

#include "core/kernels/product_driver.h"

// [SECTION] Softmax rows
//
// The AVX2 set's softmax on 16 lanes, with the same bits: the exponential is the same operations lane by
// lane, the max is exact in any order, and the sum adds the low and then the high 8 lanes of each 16 to an
// 8-lane sum, which is the AVX2 set's order of groups of 8 (a group of only masked lanes adds +0, which
// changes no positive sum). A causal row of training is 1 to T entries long: one or two passes of 16 instead
// of up to four of 8, and no tail handled lane by lane.

// exp(x) for x <= 0: softmax_row_avx2's polynomial (Cephes' expf), each step the same instruction on zmm.
inline __m512 exp_nonpositive(__m512 x)
{
    x = _mm512_max_ps(x, _mm512_set1_ps(-88.3762626647949f));
    const __m512 k =
        _mm512_roundscale_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), _mm512_set1_ps(0.5f)),
                             _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693359375f), x); // ln 2 in two parts, hi exact in float
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    const __m512i bits =
        _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(k), _mm512_set1_epi32(127)), 23);
    return _mm512_mul_ps(p, _mm512_castsi512_ps(bits));
}

// The sum of 8 lanes in the AVX2 set's fixed order.
inline float lane_sum(__m256 v)
{
    const __m128 half = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 pair = _mm_add_ps(half, _mm_movehl_ps(half, half));
    return _mm_cvtss_f32(_mm_add_ss(pair, _mm_movehdup_ps(pair)));
}

// y = softmax(x / τ) over n entries given their max (> -inf): y may be x.
void softmax_from_max(const float* x, Index n, float max, float inv_temperature, float* y)
{
    // e_j = exp((x_j − max) / τ), flushed to 0 under the smallest normal float.
    const __m512 shift = _mm512_set1_ps(max), smallest = _mm512_set1_ps(__FLT_MIN__);
    const __m512 scale = _mm512_set1_ps(inv_temperature);
    __m256 vsum = _mm256_setzero_ps();
    for (Index j = 0; j < n; j += 16)
    {
        const __mmask16 m = lane_mask(n - j);
        const __m512 v = _mm512_maskz_loadu_ps(m, x + j);
        const __m512 e = exp_nonpositive(_mm512_mul_ps(_mm512_sub_ps(v, shift), scale));
        const __m512 kept = _mm512_maskz_mov_ps(m & _mm512_cmp_ps_mask(e, smallest, _CMP_GE_OQ), e);
        vsum = _mm256_add_ps(vsum, _mm512_castps512_ps256(kept));
        vsum = _mm256_add_ps(vsum, _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(kept), 1)));
        _mm512_mask_storeu_ps(y + j, m, kept);
    }
    const __m512 inv = _mm512_set1_ps(1.0f / lane_sum(vsum)); // the sum is >= 1: exp(0) at the max
    for (Index j = 0; j < n; j += 16)
    {
        const __mmask16 m = lane_mask(n - j);
        _mm512_mask_storeu_ps(y + j, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, y + j), inv));
    }
}

bool softmax_row(const float* x, Index n, float inv_temperature, float* y)
{
    const __m512 minus_inf = _mm512_set1_ps(-__builtin_inff());
    __m512 vmax = minus_inf;
    for (Index j = 0; j < n; j += 16)
        vmax = _mm512_max_ps(vmax, _mm512_mask_loadu_ps(minus_inf, lane_mask(n - j), x + j));
    const float max = _mm512_reduce_max_ps(vmax);
    if (!(max > -__builtin_inff()))
    {
        fill_zero(y, n);
        return false;
    }
    softmax_from_max(x, n, max, inv_temperature, y);
    return true;
}

// attention_row_avx2's one pass on 16 lanes (the same product and sum per entry, so the same bits): scaled
// and masked streamed to memory where they are 64-byte aligned (a T_k of 16, 32, ... keeps every row so),
// weights holding masked for the softmax that follows from the max found on the way.
template <bool Masked>
bool attention_row_pass(const float* scores, const float* mask, Index n, float scale, float inv_temperature,
                        float* scaled, float* masked, float* weights, bool* scores_finite)
{
    const auto misalignment = [](const float* p) { return reinterpret_cast<__UINTPTR_TYPE__>(p) & 63u; };
    const __m512 minus_inf = _mm512_set1_ps(-__builtin_inff()), vscale = _mm512_set1_ps(scale);
    __m512 vmax = minus_inf, check = _mm512_setzero_ps();
    // Entries up to the first 64-byte boundary of scaled (when masked shares its alignment), then whole
    // aligned groups of 16 streamed, then the rest: each part the same arithmetic.
    const auto group = [&](Index j, __mmask16 m, bool stream)
    {
        const __m512 x = _mm512_maskz_loadu_ps(m, scores + j);
        check = _mm512_add_ps(check, _mm512_sub_ps(x, x));
        const __m512 s = _mm512_mul_ps(x, vscale);
        const __m512 v = _mm512_add_ps(s, Masked ? _mm512_maskz_loadu_ps(m, mask + j) : _mm512_setzero_ps());
        if (stream)
        {
            _mm512_stream_ps(scaled + j, s);
            _mm512_stream_ps(masked + j, v);
        }
        else
        {
            _mm512_mask_storeu_ps(scaled + j, m, s);
            _mm512_mask_storeu_ps(masked + j, m, v);
        }
        _mm512_mask_storeu_ps(weights + j, m, v);
        vmax = _mm512_mask_max_ps(vmax, m, vmax, v);
    };
    Index j = 0;
    const bool can_stream = misalignment(scaled) == misalignment(masked) && misalignment(scaled) % 4 == 0;
    if (can_stream && misalignment(scaled) != 0)
    {
        const Index head = min_of(n, static_cast<Index>((64 - misalignment(scaled)) / 4));
        group(0, lane_mask(head), false);
        j = head;
    }
    for (; j + 16 <= n; j += 16)
        group(j, lane_mask(16), can_stream);
    if (j < n)
        group(j, lane_mask(n - j), false);
    *scores_finite = _mm512_reduce_add_ps(check) == 0.0f;
    const float max = _mm512_reduce_max_ps(vmax);
    if (!(max > -__builtin_inff()))
    {
        fill_zero(weights, n);
        return false;
    }
    softmax_from_max(weights, n, max, inv_temperature, weights);
    return true;
}

bool attention_row(const float* scores, const float* mask, Index n, float scale, float inv_temperature,
                   float* scaled, float* masked, float* weights, bool* scores_finite)
{
    return mask ? attention_row_pass<true>(scores, mask, n, scale, inv_temperature, scaled, masked, weights,
                                           scores_finite)
                : attention_row_pass<false>(scores, mask, n, scale, inv_temperature, scaled, masked, weights,
                                            scores_finite);
}

// LayerNorm's rows are the AVX2 set's: the same bits.
const TrainKernels kAvx512{"avx512-6x32",
                           NR,
                           &a_times_b,
                           &at_times_b,
                           &softmax_row,
                           &attention_row,
                           &layer_norm_rows_avx2,
                           &layer_norm_backward_rows_avx2};

} // namespace

const TrainKernels* train_kernels_avx512()
{
    return &kAvx512;
}

// 12 chains x 16 lanes of c = c m + a (fma_probe_avx2's loop on zmm registers).
float fma_probe_avx512(Index iterations)
{
    const __m512 m = _mm512_set1_ps(0.9999999f), a = _mm512_set1_ps(1e-8f);
    __m512 c0 = _mm512_set1_ps(1.0f), c1 = _mm512_set1_ps(1.0f + 1 / 64.0f),
           c2 = _mm512_set1_ps(1.0f + 2 / 64.0f), c3 = _mm512_set1_ps(1.0f + 3 / 64.0f),
           c4 = _mm512_set1_ps(1.0f + 4 / 64.0f), c5 = _mm512_set1_ps(1.0f + 5 / 64.0f),
           c6 = _mm512_set1_ps(1.0f + 6 / 64.0f), c7 = _mm512_set1_ps(1.0f + 7 / 64.0f),
           c8 = _mm512_set1_ps(1.0f + 8 / 64.0f), c9 = _mm512_set1_ps(1.0f + 9 / 64.0f),
           c10 = _mm512_set1_ps(1.0f + 10 / 64.0f), c11 = _mm512_set1_ps(1.0f + 11 / 64.0f);
    for (Index i = 0; i < iterations; ++i)
    {
        c0 = _mm512_fmadd_ps(c0, m, a);
        c1 = _mm512_fmadd_ps(c1, m, a);
        c2 = _mm512_fmadd_ps(c2, m, a);
        c3 = _mm512_fmadd_ps(c3, m, a);
        c4 = _mm512_fmadd_ps(c4, m, a);
        c5 = _mm512_fmadd_ps(c5, m, a);
        c6 = _mm512_fmadd_ps(c6, m, a);
        c7 = _mm512_fmadd_ps(c7, m, a);
        c8 = _mm512_fmadd_ps(c8, m, a);
        c9 = _mm512_fmadd_ps(c9, m, a);
        c10 = _mm512_fmadd_ps(c10, m, a);
        c11 = _mm512_fmadd_ps(c11, m, a);
    }
    const __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3)),
                                                 _mm512_add_ps(_mm512_add_ps(c4, c5), _mm512_add_ps(c6, c7))),
                                   _mm512_add_ps(_mm512_add_ps(c8, c9), _mm512_add_ps(c10, c11)));
    alignas(64) float lanes[16]; // not _mm512_reduce_add_ps: GCC 12 warns of an uninitialized value inside it
    _mm512_store_ps(lanes, s);
    float sum = 0.0f;
    for (float lane : lanes)
        sum += lane;
    return sum;
}

} // namespace attnlab::kernels

#else // not built for x86-64 with AVX-512: no such set

namespace attnlab::kernels
{

const TrainKernels* train_kernels_avx512()
{
    return nullptr;
}

float fma_probe_avx512(Index)
{
    return 0.0f;
}

} // namespace attnlab::kernels

#endif
