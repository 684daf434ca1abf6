// Row-wise softmax (max subtracted, fully masked rows flagged) and LayerNorm.
#include "softmax.h"

#include "core/cpu.h"
#include "core/kernels/kernels.h"

#ifdef __SSE2__
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace attnlab
{

bool softmax_row(const float* x, Eigen::Index n, float inv_temperature, float* y)
{
    // On AVX2 and AVX-512 CPUs the row runs 8 lanes at a time in core/kernels (the same rule: exact zeros
    // under FLT_MIN, false for a row of only -inf), whatever width this file is compiled for.
    if (const kernels::TrainKernels* K = active_kernels())
        return K->softmax_row(x, n, inv_temperature, y);
    using RowMap = Eigen::Map<Eigen::Array<float, 1, Eigen::Dynamic>>;
    using ConstRowMap = Eigen::Map<const Eigen::Array<float, 1, Eigen::Dynamic>>;
    ConstRowMap in(x, n);
    RowMap out(y, n);
    const float row_max = n > 0 ? in.maxCoeff() : -std::numeric_limits<float>::infinity();
    if (!(row_max > -std::numeric_limits<float>::infinity()))
    {
        out.setZero();
        return false;
    }
    // softmax(x / τ)_j = exp((x_j - max) / τ) / Σ_k exp((x_k - max) / τ); exp(-inf) = 0 for masked keys.
    // exp runs over the row in Eigen's packets (its select() is not vectorised and would call the scalar expf
    // per entry). Near -88 the vectorised exp returns sub-normal values instead of 0, so a plain loop, which
    // the compiler vectorises, flushes everything under FLT_MIN to 0: masked keys get exactly 0 weight.
    out = ((in - row_max) * inv_temperature).exp();
    constexpr float smallest_normal = std::numeric_limits<float>::min();
    for (Eigen::Index j = 0; j < n; ++j)
        y[j] = y[j] < smallest_normal ? 0.0f : y[j];
    const float sum = out.sum(); // >= 1: the max entry contributes exp(0)
    out *= 1.0f / sum;
    return true;
}

namespace
{

// dst[0, n) = src[0, n), with non-temporal stores where dst is 16-byte aligned (x86-64).
void stream_copy(const float* src, Eigen::Index n, float* dst)
{
#ifdef __SSE2__
    Eigen::Index j = 0;
    for (; j < n && (reinterpret_cast<std::uintptr_t>(dst + j) & 15) != 0; ++j)
        dst[j] = src[j];
    for (; j + 4 <= n; j += 4)
        _mm_stream_ps(dst + j, _mm_loadu_ps(src + j));
    for (; j < n; ++j)
        dst[j] = src[j];
#else
    std::copy(src, src + n, dst);
#endif
}

} // namespace

bool attention_row(const float* scores, const float* mask, Eigen::Index n, float scale, float inv_temperature,
                   float* scaled, float* masked, float* weights, bool* scores_finite)
{
    // On AVX2 and AVX-512 CPUs one pass over the row does the scaling, the mask, both copies and the check
    // (core/kernels, the same numbers as below).
    if (const kernels::TrainKernels* K = active_kernels())
    {
        bool finite = true;
        const bool weighted =
            K->attention_row(scores, mask, n, scale, inv_temperature, scaled, masked, weights, &finite);
        if (scores_finite)
            *scores_finite = finite;
        return weighted;
    }
    using RowMap = Eigen::Map<Eigen::Array<float, 1, Eigen::Dynamic>>;
    using ConstRowMap = Eigen::Map<const Eigen::Array<float, 1, Eigen::Dynamic>>;
    // x − x is 0 for a finite x and NaN for ±inf or NaN (the sum vectorises, unlike isFinite's comparisons).
    if (scores_finite)
        *scores_finite = (ConstRowMap(scores, n) - ConstRowMap(scores, n)).sum() == 0.0f;
    // The weights row, written anyway and read next by A V, holds each stage in turn.
    RowMap row(weights, n);
    row = ConstRowMap(scores, n) * scale; // / √d_k
    stream_copy(weights, n, scaled);
    if (mask) // + M
        row += ConstRowMap(mask, n);
    else
        row += 0.0f;
    stream_copy(weights, n, masked);
    return softmax_row(weights, n, inv_temperature, weights); // softmax(masked / τ)
}

bool mask_is_zero(const Mat& mask)
{
    const float* m = mask.data();
    return std::all_of(m, m + mask.size(),
                       [](float x)
                       {
                           std::uint32_t bits;
                           std::memcpy(&bits, &x, sizeof bits);
                           return bits == 0;
                       });
}

void attention_rows_done()
{
#ifdef __SSE2__
    _mm_sfence();
#endif
}

int softmax_rows(const Mat& in, float temperature, Mat& out, std::vector<std::uint8_t>& fully_masked)
{
    const Eigen::Index rows = in.rows(), cols = in.cols();
    if (&out != &in)
        out.resize(rows, cols);
    fully_masked.assign(static_cast<size_t>(rows), 0);
    int n_fully_masked = 0;
    for (Eigen::Index i = 0; i < rows; ++i)
    {
        if (!softmax_row(in.data() + i * cols, cols, 1.0f / temperature, out.data() + i * cols))
        {
            fully_masked[static_cast<size_t>(i)] = 1;
            ++n_fully_masked;
        }
    }
    return n_fully_masked;
}

float row_entropy(const float* weights, Eigen::Index n)
{
    double h = 0.0;
    for (Eigen::Index j = 0; j < n; ++j)
        if (weights[j] > 0.0f)
            h -= weights[j] * std::log(static_cast<double>(weights[j]));
    return static_cast<float>(h);
}

float mean_row_entropy(const Mat& weights)
{
    if (weights.rows() == 0)
        return 0.0f;
    double sum = 0.0;
    for (Eigen::Index i = 0; i < weights.rows(); ++i)
        sum += row_entropy(weights.data() + i * weights.cols(), weights.cols());
    return static_cast<float>(sum / static_cast<double>(weights.rows()));
}

void layer_norm_rows(const Mat& in, const RowVec& gamma, const RowVec& beta, Mat& out, float eps)
{
    const Eigen::Index rows = in.rows(), cols = in.cols();
    if (&out != &in)
        out.resize(rows, cols);
    for (Eigen::Index i = 0; i < rows; ++i)
    {
        // The row's mean and variance in double: in float the squares of values past ~1.8e19 overflow, and
        // 1/√∞ would silently make the whole row 0. In double every float row's statistics are exact enough.
        const double mean = in.row(i).cast<double>().mean();
        const double var = (in.row(i).cast<double>().array() - mean).square().mean();
        const double inv_std = 1.0 / std::sqrt(var + static_cast<double>(eps));
        out.row(i) = (((in.row(i).cast<double>().array() - mean) * inv_std).cast<float>() * gamma.array() +
                      beta.array())
                         .matrix();
    }
}

} // namespace attnlab
