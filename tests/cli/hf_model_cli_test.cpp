// attnlab export --model FOLDER and attnlab bench --model FOLDER on the tiny Hugging Face folders of
// tests/data/hf_tiny: the written trace against the PyTorch float64 goldens, the bench line's keys, and the
// refusals. Timings are printed, never asserted.
#include "cli_test_util.h"

#include "tests/io/hf_golden.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <regex>

namespace attnlab::test
{
namespace
{

namespace fs = std::filesystem;
using json = nlohmann::json;

// Within 1e-4 of the golden's largest magnitude, entry by entry. rows: the JSON's [T][n] for one sentence.
void expect_matches(const json& rows, const GoldenMat& golden, Eigen::Index row0, const std::string& what)
{
    const double scale = golden.cwiseAbs().maxCoeff();
    ASSERT_GT(scale, 0.0) << what;
    ASSERT_TRUE(rows.is_array()) << what;
    double worst = 0;
    for (std::size_t r = 0; r < rows.size(); ++r)
    {
        ASSERT_EQ(rows[r].size(), static_cast<std::size_t>(golden.cols())) << what;
        for (std::size_t c = 0; c < rows[r].size(); ++c)
            worst = std::max(worst,
                             std::abs(rows[r][c].get<double>() - golden(row0 + static_cast<Eigen::Index>(r),
                                                                        static_cast<Eigen::Index>(c))));
    }
    EXPECT_LE(worst, 1e-4 * scale) << what << ": largest difference " << worst << ", largest value " << scale;
}

struct Arch
{
    const char* name;
    const char* architecture; // config.json's model_type
};

void check_export_against_golden(const Arch& a)
{
    SCOPED_TRACE(a.name);
    const HfGolden g = load_hf_golden(hf_tiny_dir() / (std::string(a.name) + "_golden.json"));
    TempDir dir;
    const std::string out = dir / "trace.json";
    const CliResult r =
        run_cli({"export", "--model", (hf_tiny_dir() / a.name).string(), "--text", g.text, "-o", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_NE(r.out.find("B=1 T=" + std::to_string(g.T())), std::string::npos) << r.out;
    const json doc = read_json(out);
    EXPECT_EQ(doc["format"], "attnlab-model-trace");
    EXPECT_EQ(doc["version"], 1);
    EXPECT_EQ(doc["model"]["architecture"], a.architecture);
    EXPECT_NE(doc["model"]["source"].get<std::string>().find("pretrained, from "), std::string::npos);
    EXPECT_EQ(doc["B"], 1);
    EXPECT_EQ(doc["T"], g.T());
    EXPECT_EQ(doc["token_ids"][0].get<std::vector<int>>(), g.token_ids);
    EXPECT_EQ(doc["vocab_tokens"][0].get<std::vector<std::string>>(), g.tokens);
    ASSERT_EQ(doc["tokens"][0].size(), static_cast<std::size_t>(g.T()));

    const int h = g.config.at("n_heads").get<int>(), d_k = g.config.at("d_k").get<int>(), T = g.T();
    ASSERT_EQ(doc["layers"].size(), g.layers.size());
    for (std::size_t l = 0; l < g.layers.size(); ++l)
    {
        const json& layer = doc["layers"][l];
        for (const char* key :
             {"X", "ln1", "concat", "mha", "residual", "ln2", "ffn_pre", "ffn_hidden", "ffn", "residual2"})
            expect_matches(layer[key][0], g.layer(static_cast<int>(l), key), 0,
                           "layer " + std::to_string(l) + " " + key);
        ASSERT_EQ(layer["heads"].size(), static_cast<std::size_t>(h));
        for (int j = 0; j < h; ++j)
        {
            const json& head = layer["heads"][static_cast<std::size_t>(j)];
            const std::string where = "layer " + std::to_string(l) + " head " + std::to_string(j);
            expect_matches(head["weights"][0], g.layer(static_cast<int>(l), "weights"),
                           static_cast<Eigen::Index>(j) * T, where + " weights");
            expect_matches(head["scaled"][0], g.layer(static_cast<int>(l), "scaled"),
                           static_cast<Eigen::Index>(j) * T, where + " scaled");
            // Q: head j's columns of the golden's (T, h·d_k).
            const GoldenMat q = g.layer(static_cast<int>(l), "Q").middleCols(j * d_k, d_k);
            expect_matches(head["Q"][0], q, 0, where + " Q");
        }
    }
    expect_matches(doc["embed"][0], g.at("embed"), 0, "embed");
    expect_matches(doc["logits"][0], g.at("logits"), 0, "logits");
    expect_matches(doc["probs"][0], g.at("probs"), 0, "probs");
    if (std::string(a.name) == "gpt2")
        expect_matches(doc["lnf"][0], g.at("lnf"), 0, "lnf");
    else
        expect_matches(doc["mlm_norm"][0], g.at("mlm_norm"), 0, "mlm_norm");
}

TEST(HfModelCli, ExportOfTheTinyGpt2MatchesPyTorch)
{
    check_export_against_golden({"gpt2", "gpt2"});
}

TEST(HfModelCli, ExportOfTheTinyBertMatchesPyTorch)
{
    check_export_against_golden({"bert", "bert"});
}

// One line on err, exit code 1, no file written.
void expect_refused(const std::vector<std::string>& args, const std::string& says,
                    const std::string& out_file)
{
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    if (!out_file.empty())
    {
        EXPECT_FALSE(fs::exists(out_file)) << out_file;
    }
}

TEST(HfModelCli, ExportRefusesWhatDoesNotGoWithAFolder)
{
    TempDir dir;
    const std::string out = dir / "t.json";
    const std::string gpt2 = (hf_tiny_dir() / "gpt2").string();
    // A folder that is not a model's.
    expect_refused({"export", "--model", hf_tiny_dir().string(), "--text", "hi", "-o", out}, "config.json",
                   out);
    // Options the folder decides, or that an opened model has not.
    expect_refused({"export", "--model", gpt2, "--text", "hi", "--heads", "2", "-o", out}, "--heads", out);
    expect_refused({"export", "--model", gpt2, "--text", "hi", "--gradients", "-o", out}, "--gradients", out);
    expect_refused({"export", "--model", gpt2, "-o", out}, "--text", out);
    // Longer than the context (16 tokens): the message names the limit.
    std::string long_text;
    for (int i = 0; i < 20; ++i)
        long_text += " cat";
    expect_refused({"export", "--model", gpt2, "--text", long_text, "-o", out}, "at most 16", out);
}

TEST(HfModelCli, BenchPrintsEveryKeyWithANumber)
{
    const CliResult r = run_cli({"bench", "--model", (hf_tiny_dir() / "bert").string(), "--text",
                                 "the cat sat on the [MASK].", "--repeats", "2", "--threads", "1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(line_count(r.out), 2) << r.out; // the header and the figures
    EXPECT_NE(r.out.find("model=BERT ("), std::string::npos) << r.out;
    for (const char* key : {"open_ms", "forward_ms", "trace_ms", "trace_mb", "rss_mb", "rest_mb"})
    {
        std::smatch m;
        ASSERT_TRUE(std::regex_search(r.out, m, std::regex(std::string(" ") + key + "=([^ \n]+)"))) << key;
        std::size_t used = 0;
        const double value = std::stod(m[1].str(), &used);
        EXPECT_EQ(used, m[1].str().size()) << key << "=" << m[1];
        EXPECT_GE(value, 0.0) << key;
    }
    EXPECT_NE(r.out.find("\nT=9 "), std::string::npos) << r.out; // [CLS] 6 words [MASK] . [SEP]
}

TEST(HfModelCli, BenchRefusesWhatDoesNotGoWithAFolder)
{
    const std::string bert = (hf_tiny_dir() / "bert").string();
    expect_refused({"bench", "--model", bert, "--text", "hi", "--t", "8"}, "--t", "");
    expect_refused({"bench", "--model", bert}, "--text", "");
    expect_refused({"bench", "--text", "hi"}, "--model", "");
    expect_refused({"bench", "--model", (hf_tiny_dir() / "bert" / "config.json").string(), "--text", "hi"},
                   "not a folder", "");
    expect_refused({"bench", "--model", hf_tiny_dir().string(), "--text", "hi"}, "config.json", "");
}

} // namespace
} // namespace attnlab::test
