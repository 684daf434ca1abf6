// Mouse -> cell, label thinning, texture fill and number formatting: the heatmap's pure functions.
#include "ui/picture/heatmap_cache.h"
#include "ui/picture/heatmap_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace attnlab
{
namespace
{

TEST(CellNumbers, AtTheFontWhereTheyFitSmallerDownToTheFloorAndNoneBelow)
{
    // "0.49" is 50 px wide at a 22.5 px font.
    EXPECT_FLOAT_EQ(cell_number_px(60.0f, 60.0f, 50.0f, 22.5f, 13.0f), 22.5f) << "fits at the font's size";
    // A 43 px cell (4 heads of T = 6 at 1280x720): (43 - 4) / 50 of the font, in whole pixels.
    EXPECT_FLOAT_EQ(cell_number_px(43.0f, 43.0f, 50.0f, 22.5f, 13.0f), 17.0f);
    // A 25 px cell would need 9 px text: under the floor, no numbers.
    EXPECT_FLOAT_EQ(cell_number_px(25.0f, 25.0f, 50.0f, 22.5f, 13.0f), 0.0f);
    // A floor between whole sizes (0.6 of 22.5 px) is kept where it fits: a 34.5 px cell fits 13.7 px.
    EXPECT_FLOAT_EQ(cell_number_px(34.5f, 34.5f, 50.0f, 22.5f, 13.5f), 13.5f);
    EXPECT_FLOAT_EQ(cell_number_px(33.5f, 33.5f, 50.0f, 22.5f, 13.5f), 0.0f) << "13.5 px would not fit";
    // A flat cell is limited by its height.
    EXPECT_FLOAT_EQ(cell_number_px(200.0f, 16.0f, 50.0f, 22.5f, 13.0f), 14.0f);
    // Without a smaller floor (the window's maps): the font's size or nothing.
    EXPECT_FLOAT_EQ(cell_number_px(43.0f, 43.0f, 50.0f, 22.5f, 22.5f), 0.0f);
    EXPECT_FLOAT_EQ(cell_number_px(54.0f, 54.0f, 50.0f, 22.5f, 22.5f), 22.5f);
    EXPECT_FLOAT_EQ(cell_number_px(43.0f, 43.0f, 0.0f, 22.5f, 13.0f), 0.0f) << "no number to write";
}

TEST(ColourBarMarks, TheDataEndsAreNamedWhereTheScaleDoesNotShowThem)
{
    ValueRange range;
    range.finite_count = 96;
    // Input X: symmetric about 0 from its largest magnitude, 3.92: the top end is the data's max, the
    // bottom end is not its min.
    range.min = -1.93f;
    range.max = 3.92f;
    std::vector<ColourBarMark> marks = colour_bar_marks(range, "-1.93", "3.92", {"3.92", "-3.92", "0"});
    ASSERT_EQ(marks.size(), 1u);
    EXPECT_EQ(marks[0].text, "min -1.93");
    EXPECT_FLOAT_EQ(marks[0].value, -1.93f);
    // Weights on [0, 1]: neither end is the data's.
    range.min = 0.01f;
    range.max = 0.81f;
    marks = colour_bar_marks(range, "0.01", "0.81", {"1.00", "0.00", "0.50"});
    ASSERT_EQ(marks.size(), 2u);
    EXPECT_EQ(marks[0].text, "min 0.01");
    EXPECT_EQ(marks[1].text, "max 0.81");
    // A sequential scale from min to max: both ends say it, no mark.
    EXPECT_TRUE(colour_bar_marks(range, "0.01", "0.81", {"0.81", "0.01", "0.41"}).empty());
    // A constant matrix: its value is the bar's middle label.
    range.min = range.max = 0.5f;
    EXPECT_TRUE(colour_bar_marks(range, "0.50", "0.50", {"1.00", "0.00", "0.50"}).empty());
    range.finite_count = 0;
    EXPECT_TRUE(colour_bar_marks(range, "0", "0", {"1", "-1"}).empty()) << "no finite value, no mark";
}

TEST(CellAt, MapsEveryInsidePointToOneCell)
{
    // A 3 x 4 matrix drawn at (100, 50), 40 x 30 pixels: cells are 10 x 10.
    EXPECT_FALSE(cell_at(99.9f, 60.0f, 100, 50, 40, 30, 3, 4).inside);
    EXPECT_FALSE(cell_at(140.0f, 60.0f, 100, 50, 40, 30, 3, 4).inside); // right edge is outside
    EXPECT_FALSE(cell_at(120.0f, 80.0f, 100, 50, 40, 30, 3, 4).inside); // bottom edge is outside
    const CellHit first = cell_at(100.0f, 50.0f, 100, 50, 40, 30, 3, 4);
    EXPECT_TRUE(first.inside);
    EXPECT_EQ(first.row, 0);
    EXPECT_EQ(first.col, 0);
    const CellHit last = cell_at(139.99f, 79.99f, 100, 50, 40, 30, 3, 4);
    EXPECT_EQ(last.row, 2);
    EXPECT_EQ(last.col, 3);
    const CellHit mid = cell_at(125.0f, 65.0f, 100, 50, 40, 30, 3, 4);
    EXPECT_EQ(mid.row, 1);
    EXPECT_EQ(mid.col, 2);
}

TEST(CellAt, SubPixelCellsOfALargeMatrix)
{
    // 512 columns in 300 pixels: every pixel maps to a valid column, increasing.
    int previous = -1;
    for (float x = 0.0f; x < 300.0f; x += 0.5f)
    {
        const CellHit h = cell_at(x, 0.0f, 0, 0, 300, 300, 512, 512);
        ASSERT_TRUE(h.inside);
        EXPECT_GE(h.col, previous);
        EXPECT_LT(h.col, 512);
        previous = h.col;
    }
    EXPECT_EQ(previous, 511);
}

TEST(CellAt, EmptyMatrixOrAreaHasNoCell)
{
    EXPECT_FALSE(cell_at(1, 1, 0, 0, 10, 10, 0, 4).inside);
    EXPECT_FALSE(cell_at(1, 1, 0, 0, 0, 10, 4, 4).inside);
}

// Ten tokens at 8 px a row under 15 px labels: every other one, and a lesson's named rows 1 and 7 ("animal",
// "it") whatever the stride, the stride-th labels that would overlap them (0, 2, 6, 8) left out.
TEST(LabelStride, NamedLabelsAreNeverThinnedAway)
{
    const int stride = label_stride(10, 8.0f, 15.0f);
    ASSERT_EQ(stride, 2);
    EXPECT_EQ(labelled_indices(10, stride, 8.0f, 15.0f, {}), (std::vector<int>{0, 2, 4, 6, 8}));
    EXPECT_EQ(labelled_indices(10, stride, 8.0f, 15.0f, {7, 1}), (std::vector<int>{1, 4, 7}));
    EXPECT_EQ(labelled_indices(10, stride, 8.0f, 15.0f, {5, -1, 10}), (std::vector<int>{0, 2, 5, 8}))
        << "out-of-range names ignored";
    EXPECT_EQ(labelled_indices(10, stride, 8.0f, 15.0f, {4}), (std::vector<int>{0, 2, 4, 6, 8}))
        << "a named stride-th label once";
    EXPECT_EQ(labelled_indices(4, 1, 30.0f, 15.0f, {2}), (std::vector<int>{0, 1, 2, 3})) << "no thinning";
}

TEST(LabelStride, ThinsLabelsToRoundSteps)
{
    EXPECT_EQ(label_stride(6, 30.0f, 16.0f), 1);
    EXPECT_EQ(label_stride(512, 1.0f, 16.0f), 20);
    EXPECT_EQ(label_stride(512, 2.0f, 16.0f), 10);
    EXPECT_EQ(label_stride(100, 8.0f, 16.0f), 2);
    EXPECT_EQ(label_stride(100, 4.0f, 16.0f), 5);
    for (int n : {7, 64, 513, 2048})
        for (float cell : {0.3f, 1.0f, 3.0f, 11.0f})
        {
            const int k = label_stride(n, cell, 16.0f);
            EXPECT_GE(k * cell, 16.0f - 1e-3f) << n << " " << cell; // shown labels never overlap
        }
}

TEST(TexelsPerCell, SmallMatricesGetStripesRoom)
{
    EXPECT_EQ(texels_per_cell(6, 6), 8);
    EXPECT_EQ(texels_per_cell(512, 512), 1);
    EXPECT_EQ(texels_per_cell(1, 1), 8);
    EXPECT_LE(texels_per_cell(100, 3) * 100, 512);
}

TEST(FillHeatmapPixels, RowMajorTopRowFirstWithStripesOnNegInf)
{
    const float inf = std::numeric_limits<float>::infinity();
    const float m[] = {0.0f, 1.0f, -inf, 0.5f}; // 2 x 2
    const ColorScale s{ScaleKind::Probability, 0.0f, 1.0f};
    std::vector<Color32> px;
    fill_heatmap_pixels(m, 2, 2, s, 1, px);
    ASSERT_EQ(px.size(), 4u);
    EXPECT_EQ(px[0], value_to_color(0.0f, s));
    EXPECT_EQ(px[1], value_to_color(1.0f, s));
    EXPECT_EQ(px[2], kNegInfColor);
    fill_heatmap_pixels(m, 2, 2, s, 8, px);
    ASSERT_EQ(px.size(), 256u);
    EXPECT_EQ(px[0], value_to_color(0.0f, s));
    EXPECT_EQ(px[15], value_to_color(1.0f, s)); // top row, right cell
    // The −∞ cell (bottom left) has both its colour and its stripes.
    int neg = 0, stripe = 0;
    for (int y = 8; y < 16; ++y)
        for (int x = 0; x < 8; ++x)
        {
            neg += px[static_cast<std::size_t>(y * 16 + x)] == kNegInfColor;
            stripe += px[static_cast<std::size_t>(y * 16 + x)] == kNegInfStripe;
        }
    EXPECT_GT(neg, 0);
    EXPECT_GT(stripe, 0);
    EXPECT_EQ(neg + stripe, 64);
}

TEST(FormatValue, ShortAndHonest)
{
    EXPECT_EQ(format_value(0.0f), "0");
    EXPECT_EQ(format_value(-0.0f), "0");
    EXPECT_EQ(format_value(0.25f), "0.25");
    EXPECT_EQ(format_value(-1.234f), "-1.23");
    EXPECT_EQ(format_value(12.34f), "12.3");
    EXPECT_EQ(format_value(123.4f), "123");
    EXPECT_EQ(format_value(12345.0f), "1.2e+04");
    // Never "0.00" for a value that is not zero: a colour bar from -0.0019 to 0.0019 read "0.00" at both
    // ends.
    EXPECT_EQ(format_value(0.0019f), "1.9e-03");
    EXPECT_EQ(format_value(-0.0019f), "-1.9e-03");
    EXPECT_EQ(format_value(0.0099f), "9.9e-03");
    EXPECT_EQ(format_value(0.01f), "0.01");
    EXPECT_EQ(format_value(-std::numeric_limits<float>::infinity()), "−∞");
    EXPECT_EQ(format_value(std::nanf("")), "NaN");
    EXPECT_EQ(format_value_long(0.123456789f), "0.123457");
}

TEST(FormatProbability, SmallOnesKeepTheirDigits)
{
    EXPECT_EQ(format_probability(0.1234f), "0.123");
    EXPECT_EQ(format_probability(0.001f), "0.001");
    EXPECT_EQ(format_probability(2.1e-5f), "2.1e-05");
    EXPECT_EQ(format_probability(0.0f), "0.000");
    EXPECT_EQ(format_probability(1.0f), "1.000");
}

// A cell shows an exact zero as "0" and a tiny value as "0.00"; the tooltip says which is which.
TEST(CellText, ZeroAndTinyValuesReadDifferentlyAndTheTooltipSaysWhy)
{
    EXPECT_EQ(cell_text(0.0f), "0");
    EXPECT_EQ(cell_text(-0.0f), "0");
    EXPECT_EQ(cell_text(3.5e-36f), "0.00");
    EXPECT_EQ(cell_text(-2.9e-4f), "-0.00");
    EXPECT_EQ(cell_text(0.0019f), "0.00"); // a cell keeps its two decimals below 0.01
    EXPECT_EQ(cell_text(0.007f), "0.01");
    EXPECT_EQ(cell_text(-0.007f), "-0.01");
    EXPECT_EQ(cell_text(0.25f), "0.25");
    EXPECT_EQ(cell_text(1234.0f), "1.2e+03"); // large ones keep scientific notation
    EXPECT_EQ(cell_value_line(0.0f), "value 0  (exactly zero: a cell shows 0 only then)");
    EXPECT_EQ(cell_value_line(3.5e-36f), "value 3.5e-36  (not zero: the cell rounds it to 0.00)");
    EXPECT_EQ(cell_value_line(-2.9e-4f), "value -0.00029  (not zero: the cell rounds it to -0.00)");
    EXPECT_EQ(cell_value_line(0.25f), "value 0.25");
    // A masked weight (0) or score (−∞) is hatched, not numbered: no word about a 0 the map does not show.
    EXPECT_EQ(cell_value_line(0.0f, true), "value 0  (masked: the cell is hatched, not numbered)");
    EXPECT_EQ(cell_value_line(-std::numeric_limits<float>::infinity(), true),
              "value −∞  (masked: the cell is hatched, not numbered)");
}

TEST(TruncateUtf8, CutsOnCodePoints)
{
    EXPECT_EQ(truncate_utf8("September", 20), "September");
    EXPECT_EQ(truncate_utf8("September", 5), "Sept…");
    EXPECT_EQ(utf8_length("√d_k"), 4);
    EXPECT_EQ(truncate_utf8("ααααα", 3), "αα…");
    EXPECT_EQ(truncate_utf8("abc", 0), "");
    // At the limit nothing is cut; one past it the last kept character gives way to "…".
    EXPECT_EQ(truncate_utf8("αβγ", 3), "αβγ");
    EXPECT_EQ(truncate_utf8("αβγδ", 3), "αβ…");
    EXPECT_EQ(truncate_utf8("abc", 1), "…");
    EXPECT_EQ(truncate_utf8("a", 1), "a");
    EXPECT_EQ(truncate_utf8("", 3), "");
    // A token of megabytes (a whole text with no space) as a ten-character label.
    const std::string huge = "√" + std::string(5'000'000, 'x');
    EXPECT_EQ(truncate_utf8(huge, 10), "√xxxxxxxx…");
    EXPECT_EQ(utf8_length(huge), 5'000'001);
}

} // namespace
} // namespace attnlab

namespace attnlab
{
namespace
{

TEST(FillHeatmapPixels, MatchesValueToColorEverywhere)
{
    std::vector<float> m;
    for (int i = 0; i < 1000; ++i)
        m.push_back(-3.0f + 0.006f * static_cast<float>(i));
    for (ScaleKind kind : {ScaleKind::Diverging, ScaleKind::Sequential, ScaleKind::Probability})
    {
        const ColorScale s{kind, kind == ScaleKind::Diverging ? -3.0f : 0.0f, 3.0f};
        std::vector<Color32> px;
        fill_heatmap_pixels(m.data(), 10, 100, s, 1, px);
        for (std::size_t i = 0; i < m.size(); ++i)
            ASSERT_EQ(px[i], value_to_color(m[i], s)) << i << " " << m[i];
    }
}

bool overlaps(const ScreenRect& a, const ScreenRect& b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

TEST(TooltipRect, KeepsClearOfTheInspector)
{
    const ScreenRect inspector{1000.0f, 500.0f, 600.0f, 500.0f}; // bottom right of a 1600 x 1000 window
    // Far from it: below right of the mouse, as usual.
    ScreenRect r = tooltip_rect(200.0f, 200.0f, 300.0f, 100.0f, inspector, 1600.0f, 1000.0f, 16.0f);
    EXPECT_EQ(r.x, 216.0f);
    EXPECT_EQ(r.y, 216.0f);
    // Left of the Inspector: below right would cover it, below left does not.
    r = tooltip_rect(900.0f, 600.0f, 300.0f, 100.0f, inspector, 1600.0f, 1000.0f, 16.0f);
    EXPECT_FALSE(overlaps(r, inspector));
    EXPECT_EQ(r.x + r.w, 884.0f);
    EXPECT_EQ(r.y, 616.0f);
    // Above it (the Heads panel): the tooltip goes above the mouse.
    r = tooltip_rect(1300.0f, 450.0f, 300.0f, 100.0f, inspector, 1600.0f, 1000.0f, 16.0f);
    EXPECT_FALSE(overlaps(r, inspector));
    EXPECT_LE(r.y + r.h, 434.0f);
    // Always inside the window.
    r = tooltip_rect(1590.0f, 10.0f, 300.0f, 100.0f, ScreenRect{}, 1600.0f, 1000.0f, 16.0f);
    EXPECT_GE(r.x, 0.0f);
    EXPECT_LE(r.x + r.w, 1600.0f);
    EXPECT_GE(r.y, 0.0f);
}

// A matrix wider than a texture may be (GPT-2's 50,257 logits) is drawn binned: no texture side over the
// limit, and a large value in any column keeps its colour in the texel column that covers it.
// Keeps the last texture's size and pixels.
class LastTexture final : public TextureProvider
{
public:
    TextureHandle create_texture(int w_, int h_, const std::uint32_t* rgba) override
    {
        update_texture(1, w_, h_, rgba);
        return 1;
    }
    void update_texture(TextureHandle, int w_, int h_, const std::uint32_t* rgba) override
    {
        w = w_;
        h = h_;
        pixels.assign(rgba, rgba + static_cast<std::size_t>(w_) * static_cast<std::size_t>(h_));
    }
    void destroy_texture(TextureHandle) override {}
    int w = 0, h = 0;
    std::vector<std::uint32_t> pixels;
};

TEST(HeatmapCacheWide, ColumnsBinnedWithTheirLargestValue)
{
    LastTexture provider;
    HeatmapCache cache;
    cache.set_provider(&provider);
    const int cols = 50257;
    Mat m = Mat::Zero(2, cols);
    m(0, 40000) = 5.0f;  // one strong logit
    m(1, 12345) = -5.0f; // and a strongly negative one
    const HeatmapEntry& e = cache.get("wide", 1, m, false);
    ASSERT_NE(e.texture, 0u);
    const LastTexture& t = provider;
    EXPECT_LE(t.w, kMaxTextureColumns);
    EXPECT_EQ(t.h, 2);
    EXPECT_EQ(e.cols, cols); // the entry still describes the whole matrix
    const int bin = (cols + t.w - 1) / t.w;
    const auto texel = [&](int r, int c) { return t.pixels[static_cast<std::size_t>(r * t.w + c)]; };
    EXPECT_EQ(texel(0, 40000 / bin), value_to_color(5.0f, e.scale));
    EXPECT_EQ(texel(1, 12345 / bin), value_to_color(-5.0f, e.scale));
    EXPECT_EQ(texel(0, 0), value_to_color(0.0f, e.scale));
    cache.clear();
}

} // namespace
} // namespace attnlab
