// Tokenizer: words and punctuation, one sentence per line, padding to the longest sentence.
#include "core/tokenizer.h"

#include <gtest/gtest.h>

using namespace attnlab;
using Tokens = std::vector<std::string>;

TEST(Tokenizer, SplitsWordsAndPunctuation)
{
    EXPECT_EQ(tokenize("Jane visits Africa in September."),
              (Tokens{"Jane", "visits", "Africa", "in", "September", "."}));
    EXPECT_EQ(tokenize("Don't stop, ok?!"), (Tokens{"Don't", "stop", ",", "ok", "?", "!"}));
    EXPECT_EQ(tokenize("  spaced\tout  "), (Tokens{"spaced", "out"}));
    EXPECT_EQ(tokenize("x=(a+b)"), (Tokens{"x", "=", "(", "a", "+", "b", ")"}));
}

TEST(Tokenizer, KeepsMultiByteCharactersInWords)
{
    EXPECT_EQ(tokenize("Jane visite l'Afrique en été"), (Tokens{"Jane", "visite", "l'Afrique", "en", "été"}));
    EXPECT_EQ(tokenize("über 中文"), (Tokens{"über", "中文"}));
}

TEST(Tokenizer, UnicodePunctuationIsATokenOfItsOwn)
{
    // Text pasted from slides or a word processor: curly quotes, dashes, ellipses, Spanish and French marks.
    EXPECT_EQ(tokenize("“Hello,” she said — ok…"),
              (Tokens{"“", "Hello", ",", "”", "she", "said", "—", "ok", "…"}));
    EXPECT_EQ(tokenize("¿Qué tal? ¡Hola!"), (Tokens{"¿", "Qué", "tal", "?", "¡", "Hola", "!"}));
    EXPECT_EQ(tokenize("« Bonjour »"), (Tokens{"«", "Bonjour", "»"}));
    EXPECT_EQ(tokenize("‘quoted’ text"), (Tokens{"‘", "quoted’", "text"})); // ’ is also the apostrophe
    EXPECT_EQ(tokenize("我爱你。你好，世界"), (Tokens{"我爱你", "。", "你好", "，", "世界"}));
}

TEST(Tokenizer, TypographicApostropheStaysInTheWord)
{
    EXPECT_EQ(tokenize("The animal didn’t cross"), (Tokens{"The", "animal", "didn’t", "cross"}));
}

TEST(Tokenizer, UnicodeSpacesSeparate)
{
    EXPECT_EQ(tokenize("no\u00A0break\u2009thin\u3000wide"), (Tokens{"no", "break", "thin", "wide"}));
    EXPECT_EQ(tokenize("\uFEFFbom"), (Tokens{"bom"})); // a byte-order mark at the start of a pasted file
}

TEST(Tokenizer, MalformedBytesStayInWordsWithoutReadingPastTheEnd)
{
    EXPECT_EQ(tokenize("ab\xC3"), (Tokens{"ab\xC3"}));            // a cut-off two-byte character
    EXPECT_EQ(tokenize("\xE2\x80 x"), (Tokens{"\xE2\x80", "x"})); // a cut-off three-byte character
}

TEST(Tokenizer, EmptyAndBlankTextGiveNoTokens)
{
    EXPECT_TRUE(tokenize("").empty());
    EXPECT_TRUE(tokenize("   \t ").empty());
    TokenBatch batch = tokenize_batch("\n  \n\n");
    EXPECT_EQ(batch.batch_size(), 0);
    EXPECT_EQ(batch.T, 0);
}

TEST(Tokenizer, BatchPadsToTheLongestSentenceAndSkipsBlankLines)
{
    TokenBatch batch = tokenize_batch("the cat sat\n\nhello world\r\n");
    ASSERT_EQ(batch.batch_size(), 2);
    EXPECT_EQ(batch.T, 3);
    EXPECT_EQ(batch.lengths, (std::vector<int>{3, 2}));
    EXPECT_EQ(batch.tokens[0], (Tokens{"the", "cat", "sat"}));
    EXPECT_EQ(batch.tokens[1], (Tokens{"hello", "world", kPadToken}));
    EXPECT_FALSE(batch.is_pad(1, 1));
    EXPECT_TRUE(batch.is_pad(1, 2));
}

TEST(Tokenizer, FindsTheFirstByteThatIsNotUtf8)
{
    constexpr auto npos = std::string_view::npos;
    EXPECT_EQ(invalid_utf8_offset("plain ascii"), npos);
    EXPECT_EQ(invalid_utf8_offset("été 中文 ⟨q⟩ 😀"), npos);
    EXPECT_EQ(invalid_utf8_offset("caf\xe9 ok"), 3u);       // Latin-1 é
    EXPECT_EQ(invalid_utf8_offset("ab\xc3"), 2u);           // cut short
    EXPECT_EQ(invalid_utf8_offset("\xc0\xaf"), 0u);         // overlong '/'
    EXPECT_EQ(invalid_utf8_offset("x\xed\xa0\x80"), 1u);    // a UTF-16 surrogate
    EXPECT_EQ(invalid_utf8_offset("\xf4\x90\x80\x80"), 0u); // above U+10FFFF
    EXPECT_EQ(invalid_utf8_offset("ok\x80"), 2u);           // a stray continuation byte
}

TEST(Utf8, Utf16IsRecognisedByItsByteOrderMarkOrItsNuls)
{
    EXPECT_TRUE(attnlab::looks_utf16(std::string("\xFF\xFE{\0", 4)));
    EXPECT_TRUE(attnlab::looks_utf16(std::string("\xFE\xFF\0{", 4)));
    EXPECT_TRUE(attnlab::looks_utf16(std::string("{\0\"\0a\0\"\0", 8))); // little-endian ASCII
    EXPECT_TRUE(attnlab::looks_utf16(std::string("\0{\0\"\0a\0\"", 8))); // big-endian
    EXPECT_FALSE(attnlab::looks_utf16("{\"a\": 1}"));
    EXPECT_FALSE(attnlab::looks_utf16(std::string("ab\0cdefgh", 9))); // one NUL is not UTF-16
    EXPECT_FALSE(attnlab::looks_utf16("\xEF\xBB\xBFtext"));           // UTF-8's byte order mark
    EXPECT_FALSE(attnlab::looks_utf16(""));
    EXPECT_EQ(attnlab::utf16_hint("plain"), "");
    EXPECT_NE(attnlab::utf16_hint(std::string("\xFF\xFE"
                                              "a\0",
                                              4))
                  .find("save it as UTF-8"),
              std::string::npos);
}
