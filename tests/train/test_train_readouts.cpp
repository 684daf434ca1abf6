// Readouts of a forward pass: top-k of a probability row, the logit lens (whose last row is the model's own
// prediction), and the attention map with the first key hidden (rows renormalised, never NaN).
#include "core/train/readouts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <utility>

using namespace attnlab;
using namespace attnlab::train;

namespace
{

Eigen::RowVectorXf row(std::initializer_list<float> values)
{
    Eigen::RowVectorXf r(static_cast<Eigen::Index>(values.size()));
    Eigen::Index i = 0;
    for (const float v : values)
        r(i++) = v;
    return r;
}

ModelConfig small(NormPlacement norm)
{
    ModelConfig c;
    c.vocab_size = 7;
    c.T_max = 8;
    c.d_model = 12;
    c.n_heads = 3;
    c.n_layers = 3;
    c.norm = norm;
    c.seed = 11;
    c.embedding_std = 0.5f;
    return c;
}

Batch sentences(int B, int T, int V)
{
    Batch batch;
    batch.resize(B, T);
    for (int n = 0; n < B * T; ++n)
    {
        batch.tokens[static_cast<std::size_t>(n)] = (n * 5 + 2) % V;
        batch.targets[static_cast<std::size_t>(n)] = -1;
        batch.loss_mask[static_cast<std::size_t>(n)] = 0;
    }
    return batch;
}

// A forward pass of a seeded model: its parameters, the batch and every activation.
struct SeededRun
{
    ModelConfig config;
    Params params;
    Batch batch;
    Activations acts;

    SeededRun(const ModelConfig& c, Batch b) : config(c), batch(std::move(b))
    {
        init_params(config, params);
        size_activations(config, batch.B, batch.T, acts);
        forward(config, params, batch, acts);
    }
};

} // namespace

// [SECTION] top_k

TEST(TopK, SortedByProbabilityWithTiesByLowerId)
{
    const std::vector<TokenProb> top = top_k(row({0.1f, 0.4f, 0.1f, 0.3f, 0.1f}), 3);
    ASSERT_EQ(top.size(), 3u);
    EXPECT_EQ(top[0].id, 1);
    EXPECT_EQ(top[1].id, 3);
    EXPECT_EQ(top[2].id, 0); // 0, 2 and 4 tie at 0.1: the lowest id
    EXPECT_FLOAT_EQ(top[0].p, 0.4f);
    EXPECT_FLOAT_EQ(top[1].p, 0.3f);
    EXPECT_FLOAT_EQ(top[2].p, 0.1f);
}

TEST(TopK, KIsClampedAndNaNIsNeverChosen)
{
    EXPECT_TRUE(top_k(row({0.5f, 0.5f}), 0).empty());
    EXPECT_TRUE(top_k(row({0.5f, 0.5f}), -3).empty());
    const std::vector<TokenProb> all = top_k(row({0.2f, 0.5f, 0.3f}), 10);
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0].id, 1);
    EXPECT_EQ(all[1].id, 2);
    EXPECT_EQ(all[2].id, 0);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<TokenProb> some = top_k(row({nan, 0.2f, 0.8f, nan}), 4);
    ASSERT_EQ(some.size(), 2u);
    EXPECT_EQ(some[0].id, 2);
    EXPECT_EQ(some[1].id, 1);
}

TEST(TopK, EveryPositionOfASentenceHasItsTopNextTokens)
{
    const SeededRun run(small(NormPlacement::Pre), sentences(2, 5, 7));
    const Activations& acts = run.acts;
    const std::vector<PositionTop> rows = next_token_top_k(acts, 1, 4);
    ASSERT_EQ(rows.size(), 5u);
    for (int t = 0; t < 5; ++t)
    {
        const PositionTop& r = rows[static_cast<std::size_t>(t)];
        EXPECT_EQ(r.position, t);
        ASSERT_EQ(r.top.size(), 4u);
        Eigen::Index argmax = 0;
        acts.probs.row(5 + t).maxCoeff(&argmax);
        EXPECT_EQ(r.top[0].id, argmax);
        for (std::size_t i = 0; i < r.top.size(); ++i)
        {
            EXPECT_EQ(r.top[i].p, acts.probs(5 + t, r.top[i].id)) << "sentence 2's row, not sentence 1's";
            if (i > 0)
            {
                EXPECT_GE(r.top[i - 1].p, r.top[i].p);
            }
        }
    }
}

TEST(TopK, MaskFillersAreTheMaskPositionsOnly)
{
    ModelConfig c = small(NormPlacement::Post);
    c.causal = false;
    Params p;
    init_params(c, p);
    Batch batch = sentences(1, 6, c.vocab_size);
    const int mask_id = 6;
    batch.tokens[1] = mask_id;
    batch.tokens[4] = mask_id;
    batch.tokens[5] = 3;
    for (int t = 0; t < 6; ++t)
        ASSERT_TRUE(t == 1 || t == 4 || batch.tokens[static_cast<std::size_t>(t)] != mask_id);
    Activations acts;
    size_activations(c, 1, 6, acts);
    forward(c, p, batch, acts);
    const std::vector<PositionTop> fills = mask_fill_top_k(batch, acts, 0, mask_id, 3);
    ASSERT_EQ(fills.size(), 2u);
    EXPECT_EQ(fills[0].position, 1);
    EXPECT_EQ(fills[1].position, 4);
    for (const PositionTop& f : fills)
    {
        ASSERT_EQ(f.top.size(), 3u);
        EXPECT_EQ(f.top[0].p, acts.probs.row(f.position).maxCoeff());
    }
    EXPECT_TRUE(mask_fill_top_k(batch, acts, 0, -1, 3).empty());
    EXPECT_TRUE(mask_fill_top_k(batch, acts, 0, 4, 3).empty()) << "no token 4 in the sentence";
}

// [SECTION] Logit lens

TEST(LogitLens, LastRowIsTheModelsOwnPrediction)
{
    for (const NormPlacement norm : {NormPlacement::Pre, NormPlacement::Post})
    {
        const SeededRun run(small(norm), sentences(2, 6, 7));
        const ModelConfig& c = run.config;
        const Activations& acts = run.acts;
        for (int b = 0; b < 2; ++b)
        {
            const LogitLens lens = logit_lens(c, run.params, acts, b);
            ASSERT_EQ(lens.top.size(), static_cast<std::size_t>(c.n_layers + 1));
            for (int t = 0; t < 6; ++t)
            {
                Eigen::Index argmax = 0;
                const float p_max = acts.probs.row(b * 6 + t).maxCoeff(&argmax);
                EXPECT_EQ(lens.at(c.n_layers, t).id, argmax) << "b " << b << " t " << t;
                EXPECT_NEAR(lens.at(c.n_layers, t).p, p_max, 1e-6f);
            }
        }
    }
}

TEST(LogitLens, EarlierRowsReadThatLayersResidualStream)
{
    // Pre-LN: row l + 1 is softmax(LN_f(layer l's output) W_U + b_U), computed here by hand in double (row 0
    // reads the embeddings).
    const SeededRun run(small(NormPlacement::Pre), sentences(1, 5, 7));
    const ModelConfig& c = run.config;
    const Params& p = run.params;
    const Activations& acts = run.acts;
    const LogitLens lens = logit_lens(c, p, acts, 0);
    for (int row = 0; row < c.n_layers; ++row)
    {
        const MatT<float>& y =
            row == 0 ? acts.layers[0].X : acts.layers[static_cast<std::size_t>(row - 1)].residual2;
        for (int t = 0; t < 5; ++t)
        {
            const Eigen::RowVectorXd x = y.row(t).cast<double>();
            const double mean = x.mean();
            const double var = (x.array() - mean).square().mean();
            const Eigen::RowVectorXd z =
                ((x.array() - mean) / std::sqrt(var + 1e-5) * p.lnf_gamma.row(0).cast<double>().array() +
                 p.lnf_beta.row(0).cast<double>().array())
                    .matrix();
            const Eigen::RowVectorXd logits = z * p.W_U.cast<double>() + p.b_U.row(0).cast<double>();
            const double max = logits.maxCoeff();
            const double p_max = 1.0 / (logits.array() - max).exp().sum();
            const TokenProb& got = lens.at(row, t);
            EXPECT_NEAR(logits(got.id), max, 1e-5) << "row " << row << " t " << t << ": the top token";
            EXPECT_NEAR(got.p, p_max, 1e-5) << "row " << row << " t " << t;
        }
    }
}

// [SECTION] Attention sinks

TEST(HideFirstKey, HandWorkedCausalMap)
{
    Mat a(3, 3);
    a << 1.0f, 0.0f, 0.0f, //
        0.5f, 0.5f, 0.0f,  //
        0.2f, 0.6f, 0.2f;
    const Mat h = hide_first_key(a);
    Mat expected(3, 3);
    expected << 0.0f, 0.0f, 0.0f, // only key 0 had weight: stays 0, not NaN
        0.0f, 1.0f, 0.0f,         //
        0.0f, 0.75f, 0.25f;       // 0.6 / 0.8, 0.2 / 0.8
    EXPECT_TRUE(h.allFinite());
    EXPECT_LE((h - expected).cwiseAbs().maxCoeff(), 1e-7f);
}

TEST(HideFirstKey, RowsSumToOneAndKeepTheirRatios)
{
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-3.0f, 3.0f);
    const int T = 6;
    Mat a(T, T);
    for (int i = 0; i < T; ++i)
    {
        Eigen::RowVectorXf e(T);
        for (int j = 0; j < T; ++j)
            e(j) = std::exp(u(rng));
        a.row(i) = e / e.sum();
    }
    a(2, 0) = 0.99f; // a sink: most of the row on the first key
    a.row(2).tail(T - 1) *= 0.01f / a.row(2).tail(T - 1).sum();
    const Mat h = hide_first_key(a);
    for (int i = 0; i < T; ++i)
    {
        EXPECT_EQ(h(i, 0), 0.0f);
        EXPECT_NEAR(h.row(i).sum(), 1.0f, 1e-6f) << "row " << i;
        for (int j = 1; j < T; ++j)
            for (int k = 1; k < T; ++k)
                EXPECT_NEAR(h(i, j) / h(i, k), a(i, j) / a(i, k), 1e-4f * a(i, j) / a(i, k));
    }
    EXPECT_EQ(hide_first_key(Mat::Ones(2, 1)), Mat::Zero(2, 1)) << "a single key: nothing left to show";
    EXPECT_EQ(hide_first_key(Mat::Zero(2, 3)), Mat::Zero(2, 3)) << "a fully masked row stays 0";
}
