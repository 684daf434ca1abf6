// Softmax and LayerNorm: hand-worked values, rows summing to 1, exact zeros under -inf, no NaN.
#include "core/softmax.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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
