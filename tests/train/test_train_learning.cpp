// What a learner is promised: the presets learn their tasks, on several seeds, with the heads the lessons
// show; a 1-layer model cannot do induction; training is bit-for-bit deterministic. Never timed.
#include "core/train/trainer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace attnlab::train;

namespace
{

Preset seeded(TaskKind kind, std::uint64_t seed)
{
    Preset p = Task(kind).preset();
    p.model.seed = seed;
    p.train.data_seed = seed;
    return p;
}

// Trains up to max_steps, evaluating every eval_every steps, until done(evaluation) holds. Returns the last
// evaluation; losses gets every step's training loss.
template <typename Done>
EvalStats train_until(Trainer& trainer, int max_steps, int eval_every, Done done,
                      std::vector<float>* losses = nullptr)
{
    EvalStats e = trainer.evaluate();
    while (trainer.steps_taken() < max_steps && !done(e))
    {
        trainer.run(eval_every,
                    [&](const StepStats& s)
                    {
                        if (losses != nullptr)
                            losses->push_back(s.loss);
                        return true;
                    });
        e = trainer.evaluate();
    }
    return e;
}

double best(const EvalStats& e, int layer, int n_heads, double HeadScores::*score)
{
    double b = 0;
    for (int j = 0; j < n_heads; ++j)
        b = std::max(b, e.heads[static_cast<size_t>(layer * n_heads + j)].*score);
    return b;
}

int heads_above(const EvalStats& e, int layer, int n_heads, double HeadScores::*score, double threshold)
{
    int n = 0;
    for (int j = 0; j < n_heads; ++j)
        n += e.heads[static_cast<size_t>(layer * n_heads + j)].*score >= threshold;
    return n;
}

// Mean attention weight, over the held-out sentences, from the row that predicts the verb to the subject and
// to the distractor noun, for every layer and head ([l·h + j]).
struct NounWeights
{
    std::vector<double> subject, distractor;
};

NounWeights agreement_weights(const Trainer& trainer)
{
    const ModelConfig& c = trainer.model();
    const Task& task = trainer.task();
    const int T = task.T();
    const size_t heads = static_cast<size_t>(c.n_layers) * static_cast<size_t>(c.n_heads);
    NounWeights w{std::vector<double>(heads, 0.0), std::vector<double>(heads, 0.0)};
    Activations acts;
    int sentences = 0;
    for (const Batch& batch : task.held_out(trainer.settings().held_out_size, trainer.settings().batch_size))
    {
        size_activations(c, batch.B, T, acts);
        forward(c, trainer.params(), batch, acts);
        for (int b = 0; b < batch.B; ++b)
        {
            const size_t at = static_cast<size_t>(b) * static_cast<size_t>(T);
            const std::uint8_t* counted = &batch.acc_mask[at]; // one row: the one that predicts the verb
            const int row = static_cast<int>(std::find(counted, counted + T, 1) - counted);
            const AgreementNouns where = agreement_nouns(&batch.tokens[at], T);
            EXPECT_TRUE(row < T && where.distractor >= 0) << "every sentence has its verb row and two nouns";
            if (row >= T || where.distractor < 0)
                continue;
            for (int l = 0; l < c.n_layers; ++l)
                for (int j = 0; j < c.n_heads; ++j)
                {
                    const auto A =
                        attention_block(acts.layers[static_cast<size_t>(l)].weights, b, j, c.n_heads, T);
                    const size_t k = static_cast<size_t>(l * c.n_heads + j);
                    w.subject[k] += A(row, where.subject);
                    w.distractor[k] += A(row, where.distractor);
                }
            ++sentences;
        }
    }
    for (size_t k = 0; k < heads; ++k)
    {
        w.subject[k] /= sentences;
        w.distractor[k] /= sentences;
    }
    return w;
}

class Seeds : public ::testing::TestWithParam<int>
{
};

} // namespace

TEST_P(Seeds, ReverseIsExactWithin500StepsThroughMirroredHeads)
{
    Trainer trainer;
    ASSERT_TRUE(trainer.init(TaskKind::Reverse, seeded(TaskKind::Reverse, GetParam())));
    const EvalStats e =
        train_until(trainer, 500, 50, [](const EvalStats& s) { return s.exact_match >= 0.99; });
    std::printf("reverse seed %d: exact %.4f at step %d, layer-0 anti-diagonal %.2f %.2f\n", GetParam(),
                e.exact_match, e.step, e.heads[0].anti_diagonal, e.heads[1].anti_diagonal);
    EXPECT_GE(e.exact_match, 0.99) << "after " << e.step << " steps";
    // A layer-0 head puts its weight on the mirrored position T − 1 − i, where the digit to output sits.
    EXPECT_GE(best(e, 0, 2, &HeadScores::anti_diagonal), 0.8);
}

TEST_P(Seeds, SortIsExactOnHeldOutInputsWithin2000Steps)
{
    Trainer trainer;
    ASSERT_TRUE(trainer.init(TaskKind::Sort, seeded(TaskKind::Sort, GetParam())));
    const EvalStats e =
        train_until(trainer, 2000, 100, [](const EvalStats& s) { return s.exact_match >= 0.99; });
    std::printf("sort seed %d: held-out exact %.4f at step %d\n", GetParam(), e.exact_match, e.step);
    EXPECT_GE(e.exact_match, 0.99) << "after " << e.step << " steps";
}

TEST_P(Seeds, BracketsAreJudgedOnHeldOutInputsWithin600Steps)
{
    Trainer trainer;
    ASSERT_TRUE(trainer.init(TaskKind::Brackets, seeded(TaskKind::Brackets, GetParam())));
    // Seeds 1-12 first reach 0.98 between steps 125 and 450. The held-out accuracy wobbles after that (a dip
    // to 0.55-0.75 for a moment now and then, as the training loss nears 0), so the test asks when it gets
    // there, as the others do.
    const EvalStats e = train_until(trainer, 600, 25, [](const EvalStats& s) { return s.accuracy >= 0.98; });
    std::printf("brackets seed %d: held-out accuracy %.4f at step %d\n", GetParam(), e.accuracy, e.step);
    EXPECT_GE(e.accuracy, 0.98) << "after " << e.step << " steps";
}

TEST_P(Seeds, AgreementReadsTheSubjectThroughALayer0Head)
{
    Trainer trainer;
    ASSERT_TRUE(trainer.init(TaskKind::Agreement, seeded(TaskKind::Agreement, GetParam())));
    // Exact from about step 100. At step 300 (seeds 1-12), at the row that predicts the verb, the best
    // layer-0 head puts 0.53-0.98 of its weight on the subject (0.76 or more on 11 seeds) and 0.00-0.08 on
    // the distractor noun nearer the verb; the layer-1 heads stay near even weights (0.13-0.17 on the
    // subject).
    trainer.run(300);
    const EvalStats e = trainer.evaluate();
    const NounWeights w = agreement_weights(trainer);
    const int h = trainer.model().n_heads;
    const int head =
        static_cast<int>(std::max_element(w.subject.begin(), w.subject.begin() + h) - w.subject.begin());
    std::printf("agreement seed %d: held-out accuracy %.4f; weight on the subject, per layer and head:",
                GetParam(), e.accuracy);
    for (size_t k = 0; k < w.subject.size(); ++k)
        std::printf(" %.2f", w.subject[k]);
    std::printf("; layer-0 head %d on the distractor %.2f\n", head, w.distractor[static_cast<size_t>(head)]);
    EXPECT_GE(e.accuracy, 0.99);
    EXPECT_GE(w.subject[static_cast<size_t>(head)], 0.5);
    EXPECT_LT(w.distractor[static_cast<size_t>(head)], 0.15);
}

TEST_P(Seeds, InductionHeadsFormWithin3000Steps)
{
    Trainer trainer;
    ASSERT_TRUE(trainer.init(TaskKind::Induction, seeded(TaskKind::Induction, GetParam())));
    // Layer-0 previous-token and layer-1 prefix-matching scores as metrics.h defines them (Olsson et al.):
    // a layer-0 head puts >= 0.7 on i - 1 over every row (uniform causal attention gives 0.10).
    constexpr double kPreviousToken = 0.7;
    std::vector<float> losses;
    const EvalStats e = train_until(
        trainer, 3000, 250,
        [](const EvalStats& s)
        {
            return s.accuracy >= 0.97 && heads_above(s, 1, 4, &HeadScores::induction, 0.7) >= 2 &&
                   best(s, 0, 4, &HeadScores::previous_token) >= kPreviousToken;
        },
        &losses);
    std::printf("induction seed %d: accuracy %.4f at step %d; layer-0 previous-token", GetParam(), e.accuracy,
                e.step);
    for (int j = 0; j < 4; ++j)
        std::printf(" %.2f", e.heads[static_cast<size_t>(j)].previous_token);
    std::printf("; layer-1 induction");
    for (int j = 0; j < 4; ++j)
        std::printf(" %.2f", e.heads[static_cast<size_t>(4 + j)].induction);
    std::printf("\n");
    EXPECT_GE(e.accuracy, 0.97) << "on predictable positions after " << e.step << " steps";
    EXPECT_GE(heads_above(e, 1, 4, &HeadScores::induction, 0.7), 2)
        << "layer-1 heads with prefix matching >= 0.7";
    EXPECT_GE(best(e, 0, 4, &HeadScores::previous_token), kPreviousToken) << "after " << e.step << " steps";

    // The loss curve: a plateau (the first 100 steps lose little), then a drop of >= 0.5 nats within 200
    // steps. Means over 20 steps smooth out the batches.
    ASSERT_GE(losses.size(), 300u);
    const auto mean = [&](size_t from)
    {
        double sum = 0;
        for (size_t i = from; i < from + 20; ++i)
            sum += losses[i];
        return sum / 20;
    };
    EXPECT_LT(mean(0) - mean(80), 0.6) << "no plateau: the loss falls at once";
    double drop = 0;
    for (size_t s = 0; s + 220 <= losses.size(); s += 10)
        drop = std::max(drop, mean(s) - mean(s + 200));
    std::printf(
        "induction seed %d: loss %.2f (steps 1-20), %.2f (81-100), largest drop in 200 steps %.2f nats\n",
        GetParam(), mean(0), mean(80), drop);
    EXPECT_GE(drop, 0.5);
}

INSTANTIATE_TEST_SUITE_P(Train, Seeds, ::testing::Values(1, 2));

TEST(TrainLearning, OneLayerCannotDoInduction)
{
    // The control: the same model with one layer has no previous-token head to compose with.
    Preset p = seeded(TaskKind::Induction, 1);
    p.model.n_layers = 1;
    Trainer trainer;
    ASSERT_TRUE(trainer.init(TaskKind::Induction, p));
    trainer.run(3000);
    const EvalStats e = trainer.evaluate();
    std::printf("1-layer induction control: accuracy %.4f, best prefix matching %.2f after 3000 steps\n",
                e.accuracy, best(e, 0, 4, &HeadScores::induction));
    EXPECT_LT(e.accuracy, 0.5);
    EXPECT_LT(best(e, 0, 4, &HeadScores::induction), 0.5);
}

TEST(TrainLearning, SameSeedsGiveBitIdenticalTraining)
{
    const Preset p = seeded(TaskKind::Sort, 5);
    Trainer a, b, c;
    ASSERT_TRUE(a.init(TaskKind::Sort, p));
    ASSERT_TRUE(b.init(TaskKind::Sort, p));
    Preset other = p;
    other.train.data_seed = 6;
    ASSERT_TRUE(c.init(TaskKind::Sort, other));
    std::vector<float> la, lb, lc;
    a.run(30, [&](const StepStats& s) { return la.push_back(s.loss), true; });
    b.run(30, [&](const StepStats& s) { return lb.push_back(s.loss), true; });
    c.run(30, [&](const StepStats& s) { return lc.push_back(s.loss), true; });
    EXPECT_EQ(0, std::memcmp(la.data(), lb.data(), la.size() * sizeof(float)));
    EXPECT_NE(la, lc);
    const std::vector<NamedTensor> ta = a.tensors(), tb = b.tensors();
    for (size_t i = 0; i < ta.size(); ++i)
        EXPECT_EQ(0,
                  std::memcmp(ta[i].value->data(), tb[i].value->data(), sizeof(float) * ta[i].value->size()))
            << ta[i].name;
    EXPECT_EQ(a.evaluate().loss, b.evaluate().loss);
    // reset() starts again from the same initialisation.
    a.reset();
    std::vector<float> again;
    a.run(30, [&](const StepStats& s) { return again.push_back(s.loss), true; });
    EXPECT_EQ(again, la);
}

TEST(TrainLearning, ProbeSnapshotRestore)
{
    Trainer trainer;
    ASSERT_TRUE(trainer.init(TaskKind::Copy, Task(TaskKind::Copy).preset()));
    const Params before = trainer.snapshot();
    trainer.run(20);
    Batch probe;
    trainer.task().make_batch(99, 0, 1, probe);
    ASSERT_TRUE(trainer.probe(probe));
    const Activations& acts = trainer.probe_activations();
    EXPECT_EQ(acts.layers[0].weights.rows(), 16); // one sentence, one head: T x T
    EXPECT_GT(trainer.probe_act_grads().layers[0].dweights.cwiseAbs().maxCoeff(), 0.0f);
    EXPECT_GT(trainer.probe_grads().W_U.cwiseAbs().maxCoeff(), 0.0f);
    EXPECT_NE(trainer.params().E, before.E);
    ASSERT_TRUE(trainer.restore(before));
    EXPECT_EQ(trainer.params().E, before.E);

    Params wrong = before;
    wrong.W_U.resize(3, 3);
    EXPECT_FALSE(trainer.restore(wrong));
    probe.tokens[0] = 99;
    EXPECT_FALSE(trainer.probe(probe));
    Preset bad = Task(TaskKind::Copy).preset();
    bad.model.n_heads = 3; // 32 is no multiple of 3
    EXPECT_FALSE(trainer.init(TaskKind::Copy, bad));
    EXPECT_EQ(trainer.model().n_heads, 1); // unchanged
}

namespace
{

// How far each head's rows are from an even spread over the keys a causal row sees (0..i): the total
// variation distance ½ Σ_j |A[i, j] − 1/(i + 1)|, averaged over the rows i >= 1 of a probe batch. 0:
// perfectly even; a head with all its weight on i − 1 scores 1 − 1/(i + 1).
std::vector<double> distance_from_even(Trainer& trainer)
{
    Batch probe;
    trainer.task().make_batch(99, 0, 8, probe);
    EXPECT_TRUE(trainer.probe(probe));
    const int h = trainer.model().n_heads, T = probe.T;
    std::vector<double> out(static_cast<size_t>(h), 0.0);
    for (int j = 0; j < h; ++j)
    {
        for (int b = 0; b < probe.B; ++b)
        {
            const auto A = attention_block(trainer.probe_activations().layers[0].weights, b, j, h, T);
            for (int i = 1; i < T; ++i)
            {
                double tv = 0;
                for (int k = 0; k <= i; ++k)
                    tv += std::abs(A(i, k) - 1.0 / (i + 1));
                out[static_cast<size_t>(j)] += 0.5 * tv / (probe.B * (T - 1));
            }
        }
    }
    return out;
}

class TallySeeds : public ::testing::TestWithParam<int>
{
};

} // namespace

// Why multi-head: each answer of the tally needs the vote before (one key, sharply) and the lead (every key,
// evenly). One layer, same d_model and budget: two heads split the jobs, one head cannot do both.
TEST_P(TallySeeds, TwoHeadsLearnTheTallyOneHeadDoesNot)
{
    const Preset two = seeded(TaskKind::Tally, GetParam());
    Preset one = two;
    one.model.n_heads = 1;
    Trainer with_two, with_one;
    ASSERT_TRUE(with_two.init(TaskKind::Tally, two));
    ASSERT_TRUE(with_one.init(TaskKind::Tally, one));
    // Seeds 1-8 at step 500: h = 2 0.9975-1.0, h = 1 0.70-0.82.
    with_two.run(500);
    with_one.run(500);
    const EvalStats e2 = with_two.evaluate(), e1 = with_one.evaluate();
    const std::vector<double> even2 = distance_from_even(with_two), even1 = distance_from_even(with_one);
    std::printf("tally seed %d, 500 steps: h=2 accuracy %.4f (heads: previous-vote %.2f %.2f, distance from "
                "even %.2f %.2f); h=1 accuracy %.4f (previous-vote %.2f, distance from even %.2f)\n",
                GetParam(), e2.accuracy, e2.heads[0].previous_token, e2.heads[1].previous_token, even2[0],
                even2[1], e1.accuracy, e1.heads[0].previous_token, even1[0]);
    EXPECT_GE(e2.accuracy, 0.99);
    EXPECT_LE(e1.accuracy, 0.9);
    // The two heads: one on the vote before (0.83-0.88 on seeds 1-2), the other spread evenly (0.02).
    const int sharp = e2.heads[0].previous_token > e2.heads[1].previous_token ? 0 : 1;
    EXPECT_GE(e2.heads[static_cast<size_t>(sharp)].previous_token, 0.7);
    EXPECT_LE(even2[static_cast<size_t>(1 - sharp)], 0.15);
    // The single head keeps to the count (0.03 from even) and gives the vote before little more than its
    // share.
    EXPECT_LE(even1[0], 0.15);
}

INSTANTIATE_TEST_SUITE_P(Train, TallySeeds, ::testing::Values(1, 2));
