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
