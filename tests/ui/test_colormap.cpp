// Colour maps and value -> colour: table shape, monotonic lightness, −∞ and NaN, scale choice.
#include "ui/picture/colormap.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace attnlab
{
namespace
{

float luminance(Color32 c)
{
    return 0.2126f * red_of(c) + 0.7152f * green_of(c) + 0.0722f * blue_of(c);
}

TEST(Colormap, TablesHave256OpaqueEntries)
{
    for (Colormap map : {Colormap::Sequential, Colormap::Diverging})
    {
        const auto& table = colormap_table(map);
        ASSERT_EQ(table.size(), 256u);
        for (Color32 c : table)
            EXPECT_EQ(c >> 24, 255u);
    }
}

TEST(Colormap, SequentialLightnessIncreases)
{
    const auto& table = colormap_table(Colormap::Sequential);
    for (std::size_t i = 8; i < 256; i += 8)
        EXPECT_GT(luminance(table[i]), luminance(table[i - 8])) << "at " << i;
    // Dark purple at 0, yellow at 1.
    EXPECT_LT(luminance(table[0]), 40.0f);
    EXPECT_GT(luminance(table[255]), 200.0f);
}

TEST(Colormap, DivergingIsWhiteInTheMiddleAndDarkAtBothEnds)
{
    const auto& table = colormap_table(Colormap::Diverging);
    EXPECT_GT(luminance(table[128]), 230.0f);
    EXPECT_LT(luminance(table[0]), 80.0f);
    EXPECT_LT(luminance(table[255]), 80.0f);
    EXPECT_GT(blue_of(table[0]), red_of(table[0]));     // low end blue
    EXPECT_GT(red_of(table[255]), blue_of(table[255])); // high end red
    for (std::size_t i = 8; i <= 128; i += 8)
        EXPECT_GE(luminance(table[i]) + 1.0f, luminance(table[i - 8]));
}

TEST(ValueToColor, ProbabilityScaleIsFixed)
{
    const ColorScale s = choose_scale(ValueRange{0.1f, 0.3f, false, false, false, 4}, true);
    EXPECT_EQ(s.kind, ScaleKind::Probability);
    EXPECT_EQ(s.lo, 0.0f);
    EXPECT_EQ(s.hi, 1.0f);
    EXPECT_EQ(value_to_color(0.0f, s), colormap_table(Colormap::Sequential)[0]);
    EXPECT_EQ(value_to_color(1.0f, s), colormap_table(Colormap::Sequential)[255]);
    EXPECT_EQ(value_to_color(0.5f, s), colormap_table(Colormap::Sequential)[128]);
    EXPECT_EQ(value_to_color(2.0f, s), colormap_table(Colormap::Sequential)[255]); // clamped
}

TEST(ValueToColor, SignedValuesAreSymmetricAndDiverging)
{
    const ColorScale s = choose_scale(ValueRange{-0.5f, 2.0f, false, false, false, 9}, false);
    EXPECT_EQ(s.kind, ScaleKind::Diverging);
    EXPECT_FLOAT_EQ(s.lo, -2.0f);
    EXPECT_FLOAT_EQ(s.hi, 2.0f);
    EXPECT_FLOAT_EQ(scale_position(0.0f, s), 0.5f);
    EXPECT_EQ(value_to_color(0.0f, s), colormap_table(Colormap::Diverging)[128]);
    EXPECT_EQ(value_to_color(-2.0f, s), colormap_table(Colormap::Diverging)[0]);
}

TEST(ValueToColor, NonNegativeUsesSequentialTrueRange)
{
    const ColorScale s = choose_scale(ValueRange{1.0f, 3.0f, false, false, false, 9}, false);
    EXPECT_EQ(s.kind, ScaleKind::Sequential);
    EXPECT_FLOAT_EQ(s.lo, 1.0f);
    EXPECT_FLOAT_EQ(s.hi, 3.0f);
    const ColorScale constant = choose_scale(ValueRange{2.0f, 2.0f, false, false, false, 4}, false);
    EXPECT_LT(constant.lo, constant.hi);
}

TEST(ValueToColor, NegativeInfinityAndNanHaveTheirOwnColours)
{
    const float inf = std::numeric_limits<float>::infinity();
    for (bool probability : {false, true})
    {
        const ColorScale s = choose_scale(ValueRange{-1.0f, 1.0f, true, false, false, 3}, probability);
        EXPECT_EQ(value_to_color(-inf, s), kNegInfColor);
        EXPECT_EQ(value_to_color(std::nanf(""), s), kNanColor);
    }
    for (Colormap map : {Colormap::Sequential, Colormap::Diverging})
        for (Color32 c : colormap_table(map))
        {
            EXPECT_NE(c, kNegInfColor);
            EXPECT_NE(c, kNanColor);
        }
}

TEST(ValueRange, IgnoresNonFiniteValues)
{
    const float inf = std::numeric_limits<float>::infinity();
    const float v[] = {-inf, 0.5f, -2.0f, 3.0f, -inf};
    const ValueRange r = value_range(v, 5);
    EXPECT_FLOAT_EQ(r.min, -2.0f);
    EXPECT_FLOAT_EQ(r.max, 3.0f);
    EXPECT_TRUE(r.has_neg_inf);
    EXPECT_FALSE(r.has_nan);
    EXPECT_EQ(r.finite_count, 3u);
}

TEST(TextColor, ContrastsWithBackground)
{
    EXPECT_EQ(text_color_on(pack_rgba(255, 255, 255)), pack_rgba(0, 0, 0));
    EXPECT_EQ(text_color_on(pack_rgba(68, 1, 84)), pack_rgba(255, 255, 255));
}

TEST(ValueToColor, StretchedWeightsRunToThe95thPercentile)
{
    // 1000 weights: 990 of 0.001, 10 of 0.5 (and a masked −∞). The top is the 95th percentile, 0.001 ... 0.5.
    std::vector<float> w(1000, 0.001f);
    for (int i = 0; i < 10; ++i)
        w[static_cast<std::size_t>(i * 100)] = 0.5f;
    w.push_back(-std::numeric_limits<float>::infinity());
    const float top = stretch_top(w.data(), w.size());
    EXPECT_FLOAT_EQ(top, 0.001f); // 95% of the finite values are 0.001
    const ValueRange range = value_range(w.data(), w.size());
    const ColorScale stretched = choose_scale(range, true, top);
    EXPECT_EQ(stretched.kind, ScaleKind::Probability);
    EXPECT_FLOAT_EQ(stretched.lo, 0.0f);
    EXPECT_FLOAT_EQ(stretched.hi, top);
    EXPECT_FLOAT_EQ(choose_scale(range, true).hi, 1.0f); // not stretched: fixed [0, 1]
    // A uniform map (all 1/T) stretches to 1/T, so it shows as the top colour instead of near black.
    std::vector<float> uniform(64, 1.0f / 64);
    EXPECT_FLOAT_EQ(stretch_top(uniform.data(), uniform.size()), 1.0f / 64);
    // Nothing finite, or all zeros: the fixed scale.
    std::vector<float> zeros(16, 0.0f);
    EXPECT_FLOAT_EQ(stretch_top(zeros.data(), zeros.size()), 1.0f);
}

TEST(TextColor, ContrastRatioFollowsWcag)
{
    EXPECT_NEAR(contrast_ratio(pack_rgba(0, 0, 0), pack_rgba(255, 255, 255)), 21.0f, 1e-3f);
    EXPECT_NEAR(contrast_ratio(pack_rgba(90, 90, 90), pack_rgba(90, 90, 90)), 1.0f, 1e-6f);
    // Symmetric.
    EXPECT_FLOAT_EQ(contrast_ratio(pack_rgba(0, 114, 178), pack_rgba(20, 20, 30)),
                    contrast_ratio(pack_rgba(20, 20, 30), pack_rgba(0, 114, 178)));
}

TEST(TextColor, ChipTextPicksTheBetterOfBlackAndWhite)
{
    // Blue: black reaches 4.0, white 5.2.
    EXPECT_EQ(chip_text_color(pack_rgba(0, 114, 178)), pack_rgba(255, 255, 255));
    EXPECT_EQ(chip_text_color(pack_rgba(240, 228, 66)), pack_rgba(0, 0, 0));
}

TEST(TextColor, ReadableOnMixesJustEnough)
{
    const Color32 dark_bg = pack_rgba(26, 27, 31);
    const Color32 blue = pack_rgba(0, 114, 178);
    ASSERT_LT(contrast_ratio(blue, dark_bg), 4.5f);
    const Color32 lighter = readable_on(blue, dark_bg);
    EXPECT_GE(contrast_ratio(lighter, dark_bg), 4.5f);
    EXPECT_LT(contrast_ratio(lighter, dark_bg), 4.7f); // no lighter than it needs to be
    EXPECT_GT(blue_of(lighter), red_of(lighter));      // still blue
    // Already readable: unchanged. On a light background it darkens.
    const Color32 orange = pack_rgba(230, 159, 0);
    EXPECT_EQ(readable_on(orange, dark_bg), orange);
    const Color32 on_white = readable_on(orange, pack_rgba(250, 250, 250));
    EXPECT_GE(contrast_ratio(on_white, pack_rgba(250, 250, 250)), 4.5f);
    EXPECT_LT(red_of(on_white), red_of(orange));
}

} // namespace
} // namespace attnlab
