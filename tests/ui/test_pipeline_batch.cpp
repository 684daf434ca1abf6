// The Pipeline's whole-batch view: the pure batch_stack (B slices with the [B, T, d] shape) and headless
// frames of the panel.
#include "core/settings.h"
#include "ui/model/batch_stack.h"
#include "ui/model/prefs.h"
#include "ui/panels/panels.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

using namespace attnlab;
using namespace attnlab::test;

namespace
{

using test::contains;

class PipelineBatch : public ::testing::Test
{
protected:
    HeadlessUi ui;
    std::unique_ptr<AppState> state = std::make_unique<AppState>();

    void two_sentences()
    {
        state->session.text = "the cat sat on the mat\nhello world";
        ui.frames(*state, 2);
        ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    }
};

} // namespace

TEST_F(PipelineBatch, TheStackListsEverySentencesMatrixWithTheShapeOfTheBatch)
{
    two_sentences();
    const Trace& t = state->trace();
    MatrixRef ref;
    ref.stage = Stage::X;
    ref.b = 1; // ignored: every sentence is listed
    const BatchStack x = batch_stack(*state, ref);
    EXPECT_EQ(x.caption(), "X: [2, 6, 16]");
    EXPECT_EQ(x.symbols, "[B, T, d_model]");
    ASSERT_EQ(x.slices.size(), 2u);
    for (int b = 0; b < 2; ++b)
    {
        const MatrixView view = resolve_matrix(*state, x.slices[static_cast<std::size_t>(b)].ref);
        ASSERT_NE(view.m, nullptr);
        EXPECT_EQ(*view.m, t.layers[0].X[static_cast<std::size_t>(b)]);
        EXPECT_TRUE(contains(x.slices[static_cast<std::size_t>(b)].label, "b = " + std::to_string(b)));
    }
    EXPECT_TRUE(contains(x.slices[1].label, "hello world")) << x.slices[1].label;
    EXPECT_FALSE(contains(x.slices[1].label, "<pad>")) << x.slices[1].label;

    // Per head, as the forum's thread writes it: scores of [2, 6, 4] queries and keys are [2, 6, 6].
    ref.stage = Stage::scores;
    ref.head = 1;
    const BatchStack scores = batch_stack(*state, ref);
    EXPECT_EQ(scores.caption(), "scores (head 2): [2, 6, 6]");
    EXPECT_EQ(scores.symbols, "[B, T, T]");
    ASSERT_EQ(scores.slices.size(), 2u);
    for (int b = 0; b < 2; ++b)
        EXPECT_EQ(*resolve_matrix(*state, scores.slices[static_cast<std::size_t>(b)].ref).m,
                  t.layers[0].attn.head(b, 1).scores);
    ref.stage = Stage::Q;
    EXPECT_EQ(batch_stack(*state, ref).caption(), "Q (head 2): [2, 6, 4]");

    // One matrix for every sentence: nothing to stack.
    ref.stage = Stage::positional;
    EXPECT_TRUE(batch_stack(*state, ref).slices.empty());
}

TEST_F(PipelineBatch, OneSentenceHasNothingToStack)
{
    ui.frames(*state, 2);
    MatrixRef ref;
    ref.stage = Stage::X;
    EXPECT_TRUE(batch_stack(*state, ref).slices.empty());
}

TEST_F(PipelineBatch, TheWholeBatchDrawsOneMapPerSentenceUnderTheCaption)
{
    two_sentences();
    state->stage_collapsed.fill(true);
    state->stage_collapsed[static_cast<std::size_t>(Stage::X)] = false;
    const auto one = ui.frames(*state, 2, panel_only(draw_pipeline_panel));
    EXPECT_TRUE(contains(one.text, "wholebatch") || contains(one.text, "whole batch")) << one.text;
    ASSERT_GE(one.textures.size(), 1u);
    EXPECT_FALSE(contains(one.text, "[2, 6, 16]"));

    state->prefs.whole_batch = true;
    const auto all = ui.frames(*state, 2, panel_only(draw_pipeline_panel));
    EXPECT_TRUE(contains(all.text, "X: [2, 6, 16]")) << all.text;
    EXPECT_TRUE(contains(all.text, "b = 0")) << all.text;
    EXPECT_TRUE(contains(all.text, "b = 1")) << all.text;
    // X's one map becomes two, the second below the first.
    EXPECT_EQ(all.textures.size(), 2 * one.textures.size());
    float top = 1e9f, bottom = -1e9f;
    for (const auto& entry : all.texture_rects)
    {
        top = std::min(top, entry.second.y);
        bottom = std::max(bottom, entry.second.y);
    }
    EXPECT_GT(bottom, top);
}

TEST(PipelineBatchPrefs, TheBoxIsKeptInThePreferences)
{
    ViewPrefs prefs;
    EXPECT_FALSE(prefs.whole_batch);
    prefs.whole_batch = true;
    const std::string text = prefs_to_text(prefs);
    EXPECT_TRUE(contains(text, "whole_batch = 1")) << text;
    ViewPrefs loaded;
    prefs_from_text(text, loaded);
    EXPECT_TRUE(loaded.whole_batch);
    EXPECT_EQ(loaded, prefs);
}
