// The tiny Hugging Face GPT-2 and BERT opened and run: every intermediate the pretrained architectures add
// reaches the Trace as a stage with the equation of what was computed, the readouts (top tokens, [MASK]
// fillers, logit lens) agree with the model's own output, and switching heads off leaves exactly the
// residual path and the FFN.
#include "core/io/hf_model.h"
#include "core/io/json_io.h"
#include "core/train/readouts.h"
#include "hf_golden.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace attnlab
{
namespace
{

using test::GoldenMat;
using test::hf_tiny_dir;
using test::HfGolden;
using test::load_hf_golden;

struct Opened
{
    HfLoadedModel model;
    HfGolden golden;
};

const Opened& opened(const std::string& name)
{
    static const auto open = [](const std::string& n)
    {
        Opened o;
        const Status s = load_hf_model((hf_tiny_dir() / n).string(), &o.model);
        EXPECT_TRUE(s) << n << ": " << s.message();
        o.golden = load_hf_golden(hf_tiny_dir() / (n + "_golden.json"));
        return o;
    };
    static const Opened gpt2 = open("gpt2");
    static const Opened bert = open("bert");
    return name == "gpt2" ? gpt2 : bert;
}

HfRun run_ids(const HfLoadedModel& model, const std::vector<int>& ids, const train::HeadMask* off = nullptr)
{
    HfRun run;
    const Status s = run_hf_ids(model, ids, &run, off);
    EXPECT_TRUE(s) << s.message();
    return run;
}

// The largest |a - b| over the largest |b|.
double relative_error(const Mat& a, const GoldenMat& b)
{
    EXPECT_EQ(a.rows(), b.rows());
    EXPECT_EQ(a.cols(), b.cols());
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return INFINITY;
    return (a.cast<double>() - b).cwiseAbs().maxCoeff() / std::max(1e-300, b.cwiseAbs().maxCoeff());
}

bool contains(const char* text, const char* part)
{
    return std::string(text).find(part) != std::string::npos;
}

} // namespace

// [SECTION] Stages and their equations

TEST(HfStages, Gpt2HasItsStagesWithBiasesTanhGeluAndTiedLogits)
{
    const Opened& o = opened("gpt2");
    const HfRun run = run_ids(o.model, o.golden.token_ids);
    Trace t;
    fill_hf_trace(o.model, run, &t);
    for (int l = 0; l < 2; ++l)
    {
        EXPECT_TRUE(stage_present(t, Stage::ffn_hidden, l));
        EXPECT_LT(relative_error(*find_stage_matrix(t, Stage::ffn_hidden, l, 0, 0),
                                 o.golden.layer(l, "ffn_hidden")),
                  1e-5);
    }
    for (const Stage s :
         {Stage::embed, Stage::embed_norm, Stage::mlm_pre, Stage::mlm_hidden, Stage::mlm_norm})
        EXPECT_FALSE(stage_present(t, s)) << stage_info(s).key << ": BERT's only";
    for (const Stage s : {Stage::lnf, Stage::logits, Stage::probs, Stage::loss})
        EXPECT_TRUE(stage_present(t, s)) << stage_info(s).key;
    EXPECT_EQ(stage_shape(t, Stage::ffn_hidden), "T×d_ff = 7×128");
    EXPECT_STREQ(stage_equation(t, Stage::Q, false), "Q_h = LN1(X) W_h^Q + b_h^Q");
    EXPECT_STREQ(stage_equation(t, Stage::K, false), "K_h = LN1(X) W_h^K + b_h^K");
    EXPECT_STREQ(stage_equation(t, Stage::V, false), "V_h = LN1(X) W_h^V + b_h^V");
    EXPECT_STREQ(stage_equation(t, Stage::mha, false),
                 "MultiHead(LN1(X)) = Concat(head_1, …, head_h) W^O + b^O");
    EXPECT_TRUE(contains(stage_equation(t, Stage::ffn_hidden, false), "GELU(LN2(residual) W_1 + b_1), tanh"));
    EXPECT_TRUE(contains(stage_equation(t, Stage::ffn, false), "GELU"));
    EXPECT_FALSE(contains(stage_equation(t, Stage::ffn, false), "max(0"));
    EXPECT_TRUE(contains(stage_equation(t, Stage::logits, false), "logits = Z Eᵀ:")) << "tied, no bias";
    EXPECT_TRUE(contains(stage_cell_formula(t, Stage::logits), "Z_i · E[v, :]:"));
    EXPECT_TRUE(contains(stage_equation(t, Stage::probs, false), "next token"));
    EXPECT_TRUE(contains(stage_equation(t, Stage::residual, false), "LN1")) << "pre-LN as before";
}

TEST(HfStages, BertHasItsEmbeddingLayerNormMaskedLmHeadAndErfGelu)
{
    const Opened& o = opened("bert");
    const HfRun run = run_ids(o.model, o.golden.token_ids);
    Trace t;
    fill_hf_trace(o.model, run, &t);
    struct Named
    {
        Stage stage;
        const char* golden;
    };
    for (const Named n : {Named{Stage::embed, "embed"}, Named{Stage::embed_norm, "embed_norm"},
                          Named{Stage::mlm_pre, "mlm_pre"}, Named{Stage::mlm_hidden, "mlm_hidden"},
                          Named{Stage::mlm_norm, "mlm_norm"}})
    {
        const Mat* m = find_stage_matrix(t, n.stage, 0, 0, 0);
        ASSERT_NE(m, nullptr) << n.golden;
        EXPECT_LT(relative_error(*m, o.golden.at(n.golden)), 1e-5) << n.golden;
    }
    EXPECT_EQ(t.embed_norm[0], t.layers[0].X[0]) << "the embedding LayerNorm is layer 1's X";
    for (int l = 0; l < 2; ++l)
        EXPECT_LT(relative_error(*find_stage_matrix(t, Stage::ffn_hidden, l, 0, 0),
                                 o.golden.layer(l, "ffn_hidden")),
                  1e-5);
    EXPECT_FALSE(stage_present(t, Stage::lnf)) << "post-LN: no final LayerNorm";
    EXPECT_FALSE(stage_present(t, Stage::loss)) << "a masked-LM run has no targets";
    EXPECT_FALSE(stage_present(t, Stage::ln1));
    EXPECT_TRUE(stage_present(t, Stage::norm1));
    EXPECT_STREQ(stage_equation(t, Stage::Q, false), "Q_h = X W_h^Q + b_h^Q");
    EXPECT_STREQ(stage_equation(t, Stage::mha, false), "MultiHead(X) = Concat(head_1, …, head_h) W^O + b^O");
    EXPECT_TRUE(contains(stage_equation(t, Stage::ffn_hidden, false), "GELU(norm1 W_1 + b_1), erf form"));
    EXPECT_TRUE(contains(stage_equation(t, Stage::mlm_hidden, false), "erf"));
    EXPECT_TRUE(contains(stage_equation(t, Stage::embed, false), "T_type[0]"));
    EXPECT_TRUE(contains(stage_equation(t, Stage::X, false), "LN_emb"));
    EXPECT_TRUE(contains(stage_equation(t, Stage::logits, false), "logits = Z Eᵀ + b:")) << "tied, with bias";
    EXPECT_TRUE(contains(stage_equation(t, Stage::probs, false), "[MASK]"));
    EXPECT_STREQ(stage_equation(t, Stage::norm1, false), "LayerNorm(X + MultiHead(X))")
        << "post-LN as before";
    EXPECT_FLOAT_EQ(t.layer_norm_eps, 1e-12f);
}

// [SECTION] Readouts

// take_hf_trace (the window's) moves the activations into the trace instead of copying them: the same trace
// as fill_hf_trace's, stage by stage, head by head, and the pass is left empty.
TEST(HfStages, TakingTheTraceGivesTheCopiedTraceAndEmptiesThePass)
{
    for (const char* name : {"gpt2", "bert"})
    {
        const Opened& o = opened(name);
        HfRun run = run_ids(o.model, o.golden.token_ids);
        Trace copied, taken;
        fill_hf_trace(o.model, run, &copied);
        take_hf_trace(o.model, run, &taken);
        EXPECT_TRUE(run.acts.layers.empty()) << name;
        EXPECT_EQ(run.acts.logits.size(), 0) << name;
        EXPECT_EQ(trace_float_count(taken), trace_float_count(copied)) << name;
        int compared = 0;
        for (const StageInfo& info : stage_table())
            for (int l = 0; l < static_cast<int>(copied.layers.size()); ++l)
                for (int j = 0; j < copied.layers.front().attn.n_heads; ++j)
                {
                    const Mat* a = find_stage_matrix(copied, info.id, l, 0, j);
                    const Mat* b = find_stage_matrix(taken, info.id, l, 0, j);
                    ASSERT_EQ(a == nullptr, b == nullptr) << name << " " << info.key;
                    if (a == nullptr)
                        continue;
                    ASSERT_EQ(a->rows(), b->rows()) << name << " " << info.key;
                    ASSERT_EQ(a->cols(), b->cols()) << name << " " << info.key;
                    EXPECT_TRUE(*a == *b) << name << " " << info.key << " layer " << l << " head " << j;
                    ++compared;
                }
        EXPECT_GT(compared, 100) << name;
    }
}

TEST(HfReadouts, Gpt2TopNextTokensAndLogitLensEndAtTheModelsPrediction)
{
    const Opened& o = opened("gpt2");
    const HfRun run = run_ids(o.model, o.golden.token_ids);
    const int T = o.golden.T();
    const std::vector<train::PositionTop> next = train::next_token_top_k(run.acts, 0, 5);
    ASSERT_EQ(next.size(), static_cast<std::size_t>(T));
    const train::LogitLens lens = train::logit_lens(o.model.config, *o.model.params, run.acts, 0);
    ASSERT_EQ(lens.top.size(), 3u);
    for (int t = 0; t < T; ++t)
    {
        Eigen::Index argmax = 0;
        const float p_max = run.acts.probs.row(t).maxCoeff(&argmax);
        const std::vector<train::TokenProb>& top = next[static_cast<std::size_t>(t)].top;
        ASSERT_EQ(top.size(), 5u);
        EXPECT_EQ(top[0].id, argmax);
        for (std::size_t i = 1; i < top.size(); ++i)
            EXPECT_GE(top[i - 1].p, top[i].p);
        EXPECT_EQ(lens.at(2, t).id, argmax) << "t " << t;
        EXPECT_NEAR(lens.at(2, t).p, p_max, 1e-6f);
        // The golden's own top token (PyTorch, float64).
        Eigen::Index golden_argmax = 0;
        o.golden.at("probs").row(t).maxCoeff(&golden_argmax);
        EXPECT_EQ(argmax, golden_argmax) << "t " << t;
    }
}

TEST(HfReadouts, BertFillsTheMaskAndItsLensEndsAtTheMaskedLmHead)
{
    const Opened& o = opened("bert");
    const HfRun run = run_ids(o.model, o.golden.token_ids);
    ASSERT_GE(o.model.mask_id, 0);
    const std::vector<train::PositionTop> fills =
        train::mask_fill_top_k(run.batch, run.acts, 0, o.model.mask_id, 5);
    ASSERT_EQ(fills.size(), 1u) << "\"The cat [MASK] playing.\"";
    EXPECT_EQ(fills[0].position, 3); // [CLS] the cat [MASK]
    Eigen::Index argmax = 0;
    run.acts.probs.row(3).maxCoeff(&argmax);
    EXPECT_EQ(fills[0].top[0].id, argmax);
    Eigen::Index golden_argmax = 0;
    o.golden.at("probs").row(3).maxCoeff(&golden_argmax);
    EXPECT_EQ(argmax, golden_argmax);
    const train::LogitLens lens = train::logit_lens(o.model.config, *o.model.params, run.acts, 0);
    for (int t = 0; t < o.golden.T(); ++t)
    {
        run.acts.probs.row(t).maxCoeff(&argmax);
        EXPECT_EQ(lens.at(2, t).id, argmax) << "t " << t;
        EXPECT_NEAR(lens.at(2, t).p, run.acts.probs.row(t).maxCoeff(), 1e-6f);
    }
}

// [SECTION] Head ablation

TEST(HfHeadAblation, EveryHeadOffLeavesTheResidualPathAndTheFfn)
{
    for (const char* name : {"gpt2", "bert"})
    {
        const Opened& o = opened(name);
        const train::ModelConfig& c = o.model.config;
        const train::Params& p = *o.model.params;
        const train::HeadMask all_off(static_cast<std::size_t>(c.n_layers * c.n_heads), 1);
        const HfRun run = run_ids(o.model, o.golden.token_ids, &all_off);
        const bool pre = c.norm == train::NormPlacement::Pre;
        for (int l = 0; l < c.n_layers; ++l)
        {
            const train::LayerActsT<float>& a = run.acts.layers[static_cast<std::size_t>(l)];
            const train::LayerParamsT<float>& w = p.layers[static_cast<std::size_t>(l)];
            const std::string what = std::string(name) + " layer " + std::to_string(l);
            EXPECT_EQ(a.concat.cwiseAbs().maxCoeff(), 0.0f) << what;
            // The attention sub-layer adds b_O alone: residual = X + b_O, row by row.
            const Mat expected = a.X.rowwise() + w.b_O.row(0);
            EXPECT_EQ((a.residual - expected).cwiseAbs().maxCoeff(), 0.0f) << what;
            // The rest of the layer by hand in double: the FFN (GPT-2: on LN2(residual), then added; BERT: on
            // LN1(residual), then LN2 of the sum).
            const auto ln = [&c](const Eigen::MatrixXd& x, const Mat& g, const Mat& b)
            {
                Eigen::MatrixXd y(x.rows(), x.cols());
                for (Eigen::Index r = 0; r < x.rows(); ++r)
                {
                    const double mean = x.row(r).mean();
                    const double var = (x.row(r).array() - mean).square().mean();
                    y.row(r) = ((x.row(r).array() - mean) / std::sqrt(var + c.layer_norm_eps) *
                                    g.row(0).cast<double>().array() +
                                b.row(0).cast<double>().array())
                                   .matrix();
                }
                return y;
            };
            const auto gelu = [pre](double x)
            {
                return pre ? 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
                           : 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
            };
            const Eigen::MatrixXd r = expected.cast<double>();
            const Eigen::MatrixXd f = pre ? ln(r, w.ln2_gamma, w.ln2_beta) : ln(r, w.ln1_gamma, w.ln1_beta);
            Eigen::MatrixXd hidden = (f * w.W_1.cast<double>()).rowwise() + w.b_1.row(0).cast<double>();
            hidden = hidden.unaryExpr(gelu);
            const Eigen::MatrixXd ffn =
                (hidden * w.W_2.cast<double>()).rowwise() + w.b_2.row(0).cast<double>();
            const Eigen::MatrixXd out = pre ? Eigen::MatrixXd(r + ffn) : ln(f + ffn, w.ln2_gamma, w.ln2_beta);
            const Mat& got = train::layer_output(c, a);
            const double err = (got.cast<double>() - out).cwiseAbs().maxCoeff() / out.cwiseAbs().maxCoeff();
            EXPECT_LT(err, 1e-5) << what;
        }
        // Nothing moves between positions any more: changing the first token leaves the last one's logits
        // exactly as they were.
        std::vector<int> other = o.golden.token_ids;
        other[0] = other[0] == 5 ? 6 : 5;
        const HfRun moved = run_ids(o.model, other, &all_off);
        const int last = o.golden.T() - 1;
        EXPECT_EQ(moved.acts.logits.row(last), run.acts.logits.row(last)) << name;
        EXPECT_NE(moved.acts.logits.row(0), run.acts.logits.row(0))
            << name << ": the first position did change";
    }
}

TEST(HfHeadAblation, OneHeadOffChangesLaterLayersButNotItsOwnWeights)
{
    for (const char* name : {"gpt2", "bert"})
    {
        const Opened& o = opened(name);
        const train::ModelConfig& c = o.model.config;
        const int h = c.n_heads, T = o.golden.T(), d_k = c.d_k(), j = 1;
        train::HeadMask off(static_cast<std::size_t>(c.n_layers * h), 0);
        off[static_cast<std::size_t>(j)] = 1; // layer 1, head 2
        const HfRun on = run_ids(o.model, o.golden.token_ids);
        const HfRun ablated = run_ids(o.model, o.golden.token_ids, &off);
        const train::LayerActsT<float>& a0 = on.acts.layers[0];
        const train::LayerActsT<float>& b0 = ablated.acts.layers[0];
        for (int k = 0; k < h; ++k) // every map of layer 1, the switched-off head's too, as before
            EXPECT_EQ(train::attention_block(b0.weights, 0, k, h, T),
                      train::attention_block(a0.weights, 0, k, h, T))
                << name << " head " << k;
        EXPECT_EQ(train::head_cols(b0.concat, j, d_k).cwiseAbs().maxCoeff(), 0.0f) << name;
        EXPECT_EQ(train::head_cols(b0.concat, 0, d_k), train::head_cols(a0.concat, 0, d_k)) << name;
        EXPECT_NE(b0.mha, a0.mha) << name;
        const train::LayerActsT<float>& a1 = on.acts.layers[1];
        const train::LayerActsT<float>& b1 = ablated.acts.layers[1];
        EXPECT_NE(b1.X, a1.X) << name;
        EXPECT_NE(b1.weights, a1.weights) << name << ": later maps see the change";
        EXPECT_NE(ablated.acts.logits, on.acts.logits) << name;
        // The trace shows it: the head's output is zero, its map is there.
        Trace t;
        fill_hf_trace(o.model, ablated, &t);
        EXPECT_EQ(t.layers[0].attn.head(0, j).head_out.cwiseAbs().maxCoeff(), 0.0f);
        EXPECT_EQ(t.layers[0].attn.head(0, j).weights, train::attention_block(a0.weights, 0, j, h, T));
    }
}

} // namespace attnlab
