// The built-in trained model (assets/models): it is what its README's command says, and its heads do what the
// lesson and the menu say, scored again here on the held-out tenth of the book.
#include "core/io/builtin_models.h"
#include "core/io/model_file.h"
#include "core/train/trainer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace attnlab
{
namespace
{

// The value after `option` in the README's `attnlab train` command for this model's file ("" when absent).
std::string command_option(const std::string& command, const std::string& option)
{
    const std::size_t at = command.find(" " + option + " ");
    if (at == std::string::npos)
        return std::string();
    const std::size_t from = at + option.size() + 2;
    return command.substr(from, command.find(' ', from) - from);
}

// The README's one command that writes this file.
std::string readme_command(const BuiltinModel& m)
{
    std::ifstream in(builtin_models_folder() + "/README.md");
    std::string line;
    while (std::getline(in, line))
        if (line.find("attnlab train ") != std::string::npos &&
            line.find(std::string("assets/models/") + m.file) != std::string::npos)
            return line;
    return std::string();
}

double best_in_layer(const train::EvalStats& e, int layer, int h, double train::HeadScores::*score)
{
    double top = -1;
    for (int j = 0; j < h; ++j)
        top = std::max(top, e.heads[static_cast<std::size_t>(layer * h + j)].*score);
    return top;
}

} // namespace

TEST(BuiltinModels, EveryEntryLoadsAndUnknownKeysAreRefused)
{
    ASSERT_FALSE(builtin_models().empty());
    for (const BuiltinModel& m : builtin_models())
    {
        TrainedModel model;
        const Status s = load_builtin_model(m.key, &model);
        EXPECT_TRUE(s) << m.key << ": " << s.message();
        EXPECT_EQ(find_builtin_model(m.key), &m);
    }
    TrainedModel model;
    const Status s = load_builtin_model("tolstoy", &model);
    EXPECT_FALSE(s);
    EXPECT_NE(s.message().find("austen"), std::string::npos) << s.message();
}

// Regenerating the file takes its whole run (minutes on 2 cores), too slow for the suite: the file is checked
// against its README command's settings, and its heads are scored again on held-out text.
TEST(BuiltinModels, TheAustenModelIsItsCommandsRunAndItsHeadsFormed)
{
    const BuiltinModel* m = find_builtin_model("austen");
    ASSERT_NE(m, nullptr);
    const std::string command = readme_command(*m);
    ASSERT_FALSE(command.empty()) << "assets/models/README.md gives no `attnlab train` command for "
                                  << m->file;

    TrainedModel model;
    ASSERT_TRUE(load_builtin_model("austen", &model));
    EXPECT_EQ(model.task, "text");
    EXPECT_EQ(model.text.corpus, "austen");
    EXPECT_EQ(command_option(command, "--task"), "text");
    EXPECT_EQ(command_option(command, "--corpus"), "austen");
    EXPECT_EQ(std::to_string(model.steps_taken), command_option(command, "--steps"));
    EXPECT_EQ(std::to_string(model.settings.data_seed), command_option(command, "--seed"));
    EXPECT_EQ(std::to_string(model.config.seed), command_option(command, "--seed"));
    EXPECT_FLOAT_EQ(model.text.repeat, std::stof(command_option(command, "--repeat")));
    EXPECT_EQ(model.config.n_layers, 2);
    EXPECT_EQ(model.config.n_heads, 4);
    EXPECT_EQ(static_cast<int>(model.history.size()) > 0, true) << "the run's curves come with it";

    // Scored again on the held-out tenth (never trained on, no repeats).
    train::Task task(train::TaskKind::Text);
    ASSERT_TRUE(trained_text_task(model, &task));
    train::Preset preset;
    preset.model = model.config;
    preset.train = model.settings;
    train::Trainer trainer;
    ASSERT_TRUE(trainer.init(task, preset));
    ASSERT_TRUE(trainer.restore(model.params));
    const train::EvalStats e = trainer.evaluate();
    ASSERT_EQ(e.heads.size(), 8u);
    const double previous = best_in_layer(e, 0, 4, &train::HeadScores::previous_token);
    const double induction = best_in_layer(e, 1, 4, &train::HeadScores::induction);
    std::printf(
        "built-in austen model: held-out loss %.3f, layer-1 previous token %.2f, layer-2 induction %.2f\n",
        e.loss, previous, induction);
    EXPECT_GE(previous, 0.5) << "a previous-token head in the first layer";
    EXPECT_GE(induction, 0.15) << "an induction head in the second layer";
    EXPECT_LT(e.loss, 2.0) << "held-out cross-entropy in nats (4.3 untrained)";
}

} // namespace attnlab
