// User errors: each gives a message that says what to fix, and the last good trace stays.
#include "core/engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <Eigen/Cholesky>

using namespace attnlab;

namespace
{

// Runs a good session, then a bad one: the bad one must fail with a message containing `expected`, and the
// engine must still show the good trace.
void expect_rejected(Session bad, const std::string& expected)
{
    Engine engine;
    Session good;
    ASSERT_TRUE(engine.run(good));
    const auto generation = engine.generation();
    const Mat weights_before = engine.trace().layers[0].attn.head(0, 0).weights;
    const Status s = engine.run(bad);
    ASSERT_FALSE(s) << "accepted: " << expected;
    EXPECT_NE(s.message().find(expected), std::string::npos) << "message: " << s.message();
    EXPECT_EQ(engine.generation(), generation);
    EXPECT_EQ(engine.trace().tokens.tokens[0][0], "Jane");
    EXPECT_EQ(engine.trace().layers[0].attn.head(0, 0).weights, weights_before);
    EXPECT_FALSE(validate_session(bad));
}

// The u of least norm with X u = 1 on every row, for X with fewer rows than columns (full row rank):
// u = Xᵀ (X Xᵀ)⁻¹ 1, solved in double. (An SVD would do as well but costs a minute of compile time.)
Eigen::VectorXf solve_for_ones(const Mat& X)
{
    const Eigen::MatrixXd Xd = X.cast<double>();
    const Eigen::VectorXd y = (Xd * Xd.transpose()).ldlt().solve(Eigen::VectorXd::Ones(Xd.rows()));
    return (Xd.transpose() * y).cast<float>();
}

} // namespace

TEST(Validation, NoTokens)
{
    Session s;
    s.text = "  \n\t\n";
    expect_rejected(s, "no tokens");
}

TEST(Validation, DModelNotDivisibleByHeads)
{
    Session s;
    s.config.d_model = 10;
    s.config.n_heads = 4;
    expect_rejected(s, "not divisible by h");
    // ...unless d_k and d_v are given.
    s.config.d_k = 3;
    s.config.d_v = 2;
    EXPECT_TRUE(validate_session(s)) << validate_session(s).message();
}

TEST(Validation, HeadButtonsStepThroughTheDivisorsOfDModel)
{
    // At d_model 16, + from 4 goes to 8 (not 5, 6, 7), - from 4 to 2; the ends stay put.
    EXPECT_EQ(next_head_count(16, 4, +1), 8);
    EXPECT_EQ(next_head_count(16, 4, -1), 2);
    EXPECT_EQ(next_head_count(16, 8, +1), 16);
    EXPECT_EQ(next_head_count(16, 16, +1), 16);
    EXPECT_EQ(next_head_count(16, 1, -1), 1);
    EXPECT_EQ(next_head_count(12, 4, +1), 6);
    EXPECT_EQ(next_head_count(12, 6, -1), 4);
    EXPECT_EQ(next_head_count(13, 1, +1), 13);    // a prime: 1 or all of it
    EXPECT_EQ(next_head_count(4096, 64, +1), 64); // never past the limit on h
    // From an invalid h (typed), a step lands on a valid one either way.
    EXPECT_EQ(next_head_count(16, 5, +1), 8);
    EXPECT_EQ(next_head_count(16, 5, -1), 4);
    for (int d = 1; d <= 96; ++d)
        for (int h = 1; h <= std::min(d, 64); ++h)
            for (int dir : {-1, +1})
            {
                const int n = next_head_count(d, h, dir);
                EXPECT_TRUE(n == h || d % n == 0) << d << " " << h << " " << dir;
            }
}

TEST(Validation, SizesOutOfRange)
{
    Session s;
    s.config.n_heads = 0;
    expect_rejected(s, "h (heads) must be between 1");
    s = Session{};
    s.config.d_model = -4;
    expect_rejected(s, "d_model must be between 1");
    s = Session{};
    s.config.n_layers = 99;
    expect_rejected(s, "layers must be between 1 and 12");
    s = Session{};
    s.config.d_k = -1;
    expect_rejected(s, "must be positive");
    s = Session{};
    s.config.temperature = 0.0f;
    expect_rejected(s, "temperature");
    s.config.temperature = std::numeric_limits<float>::quiet_NaN();
    expect_rejected(s, "temperature");
}

TEST(Validation, TooManyTokensOrSentences)
{
    Session s;
    s.text.clear();
    for (int i = 0; i <= Limits::max_tokens; ++i)
        s.text += "w ";
    expect_rejected(s, "tokens; at most 2048");
    s.text.clear();
    for (int i = 0; i <= Limits::max_sentences; ++i)
        s.text += "line\n";
    expect_rejected(s, "sentences; at most 64");
}

TEST(Validation, TraceMemoryLimit)
{
    Session s;
    s.text.clear();
    for (int i = 0; i < 2000; ++i)
        s.text += "w ";
    s.config.d_model = 64;
    s.config.n_heads = 64;
    s.config.n_layers = 12;
    expect_rejected(s, "MB of intermediates and weights");

    // The weights count too: three tokens, but d_model 4096 with d_ff 16384 over 12 layers is 10 GB of
    // weights.
    Session wide;
    wide.text = "a b c";
    wide.config.d_model = 4096;
    wide.config.n_heads = 64;
    wide.config.d_ff = 16384;
    wide.config.n_layers = 12;
    expect_rejected(wide, "MB of intermediates and weights");
}

TEST(Validation, TextThatIsNotUtf8)
{
    Session s;
    s.text = "caf\xe9 au lait";
    expect_rejected(s, "the text is not valid UTF-8 (byte 3)");
    Session t;
    t.target = "\xff";
    expect_rejected(t, "the target is not valid UTF-8 (byte 0)");
}

TEST(Validation, ImportedWeightsThatFailKeepTheTraceAndItsWeightsTogether)
{
    // A run that fails after new weights were set must leave trace() and weights() of the same model: the
    // comparisons, the inspector and the export read both.
    Session s;
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    const ModelWeights before = engine.weights();
    Config other = s.config;
    other.d_model = 8;
    engine.set_imported_weights(init_weights(other));
    Session bad = s;
    bad.config = other;
    bad.text = "";
    ASSERT_FALSE(engine.run(bad));
    EXPECT_EQ(engine.trace().config.d_model, 16);
    EXPECT_EQ(engine.weights().layers[0].attn.W_Q[0], before.layers[0].attn.W_Q[0]);
    EXPECT_EQ(engine.imported_weights().layers[0].attn.W_Q[0].rows(), 8);
    // Once a run succeeds, both move on together.
    bad.text = "now it works";
    ASSERT_TRUE(engine.run(bad));
    EXPECT_EQ(engine.trace().config.d_model, 8);
    EXPECT_EQ(engine.weights().layers[0].attn.W_Q[0], init_weights(other).layers[0].attn.W_Q[0]);
}

TEST(Validation, TargetLineCountMustMatch)
{
    Session s;
    s.text = "one\ntwo\nthree";
    s.target = "un\ndeux";
    expect_rejected(s, "give one target line for all, or one per source line");
    s.target = "un";
    EXPECT_TRUE(validate_session(s));
}

TEST(Validation, MaskAndPositionalNames)
{
    MaskKind mask = MaskKind::None;
    EXPECT_TRUE(parse_mask("causal", &mask));
    EXPECT_EQ(mask, MaskKind::Causal);
    const Status bad = parse_mask("future", &mask);
    EXPECT_FALSE(bad);
    EXPECT_NE(bad.message().find("use none or causal"), std::string::npos);
    EXPECT_EQ(mask, MaskKind::Causal); // unchanged
    PositionalKind pe = PositionalKind::Sinusoidal;
    EXPECT_TRUE(parse_positional("none", &pe));
    EXPECT_EQ(pe, PositionalKind::None);
    EXPECT_FALSE(parse_positional("learned", &pe));
}

TEST(Validation, ImportedWeightsMustFitTheConfig)
{
    Session s;
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    Config other = s.config;
    other.d_model = 8; // same h = 4, so d_k = 2
    engine.set_imported_weights(init_weights(other));
    const auto generation = engine.generation();
    const Status st = engine.run(s);
    ASSERT_FALSE(st);
    EXPECT_NE(st.message().find("layers[0].W_Q[0] is 8x2 but d_model x d_k is 16x4"), std::string::npos)
        << st.message();
    EXPECT_EQ(engine.generation(), generation);
    // With a matching config the imported weights are used as they are.
    s.config = other;
    ASSERT_TRUE(engine.run(s));
    EXPECT_EQ(engine.weights().layers[0].attn.W_Q[1], init_weights(other).layers[0].attn.W_Q[1]);
}

TEST(Validation, NonFiniteResultIsAnErrorNotAPicture)
{
    Session s;
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    ModelWeights huge = init_weights(s.config);
    // The FFN's two products each scale by 1e38: its output is past float's range (3.4e38) whatever the
    // LayerNorms do.
    huge.layers[0].W_1 *= 1e38f;
    huge.layers[0].W_2 *= 1e38f;
    engine.set_imported_weights(huge);
    const Status st = engine.run(s);
    ASSERT_FALSE(st);
    EXPECT_NE(st.message().find("NaN or infinite"), std::string::npos) << st.message();
    EXPECT_TRUE(engine.trace().layers[0].norm2[0].allFinite());
}

TEST(Validation, WeightsThatOverflowTheScoresAreAnError)
{
    // Q and K so large that Q_h K_hᵀ overflows to ±∞: NaN weights follow, and the layer's outputs with them.
    Session s;
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    ModelWeights huge = init_weights(s.config);
    for (Mat& w : huge.layers[0].attn.W_Q)
        w *= 3e19f;
    for (Mat& w : huge.layers[0].attn.W_K)
        w *= 3e19f;
    engine.set_imported_weights(huge);
    const Status st = engine.run(s);
    ASSERT_FALSE(st);
    EXPECT_NE(st.message().find("NaN or infinite"), std::string::npos) << st.message();
    EXPECT_TRUE(engine.trace().layers[0].attn.head(0, 0).scores.allFinite());
}

TEST(Validation, LargeButFiniteScoresAreAccepted)
{
    // Every score of head 1 is c² = 2.25e38: each one finite, their sum over the head (T² c²) is not. The
    // check looks at the values, so the run is accepted and every row of weights sums to 1.
    Session s;
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    const Mat& X = engine.trace().layers[0].X[0];
    const Eigen::VectorXf u = solve_for_ones(X);
    ModelWeights weights = init_weights(s.config);
    const float c = 1.5e19f; // q = k = c on every token
    Mat& W_Q = weights.layers[0].attn.W_Q[0];
    Mat& W_K = weights.layers[0].attn.W_K[0];
    W_Q.setZero();
    W_K.setZero();
    W_Q.col(0) = c * u;
    W_K.col(0) = c * u;
    engine.set_imported_weights(weights);
    const Status st = engine.run(s);
    ASSERT_TRUE(st) << st.message();
    const HeadTrace& head = engine.trace().layers[0].attn.head(0, 0);
    ASSERT_TRUE(head.scores.allFinite());
    EXPECT_FALSE(std::isfinite(head.scores.sum())) << "the case must be one whose sum overflows";
    // The scores differ by ~1e35 from token to token (X u = 1 only to 1e-3), so each row is one-hot; what
    // matters is that it is a distribution.
    ASSERT_TRUE(head.weights.allFinite());
    for (Eigen::Index i = 0; i < head.weights.rows(); ++i)
        EXPECT_NEAR(head.weights.row(i).sum(), 1.0f, 1e-5f);
}

TEST(Validation, LayerNormOfHugeValuesIsRightNotZero)
{
    // W_O x 1e20: the residual's entries reach ~1e20, whose squares overflow float. LayerNorm must still give
    // the row (x - mean) / σ computed in double, never a silent row of zeros.
    Session s;
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    ModelWeights big = init_weights(s.config);
    big.layers[0].attn.W_O *= 1e20f;
    engine.set_imported_weights(big);
    const Status st = engine.run(s);
    ASSERT_TRUE(st) << st.message();
    const LayerTrace& layer = engine.trace().layers[0];
    const Mat& residual = layer.residual[0];
    const Mat& norm1 = layer.norm1[0];
    ASSERT_GT(residual.cwiseAbs().maxCoeff(), 1e19f) << "the case must overflow a float variance";
    const RowVec& gamma = big.layers[0].gamma_1;
    const RowVec& beta = big.layers[0].beta_1;
    for (Eigen::Index i = 0; i < residual.rows(); ++i)
    {
        const Eigen::RowVectorXd x = residual.row(i).cast<double>();
        const double mean = x.mean();
        const double var = (x.array() - mean).square().mean();
        const Eigen::RowVectorXd expected =
            ((x.array() - mean) / std::sqrt(var + 1e-5)) * gamma.cast<double>().array() +
            beta.cast<double>().array();
        EXPECT_GT(norm1.row(i).cwiseAbs().maxCoeff(), 0.1f) << "row " << i << " is all zeros";
        for (Eigen::Index j = 0; j < x.size(); ++j)
            EXPECT_NEAR(norm1(i, j), expected(j), 1e-4) << "row " << i << ", column " << j;
    }
}

TEST(Validation, ScoresThatOverflowToMinusInfinityOnlyAreAnError)
{
    // Every score of head 1 is −c² with c² past float's range, so all of them are −∞ and nothing else is.
    // The softmax then treats each row like a fully masked one: zero weights, a zero head_out, and finite
    // outputs everywhere after it, so only the check of every head's scores can catch it.
    Session s;
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    const Mat& X = engine.trace().layers[0].X[0]; // embedding + PE: the same whatever the weights
    // u with X u = 1 on every token (T < d_model, so the least-squares solution is exact).
    const Eigen::VectorXf u = solve_for_ones(X);
    ASSERT_LT((X * u - Eigen::VectorXf::Ones(X.rows())).cwiseAbs().maxCoeff(), 1e-3f);
    ModelWeights weights = init_weights(s.config);
    const float c = 1e20f; // q = c, k = -c on every token, each finite; q k = -1e40 is not
    Mat& W_Q = weights.layers[0].attn.W_Q[0];
    Mat& W_K = weights.layers[0].attn.W_K[0];
    W_Q.setZero();
    W_K.setZero();
    W_Q.col(0) = c * u;
    W_K.col(0) = -c * u;
    engine.set_imported_weights(weights);
    const Status st = engine.run(s);
    ASSERT_FALSE(st);
    EXPECT_NE(st.message().find("NaN or infinite"), std::string::npos) << st.message();
}
