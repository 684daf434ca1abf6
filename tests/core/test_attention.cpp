// Hand-worked multi-head attention (numbers checked on paper) and the forum's batch shapes.
#include "core/engine.h"
#include "core/softmax.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

using namespace attnlab;

namespace
{

// X (T = 3, d_model = 4) and two heads (d_k = d_v = 2) whose W_Q = W_K = W_V select columns 0-1 and 2-3,
// with W^O = I: every number below can be worked out by hand.
struct HandExample
{
    Mat X{3, 4};
    AttentionWeights w;
    AttentionTrace attn;

    HandExample()
    {
        X << 1, 0, 0, 1, //
            0, 1, 1, 0,  //
            1, 1, 0, 0;
        Mat first = Mat::Zero(4, 2), second = Mat::Zero(4, 2);
        first(0, 0) = first(1, 1) = 1;
        second(2, 0) = second(3, 1) = 1;
        w.W_Q = w.W_K = w.W_V = {first, second};
        w.W_O = Mat::Identity(4, 4);
        size_attention(attn, 1, 2);
    }

    void run(bool causal)
    {
        build_mask(3, 3, 3, causal, attn.mask[0]);
        attention_forward(X, X, w, 1.0f / std::sqrt(2.0f), 1.0f, 0, attn);
    }
};

} // namespace

TEST(HandWorked, ScoresScalingSoftmaxAndOutputs)
{
    HandExample ex;
    ex.run(false);
    const HeadTrace& h0 = ex.attn.head(0, 0);
    // Head 0: Q = K = V = [[1,0],[0,1],[1,1]], so Q Kᵀ = [[1,0,1],[0,1,1],[1,1,2]].
    Mat expected_scores(3, 3);
    expected_scores << 1, 0, 1, 0, 1, 1, 1, 1, 2;
    EXPECT_TRUE(h0.scores.isApprox(expected_scores)) << h0.scores;
    // Scaled by 1/√d_k = 1/√2: the 1s become 0.70711 and the 2 becomes 1.41421.
    EXPECT_NEAR(h0.scaled(0, 0), 0.707107f, 1e-6);
    EXPECT_NEAR(h0.scaled(2, 2), 1.414214f, 1e-6);
    // No mask: masked == scaled.
    EXPECT_EQ(h0.masked, h0.scaled);
    // Row 0: exp(0.70711) = 2.02811; [2.02811, 1, 2.02811] / 5.05622.
    EXPECT_NEAR(h0.weights(0, 0), 0.401113f, 1e-5);
    EXPECT_NEAR(h0.weights(0, 1), 0.197776f, 1e-5);
    EXPECT_NEAR(h0.weights(0, 2), 0.401113f, 1e-5);
    // Row 2: [2.02811, 2.02811, exp(1.41421) = 4.11325] / 8.16947.
    EXPECT_NEAR(h0.weights(2, 0), 0.248254f, 1e-5);
    EXPECT_NEAR(h0.weights(2, 2), 0.503492f, 1e-5);
    // head_0 row 0 = 0.401113 [1,0] + 0.197776 [0,1] + 0.401113 [1,1] = [0.802226, 0.598889].
    EXPECT_NEAR(h0.head_out(0, 0), 0.802226f, 1e-5);
    EXPECT_NEAR(h0.head_out(0, 1), 0.598889f, 1e-5);

    const HeadTrace& h1 = ex.attn.head(0, 1);
    // Head 1: Q = K = V = [[0,1],[1,0],[0,0]]; row 2 scores all 0, so weights are 1/3 each.
    EXPECT_NEAR(h1.weights(2, 0), 1.0f / 3, 1e-6);
    EXPECT_NEAR(h1.weights(2, 1), 1.0f / 3, 1e-6);
    EXPECT_NEAR(h1.head_out(2, 0), 1.0f / 3, 1e-6);
    // Row 0: [e^0.70711, 1, 1] / 4.02811 = [0.503492, 0.248254, 0.248254]; output [0.248254, 0.503492].
    EXPECT_NEAR(h1.head_out(0, 0), 0.248254f, 1e-5);
    EXPECT_NEAR(h1.head_out(0, 1), 0.503492f, 1e-5);

    // Concat puts head 0's columns first; with W^O = I the multi-head output equals the concatenation.
    const Mat& concat = ex.attn.concat[0];
    ASSERT_EQ(concat.cols(), 4);
    EXPECT_NEAR(concat(0, 0), 0.802226f, 1e-5);
    EXPECT_NEAR(concat(0, 3), 0.503492f, 1e-5);
    EXPECT_TRUE(ex.attn.mha[0].isApprox(concat));
}

TEST(HandWorked, CausalMaskZeroesTheFuture)
{
    HandExample ex;
    ex.run(true);
    const HeadTrace& h0 = ex.attn.head(0, 0);
    EXPECT_EQ(h0.masked(0, 1), -std::numeric_limits<float>::infinity());
    EXPECT_EQ(h0.scaled(0, 1), 0.0f); // the mask is a stage of its own: scaled is untouched
    // Row 0 sees only itself; row 1 sees [0, 0.70711]: [1, 2.02811] / 3.02811.
    EXPECT_EQ(h0.weights(0, 0), 1.0f);
    EXPECT_EQ(h0.weights(0, 1), 0.0f);
    EXPECT_EQ(h0.weights(0, 2), 0.0f);
    EXPECT_NEAR(h0.weights(1, 0), 0.330238f, 1e-5);
    EXPECT_NEAR(h0.weights(1, 1), 0.669762f, 1e-5);
    EXPECT_EQ(h0.weights(1, 2), 0.0f);
}

TEST(HandWorked, FullyMaskedRowGivesZerosNotNaN)
{
    HandExample ex;
    build_mask(3, 3, 3, false, ex.attn.mask[0]);
    ex.attn.mask[0].row(1).setConstant(-std::numeric_limits<float>::infinity());
    attention_forward(ex.X, ex.X, ex.w, 1.0f / std::sqrt(2.0f), 1.0f, 0, ex.attn);
    for (int j = 0; j < 2; ++j)
    {
        const HeadTrace& head = ex.attn.head(0, j);
        EXPECT_EQ(head.fully_masked, (std::vector<std::uint8_t>{0, 1, 0}));
        EXPECT_TRUE(head.weights.allFinite());
        EXPECT_EQ(head.weights.row(1).cwiseAbs().sum(), 0.0f);
        EXPECT_EQ(head.head_out.row(1).cwiseAbs().sum(), 0.0f);
    }
    EXPECT_TRUE(ex.attn.mha[0].allFinite());
}

TEST(ForumBatch, TwoSentencesOfThreeTokensWithDModel4)
{
    // The forum's example: Q, K, V of shape [2, 3, 4] give scores of shape [2, 3, 3] (one head, d_k = 4).
    Session s;
    s.text = "I love cats\nHello world";
    s.config.d_model = 4;
    s.config.n_heads = 1;
    Engine engine;
    ASSERT_TRUE(engine.run(s)) << engine.run(s).message();
    const Trace& t = engine.trace();
    ASSERT_EQ(t.batch_size(), 2);
    ASSERT_EQ(t.T(), 3);
    EXPECT_EQ(t.d_k, 4); // d_k is the key dimension (d_model / h), not the sequence length
    for (int b = 0; b < 2; ++b)
    {
        const HeadTrace& head = t.layers[0].attn.head(b, 0);
        EXPECT_EQ(head.Q.rows(), 3);
        EXPECT_EQ(head.Q.cols(), 4);
        EXPECT_EQ(head.scores.rows(), 3);
        EXPECT_EQ(head.scores.cols(), 3);
        // scaled = scores / √d_k = scores / 2
        EXPECT_TRUE(head.scaled.isApprox(head.scores / 2.0f));
    }
    // The second sentence is padded: its <pad> key gets exactly zero weight in every row.
    EXPECT_EQ(t.tokens.tokens[1][2], kPadToken);
    const HeadTrace& padded = t.layers[0].attn.head(1, 0);
    for (int i = 0; i < 3; ++i)
    {
        EXPECT_EQ(padded.weights(i, 2), 0.0f);
        EXPECT_NEAR(padded.weights.row(i).sum(), 1.0f, 1e-6); // each query's row over the keys sums to 1
    }
}

// [SECTION] The residual and positional switches

namespace
{

// The hand example as a whole post-LN layer: W_1 = 0 and b_1 = 0, so FFN(x) = b_2 on every row; LayerNorms
// with γ = 1, β = 0.
LayerWeights hand_layer(const HandExample& ex)
{
    LayerWeights lw;
    lw.attn = ex.w;
    lw.gamma_1 = lw.gamma_2 = RowVec::Ones(4);
    lw.beta_1 = lw.beta_2 = RowVec::Zero(4);
    lw.W_1 = Mat::Zero(4, 8);
    lw.b_1 = RowVec::Zero(8);
    lw.W_2 = Mat::Zero(8, 4);
    lw.b_2.resize(4);
    lw.b_2 << 1, 2, 3, 4;
    return lw;
}

LayerTrace hand_layer_trace(const HandExample& ex, bool residual)
{
    Config c;
    c.d_model = 4;
    c.n_heads = 2;
    c.residual = residual;
    LayerTrace layer;
    size_layer(layer, 1, 2);
    layer.X[0] = ex.X;
    encoder_layer_forward(c, hand_layer(ex), 0, 3, layer);
    return layer;
}

} // namespace

TEST(HandWorked, AddAndNormWithoutTheResidualNormalisesTheSubLayerAlone)
{
    const HandExample ex;
    const LayerTrace off = hand_layer_trace(ex, false);
    // Row 0 of MultiHead(X), by hand (W^O = I): head 1 weights [0.401113, 0.197776, 0.401113] on V rows
    // [1,0], [0,1], [1,1] give [0.802226, 0.598889]; head 2's scores row [1, 0, 0] / √2 give weights
    // [0.503490, 0.248255, 0.248255] on V rows [0,1], [1,0], [0,0]: [0.248255, 0.503490].
    const float mha0[4] = {0.802226f, 0.598889f, 0.248255f, 0.503490f};
    for (int c = 0; c < 4; ++c)
        EXPECT_NEAR(off.attn.mha[0](0, c), mha0[c], 1e-5) << c;
    // No residual: nothing is added back.
    EXPECT_EQ(off.residual[0], off.attn.mha[0]);
    // LayerNorm of that row alone: mean 0.538215, variance 0.0396665, so (x − mean) / √(var + 1e-5) =
    // [1.32542, 0.30460, −1.45569, −0.17433].
    const float norm0[4] = {1.32542f, 0.30460f, -1.45569f, -0.17433f};
    for (int c = 0; c < 4; ++c)
        EXPECT_NEAR(off.norm1[0](0, c), norm0[c], 1e-4) << c;
    // FFN(x) = b_2 = [1, 2, 3, 4] on every row; without the residual norm2 = LayerNorm([1, 2, 3, 4]) =
    // [−3, −1, 1, 3] / √(5 + 4e-5) on every row, whatever the attention did.
    const float s = 1.0f / std::sqrt(5.0f + 4e-5f);
    for (int r = 0; r < 3; ++r)
    {
        EXPECT_EQ(off.residual2[0].row(r), off.ffn[0].row(r));
        for (int c = 0; c < 4; ++c)
            EXPECT_NEAR(off.norm2[0](r, c), (2 * c - 3) * s, 1e-5) << r << ", " << c;
    }

    // With the residual (the paper's layer) the same weights give X + MultiHead(X) and norm1 + FFN(norm1).
    const LayerTrace on = hand_layer_trace(ex, true);
    EXPECT_EQ(on.attn.mha[0], off.attn.mha[0]);
    EXPECT_TRUE(on.residual[0].isApprox(ex.X + on.attn.mha[0]));
    EXPECT_TRUE(on.residual2[0].isApprox(on.norm1[0] + on.ffn[0]));
    EXPECT_GT((on.norm1[0] - off.norm1[0]).cwiseAbs().maxCoeff(), 0.1f);
    EXPECT_GT((on.norm2[0] - off.norm2[0]).cwiseAbs().maxCoeff(), 0.1f);
}

TEST(Switches, ResidualOffInTheEngineAndItsEquations)
{
    Session s;
    s.config.n_layers = 2;
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    const Mat norm2_on = engine.trace().layers[1].norm2[0];
    EXPECT_STREQ(stage_equation(engine.trace(), Stage::norm1, false), "LayerNorm(X + MultiHead(X))");
    s.config.residual = false;
    ASSERT_TRUE(engine.run(s));
    const Trace& t = engine.trace();
    for (const LayerTrace& layer : t.layers)
    {
        EXPECT_EQ(layer.residual[0], layer.attn.mha[0]);
        EXPECT_EQ(layer.residual2[0], layer.ffn[0]);
        Mat expected;
        layer_norm_rows(layer.attn.mha[0], engine.weights().layers[0].gamma_1,
                        engine.weights().layers[0].beta_1, expected);
        EXPECT_TRUE(layer.norm1[0].isApprox(expected));
    }
    // Layer 2 reads layer 1's norm2, which changed: the switch changes everything after the first Add & Norm.
    EXPECT_GT((t.layers[1].norm2[0] - norm2_on).cwiseAbs().maxCoeff(), 0.1f);
    // The pipeline's equations say so.
    EXPECT_NE(std::string(stage_equation(t, Stage::norm1, false)).find("LayerNorm(MultiHead(X))"),
              std::string::npos);
    EXPECT_EQ(std::string(stage_equation(t, Stage::norm1, false)).find("X +"), std::string::npos);
    EXPECT_EQ(std::string(stage_equation(t, Stage::residual, false)).find("X +"), std::string::npos);
    EXPECT_NE(std::string(stage_equation(t, Stage::norm2, false)).find("LayerNorm(FFN(norm1))"),
              std::string::npos);
}

TEST(Switches, PositionalOffGivesXAsTheEmbeddingRows)
{
    Session s;
    s.text = "the cat sat on the mat";
    s.config.positional = PositionalKind::None;
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    const Trace& t = engine.trace();
    EXPECT_TRUE(t.positional.isZero(0.0f));
    EXPECT_EQ(t.layers[0].X[0], t.embedding[0]);
    // The two "the" rows are the same vector: nothing tells position 0 from position 4.
    EXPECT_EQ(t.layers[0].X[0].row(0), t.layers[0].X[0].row(4));
    EXPECT_NE(std::string(stage_equation(t, Stage::positional, false)).find("off"), std::string::npos);
    s.config.positional = PositionalKind::Sinusoidal;
    ASSERT_TRUE(engine.run(s));
    EXPECT_NE(engine.trace().layers[0].X[0].row(0), engine.trace().layers[0].X[0].row(4));
}
