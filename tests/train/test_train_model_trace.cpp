// A trained model's pass in the engine's Trace layout: which stages each architecture has, and that every
// matrix is what its stage's equation says (recomputed here from the named parameters), so the panels that
// read a Trace show a trained model truthfully.
#include "core/comparisons.h"
#include "core/train/model_trace.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace attnlab;
using namespace attnlab::train;

namespace
{

ModelConfig small(NormPlacement norm, bool attention_only)
{
    ModelConfig c;
    c.vocab_size = 5;
    c.T_max = 8;
    c.d_model = 12;
    c.n_heads = 3;
    c.n_layers = 2;
    c.norm = norm;
    c.attention_only = attention_only;
    c.seed = 7;
    c.embedding_std = 0.5f; // big enough that the attention is not uniform
    return c;
}

Batch probe(int T, int V)
{
    Batch batch;
    batch.resize(1, T);
    for (int t = 0; t < T; ++t)
    {
        batch.tokens[static_cast<size_t>(t)] = (t * 3 + 1) % V;
        batch.targets[static_cast<size_t>(t)] = ((t + 1) * 3 + 1) % V;
        batch.loss_mask[static_cast<size_t>(t)] = t + 1 < T ? 1 : 0;
    }
    return batch;
}

const std::vector<std::string> kVocab = {"a", "b", "c", "d", "e"};

struct ProbeRun
{
    ModelConfig config;
    Params params;
    Batch batch;
    Activations acts;
    ActGrads act_grads;
    Params grads;
    Trace trace;

    ProbeRun(NormPlacement norm, bool attention_only, bool with_grads) : config(small(norm, attention_only))
    {
        init_params(config, params);
        batch = probe(6, config.vocab_size);
        size_activations(config, batch.B, batch.T, acts);
        forward(config, params, batch, acts);
        if (with_grads)
        {
            size_act_grads(config, batch.B, batch.T, act_grads);
            size_params(config, grads);
            backward(config, params, batch, acts, act_grads, grads);
        }
        fill_trace(config, params, batch, acts, with_grads ? &act_grads : nullptr, kVocab, trace);
    }
};

float max_diff(const Mat& a, const Mat& b)
{
    EXPECT_EQ(a.rows(), b.rows());
    EXPECT_EQ(a.cols(), b.cols());
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return 1e9f;
    return (a - b).cwiseAbs().maxCoeff();
}

Mat layer_norm(const Mat& x, const Mat& gamma, const Mat& beta)
{
    Mat y(x.rows(), x.cols());
    for (Eigen::Index r = 0; r < x.rows(); ++r)
    {
        const float mean = x.row(r).mean();
        const float var = (x.row(r).array() - mean).square().mean();
        y.row(r) = ((x.row(r).array() - mean) / std::sqrt(var + 1e-5f)).matrix().cwiseProduct(gamma) + beta;
    }
    return y;
}

} // namespace

TEST(ModelTrace, EachArchitectureHasItsStagesAndNoOthers)
{
    struct Case
    {
        NormPlacement norm;
        bool attention_only, grads;
    };
    for (const Case k : {Case{NormPlacement::Pre, false, true}, Case{NormPlacement::Pre, true, false},
                         Case{NormPlacement::Post, false, false}, Case{NormPlacement::Post, true, true}})
    {
        const ProbeRun run(k.norm, k.attention_only, k.grads);
        const Trace& t = run.trace;
        const bool pre = k.norm == NormPlacement::Pre, ffn = !k.attention_only;
        const std::string what = std::string(pre ? "pre" : "post") + (ffn ? "" : " attention-only");
        EXPECT_TRUE(t.trained);
        EXPECT_EQ(t.pre_ln, pre);
        for (int l = 0; l < 2; ++l)
        {
            EXPECT_EQ(stage_present(t, Stage::ln1, l), pre) << what;
            EXPECT_EQ(stage_present(t, Stage::ln2, l), pre && ffn) << what;
            EXPECT_EQ(stage_present(t, Stage::norm1, l), !pre) << what;
            EXPECT_EQ(stage_present(t, Stage::norm2, l), !pre && ffn) << what;
            EXPECT_EQ(stage_present(t, Stage::ffn, l), ffn) << what;
            EXPECT_EQ(stage_present(t, Stage::ffn_hidden, l), ffn) << what;
            EXPECT_EQ(stage_present(t, Stage::residual2, l), ffn) << what;
            EXPECT_EQ(stage_present(t, Stage::dweights, l), k.grads) << what;
            for (Stage s :
                 {Stage::X, Stage::Q, Stage::K, Stage::V, Stage::scores, Stage::scaled, Stage::masked,
                  Stage::weights, Stage::head_out, Stage::concat, Stage::mha, Stage::residual})
                EXPECT_TRUE(stage_present(t, s, l)) << what << " " << stage_info(s).key;
        }
        EXPECT_FALSE(stage_present(t, Stage::X, 2)) << "there is no layer 3";
        EXPECT_EQ(stage_present(t, Stage::lnf), pre) << what;
        for (Stage s : {Stage::embed, Stage::embed_norm, Stage::mlm_pre, Stage::mlm_hidden, Stage::mlm_norm})
            EXPECT_FALSE(stage_present(t, s)) << what << " " << stage_info(s).key << ": a pretrained model's";
        for (Stage s : {Stage::embedding, Stage::positional, Stage::logits, Stage::probs, Stage::loss})
            EXPECT_TRUE(stage_present(t, s)) << what << " " << stage_info(s).key;
        EXPECT_EQ(stage_shape(t, Stage::probs), "T×V = 6×5");
        EXPECT_EQ(stage_shape(t, Stage::loss), "T×1 = 6×1");
        EXPECT_STREQ(stage_equation(t, Stage::Q, false), pre ? "Q_h = LN1(X) W_h^Q" : "Q_h = X W_h^Q");
        EXPECT_STREQ(stage_equation(t, Stage::mha, false),
                     pre ? "MultiHead(LN1(X)) = Concat(head_1, …, head_h) W^O"
                         : "MultiHead(X) = Concat(head_1, …, head_h) W^O");
        EXPECT_STREQ(stage_equation(t, Stage::logits, false), stage_info(Stage::logits).equation);
    }
}

TEST(ModelTrace, EveryStageIsItsEquationOfTheParameters)
{
    for (NormPlacement norm : {NormPlacement::Pre, NormPlacement::Post})
    {
        const ProbeRun run(norm, false, true);
        const Trace& t = run.trace;
        const Params& p = run.params;
        const int T = 6, h = 3, d_k = 4;
        ModelWeights w;
        to_model_weights(run.config, p, w);
        EXPECT_EQ(t.tokens.tokens[0][0], "b"); // token id 1
        // X_0 = E[tokens] + P[0..T): the embedding stage is E's rows, one per token.
        for (int i = 0; i < T; ++i)
            EXPECT_EQ(max_diff(t.embedding[0].row(i), p.E.row(run.batch.tokens[static_cast<size_t>(i)])),
                      0.0f);
        EXPECT_LT(max_diff(t.embedding[0] + t.positional, t.layers[0].X[0]), 1e-6f);
        for (int l = 0; l < 2; ++l)
        {
            const LayerTrace& lt = t.layers[static_cast<size_t>(l)];
            const LayerParamsT<float>& lp = p.layers[static_cast<size_t>(l)];
            const Mat in =
                norm == NormPlacement::Pre ? layer_norm(lt.X[0], lp.ln1_gamma, lp.ln1_beta) : lt.X[0];
            if (norm == NormPlacement::Pre)
            {
                EXPECT_LT(max_diff(lt.ln1[0], in), 1e-5f);
            }
            for (int j = 0; j < h; ++j)
            {
                const HeadTrace& hd = lt.attn.head(0, j);
                EXPECT_LT(
                    max_diff(hd.Q, in * w.layers[static_cast<size_t>(l)].attn.W_Q[static_cast<size_t>(j)]),
                    1e-5f);
                EXPECT_LT(max_diff(hd.scaled, hd.scores / std::sqrt(float(d_k))), 1e-6f);
                for (int i = 0; i < T; ++i)
                {
                    EXPECT_NEAR(hd.weights.row(i).sum(), 1.0f, 1e-5f);
                    for (int k = i + 1; k < T; ++k)
                    {
                        EXPECT_EQ(hd.weights(i, k), 0.0f) << "causal: masked weights are exactly 0";
                        EXPECT_TRUE(std::isinf(hd.masked(i, k)) && hd.masked(i, k) < 0);
                    }
                }
                EXPECT_LT(max_diff(hd.head_out, hd.weights * hd.V), 1e-5f);
                EXPECT_EQ(hd.dweights.rows(), T);
            }
            EXPECT_LT(max_diff(lt.attn.mha[0], lt.attn.concat[0] * lp.W_O), 1e-5f);
            EXPECT_LT(max_diff(lt.residual[0], lt.X[0] + lt.attn.mha[0]), 1e-5f);
            // ffn_hidden = max(0, f W_1 + b_1), f = LN2(residual) pre-LN, norm1 post-LN
            const Mat f = norm == NormPlacement::Pre ? lt.ln2[0] : lt.norm1[0];
            Mat hidden = f * lp.W_1;
            hidden.rowwise() += lp.b_1.row(0);
            EXPECT_LT(max_diff(lt.ffn_hidden[0], hidden.cwiseMax(0.0f)), 1e-5f);
        }
        const Mat Z = norm == NormPlacement::Pre ? t.lnf[0] : t.layers[1].norm2[0];
        Mat logits = Z * p.W_U;
        logits.rowwise() += p.b_U.row(0);
        EXPECT_LT(max_diff(t.logits[0], logits), 1e-4f);
        for (int i = 0; i < T; ++i)
        {
            EXPECT_NEAR(t.probs[0].row(i).sum(), 1.0f, 1e-5f);
            const int target = run.batch.targets[static_cast<size_t>(i)];
            const float expected = i + 1 < T ? -std::log(t.probs[0](i, target)) : 0.0f;
            EXPECT_NEAR(t.loss[0](i, 0), expected, 1e-4f) << "position " << i;
        }

        // The comparisons read a trained trace like a seeded one: one packed matmul is the h heads.
        Comparisons cmp;
        compute_comparisons(t, w, 1, 0, 2, cmp);
        EXPECT_LT(cmp.packed_max_diff, 1e-5f);
        EXPECT_LT(cmp.two_step_max_diff, 1e-4f);
    }
}

TEST(ModelTrace, AGradientPassFillsDWeightsWithTheLossGradient)
{
    ProbeRun run(NormPlacement::Pre, true, true);
    // ∂L/∂A_h from backward, checked against a finite difference on one weight of layer 1, head 2.
    const int l = 1, j = 2, row = 4, col = 1;
    const float g = run.trace.layers[l].attn.head(0, j).dweights(row, col);
    auto loss_with = [&](float delta)
    {
        WeightNudge<float> nudge{l, 0, j, row, col, delta};
        Activations a;
        size_activations(run.config, 1, 6, a);
        return forward(run.config, run.params, run.batch, a, &nudge);
    };
    const float eps = 1e-2f;
    EXPECT_NEAR(g, (loss_with(eps) - loss_with(-eps)) / (2 * eps), 2e-3f);
    EXPECT_NE(g, 0.0f);
}
