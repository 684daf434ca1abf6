// Headless frames of the whole app and of each panel: what is drawn, what is uploaded, what clicks change.
#include "ui/app_ui.h"
#include "ui/colormap.h"
#include "ui/panels/panels.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <memory>
#include <string>

namespace attnlab
{
namespace
{

using test::HeadlessUi;
using test::panel_only;

bool contains(const std::string& haystack, const std::string& needle)
{
    return haystack.find(needle) != std::string::npos;
}

std::string words(int n)
{
    std::string s;
    const char* vocab[] = {"the", "cat", "sat", "on", "a", "mat", "and", "looked", "at", "students"};
    for (int i = 0; i < n; ++i)
        s += std::string(i ? " " : "") + vocab[i % 10];
    return s;
}

// The texture of a heatmap drawn last frame (0 when it was not drawn).
TextureHandle texture_of(const AppState& state, const std::string& key)
{
    const HeatmapEntry* e = state.heatmaps.find(key);
    return e == nullptr ? 0 : e->texture;
}

class PanelTest : public ::testing::Test
{
protected:
    HeadlessUi ui;
    std::unique_ptr<AppState> state = std::make_unique<AppState>();
};

// [SECTION] The whole app

TEST_F(PanelTest, DefaultSessionDrawsEveryOpenPanelWithTextures)
{
    const auto out = ui.frames(*state, 3);
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    for (const char* text : {"Sentences (one per line = a batch)", "Tokens: B = 1 sentence, T = 6", "d_model",
                             "weights A_h of layer 1", "Hover any cell"})
        EXPECT_TRUE(contains(out.text, text)) << text << "\n" << out.text;
    // Heads: one texture per head, each drawn.
    for (int j = 0; j < 4; ++j)
    {
        const TextureHandle t = texture_of(*state, "L0/b0/weights/h" + std::to_string(j));
        ASSERT_NE(t, 0u) << j;
        EXPECT_TRUE(out.textures.count(t)) << j;
    }
    // Pipeline: X and the selected head's Q are on screen.
    EXPECT_TRUE(out.textures.count(texture_of(*state, "L0/b0/X")));
    EXPECT_TRUE(out.textures.count(texture_of(*state, "L0/b0/Q/h0")));
}

TEST_F(PanelTest, TexturesAreUploadedOnlyWhenTheTraceChanges)
{
    ui.frames(*state, 3);
    const int uploads = ui.textures.creates + ui.textures.updates;
    const auto generation = state->engine.generation();
    ui.frames(*state, 5);
    EXPECT_EQ(ui.textures.creates + ui.textures.updates, uploads);
    EXPECT_EQ(state->engine.generation(), generation);

    state->session.config.seed = 7;
    state->edit();
    ui.frame(*state);
    EXPECT_EQ(state->engine.generation(), generation + 1);
    EXPECT_GT(ui.textures.updates, 0);
    const int after_edit = ui.textures.creates + ui.textures.updates;
    ui.frames(*state, 3);
    EXPECT_EQ(ui.textures.creates + ui.textures.updates, after_edit);
}

TEST_F(PanelTest, InvalidConfigShowsTheMessageAndKeepsTheLastGoodTrace)
{
    ui.frames(*state, 2);
    const int T = state->trace().T();
    state->session.config.d_model = 10; // not divisible by h = 4
    state->edit();
    const auto out = ui.frames(*state, 2);
    ASSERT_FALSE(state->status.is_ok());
    // The message is wrapped to the panel's width: look for its first words.
    EXPECT_TRUE(contains(out.text, state->status.message().substr(0, 16))) << state->status.message() << "\n"
                                                                           << out.text;
    EXPECT_TRUE(contains(out.text, "showing the last valid result"));
    EXPECT_TRUE(state->has_trace());
    EXPECT_EQ(state->trace().T(), T);
    EXPECT_EQ(state->trace().config.d_model, 16);
    EXPECT_TRUE(out.textures.count(texture_of(*state, "L0/b0/weights/h0"))); // the picture stays
    // The Model panel shows no made-up default for d_k and d_v (10 / 4 is not whole).
    EXPECT_FALSE(contains(out.text, "d_k = 2")) << out.text;
    // The status bar says the picture is the last valid one, whatever panel has the focus.
    EXPECT_TRUE(contains(out.text, "showing the last valid result: " + state->status.message().substr(0, 10)))
        << out.text;
}

TEST_F(PanelTest, NoTokensIsAMessageNotACrash)
{
    state->session.text = "   ";
    const auto out = ui.frames(*state, 2);
    EXPECT_FALSE(state->status.is_ok());
    EXPECT_FALSE(state->has_trace());
    EXPECT_TRUE(contains(out.text, "No result yet")) << out.text;
    EXPECT_TRUE(out.textures.empty());
}

// [SECTION] Sizes: T = 1, T = 512, h = 16

TEST_F(PanelTest, SingleTokenDrawsOneByOneMaps)
{
    state->session.text = "attention";
    const auto out = ui.frames(*state, 3);
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    const TextureHandle w = texture_of(*state, "L0/b0/weights/h0");
    ASSERT_NE(w, 0u);
    EXPECT_TRUE(out.textures.count(w));
    const HeatmapEntry* e = state->heatmaps.find("L0/b0/weights/h0");
    EXPECT_EQ(e->rows, 1);
    EXPECT_EQ(e->cols, 1);
    // A single key gets all the weight: the texture is the top colour of the sequential map.
    EXPECT_EQ(ui.textures.textures.at(w).pixels.front(), colormap_table(Colormap::Sequential)[255]);
}

TEST_F(PanelTest, LargeTUsesTexturesNotCells)
{
    state->session.text = words(512);
    state->session.config.d_model = 512;
    state->session.config.n_heads = 8;
    const auto out = ui.frames(*state, 3);
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    EXPECT_EQ(state->trace().T(), 512);
    // 512 x 512 maps drawn as one quad each: a whole frame stays far below one rectangle per cell.
    EXPECT_LT(out.vertices, 60000) << out.vertices;
    for (int j = 0; j < 8; ++j)
        EXPECT_TRUE(out.textures.count(texture_of(*state, "L0/b0/weights/h" + std::to_string(j)))) << j;
    const HeatmapEntry* e = state->heatmaps.find("L0/b0/weights/h0");
    EXPECT_EQ(e->texels, 1);
    EXPECT_EQ(ui.textures.textures.at(e->texture).w, 512);
}

TEST_F(PanelTest, SixteenHeadsAreSixteenSmallMultiples)
{
    state->session.config.d_model = 32;
    state->session.config.n_heads = 16;
    const auto out = ui.frames(*state, 3, panel_only(draw_heads_panel));
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    EXPECT_EQ(out.textures.size(), 16u);
    // Each map's title: the head's chip (its number) and its H.
    for (int j = 0; j < 16; ++j)
        EXPECT_TRUE(contains(out.text, std::to_string(j + 1) + " H = ")) << j << "\n" << out.text;
}

// [SECTION] Batch with padding, cross-attention

TEST_F(PanelTest, BatchWithPaddingMarksPadAndMasksItsKey)
{
    state->session.text = "the cat sat\nhello";
    ui.frames(*state, 2);
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    const auto out = ui.frames(*state, 2, panel_only(draw_input_panel));
    EXPECT_TRUE(contains(out.text, "B = 2 sentences, T = 3")) << out.text;
    EXPECT_TRUE(contains(out.text, "<pad>"));
    // Select sentence 1: its masked scores carry −∞ in the padding columns, drawn in their own colour.
    state->sel.b = 1;
    state->stage_collapsed.fill(true);
    state->stage_collapsed[static_cast<std::size_t>(Stage::masked)] = false;
    ui.frames(*state, 2, panel_only(draw_pipeline_panel));
    const HeatmapEntry* masked = state->heatmaps.find("L0/b1/masked/h0");
    ASSERT_NE(masked, nullptr);
    EXPECT_TRUE(masked->range.has_neg_inf);
    const auto& pixels = ui.textures.textures.at(masked->texture).pixels;
    EXPECT_NE(std::find(pixels.begin(), pixels.end(), kNegInfColor), pixels.end());
}

TEST_F(PanelTest, CausalMaskShowsMaskedWeightsInTheMaskedColour)
{
    state->session.config.mask = MaskKind::Causal;
    ui.frames(*state, 3, panel_only(draw_heads_panel));
    const HeatmapEntry* w = state->heatmaps.find("L0/b0/weights/h0");
    ASSERT_NE(w, nullptr);
    const auto& t = ui.textures.textures.at(w->texture);
    // Top-right cell (query 0, key 5) is masked; the diagonal is not.
    EXPECT_EQ(t.pixels[static_cast<std::size_t>(t.w - 2)], kNegInfColor);
    EXPECT_NE(t.pixels[static_cast<std::size_t>(t.w + 1)], kNegInfColor);
}

TEST_F(PanelTest, CrossAttentionAppearsInThePipeline)
{
    state->session.target = "le chat";
    state->stage_collapsed.fill(true);
    const auto out = ui.frames(*state, 3, panel_only(draw_pipeline_panel));
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    ASSERT_TRUE(state->trace().has_cross);
    EXPECT_TRUE(contains(out.text, "Cross-attention")) << out.text;
    // Only the cross block's weights open.
    state->cross_stage_collapsed.fill(true);
    state->cross_stage_collapsed[static_cast<std::size_t>(Stage::weights)] = false;
    const auto out2 = ui.frames(*state, 2, panel_only(draw_pipeline_panel));
    const HeatmapEntry* w = state->heatmaps.find("cross/b0/weights/h0");
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->rows, 2); // T_q: the target's tokens
    EXPECT_EQ(w->cols, 6); // T_k: the source's tokens
    EXPECT_TRUE(out2.textures.count(w->texture));
}

// [SECTION] Pipeline: every stage, collapsing

TEST_F(PanelTest, PipelineListsEveryStageWithItsShape)
{
    state->stage_collapsed.fill(true); // headers only: every stage fits on screen
    const auto out = ui.frames(*state, 2, panel_only(draw_pipeline_panel));
    // Layer 0 of a seeded session: the input stages and every stage the engine computes, and none of the
    // stages only a trained model has.
    for (const StageInfo& info : stage_table())
    {
        EXPECT_EQ(stage_present(state->trace(), info.id, 0), info.seeded) << info.key;
        EXPECT_EQ(contains(out.text, info.name), info.seeded) << info.key;
        if (info.seeded)
            EXPECT_TRUE(contains(out.text, stage_shape(state->trace(), info.id))) << info.key;
    }
    EXPECT_TRUE(out.textures.empty()); // collapsed stages upload nothing
}

// [SECTION] Interaction: click a head, hover a cell, pin, shortcuts

TEST_F(PanelTest, ClickingAHeadSelectsIt)
{
    auto out = ui.frames(*state, 3);
    const TextureHandle t = texture_of(*state, "L0/b0/weights/h2");
    ASSERT_TRUE(out.texture_rects.count(t));
    const ImVec2 c = test::rect_center(out.texture_rects[t]);
    ui.click(*state, c.x, c.y);
    EXPECT_EQ(state->sel.head, 2);
    EXPECT_FALSE(state->pinned.valid); // the heads grid selects, it does not pin
}

TEST_F(PanelTest, HoveringAQueryRowHighlightsItInEveryHead)
{
    auto out = ui.frames(*state, 3);
    const ImVec4 r = out.texture_rects[texture_of(*state, "L0/b0/weights/h1")];
    const float row_h = (r.w - r.y) / 6.0f;
    ui.mouse((r.x + r.z) * 0.5f, r.y + row_h * 3.5f);
    const auto before = ui.frames(*state, 1);
    out = ui.frames(*state, 2);
    EXPECT_EQ(state->heads_hover_row, 3);
    EXPECT_GT(out.vertices, before.vertices - 1); // outlines are drawn on every head
}

TEST_F(PanelTest, HoverShowsTheChainAndClickPins)
{
    // Only the scores stage open, so its map is on screen.
    state->stage_collapsed.fill(true);
    state->stage_collapsed[static_cast<std::size_t>(Stage::scores)] = false;
    auto out = ui.frames(*state, 3);
    const TextureHandle t = texture_of(*state, "L0/b0/scores/h0");
    ASSERT_TRUE(out.texture_rects.count(t));
    const ImVec4 r = out.texture_rects[t];
    const float cw = (r.z - r.x) / 6.0f, ch = (r.w - r.y) / 6.0f;
    const float x = r.x + cw * 4.5f, y = r.y + ch * 1.5f; // row 1, column 4
    ui.mouse(x, y);
    out = ui.frames(*state, 2);
    ASSERT_TRUE(state->hovered.valid);
    EXPECT_EQ(state->hovered.row, 1);
    EXPECT_EQ(state->hovered.col, 4);
    EXPECT_EQ(state->hovered.matrix.stage, Stage::scores);
    for (const char* text :
         {"The chain for query i = 1", "q_i ⊙ k_j", "÷ √d_k = ÷ √4", "softmax over row i", "scores[i, j] ="})
        EXPECT_TRUE(contains(out.text, text)) << text << "\n" << out.text;

    ui.click(*state, x, y);
    ASSERT_TRUE(state->pinned.valid);
    EXPECT_EQ(state->pinned.col, 4);
    ui.mouse(5.0f, 500.0f); // away: the pinned cell stays in the inspector
    out = ui.frames(*state, 2);
    EXPECT_TRUE(contains(out.text, "pinned"));
    EXPECT_TRUE(contains(out.text, "The chain for query i = 1"));
    ui.press_key(*state, 256); // Esc
    EXPECT_FALSE(state->pinned.valid);
}

TEST_F(PanelTest, BracketKeysChangeHeadAndCtrlEqualsGrowsTheFont)
{
    ui.frames(*state, 2);
    ui.press_key(*state, keys::RightBracket);
    EXPECT_EQ(state->sel.head, 1);
    ui.press_key(*state, keys::LeftBracket);
    ui.press_key(*state, keys::LeftBracket);
    EXPECT_EQ(state->sel.head, 3); // wraps around
    const float size = state->prefs.font_size;
    ui.press_key(*state, keys::Equal, true);
    EXPECT_EQ(state->prefs.font_size, size + 1.0f);
    EXPECT_TRUE(state->request_font_rebuild);
    ui.press_key(*state, keys::Digit1 + 5, false, true); // Alt+6: Comparisons
    EXPECT_TRUE(state->prefs.open[static_cast<std::size_t>(PanelId::Comparisons)]);
}

// [SECTION] Model, comparisons

TEST_F(PanelTest, ModelPanelExplainsEverySetting)
{
    const auto out = ui.frames(*state, 2, panel_only(draw_model_panel));
    for (const char* text : {"d_model", "h (heads)", "d_k", "d_v", "d_ff", "layers (N)", "mask", "positional",
                             "τ (temperature)", "seed", "recomputed in"})
        EXPECT_TRUE(contains(out.text, text)) << text << "\n" << out.text;
    // Each setting's one-line explanation is on screen, not only in a tooltip. It is drawn smaller, and the
    // text read back from the draw data loses some spaces at that size: compare without them.
    auto squeeze = [](std::string t)
    {
        t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
        return t;
    };
    for (const char* text :
         {"width of every token vector", "heads, each with its own", "query and key width",
          "value width per head", "hidden width of the feed-forward", "encoder layers;",
          "causal: query i sees keys 0..i", "word order", "below 1 sharper", "as in the paper", "same seed"})
        EXPECT_TRUE(contains(squeeze(out.text), squeeze(text))) << text << "\n" << out.text;
}

TEST_F(PanelTest, ComparisonsShowPackedBlocksAndDifferences)
{
    const auto out = ui.frames(*state, 3, panel_only(draw_comparisons_panel));
    EXPECT_GT(state->comparisons_version, 0u);
    EXPECT_LT(state->comparisons.packed_max_diff, 1e-5f);
    EXPECT_GT(state->comparisons.single_vs_multi_max_diff, 1e-3f);
    EXPECT_TRUE(contains(out.text, "Packed X W^Q is h heads side by side")) << out.text;
    EXPECT_TRUE(contains(out.text, "Single-head vs multi-head"));
    EXPECT_TRUE(out.textures.count(texture_of(*state, "cmp/Q_packed")));
    for (int j = 0; j < 4; ++j)
        EXPECT_TRUE(out.textures.count(texture_of(*state, "L0/b0/Q/h" + std::to_string(j)))) << j;
}

TEST_F(PanelTest, ViewMenuToggleClosesAPanel)
{
    state->prefs.open[static_cast<std::size_t>(PanelId::Heads)] = false;
    const auto out = ui.frames(*state, 2);
    EXPECT_FALSE(contains(out.text, "weights A_h of layer 1"));
    EXPECT_FALSE(out.textures.count(texture_of(*state, "L0/b0/weights/h3")));
}

} // namespace
} // namespace attnlab
