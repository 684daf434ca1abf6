// Golden data from PyTorch (tests/data/make_golden_encoder.py): a 2-layer post-LN encoder with a causal
// and a padding mask, and a cross-attention block. Prints the max difference of each compared matrix.
#include "core/engine.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>

using namespace attnlab;
using nlohmann::json;

namespace
{

Mat to_mat(const json& rows)
{
    Mat m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.at(0).size()));
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            m(i, j) = rows.at(static_cast<size_t>(i)).at(static_cast<size_t>(j)).get<float>();
    return m;
}

RowVec to_vec(const json& values)
{
    RowVec v(static_cast<Eigen::Index>(values.size()));
    for (Eigen::Index i = 0; i < v.size(); ++i)
        v(i) = values.at(static_cast<size_t>(i)).get<float>();
    return v;
}

AttentionWeights to_attention(const json& j)
{
    AttentionWeights w;
    for (const json& m : j.at("W_Q"))
        w.W_Q.push_back(to_mat(m));
    for (const json& m : j.at("W_K"))
        w.W_K.push_back(to_mat(m));
    for (const json& m : j.at("W_V"))
        w.W_V.push_back(to_mat(m));
    w.W_O = to_mat(j.at("W_O"));
    return w;
}

float max_diff(const Mat& a, const Mat& b, const std::string& what)
{
    EXPECT_EQ(a.rows(), b.rows()) << what;
    EXPECT_EQ(a.cols(), b.cols()) << what;
    const float d = (a - b).cwiseAbs().maxCoeff();
    std::cout << "  max |attnlab - torch| " << what << " = " << d << "\n";
    return d;
}

json load_golden()
{
    std::ifstream in(std::string(ATTNLAB_SOURCE_DIR) + "/tests/data/golden_encoder.json");
    EXPECT_TRUE(in.good()) << "missing tests/data/golden_encoder.json";
    return json::parse(in);
}

} // namespace

TEST(Golden, EncoderLayersAndCrossAttentionMatchPyTorch)
{
    const json g = load_golden();
    const json& cfg = g.at("config");
    const int B = cfg.at("B"), h = cfg.at("h");
    Config c;
    c.d_model = cfg.at("d_model");
    c.n_heads = h;
    c.d_ff = cfg.at("d_ff");
    c.n_layers = cfg.at("layers");
    c.mask = cfg.at("causal").get<bool>() ? MaskKind::Causal : MaskKind::None;
    ASSERT_TRUE(validate_config(c));
    const std::vector<int> lengths = g.at("lengths").get<std::vector<int>>();
    const float tol = 2e-5f;

    ModelWeights weights;
    for (const json& jl : g.at("layers"))
    {
        LayerWeights lw;
        lw.attn = to_attention(jl);
        lw.W_1 = to_mat(jl.at("W_1"));
        lw.b_1 = to_vec(jl.at("b_1"));
        lw.W_2 = to_mat(jl.at("W_2"));
        lw.b_2 = to_vec(jl.at("b_2"));
        lw.gamma_1 = to_vec(jl.at("gamma_1"));
        lw.beta_1 = to_vec(jl.at("beta_1"));
        lw.gamma_2 = to_vec(jl.at("gamma_2"));
        lw.beta_2 = to_vec(jl.at("beta_2"));
        weights.layers.push_back(lw);
    }
    weights.cross = to_attention(g.at("cross"));
    ASSERT_TRUE(check_weights(weights, c)) << check_weights(weights, c).message();

    std::vector<LayerTrace> layers(static_cast<size_t>(c.n_layers));
    for (int l = 0; l < c.n_layers; ++l)
    {
        LayerTrace& layer = layers[static_cast<size_t>(l)];
        size_layer(layer, B, h);
        const json& expected = g.at("layers").at(static_cast<size_t>(l)).at("expected");
        for (int b = 0; b < B; ++b)
        {
            const auto bi = static_cast<size_t>(b);
            layer.X[bi] = l == 0 ? to_mat(g.at("X").at(bi)) : layers[static_cast<size_t>(l - 1)].norm2[bi];
            encoder_layer_forward(c, weights.layers[static_cast<size_t>(l)], b, lengths[bi], layer);
            const std::string at = "layer " + std::to_string(l) + " b " + std::to_string(b) + " ";
            for (int j = 0; j < h; ++j)
                EXPECT_LE(max_diff(layer.attn.head(b, j).weights, to_mat(expected.at("weights").at(bi).at(j)),
                                   at + "weights h" + std::to_string(j)),
                          tol);
            EXPECT_LE(max_diff(layer.attn.mha[bi], to_mat(expected.at("mha").at(bi)), at + "mha"), tol);
            EXPECT_LE(max_diff(layer.norm1[bi], to_mat(expected.at("norm1").at(bi)), at + "norm1"), tol);
            EXPECT_LE(max_diff(layer.ffn[bi], to_mat(expected.at("ffn").at(bi)), at + "ffn"), tol);
            EXPECT_LE(max_diff(layer.norm2[bi], to_mat(expected.at("norm2").at(bi)), at + "norm2"), tol);
        }
    }

    // Cross-attention: queries from X_q, keys and values from the last layer's output, source padding masked.
    AttentionTrace cross;
    size_attention(cross, B, h);
    const json& cj = g.at("cross");
    for (int b = 0; b < B; ++b)
    {
        const auto bi = static_cast<size_t>(b);
        const Mat X_q = to_mat(cj.at("X_q").at(bi));
        const Mat& X_kv = layers.back().norm2[bi];
        build_mask(static_cast<int>(X_q.rows()), static_cast<int>(X_kv.rows()), lengths[bi], false,
                   cross.mask[bi]);
        attention_forward(X_q, X_kv, weights.cross, score_scale(c), 1.0f, b, cross);
        for (int j = 0; j < h; ++j)
            EXPECT_LE(max_diff(cross.head(b, j).weights, to_mat(cj.at("expected").at("weights").at(bi).at(j)),
                               "cross b " + std::to_string(b) + " weights h" + std::to_string(j)),
                      tol);
        EXPECT_LE(max_diff(cross.mha[bi], to_mat(cj.at("expected").at("mha").at(bi)),
                           "cross b " + std::to_string(b) + " mha"),
                  tol);
    }
}
