// make_random_hf_model at tiny shapes: the folders it writes open with load_hf_model, with the shape asked
// for, the real tokenizers, and a forward pass that gives finite logits.
#include "core/io/hf_model.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;

// Runs the tool with args into a fresh folder under the test's temporary directory; returns the folder.
fs::path make_model(const std::string& name, const std::string& args)
{
    const fs::path dir =
        fs::temp_directory_path() / ("attnlab_random_hf_" + name + "_" +
                                     std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
    fs::remove_all(dir);
    const std::string command = std::string(ATTNLAB_BINARY_DIR) + "/tests/bench/make_random_hf_model -o " +
                                dir.string() + " " + args + " > /dev/null";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return dir;
}

TEST(RandomHfModel, Gpt2FolderOpensWithTheShapeAskedForAndGpt2sTokenizer)
{
    const fs::path dir = make_model("gpt2", "--arch gpt2 --layers 2 --heads 2 --d-model 8 --positions 16");
    HfLoadedModel model;
    const Status status = load_hf_model(dir.string(), &model);
    ASSERT_TRUE(status) << status.message();
    EXPECT_TRUE(model.is_gpt2());
    EXPECT_EQ(model.config.n_layers, 2);
    EXPECT_EQ(model.config.n_heads, 2);
    EXPECT_EQ(model.config.d_model, 8);
    EXPECT_EQ(model.config.resolved_d_ff(), 32);
    EXPECT_EQ(model.config.T_max, 16);
    EXPECT_EQ(model.config.vocab_size, 50257);
    EXPECT_TRUE(model.config.tied_unembedding);
    // 50257·8 + 16·8 embeddings, 2 layers of (8·24 + 24 + 8·8 + 8 + 8·32 + 32 + 32·8 + 8 + 4·8), ln_f.
    EXPECT_EQ(model.parameters,
              50257LL * 8 + 16 * 8 + 2 * (192 + 24 + 64 + 8 + 256 + 32 + 256 + 8 + 32) + 16);
    HfRun run;
    ASSERT_TRUE(run_hf_text(model, "Hello world", &run));
    EXPECT_EQ(run.encoding.ids, (std::vector<int>{15496, 995})); // GPT-2's own ids
    EXPECT_TRUE(run.acts.logits.allFinite());
    EXPECT_GT(run.acts.logits.cwiseAbs().maxCoeff(), 0.0f); // the weights are random, not zero
    fs::remove_all(dir);
}

TEST(RandomHfModel, BertFolderOpensWithBertBaseUncasedsVocabulary)
{
    const fs::path dir =
        make_model("bert", "--arch bert --layers 1 --heads 2 --d-model 8 --d-ff 16 --positions 32");
    HfLoadedModel model;
    const Status status = load_hf_model(dir.string(), &model);
    ASSERT_TRUE(status) << status.message();
    EXPECT_FALSE(model.is_gpt2());
    EXPECT_EQ(model.config.n_layers, 1);
    EXPECT_EQ(model.config.resolved_d_ff(), 16);
    EXPECT_EQ(model.config.T_max, 32);
    EXPECT_EQ(model.config.vocab_size, 30522);
    EXPECT_EQ(model.mask_id, 103);
    HfRun run;
    ASSERT_TRUE(run_hf_text(model, "the cat [MASK] on the mat", &run));
    EXPECT_EQ(run.encoding.ids.front(), 101); // [CLS]
    EXPECT_EQ(run.encoding.ids[3], 103);      // [MASK] stays one token
    EXPECT_TRUE(run.acts.logits.allFinite());
    fs::remove_all(dir);
}

TEST(RandomHfModel, RefusesAnUnknownArchitecture)
{
    const std::string command = std::string(ATTNLAB_BINARY_DIR) +
                                "/tests/bench/make_random_hf_model -o /nonexistent/x --arch t5 2> /dev/null";
    EXPECT_NE(std::system(command.c_str()), 0);
}

} // namespace
} // namespace attnlab
