// attnlab export --model: a trained model's pass on its tokens (probabilities, losses, gradients) as JSON.
#include "cli_test_util.h"

#include "core/io/model_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

namespace attnlab::test
{
namespace
{

namespace fs = std::filesystem;
using json = nlohmann::json;

// A reverse model (d_model 16, 2 layers of 2 heads) trained 5 steps, written to dir/m.json.
std::string train_model(const TempDir& dir)
{
    const std::string path = dir / "m.json";
    const CliResult r = run_cli(
        {"train", "--task", "reverse", "--steps", "5", "--batch", "8", "--d-model", "16", "-o", path});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return path;
}

// 16 tokens: the reverse task's T.
const char* kText = "1 2 3 4 5 6 7 8 | 8 7 6 5 4 3 2\n0 0 0 0 9 9 9 9 | 9 9 9 9 0 0 0";

TEST(ModelExport, WritesEveryIntermediateAndProbabilitiesThatSumToOne)
{
    TempDir dir;
    const std::string model = train_model(dir);
    const CliResult r = run_cli({"export", "--model", model, "--text", kText, "-o", dir / "t.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_NE(r.out.find("B=2 T=16"), std::string::npos) << r.out;
    const json doc = read_json(dir / "t.json");
    EXPECT_EQ(doc["format"], "attnlab-model-trace");
    EXPECT_EQ(doc["version"], 1);
    EXPECT_EQ(doc["task"], "reverse");
    EXPECT_EQ(doc["step"], 5);
    EXPECT_EQ(doc["config"]["d_model"], 16);
    EXPECT_EQ(doc["tokens"][0][8], "|");
    EXPECT_EQ(doc["token_ids"][1][4], 9);
    EXPECT_FALSE(doc.contains("gradients"));
    const int B = 2, T = 16, V = 11;
    ASSERT_EQ(doc["layers"].size(), 2u);
    for (const json& layer : doc["layers"])
    {
        for (const char* key :
             {"X", "ln1", "concat", "mha", "residual", "ln2", "ffn_pre", "ffn_hidden", "ffn", "residual2"})
        {
            ASSERT_TRUE(layer.contains(key)) << key;
            EXPECT_EQ(layer[key].size(), static_cast<size_t>(B)) << key;
            EXPECT_EQ(layer[key][0].size(), static_cast<size_t>(T)) << key;
        }
        EXPECT_EQ(layer["ffn_hidden"][0][0].size(), 64u); // d_ff = 4 d_model
        ASSERT_EQ(layer["heads"].size(), 2u);
        for (const json& head : layer["heads"])
        {
            EXPECT_EQ(head["Q"][1][15].size(), 8u); // d_k
            EXPECT_EQ(head["head_out"][1][15].size(), 8u);
            const json& weights = head["weights"];
            ASSERT_EQ(weights.size(), static_cast<size_t>(B));
            ASSERT_EQ(weights[0].size(), static_cast<size_t>(T));
            for (const json& sentence : weights)
                for (int i = 0; i < T; ++i)
                {
                    double sum = 0;
                    for (int j = 0; j < T; ++j)
                        sum += sentence[static_cast<size_t>(i)][static_cast<size_t>(j)].get<double>();
                    EXPECT_NEAR(sum, 1.0, 1e-5);
                    if (i + 1 < T) // causal: the key after the query is masked
                    {
                        EXPECT_TRUE(
                            head["masked"][0][static_cast<size_t>(i)][static_cast<size_t>(i + 1)].is_null());
                    }
                }
        }
    }
    EXPECT_EQ(doc["lnf"][0].size(), static_cast<size_t>(T));
    const json& probs = doc["probs"];
    ASSERT_EQ(probs.size(), static_cast<size_t>(B));
    ASSERT_EQ(doc["logits"][1][3].size(), static_cast<size_t>(V));
    ASSERT_EQ(doc["loss"].size(), static_cast<size_t>(B));
    ASSERT_EQ(doc["loss"][0].size(), static_cast<size_t>(T));
    ASSERT_EQ(doc["targets"].size(), static_cast<size_t>(B));
    ASSERT_EQ(doc["targets"][0].size(), static_cast<size_t>(T));
    double mean = 0;
    int scored = 0;
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
        {
            const json& row = probs[static_cast<size_t>(b)][static_cast<size_t>(t)];
            ASSERT_EQ(row.size(), static_cast<size_t>(V));
            double sum = 0;
            for (const json& p : row)
                sum += p.get<double>();
            EXPECT_NEAR(sum, 1.0, 1e-5);
            // Reverse scores the positions from the separator (t = 8) on, each predicting the digit mirrored
            // about it: target[b][t] = token 15 − t, loss = −log p(target); the others are −1 and 0.
            const int target = doc["targets"][static_cast<size_t>(b)][static_cast<size_t>(t)];
            const double loss = doc["loss"][static_cast<size_t>(b)][static_cast<size_t>(t)].get<double>();
            if (t < 8)
            {
                EXPECT_EQ(target, -1) << b << " " << t;
                EXPECT_EQ(loss, 0.0) << b << " " << t;
                continue;
            }
            EXPECT_EQ(target,
                      doc["token_ids"][static_cast<size_t>(b)][static_cast<size_t>(15 - t)].get<int>());
            EXPECT_NEAR(loss, -std::log(row[static_cast<size_t>(target)].get<double>()),
                        1e-4 * std::max(1.0, loss));
            mean += loss;
            ++scored;
        }
    ASSERT_EQ(scored, 16);
    mean /= scored;
    EXPECT_NEAR(doc["mean_loss"].get<double>(), mean, 1e-4);
}

TEST(ModelExport, GradientsHaveTheShapesOfTheWeightsAndOfEachHeadsWeights)
{
    TempDir dir;
    const std::string model = train_model(dir);
    const CliResult r =
        run_cli({"export", "--model", model, "--text", kText, "--gradients", "-o", dir / "t.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json doc = read_json(dir / "t.json");
    ASSERT_TRUE(doc.contains("gradients"));
    const json& g = doc["gradients"];
    const json& w = doc["weights"];
    for (const char* key : {"embedding", "positions", "W_U", "b_U"})
    {
        ASSERT_TRUE(g["weights"].contains(key)) << key;
        EXPECT_EQ(g["weights"][key].size(), w[key].size()) << key;
    }
    EXPECT_EQ(g["weights"]["W_U"][0].size(), 11u);
    EXPECT_EQ(g["weights"]["ln_f"]["gamma"].size(), 16u);
    ASSERT_EQ(g["weights"]["layers"].size(), 2u);
    for (const char* key : {"W_Q", "W_K", "W_V"})
    {
        EXPECT_EQ(g["weights"]["layers"][1][key].size(), 2u);       // h
        EXPECT_EQ(g["weights"]["layers"][1][key][1].size(), 16u);   // d_model
        EXPECT_EQ(g["weights"]["layers"][1][key][1][0].size(), 8u); // d_k
    }
    EXPECT_EQ(g["weights"]["layers"][0]["W_O"].size(), 16u);
    EXPECT_EQ(g["weights"]["layers"][0]["W_1"][0].size(), 64u);
    ASSERT_EQ(g["layers"].size(), 2u);
    double largest = 0;
    for (const json& layer : g["layers"])
    {
        ASSERT_EQ(layer["heads"].size(), 2u);
        for (const json& head : layer["heads"])
        {
            ASSERT_EQ(head["weights"].size(), 2u);         // B
            ASSERT_EQ(head["weights"][1].size(), 16u);     // T
            ASSERT_EQ(head["weights"][1][15].size(), 16u); // T
            for (const json& row : head["weights"][0])
                for (const json& v : row)
                    largest = std::max(largest, std::fabs(v.get<double>()));
        }
    }
    EXPECT_GT(largest, 0.0);
    // ∂L/∂b_U[v] = mean over the scored positions of probs[v] − [target = v] (the file's "targets", −1 where
    // not scored): the file agrees with itself, and the gradient is that of the loss training minimised.
    const int B = 2, T = 16, V = 11;
    for (int v = 0; v < V; ++v)
    {
        double expected = 0;
        int scored = 0;
        for (int b = 0; b < B; ++b)
            for (int t = 0; t < T; ++t)
            {
                const int target = doc["targets"][static_cast<size_t>(b)][static_cast<size_t>(t)];
                if (target < 0)
                    continue;
                expected +=
                    doc["probs"][static_cast<size_t>(b)][static_cast<size_t>(t)][static_cast<size_t>(v)]
                        .get<double>() -
                    (target == v ? 1.0 : 0.0);
                ++scored;
            }
        ASSERT_EQ(scored, 16);
        expected /= scored;
        EXPECT_NEAR(g["weights"]["b_U"][static_cast<size_t>(v)].get<double>(), expected, 1e-5) << v;
    }
}

TEST(ModelExport, WithoutTextTheTasksFirstHeldOutSequenceIsUsed)
{
    TempDir dir;
    const std::string model = train_model(dir);
    const CliResult r = run_cli({"export", "--model", model, "-o", dir / "t.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json doc = read_json(dir / "t.json");
    EXPECT_EQ(doc["B"], 1);
    EXPECT_EQ(doc["T"], 16);
    EXPECT_EQ(doc["tokens"][0][8], "|");
}

TEST(ModelExport, AnUnknownTokenListsTheVocabulary)
{
    TempDir dir;
    const std::string model = train_model(dir);
    const CliResult r = run_cli({"export", "--model", model, "--text", "1 2 x 3", "-o", dir / "t.json"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("unknown token 'x' on line 1"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("0 1 2 3 4 5 6 7 8 9 |"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "t.json"));
}

// Weights scaled by 1e18 overflow float: refused as the seeded engine refuses it, with no file written (it
// used to write null losses and exit 0).
TEST(ModelExport, WeightsTooLargeForFloatAreRefused)
{
    TempDir dir;
    TrainedModel model;
    ASSERT_TRUE(load_model_file(train_model(dir), &model).is_ok());
    // Every number of the weights object times 1e18.
    train::Params& p = model.params;
    for (auto* m : {&p.E, &p.P, &p.lnf_gamma, &p.lnf_beta, &p.W_U, &p.b_U})
        *m *= 1e18f;
    for (train::LayerParamsT<float>& layer : p.layers)
        for (auto* m : {&layer.ln1_gamma, &layer.ln1_beta, &layer.W_Q, &layer.W_K, &layer.W_V, &layer.W_O,
                        &layer.ln2_gamma, &layer.ln2_beta, &layer.W_1, &layer.b_1, &layer.W_2, &layer.b_2})
            *m *= 1e18f;
    ASSERT_TRUE(write_model_file(model, dir / "big.json").is_ok());
    for (bool gradients : {false, true})
    {
        std::vector<std::string> args = {"export", "--model", dir / "big.json", "--text",
                                         kText,    "-o",      dir / "t.json"};
        if (gradients)
            args.push_back("--gradients");
        const CliResult r = run_cli(args);
        EXPECT_EQ(r.exit_code, 1) << r.out;
        EXPECT_EQ(line_count(r.err), 1) << r.err;
        EXPECT_NE(r.err.find("produced a NaN or infinite value"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(dir / "t.json"));
    }
}

TEST(ModelExport, ALongVocabularyIsCutInTheMessage)
{
    TempDir dir;
    train::Preset preset = train::Task(train::TaskKind::Copy).preset();
    preset.model.vocab_size = 400;
    preset.model.d_model = 8;
    train::Trainer trainer;
    ASSERT_TRUE(trainer.init(train::TaskKind::Copy, preset).is_ok());
    TrainedModel model = trained_model(trainer, {});
    model.vocabulary.clear();
    for (int i = 0; i < 400; ++i)
        model.vocabulary.push_back("word" + std::to_string(i));
    ASSERT_TRUE(write_model_file(model, dir / "m.json").is_ok());
    const CliResult r =
        run_cli({"export", "--model", dir / "m.json", "--text", "word1 nope", "-o", dir / "t.json"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("unknown token 'nope'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("word0 word1 word2"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("(400 tokens in all)"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("word399"), std::string::npos) << r.err;
    EXPECT_LT(r.err.size(), 600u);
}

TEST(ModelExport, BadInputGivesOneLineAndNoFile)
{
    TempDir dir;
    const std::string model = train_model(dir);
    const std::string out = dir / "t.json";
    struct Case
    {
        std::vector<std::string> args;
        const char* part;
    };
    const std::vector<Case> cases = {
        {{"--model", model, "--text", "1 2 3 4 5 6 7 8 | 8 7 6 5 4 3 2 1"}, "more than the model's T_max 16"},
        {{"--model", model, "--text", "1 2 3\n1 2"}, "line 2 has 2"},
        {{"--model", model, "--text", " \n "}, "the text has no tokens"},
        {{"--model", model, "--text", "1", "--gradients"}, "no position the reverse task scores"},
        {{"--model", model, "--text", "1 2", "--d-model", "8"}, "--d-model does not go with --model"},
        {{"--model", model, "--text", "1 2", "--mask", "causal"}, "--mask does not go with --model"},
        {{"--text", "a b", "--gradients"}, "--gradients needs --model"},
        {{"--model", dir / "missing.json", "--text", "1 2"}, "missing.json"},
        {{"--model", dir.path.string(), "--text", "1 2"}, "model file"},
    };
    for (const Case& c : cases)
    {
        SCOPED_TRACE(c.part);
        std::vector<std::string> args = {"export"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        args.insert(args.end(), {"-o", out});
        const CliResult r = run_cli(args);
        EXPECT_EQ(r.exit_code, 1);
        EXPECT_EQ(line_count(r.err), 1) << r.err;
        EXPECT_NE(r.err.find(c.part), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(out));
    }
}

} // namespace
} // namespace attnlab::test
