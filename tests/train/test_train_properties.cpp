// Properties of the training model's forward pass: distributions sum to 1, masked weights are exactly 0, a
// hand-computed loss, the named tensors and their shapes, seeded initialisation, head scores of a hand-made
// attention matrix.
#include "core/train/metrics.h"
#include "core/train/model.h"
#include "core/train/transformer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace attnlab::train;

namespace
{

ModelConfig config(NormPlacement norm, bool causal)
{
    ModelConfig c;
    c.vocab_size = 5;
    c.T_max = 7;
    c.d_model = 12;
    c.n_heads = 3;
    c.n_layers = 2;
    c.norm = norm;
    c.causal = causal;
    return c;
}

Batch counting_batch(int B, int T, int V)
{
    Batch batch;
    batch.resize(B, T);
    for (int n = 0; n < B * T; ++n)
    {
        batch.tokens[static_cast<size_t>(n)] = (n * 3 + 1) % V;
        batch.targets[static_cast<size_t>(n)] = (n * 2) % V;
        batch.loss_mask[static_cast<size_t>(n)] = 1;
    }
    return batch;
}

} // namespace

TEST(TrainForward, ProbabilitiesSumToOneAndMaskedWeightsAreExactlyZero)
{
    for (bool causal : {true, false})
    {
        const ModelConfig c = config(NormPlacement::Pre, causal);
        Params p;
        init_params(c, p);
        const Batch batch = counting_batch(3, 7, c.vocab_size);
        Activations acts;
        size_activations(c, batch.B, batch.T, acts);
        const float loss = forward(c, p, batch, acts);
        EXPECT_TRUE(std::isfinite(loss));
        for (Eigen::Index n = 0; n < acts.probs.rows(); ++n)
            EXPECT_NEAR(acts.probs.row(n).sum(), 1.0f, 1e-5f);
        for (const LayerActsT<float>& a : acts.layers)
            for (int b = 0; b < batch.B; ++b)
                for (int j = 0; j < c.n_heads; ++j)
                {
                    const auto A = attention_block(a.weights, b, j, c.n_heads, batch.T);
                    for (int i = 0; i < batch.T; ++i)
                    {
                        EXPECT_NEAR(A.row(i).sum(), 1.0f, 1e-5f);
                        for (int k = 0; k < batch.T; ++k)
                            if (causal && k > i)
                                EXPECT_EQ(A(i, k), 0.0f) << "masked weight (" << i << ", " << k << ")";
                            else
                                EXPECT_GT(A(i, k), 0.0f);
                    }
                }
    }
}

TEST(TrainForward, LossOfKnownLogitsIsHandComputed)
{
    // W_U = 0 and b_U = (0, ln 2, ln 3, 0, 0): every row's probabilities are (1, 2, 3, 1, 1) / 8, whatever
    // the layers do. Targets 1 and 2 at the two counted positions: loss = (ln 4 + ln(8/3)) / 2.
    const ModelConfig c = config(NormPlacement::Post, true);
    Params p;
    init_params(c, p);
    p.W_U.setZero();
    p.b_U << 0.0f, std::log(2.0f), std::log(3.0f), 0.0f, 0.0f;
    Batch batch = counting_batch(1, 4, c.vocab_size);
    batch.loss_mask = {0, 1, 0, 1};
    batch.targets = {0, 1, 4, 2};
    Activations acts;
    size_activations(c, batch.B, batch.T, acts);
    const float loss = forward(c, p, batch, acts);
    EXPECT_NEAR(loss, (std::log(4.0) + std::log(8.0 / 3.0)) / 2, 1e-6);
    EXPECT_NEAR(acts.loss(2), std::log(8.0), 1e-6); // every position has its loss, counted or not
    EXPECT_NEAR(acts.probs(0, 2), 3.0f / 8, 1e-7);
}

TEST(TrainModel, NamedTensorsHaveThePapersShapes)
{
    ModelConfig c = config(NormPlacement::Pre, true);
    c.d_ff = 20;
    Params p;
    init_params(c, p);
    std::set<std::string> names;
    for (const NamedTensor& t : named_tensors(c, p))
        names.insert(t.name);
    EXPECT_EQ(names.size(), 2 + 2 * 12 + 4u);
    EXPECT_TRUE(names.count("layers.1.W_Q") && names.count("P") && names.count("lnf_gamma"));
    EXPECT_EQ(p.layers[0].W_Q.rows(), 12);
    EXPECT_EQ(p.layers[0].W_Q.cols(), 12); // h·d_k
    EXPECT_EQ(p.layers[0].W_1.cols(), 20);
    EXPECT_EQ(p.W_U.rows(), 12);
    EXPECT_EQ(p.W_U.cols(), 5);
    EXPECT_EQ(head_cols(p.layers[0].W_Q, 2, c.d_k()).cols(), 4);

    c.attention_only = true;
    c.norm = NormPlacement::Post;
    c.positions = PositionKind::Sinusoidal;
    Params q;
    init_params(c, q);
    for (const NamedTensor& t : named_tensors(c, q))
        EXPECT_TRUE(t.name.find("W_1") == std::string::npos && t.name != "P" && t.name != "lnf_gamma")
            << t.name;
    EXPECT_EQ(parameter_count(c), 5 * 12 + 2 * (2 * 12 + 4 * 144) + 12 * 5 + 5);
    EXPECT_FLOAT_EQ(q.P(1, 0), std::sin(1.0f)); // the paper's sinusoids
}

TEST(TrainModel, InitialisationIsSeeded)
{
    ModelConfig c = config(NormPlacement::Pre, true);
    Params a, b, other;
    init_params(c, a);
    init_params(c, b);
    c.seed = 2;
    init_params(c, other);
    EXPECT_EQ(a.layers[1].W_K, b.layers[1].W_K);
    EXPECT_NE(a.layers[1].W_K, other.layers[1].W_K);
    EXPECT_NEAR(std::sqrt(a.E.squaredNorm() / a.E.size()), 0.02, 0.004);
    EXPECT_EQ(a.layers[0].ln1_gamma.sum(), 12.0f);
    EXPECT_EQ(a.layers[0].b_1.squaredNorm(), 0.0f);
}

TEST(TrainModel, EmbeddingsStartAtTheirOwnSpread)
{
    ModelConfig c = config(NormPlacement::Pre, true);
    c.embedding_std = 0.05f;
    Params p;
    init_params(c, p);
    const auto rms = [](const MatT<float>& m)
    { return std::sqrt(m.squaredNorm() / static_cast<float>(m.size())); };
    EXPECT_NEAR(rms(p.E), 0.05, 0.01);
    EXPECT_NEAR(rms(p.P), 0.05, 0.01);
    EXPECT_NEAR(rms(p.layers[0].W_Q), 0.02, 0.004); // the matrices keep GPT-2's 0.02
}

TEST(TrainModel, ValidateNamesTheProblem)
{
    ModelConfig c = config(NormPlacement::Pre, true);
    EXPECT_TRUE(validate(c));
    c.n_heads = 5;
    EXPECT_FALSE(validate(c));
    EXPECT_NE(validate(c).message().find("multiple"), std::string::npos);
}

TEST(TrainMetrics, HeadScoresFollowOlssonEtAlsDefinitions)
{
    // One sequence "0 1 0 1", one head, accuracy counted at positions 2 and 3 only.
    ModelConfig c;
    c.n_layers = 1;
    c.n_heads = 1;
    Batch batch;
    batch.resize(1, 4);
    batch.tokens = {0, 1, 0, 1};
    batch.acc_mask = {0, 0, 1, 1};
    Activations acts;
    acts.layers.resize(1);
    acts.layers[0].weights.resize(4, 4);
    acts.layers[0].weights << 1.0f, 0, 0, 0, //
        0.5f, 0.5f, 0, 0,                    //
        0.2f, 0.3f, 0.5f, 0,                 //
        0.1f, 0.6f, 0.2f, 0.1f;
    HeadScoreSums sums;
    sums.reset(c);
    sums.add(c, batch, acts);
    std::vector<HeadScores> s;
    sums.finish(s);
    ASSERT_EQ(s.size(), 1u);
    // Previous token: A[i, i - 1] over every row i >= 1, counted for accuracy or not: (.5 + .3 + .2) / 3.
    EXPECT_NEAR(s[0].previous_token, 1.0 / 3.0, 1e-6);
    // Prefix matching: row 2 (token 0) has key 1 (after a 0): .3; row 3 (token 1) has key 2: .2. Row 1's only
    // match, key 2, lies ahead of it (masked), so row 1 is not averaged in: (.3 + .2) / 2.
    EXPECT_NEAR(s[0].induction, 0.25, 1e-6);
    // Diagonal and anti-diagonal over the counted rows 2 and 3: (.5 + .1) / 2 and (A[2, 1] + A[3, 0]) / 2.
    EXPECT_NEAR(s[0].diagonal, 0.3, 1e-6);
    EXPECT_NEAR(s[0].anti_diagonal, 0.2, 1e-6);
}

TEST(TrainForward, SwitchesRemoveTheResidualAndThePositions)
{
    for (const NormPlacement norm : {NormPlacement::Pre, NormPlacement::Post})
    {
        ModelConfig c = config(norm, true);
        c.residual = false;
        c.positions = PositionKind::None;
        Params p;
        init_params(c, p);
        // No positions: P is not a trained tensor and X_0 is E's rows alone.
        EXPECT_EQ(parameter_count(c) + static_cast<long long>(c.T_max) * c.d_model,
                  [&]
                  {
                      ModelConfig learned = c;
                      learned.positions = PositionKind::Learned;
                      return parameter_count(learned);
                  }());
        for (const NamedTensor& t : named_tensors(c, p))
            EXPECT_NE(t.name, "P");
        const Batch batch = counting_batch(2, 5, c.vocab_size);
        Activations acts;
        size_activations(c, batch.B, batch.T, acts);
        forward(c, p, batch, acts);
        for (int n = 0; n < batch.B * batch.T; ++n)
            EXPECT_EQ(acts.layers[0].X.row(n), p.E.row(batch.tokens[static_cast<size_t>(n)])) << n;
        // No residual: every sub-layer's output replaces its input.
        for (const LayerActsT<float>& a : acts.layers)
        {
            EXPECT_EQ(a.residual, a.mha);
            EXPECT_EQ(a.residual2, a.ffn);
        }
        // The same weights with the residual give a different output.
        ModelConfig with = c;
        with.residual = true;
        Activations acts_with;
        size_activations(with, batch.B, batch.T, acts_with);
        forward(with, p, batch, acts_with);
        EXPECT_GT((acts_with.logits - acts.logits).cwiseAbs().maxCoeff(), 1e-4f);
        EXPECT_TRUE(acts_with.layers[0].residual.isApprox(acts_with.layers[0].X + acts_with.layers[0].mha));
    }
}

TEST(TrainModel, PositionNamesRoundTrip)
{
    for (const PositionKind k : {PositionKind::Learned, PositionKind::Sinusoidal, PositionKind::None})
    {
        PositionKind parsed = PositionKind::Learned;
        ASSERT_TRUE(parse_positions(to_string(k), &parsed));
        EXPECT_EQ(parsed, k);
    }
    PositionKind parsed = PositionKind::Sinusoidal;
    const attnlab::Status s = parse_positions("rotary", &parsed);
    EXPECT_FALSE(s);
    EXPECT_NE(s.message().find("none"), std::string::npos);
    EXPECT_EQ(parsed, PositionKind::Sinusoidal);
}
