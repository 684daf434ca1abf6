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
