// attnlab export: a valid run writes the file; every bad input exits non-zero with one line and no file.
#include "cli_test_util.h"

#include "core/io/json_io.h"
#include "core/io/session_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace attnlab::test
{
namespace
{

namespace fs = std::filesystem;
using json = nlohmann::json;

TEST(ExportCommand, WritesTheTraceWithTheOptionsGiven)
{
    TempDir dir;
    const CliResult r = run_cli({"export",
                                 "--text",
                                 "the cat sat\na dog",
                                 "--target",
                                 "le chat",
                                 "--d-model",
                                 "8",
                                 "--heads",
                                 "2",
                                 "--d-ff",
                                 "16",
                                 "--layers",
                                 "2",
                                 "--mask",
                                 "causal",
                                 "--positional",
                                 "none",
                                 "--temperature",
                                 "0.5",
                                 "--no-scale",
                                 "--seed",
                                 "7",
                                 "-o",
                                 dir / "t.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    const json doc = read_json(dir / "t.json");
    EXPECT_EQ(doc["format"], "attnlab-trace");
    const json& c = doc["config"];
    EXPECT_EQ(c["d_model"], 8);
    EXPECT_EQ(c["heads"], 2);
    EXPECT_EQ(c["d_ff"], 16);
    EXPECT_EQ(c["layers"], 2);
    EXPECT_EQ(c["mask"], "causal");
    EXPECT_EQ(c["positional"], "none");
    EXPECT_EQ(c["temperature"], 0.5);
    EXPECT_EQ(c["seed"], 7);
    EXPECT_EQ(c["scale"], false);
    EXPECT_EQ(doc["tokens"].size(), 2u);
    EXPECT_EQ(doc["layers"].size(), 2u);
    EXPECT_TRUE(doc.contains("cross"));
}

TEST(ExportCommand, OptionsOverrideTheSessionFile)
{
    TempDir dir;
    Session s;
    s.text = "one two three";
    s.config.d_model = 8;
    s.config.n_heads = 4;
    s.config.seed = 3;
    ASSERT_TRUE(save_session_file(s, dir / "s.json").is_ok());
    const CliResult r =
        run_cli({"export", "--session", dir / "s.json", "--heads", "2", "-o", dir / "t.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json doc = read_json(dir / "t.json");
    EXPECT_EQ(doc["config"]["heads"], 2);
    EXPECT_EQ(doc["config"]["d_model"], 8);
    EXPECT_EQ(doc["config"]["seed"], 3);
    EXPECT_EQ(doc["tokens"][0], json({"one", "two", "three"}));
}

// A session that names a Hugging Face folder or a trained model: this export holds the session's own model,
// and says so and how to export the other (it wrote the seeded model's trace without a word).
TEST(ExportCommand, ASessionsModelFolderIsNamedAsNotOpened)
{
    TempDir dir;
    Session s;
    s.text = "one two three";
    s.model_folder = "/models/gpt2";
    s.model_path = dir / "model.json";
    ASSERT_TRUE(save_session_file(s, dir / "s.json").is_ok());
    const CliResult r = run_cli({"export", "--session", dir / "s.json", "-o", dir / "t.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("note: the session names the Hugging Face folder /models/gpt2"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("attnlab export --model FOLDER --text"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("note: the session names the trained model " + (dir / "model.json")),
              std::string::npos)
        << r.err;
    // A session of its own model says nothing.
    Session plain;
    plain.text = "one two three";
    ASSERT_TRUE(save_session_file(plain, dir / "p.json").is_ok());
    const CliResult quiet = run_cli({"export", "--session", dir / "p.json", "-o", dir / "u.json"});
    ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
    EXPECT_EQ(quiet.err, "");
}

TEST(ExportCommand, WeightsFromAnotherExportGiveTheSameNumbers)
{
    TempDir dir;
    ASSERT_EQ(run_cli({"export", "--text", "a b c", "--d-model", "8", "--heads", "2", "--seed", "5", "-o",
                       dir / "first.json"})
                  .exit_code,
              0);
    // Seed 6 would give other weights; the imported ones must win.
    const CliResult r = run_cli({"export", "--text", "a b c", "--d-model", "8", "--heads", "2", "--seed", "6",
                                 "--weights", dir / "first.json", "-o", dir / "second.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json first = read_json(dir / "first.json"), second = read_json(dir / "second.json");
    EXPECT_EQ(first["weights"], second["weights"]);
    // Seed 6 changes the embeddings (so X), but Q is still computed with the imported W_Q: Q = X W_Q.
    const json& X = second["layers"][0]["X"][0];
    const json& W = second["weights"]["layers"][0]["W_Q"][1];
    const json& Q = second["layers"][0]["heads"][1]["Q"][0];
    EXPECT_NE(X, first["layers"][0]["X"][0]);
    for (size_t t = 0; t < 3; ++t)
        for (size_t c = 0; c < 4; ++c)
        {
            double sum = 0;
            for (size_t i = 0; i < 8; ++i)
                sum += X[t][i].get<double>() * W[i][c].get<double>();
            EXPECT_NEAR(Q[t][c].get<double>(), sum, 1e-4);
        }
    EXPECT_EQ(second["weights_source"], dir / "first.json");
}

// Each bad command line: the exit code, exactly one line on stderr containing expected, no output file.
void expect_failure(std::vector<std::string> args, int exit_code, const std::string& expected)
{
    TempDir dir;
    const std::string out = dir / "out.json";
    args.push_back("-o");
    args.push_back(out);
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, exit_code) << r.err;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
    EXPECT_TRUE(fs::is_empty(dir.path)) << "a partial or temporary file was left";
}

TEST(ExportCommand, BadInputs)
{
    expect_failure({"export", "--mask", "diagonal"}, 1, "--mask: ");
    expect_failure({"export", "--positional", "learned"}, 1, "--positional: ");
    expect_failure({"export", "--d-model", "10", "--heads", "3"}, 1, "attnlab export: ");
    expect_failure({"export", "--text", "   "}, 1, "no tokens");
    expect_failure({"export", "--heads", "-2"}, 1, "attnlab export: ");
    expect_failure({"export", "--d-model", "many"}, 2, "attnlab export: ");
    expect_failure({"export", "--frobnicate"}, 2, "--frobnicate");
    expect_failure({"export", "--session", "/nonexistent/s.json"}, 1, "/nonexistent/s.json");
    expect_failure({"export", "--weights", "/nonexistent/w.json"}, 1, "/nonexistent/w.json");
    expect_failure({"frobnicate"}, 2, "attnlab usage: ");
    expect_failure({"export", "--seed", "-5"}, 1, "--seed: \"-5\" is not a whole number from 0 to");
    expect_failure({"export", "--seed", "99999999999999999999999"}, 1, "--seed: ");
    expect_failure({"export", "--seed", "7x"}, 1, "--seed: ");
    expect_failure({"export", "--text", "caf\xe9 au lait"}, 1, "not valid UTF-8 (byte 3)");
    // An empty path is not "seeded weights" in disguise; devices and FIFOs are not read (no endless read).
    expect_failure({"export", "--weights", ""}, 1, "--weights: the file path is empty");
    expect_failure({"export", "--weights", "/dev/zero"}, 1, "not a regular file");
    expect_failure({"export", "--session", "/dev/zero"}, 1, "not a regular file");
    expect_failure({"export", "--temperature", "1e-9"}, 1, "got 1e-09");
}

TEST(ExportCommand, MissingOutputIsAUsageError)
{
    const CliResult r = run_cli({"export", "--text", "a b"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("--output"), std::string::npos) << r.err;
}

TEST(ExportCommand, UnwritableOutput)
{
    const CliResult r = run_cli({"export", "--text", "a b", "-o", "/nonexistent/dir/x.json"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("cannot write /nonexistent/dir/x.json"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists("/nonexistent/dir/x.json"));
}

TEST(ExportCommand, WeightsOfTheWrongShape)
{
    TempDir dir;
    ASSERT_EQ(run_cli({"export", "--text", "a b", "--d-model", "8", "--heads", "2", "-o", dir / "w.json"})
                  .exit_code,
              0);
    const CliResult r =
        run_cli({"export", "--text", "a b", "--weights", dir / "w.json", "-o", dir / "t.json"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("the file was made with d_model 8, heads 2"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "t.json"));
}

TEST(ExportCommand, HelpGoesToStdoutWithExitZero)
{
    const CliResult r = run_cli({"export", "--help"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("--d-model"), std::string::npos);
    EXPECT_TRUE(r.err.empty());
}

} // namespace
} // namespace attnlab::test
