// Properties over many sessions: softmax rows, exact zeros under masks, packed == per-head, two-step ==
// collapsed, h = 1 equals single-head, every stage's shape, no NaN, deterministic embeddings and weights.
#include "core/comparisons.h"
#include "core/cpu.h"
#include "core/embedding.h"
#include "core/engine.h"
#include "core/softmax.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

using namespace attnlab;

namespace
{

struct Case
{
    const char* name;
    const char* text;
    const char* target;
    int d_model, h, d_k, d_v, layers;
    MaskKind mask;
    float temperature;
};

const Case kCases[] = {
    {"default", "Jane visits Africa in September .", "", 16, 4, 0, 0, 1, MaskKind::None, 1.0f},
    {"causal_batch", "the cat sat on the mat\nhello world\na b c", "", 12, 3, 0, 0, 2, MaskKind::Causal,
     1.0f},
    {"odd_sizes", "one two three four five", "", 10, 3, 5, 7, 1, MaskKind::None, 0.5f},
    {"one_token", "alone", "", 8, 2, 0, 0, 1, MaskKind::Causal, 1.0f},
    {"cross", "Jane visits Africa in September\nshe loves it", "Jane visite l'Afrique en septembre", 8, 2, 0,
     0, 2, MaskKind::None, 2.0f},
    {"many_heads", "a b c d e f g h i j k l m n o p", "", 64, 16, 0, 0, 1, MaskKind::Causal, 1.0f},
};

Session make_session(const Case& c)
{
    Session s;
    s.text = c.text;
    s.target = c.target;
    s.config.d_model = c.d_model;
    s.config.n_heads = c.h;
    s.config.d_k = c.d_k;
    s.config.d_v = c.d_v;
    s.config.n_layers = c.layers;
    s.config.mask = c.mask;
    s.config.temperature = c.temperature;
    return s;
}

float rel_tol(const Mat& m)
{
    return 1e-5f * std::max(1.0f, m.cwiseAbs().maxCoeff());
}

void check_block(const AttentionTrace& attn, int B, int h, const char* what)
{
    for (int b = 0; b < B; ++b)
        for (int j = 0; j < h; ++j)
        {
            const HeadTrace& head = attn.head(b, j);
            const Mat& M = attn.mask[static_cast<size_t>(b)];
            for (Eigen::Index i = 0; i < head.weights.rows(); ++i)
            {
                ASSERT_EQ(head.fully_masked[static_cast<size_t>(i)], 0) << what;
                EXPECT_NEAR(head.weights.row(i).sum(), 1.0f, 1e-5)
                    << what << " b=" << b << " h=" << j << " i=" << i;
                for (Eigen::Index k = 0; k < head.weights.cols(); ++k)
                {
                    if (std::isinf(M(i, k)))
                    {
                        EXPECT_EQ(head.weights(i, k), 0.0f) << what << " masked weight not exactly 0";
                        EXPECT_TRUE(std::isinf(head.masked(i, k)));
                    }
                    else
                    {
                        EXPECT_GE(head.weights(i, k), 0.0f);
                        EXPECT_EQ(head.masked(i, k), head.scaled(i, k));
                    }
                }
            }
            EXPECT_TRUE(head.Q.allFinite() && head.K.allFinite() && head.V.allFinite() &&
                        head.scores.allFinite() && head.scaled.allFinite() && head.weights.allFinite() &&
                        head.head_out.allFinite())
                << what;
        }
}

class Properties : public ::testing::TestWithParam<Case>
{
};

} // namespace

TEST_P(Properties, SoftmaxRowsMasksAndFiniteness)
{
    const Case& c = GetParam();
    Engine engine;
    Status s = engine.run(make_session(c));
    ASSERT_TRUE(s) << s.message();
    const Trace& t = engine.trace();
    for (const LayerTrace& layer : t.layers)
    {
        check_block(layer.attn, t.batch_size(), c.h, "self");
        for (const std::vector<Mat>* v :
             {&layer.X, &layer.residual, &layer.norm1, &layer.ffn, &layer.residual2, &layer.norm2})
            for (const Mat& m : *v)
                EXPECT_TRUE(m.allFinite());
    }
    if (t.has_cross)
        check_block(t.cross.attn, t.batch_size(), c.h, "cross");
    if (c.mask == MaskKind::Causal)
        for (int b = 0; b < t.batch_size(); ++b)
        {
            const Mat& A = t.layers[0].attn.head(b, 0).weights;
            EXPECT_EQ(A.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().cwiseAbs().sum(), 0.0f);
        }
}

TEST_P(Properties, EveryStageHasItsShape)
{
    const Case& c = GetParam();
    Engine engine;
    ASSERT_TRUE(engine.run(make_session(c)));
    const Trace& t = engine.trace();
    const int T = t.T(), d_k = t.d_k, d_v = t.d_v;
    EXPECT_EQ(d_k, c.d_k > 0 ? c.d_k : c.d_model / c.h);
    EXPECT_EQ(d_v, c.d_v > 0 ? c.d_v : c.d_model / c.h);
    auto expected_cols = [&](const StageInfo& info)
    {
        const std::string cols = info.cols;
        if (cols == "T")
            return T;
        if (cols == "d_k")
            return d_k;
        if (cols == "d_v")
            return d_v;
        if (cols == "h·d_v")
            return c.h * d_v;
        if (cols == "d_ff")
            return t.config.resolved_d_ff();
        return c.d_model;
    };
    ASSERT_EQ(static_cast<int>(t.layers.size()), c.layers);
    for (const LayerTrace& layer : t.layers)
        for (const StageInfo& info : stage_table())
            for (int b = 0; b < (engine_layer_stage(info) ? t.batch_size() : 0); ++b)
                for (int j = 0; j < (info.per_head ? c.h : 1); ++j)
                {
                    const Mat& m = stage_matrix(layer, info.id, b, j);
                    EXPECT_EQ(m.rows(), T) << info.key;
                    EXPECT_EQ(m.cols(), expected_cols(info)) << info.key;
                }
    EXPECT_EQ(stage_shape(t, Stage::Q), "T×d_k = " + std::to_string(T) + "×" + std::to_string(d_k));
    if (t.has_cross)
    {
        const int T_q = t.cross.target.T;
        const HeadTrace& head = t.cross.attn.head(0, 0);
        EXPECT_EQ(head.Q.rows(), T_q);
        EXPECT_EQ(head.K.rows(), T);
        EXPECT_EQ(head.scores.rows(), T_q);
        EXPECT_EQ(head.scores.cols(), T);
        EXPECT_EQ(stage_shape(t, Stage::scores, true),
                  "T_q×T_k = " + std::to_string(T_q) + "×" + std::to_string(T));
        // Keys and values come from the encoder's output, queries from the target's embedding + PE.
        EXPECT_EQ(t.cross.X_kv[0], t.layers.back().norm2[0]);
        EXPECT_TRUE(t.cross.X_q[0].isApprox(t.cross.embedding[0] + t.cross.positional));
    }
}

TEST_P(Properties, PackedProjectionIsTheHeadsSideBySide)
{
    const Case& c = GetParam();
    Engine engine;
    ASSERT_TRUE(engine.run(make_session(c)));
    Comparisons cmp;
    compute_comparisons(engine.trace(), engine.weights(), 0, 0, c.h - 1, cmp);
    EXPECT_EQ(cmp.W_Q_packed.rows(), c.d_model);
    EXPECT_EQ(cmp.W_Q_packed.cols(), c.h * engine.trace().d_k);
    EXPECT_LE(cmp.packed_max_diff, rel_tol(cmp.Q_packed));
    // Two linear maps in a row are one: (X W^Q) W_h^Q == X (W^Q W_h^Q), up to rounding.
    EXPECT_LE(cmp.two_step_max_diff, rel_tol(cmp.Q_two_step));
    EXPECT_GT(cmp.Q_two_step.cwiseAbs().maxCoeff(), 0.0f);
    // ...but they differ from the paper's single projection X W_h^Q: the extra matrix changes the numbers.
    EXPECT_GT((cmp.Q_collapsed - engine.trace().layers[0].attn.head(0, c.h - 1).Q).cwiseAbs().maxCoeff(),
              1e-3f);
    EXPECT_EQ(cmp.single_weights.rows(), engine.trace().T());
}

TEST(Comparisons, OneHeadWithFullWidthIsSingleHeadAttention)
{
    Session s;
    s.text = "the quick brown fox jumps";
    s.config.d_model = 12;
    s.config.n_heads = 1; // d_k = d_model
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    Comparisons cmp;
    compute_comparisons(engine.trace(), engine.weights(), 0, 0, 0, cmp);
    EXPECT_LE(cmp.single_vs_multi_max_diff, rel_tol(cmp.single_out));
    EXPECT_TRUE(cmp.single_weights.isApprox(engine.trace().layers[0].attn.head(0, 0).weights, 1e-5f));
}

TEST(Comparisons, SeveralHeadsAreNotSingleHeadAttention)
{
    Session s;
    s.text = "the quick brown fox jumps";
    s.config.d_model = 12;
    s.config.n_heads = 4;
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    Comparisons cmp;
    compute_comparisons(engine.trace(), engine.weights(), 0, 0, 0, cmp);
    EXPECT_GT(cmp.single_vs_multi_max_diff, 1e-3f); // h maps are a different function from one map
}

std::string case_name(const ::testing::TestParamInfo<Case>& param)
{
    return param.param.name;
}

INSTANTIATE_TEST_SUITE_P(Sessions, Properties, ::testing::ValuesIn(kCases), case_name);

TEST(Embeddings, SameWordSameVectorWhereverItStands)
{
    Mat a, b;
    embed_tokens({"the", "cat", "the"}, 8, 3, a);
    embed_tokens({"a", "dog", "saw", "the"}, 8, 3, b);
    EXPECT_EQ(a.row(0), a.row(2));
    EXPECT_EQ(a.row(0), b.row(3));
    EXPECT_NE(a.row(0), a.row(1));
    Mat wider, other_seed;
    embed_tokens({"the"}, 12, 3, wider);
    EXPECT_EQ(wider.leftCols(8), a.row(0)); // growing d_model keeps the first entries
    embed_tokens({"the"}, 8, 4, other_seed);
    EXPECT_NE(other_seed.row(0), a.row(0));
}

TEST(Embeddings, SinusoidalPositionalEncodingMatchesThePaper)
{
    Mat pe;
    positional_encoding(PositionalKind::Sinusoidal, 4, 6, pe);
    EXPECT_FLOAT_EQ(pe(0, 0), 0.0f);
    EXPECT_FLOAT_EQ(pe(0, 1), 1.0f);
    EXPECT_NEAR(pe(3, 0), std::sin(3.0), 1e-6);
    EXPECT_NEAR(pe(3, 1), std::cos(3.0), 1e-6);
    EXPECT_NEAR(pe(2, 4), std::sin(2.0 / std::pow(10000.0, 4.0 / 6)), 1e-6);
    EXPECT_NEAR(pe(2, 5), std::cos(2.0 / std::pow(10000.0, 4.0 / 6)), 1e-6);
    positional_encoding(PositionalKind::None, 4, 6, pe);
    EXPECT_EQ(pe.cwiseAbs().sum(), 0.0f);
}

TEST(Weights, SeededXavierIsDeterministicAndIndependentOfTokens)
{
    Session s;
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    const Mat W_Q0 = engine.weights().layers[0].attn.W_Q[0];
    s.text = "a completely different sentence";
    ASSERT_TRUE(engine.run(s));
    EXPECT_EQ(engine.weights().layers[0].attn.W_Q[0], W_Q0); // editing tokens never changes weights
    EXPECT_EQ(init_weights(s.config).layers[0].attn.W_Q[0], W_Q0);
    // Xavier uniform bound sqrt(6 / (fan_in + fan_out)) = sqrt(6 / 20) for 16 x 4.
    EXPECT_LE(W_Q0.cwiseAbs().maxCoeff(), std::sqrt(6.0f / 20.0f));
    EXPECT_GT(W_Q0.cwiseAbs().maxCoeff(), 0.5f * std::sqrt(6.0f / 20.0f));
    s.config.seed = 2;
    ASSERT_TRUE(engine.run(s));
    EXPECT_NE(engine.weights().layers[0].attn.W_Q[0], W_Q0);
    EXPECT_TRUE(check_weights(engine.weights(), s.config));
}

TEST(Temperature, HigherTemperatureFlattensEveryRow)
{
    auto entropy = [](const Mat& A)
    {
        double e = 0;
        for (Eigen::Index i = 0; i < A.size(); ++i)
            if (A.data()[i] > 0)
                e -= A.data()[i] * std::log(A.data()[i]);
        return e;
    };
    Session s;
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    const double sharp = entropy(engine.trace().layers[0].attn.head(0, 0).weights);
    s.config.temperature = 5.0f;
    ASSERT_TRUE(engine.run(s));
    const double flat = entropy(engine.trace().layers[0].attn.head(0, 0).weights);
    EXPECT_GT(flat, sharp);
    const double uniform = engine.trace().T() * std::log(static_cast<double>(engine.trace().T()));
    EXPECT_LE(flat, uniform + 1e-6);
}

TEST(Layers, EachLayerReadsThePreviousNorm2)
{
    Session s;
    s.config.n_layers = 3;
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    const Trace& t = engine.trace();
    EXPECT_TRUE(t.layers[0].X[0].isApprox(t.embedding[0] + t.positional));
    EXPECT_EQ(t.layers[1].X[0], t.layers[0].norm2[0]);
    EXPECT_EQ(t.layers[2].X[0], t.layers[1].norm2[0]);
    // The residual adds the input back: residual - X is exactly the attention block's output.
    EXPECT_TRUE((t.layers[0].residual[0] - t.layers[0].X[0]).isApprox(t.layers[0].attn.mha[0], 1e-5f));
    // LayerNorm with γ = 1, β = 0: each row of norm1 has mean 0 and variance 1.
    EXPECT_NEAR(t.layers[0].norm1[0].row(2).mean(), 0.0f, 1e-5);
    EXPECT_NEAR(t.layers[0].norm1[0].row(2).squaredNorm() / 16.0f, 1.0f, 1e-3);
}

TEST(Embeddings, EditingOneWordGivesTheSameTraceAsAFreshStart)
{
    // The engine re-embeds only the rows whose token changed; the result must equal a fresh computation.
    Session s;
    s.text = "the cat sat on the mat\nhello world";
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    ASSERT_TRUE(engine.run(s)); // both buffers warm
    s.text = "the dog sat on the mat\nhello world";
    ASSERT_TRUE(engine.run(s));
    s.text = "the dog sat on a mat\nhello there";
    ASSERT_TRUE(engine.run(s));
    Engine fresh;
    ASSERT_TRUE(fresh.run(s));
    for (int b = 0; b < 2; ++b)
    {
        EXPECT_EQ(engine.trace().embedding[static_cast<size_t>(b)],
                  fresh.trace().embedding[static_cast<size_t>(b)]);
        EXPECT_EQ(engine.trace().layers[0].norm2[static_cast<size_t>(b)],
                  fresh.trace().layers[0].norm2[static_cast<size_t>(b)]);
    }
    s.config.seed = 9; // a new seed re-embeds every row
    ASSERT_TRUE(engine.run(s));
    Engine fresh9;
    ASSERT_TRUE(fresh9.run(s));
    EXPECT_EQ(engine.trace().embedding[0], fresh9.trace().embedding[0]);
}

TEST(CrossAttention, TargetPositionsFollowDModelAndKindAfterTheTargetWasCleared)
{
    // The engine alternates two traces and caches the target's positional encoding in each. Clearing the
    // target, changing d_model or the encoding, then bringing the target back must not reuse a stale one.
    Session s;
    s.target = "Jane besucht Afrika";
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    s.target.clear();
    ASSERT_TRUE(engine.run(s));
    s.config.d_model = 8;
    s.config.n_heads = 2;
    ASSERT_TRUE(engine.run(s));
    s.target = "Jane besucht Afrika";
    ASSERT_TRUE(engine.run(s));
    s.config.seed = 2;
    ASSERT_TRUE(engine.run(s));
    s.config.positional = PositionalKind::None;
    ASSERT_TRUE(engine.run(s));
    s.config.positional = PositionalKind::Sinusoidal;
    ASSERT_TRUE(engine.run(s));
    for (PositionalKind kind : {PositionalKind::Sinusoidal, PositionalKind::None})
    {
        s.config.positional = kind;
        ASSERT_TRUE(engine.run(s));
        Engine fresh;
        ASSERT_TRUE(fresh.run(s));
        EXPECT_EQ(engine.trace().cross.positional, fresh.trace().cross.positional);
        EXPECT_EQ(engine.trace().cross.X_q[0], fresh.trace().cross.X_q[0]);
        EXPECT_EQ(engine.trace().cross.attn.mha[0], fresh.trace().cross.attn.mha[0]);
    }
}

namespace
{

// Every stage of b's layers and cross-attention block in two traces, compared bit for bit.
void expect_same_bits(const Trace& got, const Trace& expected, const std::string& what)
{
    ASSERT_EQ(got.layers.size(), expected.layers.size()) << what;
    ASSERT_EQ(got.has_cross, expected.has_cross) << what;
    int compared = 0;
    for (const StageInfo& info : stage_table())
    {
        if (!engine_layer_stage(info))
            continue;
        for (int l = 0; l < static_cast<int>(got.layers.size()); ++l)
            for (int b = 0; b < got.batch_size(); ++b)
                for (int j = 0; j < (info.per_head ? got.config.n_heads : 1); ++j)
                {
                    const Mat& a = stage_matrix(got.layers[static_cast<size_t>(l)], info.id, b, j);
                    const Mat& e = stage_matrix(expected.layers[static_cast<size_t>(l)], info.id, b, j);
                    EXPECT_TRUE(a.rows() == e.rows() && a.cols() == e.cols() && a == e)
                        << what << ": " << info.key << " of layer " << l << ", sentence " << b << ", head "
                        << j;
                    ++compared;
                }
        if (!info.attention_block || !got.has_cross)
            continue;
        for (int b = 0; b < got.batch_size(); ++b)
            for (int j = 0; j < (info.per_head ? got.config.n_heads : 1); ++j)
            {
                const Mat& a = attention_stage_matrix(got.cross.attn, info.id, b, j);
                const Mat& e = attention_stage_matrix(expected.cross.attn, info.id, b, j);
                EXPECT_TRUE(a.rows() == e.rows() && a.cols() == e.cols() && a == e)
                    << what << ": cross-attention's " << info.key << ", sentence " << b << ", head " << j;
                ++compared;
            }
    }
    EXPECT_GT(compared, 0) << what;
}

} // namespace

TEST(PackedWeights, TheEngineGivesTheBitsOfPackingPerProductAndRepacksWhenTheWeightsChange)
{
    // The engine packs the weights' right operands once (pack_weights) and reuses them while the weights
    // stay. Each run must equal a forward pass that packs per product, bit for bit, through changes that
    // bring new weights: h, d_model (odd, and past the kernel's blocks of 256 rows and 512 columns), a
    // target (the cross-attention block's weights), imported weights and other imported weights of the same
    // shape.
    Session s;
    s.text = "the cat sat on the mat and then it sat on the other mat\nhello world";
    s.config.d_model = 75; // d_k = 25, d_ff = 300: odd depths, ragged panels
    s.config.n_heads = 3;
    s.config.n_layers = 2;
    Engine engine;
    const auto check = [&](const std::string& what)
    {
        ASSERT_TRUE(engine.run(s)) << what;
        ASSERT_TRUE(engine.run(s)) << what; // the second trace buffer, with the same panels
        TokenBatch source, target;
        ASSERT_TRUE(prepare_inputs(s, source, target)) << what;
        Trace per_product;
        ASSERT_TRUE(forward(s.config, source, target, engine.weights(), per_product)) << what;
        expect_same_bits(engine.trace(), per_product, what);
        const std::size_t floats = panel_floats(engine.weight_panels());
        EXPECT_EQ(floats > 0, active_isa() != Isa::Baseline) << what;
        // The session memory limit counts exactly what the engine packed.
        EXPECT_EQ(packed_weight_floats(s.config, !s.target.empty()), static_cast<double>(floats)) << what;
    };
    check("d_model 75, h 3");
    s.config.n_heads = 5;
    check("h 5");
    s.config.d_model = 530;
    s.config.n_heads = 2;
    check("d_model 530, h 2");
    s.target = "le chat";
    check("with a target");
    s.config.d_model = 40;
    s.config.n_heads = 4;
    Config other = s.config;
    other.seed = 7;
    engine.set_imported_weights(init_weights(other));
    check("imported weights");
    other.seed = 8;
    engine.set_imported_weights(init_weights(other));
    check("other imported weights of the same shape");
    s.target.clear();
    engine.clear_imported_weights();
    check("seeded again, no target");
}

TEST(AttentionRows, ScaledMaskedAndWeightsAreTheStepsDoneOneAfterAnother)
{
    // The engine scales, masks, copies and normalises each row of the scores in one pass (attention_row): the
    // trace must hold exactly scores · scale, that + M, and softmax_row of that, for every head, with a
    // causal mask, padding (two sentences of different lengths) and a row length that is not a multiple of 8.
    Session s;
    s.text = "the cat sat on the mat and then it sat on the other mat again\nhello world";
    s.config.d_model = 24;
    s.config.n_heads = 3;
    s.config.mask = MaskKind::Causal;
    s.config.temperature = 0.7f;
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    const Trace& t = engine.trace();
    const float scale = score_scale(s.config);
    const AttentionTrace& attn = t.layers[0].attn;
    for (int b = 0; b < t.batch_size(); ++b)
        for (int j = 0; j < s.config.n_heads; ++j)
        {
            const HeadTrace& head = attn.head(b, j);
            const Mat& mask = attn.mask[static_cast<size_t>(b)];
            const Mat scaled = (head.scores.array() * scale).matrix();
            const Mat masked = (scaled.array() + mask.array()).matrix();
            Mat weights = masked; // the same shape, so each row starts at the same alignment as the trace's
            for (Eigen::Index i = 0; i < weights.rows(); ++i)
                softmax_row(weights.data() + i * weights.cols(), weights.cols(), 1.0f / s.config.temperature,
                            weights.data() + i * weights.cols());
            EXPECT_TRUE(head.scaled == scaled) << "sentence " << b << ", head " << j;
            EXPECT_TRUE(head.masked == masked) << "sentence " << b << ", head " << j;
            EXPECT_TRUE(head.weights == weights) << "sentence " << b << ", head " << j;
        }
}
