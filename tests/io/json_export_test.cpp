// The attnlab-trace export: structure, shapes, values, null for −∞, comparisons, and no partial file on
// error.
#include "../support/settings_support.h"
#include "core/engine.h"
#include "core/io/json_io.h"
#include "core/io/session_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace attnlab
{
namespace
{

using json = nlohmann::json;
namespace fs = std::filesystem;

// Two sentences of different lengths (so padding is masked) and a target for cross-attention.
Session forum_session()
{
    Session s;
    s.text = "Jane visits Africa\nthe cat";
    s.target = "le chat noir .";
    s.config.d_model = 8;
    s.config.n_heads = 2;
    s.config.d_ff = 12;
    s.config.n_layers = 2;
    s.config.mask = MaskKind::Causal;
    return s;
}

class JsonExport : public ::testing::Test
{
protected:
    void SetUp() override
    {
        ASSERT_TRUE(engine.run(forum_session()).is_ok());
        doc = json::parse(trace_to_json(engine.trace(), engine.weights(), "w.json"));
    }

    // Asserts j is [dims[0]][dims[1]]... of numbers (or null where allowed).
    static void expect_shape(const json& j, const std::vector<size_t>& dims, const std::string& what,
                             size_t level = 0)
    {
        if (level == dims.size())
        {
            EXPECT_TRUE(j.is_number() || j.is_null()) << what;
            return;
        }
        ASSERT_TRUE(j.is_array()) << what << " level " << level;
        ASSERT_EQ(j.size(), dims[level]) << what << " level " << level;
        for (const json& item : j)
            expect_shape(item, dims, what, level + 1);
    }

    // Every number equals the matrix's float exactly; null exactly where the matrix holds −∞.
    static void expect_matrix(const json& j, const Mat& m, const std::string& what)
    {
        ASSERT_EQ(j.size(), static_cast<size_t>(m.rows())) << what;
        for (Eigen::Index r = 0; r < m.rows(); ++r)
            for (Eigen::Index c = 0; c < m.cols(); ++c)
            {
                const json& v = j[static_cast<size_t>(r)][static_cast<size_t>(c)];
                if (std::isinf(m(r, c)) && m(r, c) < 0)
                    ASSERT_TRUE(v.is_null()) << what << " (" << r << ", " << c << ")";
                else
                    ASSERT_EQ(v.get<float>(), m(r, c)) << what << " (" << r << ", " << c << ")";
            }
    }

    Engine engine;
    json doc;
};

// The trace's "config" holds every setting under its key, in table order, and reads back as a session's.
TEST(JsonExportConfig, EverySettingIsWrittenAndReadsBack)
{
    for (const SettingInfo& info : setting_table())
    {
        SCOPED_TRACE(info.key);
        Session s;
        s.text = "a b";
        s.config = test::with_other_value(info, s.config);
        Engine engine;
        ASSERT_TRUE(engine.run(s).is_ok());
        const auto doc = nlohmann::ordered_json::parse(trace_to_json(engine.trace(), engine.weights()));
        const auto& config = doc["config"];
        std::vector<std::string> keys;
        for (const auto& item : config.items())
            keys.push_back(item.key());
        ASSERT_EQ(keys.size(), setting_table().size() + 1);
        for (const SettingInfo& row : setting_table())
            EXPECT_EQ(keys[static_cast<std::size_t>(row.id)], row.key);
        EXPECT_EQ(keys.back(), "resolved");
        const nlohmann::ordered_json session = {
            {"format", kSessionFormat}, {"version", 1}, {"config", config}};
        Session read;
        ASSERT_TRUE(session_from_json(session.dump(), "trace.json", &read).is_ok());
        EXPECT_EQ(read.config, s.config);
    }
}

TEST_F(JsonExport, HeaderConfigAndTokens)
{
    EXPECT_EQ(doc["format"], "attnlab-trace");
    EXPECT_EQ(doc["version"], 1);
    const json& c = doc["config"];
    EXPECT_EQ(c["d_model"], 8);
    EXPECT_EQ(c["heads"], 2);
    EXPECT_EQ(c["d_k"], 0);
    EXPECT_EQ(c["d_ff"], 12);
    EXPECT_EQ(c["layers"], 2);
    EXPECT_EQ(c["mask"], "causal");
    EXPECT_EQ(c["positional"], "sinusoidal");
    EXPECT_EQ(c["temperature"], 1.0);
    EXPECT_EQ(c["seed"], 1);
    EXPECT_EQ(c["scale"], true);
    EXPECT_EQ(c["resolved"]["d_k"], 4);
    EXPECT_EQ(c["resolved"]["d_v"], 4);
    EXPECT_EQ(c["resolved"]["d_ff"], 12);
    EXPECT_EQ(doc["weights_source"], "w.json");
    EXPECT_EQ(doc["B"], 2);
    EXPECT_EQ(doc["T"], 3);
    const json expected_tokens = {{"Jane", "visits", "Africa"}, {"the", "cat", "<pad>"}};
    EXPECT_EQ(doc["tokens"], expected_tokens);
    EXPECT_EQ(doc["lengths"], json({3, 2}));
    const auto layer_stages = std::count_if(stage_table().begin(), stage_table().end(),
                                            [](const StageInfo& info) { return engine_layer_stage(info); });
    ASSERT_EQ(doc["stages"].size(), static_cast<size_t>(layer_stages));
    EXPECT_EQ(doc["stages"][4][0], "scores");
}

TEST_F(JsonExport, EveryStageWithItsShapeAndValues)
{
    const Trace& trace = engine.trace();
    const size_t B = 2, T = 3, d = 8, h = 2, d_k = 4, d_v = 4, d_ff = 12;
    ASSERT_EQ(doc["layers"].size(), 2u);
    for (size_t l = 0; l < 2; ++l)
    {
        const json& layer = doc["layers"][l];
        const LayerTrace& lt = trace.layers[l];
        ASSERT_EQ(layer["heads"].size(), h);
        for (const StageInfo& info : stage_table())
        {
            if (!engine_layer_stage(info))
                continue;
            const std::string what = "layer " + std::to_string(l) + " " + info.key;
            const size_t cols = std::string(info.cols) == "T"       ? T
                                : std::string(info.cols) == "d_k"   ? d_k
                                : std::string(info.cols) == "d_v"   ? d_v
                                : std::string(info.cols) == "h·d_v" ? h * d_v
                                : std::string(info.cols) == "d_ff"  ? d_ff
                                                                    : d;
            if (info.per_head)
            {
                EXPECT_FALSE(layer.contains(info.key)) << what;
                for (size_t j = 0; j < h; ++j)
                {
                    const json& stack = layer["heads"][j][info.key];
                    expect_shape(stack, {B, T, cols}, what);
                    for (size_t b = 0; b < B; ++b)
                        expect_matrix(stack[b], stage_matrix(lt, info.id, int(b), int(j)), what);
                }
            }
            else
            {
                const json& stack = layer[info.key];
                expect_shape(stack, {B, T, cols}, what);
                for (size_t b = 0; b < B; ++b)
                    expect_matrix(stack[b], stage_matrix(lt, info.id, int(b), 0), what);
            }
        }
    }
}

TEST_F(JsonExport, MinusInfinityIsNullAndOnlyInMaskedScores)
{
    // Causal mask and the padded second sentence: -inf above the diagonal and in the padding column.
    const json& masked = doc["layers"][0]["heads"][1]["masked"];
    EXPECT_TRUE(masked[0][0][1].is_null());
    EXPECT_TRUE(masked[1][2][2].is_null()); // padding key of "the cat <pad>"
    EXPECT_TRUE(masked[0][2][1].is_number());
    // The weights there are exact zeros, and no other stage has a null.
    EXPECT_EQ(doc["layers"][0]["heads"][1]["weights"][0][0][1].get<double>(), 0.0);
    const std::string text = doc["layers"][0]["heads"][1]["weights"].dump();
    EXPECT_EQ(text.find("null"), std::string::npos);
    EXPECT_EQ(doc["layers"][0]["norm2"].dump().find("null"), std::string::npos);
}

TEST_F(JsonExport, WeightsInThePapersOrientation)
{
    const json& w = doc["weights"];
    ASSERT_EQ(w["layers"].size(), 2u);
    const json& l0 = w["layers"][0];
    expect_shape(l0["W_Q"], {2, 8, 4}, "W_Q");
    expect_shape(l0["W_K"], {2, 8, 4}, "W_K");
    expect_shape(l0["W_V"], {2, 8, 4}, "W_V");
    expect_shape(l0["W_O"], {8, 8}, "W_O");
    expect_shape(l0["W_1"], {8, 12}, "W_1");
    expect_shape(l0["b_1"], {12}, "b_1");
    expect_shape(l0["W_2"], {12, 8}, "W_2");
    for (const char* key : {"b_2", "gamma_1", "beta_1", "gamma_2", "beta_2"})
        expect_shape(l0[key], {8}, key);
    expect_matrix(l0["W_Q"][1], engine.weights().layers[0].attn.W_Q[1], "W_Q[1]");
    expect_matrix(w["layers"][1]["W_2"], engine.weights().layers[1].W_2, "layers[1].W_2");
    expect_shape(w["cross"]["W_Q"], {2, 8, 4}, "cross.W_Q");
    expect_shape(w["cross"]["W_O"], {8, 8}, "cross.W_O");
}

TEST_F(JsonExport, CrossAttention)
{
    const json& cross = doc["cross"];
    const size_t B = 2, T_q = 4, T_k = 3; // "le chat noir ." is 4 tokens
    EXPECT_EQ(cross["tokens"][0].size(), T_q);
    expect_shape(cross["X_q"], {B, T_q, 8}, "X_q");
    expect_shape(cross["X_kv"], {B, T_k, 8}, "X_kv");
    ASSERT_EQ(cross["heads"].size(), 2u);
    expect_shape(cross["heads"][0]["scores"], {B, T_q, T_k}, "cross scores");
    expect_shape(cross["heads"][1]["Q"], {B, T_q, 4}, "cross Q");
    expect_shape(cross["heads"][1]["K"], {B, T_k, 4}, "cross K");
    expect_shape(cross["concat"], {B, T_q, 8}, "cross concat");
    expect_shape(cross["mha"], {B, T_q, 8}, "cross mha");
    EXPECT_FALSE(cross.contains("residual"));
    expect_matrix(cross["heads"][1]["weights"][1], engine.trace().cross.attn.head(1, 1).weights,
                  "cross weights");
    expect_matrix(cross["X_kv"][0], engine.trace().layers.back().norm2[0], "X_kv is the last norm2");
}

TEST_F(JsonExport, ComparisonsForEverySentence)
{
    const json& comparisons = doc["comparisons"];
    ASSERT_EQ(comparisons.size(), 2u);
    for (size_t b = 0; b < 2; ++b)
    {
        const json& c = comparisons[b];
        EXPECT_EQ(c["layer"], 0);
        EXPECT_EQ(c["b"], b);
        EXPECT_EQ(c["head"], 0);
        expect_shape(c["W_Q_packed"], {8, 8}, "W_Q_packed");
        expect_shape(c["Q_packed"], {3, 8}, "Q_packed");
        expect_shape(c["W_collapsed"], {8, 4}, "W_collapsed");
        expect_shape(c["single_weights"], {3, 3}, "single_weights");
        expect_shape(c["single_out"], {3, 8}, "single_out");
        EXPECT_LE(c["packed_max_diff"].get<double>(), 1e-6);
        EXPECT_LE(c["two_step_max_diff"].get<double>(), 1e-4);
        EXPECT_GT(c["single_vs_multi_max_diff"].get<double>(), 0.0);
    }
    // Block 0 of X W^Q is head 0's Q.
    const json& q_packed = comparisons[1]["Q_packed"];
    const Mat& Q0 = engine.trace().layers[0].attn.head(1, 0).Q;
    EXPECT_NEAR(q_packed[2][3].get<double>(), Q0(2, 3), 1e-5);
}

TEST_F(JsonExport, FileEqualsStringAndLeavesNoTemporary)
{
    const fs::path dir = fs::temp_directory_path() / "attnlab_json_export_test";
    fs::create_directories(dir);
    const std::string path = (dir / "trace.json").string();
    ASSERT_TRUE(write_trace_json(engine.trace(), engine.weights(), path, "w.json").is_ok());
    std::ifstream in(path, std::ios::binary);
    const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(content, trace_to_json(engine.trace(), engine.weights(), "w.json"));
    EXPECT_FALSE(fs::exists(path + ".tmp"));
    fs::remove_all(dir);
}

TEST_F(JsonExport, UnwritablePathGivesAnErrorAndNoFile)
{
    const std::string path = "/nonexistent/dir/x.json";
    const Status status = write_trace_json(engine.trace(), engine.weights(), path);
    ASSERT_FALSE(status.is_ok());
    EXPECT_NE(status.message().find(path), std::string::npos) << status.message();
    EXPECT_FALSE(fs::exists(path));
    EXPECT_FALSE(fs::exists(path + ".tmp"));
}

TEST_F(JsonExport, FailedRenameLeavesNoPartialFile)
{
    // The output path is an existing non-empty directory: the data is written, the final rename fails.
    const fs::path dir = fs::temp_directory_path() / "attnlab_json_export_dir_test";
    fs::create_directories(dir / "out.json" / "inside");
    const std::string path = (dir / "out.json").string();
    const Status status = write_trace_json(engine.trace(), engine.weights(), path);
    ASSERT_FALSE(status.is_ok());
    EXPECT_FALSE(fs::exists(path + ".tmp"));
    EXPECT_TRUE(fs::is_directory(path));
    fs::remove_all(dir);
}

TEST(TraceFloatCount, CountsEveryMatrix)
{
    Session s;
    s.text = "a b c";
    s.config.d_model = 4;
    s.config.n_heads = 1;
    s.config.d_ff = 4;
    Engine engine;
    ASSERT_TRUE(engine.run(s).is_ok());
    // embedding 12 + PE 12; layer: X 12, head Q K V 3·12 + 4 T×T 36 + head_out 12, mask 9, concat 12, mha 12,
    // residual, norm1, ffn_hidden, ffn, residual2, norm2 6·12.
    EXPECT_EQ(trace_float_count(engine.trace()), 24u + 12 + 36 + 36 + 12 + 9 + 12 + 12 + 72);

    // The memory check's formula (walking the stage table) counts exactly what a forward pass keeps, with a
    // batch, several layers and cross-attention too.
    Session big;
    big.text = "the cat sat on the mat\nthe dog ran";
    big.target = "le chat";
    big.config.n_layers = 2;
    big.config.d_ff = 24;
    Engine engine2;
    ASSERT_TRUE(engine2.run(big));
    const Trace& t = engine2.trace();
    EXPECT_EQ(trace_float_count(t),
              static_cast<size_t>(trace_floats(big.config, t.batch_size(), t.T(), t.cross.target.T)));
    EXPECT_EQ(trace_float_count(engine.trace()),
              static_cast<size_t>(
                  trace_floats(engine.trace().config, engine.trace().batch_size(), engine.trace().T(), 0)));
}

} // namespace
} // namespace attnlab
