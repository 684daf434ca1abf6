// Softmax and LayerNorm: hand-worked values, rows summing to 1, exact zeros under -inf, no NaN; attention's
// rows in one pass against the steps done in turn. Run on each instruction set this CPU has (ISA_PATHS).
#include "core/softmax.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

using namespace attnlab;

namespace
{
const float kInf = std::numeric_limits<float>::infinity();
}

TEST(Softmax, HandWorkedRow)
{
    // softmax([0, ln 2, ln 3]) = [1, 2, 3] / 6
    Mat in(1, 3);
    in << 0.0f, std::log(2.0f), std::log(3.0f);
    Mat out;
    std::vector<std::uint8_t> flags;
    EXPECT_EQ(softmax_rows(in, 1.0f, out, flags), 0);
    EXPECT_NEAR(out(0, 0), 1.0f / 6, 1e-6);
    EXPECT_NEAR(out(0, 1), 2.0f / 6, 1e-6);
    EXPECT_NEAR(out(0, 2), 3.0f / 6, 1e-6);
    EXPECT_EQ(flags[0], 0);
}

TEST(Softmax, TemperatureDividesTheLogits)
{
    // softmax([0, ln 4] / 2) = softmax([0, ln 2]) = [1/3, 2/3]
    Mat in(1, 2);
    in << 0.0f, std::log(4.0f);
    Mat out;
    std::vector<std::uint8_t> flags;
    softmax_rows(in, 2.0f, out, flags);
    EXPECT_NEAR(out(0, 0), 1.0f / 3, 1e-6);
    EXPECT_NEAR(out(0, 1), 2.0f / 3, 1e-6);
}

TEST(Softmax, MaskedEntriesAreExactlyZeroAndRowsSumToOne)
{
    Mat in(3, 4);
    in << 1.0f, -kInf, 3.0f, -kInf, //
        -kInf, 0.5f, -kInf, -kInf,  //
        -200.0f, 0.0f, 5.0f, 2.0f;
    Mat out;
    std::vector<std::uint8_t> flags;
    softmax_rows(in, 1.0f, out, flags);
    EXPECT_EQ(out(0, 1), 0.0f);
    EXPECT_EQ(out(0, 3), 0.0f);
    EXPECT_EQ(out(1, 0), 0.0f);
    EXPECT_EQ(out(1, 1), 1.0f);
    for (int i = 0; i < 3; ++i)
        EXPECT_NEAR(out.row(i).sum(), 1.0f, 1e-6) << "row " << i;
    EXPECT_NEAR(out(0, 2) / out(0, 0), std::exp(2.0f), 1e-3);
}

TEST(Softmax, HugeLogitsDoNotOverflow)
{
    Mat in(1, 3);
    in << 1e30f, 1e30f, -1e30f;
    Mat out;
    std::vector<std::uint8_t> flags;
    softmax_rows(in, 1.0f, out, flags);
    EXPECT_TRUE(out.allFinite());
    EXPECT_FLOAT_EQ(out(0, 0), 0.5f);
    EXPECT_FLOAT_EQ(out(0, 1), 0.5f);
    EXPECT_EQ(out(0, 2), 0.0f);
}

TEST(Softmax, FullyMaskedRowIsZerosAndFlaggedNeverNaN)
{
    Mat in(2, 3);
    in << -kInf, -kInf, -kInf, //
        0.0f, 0.0f, 0.0f;
    Mat out;
    std::vector<std::uint8_t> flags;
    EXPECT_EQ(softmax_rows(in, 1.0f, out, flags), 1);
    EXPECT_EQ(flags, (std::vector<std::uint8_t>{1, 0}));
    EXPECT_TRUE(out.allFinite());
    EXPECT_EQ(out.row(0).cwiseAbs().sum(), 0.0f);
    EXPECT_NEAR(out(1, 0), 1.0f / 3, 1e-6);
}

TEST(LayerNorm, HandWorkedRow)
{
    // x = [1, 2, 3, 4]: mean 2.5, biased variance 1.25; (x - 2.5) / sqrt(1.25 + eps) * γ + β
    Mat in(1, 4);
    in << 1, 2, 3, 4;
    RowVec gamma(4), beta(4);
    gamma << 1, 1, 2, 1;
    beta << 0, 0, 0, 10;
    Mat out;
    layer_norm_rows(in, gamma, beta, out);
    const float s = std::sqrt(1.25f + 1e-5f);
    EXPECT_NEAR(out(0, 0), -1.5f / s, 1e-5);
    EXPECT_NEAR(out(0, 1), -0.5f / s, 1e-5);
    EXPECT_NEAR(out(0, 2), 2 * 0.5f / s, 1e-5);
    EXPECT_NEAR(out(0, 3), 1.5f / s + 10, 1e-5);
}

TEST(AttentionRow, OnePassGivesTheBitsOfScalingMaskingAndSoftmaxInTurn)
{
    // attention_row does scores · scale, + M, the copies of scaled and masked, and the softmax in one pass on
    // AVX2 and AVX-512 (core/kernels): every output must have the bits of those steps done one after another
    // (float product, float sum, softmax_row), for rows of any length starting anywhere in a matrix (the
    // streamed stores need 16-byte alignment: rows of T_k = 13 start at every offset), with keys masked here
    // and there, a fully masked row, an additive mask of any numbers (the sum rounds: a multiply-add fused
    // by the compiler would show) and a -0 score.
    for (const int n : {1, 3, 7, 8, 13, 64, 100, 515, 1024})
        for (const int offset : {0, 1, 2, 3})
            for (const float scale : {0.125f, 1.0f / std::sqrt(3.0f)})
            {
                const int rows = 3;
                const Mat scores = Mat::Random(rows, n + offset) * 20.0f;
                Mat mask = Mat::Zero(rows, n + offset);
                for (int j = 0; j < n + offset; j += 3)
                    mask(0, j) = -kInf;
                mask.row(1).setConstant(-kInf);           // a fully masked row
                mask.row(2) = RowVec::Random(n + offset); // any additive mask: the sum rounds
                Mat scores_z = scores;
                scores_z(2, offset) = -0.0f;
                // The expected rows sit where the rows computed do (Eigen's softmax on the baseline path
                // takes its first entries one by one up to an aligned address, which rounds differently).
                const int cols = n + offset;
                Mat scaled(rows, cols), masked(rows, cols), weights(rows, cols);
                Mat want_scaled(rows, cols), want_masked(rows, cols), want_weights(rows, cols);
                for (int i = 0; i < rows; ++i)
                {
                    const int at = i * cols + offset;
                    const float* s = scores_z.data() + at;
                    const float* m = mask.data() + at;
                    for (int j = 0; j < n; ++j)
                    {
                        want_scaled.data()[at + j] = s[j] * scale;
                        want_masked.data()[at + j] = want_scaled.data()[at + j] + m[j];
                    }
                    std::copy_n(want_masked.data() + at, n, want_weights.data() + at);
                    const bool want_ok =
                        softmax_row(want_weights.data() + at, n, 1.0f / 0.7f, want_weights.data() + at);
                    bool finite = false;
                    const bool ok = attention_row(s, m, n, scale, 1.0f / 0.7f, scaled.data() + at,
                                                  masked.data() + at, weights.data() + at, &finite);
                    attention_rows_done();
                    const auto bytes = static_cast<size_t>(n) * sizeof(float);
                    const std::string where = "n " + std::to_string(n) + ", offset " +
                                              std::to_string(offset) + ", row " + std::to_string(i);
                    EXPECT_EQ(ok, want_ok) << where;
                    EXPECT_TRUE(finite) << where;
                    if (i == 1)
                    {
                        EXPECT_FALSE(ok) << where;
                    }
                    EXPECT_EQ(std::memcmp(scaled.data() + at, want_scaled.data() + at, bytes), 0) << where;
                    EXPECT_EQ(std::memcmp(masked.data() + at, want_masked.data() + at, bytes), 0) << where;
                    EXPECT_EQ(std::memcmp(weights.data() + at, want_weights.data() + at, bytes), 0) << where;
                }
            }
}

TEST(AttentionRow, ANullMaskGivesTheBitsOfAMaskOfZeros)
{
    // The engine passes no mask when it is all +0.0f (no padding, no causal mask): each entry then gets +
    // 0.0f, which must keep every bit of the pass with the zeros read, -0 scores included (-0 + +0 is +0, so
    // the masked copy differs from the scaled one there), at every length and start.
    for (const int n : {1, 7, 8, 13, 100, 1024})
        for (const int offset : {0, 1, 3})
        {
            const int cols = n + offset;
            Mat scores = Mat::Random(2, cols) * 20.0f;
            scores(0, offset) = -0.0f;
            scores(1, cols - 1) = -0.0f;
            const Mat zeros = Mat::Zero(2, cols);
            EXPECT_TRUE(mask_is_zero(zeros));
            Mat scaled(2, cols), masked(2, cols), weights(2, cols);
            Mat want_scaled(2, cols), want_masked(2, cols), want_weights(2, cols);
            for (int i = 0; i < 2; ++i)
            {
                const int at = i * cols + offset;
                bool finite = false, want_finite = false;
                const bool want_ok = attention_row(scores.data() + at, zeros.data() + at, n, 0.125f, 1.0f,
                                                   want_scaled.data() + at, want_masked.data() + at,
                                                   want_weights.data() + at, &want_finite);
                const bool ok =
                    attention_row(scores.data() + at, nullptr, n, 0.125f, 1.0f, scaled.data() + at,
                                  masked.data() + at, weights.data() + at, &finite);
                attention_rows_done();
                const auto bytes = static_cast<size_t>(n) * sizeof(float);
                const std::string where = "n " + std::to_string(n) + ", offset " + std::to_string(offset);
                EXPECT_EQ(ok, want_ok) << where;
                EXPECT_EQ(finite, want_finite) << where;
                EXPECT_EQ(std::memcmp(scaled.data() + at, want_scaled.data() + at, bytes), 0) << where;
                EXPECT_EQ(std::memcmp(masked.data() + at, want_masked.data() + at, bytes), 0) << where;
                EXPECT_EQ(std::memcmp(weights.data() + at, want_weights.data() + at, bytes), 0) << where;
            }
            EXPECT_FALSE(std::signbit(masked(0, offset))) << "-0 + 0 is +0, n " << n;
        }
    // Only +0.0f everywhere counts as no mask: a -0 entry, a -inf or any other number does not.
    Mat mask = Mat::Zero(3, 5);
    EXPECT_TRUE(mask_is_zero(mask));
    mask(2, 4) = -0.0f;
    EXPECT_FALSE(mask_is_zero(mask));
    mask(2, 4) = -kInf;
    EXPECT_FALSE(mask_is_zero(mask));
    mask(2, 4) = 1e-30f;
    EXPECT_FALSE(mask_is_zero(mask));
}

TEST(AttentionRow, SaysWhetherEveryScoreIsFinite)
{
    // The engine's check of the scores rides on this pass: one +inf, -inf or NaN score anywhere in the row
    // (the entries taken one by one at its start and end, or 8 at a time between) makes it false; huge finite
    // scores whose sum would overflow do not.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (const int n : {1, 5, 8, 37})
        for (const int offset : {0, 1, 3})
        {
            const int cols = n + offset;
            Mat scores = Mat::Constant(1, cols, 3e38f), mask = Mat::Zero(1, cols);
            Mat scaled(1, cols), masked(1, cols), weights(1, cols);
            bool finite = false;
            attention_row(scores.data() + offset, mask.data() + offset, n, 1.0f, 1.0f, scaled.data() + offset,
                          masked.data() + offset, weights.data() + offset, &finite);
            EXPECT_TRUE(finite) << "n " << n << ", offset " << offset;
            for (const int at : {0, n / 2, n - 1})
                for (const float bad : {kInf, -kInf, nan})
                {
                    Mat row = Mat::Random(1, cols);
                    row(0, offset + at) = bad;
                    finite = true;
                    attention_row(row.data() + offset, mask.data() + offset, n, 0.5f, 1.0f,
                                  scaled.data() + offset, masked.data() + offset, weights.data() + offset,
                                  &finite);
                    attention_rows_done();
                    EXPECT_FALSE(finite) << "n " << n << ", offset " << offset << ", " << bad << " at " << at;
                }
        }
}
