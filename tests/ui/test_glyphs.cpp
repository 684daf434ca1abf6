// The characters beyond the fixed font ranges: which ones the window's atlas gets, which ones it cannot hold,
// and CJK and emoji drawn in CPU pictures from the fallback fonts.
#include "ui/model/glyphs.h"
#include "ui/picture/font_file.h"
#include "ui/picture/raster.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace attnlab
{
namespace
{

TEST(Glyphs, OnlyCharactersOutsideTheFixedRangesAreAddedOnceAndSorted)
{
    GlyphSet set;
    // Latin, Greek and √ are in kFontRanges; 本, 日, 語 and ア are not.
    EXPECT_TRUE(set.add_from("Jane α √ 日本語 ア 日"));
    EXPECT_EQ(set.extra, (std::vector<char32_t>{0x30A2, 0x65E5, 0x672C, 0x8A9E}));
    EXPECT_FALSE(set.add_from("日本 and plain text")) << "nothing new: no rebuild";
    EXPECT_TRUE(set.add_from("한"));
    EXPECT_EQ(set.extra.size(), 5u);
}

TEST(Glyphs, EmojiAndInvalidBytesNeverEnterTheAtlas)
{
    GlyphSet set;
    EXPECT_FALSE(set.add_from("\xF0\x9F\x98\x80 \xFF\xFE bad \xE6\x97")); // U+1F600, stray bytes, a cut 日
    EXPECT_TRUE(set.extra.empty());
    EXPECT_EQ(characters_beyond_bmp("a \xF0\x9F\x98\x80 b \xF0\x9F\x98\x80 \xF0\x9F\x90\x88"),
              (std::vector<char32_t>{0x1F600, 0x1F408}));
    EXPECT_EQ(code_point_name(0x1F600), "U+1F600");
    EXPECT_EQ(code_point_name(0x41), "U+0041");
}

TEST(Glyphs, RightToLeftLettersAndTheTextsCharactersAreKnown)
{
    for (const char32_t c : {0x05D0, 0x0627, 0x0710, 0x0780, 0x07C1, 0xFB1D, 0xFDF2, 0xFEFB}) // א ا ܐ ހ ߁ …
        EXPECT_TRUE(is_right_to_left(c)) << code_point_name(c);
    for (const char32_t c : {0x41, 0x03B1, 0x0416, 0x0915, 0x65E5, 0x1F600}) // A α Ж क 日 😀
        EXPECT_FALSE(is_right_to_left(c)) << code_point_name(c);
    // Each character beyond ASCII once, in order of appearance; a stray byte reads as U+FFFD.
    EXPECT_EQ(characters_beyond_ascii("a Ж b Ж ا \xFF 日"),
              (std::vector<char32_t>{0x0416, 0x0627, 0xFFFD, 0x65E5}));
    EXPECT_TRUE(characters_beyond_ascii("plain text").empty());
}

TEST(Glyphs, TheAtlasStopsGrowingAtItsLimit)
{
    GlyphSet set;
    std::string text;
    for (char32_t c = 0x4E00; c < 0x4E00 + kMaxExtraGlyphs + 10; ++c) // CJK ideographs, three bytes each
    {
        text += static_cast<char>(0xE0 | (c >> 12));
        text += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        text += static_cast<char>(0x80 | (c & 0x3F));
    }
    EXPECT_TRUE(set.add_from(text));
    EXPECT_EQ(set.extra.size(), kMaxExtraGlyphs);
}

// How many pixels a text darkens on a white picture.
int inked_pixels(const TextRasterizer& text, const std::string& s)
{
    Image img;
    img.reset(200, 40, pack_rgba(255, 255, 255));
    text.draw(img, 4.0f, 4.0f, 24.0f, pack_rgba(0, 0, 0), s);
    int n = 0;
    for (const Color32 p : img.pixels)
        n += p != pack_rgba(255, 255, 255);
    return n;
}

TEST(Glyphs, PicturesDrawCjkAndEmojiFromTheFallbackFonts)
{
    TextRasterizer text;
    if (!text.load_default())
        GTEST_SKIP() << "DejaVuSans.ttf is not installed (fonts-dejavu-core)";
    if (load_fallback_font_files().size() < 2)
        GTEST_SKIP() << "the fallback fonts are not installed (fonts-droid-fallback, fonts-symbola)";
    // DejaVu Sans draws 日 and 😀 as the same empty box (its missing glyph); the fallbacks draw two different,
    // fuller glyphs.
    const int cjk = inked_pixels(text, "日");
    const int emoji = inked_pixels(text, "\xF0\x9F\x98\x80");
    const int missing = inked_pixels(text, "\xEE\x80\x80"); // U+E000, a private-use character no font has
    EXPECT_GT(cjk, missing);
    EXPECT_GT(emoji, missing);
    EXPECT_NE(cjk, emoji);
    EXPECT_GT(text.width("日本語", 24.0f), 3 * 12.0f) << "CJK characters are about a square each";
}

} // namespace
} // namespace attnlab
