// The Text task: the corpus reader's every refusal has its message, the vocabulary and the held-out split,
// characters never seen in training, seeded windows and repeats, the word-start score, per-token losses and
// sampling.
#include "core/train/sampling.h"
#include "core/train/trainer.h"
#include "support/same_params.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

using namespace attnlab;
using namespace attnlab::train;

namespace
{

// n characters of English-like text: "the cat sat on the mat. " repeated.
std::string english(std::size_t n)
{
    const std::string line = "the cat sat on the mat and the dog ran off. ";
    std::string s;
    while (s.size() < n)
        s += line;
    s.resize(n);
    return s;
}

TextSource named(const std::string& path)
{
    TextSource s;
    s.path = path;
    return s;
}

Status build(std::string_view bytes, std::shared_ptr<const TextCorpus>* out)
{
    return build_text_corpus(bytes, named("notes.txt"), TextCorpusOptions{}, out);
}

bool has(const Status& s, const std::string& part)
{
    return s.message().find(part) != std::string::npos;
}

std::string temp_path(const std::string& name)
{
    return (std::filesystem::temp_directory_path() /
            ("attnlab_text_" + std::to_string(::getpid()) + "_" + name))
        .string();
}

} // namespace

// [SECTION] Reading a text

TEST(TrainText, EveryBadTextGetsItsMessage)
{
    std::shared_ptr<const TextCorpus> c;
    Status s = build("", &c);
    EXPECT_TRUE(has(s, "notes.txt is empty")) << s.message();
    s = build("\xEF\xBB\xBF", &c); // a byte order mark alone
    EXPECT_TRUE(has(s, "is empty")) << s.message();
    s = build(english(2000) + std::string(1, '\0') + "x", &c);
    EXPECT_TRUE(has(s, "looks binary (a NUL byte at offset 2000)")) << s.message();
    s = build("line one\nline two\ncaf\xE9\n" + english(2000), &c); // Latin-1 é
    EXPECT_TRUE(has(s, "not valid UTF-8 (line 3, byte offset 21)")) << s.message();
    EXPECT_TRUE(has(s, "iconv")) << s.message();
    s = build(english(649), &c); // 10 (T + 1) = 650 needed
    EXPECT_TRUE(has(s, "has 649 characters; training needs at least 650")) << s.message();
    EXPECT_TRUE(build(english(650), &c)) << "650 characters hold a held-out window of 65";
    s = build(std::string(kMaxTextBytes + 1, 'a'), &c);
    EXPECT_TRUE(has(s, "more than the 16.0 MiB")) << s.message();
    EXPECT_EQ(c->tokens, 650) << "a refused text leaves the output as it was";

    s = load_text_corpus(temp_path("missing.txt"), TextCorpusOptions{}, &c);
    EXPECT_TRUE(has(s, "no such file (built-in texts: austen, devil)")) << s.message();
    s = load_text_corpus(std::filesystem::temp_directory_path().string(), TextCorpusOptions{}, &c);
    EXPECT_TRUE(has(s, "is a folder")) << s.message();
    const std::string big = temp_path("big.txt");
    {
        std::ofstream f(big, std::ios::binary);
        f.seekp(static_cast<std::streamoff>(kMaxTextBytes));
        f.put('a');
    }
    s = load_text_corpus(big, TextCorpusOptions{}, &c);
    // One byte over: both sizes round to 16.0 MiB, so they are written in bytes.
    EXPECT_TRUE(has(s, "is 16777217 bytes, more than the 16.0 MiB (16777216 bytes)")) << s.message();
    std::filesystem::remove(big);

    // UTF-16 (a Windows editor's "Unicode"), with its byte order mark or without: named, with the fix.
    std::string little_endian;
    for (const char ch : english(1000))
        little_endian += std::string(1, ch) + '\0';
    for (const std::string& utf16 : {"\xFF\xFE" + little_endian, little_endian})
    {
        s = build(utf16, &c);
        EXPECT_TRUE(has(s, "notes.txt is UTF-16 text")) << s.message();
        EXPECT_TRUE(has(s, "save it as UTF-8")) << s.message();
    }
    // A FIFO is refused without being read (it could block forever), and a link that loops is named a link.
    const std::string fifo = temp_path("fifo.txt");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    s = load_text_corpus(fifo, TextCorpusOptions{}, &c);
    EXPECT_TRUE(has(s, "is not a regular file (a device, a FIFO or a socket)")) << s.message();
    std::filesystem::remove(fifo);
    const std::string loop = temp_path("loop.txt");
    std::filesystem::create_symlink(loop, loop);
    s = load_text_corpus(loop, TextCorpusOptions{}, &c);
    EXPECT_TRUE(has(s, "is a link that cannot be followed")) << s.message();
    EXPECT_FALSE(has(s, "no such file")) << s.message();
    std::filesystem::remove(loop);
}

TEST(TrainText, TheVocabularyComesFromTheTrainingPartWithRareCharactersFolded)
{
    // 2000 characters: the held-out tenth is the last 200. 'Q' twice in training (below min_count 3) folds;
    // 'Z' appears only in the held-out part; CR LF reads as LF.
    std::string text = english(1800);
    text[100] = 'Q';
    text[900] = 'Q';
    for (const std::size_t at : {300, 500, 700})
        text.replace(at, 2, "\r\n");
    text += english(190) + "ZZ" + english(8);
    std::shared_ptr<const TextCorpus> c;
    ASSERT_TRUE(build("\xEF\xBB\xBF" + text, &c));
    EXPECT_EQ(c->tokens, 1997); // BOM skipped, CR LF one character
    EXPECT_EQ(c->train_end, 1997u - 199u);
    const CharVocabulary& v = c->vocabulary.chars();
    EXPECT_EQ(v.symbols()[0], kUnknownSymbol);
    EXPECT_EQ(v.encode(U'Q'), kUnknownId);
    EXPECT_EQ(v.encode(U'Z'), kUnknownId);
    EXPECT_NE(v.encode(U'\n'), kUnknownId);
    EXPECT_EQ(v.encode(U'\r'), kUnknownId) << "an LF-only text after reading CR LF";
    EXPECT_EQ(c->folded_symbols, 1);
    EXPECT_EQ(c->folded_count, 2);
    EXPECT_EQ(c->unseen_held_out, 2);
    EXPECT_NE(c->summary().find("1 rare character (2 occurrences) folded"), std::string::npos)
        << c->summary();
    EXPECT_NE(c->summary().find("2 held-out characters unknown to training"), std::string::npos);
    // The symbols in code point order after the unknown one: " ", "\n", ".", then letters.
    EXPECT_TRUE(std::is_sorted(v.symbols().begin() + 1, v.symbols().end()));
    const std::vector<int> ids = v.encode("the Zoo");
    ASSERT_EQ(ids.size(), 7u);
    EXPECT_EQ(ids[4], kUnknownId);
    EXPECT_EQ(v.decode(ids.data(), 7), "the \xEF\xBF\xBDoo");
    // A vocabulary read back from its strings encodes the same.
    CharVocabulary again;
    ASSERT_TRUE(CharVocabulary::from_symbols(v.symbols(), &again));
    EXPECT_EQ(again.encode("the Zoo"), ids);
    EXPECT_FALSE(CharVocabulary::from_symbols({kUnknownSymbol, "ab"}, &again));
    EXPECT_FALSE(CharVocabulary::from_symbols({"a", "b"}, &again));
}

// A character never seen in training is the unknown token in the held-out set, and training and evaluation
// run on it.
TEST(TrainText, ACharacterNeverSeenInTrainingIsHandled)
{
    std::string text = english(3000) + "\xCE\xA9\xCE\xA9 omega " + english(300); // Ω only after the split
    std::shared_ptr<const TextCorpus> c;
    ASSERT_TRUE(build(text, &c));
    EXPECT_EQ(c->vocabulary.chars().encode(U'\u03A9'), kUnknownId);
    const Task task(c, 0.0f);
    ASSERT_TRUE(task.status());
    bool unknown_held_out = false;
    for (const Batch& b : task.held_out(64, 16))
        unknown_held_out = unknown_held_out || std::count(b.tokens.begin(), b.tokens.end(), kUnknownId) > 0;
    EXPECT_TRUE(unknown_held_out);
    Trainer trainer;
    Preset p = task.preset();
    p.train.held_out_size = 64;
    ASSERT_TRUE(trainer.init(task, p));
    trainer.run(3);
    const EvalStats& e = trainer.evaluate();
    EXPECT_TRUE(std::isfinite(e.loss));
    EXPECT_GT(e.loss, 0);
}

// [SECTION] Batches

TEST(TrainText, WindowsComeFromTheTrainingPartAndHeldOutFromTheLastTenth)
{
    std::shared_ptr<const TextCorpus> c;
    std::string text;
    for (int i = 0; i < 400; ++i) // distinct numbered words: each window of 64 occurs once
        text += "w" + std::to_string(i) + " ";
    ASSERT_TRUE(build(text, &c));
    const Task task(c, 0.0f);
    const std::vector<int> ids(c->ids.begin(), c->ids.end());
    const auto found_at = [&](const int* tokens)
    {
        const auto it = std::search(ids.begin(), ids.end(), tokens, tokens + task.T());
        return it == ids.end() ? -1 : static_cast<int>(it - ids.begin());
    };
    Batch a, b;
    task.make_batch(5, 9, 32, a);
    task.make_batch(5, 9, 32, b);
    EXPECT_EQ(a.tokens, b.tokens) << "a batch is a pure function of seed and step";
    task.make_batch(5, 10, 32, b);
    EXPECT_NE(a.tokens, b.tokens);
    for (int s = 0; s < a.B; ++s)
    {
        const int at = found_at(&a.tokens[static_cast<size_t>(s * a.T)]);
        ASSERT_GE(at, 0);
        EXPECT_LE(static_cast<std::size_t>(at + a.T + 1), c->train_end)
            << "a window (with its target) trains";
        EXPECT_EQ(a.targets[static_cast<size_t>(s * a.T)], ids[static_cast<size_t>(at + 1)]);
        EXPECT_EQ(a.loss_mask[static_cast<size_t>(s * a.T + a.T - 1)], 0) << "the last target is not counted";
    }
    for (const Batch& h : task.held_out(40, 8))
        for (int s = 0; s < h.B; ++s)
        {
            const int at = found_at(&h.tokens[static_cast<size_t>(s * h.T)]);
            EXPECT_GE(static_cast<std::size_t>(at), c->train_end) << "held-out windows lie in the last tenth";
        }
    EXPECT_EQ(task.to_text(a.tokens.data(), 3).size(), 3u) << "characters, not separated by spaces";
}

TEST(TrainText, TheRepeatShareCopiesASnippetLaterInTheWindow)
{
    std::shared_ptr<const TextCorpus> c;
    std::string text;
    for (int i = 0; i < 400; ++i)
        text += "w" + std::to_string(i) + " ";
    ASSERT_TRUE(build(text, &c));
    // The longest stretch of a window that also appears earlier in it, not overlapping.
    const auto longest_repeat = [](const int* x, int n)
    {
        int best = 0;
        for (int a = 0; a < n; ++a)
            for (int b = a + 1; b < n; ++b)
            {
                int L = 0;
                while (b + L < n && a + L < b && x[a + L] == x[b + L])
                    ++L;
                best = std::max(best, L);
            }
        return best;
    };
    int repeated = 0;
    const Task half(c, 0.5f), none(c, 0.0f);
    Batch batch;
    half.make_batch(1, 0, 200, batch);
    for (int s = 0; s < batch.B; ++s)
    {
        // The inputs and the target of the last position: T + 1 characters.
        std::vector<int> seq(batch.tokens.begin() + s * batch.T, batch.tokens.begin() + (s + 1) * batch.T);
        seq.push_back(batch.targets[static_cast<size_t>((s + 1) * batch.T - 1)]);
        repeated += longest_repeat(seq.data(), static_cast<int>(seq.size())) >= 8;
    }
    EXPECT_GT(repeated, 70);
    EXPECT_LT(repeated, 130);
    none.make_batch(1, 0, 200, batch);
    for (int s = 0; s < batch.B; ++s)
        EXPECT_LT(longest_repeat(&batch.tokens[static_cast<size_t>(s * batch.T)], batch.T), 8);
}

TEST(TrainText, TheBuiltInCorporaLoadAndAreShared)
{
    for (const BuiltinCorpus& b : builtin_corpora())
    {
        std::shared_ptr<const TextCorpus> c, again;
        ASSERT_TRUE(load_text_corpus(b.key, TextCorpusOptions{}, &c)) << b.key;
        ASSERT_TRUE(load_text_corpus(b.key, TextCorpusOptions{}, &again));
        EXPECT_EQ(c.get(), again.get()) << "read once, shared";
        EXPECT_EQ(c->source.builtin, b.key);
        EXPECT_GT(c->tokens, 300000);
        EXPECT_GT(c->vocabulary.size(), 50);
        EXPECT_LT(c->vocabulary.size(), 100);
    }
    const Task text(TaskKind::Text);
    ASSERT_TRUE(text.status()) << text.status().message();
    EXPECT_EQ(text.corpus()->source.builtin, "austen");
}

// [SECTION] What a text model shows

// The word-start score is the weight on the last whitespace before the query, worked by hand on "ab cd":
// a head attending to the previous token scores 1 on rows whose previous token is the space and 0 elsewhere.
TEST(TrainText, TheWordStartScoreIsTheWeightOnTheLastSpace)
{
    ModelConfig c;
    c.vocab_size = 5;
    c.T_max = 5;
    c.n_layers = 1;
    c.n_heads = 1;
    c.d_model = 4;
    c.attention_only = true;
    Batch batch;
    batch.resize(1, 5);
    batch.tokens = {1, 2, 0, 3, 4}; // a b ␣ c d, token 0 the space
    Activations acts;
    size_activations(c, 1, 5, acts);
    acts.layers[0].weights.setZero();
    for (int i = 0; i < 5; ++i)
        acts.layers[0].weights(i, std::max(0, i - 1)) = 1; // previous token (row 0 on itself)
    HeadScoreSums sums;
    sums.reset(c);
    sums.set_word_boundaries({1, 0, 0, 0, 0});
    sums.add(c, batch, acts);
    std::vector<HeadScores> out;
    sums.finish(out);
    // Rows after the space: 3 (c, previous token the space: 1) and 4 (d: its previous token is c, 0).
    EXPECT_DOUBLE_EQ(out[0].word_start, 0.5);
    EXPECT_DOUBLE_EQ(out[0].previous_token, 1.0);
}

TEST(TrainText, PerTokenLossesAndSamplesAreTheModelsAndSeeded)
{
    std::shared_ptr<const TextCorpus> corpus;
    ASSERT_TRUE(build(english(5000), &corpus));
    const Task task(corpus, 0.0f);
    Trainer trainer;
    Preset p = task.preset();
    p.train.held_out_size = 32;
    ASSERT_TRUE(trainer.init(task, p));
    trainer.run(30);
    const Batch probe = task.probe();
    ASSERT_TRUE(trainer.probe(probe));
    const std::vector<float> losses = token_losses(probe, trainer.probe_activations(), 0);
    ASSERT_EQ(static_cast<int>(losses.size()), probe.T);
    for (int t = 0; t + 1 < probe.T; ++t)
    {
        const float p_target = trainer.probe_activations().probs(t, probe.targets[static_cast<size_t>(t)]);
        EXPECT_NEAR(losses[static_cast<size_t>(t)], -std::log(p_target), 1e-4f) << t;
    }
    EXPECT_TRUE(std::isnan(losses.back())) << "the last character's next is unknown";

    const std::vector<int> prompt = corpus->vocabulary.encode("the cat ");
    std::vector<int> a, b, other, greedy;
    ASSERT_TRUE(sample_tokens(trainer.model(), trainer.params(), prompt, 100, 1.0f, 7, &a));
    ASSERT_TRUE(sample_tokens(trainer.model(), trainer.params(), prompt, 100, 1.0f, 7, &b));
    ASSERT_TRUE(sample_tokens(trainer.model(), trainer.params(), prompt, 100, 1.0f, 8, &other));
    ASSERT_TRUE(sample_tokens(trainer.model(), trainer.params(), prompt, 3, 0.0f, 7, &greedy));
    EXPECT_EQ(a.size(), 100u);
    EXPECT_EQ(a, b) << "the same seed gives the same text";
    EXPECT_NE(a, other);
    // Temperature 0 takes the most probable next character of the prompt.
    Batch prompt_batch;
    prompt_batch.resize(1, static_cast<int>(prompt.size()));
    prompt_batch.tokens = prompt;
    ASSERT_TRUE(trainer.probe(prompt_batch));
    Eigen::Index best = 0;
    trainer.probe_activations().probs.row(prompt_batch.T - 1).maxCoeff(&best);
    EXPECT_EQ(greedy[0], static_cast<int>(best));
    std::vector<int> untouched = {42};
    EXPECT_FALSE(sample_tokens(trainer.model(), trainer.params(), {}, 5, 1.0f, 1, &untouched));
    EXPECT_FALSE(sample_tokens(trainer.model(), trainer.params(), prompt, 5, -1.0f, 1, &untouched));
    EXPECT_FALSE(sample_tokens(trainer.model(), trainer.params(), {999}, 5, 1.0f, 1, &untouched));
    EXPECT_EQ(untouched, std::vector<int>{42});
}

TEST(TrainText, TheSameSeedGivesTheSameModelBitForBit)
{
    std::shared_ptr<const TextCorpus> corpus;
    ASSERT_TRUE(load_text_corpus("devil", TextCorpusOptions{}, &corpus));
    const Task task(corpus, 0.5f);
    Preset p = task.preset();
    p.train.held_out_size = 32;
    Trainer a, b, c;
    ASSERT_TRUE(test::init_twins_and_other(task, p, a, b, c));
    a.run(10);
    b.run(10);
    c.run(10);
    EXPECT_TRUE(test::same_params(a, b));
    EXPECT_FALSE(test::same_params(a, c));
}

// [SECTION] Learning English: the preset on Pride and Prejudice, plain and with repeats. Hundreds of steps
// each, so the sanitizer build leaves them out (.ci/sanitize), as it does the other training outcome tests.
//
// The prefix-matching score (metrics.h) of a head that spreads its weight evenly is about 0.08 on English,
// not 0 as on random tokens (ThePrefixMatchingScoreOfAnEvenHead... below): a head without any induction role
// scores 0.04-0.12, so "no induction head" is asserted as below 0.12, under the 0.15 an induction head
// reaches.

namespace
{

constexpr double kInductionHead = 0.15, kNoInductionHead = 0.12;

// The largest score of that kind over the heads of layer l (n heads a layer), and which head has it.
double best_in_layer(const EvalStats& e, int l, int n, double HeadScores::*score, int* head = nullptr)
{
    double top = -1;
    for (int j = 0; j < n; ++j)
    {
        const double v = e.heads[static_cast<size_t>(l * n + j)].*score;
        if (v > top)
        {
            top = v;
            if (head)
                *head = j;
        }
    }
    return top;
}

double best_overall(const EvalStats& e, double HeadScores::*score)
{
    double top = -1;
    for (const HeadScores& h : e.heads)
        top = std::max(top, h.*score);
    return top;
}

// A trainer of the Text preset on Austen with that repeat share, seed and number of layers.
Status austen_trainer(float repeat, int seed, int layers, Trainer* trainer)
{
    std::shared_ptr<const TextCorpus> corpus;
    ATTNLAB_TRY(load_text_corpus("austen", TextCorpusOptions{}, &corpus));
    const Task task(corpus, repeat);
    Preset p = task.preset();
    p.model.seed = p.train.data_seed = static_cast<std::uint64_t>(seed);
    p.model.n_layers = layers;
    return trainer->init(task, p);
}

// That trainer, trained in runs of `every` steps until done(evaluation) or max_steps; the last evaluation
// on the held-out tenth (no heads when the trainer could not be made).
template <typename Done>
EvalStats train_austen(float repeat, int seed, int layers, int max_steps, int every, Done done)
{
    Trainer trainer;
    const Status made = austen_trainer(repeat, seed, layers, &trainer);
    EXPECT_TRUE(made) << made.message();
    EvalStats e;
    while (made && trainer.steps_taken() < max_steps)
    {
        trainer.run(every);
        e = trainer.evaluate();
        if (done(e))
            break;
    }
    return e;
}

class TextSeeds : public ::testing::TestWithParam<int>
{
};

} // namespace

TEST_P(TextSeeds, APreviousTokenHeadFormsInLayer0OnHeldOutEnglishWithin700Steps)
{
    // Seeds 1 and 2 reach 0.5 at steps 500 and 550 (about 8 s at 15 ms a step): checked every 100 steps.
    const EvalStats e = train_austen(0.0f, GetParam(), 2, 700, 100,
                                     [](const EvalStats& s)
                                     { return best_in_layer(s, 0, 4, &HeadScores::previous_token) >= 0.5; });
    ASSERT_FALSE(e.heads.empty());
    int head = -1;
    const double layer0 = best_in_layer(e, 0, 4, &HeadScores::previous_token, &head);
    const double layer1 = best_in_layer(e, 1, 4, &HeadScores::previous_token);
    const double induction = best_overall(e, &HeadScores::induction);
    std::printf("text seed %d: held-out loss %.3f; best previous-token head L0H%d %.2f at step %d (layer 1: "
                "%.2f); best prefix matching %.2f\n",
                GetParam(), e.loss, head, layer0, e.step, layer1, induction);
    EXPECT_GE(layer0, 0.5) << "after " << e.step << " steps";
    EXPECT_GT(layer0, layer1) << "the previous-token role is one layer-0 head's";
    EXPECT_LT(e.loss, 2.3) << "held-out cross-entropy, nats (4.3 at the start)";
    EXPECT_LT(induction, kNoInductionHead) << "plain English gives no reason to copy";
}

TEST_P(TextSeeds, InductionHeadsFormInLayer1WhenHalfTheWindowsRepeatASnippet)
{
    // With repeat 0.5, seeds 1 and 2 first reach 0.15 on the held-out (unrepeated) text at steps 750 and 750
    // (0.38 and 0.37 at 1500), on top of a layer-0 previous-token head: checked every 250 steps.
    const EvalStats e = train_austen(
        0.5f, GetParam(), 2, 2000, 250,
        [](const EvalStats& s) { return best_in_layer(s, 1, 4, &HeadScores::induction) >= kInductionHead; });
    ASSERT_FALSE(e.heads.empty());
    int head = -1;
    const double induction = best_in_layer(e, 1, 4, &HeadScores::induction, &head);
    const double previous = best_in_layer(e, 0, 4, &HeadScores::previous_token);
    std::printf("text seed %d, repeat 0.5: held-out loss %.3f; best prefix matching L1H%d %.2f at step %d; "
                "layer-0 previous-token %.2f\n",
                GetParam(), e.loss, head, induction, e.step, previous);
    EXPECT_GE(induction, kInductionHead) << "after " << e.step << " steps";
    EXPECT_GE(previous, 0.5) << "the previous-token head the induction heads read";
}

INSTANTIATE_TEST_SUITE_P(Train, TextSeeds, ::testing::Values(1, 2));

TEST(TrainTextLearning, OneLayerWithRepeatsFormsNoInductionHead)
{
    // The control: one layer has no previous-token head before it to compose with. Seed 1 after 1500 steps
    // of repeat 0.5: best prefix matching 0.09 (a previous-token head 0.68 forms all the same).
    const EvalStats e = train_austen(0.5f, 1, 1, 1500, 1500, [](const EvalStats&) { return false; });
    ASSERT_FALSE(e.heads.empty());
    const double induction = best_overall(e, &HeadScores::induction);
    std::printf(
        "1-layer text control, repeat 0.5: best prefix matching %.2f, previous-token %.2f after %d steps\n",
        induction, best_overall(e, &HeadScores::previous_token), e.step);
    EXPECT_LT(induction, kNoInductionHead);
}

TEST(TrainText, ThePrefixMatchingScoreOfAnEvenHeadOnEnglishIsAboutPointZeroEight)
{
    // Why the induction score on English cannot go to 0 by chance: a head that spreads its weight evenly
    // over the keys it sees puts about 0.08 on keys that follow an earlier copy of the query's character
    // (spaces and 'e' recur often). Untrained heads are nearly even.
    Trainer trainer;
    ASSERT_TRUE(austen_trainer(0.0f, 1, 2, &trainer));
    const EvalStats e = trainer.evaluate();
    for (const HeadScores& h : e.heads)
    {
        EXPECT_GT(h.induction, 0.06);
        EXPECT_LT(h.induction, 0.11);
    }
}
