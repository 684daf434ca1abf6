// Word-level text (core/train/word_vocabulary.h): the split into words and punctuation on hand-worked text,
// the commonest words kept and the rest folded into the unknown token with their count, the level's name; a
// word-level corpus, its task and probe, and a seeded run that gives the same model bit for bit.
#include "core/train/token_text.h"
#include "core/train/trainer.h"
#include "core/train/word_vocabulary.h"
#include "support/same_params.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
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

TEST(WordVocabulary, ReadsBackFromItsStringsAndRefusesWhatIsNotOneWord)
{
    const WordVocabulary v = WordVocabulary::build(split_words("the a. the b. don't the a c"), 5);
    WordVocabulary again;
    ASSERT_TRUE(WordVocabulary::from_symbols(v.symbols(), &again).is_ok());
    EXPECT_EQ(again.symbols(), v.symbols());
    EXPECT_EQ(again.encode(split_words("the a b")), v.encode(split_words("the a b")));
    const std::string unknown = "\xEF\xBF\xBD";
    // Each refusal names its entry; the output is left as it was.
    for (const auto& [symbols, part] :
         std::vector<std::pair<Words, std::string>>{{{unknown}, "at least one word"},
                                                    {{"the", "a"}, "start with the unknown token"},
                                                    {{unknown, "two words"}, "entry 1 (\"two words\")"},
                                                    {{unknown, "a", "a."}, "entry 2 (\"a.\")"},
                                                    {{unknown, "a", ""}, "entry 2"},
                                                    {{unknown, "a", "a"}, "appears twice"},
                                                    {{unknown, unknown}, "entry 1"}})
    {
        const Status s = WordVocabulary::from_symbols(symbols, &again);
        ASSERT_FALSE(s.is_ok()) << part;
        EXPECT_NE(s.message().find(part), std::string::npos) << s.message();
        EXPECT_EQ(again.symbols(), v.symbols()) << part;
    }
    // min_count folds a word seen fewer times even when there is room for it.
    const WordVocabulary common = WordVocabulary::build(split_words("the a. the b. the a c"), 100, 2);
    EXPECT_EQ(common.symbols(), (Words{unknown, "the", ".", "a"}));
    EXPECT_EQ(common.folded_words(), 2);
}

// [SECTION] A word-level corpus, task and run

namespace
{

// "The zebra sat on mats." (6 tokens), `sentences` alternating "A dog ran to Mr. Darcy." (8) and "The cat sat
// on mats." (6), then a tail of 20 tokens with `animal` in it, all in the held-out tenth.
std::string word_text(int sentences, const std::string& animal)
{
    std::string s = "The zebra sat on mats. ";
    for (int k = 0; k < sentences; ++k)
        s += k % 2 ? "The cat sat on mats. " : "A dog ran to Mr. Darcy. ";
    return s + "A dog ran to Mr. Darcy. A " + animal + " ran to mats. The cat sat on mats.";
}

TextCorpusOptions word_options(int T = 8)
{
    TextCorpusOptions o;
    o.T = T;
    o.level = TextLevel::Word;
    return o;
}

} // namespace

TEST(WordCorpus, TokensAreWordsAndMarksWithTheHeldOutTenthLast)
{
    TextSource source;
    source.path = "words.txt";
    std::shared_ptr<const TextCorpus> c;
    ASSERT_TRUE(build_text_corpus(word_text(36, "zebra"), source, word_options(), &c).is_ok());
    // 6 + 18 x (8 + 6) + 20 = 278 tokens, the last 27 held out.
    EXPECT_EQ(c->tokens, 278);
    EXPECT_EQ(c->ids.size(), 278u);
    EXPECT_EQ(c->train_end, 278u - 27u);
    EXPECT_EQ(c->level(), TextLevel::Word);
    const TextVocabulary& v = c->vocabulary;
    EXPECT_EQ(v.level(), TextLevel::Word);
    EXPECT_STREQ(v.unit(), "word");
    // "." the commonest; "zebra", once in training, folds under min_count 3; 11 words and "." are kept.
    EXPECT_EQ(v.symbols()[0], kUnknownSymbol);
    EXPECT_EQ(v.symbols()[1], ".");
    EXPECT_EQ(v.size(), 1 + 1 + 11);
    EXPECT_EQ(v.encode("zebra"), (std::vector<int>{kUnknownId}));
    EXPECT_EQ(c->folded_symbols, 1);
    EXPECT_EQ(c->folded_count, 1);
    EXPECT_EQ(c->unseen_held_out, 0) << "zebra was seen in training (folded, not unseen)";
    EXPECT_TRUE(v.word_boundaries().empty()) << "no word-start score at the word level";
    EXPECT_NE(c->summary().find("278 words and marks (251 for training"), std::string::npos) << c->summary();
    EXPECT_NE(c->summary().find("13 tokens; 1 rare word (1 occurrence) folded"), std::string::npos)
        << c->summary();
    // Ids decode to words with a space between them and none before a mark.
    const std::vector<int> ids = v.encode("A dog ran to Mr. Darcy.");
    ASSERT_EQ(ids.size(), 8u);
    EXPECT_EQ(v.decode(ids.data(), 8), "A dog ran to Mr. Darcy.");
    // Too short at the word level for T = 30: the held-out tenth must hold 31 tokens, 310 in all.
    std::shared_ptr<const TextCorpus> kept = c;
    const Status s = build_text_corpus(word_text(36, "zebra"), source, word_options(30), &kept);
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("278 words and marks; training needs at least 310"), std::string::npos)
        << s.message();
    EXPECT_EQ(kept, c) << "a refused text leaves the output as it was";
    // A text without spaces (Chinese) is one "word": the message says so in the singular and points to the
    // character level, which it has enough characters for.
    std::string chinese;
    for (int i = 0; i < 400; ++i)
        chinese += "我爱猫";
    const Status one = build_text_corpus(chinese, source, word_options(30), &kept);
    ASSERT_FALSE(one.is_ok());
    EXPECT_NE(one.message().find("has 1 word or mark; training needs at least 310"), std::string::npos)
        << one.message();
    EXPECT_NE(one.message().find("It has 1,200 characters but few spaces between words: train on characters"),
              std::string::npos)
        << one.message();
}

TEST(WordCorpus, AWordNeverSeenInTrainingIsTheUnknownTokenAndTrainingRunsOnIt)
{
    // 6 + 60 x 14 + 20 = 866 tokens: the held-out tenth (86) holds a window of the task's T + 1 = 65.
    TextSource source;
    source.path = "words.txt";
    std::shared_ptr<const TextCorpus> c;
    ASSERT_TRUE(build_text_corpus(word_text(120, "quagga"), source, word_options(), &c).is_ok());
    EXPECT_EQ(c->unseen_held_out, 1);
    EXPECT_NE(c->summary().find("1 held-out word unknown to training"), std::string::npos) << c->summary();
    const Task task(c, 0.5f);
    ASSERT_TRUE(task.status()) << task.status().message();
    Batch batch;
    task.make_batch(3, 1, 4, batch);
    for (const std::vector<Batch>& set : {std::vector<Batch>{batch}, task.held_out(8, 4)})
        for (const Batch& b : set)
            for (const int id : b.tokens)
                ASSERT_TRUE(id >= 0 && id < task.vocab_size());
    // A probe is read word by word, a word the model never saw as the unknown token.
    Batch probe;
    ASSERT_TRUE(plain_text_batch("The quagga sat.", c->vocabulary, 8, &probe).is_ok());
    ASSERT_EQ(probe.T, 4);
    EXPECT_EQ(probe.tokens[1], kUnknownId);
    EXPECT_EQ(probe.targets[0], probe.tokens[1]);
    EXPECT_EQ(task.to_text(probe.tokens.data(), 4), "The \xEF\xBF\xBD sat.");
    const Status long_probe = plain_text_batch("a b c d e f g h i", c->vocabulary, 8, &probe);
    ASSERT_FALSE(long_probe.is_ok());
    EXPECT_NE(long_probe.message().find("9 words, more than the 8"), std::string::npos)
        << long_probe.message();
}

TEST(WordCorpus, TheSameSeedGivesTheSameModelBitForBitAndTheBookTrains)
{
    TextCorpusOptions options;
    options.level = TextLevel::Word;
    std::shared_ptr<const TextCorpus> corpus;
    ASSERT_TRUE(load_text_corpus("devil", options, &corpus).is_ok());
    EXPECT_EQ(corpus->vocabulary.size(), kDefaultWordVocabulary);
    const Task task(corpus, 0.5f);
    ASSERT_TRUE(task.status()) << task.status().message();
    Preset p = task.preset();
    EXPECT_EQ(p.model.vocab_size, kDefaultWordVocabulary);
    p.train.held_out_size = 32;
    p.train.batch_size = 8;
    Trainer a, b, c;
    ASSERT_TRUE(test::init_twins_and_other(task, p, a, b, c));
    const double first = a.evaluate().loss;
    a.run(8);
    b.run(8);
    c.run(8);
    EXPECT_TRUE(test::same_params(a, b));
    EXPECT_FALSE(test::same_params(a, c));
    // Eight steps at lr 3e-3 already lower the held-out loss, and the word-start score is left out.
    const EvalStats e = a.evaluate();
    EXPECT_LT(e.loss, first);
    EXPECT_FALSE(e.word_scores);
}

} // namespace
} // namespace attnlab::train
