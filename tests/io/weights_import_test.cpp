// Weight import from attnlab files: exact round trip through JSON, and every malformed field as an error.
#include "core/engine.h"
#include "core/io/atomic_file.h"
#include "core/io/json_io.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

namespace attnlab
{
namespace
{

using json = nlohmann::json;
namespace fs = std::filesystem;

Config small_config()
{
    Config c;
    c.d_model = 8;
    c.n_heads = 2;
    c.d_ff = 12;
    c.n_layers = 2;
    c.seed = 42;
    return c;
}

bool same_attention(const AttentionWeights& a, const AttentionWeights& b)
{
    if (a.W_Q.size() != b.W_Q.size() || a.W_K.size() != b.W_K.size() || a.W_V.size() != b.W_V.size())
        return false;
    for (size_t j = 0; j < a.W_Q.size(); ++j)
        if (a.W_Q[j] != b.W_Q[j] || a.W_K[j] != b.W_K[j] || a.W_V[j] != b.W_V[j])
            return false;
    return a.W_O == b.W_O;
}

bool same_weights(const ModelWeights& a, const ModelWeights& b)
{
    if (a.layers.size() != b.layers.size() || !same_attention(a.cross, b.cross))
        return false;
    for (size_t l = 0; l < a.layers.size(); ++l)
    {
        const LayerWeights &x = a.layers[l], &y = b.layers[l];
        if (!same_attention(x.attn, y.attn) || x.W_1 != y.W_1 || x.b_1 != y.b_1 || x.W_2 != y.W_2 ||
            x.b_2 != y.b_2 || x.gamma_1 != y.gamma_1 || x.beta_1 != y.beta_1 || x.gamma_2 != y.gamma_2 ||
            x.beta_2 != y.beta_2)
            return false;
    }
    return true;
}

// Weights that differ from the seeded ones in every part (so a field read from the wrong place shows).
ModelWeights distinct_weights(const Config& c)
{
    ModelWeights w = init_weights(c);
    float k = 0.001f;
    for (LayerWeights& l : w.layers)
    {
        for (RowVec* v : {&l.b_1, &l.b_2, &l.gamma_1, &l.beta_1, &l.gamma_2, &l.beta_2})
            for (Eigen::Index i = 0; i < v->size(); ++i)
                (*v)(i) += (k += 0.001f);
    }
    return w;
}

class WeightsImport : public ::testing::Test
{
protected:
    void SetUp() override
    {
        dir = fs::temp_directory_path() /
              ("attnlab_weights_import_" +
               std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::create_directories(dir);
        config = small_config();
        weights = distinct_weights(config);
        ASSERT_TRUE(write_weights_json(weights, config, path("w.json")).is_ok());
        std::string text;
        ASSERT_TRUE(read_file(path("w.json"), &text).is_ok());
        doc = json::parse(text);
    }
    void TearDown() override { fs::remove_all(dir); }

    std::string path(const std::string& name) const { return (dir / name).string(); }

    // Imports a modified document and returns the error (the target must stay untouched).
    std::string import_error(const json& modified, const Config& c)
    {
        ModelWeights out = init_weights(c);
        const ModelWeights before = out;
        const Status s = parse_weights_json(modified.dump(), "w.json", c, &out);
        EXPECT_FALSE(s.is_ok());
        EXPECT_TRUE(same_weights(out, before)) << "the target changed on error";
        return s.message();
    }
    std::string import_error(const json& modified) { return import_error(modified, config); }

    fs::path dir;
    Config config;
    ModelWeights weights;
    json doc;
};

TEST_F(WeightsImport, RoundTripIsExactAndGivesTheSameForwardPass)
{
    ModelWeights loaded;
    ASSERT_TRUE(load_weights_file(path("w.json"), config, &loaded).is_ok());
    EXPECT_TRUE(same_weights(loaded, weights));

    Session s;
    s.text = "the cat sat on the mat\nshe left";
    s.target = "le chat";
    s.config = config;
    Engine a, b;
    a.set_imported_weights(weights);
    b.set_imported_weights(loaded);
    ASSERT_TRUE(a.run(s).is_ok());
    ASSERT_TRUE(b.run(s).is_ok());
    for (size_t l = 0; l < 2; ++l)
        for (size_t i = 0; i < 2; ++i)
            EXPECT_EQ(a.trace().layers[l].norm2[i], b.trace().layers[l].norm2[i]);
    EXPECT_EQ(a.trace().cross.attn.mha[1], b.trace().cross.attn.mha[1]);
}

TEST_F(WeightsImport, ReadsTheWeightsOfATraceExport)
{
    Session s;
    s.text = "a b c";
    s.config = config;
    Engine engine;
    engine.set_imported_weights(weights);
    ASSERT_TRUE(engine.run(s).is_ok());
    ASSERT_TRUE(write_trace_json(engine.trace(), engine.weights(), path("trace.json")).is_ok());
    ModelWeights loaded;
    ASSERT_TRUE(load_any_weights_file(path("trace.json"), config, &loaded).is_ok());
    EXPECT_TRUE(same_weights(loaded, weights));
}

TEST_F(WeightsImport, BareWeightsObjectWithoutCrossGetsSeededCross)
{
    json bare = {{"weights", doc["weights"]}};
    bare["weights"].erase("cross");
    ModelWeights loaded;
    ASSERT_TRUE(parse_weights_json(bare.dump(), "bare.json", config, &loaded).is_ok());
    EXPECT_TRUE(same_attention(loaded.cross, init_weights(config).cross));
    EXPECT_TRUE(loaded.layers[1].W_1 == weights.layers[1].W_1);
}

TEST_F(WeightsImport, MalformedJson)
{
    ModelWeights out;
    const Status s = parse_weights_json("{\"weights\": {\"layers\": [", "w.json", config, &out);
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("w.json: the file is incomplete: its JSON stops at line 1, column 24"),
              std::string::npos)
        << s.message();
}

TEST_F(WeightsImport, MissingFileNamesIt)
{
    ModelWeights out;
    const Status s = load_weights_file(path("absent.json"), config, &out);
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("absent.json"), std::string::npos) << s.message();
}

TEST_F(WeightsImport, WrongFormatAndNewerVersion)
{
    json wrong = doc;
    wrong["format"] = "attnlab-session";
    EXPECT_NE(import_error(wrong).find("\"format\" is \"attnlab-session\""), std::string::npos);
    json newer = doc;
    newer["version"] = 2;
    EXPECT_NE(import_error(newer).find("version 2 is newer"), std::string::npos);
    json no_weights = doc;
    no_weights.erase("weights");
    EXPECT_NE(import_error(no_weights).find("no \"weights\" object"), std::string::npos);
}

TEST_F(WeightsImport, WrongShapesNameTheFieldAndTheExpectedShape)
{
    json narrow = doc;
    for (json& row : narrow["weights"]["layers"][0]["W_Q"][1])
        row.erase(row.size() - 1);
    const std::string m = import_error(narrow);
    EXPECT_NE(m.find("\"weights.layers[0].W_Q[1]\" should be d_model x d_k = 8x4"), std::string::npos) << m;

    json heads = doc;
    heads["weights"]["layers"][1]["W_V"].erase(1);
    const std::string m2 = import_error(heads);
    EXPECT_NE(m2.find("\"weights.layers[1].W_V\" should hold h = 2 matrices"), std::string::npos) << m2;

    json w_o = doc;
    w_o["weights"]["layers"][0]["W_O"].erase(0);
    const std::string m3 = import_error(w_o);
    EXPECT_NE(m3.find("\"weights.layers[0].W_O\" should be h·d_v x d_model = 8x8, got 7x8"),
              std::string::npos)
        << m3;

    json bias = doc;
    bias["weights"]["layers"][0]["b_1"].push_back(0.5);
    const std::string m4 = import_error(bias);
    EXPECT_NE(m4.find("\"weights.layers[0].b_1\" should be a list of d_ff = 12 numbers"), std::string::npos)
        << m4;

    json ragged = doc;
    ragged["weights"]["layers"][0]["W_2"][3].erase(0);
    const std::string m5 = import_error(ragged);
    EXPECT_NE(m5.find("row 3 is 7 numbers long"), std::string::npos) << m5;

    json cross = doc;
    cross["weights"]["cross"]["W_K"][0].erase(0);
    EXPECT_NE(import_error(cross).find("\"weights.cross.W_K[0]\""), std::string::npos);
}

TEST_F(WeightsImport, MalformedFields)
{
    json null_value = doc;
    null_value["weights"]["layers"][0]["W_1"][2][5] = nullptr;
    EXPECT_NE(import_error(null_value).find("\"weights.layers[0].W_1[2][5]\" must be a number, got null"),
              std::string::npos);
    json string_value = doc;
    string_value["weights"]["layers"][0]["gamma_2"] = "ones";
    EXPECT_NE(import_error(string_value).find("\"weights.layers[0].gamma_2\""), std::string::npos);
    json missing = doc;
    missing["weights"]["layers"][1].erase("beta_1");
    EXPECT_NE(import_error(missing).find("\"weights.layers[1].beta_1\" is missing"), std::string::npos);
    json huge = doc;
    huge["weights"]["layers"][0]["W_2"][0][0] = 1e300;
    EXPECT_NE(import_error(huge).find("out of the float range"), std::string::npos);
}

TEST_F(WeightsImport, ConfigMismatchSaysWhatTheFileHas)
{
    Config other = config;
    other.n_layers = 1;
    const std::string m = import_error(doc, other);
    EXPECT_NE(m.find("holds 2 layers but the session has N = 1"), std::string::npos) << m;
    other = config;
    other.d_model = 16;
    const std::string m2 = import_error(doc, other);
    EXPECT_NE(m2.find("the file was made with d_model 8, heads 2"), std::string::npos) << m2;
    // No layers, or more than a model can have: the file is damaged, and "set the layers to 0" would be no
    // fix.
    json none = doc;
    none["weights"]["layers"] = json::array();
    const std::string m3 = import_error(none);
    EXPECT_NE(m3.find("holds 0 layers; a model has 1 to 12"), std::string::npos) << m3;
    EXPECT_EQ(m3.find("set the layers to 0"), std::string::npos) << m3;
}

} // namespace
} // namespace attnlab
