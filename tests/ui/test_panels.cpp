// Headless frames of the whole app and of each panel: what is drawn, what is uploaded, what clicks change.
#include "core/settings.h"
#include "ui/heatmap/heatmap.h"
#include "ui/model/lessons.h"
#include "ui/panels/panels.h"
#include "ui/picture/colormap.h"
#include "ui/picture/heatmap_math.h"
#include "ui/shell/app_ui.h"
#include "ui/shell/fonts.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attnlab
{
namespace
{

using test::contains;
using test::HeadlessUi;
using test::panel_only;
using test::text_position;

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

// Where the glyph `c` was drawn last frame (its quad's top-left corners, in drawing order).
std::vector<ImVec2> glyph_positions(ImWchar c)
{
    std::vector<ImVec2> at;
    const ImFontGlyph* g = ImGui::GetIO().Fonts->Fonts[0]->FindGlyphNoFallback(c);
    const ImDrawData* dd = ImGui::GetDrawData();
    if (g == nullptr || dd == nullptr)
        return at;
    for (int l = 0; l < dd->CmdListsCount; ++l)
    {
        const ImDrawList* list = dd->CmdLists[l];
        for (int i = 0; i + 2 < list->VtxBuffer.Size; ++i)
        {
            const ImDrawVert& a = list->VtxBuffer[i];
            const ImDrawVert& b = list->VtxBuffer[i + 2];
            if (a.uv.x == g->U0 && a.uv.y == g->V0 && b.uv.x == g->U1 && b.uv.y == g->V1)
                at.push_back(a.pos);
        }
    }
    return at;
}

class PanelTest : public ::testing::Test
{
protected:
    // Pins cell (row, col) of `stage` in layer 1, head 1, sentence 1 (what a click on it does).
    void pin(Stage stage, int row, int col)
    {
        state->pinned.valid = true;
        state->pinned.matrix = MatrixRef{};
        state->pinned.matrix.stage = stage;
        state->pinned.row = row;
        state->pinned.col = col;
    }

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

// Esc closes a menu of the menu bar opened with the mouse: it stayed open, and the next click meant for the
// panels picked one of its items (View > Pipeline hid the Pipeline).
TEST_F(PanelTest, EscClosesAnOpenMenu)
{
    ui.frames(*state, 2);
    const ImVec2 view = test::text_position("View");
    ASSERT_GE(view.x, 0.0f);
    ui.click(*state, view.x + 4.0f, view.y + 4.0f);
    ui.mouse(view.x + 4.0f, view.y + 4.0f);
    test::FrameOutput out = ui.frames(*state, 2);
    ASSERT_TRUE(contains(out.text, "Numbers in cells")) << "the View menu is open";
    ui.press_key(*state, ImGui::GetKeyIndex(ImGuiKey_Escape));
    out = ui.frames(*state, 2);
    EXPECT_FALSE(contains(out.text, "Numbers in cells")) << "the View menu closed";
    EXPECT_TRUE(state->prefs.open[static_cast<std::size_t>(PanelId::Pipeline)]);
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
    // The status bar says the picture is the last valid one, whatever panel has the focus, and where to read
    // why.
    EXPECT_TRUE(contains(out.text, "showing the last valid result: the Model panel says why")) << out.text;
}

// How many times `needle` occurs in `haystack`.
int occurrences(const std::string& haystack, const std::string& needle)
{
    int n = 0;
    for (std::size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1))
        ++n;
    return n;
}

TEST_F(PanelTest, AnInvalidSessionsMessageIsWrittenOnceInThePanelItIsAbout)
{
    ui.frames(*state, 2);
    state->session.config.n_heads = 5; // typed: d_model 16 is not divisible by 5
    state->edit();
    auto out = ui.frames(*state, 2);
    ASSERT_FALSE(state->status.is_ok());
    const std::string start = state->status.message().substr(0, 20); // before the panel's wrap
    EXPECT_EQ(occurrences(out.text, start), 1) << out.text;
    // Right under the h field, so the fields above it never move while they are edited.
    const std::size_t h_at = out.text.find("h (heads)"), message_at = out.text.find(start),
                      d_ff_at = out.text.find("d_ff", h_at);
    EXPECT_LT(h_at, message_at);
    EXPECT_LT(message_at, d_ff_at); // the fields below come after it
    EXPECT_EQ(status_error_panel(*state), PanelId::Model);
    EXPECT_TRUE(contains(out.text, "the Model panel says why")) << out.text;
    // With the Model panel closed the status bar carries the message itself.
    state->prefs.open[static_cast<std::size_t>(PanelId::Model)] = false;
    out = ui.frames(*state, 2);
    EXPECT_EQ(occurrences(out.text, start), 1) << out.text;
    EXPECT_TRUE(contains(out.text, "showing the last valid result: " + start)) << out.text;

    // A message about the sentences is the Input panel's.
    state->prefs.open[static_cast<std::size_t>(PanelId::Model)] = true;
    state->session.config.n_heads = 4;
    state->session.text = "a\nb\nc";
    state->session.target = "x\ny";
    state->edit();
    out = ui.frames(*state, 2);
    ASSERT_FALSE(state->status.is_ok());
    EXPECT_EQ(status_error_panel(*state), PanelId::Input);
    EXPECT_EQ(occurrences(out.text, state->status.message().substr(0, 20)), 1) << out.text;
    EXPECT_TRUE(contains(out.text, "the Input panel says why")) << out.text;
}

// Every setting with an invalid value: the message is written once, right under that setting's field (found
// by the key validate_config names), between its explanation line and the next setting's.
TEST_F(PanelTest, EachSettingsMessageIsWrittenUnderThatSetting)
{
    const auto& table = setting_table();
    int checked = 0, any_value = 0;
    for (const SettingInfo& info : table)
    {
        SCOPED_TRACE(info.key);
        any_value += info.kind == SettingKind::Bool || info.kind == SettingKind::Seed;
        state->session.config = Config{};
        Config& c = state->session.config;
        if (info.kind == SettingKind::Int)
        {
            c.*info.int_member = static_cast<int>(info.max) + 1;
        }
        else if (info.kind == SettingKind::Choice)
            info.set_choice(c, choice_count(info));
        else if (info.kind == SettingKind::Float)
            c.*info.float_member = static_cast<float>(info.max) * 2.0f;
        else
            continue; // every value of a bool or a seed is valid
        state->edit();
        const auto out = ui.frames(*state, 2, panel_only(draw_model_panel));
        ASSERT_FALSE(state->status.is_ok());
        ASSERT_EQ(status_error_panel(*state), PanelId::Model);
        const std::string start = state->status.message().substr(0, 16);
        EXPECT_EQ(occurrences(out.text, start), 1) << out.text;
        // The fields' labels in table order, each searched for after the one before.
        std::vector<std::size_t> label_at;
        for (const SettingInfo& row : table)
            label_at.push_back(out.text.find(row.label, label_at.empty() ? 0 : label_at.back() + 1));
        const std::size_t at = static_cast<std::size_t>(info.id), message_at = out.text.find(start);
        ASSERT_NE(label_at[at], std::string::npos) << out.text;
        EXPECT_LT(label_at[at], message_at) << out.text;
        if (at + 1 < table.size())
        {
            EXPECT_LT(message_at, label_at[at + 1]) << out.text;
        }
        ++checked;
    }
    EXPECT_EQ(checked, kSettingCount - any_value);
    EXPECT_EQ(any_value, 3); // scale, residual, seed
}

TEST_F(PanelTest, TheInputPanelNamesWhatItCannotDrawAsTheTextHasIt)
{
    // Arabic (right to left), a private-use character no font has, and an emoji.
    state->session.text = "قطة \xEE\x80\x80 cat \xF0\x9F\x98\x80";
    state->edit();
    ui.frames(*state, 2); // the whole frame: it collects the text's characters
    EXPECT_EQ(state->glyphs.in_text, (std::vector<char32_t>{0x0642, 0x0637, 0x0629, 0xE000, 0x1F600}));
    // The atlas the window builds for these characters: DejaVu Sans has the Arabic letters, no font U+E000.
    ASSERT_TRUE(load_fonts(15.0f, nullptr, state->glyphs.extra));
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    state->glyphs.missing = characters_without_glyph(state->glyphs.extra);
    EXPECT_EQ(state->glyphs.missing, (std::vector<char32_t>{0xE000}));
    std::string flat = ui.frames(*state, 2).text;
    std::replace(flat.begin(), flat.end(), '\n', ' ');
    EXPECT_TRUE(contains(flat, "U+1F600: the window cannot draw characters beyond U+FFFF")) << flat;
    EXPECT_TRUE(contains(flat, "No installed font has U+E000, so they show as boxes")) << flat;
    EXPECT_TRUE(contains(flat, "Right-to-left letters (U+0642, U+0637, U+0629) are drawn here from left to "
                               "right"))
        << flat;
    // Plain text again: no note.
    state->session.text = "the cat";
    state->edit();
    flat = ui.frames(*state, 2).text;
    EXPECT_FALSE(contains(flat, "No installed font")) << flat;
    EXPECT_FALSE(contains(flat, "Right-to-left")) << flat;
    EXPECT_FALSE(contains(flat, "beyond U+FFFF")) << flat;
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

TEST_F(PanelTest, TheSentenceBoxWrapsLongLinesWithoutChangingTheText)
{
    ui.resize(420.0f, 700.0f);
    state->session.text = "the";
    ui.frames(*state, 2, panel_only(draw_input_panel));
    // Click into the box (under the line naming the model, and its label), go to the end, type a long
    // sentence.
    const float fs = ImGui::GetFontSize();
    const float model_line = ImGui::GetTextLineHeightWithSpacing();
    for (const bool down : {false, true, false})
    {
        ui.mouse(fs * 6.0f, fs * 3.5f + model_line, down);
        ui.frame(*state, panel_only(draw_input_panel));
    }
    ASSERT_TRUE(state->text_field.active);
    const std::string typed = " quick brown fox jumps over the lazy dog and runs home again";
    for (const char c : typed)
    {
        ImGui::GetIO().AddInputCharacter(static_cast<unsigned int>(c));
        ui.frame(*state, panel_only(draw_input_panel));
    }
    auto out = ui.frames(*state, 2, panel_only(draw_input_panel));
    // The text is exactly what was typed: one sentence, no line breaks of the box's own.
    EXPECT_EQ(state->session.text, "the" + typed);
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    EXPECT_EQ(state->trace().batch_size(), 1);
    EXPECT_EQ(state->trace().T(), 13);
    // On screen it takes several lines, none of them wider than the box.
    EXPECT_GE(std::count(state->text_field.shown.begin(), state->text_field.shown.end(), '\r'), 1)
        << state->text_field.shown;
    EXPECT_EQ(unwrap_soft(state->text_field.shown), state->session.text);
    EXPECT_TRUE(contains(out.text, "\nthe quick brown")) << out.text;
    EXPECT_FALSE(contains(out.text, "lazy dog and runs home again")) << out.text;
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
    // Sentences are counted from 1 on screen, as layers and heads are.
    EXPECT_TRUE(contains(out.text, "sentence 1 (3 tokens)")) << out.text;
    EXPECT_TRUE(contains(out.text, "sentence 2 (1 token)")) << out.text;
    EXPECT_FALSE(contains(out.text, "b = ")) << out.text;
    // Select the second sentence (sel.b = 1): its masked scores carry −∞ in the padding columns, drawn in
    // their own colour.
    state->sel.b = 1;
    state->stage_collapsed.fill(true);
    state->stage_collapsed[static_cast<std::size_t>(Stage::masked)] = false;
    ui.frames(*state, 2, panel_only(draw_pipeline_panel));
    const HeatmapEntry* masked = state->heatmaps.find("L0/b1/masked/h0");
    ASSERT_NE(masked, nullptr);
    EXPECT_TRUE(masked->range.has_neg_inf);
    const auto& pixels = ui.textures.textures.at(masked->texture).pixels;
    EXPECT_NE(std::find(pixels.begin(), pixels.end(), kNegInfColor), pixels.end());
    // Every panel that names the selected sentence calls it "sentence 2".
    state->pinned.valid = true;
    state->pinned.matrix.stage = Stage::weights;
    state->pinned.matrix.b = 1;
    for (void (*panel)(AppState&) : {draw_heads_panel, draw_comparisons_panel, draw_inspector_panel})
    {
        const auto shown = ui.frames(*state, 2, panel_only(panel));
        EXPECT_TRUE(contains(shown.text, "sentence 2")) << shown.text;
        EXPECT_FALSE(contains(shown.text, "b = 1")) << shown.text;
    }
}

// The Inspector on an Add & Norm cell gives its numbers, not only the formula: the row's mean and spread and
// the normalised value, worked from the trace here.
TEST_F(PanelTest, InspectorWorksALayerNormCellWithItsNumbers)
{
    ui.frames(*state, 2);
    pin(Stage::norm1, 1, 2);
    const auto out = ui.frames(*state, 2, panel_only(draw_inspector_panel));
    const Mat& residual = state->trace().layers[0].residual[0];
    const float mean = residual.row(1).mean();
    EXPECT_TRUE(contains(out.text, "μ_i = " + format_value_long(mean))) << out.text;
    EXPECT_TRUE(contains(out.text, "residual[i, c] = " + format_value_long(residual(1, 2)))) << out.text;
    EXPECT_TRUE(contains(out.text, "normalised:")) << out.text;
}

// Wrapped to any width, the Inspector's numbers stay whole on one line: ImGui's own wrapping broke a line
// after the point inside a number ("0." ending one line, "4168" starting the next).
TEST_F(PanelTest, InspectorNeverBreaksANumberAcrossLines)
{
    ui.frames(*state, 2);
    pin(Stage::norm1, 1, 2);
    const Mat& residual = state->trace().layers[0].residual[0];
    const Mat& norm1 = state->trace().layers[0].norm1[0];
    const std::string numbers[] = {format_value_long(residual.row(1).mean()),
                                   format_value_long(residual(1, 2)), format_value_long(norm1(1, 2))};
    for (const std::string& number : numbers)
        ASSERT_NE(number.find('.'), std::string::npos) << number;
    for (float width = 240.0f; width <= 900.0f; width += 3.0f)
    {
        ui.resize(width, 900.0f);
        const auto out = ui.frames(*state, 2, panel_only(draw_inspector_panel));
        std::string flat = out.text;
        std::replace(flat.begin(), flat.end(), '\n', ' ');
        ASSERT_TRUE(contains(flat, "normalised:")) << out.text;
        for (const std::string& number : numbers)
            EXPECT_TRUE(contains(out.text, number)) << number << " at " << width << " px\n" << out.text;
    }
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

// One heatmap alone in an undecorated window, without labels or colour bar: the frame's text is its numbers.
std::function<void(AppState&)> heatmap_only(const MatrixRef& ref)
{
    return [ref](AppState& state)
    {
        state.ensure_comparisons();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
        if (ImGui::Begin("map", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings))
        {
            HeatmapOptions options;
            options.labels = false;
            options.colorbar = false;
            draw_heatmap(state, ref, options);
        }
        ImGui::End();
    };
}

// A weights map squeezed to `height` px (ten rows under one line of text each) and `width` px, with its
// labels, as a narrow panel draws it.
std::function<void(AppState&)> squeezed_map(const MatrixRef& ref, float width, float height)
{
    return [ref, width, height](AppState& state)
    {
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
        if (ImGui::Begin("map", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings))
        {
            HeatmapOptions options;
            options.colorbar = false;
            options.width = width;
            options.max_height = height;
            draw_heatmap(state, ref, options);
        }
        ImGui::End();
    };
}

// The lines of text a frame drew, empty ones left out.
std::vector<std::string> text_lines(const std::string& text)
{
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start <= text.size())
    {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        if (end > start)
            lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

// Whether any texel of cell (r, c) of a heatmap's texture has the colour `color`.
bool cell_has_color(const test::StubTextureProvider::Texture& t, int texels, int r, int c, Color32 color)
{
    for (int dy = 0; dy < texels; ++dy)
        for (int dx = 0; dx < texels; ++dx)
            if (t.pixels[static_cast<std::size_t>((r * texels + dy) * t.w + c * texels + dx)] == color)
                return true;
    return false;
}

// Rows too short for a label each thin their labels, and every label shown then carries its position as the
// tooltip names it ("i=0 The", keys "j=…"), never some with it and some without ("0 The", "because", "8 was"
// before); the pinned cell's query ("it") and key ("animal") keep their labels whatever the stride.
TEST_F(PanelTest, ThinnedLabelsAllCarryTheirPositionAndKeepThePinnedTokens)
{
    state->session.text = "The animal didn't cross the street because it was tired";
    state->session.config.n_heads = 8;
    state->edit();
    ui.frames(*state, 2);
    ASSERT_EQ(state->trace().T(), 10);
    const MatrixRef weights; // layer 1, sentence 1, head 1
    test::FrameOutput out = ui.frames(*state, 2, squeezed_map(weights, 700.0f, 60.0f));
    EXPECT_TRUE(contains(out.text, "i=0 The")) << out.text;
    EXPECT_TRUE(contains(out.text, "i=5 street")) << out.text;
    EXPECT_FALSE(contains(out.text, "i=7 it")) << out.text;

    state->pinned.valid = true;
    state->pinned.matrix = weights;
    state->pinned.row = 7; // "it"
    state->pinned.col = 1; // "animal"
    out = ui.frames(*state, 2, squeezed_map(weights, 700.0f, 60.0f));
    EXPECT_TRUE(contains(out.text, "i=7 it")) << out.text;
    EXPECT_TRUE(contains(out.text, "i=0 The")) << out.text;
    EXPECT_FALSE(contains(out.text, "i=5 street")) << "it would overlap \"it\"\n" << out.text;

    // Narrow too: the keys are thinned, each with its position, the pinned key among them.
    out = ui.frames(*state, 2, squeezed_map(weights, 200.0f, 60.0f));
    std::string flat = out.text;
    flat.erase(std::remove(flat.begin(), flat.end(), '\n'), flat.end());
    EXPECT_TRUE(contains(flat, "j=1animal") || contains(flat, "j=1 animal")) << out.text;
    EXPECT_TRUE(contains(flat, "j=8")) << out.text;
}

TEST_F(PanelTest, MaskedCellsAreHatchedWithoutANumber)
{
    // Causal mask, T = 6: query i sees keys 0..i. The per-head weights (masked cells hold 0), the masked
    // scores (masked cells hold −∞) and the single-head comparison (the layer's mask) are drawn by the
    // heatmap the Heads panel, the Pipeline, the Comparisons panel and presenter mode all use.
    state->session.config.mask = MaskKind::Causal;
    ui.frames(*state, 2, panel_only(draw_heads_panel));
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    MatrixRef weights, masked, single;
    weights.stage = Stage::weights;
    masked.stage = Stage::masked;
    single.source = MatrixSource::Comparison;
    single.comparison = ComparisonMatrix::single_weights;
    for (const MatrixRef& ref : {weights, masked, single})
    {
        const auto out = ui.frames(*state, 2, heatmap_only(ref));
        const MatrixView view = resolve_matrix(*state, ref);
        ASSERT_NE(view.m, nullptr);
        const int T = static_cast<int>(view.m->rows());
        ASSERT_EQ(T, 6);
        // Row i shows exactly its i + 1 allowed cells' numbers, in order; nothing stands for the masked ones.
        std::vector<std::string> expected;
        for (int r = 0; r < T; ++r)
        {
            std::string line;
            for (int c = 0; c <= r; ++c)
                line += (c > 0 ? " " : "") + cell_text((*view.m)(r, c));
            expected.push_back(line);
        }
        EXPECT_EQ(text_lines(out.text), expected) << view.title << "\n" << out.text;
        // The masked cells above the diagonal are hatched (stripes), the allowed ones are not.
        const HeatmapEntry* e = state->heatmaps.find(view.key);
        ASSERT_NE(e, nullptr);
        ASSERT_GE(e->texels, 4) << "cells too small for stripes";
        const auto& t = ui.textures.textures.at(e->texture);
        for (int r = 0; r < T; ++r)
            for (int c = 0; c < T; ++c)
            {
                EXPECT_EQ(cell_masked(view, r, c), c > r) << view.title << " " << r << "," << c;
                EXPECT_EQ(cell_has_color(t, e->texels, r, c, kNegInfStripe), c > r)
                    << view.title << " " << r << "," << c;
            }
    }
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
        {
            EXPECT_TRUE(contains(out.text, stage_shape(state->trace(), info.id))) << info.key;
        }
    }
    EXPECT_TRUE(out.textures.empty()); // collapsed stages upload nothing
}

TEST_F(PanelTest, PipelineToolbarWrapsInsteadOfLeavingThePanel)
{
    // A batch, a target and two layers: layer and sentence sliders, heads, the cross-attention switch.
    ui.resize(640.0f, 900.0f);
    state->session.text = "the cat sat\nhello world";
    state->session.target = "le chat";
    state->session.config.n_layers = 2;
    state->stage_collapsed.fill(true);
    ui.frames(*state, 3, panel_only(draw_pipeline_panel));
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    const float right = 640.0f - ImGui::GetStyle().WindowPadding.x + 1.0f;
    for (const char* label : {"layer", "sentence", "cross-attention", "expand all", "collapse all"})
    {
        const ImVec2 at = text_position(label);
        ASSERT_GE(at.x, 0.0f) << label;
        EXPECT_LE(at.x + ImGui::CalcTextSize(label).x, right) << label;
    }
}

TEST_F(PanelTest, StageHeadersAreCutWithAnEllipsisAndShownWholeInATooltip)
{
    ui.resize(560.0f, 900.0f);
    state->stage_collapsed.fill(true);
    state->stage_collapsed[static_cast<std::size_t>(Stage::weights)] = false;
    auto out = ui.frames(*state, 3, panel_only(draw_pipeline_panel));
    // The masked stage's header keeps its name and shape and cuts its equation with "…".
    std::string masked_line;
    for (std::size_t start = 0, end = 0; start < out.text.size(); start = end + 1)
    {
        end = std::min(out.text.find('\n', start), out.text.size());
        if (out.text.compare(start, 13, "Masked scores") == 0)
            masked_line = out.text.substr(start, end - start);
    }
    EXPECT_TRUE(contains(masked_line, "T×T = 6×6")) << masked_line;
    EXPECT_TRUE(contains(masked_line, "…")) << masked_line;
    // The weights' note wraps: its entropy is read whole.
    EXPECT_TRUE(contains(out.text, "nats")) << out.text;
    EXPECT_TRUE(contains(out.text, "(one-hot 0, uniform ln 6")) << out.text;
    // Hovering the header shows all of it.
    const ImVec2 at = text_position("Masked scores");
    ASSERT_GE(at.x, 0.0f);
    ui.mouse(at.x + 10.0f, at.y + 5.0f);
    out = ui.frames(*state, 3, panel_only(draw_pipeline_panel));
    EXPECT_TRUE(contains(out.text, "(M = −∞ where not allowed)")) << out.text;
}

TEST_F(PanelTest, StageHeadersShowTheBatchShape)
{
    state->session.text = "the cat sat on the mat\nhello world";
    state->stage_collapsed.fill(true);
    const auto out = ui.frames(*state, 2, panel_only(draw_pipeline_panel));
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    for (const char* shape :
         {"B×T×d_model = 2×6×16", "B×T×d_k = 2×6×4", "B×T×T = 2×6×6", "B×T×h·d_v = 2×6×16"})
        EXPECT_TRUE(contains(out.text, shape)) << shape << "\n" << out.text;
    // The positional encoding is one matrix that every sentence shares.
    EXPECT_TRUE(contains(out.text, "T×d_model = 6×16, every sentence")) << out.text;
}

// A very wide matrix keeps rows a line of text tall: X at d_model 1024 (cells under a pixel wide) is not
// drawn a few pixels high under its own labels.
TEST_F(PanelTest, AWideMatrixKeepsRowsALineTall)
{
    state->session.config.d_model = 1024;
    state->edit();
    state->stage_collapsed.fill(true);
    state->stage_collapsed[static_cast<std::size_t>(Stage::X)] = false;
    const auto out = ui.frames(*state, 3);
    const TextureHandle t = texture_of(*state, "L0/b0/X");
    ASSERT_TRUE(out.texture_rects.count(t));
    const ImVec4 r = out.texture_rects.at(t);
    const float row_h = (r.w - r.y) / static_cast<float>(state->trace().T());
    EXPECT_GE(row_h, ImGui::GetFontSize() - 0.5f) << "rows " << row_h << " px tall";
    EXPECT_LT((r.z - r.x) / 1024.0f, 1.0f) << "the columns are under a pixel: the case this is about";
}

TEST_F(PanelTest, SoftmaxLineNamesTheRowMaximumAndCountsAllowedKeys)
{
    state->session.config.mask = MaskKind::Causal;
    state->stage_collapsed.fill(true);
    state->stage_collapsed[static_cast<std::size_t>(Stage::weights)] = false;
    auto out = ui.frames(*state, 3);
    const TextureHandle t = texture_of(*state, "L0/b0/weights/h0");
    ASSERT_TRUE(out.texture_rects.count(t));
    const ImVec4 r = out.texture_rects[t];
    const float cw = (r.z - r.x) / 6.0f, ch = (r.w - r.y) / 6.0f;
    ui.mouse(r.x + cw * 1.5f, r.y + ch * 2.5f); // query 2, key 1: keys 0..2 allowed, 3..5 masked
    out = ui.frames(*state, 2);
    ASSERT_TRUE(state->hovered.valid);
    ASSERT_EQ(state->hovered.row, 2);
    // The inspector wraps its lines: look for pieces that stay on one line.
    for (const char* text : {"largest allowed score max_i =", "exp((masked[i, j] − max_i) / τ)",
                             "Σ over the 3 allowed", "(3 masked)"})
        EXPECT_TRUE(contains(out.text, text)) << text << "\n" << out.text;
    EXPECT_FALSE(contains(out.text, "Σ over the 6")) << out.text;
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

// Presenter mode draws no panels, so Alt+digit there leaves them as they are (it used to hide the Heads
// panel unseen, found missing after leaving presenter mode).
TEST_F(PanelTest, AltDigitInPresenterModeLeavesThePanelsAlone)
{
    const auto heads = static_cast<std::size_t>(PanelId::Heads);
    ASSERT_TRUE(state->prefs.open[heads]);
    state->presenter = true;
    ui.frames(*state, 2);
    ui.press_key(*state, keys::Digit1 + 3, false, true); // Alt+4: Heads
    EXPECT_TRUE(state->prefs.open[heads]);
    state->presenter = false;
    ui.frames(*state, 2);
    ui.press_key(*state, keys::Digit1 + 3, false, true);
    EXPECT_FALSE(state->prefs.open[heads]) << "outside presenter mode Alt+4 still hides the Heads panel";
}

// [SECTION] Model, comparisons

// d_k, d_v and d_ff at 0 mean the paper's default: the panel shows an "auto" box beside each and the value
// used in the field, never a 0 the student would read as a width of zero.
TEST_F(PanelTest, ModelPanelShowsAutoAndTheValueUsedNotZero)
{
    const auto out = ui.frames(*state, 2, panel_only(draw_model_panel));
    EXPECT_EQ(occurrences(out.text, "auto"), 3) << out.text;
    EXPECT_FALSE(contains(out.text, "= 4")) << out.text;
    state->session.config.d_k = 8; // the student's own: its box is unticked, the field editable
    state->edit();
    const auto own = ui.frames(*state, 2, panel_only(draw_model_panel));
    EXPECT_EQ(occurrences(own.text, "auto"), 3) << own.text;
    EXPECT_TRUE(contains(own.text, "8")) << own.text;
}

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

TEST_F(PanelTest, TheFirstStartPointsToTheTour)
{
    load_lesson_library(*state, default_lessons_dir());
    auto out = ui.frames(*state, 2);
    EXPECT_FALSE(contains(out.text, "Begin with the tour")); // not after the first start
    state->show_tour_hint = true;
    out = ui.frames(*state, 2);
    EXPECT_TRUE(contains(out.text, "New here? Begin with the tour")) << out.text;
    // "Not now" hides it.
    ImVec2 p = text_position("Not now");
    ASSERT_GE(p.x, 0.0f);
    ui.click(*state, p.x + 4.0f, p.y + 4.0f);
    EXPECT_FALSE(state->show_tour_hint);
    out = ui.frames(*state, 2);
    EXPECT_FALSE(contains(out.text, "Begin with the tour"));
    // "Start the tour" opens the tour at its first step.
    state->show_tour_hint = true;
    ui.frames(*state, 2);
    p = text_position("Start the tour");
    ASSERT_GE(p.x, 0.0f);
    ui.click(*state, p.x + 4.0f, p.y + 4.0f);
    ASSERT_TRUE(lesson_active(*state));
    EXPECT_EQ(current_lesson(*state)->id, "tour");
    EXPECT_EQ(state->lesson.step, 0);
    EXPECT_FALSE(state->show_tour_hint);
}

TEST_F(PanelTest, HeadsButtonsStepThroughTheDivisorsOfDModel)
{
    auto click_heads_button = [&](ImWchar sign)
    {
        ui.frames(*state, 2, panel_only(draw_model_panel));
        // The panel's buttons from the top: d_model's, then h's.
        std::vector<ImVec2> at = glyph_positions(sign);
        std::sort(at.begin(), at.end(), [](const ImVec2& a, const ImVec2& b) { return a.y < b.y; });
        ASSERT_GE(at.size(), 2u);
        const float x = at[1].x + 2.0f, y = at[1].y + 4.0f;
        for (const bool down : {false, true, false})
        {
            ui.mouse(x, y, down);
            ui.frame(*state, panel_only(draw_model_panel));
        }
        ui.mouse(1.0f, 1.0f);
    };
    ASSERT_EQ(state->session.config.d_model, 16);
    ASSERT_EQ(state->session.config.n_heads, 4);
    std::vector<int> seen;
    for (int k = 0; k < 3; ++k)
    {
        click_heads_button('+');
        seen.push_back(state->session.config.n_heads);
    }
    EXPECT_EQ(seen, (std::vector<int>{8, 16, 16})); // never 5, 6 or 7; 16 is the last
    for (int k = 0; k < 5; ++k)
        click_heads_button('-');
    EXPECT_EQ(state->session.config.n_heads, 1);
    ui.frames(*state, 1, panel_only(draw_model_panel));
    EXPECT_TRUE(state->status.is_ok()) << state->status.message();

    // With d_k and d_v set, any h is valid: the buttons step by one.
    state->session.config.d_k = 4;
    state->session.config.d_v = 4;
    click_heads_button('+');
    EXPECT_EQ(state->session.config.n_heads, 2);
    click_heads_button('+');
    EXPECT_EQ(state->session.config.n_heads, 3);
    ui.frames(*state, 1, panel_only(draw_model_panel));
    EXPECT_TRUE(state->status.is_ok()) << state->status.message();
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

// The differences stay whole at every panel width: ImGui's own wrapping broke "4.76837e-07" after its full
// stop ("4." ending one line) in presenter mode's Comparisons view at 1280 and 1920 px.
TEST_F(PanelTest, ComparisonsNeverBreakANumberAcrossLines)
{
    ui.frames(*state, 3, panel_only(draw_comparisons_panel));
    const std::string packed = format_value(state->comparisons.packed_max_diff);
    const std::string single = format_value_long(state->comparisons.single_vs_multi_max_diff);
    ASSERT_NE(packed.find('.'), std::string::npos) << packed;
    for (float width = 300.0f; width <= 1300.0f; width += 4.0f)
    {
        ui.resize(width, 1400.0f); // tall enough for every section at 300 px
        const auto out = ui.frames(*state, 2, panel_only(draw_comparisons_panel));
        std::string flat = out.text; // the sentence around the number may break at any space
        std::replace(flat.begin(), flat.end(), '\n', ' ');
        ASSERT_TRUE(contains(flat, "Largest difference between a block and its Q_h")) << out.text;
        EXPECT_FALSE(contains(flat, "Q_j")) << "j is a key position; a head is h" << out.text;
        EXPECT_TRUE(contains(out.text, packed)) << width << " px\n" << out.text;
        EXPECT_TRUE(contains(out.text, single)) << width << " px\n" << out.text;
    }
}

TEST_F(PanelTest, SingleHeadWeightsAreMaskedLikeTheHeadsAndShowTau)
{
    state->session.config.mask = MaskKind::Causal;
    const auto out = ui.frames(*state, 3, panel_only(draw_comparisons_panel));
    const HeatmapEntry* w = state->heatmaps.find("cmp/single_weights");
    ASSERT_NE(w, nullptr);
    const auto& t = ui.textures.textures.at(w->texture);
    // Query 0 may not see key 5: drawn as masked, as in A_h, not as a weight of 0. The diagonal is allowed.
    EXPECT_EQ(t.pixels[static_cast<std::size_t>(t.w - 2)], kNegInfColor);
    EXPECT_NE(t.pixels[static_cast<std::size_t>(t.w + 1)], kNegInfColor);
    EXPECT_TRUE(contains(out.text, "/ τ)")) << out.text;
}

TEST_F(PanelTest, ConcatHasADividerBetweenHeads)
{
    state->session.target = "le chat";
    ui.frames(*state, 2);
    for (const MatrixSource source : {MatrixSource::Layer, MatrixSource::Cross})
    {
        MatrixRef ref;
        ref.source = source;
        ref.stage = Stage::concat;
        const MatrixView view = resolve_matrix(*state, ref);
        ASSERT_NE(view.m, nullptr);
        EXPECT_EQ(view.column_blocks, 4); // d_v: a line every 4 of the 16 columns
    }
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
