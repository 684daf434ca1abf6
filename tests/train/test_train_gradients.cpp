// The training model's backward pass against central finite differences in double, and float against double.
#include "core/random.h"
#include "core/train/model.h"
#include "core/train/transformer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ostream>
#include <string>
#include <type_traits>

using namespace attnlab;
using namespace attnlab::train;

namespace
{

struct Case
{
    const char* name;
    NormPlacement norm;
    bool attention_only;
    PositionKind positions;
    bool causal;
    int d_model = 8; // d_k = d_model / 2: 4 runs the per-head loops with a run-time d_k, 8 with a fixed one
    bool residual = true;
};

// gtest prints the case by name instead of its bytes.
void PrintTo(const Case& k, std::ostream* os)
{
    *os << k.name;
}

ModelConfig small_config(const Case& k)
{
    ModelConfig c;
    c.vocab_size = 7;
    c.T_max = 6;
    c.d_model = k.d_model;
    c.n_heads = 2;
    c.n_layers = 2;
    c.d_ff = 12;
    c.norm = k.norm;
    c.attention_only = k.attention_only;
    c.positions = k.positions;
    c.causal = k.causal;
    c.residual = k.residual;
    c.seed = 3;
    return c;
}

// Seeded parameters far larger than the training init (std 0.02), so every non-linearity is exercised.
ParamsT<double> random_params(const ModelConfig& c, std::uint64_t seed)
{
    Params init;
    init_params(c, init);
    ParamsT<double> p = cast_params<double>(init);
    std::uint64_t key = seed * 1000003;
    for (NamedTensorT<double>& t : named_tensors(c, p))
    {
        const bool gain = t.name.find("gamma") != std::string::npos;
        for (Eigen::Index i = 0; i < t.value->size(); ++i)
            t.value->data()[i] = (gain ? 1.0 : 0.0) + 0.5 * normal01(key++);
    }
    return p;
}

Batch random_batch(const ModelConfig& c, int B, int T, std::uint64_t seed)
{
    Batch batch;
    batch.resize(B, T);
    for (int n = 0; n < B * T; ++n)
    {
        batch.tokens[static_cast<size_t>(n)] = static_cast<int>(mix64(seed + 3 * n) % c.vocab_size);
        batch.targets[static_cast<size_t>(n)] = static_cast<int>(mix64(seed + 3 * n + 1) % c.vocab_size);
        batch.loss_mask[static_cast<size_t>(n)] = mix64(seed + 3 * n + 2) % 3 != 0 || n == 0;
    }
    return batch;
}

double loss_of(const ModelConfig& c, const ParamsT<double>& p, const Batch& batch,
               const WeightNudge<double>* nudge = nullptr)
{
    ActivationsT<double> acts;
    size_activations(c, batch.B, batch.T, acts);
    return forward(c, p, batch, acts, nudge);
}

// |analytic − numeric| <= 1e-7 + 1e-5 |numeric|: double FD with h = 1e-5 is good to ~1e-10 here.
void expect_close(double analytic, double numeric, const std::string& what)
{
    EXPECT_NEAR(analytic, numeric, 1e-7 + 1e-5 * std::abs(numeric)) << what;
}

class Gradients : public ::testing::TestWithParam<Case>
{
};

TEST_P(Gradients, EveryParameterMatchesCentralDifferences)
{
    const ModelConfig c = small_config(GetParam());
    ParamsT<double> p = random_params(c, 11);
    const Batch batch = random_batch(c, 2, 5, 77);
    ActivationsT<double> acts;
    ActGradsT<double> ag;
    ParamsT<double> grads;
    size_activations(c, batch.B, batch.T, acts);
    size_act_grads(c, batch.B, batch.T, ag);
    size_params(c, grads);
    forward(c, p, batch, acts);
    backward(c, p, batch, acts, ag, grads);

    const double h = 1e-5;
    std::vector<NamedTensorT<double>> params = named_tensors(c, p), analytic = named_tensors(c, grads);
    ASSERT_EQ(params.size(), analytic.size());
    int checked = 0;
    for (size_t t = 0; t < params.size(); ++t)
    {
        MatT<double>& m = *params[t].value;
        double max_grad = 0;
        for (Eigen::Index i = 0; i < m.size(); ++i)
        {
            const double saved = m.data()[i];
            m.data()[i] = saved + h;
            const double up = loss_of(c, p, batch);
            m.data()[i] = saved - h;
            const double down = loss_of(c, p, batch);
            m.data()[i] = saved;
            const double numeric = (up - down) / (2 * h);
            expect_close(analytic[t].value->data()[i], numeric,
                         params[t].name + "[" + std::to_string(i) + "]");
            max_grad = std::max(max_grad, std::abs(numeric));
            ++checked;
        }
        EXPECT_GT(max_grad, 1e-6) << params[t].name << " gets no gradient";
    }
    EXPECT_EQ(checked, parameter_count(c));
}

TEST_P(Gradients, AttentionWeightsMatchCentralDifferences)
{
    const ModelConfig c = small_config(GetParam());
    const ParamsT<double> p = random_params(c, 12);
    const Batch batch = random_batch(c, 2, 5, 78);
    ActivationsT<double> acts;
    ActGradsT<double> ag;
    ParamsT<double> grads;
    size_activations(c, batch.B, batch.T, acts);
    size_act_grads(c, batch.B, batch.T, ag);
    size_params(c, grads);
    forward(c, p, batch, acts);
    backward(c, p, batch, acts, ag, grads);
    const double h = 1e-5;
    for (int l = 0; l < c.n_layers; ++l)
        for (int b = 0; b < batch.B; ++b)
            for (int j = 0; j < c.n_heads; ++j)
                for (int r = 0; r < batch.T; ++r)
                    for (int col = 0; col < batch.T; ++col)
                    {
                        WeightNudge<double> nudge{l, b, j, r, col, h};
                        const double up = loss_of(c, p, batch, &nudge);
                        nudge.delta = -h;
                        const double down = loss_of(c, p, batch, &nudge);
                        const double dA = attention_block(ag.layers[static_cast<size_t>(l)].dweights, b, j,
                                                          c.n_heads, batch.T)(r, col);
                        expect_close(dA, (up - down) / (2 * h),
                                     "dA layer " + std::to_string(l) + " b " + std::to_string(b) + " head " +
                                         std::to_string(j) + " (" + std::to_string(r) + ", " +
                                         std::to_string(col) + ")");
                    }
}

TEST_P(Gradients, FloatMatchesDouble)
{
    const ModelConfig c = small_config(GetParam());
    const ParamsT<double> pd = random_params(c, 13);
    ParamsT<float> pf = cast_params<float>(pd);
    const ParamsT<double> pd_rounded = cast_params<double>(pf); // the same numbers in both precisions
    const Batch batch = random_batch(c, 3, 6, 79);

    ActivationsT<double> ad;
    ActGradsT<double> agd;
    ParamsT<double> gd;
    size_activations(c, batch.B, batch.T, ad);
    size_act_grads(c, batch.B, batch.T, agd);
    size_params(c, gd);
    const double loss_d = forward(c, pd_rounded, batch, ad);
    backward(c, pd_rounded, batch, ad, agd, gd);

    ActivationsT<float> af;
    ActGradsT<float> agf;
    ParamsT<float> gf;
    size_activations(c, batch.B, batch.T, af);
    size_act_grads(c, batch.B, batch.T, agf);
    size_params(c, gf);
    const float loss_f = forward(c, pf, batch, af);
    backward(c, pf, batch, af, agf, gf);

    EXPECT_NEAR(loss_f, loss_d, 1e-5 * std::abs(loss_d));
    std::vector<NamedTensorT<double>> td = named_tensors(c, gd);
    std::vector<NamedTensorT<float>> tf = named_tensors(c, gf);
    for (size_t t = 0; t < tf.size(); ++t)
    {
        const double scale = std::max(1e-6, td[t].value->cwiseAbs().maxCoeff());
        const double diff = (tf[t].value->cast<double>() - *td[t].value).cwiseAbs().maxCoeff();
        EXPECT_LT(diff / scale, 1e-4) << tf[t].name;
    }
    for (int l = 0; l < c.n_layers; ++l)
    {
        const MatT<double>& d = agd.layers[static_cast<size_t>(l)].dweights;
        const double diff =
            (agf.layers[static_cast<size_t>(l)].dweights.cast<double>() - d).cwiseAbs().maxCoeff();
        EXPECT_LT(diff / d.cwiseAbs().maxCoeff(), 1e-4) << "dweights of layer " << l;
    }
}

TEST_P(Gradients, TrainingDetailGivesBitIdenticalGradients)
{
    // Detail::Training skips the masked keys and the display-only matrices; what it computes must be the
    // same bits as Detail::Full (same seed, same run), in float and in double.
    const ModelConfig c = small_config(GetParam());
    const ParamsT<double> pd = random_params(c, 17);
    const ParamsT<float> pf = cast_params<float>(pd);
    const Batch batch = random_batch(c, 3, 6, 83);
    const auto run = [&](const auto& params, Detail detail, auto& acts, auto& grads)
    {
        using S = typename std::decay_t<decltype(params.W_U)>::Scalar;
        ActGradsT<S> ag;
        size_activations(c, batch.B, batch.T, acts);
        size_act_grads(c, batch.B, batch.T, ag);
        size_params(c, grads);
        const S loss = forward(c, params, batch, acts, static_cast<const WeightNudge<S>*>(nullptr), detail);
        backward(c, params, batch, acts, ag, grads, detail);
        return loss;
    };
    ActivationsT<float> af_full, af_train;
    ParamsT<float> gf_full, gf_train;
    EXPECT_EQ(run(pf, Detail::Full, af_full, gf_full), run(pf, Detail::Training, af_train, gf_train));
    std::vector<NamedTensorT<float>> full = named_tensors(c, gf_full), train = named_tensors(c, gf_train);
    for (size_t t = 0; t < full.size(); ++t)
        EXPECT_EQ(0, std::memcmp(full[t].value->data(), train[t].value->data(),
                                 sizeof(float) * static_cast<size_t>(full[t].value->size())))
            << full[t].name;
    for (int l = 0; l < c.n_layers; ++l)
        EXPECT_EQ(af_full.layers[static_cast<size_t>(l)].weights,
                  af_train.layers[static_cast<size_t>(l)].weights);
    ActivationsT<double> ad_full, ad_train;
    ParamsT<double> gd_full, gd_train;
    EXPECT_EQ(run(pd, Detail::Full, ad_full, gd_full), run(pd, Detail::Training, ad_train, gd_train));
    std::vector<NamedTensorT<double>> dfull = named_tensors(c, gd_full), dtrain = named_tensors(c, gd_train);
    for (size_t t = 0; t < dfull.size(); ++t)
        EXPECT_EQ(*dfull[t].value, *dtrain[t].value) << dfull[t].name;
}

const Case kCases[] = {
    {"PreLN_FFN_Learned_Causal", NormPlacement::Pre, false, PositionKind::Learned, true},
    {"PostLN_FFN_Learned_Causal", NormPlacement::Post, false, PositionKind::Learned, true},
    {"PreLN_AttentionOnly_Sinusoidal_Causal", NormPlacement::Pre, true, PositionKind::Sinusoidal, true},
    {"PostLN_AttentionOnly_Learned_Causal", NormPlacement::Post, true, PositionKind::Learned, true},
    {"PreLN_FFN_Sinusoidal_NoMask", NormPlacement::Pre, false, PositionKind::Sinusoidal, false},
    {"PostLN_FFN_Sinusoidal_NoMask", NormPlacement::Post, false, PositionKind::Sinusoidal, false},
    {"PreLN_FFN_Learned_Causal_dk8", NormPlacement::Pre, false, PositionKind::Learned, true, 16},
    {"PostLN_AttentionOnly_Learned_NoMask_dk8", NormPlacement::Post, true, PositionKind::Learned, false, 16},
    // T = 6 with d_k = 12: keys in groups of 8 run past T into the zero padding; d_k 12 has its own loops
    {"PreLN_AttentionOnly_Learned_Causal_dk12", NormPlacement::Pre, true, PositionKind::Learned, true, 24},
    {"PreLN_FFN_Learned_NoMask_dk12", NormPlacement::Pre, false, PositionKind::Learned, false, 24},
    // d_model 12: rows that are not a whole number of 8-float groups (LayerNorm's and the products' tails)
    {"PreLN_FFN_Learned_Causal_d12", NormPlacement::Pre, false, PositionKind::Learned, true, 12},
    // The switches: no residual connection (each sub-layer replaces its input), no positional encoding
    {"PreLN_FFN_Learned_Causal_NoResidual", NormPlacement::Pre, false, PositionKind::Learned, true, 8, false},
    {"PostLN_FFN_Learned_Causal_NoResidual", NormPlacement::Post, false, PositionKind::Learned, true, 8,
     false},
    {"PreLN_AttentionOnly_Learned_Causal_NoResidual", NormPlacement::Pre, true, PositionKind::Learned, true,
     8, false},
    {"PostLN_AttentionOnly_Sinusoidal_NoMask_NoResidual", NormPlacement::Post, true, PositionKind::Sinusoidal,
     false, 8, false},
    {"PreLN_FFN_NoPositions_Causal", NormPlacement::Pre, false, PositionKind::None, true},
    {"PostLN_FFN_NoPositions_NoMask_NoResidual", NormPlacement::Post, false, PositionKind::None, false, 8,
     false},
};

INSTANTIATE_TEST_SUITE_P(Train, Gradients, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& param)
                         { return std::string(param.param.name); });

} // namespace
