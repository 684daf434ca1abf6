// attnlab tasks and attnlab train: the task list, a run that learns, same seeds same bytes, every bad option.
#include "cli_test_util.h"

#include "core/io/model_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace attnlab::test
{
namespace
{

namespace fs = std::filesystem;

std::string slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string last_line(const std::string& text)
{
    std::string t = text;
    while (!t.empty() && t.back() == '\n')
        t.pop_back();
    const size_t at = t.rfind('\n');
    return at == std::string::npos ? t : t.substr(at + 1);
}

TEST(TasksCommand, ListsAllEightWithTheirPreset)
{
    const CliResult r = run_cli({"tasks"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_EQ(line_count(r.out), 8) << r.out;
    std::istringstream lines(r.out);
    std::string line;
    for (const char* id : {"copy", "reverse", "sort", "induction", "brackets", "agreement", "tally", "text"})
    {
        ASSERT_TRUE(std::getline(lines, line));
        EXPECT_EQ(line.rfind(std::string(id) + " ", 0), 0u) << line;
        for (const char* field : {" layers=", " heads=", " d_model=", " attention_only=", " norm=",
                                  " positions=", " batch=", " steps=", " lr="})
            EXPECT_NE(line.find(field), std::string::npos) << field << " in " << line;
    }
    EXPECT_NE(r.out.find("induction  layers=2 heads=4 d_model=64 attention_only=yes"), std::string::npos);
}

TEST(TrainCommand, TheSwitchesReachTheModelFile)
{
    TempDir dir;
    const CliResult r = run_cli({"train", "--task", "copy", "--steps", "2", "--no-residual", "--positional",
                                 "none", "-o", dir / "m.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("none positions, no residual"), std::string::npos) << r.out;
    TrainedModel model;
    const Status s = load_model_file(dir / "m.json", &model);
    ASSERT_TRUE(s.is_ok()) << s.message();
    EXPECT_FALSE(model.config.residual);
    EXPECT_EQ(model.config.positions, train::PositionKind::None);
    const CliResult plain = run_cli({"train", "--task", "copy", "--steps", "2", "-o", dir / "p.json"});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    ASSERT_TRUE(load_model_file(dir / "p.json", &model).is_ok());
    EXPECT_TRUE(model.config.residual);
    EXPECT_EQ(model.config.positions, train::PositionKind::Learned);
}

TEST(TrainCommand, ReverseLearnsAndTheModelLoads)
{
    TempDir dir;
    const CliResult r = run_cli(
        {"train", "--task", "reverse", "--steps", "300", "-o", dir / "m.json", "--log", dir / "m.csv"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    const std::string last = last_line(r.out);
    std::smatch m;
    ASSERT_TRUE(std::regex_match(
        last, m,
        std::regex(
            R"(steps=300 ms_per_step=[0-9]+\.[0-9]+ loss=([0-9.]+) accuracy=([0-9.]+) isa=(baseline|avx2|avx512) \(cpu: [a-z0-9]+\) products=\S+ forward=\S+)")))
        << last;
    EXPECT_GE(std::stod(m[2].str()), 0.99) << last;
    EXPECT_LT(std::stod(m[1].str()), 0.1) << last;

    TrainedModel model;
    const Status s = load_model_file(dir / "m.json", &model);
    ASSERT_TRUE(s.is_ok()) << s.message();
    EXPECT_EQ(model.task, "reverse");
    EXPECT_EQ(model.steps_taken, 300);
    EXPECT_EQ(model.settings.steps, 300);
    // Every 3rd step (1% of 300), the last one included.
    ASSERT_EQ(model.history.size(), 100u);
    EXPECT_EQ(model.history.front().step, 3);
    EXPECT_EQ(model.history.back().step, 300);
    EXPECT_GE(model.history.back().accuracy, 0.99f);

    const std::string csv = slurp(dir / "m.csv");
    EXPECT_EQ(line_count(csv), 101);
    EXPECT_EQ(csv.rfind("step,loss,held_out_loss,accuracy,L1H1_prev,L1H1_induction,L1H2_prev,L1H2_induction,"
                        "L2H1_prev,L2H1_induction,L2H2_prev,L2H2_induction\n3,",
                        0),
              0u)
        << csv.substr(0, 200);
    EXPECT_EQ(last_line(csv).rfind("300,", 0), 0u);
    // The model file lists the same scores by position, layer l's head j at l·h + j: column L2H1_prev (the
    // ninth) is previous_token[2] of the first row.
    const std::size_t row_start = csv.find('\n') + 1;
    const std::string first_row = csv.substr(row_start, csv.find('\n', row_start) - row_start);
    std::vector<std::string> fields;
    std::istringstream cells(first_row);
    for (std::string cell; std::getline(cells, cell, ',');)
        fields.push_back(cell);
    ASSERT_GT(fields.size(), 9u) << first_row;
    EXPECT_EQ(std::stof(fields[8]), model.history.front().previous_token[2]) << first_row;
    EXPECT_EQ(std::stof(fields[9]), model.history.front().induction[2]) << first_row;
}

TEST(TrainCommand, LogsEveryHundredStepsAtMostAndTheLastStep)
{
    TempDir dir;
    // 250 steps: 1% is 2 steps; a 1-layer copy model keeps it quick.
    const CliResult r = run_cli({"train", "--task", "copy", "--steps", "251", "--batch", "8", "--d-model",
                                 "8", "-o", dir / "m.json", "--log", dir / "m.csv"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    TrainedModel model;
    ASSERT_TRUE(load_model_file(dir / "m.json", &model).is_ok());
    ASSERT_EQ(model.history.size(), 126u); // 2, 4, ..., 250, and 251
    EXPECT_EQ(model.history[0].step, 2);
    EXPECT_EQ(model.history[124].step, 250);
    EXPECT_EQ(model.history[125].step, 251);
    EXPECT_EQ(line_count(slurp(dir / "m.csv")), 127);
}

TEST(TrainCommand, SameSeedGivesTheSameBytesAnotherSeedOthers)
{
    TempDir dir;
    auto train = [&](const std::string& name, const std::string& seed)
    {
        const CliResult r = run_cli({"train", "--task", "sort", "--steps", "20", "--batch", "16", "--seed",
                                     seed, "-o", dir / (name + ".json"), "--log", dir / (name + ".csv")});
        EXPECT_EQ(r.exit_code, 0) << r.err;
    };
    train("a", "5");
    train("b", "5");
    train("c", "6");
    EXPECT_EQ(slurp(dir / "a.json"), slurp(dir / "b.json"));
    EXPECT_EQ(slurp(dir / "a.csv"), slurp(dir / "b.csv"));
    EXPECT_NE(slurp(dir / "a.json"), slurp(dir / "c.json"));
    EXPECT_NE(slurp(dir / "a.csv"), slurp(dir / "c.csv"));
    EXPECT_FALSE(slurp(dir / "a.json").empty());
}

TEST(TrainCommand, OptionsOverrideThePreset)
{
    TempDir dir;
    const CliResult r = run_cli({"train",
                                 "--task",
                                 "induction",
                                 "--layers",
                                 "1",
                                 "--heads",
                                 "2",
                                 "--d-model",
                                 "16",
                                 "--d-ff",
                                 "24",
                                 "--attention-only=false",
                                 "--norm",
                                 "post",
                                 "--positional",
                                 "sinusoidal",
                                 "--steps",
                                 "3",
                                 "--batch",
                                 "8",
                                 "--lr",
                                 "0.01",
                                 "--weight-decay",
                                 "0",
                                 "--seed",
                                 "9",
                                 "--threads",
                                 "2",
                                 "-o",
                                 dir / "m.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    TrainedModel m;
    ASSERT_TRUE(load_model_file(dir / "m.json", &m).is_ok());
    EXPECT_EQ(m.task, "induction");
    EXPECT_EQ(m.config.n_layers, 1);
    EXPECT_EQ(m.config.n_heads, 2);
    EXPECT_EQ(m.config.d_model, 16);
    EXPECT_EQ(m.config.d_ff, 24);
    EXPECT_FALSE(m.config.attention_only); // the preset is attention-only
    EXPECT_EQ(m.config.norm, train::NormPlacement::Post);
    EXPECT_EQ(m.config.positions, train::PositionKind::Sinusoidal);
    EXPECT_EQ(m.config.seed, 9u);
    EXPECT_EQ(m.settings.data_seed, 9u);
    EXPECT_EQ(m.settings.steps, 3);
    EXPECT_EQ(m.settings.batch_size, 8);
    EXPECT_EQ(m.settings.optimizer.lr, 0.01f);
    EXPECT_EQ(m.settings.optimizer.weight_decay, 0.0f);
    EXPECT_EQ(m.steps_taken, 3);

    const CliResult a = run_cli({"train", "--task", "copy", "--attention-only", "--steps", "1", "--batch",
                                 "4", "-o", dir / "a.json"});
    ASSERT_EQ(a.exit_code, 0) << a.err;
    ASSERT_TRUE(load_model_file(dir / "a.json", &m).is_ok());
    EXPECT_TRUE(m.config.attention_only);
}

TEST(TrainCommand, EveryBadOptionGivesOneLineAnExitCodeAndNoFile)
{
    TempDir dir;
    const std::string model = dir / "m.json", log = dir / "m.csv";
    struct Case
    {
        std::vector<std::string> args;
        int code;
        const char* part;
    };
    const std::vector<Case> cases = {
        {{"--task", "juggle"}, 1, "unknown task 'juggle' (tasks: copy, reverse"},
        {{"--task", "reverse", "--heads", "5"}, 1, "must be a multiple of the number of heads (5)"},
        {{"--task", "reverse", "--steps", "0"}, 1, "--steps must be between 1"},
        {{"--task", "reverse", "--lr=-1"}, 1, "--lr must be above 0"},
        {{"--task", "reverse", "--lr", "0"}, 1, "--lr must be above 0"},
        {{"--task", "reverse", "--weight-decay=-0.5"}, 1, "--weight-decay must be between 0"},
        {{"--task", "reverse", "--batch", "0"}, 1, "--batch must be between 1"},
        {{"--task", "reverse", "--threads", "0"}, 1, "--threads must be between 1"},
        {{"--task", "reverse", "--norm", "middle"}, 1, "--norm must be pre or post"},
        {{"--task", "reverse", "--positional", "rotary"},
         1,
         "--positional must be learned, sinusoidal or none"},
        {{"--task", "reverse", "--d-model", "8192", "--heads", "1"}, 1, "d_model must be between 1 and 4096"},
        {{"--task", "reverse", "--layers", "25"}, 1, "n_layers must be between 1 and 24"},
        {{"--task", "reverse", "--d-model", "4096", "--heads", "8", "--layers", "24"}, 1, "of memory"},
        // The run spec's limits (core/train/run_spec.h), the same as the Training panel's and lessons'.
        {{"--task", "reverse", "--lr", "5"}, 1, "--lr must be above 0 and below 1 (try 1e-3), not 5"},
        {{"--task", "reverse", "--d-model", "128", "--heads", "128"}, 1, "--heads must be between 1 and 64"},
        {{"--task", "reverse", "--steps", "lots"}, 2, "--steps"},
        {{"--task", "reverse", "--frobnicate"}, 2, "frobnicate"},
        {{"--steps", "3"}, 2, "--task"},
        // Refused as export --seed refuses them (they were clamped to 2^64 - 1).
        {{"--task", "reverse", "--seed=-1"}, 1, "--seed: \"-1\" is not a whole number from 0 to"},
        {{"--task", "reverse", "--seed", "18446744073709551616"},
         1,
         "--seed: \"18446744073709551616\" is not"},
        {{"--task", "reverse", "--seed", "18446744073709551617"}, 1, "is not a whole number"},
        {{"--task", "reverse", "--seed", "1e23"}, 1, "--seed: \"1e23\" is not a whole number"},
        {{"--task", "reverse", "--seed", "3.5"}, 1, "is not a whole number"},
    };
    for (const Case& c : cases)
    {
        std::vector<std::string> args = {"train"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        args.insert(args.end(), {"-o", model, "--log", log});
        SCOPED_TRACE(c.part);
        const CliResult r = run_cli(args);
        EXPECT_EQ(r.exit_code, c.code) << r.err;
        EXPECT_EQ(line_count(r.err), 1) << r.err;
        EXPECT_NE(r.err.find(c.part), std::string::npos) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_FALSE(fs::exists(model));
        EXPECT_FALSE(fs::exists(log));
    }
    EXPECT_TRUE(fs::is_empty(dir.path));
}

TEST(TrainCommand, UnwritablePathsAreReportedBeforeTraining)
{
    TempDir dir;
    const CliResult a = run_cli({"train", "--task", "sort", "--steps", "1000000", "-o",
                                 dir / "missing/m.json", "--log", dir / "m.csv"});
    EXPECT_EQ(a.exit_code, 1);
    EXPECT_EQ(line_count(a.err), 1) << a.err;
    EXPECT_NE(a.err.find("missing/m.json"), std::string::npos) << a.err;
    EXPECT_TRUE(a.out.empty()) << a.out; // no step was taken: a million would show
    const CliResult b = run_cli({"train", "--task", "sort", "--steps", "1000000", "-o", dir / "m.json",
                                 "--log", dir / "missing/m.csv"});
    EXPECT_EQ(b.exit_code, 1);
    EXPECT_EQ(line_count(b.err), 1) << b.err;
    EXPECT_NE(b.err.find("missing/m.csv"), std::string::npos) << b.err;
    EXPECT_TRUE(b.out.empty()) << b.out;
    EXPECT_TRUE(fs::is_empty(dir.path));
}

} // namespace
} // namespace attnlab::test
