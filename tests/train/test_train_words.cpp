// Word-level text (core/train/word_vocabulary.h): the split into words and punctuation on hand-worked text,
// the commonest words kept and the rest folded into the unknown token with their count, the level's name.
#include "core/train/word_vocabulary.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace attnlab::train
{
namespace
{

using Words = std::vector<std::string>;

TEST(SplitWords, WordsAndPunctuationMarks)
{
    EXPECT_EQ(split_words("Mr. Darcy bowed."), (Words{"Mr", ".", "Darcy", "bowed", "."}));
    // Apostrophes and hyphens inside a word join it; a dash of two hyphens is two marks; quotes are marks.
    EXPECT_EQ(
        split_words("\"Don't,\" said the well-bred lady--quietly."),
        (Words{"\"", "Don't", ",", "\"", "said", "the", "well-bred", "lady", "-", "-", "quietly", "."}));
    // A trailing apostrophe or hyphen is a mark of its own; digits are word characters.
    EXPECT_EQ(split_words("the Bennets' 5000 pounds-"),
              (Words{"the", "Bennets", "'", "5000", "pounds", "-"}));
    // Whitespace of any kind separates and is dropped; beyond ASCII, letters join words, curly quotes and
    // dashes do not, and U+2019 joins as an apostrophe.
    EXPECT_EQ(
        split_words("  caf\xC3\xA9\n\t\xE2\x80\x9Cit\xE2\x80\x99s\xE2\x80\x9D\xE2\x80\x94no "),
        (Words{"caf\xC3\xA9", "\xE2\x80\x9C", "it\xE2\x80\x99s", "\xE2\x80\x9D", "\xE2\x80\x94", "no"}));
    EXPECT_TRUE(split_words("").empty());
    EXPECT_TRUE(split_words(" \n\t ").empty());
    // An invalid byte is a token of its own, U+FFFD, between the words around it.
    EXPECT_EQ(split_words("ab\xFF"
                          "cd"),
              (Words{"ab", "\xEF\xBF\xBD", "cd"}));
}

TEST(WordVocabulary, KeepsTheCommonestAndFoldsTheRestWithTheirCount)
{
    // the x3, "." x2, a x2, b x1, c x1: 9 tokens.
    const Words words = split_words("the a. the b. the a c");
    ASSERT_EQ(words.size(), 9u);
    const WordVocabulary v = WordVocabulary::build(words, 4); // unknown + 3 words
    ASSERT_EQ(v.size(), 4);
    EXPECT_EQ(v.symbols()[0], "\xEF\xBF\xBD");
    // Most frequent first; ties (".", "a": 2 each) in byte order.
    EXPECT_EQ(v.symbols()[1], "the");
    EXPECT_EQ(v.symbols()[2], ".");
    EXPECT_EQ(v.symbols()[3], "a");
    EXPECT_EQ(v.folded_words(), 2); // b, c
    EXPECT_EQ(v.folded_count(), 2);
    EXPECT_EQ(v.token_count(), 9);
    EXPECT_EQ(v.encode(words), (std::vector<int>{1, 3, 2, 1, 0, 2, 1, 3, 0}));
    EXPECT_EQ(v.encode("never seen"), 0);
    // Decoded with spaces between words and none before a mark; folded words as U+FFFD.
    const std::vector<int> ids = v.encode(words);
    EXPECT_EQ(v.decode(ids.data(), static_cast<int>(ids.size())),
              "the a. the \xEF\xBF\xBD. the a \xEF\xBF\xBD");
    EXPECT_EQ(v.summary(),
              "4 tokens: the 3 commonest of 5 words and marks; 2 rarer ones (2 occurrences, 22.2 % "
              "of 9 tokens) folded into U+FFFD");
    // Room for every word: nothing folds.
    const WordVocabulary all = WordVocabulary::build(words, 100);
    EXPECT_EQ(all.size(), 6);
    EXPECT_EQ(all.folded_words(), 0);
    EXPECT_EQ(all.folded_count(), 0);
}

TEST(TextLevel, NamesAndABadName)
{
    TextLevel level = TextLevel::Char;
    ASSERT_TRUE(parse_text_level("word", &level).is_ok());
    EXPECT_EQ(level, TextLevel::Word);
    EXPECT_STREQ(text_level_key(level), "word");
    ASSERT_TRUE(parse_text_level("char", &level).is_ok());
    EXPECT_EQ(level, TextLevel::Char);
    const Status bad = parse_text_level("words", &level);
    ASSERT_FALSE(bad.is_ok());
    EXPECT_EQ(level, TextLevel::Char) << "unchanged on error";
    EXPECT_NE(bad.message().find("\"words\""), std::string::npos) << bad.message();
    EXPECT_NE(bad.message().find("use char"), std::string::npos) << bad.message();
    EXPECT_NE(bad.message().find("word ("), std::string::npos) << bad.message();
}

} // namespace
} // namespace attnlab::train
