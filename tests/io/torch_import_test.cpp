// PyTorch state dicts: the transpose at the import boundary, checked against PyTorch's own outputs.
#include "core/engine.h"
#include "core/io/atomic_file.h"
#include "core/io/json_io.h"
#include "core/softmax.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>

namespace attnlab
{
namespace
{

using json = nlohmann::json;

// The golden files are made by tests/data/make_torch_fixtures.py (needs python3-torch; the test does not).
struct Fixture
{
    json doc;
    std::string text;
    Config config;
};

Fixture load_fixture(const char* name)
{
    Fixture f;
    const std::string path = std::string(ATTNLAB_SOURCE_DIR) + "/tests/data/" + name;
    EXPECT_TRUE(read_file(path, &f.text).is_ok()) << path;
    f.doc = json::parse(f.text);
    f.config.d_model = f.doc["d_model"].get<int>();
    f.config.n_heads = f.doc["heads"].get<int>();
    if (f.doc.contains("d_ff"))
        f.config.d_ff = f.doc["d_ff"].get<int>();
    if (f.doc.contains("layers"))
        f.config.n_layers = f.doc["layers"].get<int>();
    return f;
}

Mat to_mat(const json& rows)
{
    Mat m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows[0].size()));
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            m(r, c) = rows[static_cast<size_t>(r)][static_cast<size_t>(c)].get<float>();
    return m;
}

float max_diff(const Mat& a, const Mat& b)
{
    EXPECT_EQ(a.rows(), b.rows());
    EXPECT_EQ(a.cols(), b.cols());
    return (a - b).cwiseAbs().maxCoeff();
}

// The engine's attention block (attention_forward) on a given X, one sentence, no mask.
AttentionTrace attention_of(const Mat& X, const AttentionWeights& w, const Config& c)
{
    AttentionTrace attn;
    attn.n_heads = c.n_heads;
    attn.heads.resize(static_cast<size_t>(c.n_heads));
    attn.mask.assign(1, Mat::Zero(X.rows(), X.rows()));
    attn.concat.resize(1);
    attn.mha.resize(1);
    attention_forward(X, X, w, score_scale(c), 1.0f, 0, attn);
    return attn;
}

// The rest of a post-LN encoder layer after attention, from the engine's building blocks.
Mat encoder_layer(const Mat& X, const LayerWeights& w, const Config& c)
{
    const AttentionTrace attn = attention_of(X, w.attn, c);
    Mat norm1, norm2;
    layer_norm_rows(X + attn.mha[0], w.gamma_1, w.beta_1, norm1);
    Mat hidden = ((norm1 * w.W_1).rowwise() + w.b_1).cwiseMax(0.0f);
    Mat ffn = (hidden * w.W_2).rowwise() + w.b_2;
    layer_norm_rows(norm1 + ffn, w.gamma_2, w.beta_2, norm2);
    return norm2;
}

TEST(TorchImport, MultiheadAttentionInProjIsTransposedPerHead)
{
    const Fixture f = load_fixture("torch_mha.json");
    ModelWeights w;
    const Status s = parse_torch_weights_json(f.text, "torch_mha.json", f.config, &w);
    ASSERT_TRUE(s.is_ok()) << s.message();
    const Mat in_proj = to_mat(f.doc["state_dict"]["in_proj_weight"]); // (3E, E) = [W_q; W_k; W_v]
    const Mat out_proj = to_mat(f.doc["state_dict"]["out_proj.weight"]);
    const int E = 8, d_k = 4;
    const AttentionWeights& a = w.layers[0].attn;
    for (int j = 0; j < 2; ++j)
        for (int r = 0; r < E; ++r)
            for (int c = 0; c < d_k; ++c)
            {
                EXPECT_EQ(a.W_Q[size_t(j)](r, c), in_proj(j * d_k + c, r));
                EXPECT_EQ(a.W_K[size_t(j)](r, c), in_proj(E + j * d_k + c, r));
                EXPECT_EQ(a.W_V[size_t(j)](r, c), in_proj(2 * E + j * d_k + c, r));
            }
    EXPECT_EQ(a.W_O, Mat(out_proj.transpose()));
    // The rest of the model keeps its seeded weights.
    EXPECT_EQ(w.layers[0].W_1, init_weights(f.config).layers[0].W_1);
}

TEST(TorchImport, MultiheadAttentionMatchesPyTorch)
{
    const Fixture f = load_fixture("torch_mha.json");
    ModelWeights w;
    ASSERT_TRUE(parse_torch_weights_json(f.text, "torch_mha.json", f.config, &w).is_ok());
    const Mat X = to_mat(f.doc["X"]);
    const AttentionTrace attn = attention_of(X, w.layers[0].attn, f.config);
    float worst = 0;
    for (int j = 0; j < 2; ++j)
        worst = std::max(worst, max_diff(attn.head(0, j).weights, to_mat(f.doc["weights"][size_t(j)])));
    const float mha_diff = max_diff(attn.mha[0], to_mat(f.doc["mha"]));
    std::printf("nn.MultiheadAttention: max |weights - torch| = %.3g, max |mha - torch| = %.3g\n", worst,
                mha_diff);
    EXPECT_LT(worst, 1e-5f);
    EXPECT_LT(mha_diff, 1e-5f);
}

TEST(TorchImport, EncoderLayerMatchesPyTorch)
{
    const Fixture f = load_fixture("torch_encoder_layer.json");
    ModelWeights w;
    const Status s = load_torch_weights_file(
        std::string(ATTNLAB_SOURCE_DIR) + "/tests/data/torch_encoder_layer.json", f.config, &w);
    ASSERT_TRUE(s.is_ok()) << s.message();
    const LayerWeights& l = w.layers[0];
    EXPECT_EQ(l.W_1, Mat(to_mat(f.doc["state_dict"]["linear1.weight"]).transpose()));
    EXPECT_EQ(l.W_2, Mat(to_mat(f.doc["state_dict"]["linear2.weight"]).transpose()));
    const Mat X = to_mat(f.doc["X"]);
    const AttentionTrace attn = attention_of(X, l.attn, f.config);
    const float weights_diff = max_diff(attn.head(0, 1).weights, to_mat(f.doc["weights"][1]));
    const float mha_diff = max_diff(attn.mha[0], to_mat(f.doc["mha"]));
    const float out_diff = max_diff(encoder_layer(X, l, f.config), to_mat(f.doc["norm2"]));
    std::printf("nn.TransformerEncoderLayer: max diff weights %.3g, self_attn %.3g, layer output %.3g\n",
                weights_diff, mha_diff, out_diff);
    EXPECT_LT(weights_diff, 1e-5f);
    EXPECT_LT(mha_diff, 1e-5f);
    EXPECT_LT(out_diff, 1e-5f);
}

TEST(TorchImport, TwoLayerEncoderMatchesPyTorchAndTheEngine)
{
    const Fixture f = load_fixture("torch_encoder_2_layers.json");
    ModelWeights w;
    const std::string path = std::string(ATTNLAB_SOURCE_DIR) + "/tests/data/torch_encoder_2_layers.json";
    const Status s = load_any_weights_file(path, f.config, &w);
    ASSERT_TRUE(s.is_ok()) << s.message();
    const Mat X = to_mat(f.doc["X"]);
    const Mat y = encoder_layer(encoder_layer(X, w.layers[0], f.config), w.layers[1], f.config);
    const float diff = max_diff(y, to_mat(f.doc["norm2"]));
    std::printf("nn.TransformerEncoder (2 layers): max |output - torch| = %.3g\n", diff);
    EXPECT_LT(diff, 1e-5f);

    // The reference above is the engine's own forward pass: same layers, same numbers on the engine's X.
    Session session;
    session.text = "the torch weights inside the engine";
    session.config = f.config;
    Engine engine;
    engine.set_imported_weights(w);
    ASSERT_TRUE(engine.run(session).is_ok());
    const Trace& trace = engine.trace();
    const Mat expected =
        encoder_layer(encoder_layer(trace.layers[0].X[0], w.layers[0], f.config), w.layers[1], f.config);
    EXPECT_LT(max_diff(trace.layers[1].norm2[0], expected), 1e-5f);
}

TEST(TorchImport, BadStateDicts)
{
    const Fixture f = load_fixture("torch_encoder_layer.json");
    ModelWeights out;
    auto error = [&](const json& doc, const Config& c)
    {
        const Status s = parse_torch_weights_json(doc.dump(), "sd.json", c, &out);
        EXPECT_FALSE(s.is_ok());
        return s.message();
    };
    json bias = f.doc;
    bias["state_dict"]["self_attn.in_proj_bias"][3] = 0.25;
    EXPECT_NE(error(bias, f.config).find("\"self_attn.in_proj_bias\" is not zero"), std::string::npos);

    Config wide = f.config;
    wide.d_model = 16;
    wide.d_ff = 16;
    const std::string m = error(f.doc, wide);
    EXPECT_NE(m.find("\"self_attn.in_proj_weight\" should be 3·d_model x d_model = 48x16, got 24x8"),
              std::string::npos)
        << m;

    Config d_k = f.config;
    d_k.d_k = 2;
    EXPECT_NE(error(f.doc, d_k).find("d_k = d_v = d_model / h"), std::string::npos);

    json missing = f.doc;
    missing["state_dict"].erase("linear1.weight");
    EXPECT_NE(error(missing, f.config).find("\"linear1.weight\" is missing"), std::string::npos);

    Config two = f.config;
    two.n_layers = 2;
    EXPECT_NE(error(f.doc, two).find("one encoder layer but the session has N = 2"), std::string::npos);

    EXPECT_NE(error(json{{"state_dict", {{"weight", {1, 2}}}}}, f.config).find("not an attention state dict"),
              std::string::npos);
}

} // namespace
} // namespace attnlab
