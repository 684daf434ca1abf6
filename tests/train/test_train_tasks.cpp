// The training tasks' generators: each sequence is what its task says, counted positions are the right ones,
// batches are seeded, and no held-out sequence is ever a training sequence.
#include "core/train/tasks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

using namespace attnlab::train;

namespace
{

std::vector<int> row(const std::vector<int>& v, int b, int T)
{
    return std::vector<int>(v.begin() + b * T, v.begin() + (b + 1) * T);
}

std::vector<int> counted(const Batch& batch, int b)
{
    std::vector<int> t;
    for (int i = 0; i < batch.T; ++i)
        if (batch.acc_mask[static_cast<size_t>(b * batch.T + i)])
            t.push_back(i);
    return t;
}

} // namespace

TEST(TrainTasks, EveryTaskMakesValidBatches)
{
    for (int k = 0; k < kTaskCount; ++k)
    {
        const Task task(static_cast<TaskKind>(k));
        const Preset p = task.preset();
        EXPECT_EQ(p.model.vocab_size, task.vocab_size()) << task.info().key;
        EXPECT_EQ(p.model.T_max, task.T());
        EXPECT_TRUE(validate(p.model)) << task.info().key;
        Batch batch;
        task.make_batch(1, 0, 16, batch);
        ASSERT_EQ(batch.size(), 16 * task.T());
        int n_counted = 0;
        for (int n = 0; n < batch.size(); ++n)
        {
            EXPECT_GE(batch.tokens[static_cast<size_t>(n)], 0);
            EXPECT_LT(batch.tokens[static_cast<size_t>(n)], task.vocab_size());
            EXPECT_LT(batch.targets[static_cast<size_t>(n)], task.vocab_size());
            if (batch.acc_mask[static_cast<size_t>(n)])
            {
                ++n_counted;
                EXPECT_TRUE(batch.loss_mask[static_cast<size_t>(n)])
                    << "accuracy counts where the loss does not";
                EXPECT_GE(batch.targets[static_cast<size_t>(n)], 0);
            }
        }
        EXPECT_GT(n_counted, 0) << task.info().key;
        TaskKind parsed = TaskKind::Count;
        EXPECT_TRUE(parse_task(task.info().key, &parsed));
        EXPECT_EQ(parsed, task.kind());
    }
    TaskKind parsed;
    EXPECT_FALSE(parse_task("sorting", &parsed));
}

TEST(TrainTasks, CopyAndReverseAnswerAfterTheSeparator)
{
    for (TaskKind kind : {TaskKind::Copy, TaskKind::Reverse})
    {
        const Task task(kind);
        Batch batch;
        task.make_batch(7, 3, 8, batch);
        for (int b = 0; b < 8; ++b)
        {
            const std::vector<int> x = row(batch.tokens, b, 16), y = row(batch.targets, b, 16);
            EXPECT_EQ(x[8], 10); // '|'
            EXPECT_EQ(counted(batch, b), (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
            for (int k = 0; k < 8; ++k)
                EXPECT_EQ(y[8 + k], kind == TaskKind::Copy ? x[k] : x[7 - k]);
        }
    }
}

TEST(TrainTasks, SortIsMinGPTs)
{
    const Task task(TaskKind::Sort);
    Batch batch;
    task.make_batch(2, 0, 32, batch);
    for (int b = 0; b < 32; ++b)
    {
        const std::vector<int> x = row(batch.tokens, b, 11), y = row(batch.targets, b, 11);
        std::vector<int> sorted(x.begin(), x.begin() + 6);
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(std::vector<int>(y.begin() + 5, y.end()), sorted);
        EXPECT_EQ(counted(batch, b), (std::vector<int>{5, 6, 7, 8, 9, 10}));
    }
}

TEST(TrainTasks, InductionRepeatsARandomPeriodThatMayHoldATokenTwice)
{
    const Task task(TaskKind::Induction);
    Batch batch;
    task.make_batch(3, 0, 64, batch);
    std::set<int> periods;
    int with_a_repeat = 0;
    for (int b = 0; b < 64; ++b)
    {
        std::vector<int> x = row(batch.tokens, b, 32);
        x.push_back(batch.targets[static_cast<size_t>(b * 32 + 31)]);
        int period = 1;
        while (period < 33 && !std::equal(x.begin() + period, x.end(), x.begin()))
            ++period;
        ASSERT_GE(period, 4);
        ASSERT_LE(period, 16);
        periods.insert(period);
        with_a_repeat += std::set<int>(x.begin(), x.begin() + period).size() < static_cast<size_t>(period);
        for (int i = 0; i < 32; ++i)
        {
            EXPECT_EQ(batch.acc_mask[static_cast<size_t>(b * 32 + i)], i + 1 >= period ? 1 : 0);
            EXPECT_EQ(batch.loss_mask[static_cast<size_t>(b * 32 + i)], 1);
        }
    }
    EXPECT_GE(periods.size(), 8u); // the period varies, or "look P back" would do
    // Tokens are drawn independently: about 70% of the periods hold a token twice (so the token alone does
    // not tell what comes next), the others none.
    EXPECT_GE(with_a_repeat, 32);
    EXPECT_LT(with_a_repeat, 64);
}

TEST(TrainTasks, BracketsAnswerWhetherBalanced)
{
    const Task task(TaskKind::Brackets);
    EXPECT_FALSE(task.causal());
    Batch batch;
    task.make_batch(4, 0, 200, batch);
    int yes = 0;
    for (int b = 0; b < 200; ++b)
    {
        int depth = 0, lowest = 0;
        for (int i = 0; i < 12; ++i)
        {
            depth +=
                task.vocabulary()[static_cast<size_t>(batch.tokens[static_cast<size_t>(b * 13 + i)])] == "("
                    ? 1
                    : -1;
            lowest = std::min(lowest, depth);
        }
        const std::string answer =
            task.vocabulary()[static_cast<size_t>(batch.targets[static_cast<size_t>(b * 13 + 12)])];
        EXPECT_EQ(answer, depth == 0 && lowest == 0 ? "yes" : "no");
        EXPECT_EQ(counted(batch, b), std::vector<int>{12});
        yes += answer == "yes";
    }
    EXPECT_GT(yes, 70);
    EXPECT_LT(yes, 130);
}

TEST(TrainTasks, AgreementVerbMatchesTheSubject)
{
    const Task task(TaskKind::Agreement);
    Batch batch;
    task.make_batch(5, 0, 100, batch);
    int attractors = 0;
    const std::set<std::string> nouns = {
        "key",   "keys",   "cabinet", "cabinets", "dog",  "dogs",  "teacher", "teachers", "book",  "books",
        "car",   "cars",   "door",    "doors",    "girl", "girls", "boy",     "boys",     "house", "houses",
        "table", "tables", "friend",  "friends",  "bird", "birds", "farmer",  "farmers"};
    for (int b = 0; b < 100; ++b)
    {
        const std::vector<int> where = counted(batch, b);
        ASSERT_EQ(where.size(), 1u);
        const int t = where[0];
        const std::string verb =
            task.vocabulary()[static_cast<size_t>(batch.targets[static_cast<size_t>(b * task.T() + t)])];
        // The subject is the first word after "the" that is no adjective: the second or third token.
        const auto word = [&](int i) {
            return task
                .vocabulary()[static_cast<size_t>(batch.tokens[static_cast<size_t>(b * task.T() + i)])];
        };
        EXPECT_EQ(word(0), "the");
        const std::set<std::string> adjectives = {"old", "small", "red", "big", "new", "happy"};
        const int subject_at = adjectives.count(word(1)) ? 2 : 1;
        const std::string subject = word(subject_at);
        const bool plural = subject.back() == 's';
        const AgreementNouns found =
            agreement_nouns(&batch.tokens[static_cast<size_t>(b * task.T())], task.T());
        EXPECT_EQ(found.subject, subject_at);
        ASSERT_GT(found.distractor, found.subject);
        EXPECT_LE(found.distractor, t); // the query row t is the distractor itself or the verb right after it
        EXPECT_GE(found.distractor, t - 1);
        EXPECT_TRUE(nouns.count(word(found.distractor)));
        EXPECT_EQ(verb, plural ? "are" : "is")
            << task.to_text(&batch.tokens[static_cast<size_t>(b * task.T())], t + 1);
        const std::string& last = word(t); // an attractor: a noun of the other number right before the verb
        const bool noun = nouns.count(last) > 0;
        attractors += noun && (last.back() == 's') != plural;
    }
    EXPECT_GT(attractors, 10);
}

TEST(TrainTasks, TallyAnswersTheVoteBeforeAndTheLeader)
{
    const Task task(TaskKind::Tally);
    EXPECT_EQ(task.vocabulary(), (std::vector<std::string>{"A", "B", "AA", "AB", "A=", "BA", "BB", "B="}));
    ASSERT_EQ(task.T(), 24);
    EXPECT_TRUE(task.causal());
    Batch batch, again, other;
    task.make_batch(6, 0, 100, batch);
    task.make_batch(6, 0, 100, again);
    task.make_batch(7, 0, 100, other);
    EXPECT_EQ(batch.tokens, again.tokens);
    EXPECT_EQ(batch.targets, again.targets);
    EXPECT_NE(batch.tokens, other.tokens);
    std::vector<int> after_first;
    for (int i = 1; i < 24; ++i)
        after_first.push_back(i);
    std::set<std::string> answers;
    for (int b = 0; b < 100; ++b)
    {
        EXPECT_EQ(counted(batch, b), after_first); // every position that has a vote before it
        EXPECT_EQ(batch.loss_mask[static_cast<size_t>(b * 24)], 0);
        int for_a = 0, for_b = 0;
        for (int i = 0; i < 24; ++i)
        {
            const size_t at = static_cast<size_t>(b * 24 + i);
            const std::string vote = task.vocabulary()[static_cast<size_t>(batch.tokens[at])];
            ASSERT_TRUE(vote == "A" || vote == "B");
            (vote == "A" ? for_a : for_b) += 1;
            if (i == 0)
                continue;
            EXPECT_TRUE(batch.loss_mask[at]);
            const std::string before = task.vocabulary()[static_cast<size_t>(batch.tokens[at - 1])];
            const std::string want = before + (for_a > for_b ? "A" : for_a < for_b ? "B" : "=");
            EXPECT_EQ(task.vocabulary()[static_cast<size_t>(batch.targets[at])], want)
                << task.to_text(&batch.tokens[static_cast<size_t>(b * 24)], i + 1);
            answers.insert(want);
        }
    }
    EXPECT_EQ(answers.size(), 6u); // both votes before, and A ahead, B ahead and ties, all occur
}

TEST(TrainTasks, BatchesAreSeeded)
{
    const Task task(TaskKind::Reverse);
    Batch a, b, c, d;
    task.make_batch(9, 4, 32, a);
    task.make_batch(9, 4, 32, b);
    task.make_batch(9, 5, 32, c);
    task.make_batch(10, 4, 32, d);
    EXPECT_EQ(a.tokens, b.tokens);
    EXPECT_NE(a.tokens, c.tokens);
    EXPECT_NE(a.tokens, d.tokens);
}

TEST(TrainTasks, HeldOutSequencesNeverAppearInTraining)
{
    for (TaskKind kind : {TaskKind::Sort, TaskKind::Brackets, TaskKind::Agreement, TaskKind::Tally})
    {
        const Task task(kind);
        std::set<std::vector<int>> held;
        for (const Batch& batch : task.held_out(256, 64))
            for (int b = 0; b < batch.B; ++b)
                held.insert(row(batch.tokens, b, task.T()));
        EXPECT_GT(held.size(), 20u);
        Batch batch;
        int seen = 0;
        for (int step = 0; step < 50; ++step)
        {
            task.make_batch(1, static_cast<std::uint64_t>(step), 64, batch);
            for (int b = 0; b < batch.B; ++b)
                seen += held.count(row(batch.tokens, b, task.T())) > 0;
        }
        EXPECT_EQ(seen, 0) << task.info().key;
    }
}

TEST(TrainTasks, HeldOutSequencesDoNotShareShiftedRandomStreams)
{
    // generate() draws from key, key + 1, ...: with consecutive keys a held-out sequence of Copy repeated the
    // digits of the one before it shifted by a place or two (300 of 512 did). 5 or more digits in common
    // at a shift of 1-3 happens by chance about once in 100,000 pairs.
    for (TaskKind kind : {TaskKind::Copy, TaskKind::Reverse})
    {
        const Task task(kind);
        std::vector<std::vector<int>> seqs;
        for (const Batch& batch : task.held_out(512, 64))
            for (int b = 0; b < batch.B; ++b)
                seqs.push_back(row(batch.tokens, b, task.T()));
        int shifted = 0;
        for (size_t n = 1; n < seqs.size(); ++n)
            for (int d = 1; d <= 3; ++d)
            {
                bool same = true;
                for (int t = 0; t + d < 8; ++t)
                    same = same && seqs[n][static_cast<size_t>(t)] == seqs[n - 1][static_cast<size_t>(t + d)];
                shifted += same;
            }
        EXPECT_EQ(shifted, 0) << task.info().key;
    }
}

// The label of a sequence from its input tokens alone (what the Training panel's probe and `export --model`
// use for a sequence the user wrote) gives, for every generated sequence of every task, the generator's own
// counted positions and targets: one definition of what a task scores.
TEST(TrainTasks, TheLabelOfEveryGeneratedSequenceIsTheGeneratorsOwn)
{
    for (int k = 0; k < kTaskCount; ++k)
    {
        const Task task(static_cast<TaskKind>(k));
        Batch generated;
        task.make_batch(7, 3, 256, generated);
        Batch relabelled = generated;
        task.label(relabelled, task.vocab_size());
        int counted_positions = 0;
        for (std::size_t i = 0; i < generated.tokens.size(); ++i)
        {
            ASSERT_EQ(relabelled.loss_mask[i], generated.loss_mask[i]) << task.info().key << " at " << i;
            ASSERT_EQ(relabelled.acc_mask[i], generated.acc_mask[i]) << task.info().key << " at " << i;
            if (generated.loss_mask[i])
            {
                ASSERT_EQ(relabelled.targets[i], generated.targets[i]) << task.info().key << " at " << i;
                ++counted_positions;
            }
        }
        EXPECT_GT(counted_positions, 0) << task.info().key;
    }
}

// A sequence the user wrote is labelled as the task scores it, worked by hand.
TEST(TrainTasks, AWrittenSequenceIsLabelledAsTheTaskScoresIt)
{
    const auto labelled = [](TaskKind kind, std::vector<int> tokens, int vocab_size = 0)
    {
        const Task task(kind);
        Batch b;
        b.resize(1, static_cast<int>(tokens.size()));
        b.tokens = std::move(tokens);
        task.label(b, vocab_size > 0 ? vocab_size : task.vocab_size());
        return b;
    };
    // Reverse "3 1 4 | 4 1": positions 3 and 4 count, predicting 4 and 1 (the digits mirrored), not the 1
    // typed next; position 5 would predict 3 but is not in the sequence.
    Batch r = labelled(TaskKind::Reverse, {3, 1, 4, 10, 4, 9});
    EXPECT_EQ(r.loss_mask, (std::vector<std::uint8_t>{0, 0, 0, 1, 1, 1}));
    EXPECT_EQ(r.targets[3], 4);
    EXPECT_EQ(r.targets[4], 1);
    EXPECT_EQ(r.targets[5], 3);
    // Copy without a separator: nothing counts.
    Batch c = labelled(TaskKind::Copy, {3, 1, 4});
    EXPECT_EQ(c.loss_mask, (std::vector<std::uint8_t>{0, 0, 0}));
    // Brackets "( ) ) ( =" are not balanced: '=' predicts no (4).
    Batch br = labelled(TaskKind::Brackets, {0, 1, 1, 0, 2});
    EXPECT_EQ(br.loss_mask, (std::vector<std::uint8_t>{0, 0, 0, 0, 1}));
    EXPECT_EQ(br.targets[4], 4);
    // Tally "A B B": after B the leader is A= (a tie) and the vote before A; after the second B, B leads.
    Batch ta = labelled(TaskKind::Tally, {0, 1, 1});
    EXPECT_EQ(ta.loss_mask, (std::vector<std::uint8_t>{0, 1, 1}));
    EXPECT_EQ(ta.targets[1], 2 + 3 * 0 + 2);
    EXPECT_EQ(ta.targets[2], 2 + 3 * 1 + 1);
    // A vocabulary too small for brackets' answers: the position does not count rather than index past it.
    Batch small = labelled(TaskKind::Brackets, {0, 1, 2}, 3);
    EXPECT_EQ(small.loss_mask, (std::vector<std::uint8_t>{0, 0, 0}));
}

// The README's table of tasks has a row for every task of the table.
TEST(TrainTasks, TheReadmeListsEveryTask)
{
    std::ifstream in(std::string(ATTNLAB_SOURCE_DIR) + "/README.md");
    ASSERT_TRUE(in) << "README.md not found";
    const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (int k = 0; k < kTaskCount; ++k)
    {
        const std::string row = std::string("| `") + task_info(static_cast<TaskKind>(k)).key + "` |";
        EXPECT_NE(readme.find(row), std::string::npos) << "README.md has no row " << row;
    }
}

// The default probe is a held-out sequence whose first period holds no token twice (an unambiguous copy), or
// the first held-out sequence when no such one is among the first 256.
TEST(TrainTasks, TheDefaultProbeIsHeldOutAndItsCopiesAreUnambiguous)
{
    const Task induction(TaskKind::Induction);
    const Batch probe = induction.probe();
    const std::vector<Batch> held_out = induction.held_out(256, 1);
    EXPECT_TRUE(std::any_of(held_out.begin(), held_out.end(),
                            [&](const Batch& b) { return b.tokens == probe.tokens; }));
    // Its first period, found by hand: the first repeat of its first token starts the second period.
    int period = 1;
    while (period < probe.T &&
           !std::equal(probe.tokens.begin() + period, probe.tokens.end(), probe.tokens.begin()))
        ++period;
    ASSERT_LT(period, probe.T) << "an induction sequence repeats";
    const std::set<int> distinct(probe.tokens.begin(), probe.tokens.begin() + period);
    EXPECT_EQ(static_cast<int>(distinct.size()), period);
    // Reverse has no period: its 16 tokens cannot all differ among 11, so its probe is the first held-out
    // one.
    const Task reverse(TaskKind::Reverse);
    EXPECT_EQ(reverse.probe().tokens, reverse.held_out(1, 1).front().tokens);
}
