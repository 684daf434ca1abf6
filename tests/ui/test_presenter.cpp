// Presenter mode: its own text size on Ctrl+= / Ctrl+- / Ctrl+0 (the normal font size untouched, and the
// other way round outside it), the T key and its light theme, the saved preferences, the map layout (square
// cells, side by side or stacked, shared labels), and the heads and single-head steps drawn at 1280x720.
#include "core/io/lesson_file.h"
#include "ui/model/lessons.h"
#include "ui/model/prefs.h"
#include "ui/model/training/training_controller.h"
#include "ui/panels/training_panel_views.h"
#include "ui/picture/heatmap_math.h"
#include "ui/picture/presenter_layout.h"
#include "ui/picture/step_maps.h"
#include "ui/shell/app_ui.h"
#include "ui/shell/fonts.h"
#include "ui/shell/presenter.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>
#include <imgui_internal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>

namespace attnlab
{
namespace
{

using test::HeadlessUi;
using test::lesson_index;

bool drawn(const test::FrameOutput& out, const std::string& text)
{
    return out.text.find(text) != std::string::npos;
}

// The same in wrapped text, whose lines may break anywhere between words (a caption beside the maps).
bool drawn_wrapped(const test::FrameOutput& out, const std::string& text)
{
    std::string flat = out.text;
    std::replace(flat.begin(), flat.end(), '\n', ' ');
    return flat.find(text) != std::string::npos;
}

class PresenterTest : public ::testing::Test
{
protected:
    void SetUp() override { load_lesson_library(*state, default_lessons_dir()); }
    // The font atlas the window would build for this height (the headless one starts at 15 px).
    void use_window_font(float height)
    {
        ImGuiIO& io = ImGui::GetIO();
        load_fonts(ui_font_size(*state, height), nullptr, {}, ui_caption_font_size(*state, height));
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
        io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(static_cast<std::uintptr_t>(0xF0F0)));
    }
    // The Training view in presenter mode at W x H, with the window's font for that height: the last of
    // `frames` frames.
    test::FrameOutput training_view_at(float W, float H, int frames = 4)
    {
        ui.resize(W, H);
        state->presenter = true;
        state->presenter_view = PresenterView::Training;
        use_window_font(H);
        return ui.frames(*state, frames);
    }
    // The Training view's plot column (its child window), or null when none was drawn.
    static const ImGuiWindow* training_plots_window()
    {
        const ImGuiWindow* found = nullptr;
        for (const ImGuiWindow* w : GImGui->Windows)
            if (w->Active && std::string(w->Name).find("/presenter_curves_") != std::string::npos)
                found = w;
        return found;
    }
    // Adds the lesson written in `json` to the library and enters its first step. picture: the state is a
    // picture's (mouse_ignored: a step's run is trained before its first frame). Fails with the parser's
    // message when the text is not a lesson.
    ::testing::AssertionResult enter_test_lesson(const char* json, bool picture = false)
    {
        Lesson lesson;
        if (const Status s = parse_lesson(json, "t.json", &lesson); !s.is_ok())
            return ::testing::AssertionFailure() << s.message();
        state->lesson.library.lessons.push_back(lesson);
        state->mouse_ignored = picture;
        enter_lesson(*state, static_cast<int>(state->lesson.library.lessons.size()) - 1, 0);
        return ::testing::AssertionSuccess();
    }
    // Ctrl+= twice on a screen `height` lines tall: the frame after it.
    test::FrameOutput zoom_twice(float height = 720.0f)
    {
        step_text_size(*state, 1);
        step_text_size(*state, 1);
        use_window_font(height);
        return ui.frames(*state, 4);
    }
    // Presenter mode at 720 lines with the edit bar just opened (E): the frame after it.
    test::FrameOutput open_edit_bar()
    {
        state->presenter = true;
        use_window_font(720.0f);
        ui.frames(*state, 2);
        ui.press_key(*state, keys::E);
        EXPECT_TRUE(state->presenter_edit);
        return ui.frames(*state, 2);
    }

    HeadlessUi ui{1280.0f, 720.0f};
    std::unique_ptr<AppState> state = std::make_unique<AppState>();
};

// [SECTION] Keys

TEST_F(PresenterTest, CtrlPlusInPresenterModeScalesThePresenterAndNotTheNormalFont)
{
    state->presenter = true;
    ui.frames(*state, 2);
    const float font = state->prefs.font_size;
    const float before = ui_font_size(*state, 1080.0f);
    state->request_font_rebuild = false;

    test::FrameOutput out = ui.press_key(*state, keys::Equal, true);
    EXPECT_FLOAT_EQ(state->presenter_scale, 1.1f);
    EXPECT_EQ(state->prefs.font_size, font);
    EXPECT_TRUE(state->request_font_rebuild);
    EXPECT_NEAR(ui_font_size(*state, 1080.0f), before * 1.1f, 0.01f);
    // The title line says the new size, and only for a moment.
    out = ui.frame(*state);
    EXPECT_TRUE(drawn(out, "presenter text 110%")) << out.text;
    out = ui.frames(*state, 150); // 2.5 s of frames at the headless 60 Hz clock
    EXPECT_FALSE(drawn(out, "presenter text")) << out.text;

    ui.press_key(*state, keys::Minus, true);
    ui.press_key(*state, keys::Minus, true);
    ui.press_key(*state, keys::Minus, true);
    EXPECT_FLOAT_EQ(state->presenter_scale, 0.8f);
    EXPECT_EQ(state->prefs.font_size, font);
    ui.press_key(*state, keys::Digit0, true);
    EXPECT_FLOAT_EQ(state->presenter_scale, 1.0f);
    EXPECT_EQ(state->prefs.font_size, font);
    // Without Ctrl the keys do nothing to either size.
    ui.press_key(*state, keys::Equal);
    EXPECT_FLOAT_EQ(state->presenter_scale, 1.0f);
}

TEST_F(PresenterTest, CtrlPlusOutsidePresenterModeChangesTheFontAndNotThePresenterScale)
{
    state->prefs.font_size = 17.0f;
    state->presenter_scale = 1.3f;
    ui.frames(*state, 2);
    ui.press_key(*state, keys::Equal, true);
    EXPECT_EQ(state->prefs.font_size, 18.0f);
    EXPECT_FLOAT_EQ(state->presenter_scale, 1.3f);
    EXPECT_NE(state->message.find("Font size 18 px"), std::string::npos) << state->message;
    ui.press_key(*state, keys::Minus, true);
    ui.press_key(*state, keys::Minus, true);
    EXPECT_EQ(state->prefs.font_size, 16.0f);
    ui.press_key(*state, keys::Digit0, true);
    EXPECT_EQ(state->prefs.font_size, kDefaultFontSize);
    EXPECT_FLOAT_EQ(state->presenter_scale, 1.3f);
    // The presenter's font is its own: the normal size does not move it.
    state->presenter = true;
    const float presenter_px = ui_font_size(*state, 1080.0f);
    state->prefs.font_size = kMaxFontSize;
    EXPECT_EQ(ui_font_size(*state, 1080.0f), presenter_px);
}

TEST_F(PresenterTest, TextSizesStayWithinTheirLimits)
{
    float scale = 1.0f;
    for (int i = 0; i < 40; ++i)
        scale = step_presenter_scale(scale, 1);
    EXPECT_FLOAT_EQ(scale, kMaxPresenterScale);
    for (int i = 0; i < 40; ++i)
        scale = step_presenter_scale(scale, -1);
    EXPECT_FLOAT_EQ(scale, kMinPresenterScale);
    // Ten tenths up and ten down come back exactly.
    scale = 1.0f;
    for (int i = 0; i < 5; ++i)
        scale = step_presenter_scale(scale, 1);
    for (int i = 0; i < 5; ++i)
        scale = step_presenter_scale(scale, -1);
    EXPECT_FLOAT_EQ(scale, 1.0f);
    EXPECT_EQ(step_font_size(kMaxFontSize, 1), kMaxFontSize);
    EXPECT_EQ(step_font_size(kMinFontSize, -1), kMinFontSize);
    // The presenter's font grows with the window: at least 32 px on a 1080-line screen.
    EXPECT_GE(presenter_font_size(1080.0f, 1.0f), 32.0f);
    EXPECT_NEAR(presenter_font_size(720.0f, 1.0f) / presenter_font_size(1080.0f, 1.0f), 720.0f / 1080.0f,
                1e-4f);
    EXPECT_NEAR(presenter_font_size(1080.0f, 1.5f), presenter_font_size(1080.0f, 1.0f) * 1.5f, 1e-3f);
    EXPECT_TRUE(std::isfinite(presenter_font_size(1080.0f, std::nanf(""))));
}

TEST_F(PresenterTest, TSwitchesThePresenterThemeOnlyInPresenterMode)
{
    ui.frames(*state, 2);
    ui.press_key(*state, keys::T);
    EXPECT_FALSE(state->prefs.presenter_light);
    state->presenter = true;
    ui.frames(*state, 2);
    const ImVec4 dark_bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    test::FrameOutput out = ui.press_key(*state, keys::T);
    EXPECT_TRUE(state->prefs.presenter_light);
    EXPECT_TRUE(state->prefs.dark_theme) << "the normal theme is a separate choice";
    out = ui.frame(*state);
    EXPECT_TRUE(drawn(out, "light theme")) << out.text;
    // The light theme is applied: a light background and dark text.
    const ImVec4 light_bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    const ImVec4 text = ImGui::GetStyle().Colors[ImGuiCol_Text];
    EXPECT_LT(dark_bg.x + dark_bg.y + dark_bg.z, 0.3f);
    EXPECT_GT(light_bg.x + light_bg.y + light_bg.z, 2.5f);
    EXPECT_LT(text.x + text.y + text.z, 0.3f);
    ui.press_key(*state, keys::T);
    EXPECT_FALSE(state->prefs.presenter_light);
}

// Outside a lesson the digit keys pick presenter mode's view, named in its title line: the heads of the
// selected layer, the Inspector, the comparisons, the Training panel's view; inside a lesson they do nothing.
TEST_F(PresenterTest, DigitKeysPickTheViewOutsideALesson)
{
    state->presenter = true;
    test::FrameOutput out = ui.frames(*state, 3);
    EXPECT_EQ(state->presenter_view, PresenterView::Pipeline);
    // The Pipeline view walks the layer a group of stages at a time, each laid out as a lesson step's maps.
    EXPECT_TRUE(drawn(out, "Pipeline: the input X (1/7, ← →) (1-5: view)")) << out.text;
    EXPECT_EQ(out.textures.size(), 3u) << "embedding, positions, X";
    for (int g = 1; g < 7; ++g)
        ui.press_key(*state, keys::Right);
    ui.press_key(*state, keys::Right); // the last stays
    out = ui.frames(*state, 3);
    EXPECT_EQ(state->presenter_stage_group, 6);
    EXPECT_TRUE(drawn(out, "Pipeline: feed-forward (7/7, ← →)")) << out.text;
    EXPECT_EQ(out.textures.size(), 3u) << "ffn, residual2, norm2";
    for (int g = 0; g < 5; ++g)
        ui.press_key(*state, keys::PageUp);
    out = ui.frames(*state, 3);
    EXPECT_TRUE(drawn(out, "Pipeline: Q, K, V (2/7, ← →)")) << out.text;
    EXPECT_EQ(out.textures.size(), 3u) << "Q, K, V";
    EXPECT_FALSE(drawn(out, "Σ")) << out.text;
    // The softmax's group names its axes and adds up each row of the weights, as lesson 5's step does.
    ui.press_key(*state, keys::Right);
    ui.press_key(*state, keys::Right);
    out = ui.frames(*state, 3);
    EXPECT_TRUE(drawn(out, "Pipeline: mask and softmax (4/7, ← →)")) << out.text;
    EXPECT_TRUE(drawn(out, "Σ")) << out.text;
    EXPECT_TRUE(drawn(out, "q\nu\ne\nr\ny")) << out.text;
    ui.press_key(*state, keys::Left);
    ui.press_key(*state, keys::Left);
    ui.press_key(*state, keys::Digit0 + 2);
    out = ui.frames(*state, 3);
    EXPECT_EQ(state->presenter_view, PresenterView::Heads);
    EXPECT_TRUE(drawn(out, "Heads (1-5: view)")) << out.text;
    for (int j = 1; j <= state->heads(); ++j)
        EXPECT_TRUE(drawn(out, "head " + std::to_string(j))) << out.text;
    ui.press_key(*state, keys::Digit0 + 3);
    out = ui.frames(*state, 2);
    EXPECT_EQ(state->presenter_view, PresenterView::Inspector);
    // No heatmap to hover in this view: with nothing pinned it explains the second token's strongest key
    // (never an empty view) and says how to choose another; a pinned cell is shown.
    EXPECT_FALSE(drawn(out, "Hover any cell")) << out.text;
    const auto& tokens = state->trace().tokens.tokens[0];
    ASSERT_GE(tokens.size(), 2u);
    EXPECT_TRUE(drawn_wrapped(out, "Nothing pinned: “" + tokens[1] + "” (i = 1)")) << out.text;
    EXPECT_TRUE(drawn_wrapped(out, "press 2 and click a query token for another")) << out.text;
    EXPECT_TRUE(drawn(out, "row i = 1")) << out.text;
    state->pinned.valid = true;
    state->pinned.matrix.stage = Stage::weights;
    state->pinned.row = 1;
    state->pinned.col = 2;
    out = ui.frames(*state, 2);
    EXPECT_TRUE(drawn(out, "row i = 1")) << out.text;
    state->pinned = CellRef{};
    // Comparisons: one at a time, laid out as a lesson step's (a map a matrix), 4 again for the next.
    const struct
    {
        ComparisonSection section;
        const char* title;
    } comparisons[] = {{ComparisonSection::Packed, "packed W^Q"},
                       {ComparisonSection::TwoStep, "two maps in a row"},
                       {ComparisonSection::SingleHead, "one head against h"},
                       {ComparisonSection::Packed, "packed W^Q"}};
    for (const auto& c : comparisons)
    {
        SCOPED_TRACE(c.title);
        ui.press_key(*state, keys::Digit0 + 4);
        out = ui.frames(*state, 3);
        EXPECT_EQ(state->presenter_view, PresenterView::Comparisons);
        EXPECT_EQ(state->presenter_comparison, c.section);
        EXPECT_TRUE(drawn(out, std::string("Comparisons: ") + c.title + " (4: next)")) << out.text;
        const std::size_t n = comparison_maps(*state, c.section).size();
        const std::size_t shown = out.textures.size();
        // The single-head comparison may leave out its two outputs when they would shrink the maps.
        EXPECT_TRUE(shown == n || (c.section == ComparisonSection::SingleHead && shown == 2))
            << shown << " of " << n << "\n"
            << out.text;
    }
    ui.press_key(*state, keys::Digit0 + 5);
    out = ui.frames(*state, 2);
    EXPECT_EQ(state->presenter_view, PresenterView::Training);
    EXPECT_TRUE(drawn(out, "Training (1-5: view)")) << out.text;
    EXPECT_TRUE(drawn_wrapped(out, "F5 leaves presenter mode, whose menus are hidden")) << out.text;
    // A lesson's step picks its own view: the keys leave the choice alone.
    const int tour = lesson_index(*state, "tour");
    ASSERT_GE(tour, 0);
    enter_lesson(*state, tour);
    ui.frames(*state, 2);
    ui.press_key(*state, keys::Digit0 + 2);
    EXPECT_EQ(state->presenter_view, PresenterView::Training);
}

// Outside a lesson the caption's heading names the view and what it shows, and the line under it keeps the
// sentence and the settings; the heading follows the Pipeline's group, its head and the comparison shown.
TEST_F(PresenterTest, TheCaptionsHeadingNamesEachViewAndWhatItShows)
{
    state->presenter = true;
    state->mouse_ignored = true;
    use_window_font(720.0f);
    auto caption = [&]
    {
        ui.frames(*state, 2);
        std::string text = test::window_text("##presenter_caption");
        std::replace(text.begin(), text.end(), '\n', ' ');
        return text.substr(std::min(text.size(), text.find_first_not_of(' ')));
    };
    const std::string settings = "d_model = 16, h = 4, mask: none";
    const struct
    {
        int key, group, head;
        const char* heading;
    } views[] = {
        {1, 0, 0, "Pipeline: the input X = token embedding + positional encoding"},
        {1, 1, 0, "Pipeline: queries Q_h, keys K_h and values V_h of head 1"},
        {1, 1, 2, "Pipeline: queries Q_h, keys K_h and values V_h of head 3"},
        {1, 3, 1, "Pipeline: mask and softmax: the attention weights A_h of head 2"},
        {1, 6, 0, "Pipeline: the feed-forward network, its residual, then layer norm"},
        {2, 0, 0, "Heads: attention weights A_h of each head"},
        {3, 0, 0, "Inspector: one weight, step by step"},
        {4, 0, 0, "Comparisons: one packed X W^Q holds every head's Q_h"},
        {4, 0, 0, "Comparisons: two projections in a row are one"},
        {4, 0, 0, "Comparisons: one attention map against h of them"},
        {5, 0, 0, "Training: no run yet"},
    };
    for (const auto& v : views)
    {
        SCOPED_TRACE(v.heading);
        state->presenter_stage_group = v.group;
        state->sel.head = v.head;
        ui.press_key(*state, keys::Digit0 + v.key);
        const std::string text = caption();
        EXPECT_EQ(text.rfind(v.heading, 0), 0u) << text;
        EXPECT_EQ(text.find("Presenter mode"), std::string::npos) << text;
        if (v.key != 5)
        {
            EXPECT_NE(text.find("“Jane visits Africa in September .”"), std::string::npos) << text;
            EXPECT_NE(text.find(settings), std::string::npos) << text;
        }
    }
}

// [SECTION] Preferences

TEST(PresenterPrefs, ThemeRoundTripsAndBadValuesChangeNothing)
{
    ViewPrefs prefs;
    prefs.presenter_light = true;
    prefs.font_size = 21.0f;
    const std::string text = prefs_to_text(prefs);
    EXPECT_NE(text.find("presenter_theme = light"), std::string::npos) << text;
    ViewPrefs back;
    prefs_from_text(text, back);
    EXPECT_EQ(back, prefs);
    EXPECT_TRUE(back.presenter_light);
    EXPECT_EQ(back.font_size, 21.0f);

    // A dark presenter theme comes back too (the default is dark; start from light to see it change).
    ViewPrefs dark = prefs;
    dark.presenter_light = false;
    prefs_from_text(prefs_to_text(dark), back);
    EXPECT_FALSE(back.presenter_light);

    // Bad values are ignored one by one.
    ViewPrefs kept;
    kept.presenter_light = true;
    prefs_from_text("presenter_theme = purple\n", kept);
    EXPECT_TRUE(kept.presenter_light);
    // And separate from the normal theme and font.
    prefs_from_text("presenter_theme = dark\n", kept);
    EXPECT_FALSE(kept.presenter_light);
    EXPECT_TRUE(kept.dark_theme);
    EXPECT_EQ(kept.font_size, kDefaultFontSize);
}

// The presenter's text size is not a preference: a launch starts at 100% whatever the last one left, and a
// file written by an earlier version (with its presenter_scale line) still reads, the line ignored.
TEST_F(PresenterTest, AFreshLaunchStartsAtOneHundredPercent)
{
    state->presenter = true;
    ui.frames(*state, 2);
    ui.press_key(*state, keys::Equal, true);
    ui.press_key(*state, keys::Equal, true);
    ASSERT_FLOAT_EQ(state->presenter_scale, 1.2f);
    const std::string saved = prefs_to_text(state->prefs);
    EXPECT_EQ(saved.find("presenter_scale"), std::string::npos) << saved;

    const std::string old_file = "# Attention Lab preferences\ntheme = light\nfont_size = 19\n"
                                 "presenter_scale = 1.2\npresenter_theme = light\n";
    AppState launched;
    prefs_from_text(old_file, launched.prefs);
    EXPECT_FALSE(launched.prefs.dark_theme) << "the keys around it still read";
    EXPECT_EQ(launched.prefs.font_size, 19.0f);
    EXPECT_TRUE(launched.prefs.presenter_light);
    EXPECT_FLOAT_EQ(launched.presenter_scale, 1.0f);
    launched.presenter = true;
    EXPECT_FLOAT_EQ(ui_font_size(launched, 1080.0f), presenter_font_size(1080.0f, 1.0f));
    EXPECT_EQ(prefs_to_text(launched.prefs).find("presenter_scale"), std::string::npos);
}

// [SECTION] Layout (pure)

void expect_square_and_inside(const MapGrid& g, const std::vector<MapBox>& maps, float w, float h)
{
    ASSERT_EQ(g.maps.size(), maps.size());
    for (std::size_t i = 0; i < maps.size(); ++i)
    {
        const LayoutRect& r = g.maps[i].image;
        const float cell = g.maps[i].cell;
        EXPECT_GE(cell, g.cell) << i;
        EXPECT_NEAR(r.w / static_cast<float>(maps[i].cols), cell, 1e-3f) << i;
        EXPECT_NEAR(r.h / static_cast<float>(maps[i].rows), cell, 1e-3f) << i;
        EXPECT_GE(r.x, 0.0f);
        EXPECT_GE(r.y, 0.0f);
        EXPECT_LE(r.x + r.w, w + 1e-3f);
        EXPECT_LE(r.y + r.h, h + 1e-3f);
        for (std::size_t k = 0; k < i; ++k)
        {
            const LayoutRect& o = g.maps[k].image;
            const bool apart = r.x >= o.x + o.w || o.x >= r.x + r.w || r.y >= o.y + o.h || o.y >= r.y + r.h;
            EXPECT_TRUE(apart) << i << " overlaps " << k;
        }
    }
}

MapBox labelled(int rows, int cols)
{
    MapBox b;
    b.rows = rows;
    b.cols = cols;
    b.left = 90.0f;
    b.right = 6.0f;
    b.top = 30.0f;
    b.col_labels = 90.0f;
    b.below = 4.0f;
    b.row_axis = 0;
    b.col_axis = 0;
    return b;
}

TEST(PresenterLayout, TwoSquareMapsGoSideBySideWhenWideAndStackedWhenTall)
{
    const std::vector<MapBox> two = {labelled(10, 10), labelled(10, 10)};
    const MapGrid wide = layout_maps(two, 1200.0f, 500.0f, 20.0f, 200.0f);
    EXPECT_EQ(wide.columns, 2);
    expect_square_and_inside(wide, two, 1200.0f, 500.0f);
    EXPECT_EQ(wide.maps[0].image.y, wide.maps[1].image.y);
    // Side by side, the second map leaves out the row labels the first one shows.
    EXPECT_TRUE(wide.maps[0].row_labels);
    EXPECT_FALSE(wide.maps[1].row_labels);
    EXPECT_TRUE(wide.maps[1].col_labels);

    const MapGrid tall = layout_maps(two, 500.0f, 1200.0f, 20.0f, 200.0f);
    EXPECT_EQ(tall.columns, 1);
    expect_square_and_inside(tall, two, 500.0f, 1200.0f);
    EXPECT_EQ(tall.maps[0].image.x, tall.maps[1].image.x);
    // Stacked, the upper map leaves out the key labels the lower one shows.
    EXPECT_FALSE(tall.maps[0].col_labels);
    EXPECT_TRUE(tall.maps[1].col_labels);
    EXPECT_TRUE(tall.maps[1].row_labels);
    // The same maps get larger cells where they have the room in the direction they are laid out.
    EXPECT_GT(wide.cell, 30.0f);
    EXPECT_GT(tall.cell, 30.0f);
}

TEST(PresenterLayout, EightHeadsShareTheirLabelsAndNeverGetSmallAtSevenTwenty)
{
    // h = 8 maps of T = 10 in a 1280x720 presenter view's area (title, legend and caption taken off), with
    // labels as large as the 22.5 px font draws them.
    const std::vector<MapBox> heads(8, labelled(10, 10));
    const MapGrid g = layout_maps(heads, 1232.0f, 470.0f, 27.0f, 135.0f);
    expect_square_and_inside(g, heads, 1232.0f, 470.0f);
    EXPECT_EQ(g.columns, 4) << "two rows of four, key labels under the lower row only";
    EXPECT_GE(g.cell * 10.0f, 140.0f);
    for (int j = 0; j < 8; ++j)
    {
        EXPECT_EQ(g.maps[static_cast<std::size_t>(j)].row_labels, j % 4 == 0) << j;
        EXPECT_EQ(g.maps[static_cast<std::size_t>(j)].col_labels, j >= 4) << j;
    }
    // Unshared labels (different keys) make every map carry its own.
    std::vector<MapBox> distinct = heads;
    for (std::size_t j = 0; j < distinct.size(); ++j)
        distinct[j].col_axis = distinct[j].row_axis = static_cast<int>(j);
    const MapGrid d = layout_maps(distinct, 1232.0f, 470.0f, 27.0f, 135.0f);
    for (const MapPlacement& p : d.maps)
        EXPECT_TRUE(p.row_labels && p.col_labels);
    EXPECT_LT(d.cell, g.cell);
}

// The Pipeline's "heads to MultiHead" group: a head's 7×2 output beside the 7×16 concatenation and
// multi-head output. Kept at the others' cell it is a sliver; it takes its own labels and the room the others
// leave, and they keep most of their cells.
TEST(PresenterLayout, AMapOfItsOwnShapeGrowsIntoTheRoomTheOthersLeave)
{
    std::vector<MapBox> maps = {labelled(7, 2), labelled(7, 16), labelled(7, 16)};
    for (MapBox& m : maps)
        m.right = 110.0f; // a colour bar each
    maps[0].col_axis = 2;
    maps[1].col_axis = maps[2].col_axis = 16;
    // (1280x720 and 1920x1080 views with the maps in one row.)
    for (const ImVec2 area : {ImVec2(1232.0f, 470.0f), ImVec2(1850.0f, 760.0f)})
    {
        SCOPED_TRACE(area.x);
        const MapGrid g = layout_maps(maps, area.x, area.y, 27.0f, 135.0f);
        expect_square_and_inside(g, maps, area.x, area.y);
        // The same maps all at one cell, each sharing labels where it can.
        const MapGrid shared = layout_maps(std::vector<MapBox>(maps.begin() + 1, maps.end()), area.x, area.y,
                                           27.0f, 135.0f, g.columns);
        std::printf("%.0f x %.0f: %d columns, output %.1f px cells, the others %.1f\n",
                    static_cast<double>(area.x), static_cast<double>(area.y), g.columns,
                    static_cast<double>(g.maps[0].cell), static_cast<double>(g.cell));
        EXPECT_GE(g.maps[0].cell, 1.5f * g.cell) << "the head's output stays a sliver";
        EXPECT_TRUE(g.maps[0].row_labels);
        EXPECT_TRUE(g.maps[1].row_labels) << "its rows no longer line up with the output's";
        EXPECT_FLOAT_EQ(g.maps[1].cell, g.maps[2].cell) << "maps of one shape keep one cell";
        EXPECT_GT(g.cell, 0.5f * shared.cell);
    }
    // Maps of one shape never grow apart.
    const std::vector<MapBox> same(3, labelled(7, 16));
    const MapGrid g = layout_maps(same, 1232.0f, 470.0f, 27.0f, 135.0f);
    for (const MapPlacement& p : g.maps)
        EXPECT_FLOAT_EQ(p.cell, g.cell);
}

// Two rows of a 7×2 map beside a 7×16 one, and a 7×16 one centred under them: the narrow map's grid column is
// as wide as it, not as the wide map of the short last row (which left an empty band beside it).
TEST(PresenterLayout, AShortLastRowDoesNotWidenTheColumnsAboveIt)
{
    std::vector<MapBox> maps = {labelled(7, 2), labelled(7, 16), labelled(7, 16)};
    for (MapBox& m : maps)
        m.right = 110.0f;
    maps[0].col_axis = 2;
    maps[1].col_axis = maps[2].col_axis = 16;
    const float w = 1850.0f, h = 760.0f;
    const MapGrid g = layout_maps(maps, w, h, 40.0f, 200.0f, 2);
    expect_square_and_inside(g, maps, w, h);
    ASSERT_EQ(g.columns, 2);
    const LayoutRect& narrow = g.maps[0].image;
    const LayoutRect& beside = g.maps[1].image;
    const float between = beside.x - (narrow.x + narrow.w);
    std::printf("cell %.1f, spare %.1f, between the first row's maps %.1f px\n", static_cast<double>(g.cell),
                static_cast<double>(g.spare), static_cast<double>(between));
    EXPECT_LE(between, maps[0].right + 40.0f + g.spare + maps[1].left + 1e-3f);
    // The lower map is centred under the upper row.
    const float middle = 0.5f * (narrow.x - maps[0].left + beside.x + beside.w + maps[1].right);
    const LayoutRect& lower = g.maps[2].image;
    EXPECT_NEAR(0.5f * (lower.x - maps[2].left + lower.x + lower.w + maps[2].right), middle, 1.0f);
}

TEST(PresenterLayout, ThreeWideMapsTakeTheLargestCellsAndLeaveNoQuarterEmpty)
{
    // The Pipeline's first group (embedding, positions, X: 6×16 each, tokens down, features across) with the
    // margins the presenter measures at 1280x720, and the same at 1920x1080 (a 1.5 times larger font).
    for (const float k : {1.0f, 1.5f})
    {
        SCOPED_TRACE(k);
        MapBox box;
        box.rows = 6;
        box.cols = 16;
        box.left = 113.0f * k;
        box.right = 123.0f * k;
        box.top = 67.0f * k;
        box.col_labels = 26.0f * k;
        box.below = 26.0f * k;
        box.row_axis = 0;
        box.col_axis = 1;
        const std::vector<MapBox> maps(3, box);
        const float w = 1232.0f * k, h = 527.0f * k, gap = 27.0f * k, max_cell = 135.0f * k;
        const MapGrid g = layout_maps(maps, w, h, gap, max_cell);
        expect_square_and_inside(g, maps, w, h);
        // Of one row of three, a 2×2 grid and one column of three, the chosen shape has the largest cell.
        float largest = 0.0f;
        for (int columns = 1; columns <= 3; ++columns)
        {
            const float cell = layout_maps(maps, w, h, gap, max_cell, columns).cell;
            std::printf("%.0fx%.0f: %d columns, cell %.1f px\n", static_cast<double>(w),
                        static_cast<double>(h), columns, static_cast<double>(cell));
            largest = std::max(largest, cell);
        }
        EXPECT_EQ(g.cell, largest);
        ASSERT_EQ(g.columns, 2);
        // The third map, alone in its row, is centred under the two: it crosses the middle of the grid, so
        // neither lower quarter is empty, and the maps above keep their own column labels.
        const LayoutRect& a = g.maps[0].image;
        const LayoutRect& b = g.maps[1].image;
        const LayoutRect& c = g.maps[2].image;
        const float middle = 0.5f * (a.x + b.x + b.w);
        EXPECT_LT(c.x, middle);
        EXPECT_GT(c.x + c.w, middle);
        EXPECT_NEAR(c.x + 0.5f * c.w, middle, box.left * 0.5f + 1.0f);
        EXPECT_TRUE(g.maps[0].col_labels);
        EXPECT_TRUE(g.maps[1].col_labels);
        EXPECT_GT(c.y, a.y + a.h);
    }
    // Full rows stay aligned: four maps in two columns keep their columns and share their key labels.
    const std::vector<MapBox> four(4, labelled(10, 10));
    const MapGrid g4 = layout_maps(four, 1200.0f, 1000.0f, 20.0f, 200.0f, 2);
    EXPECT_EQ(g4.maps[0].image.x, g4.maps[2].image.x);
    EXPECT_FALSE(g4.maps[0].col_labels);
}

TEST(PresenterLayout, StackedMapsWithDifferentKeysGrowIntoTheHeightLeft)
{
    // Q_h of 8×64 (numbered features) above the 8×8 scores (token keys) in a tall view: one column, as wide
    // as Q allows, and the scores take the height Q leaves instead of keeping Q's cells.
    MapBox q = labelled(8, 64), scores = labelled(8, 8);
    q.col_labels = 26.0f;
    q.col_axis = 1;
    const std::vector<MapBox> maps = {q, scores};
    const MapGrid g = layout_maps(maps, 1232.0f, 700.0f, 27.0f, 135.0f);
    expect_square_and_inside(g, maps, 1232.0f, 700.0f);
    EXPECT_EQ(g.columns, 1);
    EXPECT_NEAR(g.maps[0].cell, g.cell, 1e-3f);
    EXPECT_GT(g.maps[1].cell, g.cell * 1.4f);
    EXPECT_LE(g.height, 700.0f + 1e-3f);
    // The same keys below each other keep one size (and share their labels).
    const std::vector<MapBox> same = {labelled(8, 64), labelled(8, 64)};
    const MapGrid s = layout_maps(same, 1232.0f, 700.0f, 27.0f, 135.0f);
    ASSERT_EQ(s.columns, 1);
    EXPECT_EQ(s.maps[0].cell, s.maps[1].cell);
}

TEST(PresenterLayout, DegenerateInputsGiveNoNegativeSizes)
{
    EXPECT_TRUE(layout_maps({}, 800.0f, 600.0f, 10.0f, 50.0f).maps.empty());
    const std::vector<MapBox> one = {labelled(10, 10)};
    const MapGrid tiny = layout_maps(one, 50.0f, 40.0f, 10.0f, 50.0f); // the labels alone do not fit
    ASSERT_EQ(tiny.maps.size(), 1u);
    EXPECT_GE(tiny.cell, 0.0f);
    EXPECT_GE(tiny.maps[0].image.w, 0.0f);
    const MapGrid capped = layout_maps(one, 4000.0f, 4000.0f, 10.0f, 50.0f);
    EXPECT_EQ(capped.cell, 50.0f);
}

TEST(PresenterLayout, PartsNeverBreakInside)
{
    // "title", "T×T = 6×6", "H = 1.11 nats" at widths 100, 80, 90 with 10 px spaces.
    EXPECT_EQ(flow_parts({100.0f, 80.0f, 90.0f}, 10.0f, 400.0f), (std::vector<int>{0, 0, 0}));
    EXPECT_EQ(flow_parts({100.0f, 80.0f, 90.0f}, 10.0f, 200.0f), (std::vector<int>{0, 0, 1}));
    EXPECT_EQ(flow_parts({100.0f, 80.0f, 90.0f}, 10.0f, 95.0f), (std::vector<int>{0, 1, 2}));
}

TEST(PresenterLayout, TheCaptionGoesUnderWideShortMapsAndBesideSquareOnes)
{
    // A 1280x680 room under the title line; a caption of 600 px of text at a 30 px line (its height: the
    // lines that width needs, plus a heading line and padding).
    const float W = 1280.0f, H = 680.0f;
    // A caption of 3000 px of text on 36 px lines, a heading line and 20 px of padding.
    auto caption = [](float width)
    { return (std::ceil(3000.0f / std::max(1.0f, width - 20.0f)) + 1.0f) * 36.0f + 20.0f; };
    // One square 10x10 map with 60 px of labels around it: height-bound, so the width a column takes costs
    // nothing and the band's height is all lost.
    auto square = [](float w, float h)
    { return std::max(0.0f, std::min((w - 60.0f) / 10.0f, (h - 60.0f) / 10.0f)); };
    const CaptionPlacement beside = place_caption(W, H, caption, square);
    EXPECT_EQ(beside.side, CaptionSide::Right);
    EXPECT_NEAR(beside.cell, (H - 60.0f) / 10.0f, 1e-3f) << "the map keeps the whole height";
    EXPECT_FLOAT_EQ(beside.caption.w, std::round(W * 0.4f)) << "the widest column that costs the map nothing";
    EXPECT_LE(caption(beside.caption.w), beside.caption.h) << "the whole caption fits its column";
    // Beside the map and never over it.
    EXPECT_FLOAT_EQ(beside.view.x + beside.view.w, beside.caption.x);
    EXPECT_FLOAT_EQ(beside.caption.x + beside.caption.w, W);
    EXPECT_FLOAT_EQ(beside.view.h, H);

    // One 8x64 map (Q_h, wide and short): width-bound, so a column would shrink it and the band costs it
    // nothing: the caption goes under it.
    auto wide = [](float w, float h)
    { return std::max(0.0f, std::min((w - 60.0f) / 64.0f, (h - 60.0f) / 8.0f)); };
    const CaptionPlacement under = place_caption(W, H, caption, wide);
    EXPECT_EQ(under.side, CaptionSide::Below);
    EXPECT_NEAR(under.cell, (W - 60.0f) / 64.0f, 1e-3f);
    EXPECT_FLOAT_EQ(under.caption.y + under.caption.h, H);
    EXPECT_FLOAT_EQ(under.view.y + under.view.h, under.caption.y) << "the band starts where the view ends";
    EXPECT_FLOAT_EQ(under.caption.w, W);
    EXPECT_FLOAT_EQ(under.caption.h, caption(W));

    // A caption too long for any column stays in the band (scrolling there past its largest share), and so
    // does a view without maps (a panel, the Training view).
    auto endless = [](float width) { return width < 1000.0f ? 2000.0f : 400.0f; };
    EXPECT_EQ(place_caption(W, H, endless, square).side, CaptionSide::Below);
    EXPECT_EQ(place_caption(W, H, caption, nullptr).side, CaptionSide::Below);
    const CaptionPlacement capped = place_caption(
        W, H, [](float) { return 2000.0f; }, nullptr);
    EXPECT_FLOAT_EQ(capped.caption.h, H * kCaptionBandMaxShare);
    // Equal cells either way (maps far smaller than the room): the band, the familiar reading order.
    auto small = [](float, float) { return 20.0f; };
    EXPECT_EQ(place_caption(W, H, caption, small).side, CaptionSide::Below);
}

TEST(PresenterLayout, TheCaptionKeepsItsSizeWhereverItIsWholeAndTheMapsTakeTheRest)
{
    const float W = 1280.0f, H = 680.0f;
    // 3000 px of text at 22.5 px, growing with the font; one line of 1.2 em each.
    auto caption = [](float width, float px)
    {
        const float text_w = 3000.0f * px / 22.5f;
        return (std::ceil(text_w / std::max(1.0f, width - 20.0f)) + 1.0f) * px * 1.2f + 20.0f;
    };
    // A square map: beside it the caption costs nothing; at 30 px the caption holds.
    auto square = [](float w, float h)
    { return std::max(0.0f, std::min((w - 60.0f) / 10.0f, (h - 60.0f) / 10.0f)); };
    const CaptionChoice ok = choose_caption(W, H, 22.5f, 30.0f, caption, square);
    EXPECT_FLOAT_EQ(ok.font_px, 30.0f);
    EXPECT_EQ(ok.placement.side, CaptionSide::Right);
    // Four square maps in a row, held by the height with width to spare: the band at 30 px leaves them
    // smaller cells than a band at 22.5 px would, and the caption keeps its 30 px all the same.
    auto row = [](float w, float h)
    { return std::max(0.0f, std::min((w - 200.0f) / 40.0f, (h - 300.0f) / 10.0f)); };
    const CaptionChoice held = choose_caption(W, H, 22.5f, 30.0f, caption, row);
    const CaptionChoice at_text = choose_caption(W, H, 22.5f, 22.5f, caption, row);
    EXPECT_FLOAT_EQ(held.font_px, 30.0f);
    EXPECT_LT(held.placement.cell, at_text.placement.cell) << "the maps take what the caption leaves";
    EXPECT_FLOAT_EQ(held.placement.view.h, H - held.placement.caption.h);
    // No maps (a panel): the caption's size in the band; a caption too long for the band at that size takes
    // the largest size at which it is whole there.
    const CaptionChoice panel = choose_caption(W, H, 22.5f, 30.0f, caption, nullptr);
    EXPECT_FLOAT_EQ(panel.font_px, 30.0f);
    EXPECT_EQ(panel.placement.side, CaptionSide::Below);
    auto longer = [&](float width, float px) { return caption(width, px) * 2.0f; };
    const CaptionChoice fitted = choose_caption(W, H, 22.5f, 30.0f, longer, nullptr);
    EXPECT_LT(fitted.font_px, 30.0f);
    EXPECT_LE(longer(W, fitted.font_px), H * kCaptionBandMaxShare + 0.5f) << "whole in the band";
    EXPECT_GT(longer(W, fitted.font_px + 1.0f), H * kCaptionBandMaxShare + 0.5f) << "the largest that is";
}

TEST(PresenterLayout, CaptionFontIsATwentyFourthOfTheScreenHeight)
{
    EXPECT_FLOAT_EQ(presenter_caption_font_size(720.0f, 1.0f), 30.0f);
    EXPECT_FLOAT_EQ(presenter_caption_font_size(1080.0f, 1.0f), 45.0f);
    EXPECT_GT(presenter_caption_font_size(720.0f, 1.0f), presenter_font_size(720.0f, 1.0f));
    // Ctrl+= grows it with the rest of the text.
    EXPECT_FLOAT_EQ(presenter_caption_font_size(720.0f, 1.2f), 36.0f);
}

// [SECTION] The steps drawn at 1280x720

// The textured quads of the last frame (one per heatmap), sorted left to right, top to bottom.
std::vector<ImVec4> heatmap_rects(const test::FrameOutput& out)
{
    std::vector<ImVec4> rects;
    for (const auto& [id, r] : out.texture_rects)
        rects.push_back(r);
    std::sort(rects.begin(), rects.end(),
              [](const ImVec4& a, const ImVec4& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    return rects;
}

// Sixteen heads of an 11-token sentence at 1280x720: the rows are too short for a label each, so the first
// column's labels are thinned and carry their index ("i=4 cross"), which the layout must count; it did not,
// and those maps came out with a third smaller cells than their neighbours (and other key labels).
TEST_F(PresenterTest, SixteenHeadsAllGetTheSameCellsWhenTheirLabelsAreThinned)
{
    state->session.text = "the animal did not cross the street because it was tired";
    state->session.config.d_model = 64;
    state->session.config.n_heads = 16;
    state->edit();
    ui.resize(1280.0f, 720.0f);
    state->presenter = true;
    state->presenter_view = PresenterView::Heads;
    use_window_font(720.0f);
    const test::FrameOutput out = ui.frames(*state, 4);
    ASSERT_EQ(state->heads(), 16);
    const std::vector<ImVec4> rects = heatmap_rects(out);
    ASSERT_EQ(rects.size(), 16u) << out.text;
    EXPECT_TRUE(drawn(out, "i=4 cross")) << "the labels are thinned here\n" << out.text;
    for (const ImVec4& r : rects)
    {
        EXPECT_NEAR(r.z - r.x, rects[1].z - rects[1].x, 1.0f);
        EXPECT_NEAR(r.w - r.y, rects[1].w - rects[1].y, 1.0f);
    }
}

// A lecturer moves the pointer onto a head's map to point at a row: the maps stay where they are. (The
// "→ key" line's room was held only once the pointer was over the maps: they moved about 30 px down under
// it, and a click meant for "visits" pinned "Jane".)
TEST_F(PresenterTest, PointingAtAHeadsRowDoesNotMoveTheMaps)
{
    enter_lesson(*state, lesson_index(*state, "tour"), 10);
    state->presenter = true;
    use_window_font(720.0f);
    ui.mouse(640.0f, 700.0f); // over the caption
    const std::vector<ImVec4> before = heatmap_rects(ui.frames(*state, 4));
    ASSERT_EQ(before.size(), 4u);
    const ImVec4 first = before[0];
    ui.mouse(first.x + 4.0f, (first.y + first.w) * 0.5f); // the middle row of head 1's map
    const test::FrameOutput out = ui.frames(*state, 3);
    const std::vector<ImVec4> after = heatmap_rects(out);
    ASSERT_EQ(after.size(), 4u);
    for (std::size_t i = 0; i < after.size(); ++i)
    {
        EXPECT_NEAR(after[i].x, before[i].x, 0.5f) << "head " << i + 1;
        EXPECT_NEAR(after[i].y, before[i].y, 0.5f) << "head " << i + 1;
        EXPECT_NEAR(after[i].z, before[i].z, 0.5f) << "head " << i + 1;
    }
    EXPECT_TRUE(drawn(out, "→ ")) << "the pointed row's top key is written\n" << out.text;
    leave_lesson(*state);
}

// A clicker's blank-screen key (B or "."): the screen goes black, nothing of the slide drawn; B again, Esc or
// a step key brings the slide back without stepping on (Esc does not leave presenter mode from black).
TEST_F(PresenterTest, BOrPeriodBlanksTheScreenUntilAKeyBringsTheSlideBack)
{
    enter_lesson(*state, lesson_index(*state, "tour"), 2);
    state->presenter = true;
    test::FrameOutput out = ui.frames(*state, 2);
    ASSERT_TRUE(drawn(out, "September")) << out.text;
    for (const int key : {keys::B, keys::Period})
        for (const int back : {keys::B, keys::PageDown, 256 /* Esc in the headless key map */})
        {
            ui.press_key(*state, key);
            out = ui.frames(*state, 1);
            EXPECT_TRUE(state->presenter_blank);
            EXPECT_EQ(out.text.find_first_not_of(" \n"), std::string::npos) << "no text: " << out.text;
            EXPECT_TRUE(out.textures.empty()) << "no maps";
            ui.press_key(*state, back);
            out = ui.frames(*state, 1);
            EXPECT_FALSE(state->presenter_blank) << back;
            EXPECT_TRUE(state->presenter) << back;
            EXPECT_EQ(state->lesson.step, 2) << back;
            EXPECT_TRUE(drawn(out, "September")) << out.text;
        }
    // Leaving presenter mode while black: the next F5 shows the slide.
    ui.press_key(*state, keys::B);
    ui.press_key(*state, keys::F5);
    ui.press_key(*state, keys::F5);
    EXPECT_FALSE(state->presenter_blank);
    leave_lesson(*state);
}

TEST_F(PresenterTest, HeadsStepsFillTheViewWithSquareLabelledMapsAtSevenTwenty)
{
    struct Case
    {
        const char* lesson;
        int step, heads, T;
        float min_side;
    };
    // The tour's four heads of "Jane visits Africa in September", the multi-head lesson's four and eight
    // heads of a 10-token sentence.
    // (Under a caption at a 24th of the screen: the tour step's four-line caption leaves its maps 208 px.)
    for (const Case& c : {Case{"tour", 10, 4, 5, 200.0f}, Case{"multi_head", 1, 4, 10, 230.0f},
                          Case{"multi_head", 4, 8, 10, 120.0f}})
    {
        SCOPED_TRACE(std::string(c.lesson) + " step " + std::to_string(c.step + 1));
        enter_lesson(*state, lesson_index(*state, c.lesson), c.step);
        state->presenter = true;
        use_window_font(720.0f);
        const test::FrameOutput out = ui.frames(*state, 4);
        ASSERT_EQ(state->heads(), c.heads);
        const std::vector<ImVec4> rects = heatmap_rects(out);
        ASSERT_EQ(static_cast<int>(rects.size()), c.heads) << out.text;
        float min_side = 1e9f;
        for (const ImVec4& r : rects)
        {
            const float w = r.z - r.x, h = r.w - r.y;
            EXPECT_NEAR(w, h, 1.0f) << "square cells";
            EXPECT_GE(r.x, 0.0f);
            EXPECT_LE(r.z, 1280.0f);
            min_side = std::min(min_side, w);
        }
        EXPECT_GE(min_side, c.min_side);
        std::printf("%s step %d: %d maps, smallest %.0f px\n", c.lesson, c.step + 1, c.heads,
                    static_cast<double>(min_side));
        // Key labels are written (the first token is a key of every map, and labelled however thin the cells
        // are), H stays on one line, and nothing asks the audience to hover.
        const std::string first_token = state->trace().tokens.tokens[0].front();
        EXPECT_TRUE(drawn(out, "H = ")) << out.text;
        EXPECT_TRUE(drawn(out, "H: mean row entropy")) << out.text;
        EXPECT_FALSE(drawn(out, "stretch colours")) << out.text;
        EXPECT_FALSE(drawn(out, "Hover a query")) << out.text;
        // A row label reads across; a key label reads upwards, and comes back from the draw data one glyph
        // a line.
        std::string upwards;
        for (char ch : first_token)
            upwards += std::string(upwards.empty() ? "" : "\n") + ch;
        EXPECT_TRUE(drawn(out, first_token)) << "row label " << first_token;
        EXPECT_TRUE(drawn(out, upwards)) << "key label " << first_token << "\n" << out.text;
        for (const ImVec4& r : rects)
            std::printf("  map at %.0f,%.0f size %.0f x %.0f\n", static_cast<double>(r.x),
                        static_cast<double>(r.y), static_cast<double>(r.z - r.x),
                        static_cast<double>(r.w - r.y));
        for (int j = 0; j < c.heads; ++j)
        {
            MatrixRef ref;
            ref.stage = Stage::weights;
            ref.head = j;
            char entropy[32];
            std::snprintf(entropy, sizeof entropy, "H = %.2f", static_cast<double>(state->mean_entropy(ref)));
            EXPECT_TRUE(drawn(out, "head " + std::to_string(j + 1) + " " + entropy)) << entropy << out.text;
        }
        leave_lesson(*state);
        state->presenter = false;
    }
}

// Head j's strongest key for query `row` of the first sentence's layer-1 weights: its column and weight.
std::pair<int, float> strongest_key(const AppState& state, int j, int row)
{
    MatrixRef ref;
    ref.stage = Stage::weights;
    ref.head = j;
    const MatrixView view = resolve_matrix(state, ref);
    Eigen::Index col = 0;
    const float w = view.m->row(row).maxCoeff(&col);
    return {static_cast<int>(col), w};
}

TEST_F(PresenterTest, APinnedQueryNamesWhatEachHeadLooksAtMost)
{
    enter_lesson(*state, lesson_index(*state, "multi_head"), 1);
    state->presenter = true;
    use_window_font(720.0f);
    ui.frames(*state, 2);
    const std::vector<std::string> tokens = state->trace().tokens.tokens[0];
    const auto it = std::find(tokens.begin(), tokens.end(), "it");
    ASSERT_NE(it, tokens.end());
    const int row = static_cast<int>(it - tokens.begin());
    // Each head's strongest key for "it", as the heads' headers should name it.
    auto expected_top = [&](int j)
    {
        const auto [col, w] = strongest_key(*state, j, row);
        char text[64];
        std::snprintf(text, sizeof text, "→ %s %.2f", tokens[static_cast<std::size_t>(col)].c_str(),
                      static_cast<double>(w));
        return std::string(text);
    };
    test::FrameOutput out = ui.frames(*state, 2);
    EXPECT_FALSE(drawn(out, expected_top(0))) << "no query, no answer";
    set_query_pin(state->heads_panel.query, row, tokens);
    out = ui.frames(*state, 2);
    EXPECT_TRUE(drawn(out, "query “it” in every head")) << out.text;
    for (int j = 0; j < state->heads(); ++j)
        EXPECT_TRUE(drawn(out, expected_top(j))) << expected_top(j) << "\n" << out.text;
    // ↓ moves the pinned query to the next token, in presenter mode too.
    ui.press_key(*state, keys::Down);
    EXPECT_EQ(state->heads_panel.query.row, row + 1);
}

// A click on a token in the Heads view pins a query, not a cell: the Inspector view then explains that query
// in the selected head at its strongest key, the chain and the row's bars all on screen at 720 lines, and
// [ ] move it to another head.
TEST_F(PresenterTest, TheInspectorViewExplainsTheHeadsViewsPinnedQuery)
{
    state->presenter = true;
    use_window_font(720.0f);
    ui.frames(*state, 2);
    ui.press_key(*state, keys::Digit0 + 3);
    test::FrameOutput out = ui.frames(*state, 2);
    const std::vector<std::string> tokens = state->trace().tokens.tokens[0];
    EXPECT_TRUE(drawn_wrapped(out, "Nothing pinned: “" + tokens[1] + "” (i = 1)")) << "nothing pinned yet";
    const int row = 2;
    set_query_pin(state->heads_panel.query, row, tokens);
    for (int j = 0; j < 2; ++j)
    {
        const auto [col, w] = strongest_key(*state, j, row);
        out = ui.frames(*state, 2);
        const std::string head = std::to_string(j + 1);
        EXPECT_TRUE(drawn_wrapped(out, "“" + tokens[row] +
                                           "” (i = 2) pinned in the Heads view: its strongest "
                                           "key in head " +
                                           head))
            << out.text;
        EXPECT_TRUE(drawn_wrapped(out, "The chain for query i = 2 “" + tokens[row] +
                                           "” and key j = " + std::to_string(col) + " “" +
                                           tokens[static_cast<std::size_t>(col)] + "”, head " + head))
            << out.text;
        // The chain's last line (its value) and the row's bars (the last key's label) are on screen.
        EXPECT_TRUE(drawn_wrapped(out, "weights[i, j] = " + format_value_long(w))) << out.text;
        EXPECT_TRUE(drawn(out, "Row i of A_" + head + " (sums to 1")) << out.text;
        EXPECT_TRUE(drawn(out, std::to_string(tokens.size() - 1) + " " + tokens.back())) << out.text;
        // Each bar's number in one format: three decimals, or a power of ten below 0.001 (never "0.00").
        MatrixRef weights_ref;
        weights_ref.stage = Stage::weights;
        weights_ref.head = j;
        const MatrixView weights = resolve_matrix(*state, weights_ref);
        for (Eigen::Index c = 0; c < weights.m->cols(); ++c)
            EXPECT_TRUE(drawn(out, format_probability((*weights.m)(row, c)))) << c << "\n" << out.text;
        ui.press_key(*state, keys::RightBracket);
    }
    EXPECT_EQ(state->sel.head, 2);
    // Esc unpins it: the view goes back to its default query (i = 1), and presenter mode stays.
    ui.press_key(*state, ImGui::GetKeyIndex(ImGuiKey_Escape));
    out = ui.frames(*state, 2);
    EXPECT_TRUE(state->presenter);
    EXPECT_FALSE(drawn_wrapped(out, "pinned in the Heads view")) << out.text;
    EXPECT_TRUE(drawn_wrapped(out, "Nothing pinned: “" + tokens[1] + "” (i = 1)")) << out.text;
}

TEST_F(PresenterTest, MapsGrowWithTheWindowHeight)
{
    // The heads of the tour and of the multi-head lesson, and its single-head comparison, at the three
    // screens a lecture meets: the maps keep their share of the screen.
    for (const auto& [lesson, step] :
         {std::pair<const char*, int>{"tour", 10}, {"multi_head", 1}, {"multi_head", 2}})
    {
        float at_720 = 0.0f;
        for (const ImVec2 size :
             {ImVec2(1280.0f, 720.0f), ImVec2(1600.0f, 1000.0f), ImVec2(1920.0f, 1080.0f)})
        {
            SCOPED_TRACE(std::string(lesson) + " step " + std::to_string(step + 1) + " at " +
                         std::to_string(static_cast<int>(size.y)));
            ui.resize(size.x, size.y);
            enter_lesson(*state, lesson_index(*state, lesson), step);
            state->presenter = true;
            use_window_font(size.y);
            const std::vector<ImVec4> rects = heatmap_rects(ui.frames(*state, 4));
            ASSERT_GE(rects.size(), 2u);
            float smallest = 1e9f;
            for (const ImVec4& r : rects)
            {
                EXPECT_NEAR(r.z - r.x, r.w - r.y, 1.0f) << "square cells";
                EXPECT_LE(r.z, size.x);
                EXPECT_LE(r.w, size.y);
                smallest = std::min(smallest, r.z - r.x);
            }
            if (size.y == 720.0f)
                at_720 = smallest;
            // The screen grows by its smaller ratio (1600x1000 is only 1.25 times as wide as 1280x720).
            const float grown = std::min(size.x / 1280.0f, size.y / 720.0f);
            EXPECT_GE(smallest, at_720 * grown * 0.9f);
            std::printf("%s step %d at %.0fx%.0f: %zu maps, smallest %.0f px\n", lesson, step + 1,
                        static_cast<double>(size.x), static_cast<double>(size.y), rects.size(),
                        static_cast<double>(smallest));
            leave_lesson(*state);
            state->presenter = false;
        }
    }
}

TEST_F(PresenterTest, SingleHeadComparisonKeepsItsMapsSquareAndLargeAtSevenTwenty)
{
    enter_lesson(*state, lesson_index(*state, "multi_head"), 2);
    state->presenter = true;
    use_window_font(720.0f);
    const test::FrameOutput out = ui.frames(*state, 4);
    const std::vector<ImVec4> rects = heatmap_rects(out);
    ASSERT_GE(rects.size(), 2u);
    for (const ImVec4& r : rects)
    {
        const float w = r.z - r.x, h = r.w - r.y;
        EXPECT_NEAR(w, h, 1.0f) << "10×10 maps with square cells";
        EXPECT_GE(w, 240.0f);
    }
    // Side by side (the screen is wide), and the claim about the outputs in words.
    EXPECT_NEAR(rects[0].y, rects[1].y, 1.0f);
    EXPECT_TRUE(drawn(out, "Single-head weights")) << out.text;
    EXPECT_TRUE(drawn(out, "H = ")) << out.text;
    EXPECT_TRUE(drawn(out, format_value_long(state->comparisons.single_vs_multi_max_diff))) << out.text;
    std::printf("single-head comparison: %zu maps, first %.0f x %.0f px\n", rects.size(),
                static_cast<double>(rects[0].z - rects[0].x), static_cast<double>(rects[0].w - rects[0].y));
}

// A head's index is h, counted from 1, as in the equations (Q_h = X W_h^Q) and the maps' titles (Q_1 … Q_4):
// j is a key position counted from 0 in the tooltips, so the packed comparison's claim must not use it.
TEST_F(PresenterTest, ThePackedComparisonNamesAHeadsBlockByH)
{
    enter_lesson(*state, lesson_index(*state, "multi_head"), 0);
    state->presenter = true;
    use_window_font(1080.0f);
    ui.resize(1920.0f, 1080.0f);
    const test::FrameOutput out = ui.frames(*state, 4);
    EXPECT_TRUE(drawn_wrapped(out, "block h being head h's Q_h")) << out.text;
    EXPECT_TRUE(drawn_wrapped(out, "Each Q_h is coloured on its own scale")) << out.text;
    for (const char* head : {"Q_1", "Q_4"})
        EXPECT_TRUE(drawn(out, head)) << head << "\n" << out.text;
    EXPECT_FALSE(drawn(out, "Q_j")) << out.text;
}

// [SECTION] Labels that fit their cells, and Ctrl+= that keeps the maps

TEST(PresenterLayout, LabelsShrinkToTheirCellsDownToALegibleFloor)
{
    // Cells as large as the font: labels at the font's size.
    EXPECT_FLOAT_EQ(presenter_label_size(40.0f, 22.5f), 22.5f);
    // Smaller cells: labels as small as the cell, so each token keeps its own.
    const float small = presenter_label_size(16.0f, 22.5f);
    EXPECT_LT(small, 22.5f);
    EXPECT_LE(small, 16.0f);
    // Never under 0.6 of the font nor under 12 px: below that the labels thin out instead.
    EXPECT_FLOAT_EQ(presenter_label_size(5.0f, 22.5f), std::max(12.0f, 0.6f * 22.5f));
    EXPECT_FLOAT_EQ(presenter_label_size(5.0f, 34.0f), 0.6f * 34.0f);
    EXPECT_FLOAT_EQ(presenter_label_size(5.0f, 10.0f), 10.0f) << "a font under the floor keeps its size";
}

TEST(PresenterLayout, ZoomKeepsTheCellsAndRoomForTheirValues)
{
    EXPECT_EQ(zoomed_min_cell(60.0f, 40.0f, 1.0f), 0.0f) << "at 100% no floor";
    EXPECT_EQ(zoomed_min_cell(60.0f, 40.0f, 0.8f), 0.0f);
    // Values fitted: the floor keeps the cell (60) or makes room for them at 1.2 times the text (52).
    EXPECT_FLOAT_EQ(zoomed_min_cell(60.0f, 40.0f, 1.2f), 60.0f);
    EXPECT_FLOAT_EQ(zoomed_min_cell(45.0f, 40.0f, 1.2f), 52.0f);
    // Values did not fit: the cells only keep their size.
    EXPECT_FLOAT_EQ(zoomed_min_cell(20.0f, 40.0f, 1.2f), 20.0f);
}

TEST(PresenterLayout, AMinimumCellOutgrowsTheAreaAcrossLast)
{
    const std::vector<MapBox> four(4, labelled(10, 10));
    const MapGrid free = layout_maps(four, 1200.0f, 400.0f, 20.0f, 200.0f);
    const float floor = free.cell * 1.5f;
    const MapGrid held = layout_maps(four, 1200.0f, 400.0f, 20.0f, 200.0f, 0, floor);
    for (const MapPlacement& p : held.maps)
        EXPECT_GE(p.cell, floor - 1e-3f);
    EXPECT_GT(held.height, 400.0f) << "taller than the view: it scrolls";
    EXPECT_LE(held.width, 1200.0f) << "but never wider, when a shape fits across";
    // A floor the free layout already meets changes nothing.
    const MapGrid same = layout_maps(four, 1200.0f, 400.0f, 20.0f, 200.0f, 0, free.cell * 0.5f);
    EXPECT_EQ(same.cell, free.cell);
    EXPECT_EQ(same.columns, free.columns);
}

// Every token of the batch's first sentence, as a row label (across) and as a key label (upwards).
void expect_every_token_labelled(const AppState& state, const test::FrameOutput& out)
{
    for (const std::string& token : state.trace().tokens.tokens[0])
    {
        std::string upwards;
        for (char ch : token)
            upwards += std::string(upwards.empty() ? "" : "\n") + ch;
        EXPECT_TRUE(drawn(out, token)) << "row label " << token;
        EXPECT_TRUE(drawn(out, upwards)) << "key label " << token;
    }
}

TEST_F(PresenterTest, EightHeadsNameEveryTokenAtBothScreenSizes)
{
    // multi_head step 5: h = 8 over "The animal didn't cross the street because it was tired".
    for (const ImVec2 size : {ImVec2(1280.0f, 720.0f), ImVec2(1920.0f, 1080.0f)})
    {
        SCOPED_TRACE(std::to_string(static_cast<int>(size.y)));
        ui.resize(size.x, size.y);
        enter_lesson(*state, lesson_index(*state, "multi_head"), 4);
        state->presenter = true;
        use_window_font(size.y);
        const test::FrameOutput out = ui.frames(*state, 4);
        ASSERT_EQ(state->heads(), 8);
        const std::vector<std::string>& tokens = state->trace().tokens.tokens[0];
        ASSERT_NE(std::find(tokens.begin(), tokens.end(), "animal"), tokens.end());
        expect_every_token_labelled(*state, out);
        // Thinned labels carry their index ("i=2 didn't"): none may appear.
        EXPECT_FALSE(drawn(out, "i=0 The")) << out.text;
        const std::vector<ImVec4> rects = heatmap_rects(out);
        ASSERT_EQ(rects.size(), 8u);
        for (const ImVec4& r : rects)
        {
            EXPECT_NEAR(r.z - r.x, r.w - r.y, 1.0f) << "square cells";
            EXPECT_LE(r.z, size.x);
            EXPECT_GE(r.z - r.x, size.y * 0.19f) << "maps use the room the smaller labels leave";
        }
        leave_lesson(*state);
        state->presenter = false;
    }
}

TEST_F(PresenterTest, KeyLabelsThatFitTheirCellsLieFlat)
{
    // shapes_masks step 5: the weights of "I love cats" in cells wide enough for each word: read left to
    // right (turned to read upwards, the key "I" looked like a dash).
    for (const ImVec2 size : {ImVec2(1280.0f, 720.0f), ImVec2(1920.0f, 1080.0f)})
    {
        SCOPED_TRACE(std::to_string(static_cast<int>(size.y)));
        ui.resize(size.x, size.y);
        enter_lesson(*state, lesson_index(*state, "shapes_masks"), 4);
        state->presenter = true;
        use_window_font(size.y);
        const test::FrameOutput out = ui.frames(*state, 4);
        ASSERT_EQ(heatmap_rects(out).size(), 1u) << out.text;
        EXPECT_TRUE(drawn(out, "I love cats")) << out.text;
        leave_lesson(*state);
        state->presenter = false;
    }
}

TEST_F(PresenterTest, CtrlPlusTwiceGrowsTheMapsWithTheTextAndKeepsTheirValues)
{
    // Tour step 6: the weights of "Jane visits Africa in September", values in the cells; its caption is
    // beside the map at 1080 lines (the wider text made the column wider and the map smaller).
    for (const ImVec2 size : {ImVec2(1280.0f, 720.0f), ImVec2(1920.0f, 1080.0f)})
    {
        SCOPED_TRACE(size.y);
        ui.resize(size.x, size.y);
        state->presenter_scale = 1.0f;
        enter_lesson(*state, lesson_index(*state, "tour"), 5);
        state->presenter = true;
        use_window_font(size.y);
        const std::vector<ImVec4> before = heatmap_rects(ui.frames(*state, 4));
        ASSERT_EQ(before.size(), 1u);
        MatrixRef ref;
        ref.stage = Stage::weights;
        ref.head = state->sel.head;
        const MatrixView view = resolve_matrix(*state, ref);
        ASSERT_NE(view.m, nullptr);
        const std::string value = format_value((*view.m)(1, 2));
        const test::FrameOutput out = zoom_twice(size.y);
        const std::vector<ImVec4> after = heatmap_rects(out);
        ASSERT_EQ(after.size(), 1u);
        const float side_before = before[0].z - before[0].x;
        const float side_after = after[0].z - after[0].x;
        EXPECT_GE(side_after, side_before - 1.0f) << "the map never shrinks when the text grows";
        EXPECT_NEAR(side_after, after[0].w - after[0].y, 1.0f) << "square cells";
        EXPECT_TRUE(drawn(out, value)) << "cell (1, 2) keeps its value " << value << "\n" << out.text;
        std::printf("tour step 6 at %.0f lines: map %.0f px at 100%%, %.0f px at 120%%, caption %s\n",
                    static_cast<double>(size.y), static_cast<double>(side_before),
                    static_cast<double>(side_after), state->presenter_caption_beside ? "beside" : "under");
    }
}

// Tour step 6 enlarged to 120 % and 160 % (Ctrl+= from 100 %, as after a launch): the caption never lies over
// the map (at 160 % on 720 lines a band under it took the lower half), and the view scrolls down to the end
// of the key labels under the map ("September", written upwards) and shows the query labels left of it.
TEST_F(PresenterTest, ZoomedCaptionNeverCoversTheMapAndItsLabelsCanBeReached)
{
    for (const ImVec2 size : {ImVec2(1280.0f, 720.0f), ImVec2(1920.0f, 1080.0f)})
        for (const int steps : {2, 6})
        {
            SCOPED_TRACE(std::to_string(static_cast<int>(size.y)) + " lines, " + std::to_string(steps) +
                         " steps");
            ui.resize(size.x, size.y);
            state->presenter_scale = 1.0f;
            enter_lesson(*state, lesson_index(*state, "tour"), 5);
            state->presenter = true;
            use_window_font(size.y);
            ASSERT_EQ(heatmap_rects(ui.frames(*state, 4)).size(), 1u);
            for (int k = 0; k < steps; ++k)
                step_text_size(*state, 1);
            use_window_font(size.y);
            const test::FrameOutput out = ui.frames(*state, 4);
            const std::vector<ImVec4> rects = heatmap_rects(out);
            ASSERT_EQ(rects.size(), 1u);
            const ImVec4 map = rects[0];
            const ImGuiWindow* view = ImGui::FindWindowByName("##presenter_view");
            const ImGuiWindow* caption = ImGui::FindWindowByName("##presenter_caption");
            ASSERT_NE(view, nullptr);
            ASSERT_NE(caption, nullptr);
            const bool over = map.x < caption->Pos.x + caption->Size.x && caption->Pos.x < map.z &&
                              map.y < caption->Pos.y + caption->Size.y && caption->Pos.y < map.w;
            EXPECT_FALSE(over) << "the caption (" << caption->Pos.x << ", " << caption->Pos.y << ", "
                               << caption->Size.x << " x " << caption->Size.y << ") lies over the map ("
                               << map.x << ", " << map.y << " to " << map.z << ", " << map.w << ")";
            // The labels are at most the text's size: "September" upwards under the map, beside it on the
            // left.
            const float label = ImGui::CalcTextSize("September").x;
            const float content_bottom =
                view->Pos.y - view->Scroll.y + view->ContentSize.y + view->WindowPadding.y;
            EXPECT_GE(content_bottom + 0.5f, map.w + label) << "the key labels' end cannot be scrolled to";
            EXPECT_GE(map.x - label, view->Pos.x) << "the query labels are cut on the left";
            const bool windows_overlap = view->Pos.x + view->Size.x > caption->Pos.x + 0.5f &&
                                         view->Pos.y + view->Size.y > caption->Pos.y + 0.5f;
            EXPECT_FALSE(windows_overlap) << "the view runs under the caption";
            std::printf("tour step 6 at %.0f lines, %d%%: map %.0f px, caption %s, content %.0f px in %.0f\n",
                        static_cast<double>(size.y), 100 + 10 * steps, static_cast<double>(map.z - map.x),
                        state->presenter_caption_beside ? "beside" : "under",
                        static_cast<double>(view->ContentSize.y), static_cast<double>(view->Size.y));
        }
}

// Shift+↓ and Shift+↑ page the presenter view that enlarged text made taller than the screen (tour step 6 at
// 160 % on 720 lines: the key labels under the map are below the fold), by nine tenths of the view, down to
// the end and back to the top, and leave the pinned query alone (↓ alone moves it); the view keeps one
// layout from frame to frame.
TEST_F(PresenterTest, ShiftDownAndUpPageAViewTallerThanTheScreen)
{
    ui.resize(1280.0f, 720.0f);
    enter_lesson(*state, lesson_index(*state, "tour"), 5);
    state->presenter = true;
    for (int k = 0; k < 6; ++k)
        step_text_size(*state, 1);
    use_window_font(720.0f);
    ui.frames(*state, 4);
    const ImGuiWindow* view = ImGui::FindWindowByName("##presenter_view");
    ASSERT_NE(view, nullptr);
    ASSERT_GT(view->ScrollMax.y, 0.0f) << "the view must outgrow the screen for this test";
    ASSERT_EQ(view->Scroll.y, 0.0f);
    // The same layout frame after frame: a horizontal scroll bar that came and went changed the room the
    // grid was planned in, and so the grid, every frame.
    const ImVec2 content = view->ContentSize;
    for (int k = 0; k < 3; ++k)
    {
        ui.frames(*state, 1);
        EXPECT_EQ(view->ContentSize.x, content.x) << "frame " << k;
        EXPECT_EQ(view->ContentSize.y, content.y) << "frame " << k;
    }
    const QueryPin pin = state->heads_panel.query;
    // Each press's frames: the key down (the scroll asked), then up (the view scrolled).
    ImGuiIO& io = ImGui::GetIO();
    io.KeyShift = true;
    ui.press_key(*state, keys::Down);
    EXPECT_NEAR(view->Scroll.y, std::min(view->ScrollMax.y, view->Size.y * 0.9f), 1.0f);
    EXPECT_EQ(state->heads_panel.query.row, pin.row) << "Shift+↓ moved the pinned query";
    for (int k = 0; k < 4; ++k)
        ui.press_key(*state, keys::Down);
    EXPECT_NEAR(view->Scroll.y, view->ScrollMax.y, 0.5f) << "down to the end, no further";
    for (int k = 0; k < 5; ++k)
        ui.press_key(*state, keys::Up);
    EXPECT_EQ(view->Scroll.y, 0.0f) << "back to the top";
    io.KeyShift = false;
}

// Every view keeps one layout from frame to frame when enlarged text makes it outgrow the screen: a layout
// that depends on a scroll bar its own size brings or removes would change every frame (flicker). Pipeline,
// Heads, Inspector and Comparisons outside a lesson, a lesson's heads step and tour step 6 (one map, whose
// horizontal scroll bar came and went every frame at 160 % on 720 lines), at 100 %, 120 % and 160 %.
TEST_F(PresenterTest, EveryViewKeepsOneLayoutFromFrameToFrameWhenZoomed)
{
    for (const ImVec2 size : {ImVec2(1280.0f, 720.0f), ImVec2(1920.0f, 1080.0f)})
        for (const int steps : {0, 2, 6})
            for (int v = 0; v <= static_cast<int>(PresenterView::Comparisons) + 2; ++v)
            {
                const int past = v - static_cast<int>(PresenterView::Comparisons); // 1, 2: a lesson step
                const bool lesson = past > 0;
                SCOPED_TRACE(std::to_string(static_cast<int>(size.y)) + " lines, " +
                             std::to_string(100 + 10 * steps) + " %, " +
                             (past == 1   ? std::string("multi_head step 5")
                              : past == 2 ? std::string("tour step 6")
                                          : "view " + std::to_string(v + 1)));
                ui.resize(size.x, size.y);
                if (lesson)
                    enter_lesson(*state, lesson_index(*state, past == 1 ? "multi_head" : "tour"),
                                 past == 1 ? 4 : 5);
                else
                {
                    leave_lesson(*state);
                    state->presenter_view = static_cast<PresenterView>(v);
                }
                state->presenter = true;
                state->presenter_scale = 1.0f;
                for (int k = 0; k < steps; ++k)
                    step_text_size(*state, 1);
                use_window_font(size.y);
                ui.frames(*state, 4);
                const ImGuiWindow* view = ImGui::FindWindowByName("##presenter_view");
                ASSERT_NE(view, nullptr);
                const ImVec2 content = view->ContentSize;
                for (int k = 0; k < 3; ++k)
                {
                    ui.frames(*state, 1);
                    EXPECT_EQ(view->ContentSize.x, content.x) << "frame " << k;
                    EXPECT_EQ(view->ContentSize.y, content.y) << "frame " << k;
                }
            }
}

// Hovering a query row writes "→ key 0.62" in every head's header. While the pointer shows, the headers
// hold that room, so the maps do not move while it moves over a row, between the maps or off them
// (they moved down a line and back under the pointer on multi_head step 5 with eight heads at 720 lines,
// which could then leave a map and come back every frame). The Heads view outside a lesson and the lesson's
// step, on both screens, every row of every head pointed at in turn.
TEST_F(PresenterTest, PointingAtQueriesNeverMovesTheHeadsMaps)
{
    // "→" also shows in the title line's keys: each head's header adds one to those.
    auto arrows = [](const std::string& text)
    {
        int n = 0;
        for (std::size_t at = text.find("→"); at != std::string::npos; at = text.find("→", at + 1))
            ++n;
        return n;
    };
    for (const ImVec2 size : {ImVec2(1280.0f, 720.0f), ImVec2(1920.0f, 1080.0f)})
        for (const bool lesson : {false, true})
        {
            SCOPED_TRACE(std::to_string(static_cast<int>(size.y)) + " lines, " +
                         (lesson ? "multi_head step 5" : "Heads view"));
            ui.resize(size.x, size.y);
            if (lesson)
                enter_lesson(*state, lesson_index(*state, "multi_head"), 4);
            else
            {
                leave_lesson(*state);
                state->presenter_view = PresenterView::Heads;
            }
            state->presenter = true;
            state->heads_panel.query = QueryPin{};
            use_window_font(size.y);
            ui.mouse(size.x - 2.0f, size.y - 2.0f); // on the caption, away from the view
            const test::FrameOutput away = ui.frames(*state, 4);
            const ImGuiWindow* view = ImGui::FindWindowByName("##presenter_view");
            ASSERT_NE(view, nullptr);
            // Into the view, over none of the maps: the headers take the key's room.
            ui.mouse(view->Pos.x + 2.0f, view->Pos.y + 2.0f);
            const test::FrameOutput still = ui.frames(*state, 3);
            const std::vector<ImVec4> at_rest = heatmap_rects(still);
            ASSERT_EQ(static_cast<int>(at_rest.size()), state->heads());
            const int T = static_cast<int>(state->trace().tokens.tokens[0].size());
            auto expect_unmoved = [&](const test::FrameOutput& out, const std::string& where)
            {
                const std::vector<ImVec4> rects = heatmap_rects(out);
                ASSERT_EQ(rects.size(), at_rest.size()) << where;
                for (std::size_t j = 0; j < rects.size(); ++j)
                {
                    EXPECT_EQ(rects[j].x, at_rest[j].x) << where << ", head " << j + 1;
                    EXPECT_EQ(rects[j].y, at_rest[j].y) << where << ", head " << j + 1;
                    EXPECT_EQ(rects[j].z, at_rest[j].z) << where << ", head " << j + 1;
                    EXPECT_EQ(rects[j].w, at_rest[j].w) << where << ", head " << j + 1;
                }
            };
            for (std::size_t j = 0; j < at_rest.size(); ++j)
                for (int row = 0; row < T; ++row)
                {
                    const ImVec4 r = at_rest[j];
                    const float y =
                        r.y + (static_cast<float>(row) + 0.5f) * (r.w - r.y) / static_cast<float>(T);
                    ui.mouse(0.5f * (r.x + r.z), y);
                    const test::FrameOutput out = ui.frames(*state, 2);
                    const std::string where =
                        "head " + std::to_string(j + 1) + ", row " + std::to_string(row);
                    ASSERT_EQ(state->heads_hover_row, row) << where;
                    // (A tooltip may add its own.)
                    EXPECT_GE(arrows(out.text), arrows(away.text) + state->heads())
                        << where << ": each head names its top key\n"
                        << out.text;
                    expect_unmoved(out, where);
                    // Just past the map's right edge, between two maps: no query.
                    ui.mouse(r.z + 3.0f, y);
                    expect_unmoved(ui.frames(*state, 2), where + ", then off the map");
                }
            std::printf("%s at %.0f lines: maps %.0f px away from the view, %.0f px with the pointer in it\n",
                        lesson ? "multi_head step 5" : "Heads view", static_cast<double>(size.y),
                        static_cast<double>(heatmap_rects(away)[0].z - heatmap_rects(away)[0].x),
                        static_cast<double>(at_rest[0].z - at_rest[0].x));
        }
}

// Sixteen heads at 1280x720: every header of a grid row breaks alike, "head j" on one line and "H =" on the
// next (the leftmost, wider by its row labels, kept its "H =" beside its name while the others wrapped).
TEST_F(PresenterTest, HeadersOfOneRowOfHeadsBreakAlike)
{
    state->session.config.n_heads = 16;
    state->edit();
    state->presenter = true;
    state->presenter_view = PresenterView::Heads;
    use_window_font(720.0f);
    const test::FrameOutput out = ui.frames(*state, 4);
    ASSERT_EQ(state->heads(), 16);
    for (int j = 1; j <= 16; ++j)
    {
        const std::string name = "head " + std::to_string(j);
        EXPECT_TRUE(drawn(out, name + "\nH = ")) << name << "\n" << out.text;
        EXPECT_FALSE(drawn(out, name + " H = ")) << name << "\n" << out.text;
    }
}

// The softmax-axis step (shapes_masks step 5, a question learners ask): its weights name their axes and have
// a Σ column with each row's sum; the cells stay square, and Ctrl+= keeps the sums.
TEST_F(PresenterTest, TheSoftmaxAxisStepNamesItsAxesAndAddsUpEachRow)
{
    const int lesson = lesson_index(*state, "shapes_masks");
    LessonStep& step = state->lesson.library.lessons[static_cast<std::size_t>(lesson)].steps[4];
    ASSERT_TRUE(step.row_sums);
    state->presenter = true;
    const auto count = [](const std::string& text, const std::string& what)
    {
        int n = 0;
        for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
            ++n;
        return n;
    };
    // The same step without the sums, to compare with.
    step.row_sums = false;
    enter_lesson(*state, lesson, 4);
    use_window_font(720.0f);
    const test::FrameOutput plain = ui.frames(*state, 4);
    step.row_sums = true;
    enter_lesson(*state, lesson, 4);
    use_window_font(720.0f);
    const test::FrameOutput out = ui.frames(*state, 4);
    const std::vector<ImVec4> rects = heatmap_rects(out);
    ASSERT_EQ(rects.size(), 1u);
    const int T = state->trace().T();
    MatrixRef ref;
    ref.stage = Stage::weights;
    ref.head = state->sel.head;
    const MatrixView view = resolve_matrix(*state, ref);
    ASSERT_NE(view.m, nullptr);
    ASSERT_EQ(T, 3);
    for (int r = 0; r < T; ++r)
        ASSERT_NEAR(view.m->row(r).sum(), 1.0f, 1e-6f);
    EXPECT_EQ(count(out.text, "1.00"), count(plain.text, "1.00") + T) << "one sum a row\n" << out.text;
    EXPECT_EQ(count(out.text, "Σ"), count(plain.text, "Σ") + 1) << "the Σ under its column";
    // "key" under the keys (the caption has the word too: one more), "query" reading upwards (read back a
    // letter a line).
    EXPECT_EQ(count(out.text, "key"), count(plain.text, "key") + 1) << out.text;
    EXPECT_TRUE(drawn(out, "q\nu\ne\nr\ny")) << out.text;
    EXPECT_FALSE(drawn(plain, "q\nu\ne\nr\ny"));
    const float side = rects[0].z - rects[0].x;
    EXPECT_NEAR(side, rects[0].w - rects[0].y, 1.0f) << "square cells";
    // The Σ column's plain cells: right of the map, within a cell and a half of its edge, as tall as the map.
    const ImU32 frame_bg = ImGui::GetColorU32(ImGuiCol_FrameBg);
    float lo = 1e9f, hi = -1e9f;
    for (const ImVec2& p :
         out.shape_points.count(frame_bg) ? out.shape_points.at(frame_bg) : std::vector<ImVec2>{})
        if (p.x > rects[0].z && p.x <= rects[0].z + 1.5f * side / T && p.y >= rects[0].y - 1.0f &&
            p.y <= rects[0].w + 1.0f)
        {
            lo = std::min(lo, p.y);
            hi = std::max(hi, p.y);
        }
    EXPECT_NEAR(lo, rects[0].y, 1.0f);
    EXPECT_NEAR(hi, rects[0].w, 1.0f);
    // Ctrl+= twice: the map never shrinks and the sums stay.
    const test::FrameOutput zoomed = zoom_twice();
    const std::vector<ImVec4> after = heatmap_rects(zoomed);
    ASSERT_EQ(after.size(), 1u);
    EXPECT_GE(after[0].z - after[0].x, side - 1.0f);
    EXPECT_EQ(count(zoomed.text, "1.00"), count(plain.text, "1.00") + T) << zoomed.text;
}

// [SECTION] Editing without leaving presenter mode; captions that follow the session and the run

// Outside a lesson the caption quotes the session's settings: τ and the √d_k switch too once they are off
// their defaults (the edit bar changes τ; the caption must not go on describing τ = 1).
TEST_F(PresenterTest, TheSessionCaptionNamesTauAndScalingWhenChanged)
{
    state->presenter = true;
    state->presenter_view = PresenterView::Heads;
    use_window_font(720.0f);
    test::FrameOutput out = ui.frames(*state, 2);
    EXPECT_TRUE(drawn(out, "h = " + std::to_string(state->heads()))) << out.text;
    EXPECT_FALSE(drawn(out, "τ =")) << "τ = 1 goes unsaid\n" << out.text;
    state->session.config.temperature = 2.0f;
    state->session.config.scale = false;
    state->edit();
    out = ui.frames(*state, 3);
    EXPECT_TRUE(drawn_wrapped(out, "τ = 2.00")) << out.text;
    EXPECT_TRUE(drawn_wrapped(out, "not divided by √d_k")) << out.text;
}

TEST_F(PresenterTest, EOpensTheEditBarWhoseStepsChangeTheSessionAndSaySo)
{
    test::FrameOutput out = open_edit_bar();
    ASSERT_TRUE(state->presenter_edit);
    EXPECT_TRUE(drawn(out, "sentence")) << out.text;
    EXPECT_TRUE(drawn(out, "d_model = " + std::to_string(state->session.config.d_model))) << out.text;
    EXPECT_EQ(state->presenter_text, state->session.text.substr(0, state->session.text.find('\n')));
    // h steps through the counts that divide d_model, and the title line says the new value.
    const int h = state->heads();
    const int d_model = state->session.config.d_model;
    presenter_edit_step(*state, PresenterSetting::heads, +1);
    EXPECT_EQ(state->session.config.n_heads, next_head_count(d_model, h, +1));
    EXPECT_EQ(d_model % state->session.config.n_heads, 0);
    out = ui.frames(*state, 2);
    EXPECT_TRUE(drawn(out, "h = " + std::to_string(state->session.config.n_heads))) << out.text;
    EXPECT_EQ(state->heads(), state->session.config.n_heads) << "recomputed";
    // d_model halves only while h still divides it; the mask flips; τ doubles.
    presenter_edit_step(*state, PresenterSetting::d_model, +1);
    EXPECT_EQ(state->session.config.d_model, 2 * d_model);
    const MaskKind mask = state->session.config.mask;
    presenter_edit_step(*state, PresenterSetting::mask, +1);
    EXPECT_NE(state->session.config.mask, mask);
    const float tau = state->session.config.temperature;
    presenter_edit_step(*state, PresenterSetting::temperature, +1);
    EXPECT_FLOAT_EQ(state->session.config.temperature, 2.0f * tau);
    for (int k = 0; k < 20; ++k)
        presenter_edit_step(*state, PresenterSetting::d_model, -1);
    EXPECT_EQ(state->session.config.d_model % state->session.config.n_heads, 0);
    EXPECT_TRUE(validate_config(state->session.config)) << "never an invalid model";
    // Esc leaves the sentence field (focused when the bar opened), then hides the bar; presenter mode stays.
    const int esc = ImGui::GetKeyIndex(ImGuiKey_Escape);
    ui.press_key(*state, esc);
    EXPECT_TRUE(state->presenter_edit) << "the first Esc only leaves the field";
    ui.press_key(*state, esc);
    EXPECT_FALSE(state->presenter_edit);
    EXPECT_TRUE(state->presenter);
}

// Without the edit bar H, D and M change nothing, and the title line says to press E (they seemed dead).
TEST_F(PresenterTest, TheSettingKeysWithoutTheEditBarSayToPressE)
{
    state->presenter = true;
    state->presenter_view = PresenterView::Heads;
    use_window_font(720.0f);
    ui.frames(*state, 2);
    ASSERT_FALSE(state->presenter_edit);
    const Config before = state->session.config;
    for (const int key : {keys::H, keys::D, keys::M})
    {
        state->set_message("", false);
        ui.press_key(*state, key);
        const test::FrameOutput out = ui.frames(*state, 2);
        EXPECT_TRUE(drawn_wrapped(out, "press E first")) << out.text;
        EXPECT_EQ(state->session.config.n_heads, before.n_heads);
        EXPECT_EQ(state->session.config.d_model, before.d_model);
        EXPECT_EQ(state->session.config.mask, before.mask);
    }
}

// A lecturer with a clicker and a keyboard: out of the sentence field (Esc), H, D, M, = and - step h,
// d_model, the mask and τ (Shift: the other way), each said in the title line; in the field they are its
// text.
// E focuses the sentence with the cursor at its end: a key typed next adds to the sentence (ImGui selected it
// all, so H, meant for h, replaced the sentence with "h").
TEST_F(PresenterTest, TheEditBarsSentenceOpensWithTheCursorAtItsEnd)
{
    open_edit_bar();
    const std::string sentence = state->presenter_text;
    ASSERT_FALSE(sentence.empty());
    ImGui::GetIO().AddInputCharacter('x');
    ui.frames(*state, 2);
    EXPECT_EQ(state->presenter_text, sentence + "x");
}

// Enter applies the sentence and leaves the field: the keys change the settings at once, and the title line
// says so (after Enter, the Esc the hint asked for closed the bar, and H then did nothing).
TEST_F(PresenterTest, AfterEnterTheEditBarsKeysChangeTheSettings)
{
    open_edit_bar();
    const Config before = state->session.config;
    ImGui::GetIO().AddInputCharacter('x');
    ui.frames(*state, 1);
    ImGui::GetIO().KeyMap[ImGuiKey_Enter] = 257; // as GLFW_KEY_ENTER
    ui.press_key(*state, 257);
    test::FrameOutput out = ui.frames(*state, 2);
    EXPECT_TRUE(drawn(out, "sentence applied; keys H D M = - now change the settings")) << out.text;
    ASSERT_TRUE(state->presenter_edit);
    ui.press_key(*state, keys::H);
    EXPECT_EQ(state->session.config.n_heads, next_head_count(before.d_model, before.n_heads, +1));
    EXPECT_EQ(state->presenter_text.back(), 'x') << "H went to the settings, not the sentence";
}

TEST_F(PresenterTest, TheEditBarsSettingsHaveKeysOnceTheSentenceFieldIsLeft)
{
    test::FrameOutput out = open_edit_bar();
    ASSERT_TRUE(state->presenter_edit);
    EXPECT_TRUE(drawn_wrapped(out, "Esc keeps it; then keys H D M = -")) << out.text;
    const Config before = state->session.config;
    ui.press_key(*state, keys::H); // the sentence field has the keyboard
    EXPECT_EQ(state->session.config.n_heads, before.n_heads);
    ui.press_key(*state, ImGui::GetKeyIndex(ImGuiKey_Escape));
    ASSERT_TRUE(state->presenter_edit);
    ui.press_key(*state, keys::H);
    EXPECT_EQ(state->session.config.n_heads, next_head_count(before.d_model, before.n_heads, +1));
    out = ui.frames(*state, 2);
    EXPECT_TRUE(drawn(out, "h = " + std::to_string(state->session.config.n_heads))) << out.text;
    ImGui::GetIO().KeyShift = true;
    ui.press_key(*state, keys::H);
    ImGui::GetIO().KeyShift = false;
    EXPECT_EQ(state->session.config.n_heads, before.n_heads);
    ui.press_key(*state, keys::D);
    EXPECT_EQ(state->session.config.d_model, 2 * before.d_model);
    ui.press_key(*state, keys::M);
    EXPECT_NE(state->session.config.mask, before.mask);
    ui.press_key(*state, keys::Equal);
    EXPECT_FLOAT_EQ(state->session.config.temperature, 2.0f * before.temperature);
    ui.press_key(*state, keys::Minus);
    EXPECT_FLOAT_EQ(state->session.config.temperature, before.temperature);
    out = ui.frames(*state, 2);
    EXPECT_TRUE(drawn(out, "τ = 1.00")) << out.text;
    EXPECT_EQ(state->heads(), before.n_heads) << "recomputed";
    // The bar closed, the keys do nothing.
    ui.press_key(*state, keys::E);
    ASSERT_FALSE(state->presenter_edit);
    ui.press_key(*state, keys::D);
    EXPECT_EQ(state->session.config.d_model, 2 * before.d_model);
}

// The Training view shows a run, not the session the edit bar sets: E there says where the run is set, and a
// bar opened in another view closes on the way to it (its "h = 8" changed nothing on screen).
TEST_F(PresenterTest, TheEditBarStaysOutOfTheTrainingView)
{
    state->presenter = true;
    state->presenter_view = PresenterView::Training;
    use_window_font(720.0f);
    ui.frames(*state, 2);
    ui.press_key(*state, keys::E);
    EXPECT_FALSE(state->presenter_edit);
    test::FrameOutput out = ui.frames(*state, 2);
    EXPECT_TRUE(drawn(out, "run is set in the Training panel")) << out.text;
    ui.press_key(*state, keys::Digit0 + 2);
    ui.press_key(*state, keys::E);
    ASSERT_TRUE(state->presenter_edit);
    ui.press_key(*state, ImGui::GetKeyIndex(ImGuiKey_Escape)); // leaves the sentence field, the bar stays
    ASSERT_TRUE(state->presenter_edit);
    ui.press_key(*state, keys::Digit0 + 5);
    ui.frames(*state, 2);
    EXPECT_FALSE(state->presenter_edit);
}

TEST(LessonCaptions, SettingsDriftNamesWhatChangedAndNothingWhenSame)
{
    Session step;
    step.config.n_heads = 4;
    Session live = step;
    EXPECT_EQ(lesson_settings_drift(step, live), "");
    live.config.n_heads = 8;
    EXPECT_EQ(lesson_settings_drift(step, live), "h = 4 (now 8)");
    live.text = step.text + " more";
    EXPECT_EQ(lesson_settings_drift(step, live), "h = 4 (now 8), the sentence");
}

TEST(LessonCaptions, SelectionDriftNamesOnlyWhatTheTextQuotes)
{
    LessonStep step;
    step.text = "the raw scores of head 1 have a spread near 17";
    Selection live;
    EXPECT_EQ(lesson_selection_drift(step, live), "");
    live.head = 1;
    EXPECT_EQ(lesson_selection_drift(step, live), "head 1 (now 2)");
    live.layer = 1;
    EXPECT_EQ(lesson_selection_drift(step, live), "head 1 (now 2)") << "the text names no layer";
    step.text = "Use [ and ] to step through the heads: each has different numbers.";
    EXPECT_EQ(lesson_selection_drift(step, live), "") << "a text that names no head lets it change";
    step.text = "head 12 and heads 1 to 4";
    EXPECT_EQ(lesson_selection_drift(step, live), "") << "head 12 is not head 1";
    step.text = "In the second sentence, key j = 2 is <pad>; layer 1 too.";
    step.sentence = 1;
    live.b = 0;
    EXPECT_EQ(lesson_selection_drift(step, live), "layer 1 (now 2), sentence 2 (now 1)");
}

TEST(LessonCaptions, ATrainingStepsTextWaitsForItsRun)
{
    LessonTraining t;
    EXPECT_EQ(lesson_text_waits_for(t, train::RunSpec(), 0), -1) << "no training: never waits";
    t.on = true;
    t.run = train::RunSpec(train::TaskKind::Induction);
    t.run.steps = 1000;
    t.show_step = 450;
    EXPECT_EQ(lesson_text_waits_for(t, t.run, 134), 450) << "the cliff at 450, the run at 134";
    EXPECT_EQ(lesson_text_waits_for(t, t.run, 450), -1);
    train::RunSpec other = t.run;
    other.n_layers = 1;
    other.steps = 600;
    EXPECT_EQ(lesson_text_waits_for(t, other, 600), 450) << "a compared run's steps are not this run's";
    t.show_step = -1;
    EXPECT_EQ(lesson_text_waits_for(t, t.run, 999), 1000) << "no position: the run's end";
}

// A step about step 0 that names no compared run is read while the run it compares with trains first (every
// run is untrained at step 0); one that names the compared run's curves, or is about a later step, waits.
TEST(LessonCaptions, AStepAboutStepZeroIsReadWhileTheComparedRunTrains)
{
    LessonStep step;
    step.training.on = true;
    step.training.run = train::RunSpec(train::TaskKind::Induction);
    train::RunSpec one_layer = step.training.run;
    one_layer.n_layers = 1;
    step.training.compare = {one_layer};
    step.training.show_step = 0;
    step.text = "At step 0 nothing is learned.";
    EXPECT_TRUE(lesson_text_reads_before_its_run(step));
    step.text = "The grey curves are the same model with 1 layer.";
    EXPECT_FALSE(lesson_text_reads_before_its_run(step)) << "names the compared run's curves";
    step.text = "At step 0 nothing is learned.";
    step.training.show_step = 150;
    EXPECT_FALSE(lesson_text_reads_before_its_run(step)) << "about a later step of its run";
}

// In the window, the induction lesson's first step shows its text at once while the 1-layer run trains, with
// a line saying which run trains first; the "why multi-head" lesson's first step, which names the grey
// curves of its compared run, waits for them.
TEST_F(PresenterTest, TheInductionLessonsFirstStepIsReadWhileItsComparedRunTrains)
{
    state->presenter = true;
    use_window_font(720.0f);
    enter_lesson(*state, lesson_index(*state, "induction_heads"), 0);
    test::FrameOutput out = ui.frames(*state, 2);
    ASSERT_FALSE(state->training.lesson_queue.empty()) << "the 1-layer run is not training first";
    EXPECT_TRUE(drawn_wrapped(out, "At step 0 nothing is learned.")) << out.text;
    EXPECT_TRUE(drawn_wrapped(out, "Training the run this lesson compares with first (1 layer)")) << out.text;
    EXPECT_FALSE(drawn_wrapped(out, "appears when the run gets there")) << out.text;

    enter_lesson(*state, lesson_index(*state, "why_multi_head_experiment"), 0);
    out = ui.frames(*state, 2);
    if (!state->training.lesson_queue.empty()) // its compared run still training: the text waits
    {
        EXPECT_FALSE(drawn_wrapped(out, "the grey curves")) << out.text;
        EXPECT_TRUE(drawn_wrapped(out, "appears when the run gets there")) << out.text;
    }
    leave_lesson(*state);
}

TEST_F(PresenterTest, TheCaptionSaysWhenItDescribesSettingsSinceChanged)
{
    enter_lesson(*state, lesson_index(*state, "tour"), 10); // "Four heads, four patterns", h = 4
    state->presenter = true;
    use_window_font(720.0f);
    test::FrameOutput out = ui.frames(*state, 2);
    EXPECT_FALSE(drawn(out, "changed since")) << out.text;
    presenter_edit_step(*state, PresenterSetting::heads, +1);
    out = ui.frames(*state, 3);
    EXPECT_TRUE(drawn_wrapped(out, "h = 4 (now 8)")) << out.text;
    // The step again: its settings back, the note gone.
    previous_step(*state);
    next_step(*state);
    out = ui.frames(*state, 3);
    EXPECT_FALSE(drawn_wrapped(out, "(now 8)")) << out.text;
}

// A text that quotes head 1's numbers says so once ] shows head 2; a text that invites ] says nothing.
TEST_F(PresenterTest, TheCaptionSaysWhenItQuotesAHeadNoLongerShown)
{
    enter_lesson(*state, lesson_index(*state, "why_sqrt_dk"), 0); // "the raw scores of head 1 ..."
    state->presenter = true;
    use_window_font(720.0f);
    test::FrameOutput out = ui.frames(*state, 2);
    EXPECT_FALSE(drawn(out, "changed since")) << out.text;
    ui.press_key(*state, keys::RightBracket);
    out = ui.frames(*state, 3);
    EXPECT_EQ(state->sel.head, 1);
    EXPECT_TRUE(drawn_wrapped(out, "head 1 (now 2)")) << out.text;
    ui.press_key(*state, keys::LeftBracket);
    out = ui.frames(*state, 3);
    EXPECT_FALSE(drawn_wrapped(out, "changed since")) << out.text;

    enter_lesson(*state, lesson_index(*state, "tour"), 1); // "Use [ and ] to step through the heads"
    out = ui.frames(*state, 2);
    ui.press_key(*state, keys::RightBracket);
    out = ui.frames(*state, 3);
    EXPECT_EQ(state->sel.head, 1);
    EXPECT_FALSE(drawn_wrapped(out, "changed since")) << out.text;
}

// [SECTION] The Training view

// 8 heads of T = 64 (the text task's preset) with their titles and label gutters, at the font of a 720-line
// screen.
std::vector<MapBox> text_heads(float fs)
{
    MapBox b;
    b.rows = b.cols = 64;
    b.left = fs * 1.1f;
    b.top = fs * 2.5f + fs * 1.1f;
    return std::vector<MapBox>(8, b);
}

TEST(TrainingPresenterLayout, PlotsTextAndMapsNeverOverlapAndMapsKeepSquareCells)
{
    const float fs = 22.5f, gap = fs * 0.8f;
    for (const auto& [w, h] :
         {std::pair{1280.0f, 495.0f}, std::pair{1920.0f, 700.0f}, std::pair{1280.0f, 300.0f}})
    {
        SCOPED_TRACE(std::to_string(w) + " x " + std::to_string(h));
        const std::vector<MapBox> heads = text_heads(fs);
        const float min_left = std::max(fs * 14.0f, w * 0.28f);
        const TrainingPresenterLayout l =
            layout_training_presenter(w, h, heads, 4, gap, fs * 6.0f, min_left, fs * 14.0f, fs * 4.0f);
        // The plots' column, the text under it and the maps beside them: each inside the view, none over
        // another.
        EXPECT_GE(l.curves.w, min_left);
        EXPECT_LE(l.curves.x + l.curves.w + gap, l.maps.x + 0.5f);
        EXPECT_LE(l.maps.x + l.maps.w, w + 0.5f);
        EXPECT_GE(l.text.y, l.curves.y + l.curves.h);
        EXPECT_LE(l.text.y + l.text.h, h + 0.5f);
        // The plots keep their least height (else their step axis and the legend's last row are cut); the
        // sample keeps its lines where the view has room for both.
        EXPECT_GE(l.curves.h, std::min(h, fs * 14.0f) - 0.01f);
        if (h >= fs * 14.0f + gap + fs * 4.0f)
        {
            EXPECT_GE(l.text.h, fs * 4.0f) << "the sample keeps its lines";
        }
        else
        {
            EXPECT_NEAR(l.text.h, std::max(0.0f, h - fs * 14.0f - gap), 0.01f) << "the sample gets the rest";
        }
        ASSERT_EQ(l.grid.maps.size(), heads.size());
        for (const MapPlacement& m : l.grid.maps)
        {
            EXPECT_NEAR(m.image.w, m.image.h, 0.01f) << "square cells";
            EXPECT_NEAR(m.image.w, l.grid.cell * 64.0f, 0.01f);
            EXPECT_GE(m.image.x, 0.0f);
            EXPECT_LE(m.image.x + m.image.w, l.maps.w + 0.5f);
            EXPECT_GE(m.image.y, 0.0f);
            EXPECT_LE(m.image.y + m.image.h, h + 0.5f);
        }
        // As large as the room right of the plots allows: no grid of the same maps there has larger cells.
        for (int columns : {1, 2, 4, 8})
            EXPECT_LE(layout_maps(heads, w - min_left - gap * 1.5f, h, gap, fs * 6.0f, columns).cell,
                      l.grid.cell + 0.01f)
                << columns << " columns";
    }
}

TEST(TrainingPresenterLayout, WithoutMapsOrTextThePlotsTakeTheView)
{
    const TrainingPresenterLayout none =
        layout_training_presenter(1280.0f, 500.0f, {}, 4, 18.0f, 135.0f, 384.0f, 315.0f, 0.0f);
    EXPECT_EQ(none.curves.w, 1280.0f);
    EXPECT_EQ(none.curves.h, 500.0f);
    EXPECT_EQ(none.text.h, 0.0f);
    EXPECT_EQ(none.maps.w, 0.0f);
    // Degenerate sizes give no negative rectangle.
    const TrainingPresenterLayout tiny =
        layout_training_presenter(10.0f, 5.0f, text_heads(22.5f), 4, 18.0f, 135.0f, 384.0f, 315.0f, 90.0f);
    for (const LayoutRect& r : {tiny.curves, tiny.text, tiny.maps})
    {
        EXPECT_GE(r.w, 0.0f);
        EXPECT_GE(r.h, 0.0f);
    }
}

// The plots' rule: the loss plot's axes at least 4 em high, the head-score plot's 3 em, at any column size;
// the legend beside the head-score plot only when that plot keeps half the column; with room, all of it fits.
TEST(TrainingPresenterLayout, ThePlotsKeepTheirLeastHeightAndFitWhenThereIsRoom)
{
    for (const float screen_h : {720.0f, 1080.0f})
    {
        const float fs = presenter_font_size(screen_h, 1.0f);
        const float spacing = fs * 0.2f, line = fs + spacing;
        for (const float w : {fs * 14.0f, 650.0f, 900.0f})
            for (const float h : {60.0f, 250.0f, 400.0f, 800.0f})
                for (const int layers : {1, 2})
                {
                    SCOPED_TRACE(std::to_string(screen_h) + " lines, column " + std::to_string(w) + " x " +
                                 std::to_string(h) + ", " + std::to_string(layers) + " layers");
                    const float legend_w = fs * 1.6f + 4.0f * fs * 3.2f;
                    const TrainingCurvesColumn c =
                        layout_training_curves(w, h, fs, line, spacing, layers, legend_w);
                    EXPECT_GE(c.loss_h - fs * kPlotChromeEm, fs * kLossAxesMinEm - 0.01f);
                    EXPECT_GE(c.heads_h - fs * kPlotChromeEm, fs * kHeadAxesMinEm - 0.01f);
                    const float below_min = line * 2.0f + spacing * 2.0f +
                                            line * static_cast<float>(1 + layers) +
                                            fs * (kLossAxesMinEm + kHeadAxesMinEm + 2.0f * kPlotChromeEm);
                    EXPECT_EQ(c.legend_beside,
                              legend_w + fs <= w * 0.5f || (h < below_min && legend_w + fs <= w * 0.7f));
                    EXPECT_GE(c.heads_w, c.legend_beside ? w * 0.3f : w);
                    const float legend_h = c.legend_beside ? 0.0f : line * static_cast<float>(1 + layers);
                    const float used = line * 2.0f + spacing * 2.0f + legend_h + c.loss_h + c.heads_h;
                    EXPECT_NEAR(c.min_height,
                                line * 2.0f + spacing * 2.0f + legend_h +
                                    fs * (kLossAxesMinEm + kHeadAxesMinEm + 2.0f * kPlotChromeEm),
                                0.01f);
                    if (h >= c.min_height)
                    {
                        EXPECT_LE(used, h + 0.5f) << "the plots and legend fit the column";
                    }
                    else
                    {
                        EXPECT_NEAR(used, c.min_height, 0.5f) << "no room: both plots at their least";
                    }
                    EXPECT_GE(c.loss_h, c.heads_h - 0.01f) << "the loss plot gets the larger share";
                }
        // A text model at this screen's view (under the title lines and a 3-line caption): the plots get
        // their least height and the readouts keep theirs.
        const float view_h = screen_h - fs * 7.5f, view_w = screen_h * 16.0f / 9.0f - fs * 1.6f;
        const float min_left = std::max(fs * 14.0f, view_w * 0.28f);
        const float min_curves_h =
            layout_training_curves(min_left, 0.0f, fs, line, spacing, 2, 0.0f).min_height;
        const TrainingPresenterLayout l = layout_training_presenter(
            view_w, view_h, text_heads(fs), 4, fs * 0.8f, fs * 6.0f, min_left, min_curves_h, line * 3.0f);
        EXPECT_GE(l.curves.h, min_curves_h - 0.01f);
        EXPECT_GE(l.text.h, line * 3.0f - 0.01f);
    }
}

// Four small maps (a 2-layer, 2-head reverse run) at 1280x720: across the view's width at the top, with the
// plots side by side under them, the cells are clearly larger than in the row right of the plots' column,
// which left the height under the maps blank; eight maps of a lesson keep the plots' column, and a text
// model (its readouts under the plots) never moves them.
// A least cell (the one at 100 % text, after Ctrl+=): the parts take the least height that gives it, taller
// than the view, the plots and maps still side by side without overlapping; without one they fit the view.
TEST(TrainingPresenterLayout, ALeastCellMakesThePartsTallerNotTheMapsSmaller)
{
    const float fs = 27.0f, gap = fs * 0.8f, line = fs * 1.2f, w = 1232.0f, h = 470.0f;
    const float min_left = std::max(fs * 14.0f, w * 0.28f);
    MapBox b;
    b.rows = b.cols = 16;
    b.left = fs * 1.1f;
    b.top = line * 2.0f + fs * 1.1f;
    const std::vector<MapBox> four(4, b);
    const TrainingPresenterLayout fitted =
        layout_training_presenter(w, h, four, 2, gap, fs * 6.0f, min_left, fs * 14.0f, 0.0f);
    EXPECT_FLOAT_EQ(fitted.height, h);
    const float least = fitted.grid.cell * 1.5f;
    const TrainingPresenterLayout l =
        layout_training_presenter(w, h, four, 2, gap, fs * 6.0f, min_left, fs * 14.0f, 0.0f, 0.0f, least);
    EXPECT_GE(l.grid.cell, least - 0.01f);
    EXPECT_GT(l.height, h);
    EXPECT_LE(l.grid.cell, least + 1.0f) << "no taller than it needs: " << l.height;
    EXPECT_LE(l.curves.x + l.curves.w, l.maps.x + 0.5f) << "the plots run into the maps";
    EXPECT_LE(l.maps.y + l.maps.h, l.height + 0.5f);
    EXPECT_LE(l.curves.y + l.curves.h, l.height + 0.5f);
    for (const MapPlacement& m : l.grid.maps)
        EXPECT_LE(l.maps.y + m.image.y + m.image.h, l.height + 0.5f) << "a map past the parts' height";
    // A least cell the view already gives changes nothing.
    const TrainingPresenterLayout same = layout_training_presenter(w, h, four, 2, gap, fs * 6.0f, min_left,
                                                                   fs * 14.0f, 0.0f, 0.0f, fitted.grid.cell);
    EXPECT_FLOAT_EQ(same.height, h);
    EXPECT_FLOAT_EQ(same.grid.cell, fitted.grid.cell);
}

TEST(TrainingPresenterLayout, FewMapsGoAcrossTheTopWhenThatMakesThemClearlyLarger)
{
    const float fs = 20.0f, gap = fs * 0.8f, line = fs * 1.2f, w = 1232.0f, h = 520.0f;
    const float min_left = std::max(fs * 14.0f, w * 0.28f);
    const float min_below = line + fs * (kLossAxesMinEm + kPlotChromeEm);
    const auto boxes = [&](int n, int T)
    {
        MapBox b;
        b.rows = b.cols = T;
        b.left = fs * 1.1f;
        b.top = line * 2.0f + fs * 1.1f;
        return std::vector<MapBox>(static_cast<std::size_t>(n), b);
    };
    const std::vector<MapBox> four = boxes(4, 11);
    const TrainingPresenterLayout beside =
        layout_training_presenter(w, h, four, 2, gap, fs * 6.0f, min_left, fs * 14.0f, 0.0f);
    EXPECT_FALSE(beside.plots_below) << "not asked for";
    const TrainingPresenterLayout l =
        layout_training_presenter(w, h, four, 2, gap, fs * 6.0f, min_left, fs * 14.0f, 0.0f, min_below);
    ASSERT_TRUE(l.plots_below);
    EXPECT_GE(l.grid.cell, beside.grid.cell * kPlotsBelowGain - 0.01f);
    std::printf("cells %.1f px beside the plots, %.1f px above them\n", static_cast<double>(beside.grid.cell),
                static_cast<double>(l.grid.cell));
    ASSERT_EQ(l.grid.maps.size(), four.size());
    float bottom = 0.0f;
    for (const MapPlacement& m : l.grid.maps)
    {
        EXPECT_NEAR(m.image.w, m.image.h, 0.01f) << "square cells";
        EXPECT_GE(m.image.x, 0.0f);
        EXPECT_LE(m.image.x + m.image.w, w + 0.5f);
        EXPECT_GE(m.image.y, four.front().top - 0.01f) << "its titles inside the view";
        bottom = std::max(bottom, m.image.y + m.image.h);
    }
    EXPECT_LE(bottom, l.maps.y + l.maps.h + 0.5f);
    EXPECT_GE(l.curves.y, l.maps.y + l.maps.h + gap - 0.01f) << "the plots under the maps";
    EXPECT_LE(l.curves.y - bottom, gap + 1.0f) << "no blank band between the maps and the plots";
    EXPECT_GE(l.curves.h, min_below - 0.01f);
    EXPECT_NEAR(l.curves.y + l.curves.h, h, 0.5f) << "the plots take the height left";
    EXPECT_EQ(l.curves.w, w);
    EXPECT_EQ(l.text.h, 0.0f);

    const std::vector<MapBox> eight = boxes(8, 32);
    EXPECT_FALSE(
        layout_training_presenter(w, h, eight, 4, gap, fs * 6.0f, min_left, fs * 14.0f, 0.0f, min_below)
            .plots_below)
        << "a lesson's eight maps beside the plots are as large";
    EXPECT_FALSE(
        layout_training_presenter(w, h, four, 2, gap, fs * 6.0f, min_left, fs * 14.0f, line * 3.0f, min_below)
            .plots_below)
        << "a text model's readouts stay under the plots";
}

// The Training view of a reverse run (key 5 outside a lesson) at both screen sizes: its four maps square and
// as large as the height under the title line allows, the loss and head-score plots side by side under
// them, above the caption, every part inside its window.
TEST_F(PresenterTest, TheTrainingViewsFewMapsTakeTheFreeHeight)
{
    open_training(*state, train::TaskKind::Reverse, 60);
    ASSERT_TRUE(state->training.error.empty()) << state->training.error;
    state->mouse_ignored = true;
    for (const auto& [W, H, min_side] :
         {std::tuple{1280.0f, 720.0f, 220.0f}, std::tuple{1920.0f, 1080.0f, 330.0f}})
    {
        SCOPED_TRACE(std::to_string(W));
        const test::FrameOutput out = training_view_at(W, H);
        const ImGuiWindow* caption = ImGui::FindWindowByName("##presenter_caption");
        ASSERT_NE(caption, nullptr);
        const std::vector<ImVec4> rects = heatmap_rects(out);
        ASSERT_EQ(rects.size(), 4u) << out.text;
        float maps_bottom = 0.0f;
        for (const ImVec4& r : rects)
        {
            EXPECT_NEAR(r.z - r.x, r.w - r.y, 1.0f) << "square cells";
            EXPECT_GE(r.z - r.x, min_side);
            maps_bottom = std::max(maps_bottom, r.w);
        }
        const ImGuiWindow* plots = training_plots_window();
        ASSERT_NE(plots, nullptr);
        EXPECT_GE(plots->Pos.y, maps_bottom) << "the plots under the maps";
        EXPECT_LE(plots->Pos.y + plots->Size.y, caption->Pos.y + 0.5f) << "above the caption";
        EXPECT_LE(plots->DC.CursorMaxPos.y, plots->Pos.y + plots->Size.y + 0.5f) << "the plots are cut";
        for (const char* text : {"loss (log", "training", "held-out", "head scores", "L1", "L2", "H2"})
            EXPECT_TRUE(drawn(out, text)) << text << "\n" << out.text;
    }
}

// Ctrl+= twice (120 %) in the Training view of a reverse run: the maps keep at least their cells at 100 %
// (and room for every label when they had it) and the plots at least their height (they grew smaller: the
// maps to 10 px cells, the head-score plot to 28 px wide, labels thinned); what no longer fits scrolls, down
// to the plots' end, never under the caption.
TEST_F(PresenterTest, CtrlPlusNeverShrinksTheTrainingViewsMapsOrPlots)
{
    open_training(*state, train::TaskKind::Reverse, 60);
    ASSERT_TRUE(state->training.error.empty()) << state->training.error;
    state->mouse_ignored = true;
    for (const ImVec2 size : {ImVec2(1280.0f, 720.0f), ImVec2(1920.0f, 1080.0f)})
    {
        SCOPED_TRACE(size.y);
        state->presenter_scale = 1.0f;
        const test::FrameOutput plain = training_view_at(size.x, size.y);
        const std::vector<ImVec4> before = heatmap_rects(plain);
        ASSERT_EQ(before.size(), 4u) << plain.text;
        const ImGuiWindow* plots = training_plots_window();
        ASSERT_NE(plots, nullptr);
        const ImVec2 plots_before = plots->Size;
        const test::FrameOutput zoomed = zoom_twice(size.y);
        const std::vector<ImVec4> after = heatmap_rects(zoomed);
        ASSERT_EQ(after.size(), 4u) << zoomed.text;
        plots = training_plots_window();
        ASSERT_NE(plots, nullptr);
        // A cell of 0.7 em shows every label (probe_label_gutter): one that did at 100% does at 120%.
        const float cell_before = (before[0].z - before[0].x) / static_cast<float>(state->training.probe.T());
        const float cell_after = (after[0].z - after[0].x) / static_cast<float>(state->training.probe.T());
        if (cell_before >= 0.7f * presenter_font_size(size.y, 1.0f))
        {
            EXPECT_GE(cell_after, 0.7f * presenter_font_size(size.y, 1.2f)) << "the labels thinned out";
        }
        for (std::size_t i = 0; i < 4; ++i)
        {
            EXPECT_GE(after[i].z - after[i].x, before[i].z - before[i].x - 0.5f) << "map " << i << " shrank";
            EXPECT_NEAR(after[i].z - after[i].x, after[i].w - after[i].y, 1.0f) << "square cells";
        }
        EXPECT_GE(plots->Size.y, plots_before.y - 0.5f) << "the plots got lower";
        EXPECT_GE(plots->Size.x * plots->Size.y, plots_before.x * plots_before.y * 0.99f)
            << "the plots got smaller";
        // The view scrolls to every part's end; the caption is its own window below it.
        const ImGuiWindow* view = ImGui::FindWindowByName("##presenter_view");
        const ImGuiWindow* caption = ImGui::FindWindowByName("##presenter_caption");
        ASSERT_NE(view, nullptr);
        ASSERT_NE(caption, nullptr);
        EXPECT_LE(view->Pos.y + view->Size.y, caption->Pos.y + 0.5f) << "the view runs under the caption";
        const float content_bottom =
            view->Pos.y - view->Scroll.y + view->ContentSize.y + view->WindowPadding.y;
        EXPECT_LE(plots->Pos.y + plots->Size.y, content_bottom + 0.5f) << "the plots' end cannot be reached";
        for (const ImVec4& r : after)
            EXPECT_LE(r.w, content_bottom + 0.5f) << "a map's end cannot be reached";
        if (drawn(plain, "prev"))
        {
            EXPECT_TRUE(drawn(zoomed, "prev")) << "a map's title lost its second score\n" << zoomed.text;
        }
        for (const char* text : {"loss (log", "head scores"})
            EXPECT_TRUE(drawn(zoomed, text)) << text << "\n" << zoomed.text;
        // Scrolled to its end, the view shows the head legend whole.
        ImGui::SetScrollY(const_cast<ImGuiWindow*>(view), view->ScrollMax.y);
        const test::FrameOutput end = ui.frames(*state, 2);
        for (const char* text : {"L1", "L2", "H1", "H2"})
            EXPECT_TRUE(drawn(end, text)) << text << "\n" << end.text;
        std::printf(
            "Training view at %.0f lines: maps %.0f px at 100%%, %.0f px at 120%%; plots %.0fx%.0f, then "
            "%.0fx%.0f; content %.0f px in a view of %.0f\n",
            static_cast<double>(size.y), static_cast<double>(before[0].z - before[0].x),
            static_cast<double>(after[0].z - after[0].x), static_cast<double>(plots_before.x),
            static_cast<double>(plots_before.y), static_cast<double>(plots->Size.x),
            static_cast<double>(plots->Size.y), static_cast<double>(view->ContentSize.y),
            static_cast<double>(view->Size.y));
    }
}

// The Training view of a text run (key 5 outside a lesson) at both screen sizes: the maps square, large,
// between the title line and the caption; the plots' titles, the legend per head, the sample and the keys.
TEST_F(PresenterTest, TrainingViewFillsTheViewWithSquareMapsAboveTheCaption)
{
    open_training(*state, train::TaskKind::Text, 30);
    ASSERT_TRUE(state->training.error.empty()) << state->training.error;
    state->mouse_ignored = true; // a picture: the sample is written before the frame
    for (const auto& [W, H, min_side] :
         {std::tuple{1280.0f, 720.0f, 110.0f}, std::tuple{1920.0f, 1080.0f, 190.0f}})
    {
        SCOPED_TRACE(std::to_string(W));
        const test::FrameOutput out = training_view_at(W, H);
        const ImGuiWindow* caption = ImGui::FindWindowByName("##presenter_caption");
        const ImGuiWindow* title = ImGui::FindWindowByName("##presenter_title");
        ASSERT_NE(caption, nullptr);
        ASSERT_NE(title, nullptr);
        const std::vector<ImVec4> rects = heatmap_rects(out);
        ASSERT_EQ(rects.size(), 8u) << out.text;
        for (const ImVec4& r : rects)
        {
            EXPECT_NEAR(r.z - r.x, r.w - r.y, 1.0f) << "square cells";
            EXPECT_GE(r.z - r.x, min_side);
            EXPECT_GE(r.y, title->Pos.y + title->Size.y) << "under the title line";
            EXPECT_LE(r.w, caption->Pos.y) << "never under the caption";
            EXPECT_LE(r.z, W);
        }
        // The loss plot's title says its scale shorter ("loss (log):") where its key would not fit after it.
        for (const char* text :
             {"loss (log", "training", "held-out", "head scores", "L1", "L2", "H4", "sample at step 30",
              "P: play / pause", "S: step", "R R: reset", "step 30 of"})
            EXPECT_TRUE(drawn(out, text)) << text << "\n" << out.text;
    }
}

// A step whose caption talks about the loss strip shows the strip (and its legend) across the view at both
// screen sizes, between the title line and the caption; another step of the same run shows the sample.
TEST_F(PresenterTest, AStepAboutTheLossStripShowsTheStrip)
{
    const char* text = R"({"format": "attnlab-lesson", "version": 1, "title": "t",
        "training": {"task": "text", "corpus": "austen", "steps": 20},
        "steps": [{"text": "In the loss strip the second copy is paler.",
                   "training": {"probe": "Mr. Darcy bowed to Elizabeth. Mr. Darcy bowed to Elizabeth."}},
                  {"text": "What it writes."}]})";
    ASSERT_TRUE(enter_test_lesson(text));
    for (int i = 0; i < 6000 && state->training_run.running(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_FALSE(state->training_run.running());
    state->mouse_ignored = true;
    state->presenter = true;
    for (const auto& [W, H] : {std::pair{1280.0f, 720.0f}, std::pair{1920.0f, 1080.0f}})
    {
        SCOPED_TRACE(std::to_string(W));
        ui.resize(W, H);
        use_window_font(H);
        state->lesson.step = 0;
        test::FrameOutput out = ui.frames(*state, 4);
        EXPECT_TRUE(drawn(out, "surprise")) << out.text;
        EXPECT_TRUE(drawn(out, "mean")) << out.text;
        EXPECT_TRUE(drawn(out, "loss (log scale)")) << out.text;
        EXPECT_TRUE(drawn(out, "head scores")) << out.text; // the plots are not pushed out
        state->lesson.step = 1;
        out = ui.frames(*state, 4);
        EXPECT_FALSE(drawn(out, "surprise")) << out.text;
        EXPECT_TRUE(drawn(out, "sample at step")) << out.text;
    }
}

// The head-score plot's title fits its column at both screen sizes: in the narrow column beside the
// Induction task's maps, "head scores: induction (prefix matching)" is said without its parenthesis (whole in
// its tooltip) rather than cut by the column's edge.
TEST_F(PresenterTest, TheHeadScorePlotsTitleFitsItsColumn)
{
    open_training(*state, train::TaskKind::Induction, 10);
    ASSERT_TRUE(state->training.error.empty()) << state->training.error;
    state->training.score_kind = static_cast<int>(train::HeadScoreKind::Induction);
    state->mouse_ignored = true;
    state->presenter = true;
    state->presenter_view = PresenterView::Training;
    for (const auto& [W, H] : {std::pair{1280.0f, 720.0f}, std::pair{1920.0f, 1080.0f}})
    {
        SCOPED_TRACE(std::to_string(W));
        ui.resize(W, H);
        use_window_font(H);
        ui.frames(*state, 4);
        const ImGuiWindow* column = training_plots_window();
        ASSERT_NE(column, nullptr);
        const std::string text = test::window_text(column->Name);
        const std::size_t at = text.find("head scores: induction");
        ASSERT_NE(at, std::string::npos) << text;
        const std::string title = text.substr(at, text.find('\n', at) - at);
        std::printf("%.0fx%.0f: \"%s\" in a column of %.0f px\n", static_cast<double>(W),
                    static_cast<double>(H), title.c_str(), static_cast<double>(column->Size.x));
        EXPECT_LE(ImGui::CalcTextSize(title.c_str()).x, column->Size.x + 0.5f) << title;
    }
}

// "Attention learns English" in presenter mode at 1280x720 and 1920x1080, at a step showing training step
// 0, one showing step 120 and the built-in model's step: `check` after the frames.
void each_text_lesson_view(HeadlessUi& ui, AppState& state, const std::function<void(float)>& use_font,
                           const std::function<void()>& check)
{
    const int index = lesson_index(state, "attention_learns_english");
    ASSERT_GE(index, 0);
    state.mouse_ignored = true; // a picture: the run reaches the step shown before the frame
    state.presenter = true;
    for (const int step : {0, 2, 7})
        for (const auto& [W, H] : {std::pair{1280.0f, 720.0f}, std::pair{1920.0f, 1080.0f}})
        {
            SCOPED_TRACE("step " + std::to_string(step + 1) + " at " + std::to_string(W));
            ui.resize(W, H);
            use_font(H);
            enter_lesson(state, index, step);
            ui.frames(state, 4);
            check();
        }
}

// The plots' column and the readouts under it each hold all they draw: under a six-line caption at 720
// lines, the sample cut off the head-score plot's step axis and the legend's second layer.
TEST_F(PresenterTest, TheTextLessonsPlotsAreNotCutByTheSampleUnderThem)
{
    each_text_lesson_view(
        ui, *state, [&](float h) { use_window_font(h); },
        []
        {
            int curves = 0;
            for (const ImGuiWindow* w : GImGui->Windows)
            {
                const std::string name = w->Name;
                const bool plots = name.find("/presenter_curves_") != std::string::npos;
                if (!w->Active || (!plots && name.find("/presenter_text_") == std::string::npos))
                    continue;
                curves += plots;
                EXPECT_LE(w->DC.CursorMaxPos.y, w->Pos.y + w->Size.y + 0.5f)
                    << name << " is cut at its bottom";
            }
            EXPECT_EQ(curves, 1);
        });
}

TEST_F(PresenterTest, TrainingViewKeysPlayStepAndReset)
{
    open_training(*state, train::TaskKind::Reverse, 0);
    ASSERT_TRUE(state->training.error.empty()) << state->training.error;
    state->presenter = true;
    state->presenter_view = PresenterView::Pipeline;
    ui.frames(*state, 2);
    ui.press_key(*state, keys::S);
    state->training_run.poll(state->training.view);
    EXPECT_EQ(state->training.view.step, 0) << "S trains only in the Training view";
    state->presenter_view = PresenterView::Training;
    ui.frames(*state, 2);
    ui.press_key(*state, keys::S);
    ui.press_key(*state, keys::S);
    state->training_run.poll(state->training.view);
    EXPECT_EQ(state->training.view.step, 2);
    ui.press_key(*state, keys::P);
    EXPECT_TRUE(state->training_run.running());
    ui.press_key(*state, keys::P);
    EXPECT_FALSE(state->training_run.running());
    state->training_run.poll(state->training.view);
    const int trained = state->training.view.step;
    // R once only asks (a stray key in a lecture threw the run away); R again resets.
    ui.press_key(*state, keys::R);
    state->training_run.poll(state->training.view);
    EXPECT_EQ(state->training.view.step, trained);
    EXPECT_TRUE(drawn(ui.frames(*state, 1), "R again resets the run"));
    ui.press_key(*state, keys::R);
    state->training_run.poll(state->training.view);
    EXPECT_EQ(state->training.view.step, 0);
    const test::FrameOutput out = ui.frames(*state, 2);
    EXPECT_TRUE(drawn(out, "step 0 of")) << out.text;
}

// P at the target goes on for the preset length again: the status line counts to the new target (it read
// "step 648 of 500") and the title line says why the target moved.
TEST_F(PresenterTest, PlayAtTheTargetCountsToTheRaisedTargetAndSaysSo)
{
    open_training(*state, train::TaskKind::Reverse, 0);
    ASSERT_TRUE(state->training.error.empty()) << state->training.error;
    state->training.edit.steps = 3;
    state->training_run.set_target_steps(3);
    state->presenter = true;
    state->presenter_view = PresenterView::Training;
    use_window_font(720.0f);
    ui.frames(*state, 2);
    ui.press_key(*state, keys::P);
    for (int i = 0; i < 6000 && state->training_run.running(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_FALSE(state->training_run.running());
    ui.frames(*state, 2);
    ASSERT_EQ(state->training.view.step, 3);
    ui.press_key(*state, keys::P);
    ui.press_key(*state, keys::P); // pauses the run that went on
    const int target = state->training.edit.steps;
    EXPECT_EQ(target, 3 + train::RunSpec(train::TaskKind::Reverse).steps);
    const test::FrameOutput out = ui.frames(*state, 2);
    EXPECT_TRUE(drawn(out, " of " + std::to_string(target) + " ")) << out.text;
    EXPECT_NE(test::window_text("##presenter_title").find("had reached the target of 3 steps"),
              std::string::npos)
        << test::window_text("##presenter_title");
}

// R after P went past the task's preset target goes back to the preset: it kept the raised target (step 0 of
// 1500 after the preset's 500), so the next P trained three times as long as the task asks.
TEST_F(PresenterTest, ResetAfterPlayRaisedTheTargetGoesBackToThePresetsTarget)
{
    const int preset = train::RunSpec(train::TaskKind::Reverse).steps;
    open_training(*state, train::TaskKind::Reverse, preset); // at the preset's target
    ASSERT_TRUE(state->training.error.empty()) << state->training.error;
    ASSERT_EQ(state->training.edit.steps, preset);
    state->presenter = true;
    state->presenter_view = PresenterView::Training;
    use_window_font(720.0f);
    ui.frames(*state, 2);
    ui.press_key(*state, keys::P); // at the target: goes on, to preset + preset
    ui.press_key(*state, keys::P); // pauses it
    ASSERT_FALSE(state->training_run.running());
    ASSERT_EQ(state->training.edit.steps, 2 * preset);
    ui.press_key(*state, keys::R);
    ui.press_key(*state, keys::R); // R twice resets a run with steps taken
    state->training_run.poll(state->training.view);
    EXPECT_EQ(state->training.view.step, 0);
    EXPECT_EQ(state->training.edit.steps, preset) << "the preset's target after R";
    const test::FrameOutput out = ui.frames(*state, 2);
    EXPECT_TRUE(drawn(out, "step 0 of " + std::to_string(preset) + " ")) << out.text;
}

// R in a training lesson's presenter view resets the step's run: its caption goes back to waiting (saying the
// run is paused and what plays it), and once the run gets past the step it describes again, the caption and
// the maps are both at that step, not the caption at step 10 over the maps of the run's latest step.
TEST_F(PresenterTest, AResetRunsCaptionWaitsAgainAndComesBackWithItsStep)
{
    const char* text = R"({"format": "attnlab-lesson", "version": 1, "title": "t",
        "training": {"task": "reverse", "seed": 1, "steps": 40},
        "steps": [{"text": "At step ten the loss has fallen.", "training": {"show_step": 10}}]})";
    ASSERT_TRUE(enter_test_lesson(text));
    auto wait_for_the_run = [&]
    {
        for (int i = 0; i < 6000 && state->training_run.running(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        ASSERT_FALSE(state->training_run.running());
    };
    wait_for_the_run();
    state->mouse_ignored = true;
    state->presenter = true;
    use_window_font(720.0f);
    test::FrameOutput out = ui.frames(*state, 3);
    ASSERT_EQ(state->training.view.step, 40);
    EXPECT_TRUE(drawn_wrapped(out, "At step ten the loss has fallen.")) << out.text;
    ASSERT_NE(shown_frame(state->training), nullptr);
    EXPECT_EQ(shown_frame(state->training)->step, 10);

    ui.press_key(*state, keys::R);
    ui.press_key(*state, keys::R); // R twice resets a run with steps taken
    out = ui.frames(*state, 3);
    EXPECT_EQ(state->training.view.step, 0);
    EXPECT_FALSE(drawn_wrapped(out, "At step ten the loss has fallen.")) << out.text;
    EXPECT_TRUE(drawn_wrapped(out, "This step's text is about step 10 of its run")) << out.text;
    EXPECT_TRUE(drawn_wrapped(out, "paused: P plays it")) << out.text;

    ui.press_key(*state, keys::P);
    wait_for_the_run();
    out = ui.frames(*state, 3);
    EXPECT_EQ(state->training.view.step, 40);
    EXPECT_TRUE(drawn_wrapped(out, "At step ten the loss has fallen.")) << out.text;
    ASSERT_NE(shown_frame(state->training), nullptr);
    EXPECT_EQ(shown_frame(state->training)->step, 10) << "the maps at the step the caption describes";
}

// A lesson step at step 10 of a 40-step run draws its plots as far as its maps and caption: the curves the
// Training view plots end at the shown step, on the run's whole step axis; the next step (the newest step)
// shows them whole.
TEST_F(PresenterTest, ALessonStepsPlotsEndAtTheStepItsMapsShow)
{
    const char* text = R"({"format": "attnlab-lesson", "version": 1, "title": "t",
        "training": {"task": "reverse", "seed": 1, "steps": 40},
        "steps": [{"text": "At step ten.", "training": {"show_step": 10}}, {"text": "At the end."}]})";
    ASSERT_TRUE(enter_test_lesson(text, true)); // a picture: the run is trained before the frame
    state->presenter = true;
    use_window_font(720.0f);
    ui.frames(*state, 3);
    const TrainingPanelState& ts = state->training;
    ASSERT_EQ(ts.view.step, 40);
    for (const int want : {10, 40})
    {
        SCOPED_TRACE("shown step " + std::to_string(want));
        const TrainingFrame* f = shown_frame(ts);
        ASSERT_NE(f, nullptr);
        ASSERT_EQ(f->step, want);
        const TrainingCurves c = shown_training_curves(ts, f->step, true);
        EXPECT_EQ(c.x_max, 40) << "the run's whole step axis";
        int ending_there = 0;
        for (const CurvePlot* plot : {&c.loss, &c.heads})
            for (const CurveSeries& s : plot->series)
            {
                ASSERT_FALSE(s.points.empty()) << s.label;
                EXPECT_LE(s.points.back().first, static_cast<float>(want)) << s.label;
                ending_there += s.points.back().first >= static_cast<float>(want - ts.view.eval_every);
            }
        EXPECT_GT(ending_there, 0);
        next_step(*state);
        ui.frames(*state, 3);
    }
}

// A training step's output maps (logits and probabilities, T×V) in presenter mode name their axes, every k-th
// token down and vocabulary entry across, and have a colour bar each with its range, as every other map
// there does (they had neither, with the width beside them empty).
TEST_F(PresenterTest, TheOutputMapsOfATrainingStepHaveAxisLabelsAndColourBars)
{
    const char* text = R"({"format": "attnlab-lesson", "version": 1, "title": "t",
        "training": {"task": "induction", "seed": 1, "steps": 20},
        "steps": [{"text": "What it predicts.", "training": {"map": "output"}}]})";
    ASSERT_TRUE(enter_test_lesson(text, true)); // a picture: the run is trained before the frame
    state->presenter = true;
    for (const ImVec2 size : {ImVec2(1280.0f, 720.0f), ImVec2(1920.0f, 1080.0f)})
    {
        SCOPED_TRACE(size.y);
        ui.resize(size.x, size.y);
        use_window_font(size.y);
        const test::FrameOutput out = ui.frames(*state, 3);
        ASSERT_EQ(state->training.view.step, 20);
        const TrainingProbe& pr = state->training.probe;
        ASSERT_FALSE(pr.empty());
        // The colour bars' ends: the logits' largest magnitude, the probabilities' 0.50 mark and 1.00.
        const float logit_end =
            std::max(std::fabs(pr.logits().maxCoeff()), std::fabs(pr.logits().minCoeff()));
        EXPECT_TRUE(drawn(out, format_value(logit_end))) << format_value(logit_end) << "\n" << out.text;
        EXPECT_TRUE(drawn(out, "0.50")) << out.text;
        // Every k-th label: the first token down the side, the first vocabulary entry across the top, each
        // on a line of its own.
        const std::vector<std::string> tokens = training_probe_tokens(state->training);
        ASSERT_FALSE(tokens.empty());
        const std::string& first_symbol = state->training.view.vocabulary.front();
        EXPECT_TRUE(drawn(out, "\n" + tokens.front() + "\n")) << tokens.front() << "\n" << out.text;
        EXPECT_TRUE(drawn(out, "\n" + first_symbol + "\n")) << first_symbol << "\n" << out.text;
    }
}

// → on a training lesson's step whose next step waits for its run: the step stays, and the title line says
// at which step of the run the next one opens and where the run is (a clicker's press seemed lost).
TEST_F(PresenterTest, NextOnAStepWaitingForItsRunSaysWhenItOpens)
{
    const char* text = R"({"format": "attnlab-lesson", "version": 1, "title": "t",
        "training": {"task": "reverse", "seed": 1, "steps": 20000},
        "steps": [{"text": "The start.", "training": {"show_step": 0}},
                  {"text": "At the end.", "training": {"show_step": 20000}}]})";
    ASSERT_TRUE(enter_test_lesson(text));
    state->presenter = true;
    use_window_font(720.0f);
    ui.frames(*state, 2);
    ASSERT_TRUE(state->training_run.running());
    ASSERT_EQ(next_step_waits_for(*state), 20000);
    ui.press_key(*state, keys::Right);
    const test::FrameOutput out = ui.frames(*state, 2);
    EXPECT_EQ(state->lesson.step, 0);
    EXPECT_TRUE(drawn(out, "next step at training step 20000 (now ")) << out.text;
    training_play_pause(*state); // stops the run
}

// Presenter mode has no status bar: a message that comes while it shows (an export written, an error) is said
// in its title line; one from before F5, which the status bar showed, is not said again.
TEST_F(PresenterTest, AMessageThatComesWhilePresentingIsSaidInTheTitleLine)
{
    state->set_message("an earlier message", false);
    ui.frames(*state, 1);
    state->presenter = true;
    use_window_font(720.0f);
    test::FrameOutput out = ui.frames(*state, 2);
    EXPECT_FALSE(drawn(out, "an earlier message")) << out.text;
    state->set_message("6 slides written to /tmp/slides", false);
    out = ui.frames(*state, 2);
    EXPECT_TRUE(drawn(out, "6 slides written to /tmp/slides")) << out.text;
    EXPECT_TRUE(test::window_text("##presenter_title").find("6 slides written") != std::string::npos);
}

// A lesson entered in presenter mode (--lesson ID --presenter, or a lesson opened while presenting) shows its
// step counter at once: the status bar's "Lesson: <title> (← → or Space to step)" took the counter's place
// for its first seconds, repeating the title beside it.
TEST_F(PresenterTest, ALessonEnteredInPresenterModeShowsItsCounterNotTheStatusMessage)
{
    state->presenter = true;
    use_window_font(720.0f);
    ui.frames(*state, 1);
    enter_lesson(*state, lesson_index(*state, "tour"), 1);
    ui.frames(*state, 2);
    const std::string title = test::window_text("##presenter_title");
    EXPECT_NE(title.find(step_counter(*state)), std::string::npos) << title;
    EXPECT_EQ(title.find("Space to step"), std::string::npos) << title;
    // A message that comes later is still said there.
    state->set_message("6 slides written to /tmp/slides", false);
    ui.frames(*state, 2);
    EXPECT_NE(test::window_text("##presenter_title").find("6 slides written"), std::string::npos);
}

// The caption breaks its lines at spaces only: ImGui's own wrapping left a "." alone on a line after a
// closing quote (step 3: 'say "no clear role".').
TEST_F(PresenterTest, TheTextLessonsCaptionLinesNeverStartWithClosingPunctuation)
{
    each_text_lesson_view(
        ui, *state, [&](float h) { use_window_font(h); },
        []
        {
            const std::string caption = test::window_text("##presenter_caption");
            ASSERT_FALSE(caption.empty());
            for (const char c : std::string(".,;:!?)"))
                EXPECT_EQ(caption.find(std::string("\n") + c), std::string::npos) << caption;
        });
}

// [SECTION] The caption: a 24th of the screen's height, under the maps or beside them, never over them

// The caption's glyphs as drawn: each quad's baseline and height, read from the caption window's draw list
// (glyphs found by their texture coordinates in any font of the atlas).
struct CaptionGlyphs
{
    std::vector<float> baselines;
    float font_px = 0.0f;   // the size the glyphs are drawn at (their font's size times their scale)
    float capital_h = 0.0f; // the height of a drawn capital 'T'
};

CaptionGlyphs caption_glyphs()
{
    CaptionGlyphs out;
    const ImGuiWindow* window = ImGui::FindWindowByName("##presenter_caption");
    if (window == nullptr)
        return out;
    std::map<std::pair<float, float>, std::pair<const ImFontGlyph*, float>> by_uv;
    for (const ImFont* font : ImGui::GetIO().Fonts->Fonts)
        for (const ImFontGlyph& g : font->Glyphs)
            if (g.Visible)
                by_uv[{g.U0, g.V0}] = {&g, font->FontSize};
    const ImVector<ImDrawVert>& v = window->DrawList->VtxBuffer;
    for (int i = 0; i + 2 < v.Size; ++i)
    {
        const auto it = by_uv.find({v[i].uv.x, v[i].uv.y});
        if (it == by_uv.end() || v[i + 2].uv.x != it->second.first->U1 ||
            v[i + 2].uv.y != it->second.first->V1)
            continue;
        const ImFontGlyph& g = *it->second.first;
        // A caption below the font's size is drawn scaled: the scale from the quad's width, as decode_text.
        const float s = g.X1 > g.X0 ? (v[i + 2].pos.x - v[i].pos.x) / (g.X1 - g.X0) : 1.0f;
        out.baselines.push_back(v[i].pos.y - g.Y0 * s);
        if (g.X1 - g.X0 > 4.0f) // wide enough for its scale to be read to a few hundredths
            out.font_px = std::max(out.font_px, it->second.second * s);
        if (g.Codepoint == 'T')
            out.capital_h = v[i + 2].pos.y - v[i].pos.y;
        i += 3;
    }
    return out;
}

// The caption's line pitch: the smallest step between two of its baselines (the lines of one wrapped text
// are one font size apart; heading to text adds the item spacing). 0: one line only.
float line_pitch(std::vector<float> baselines)
{
    std::sort(baselines.begin(), baselines.end());
    float pitch = 0.0f;
    for (std::size_t i = 1; i < baselines.size(); ++i)
        if (const float d = baselines[i] - baselines[i - 1]; d > 2.0f && (pitch == 0.0f || d < pitch))
            pitch = d;
    return pitch;
}

bool overlaps(const ImVec4& r, const ImGuiWindow* w)
{
    return r.x < w->Pos.x + w->Size.x - 0.5f && w->Pos.x < r.z - 0.5f && r.y < w->Pos.y + w->Size.y - 0.5f &&
           w->Pos.y < r.w - 0.5f;
}

// Every step of every lesson at 1280x720 and 1920x1080: the caption's text is drawn a 24th of the screen's
// height high (its lines that far apart), beside or under the view and never over a map, and whole in its
// window (a band may scroll only past its largest share); the maps keep square cells.
TEST_F(PresenterTest, EveryStepsCaptionIsATwentyFourthOfTheScreenAndNeverOverTheMaps)
{
    const auto& lessons = state->lesson.library.lessons;
    ASSERT_FALSE(lessons.empty());
    state->mouse_ignored = true;
    for (const ImVec2 size : {ImVec2(1280.0f, 720.0f), ImVec2(1920.0f, 1080.0f)})
    {
        ui.resize(size.x, size.y);
        int beside = 0, under = 0, steps = 0, training_steps = 0;
        std::map<std::string, float> smallest_map; // by step: its smallest map's shorter side
        for (std::size_t i = 0; i < lessons.size(); ++i)
            for (std::size_t k = 0; k < lessons[i].steps.size(); ++k)
            {
                const std::string where = lessons[i].id + " step " + std::to_string(k + 1) + " at " +
                                          std::to_string(static_cast<int>(size.y));
                SCOPED_TRACE(where);
                enter_lesson(*state, static_cast<int>(i), static_cast<int>(k));
                state->presenter = true;
                use_window_font(size.y);
                const test::FrameOutput out = ui.frames(*state, 2);
                const ImGuiWindow* caption = ImGui::FindWindowByName("##presenter_caption");
                const ImGuiWindow* view = ImGui::FindWindowByName("##presenter_view");
                ASSERT_NE(caption, nullptr);
                ASSERT_NE(view, nullptr);
                ++steps;
                const CaptionGlyphs glyphs = caption_glyphs();
                const float pitch = line_pitch(glyphs.baselines);
                ASSERT_GT(pitch, 0.0f) << "a heading and a text: two lines at least";
                // Drawn at the size chosen: a 24th of the screen, the maps and plots taking what is left.
                EXPECT_NEAR(glyphs.font_px, state->presenter_caption_px, 0.6f);
                EXPECT_GE(pitch, state->presenter_caption_px - 0.6f) << "lines a font size apart";
                EXPECT_GE(glyphs.font_px, size.y / 24.0f - 0.5f);
                const bool training = step_maps(*state, current_step(*state)).kind == StepMapsKind::Training;
                training_steps += training ? 1 : 0;
                // The smallest map's shorter side, to see what the caption's size costs the maps.
                float map_px = 1e9f;
                for (const ImVec4& r : heatmap_rects(out))
                    map_px = std::min(map_px, std::min(r.z - r.x, r.w - r.y));
                if (map_px < 1e9f)
                    smallest_map[lessons[i].id + " " + std::to_string(k + 1)] = map_px;
                // The caption and the view side by side or one above the other, never over each other.
                const bool right = caption->Pos.x > 0.5f;
                EXPECT_EQ(right, state->presenter_caption_beside);
                (right ? beside : under) += 1;
                if (right)
                {
                    EXPECT_LE(view->Pos.x + view->Size.x, caption->Pos.x + 0.5f);
                }
                else
                {
                    EXPECT_LE(view->Pos.y + view->Size.y, caption->Pos.y + 0.5f);
                }
                EXPECT_LE(caption->Pos.x + caption->Size.x, size.x + 0.5f);
                EXPECT_LE(caption->Pos.y + caption->Size.y, size.y + 0.5f);
                // (The Training view draws its maps in a scrolling list of its own, clipped at its edge.)
                for (const ImVec4& r : heatmap_rects(out))
                    EXPECT_TRUE(training || !overlaps(r, caption)) << "a map under the caption";
                // The whole caption in its window, unless even the text's size would not fit the band.
                const float needed = caption->ContentSize.y + 2.0f * ImGui::GetStyle().WindowPadding.y;
                if (right || state->presenter_caption_px > size.y / 32.0f + 0.5f)
                {
                    EXPECT_LE(needed, caption->Size.y + 1.0f) << "the caption is cut";
                }
                std::printf("%s: caption %s, font %.1f px, capital T %.0f px\n", where.c_str(),
                            right ? "beside" : "under", static_cast<double>(glyphs.font_px),
                            static_cast<double>(glyphs.capital_h));
            }
        std::printf("%.0fx%.0f: %d steps, caption beside the maps on %d, under them on %d\n",
                    static_cast<double>(size.x), static_cast<double>(size.y), steps, beside, under);
        std::printf("smallest maps:");
        for (const auto& [name, px] : smallest_map)
            if (px < size.y / 6.0f)
                std::printf(" %s (%.0f px);", name.c_str(), static_cast<double>(px));
        std::printf("\n");
        EXPECT_GT(beside, 0);
        EXPECT_GT(under, 0);
        std::printf("Training view steps: %d\n", training_steps);
    }
    leave_lesson(*state);
    state->presenter = false;
}

// Every group of the Pipeline view at 1280x720 and 1920x1080: the grid's shape is the one with the largest
// cells of all it tried (a shape with more rows winning only by more than a pixel), no map is under the
// caption, and a short last row is centred (no quarter of the view left empty).
TEST_F(PresenterTest, PipelineGroupsTakeTheLargestCellsAndKeepClearOfTheCaption)
{
    state->presenter = true;
    state->mouse_ignored = true;
    const int groups = static_cast<int>(presenter_pipeline_groups().size());
    for (const ImVec2 size : {ImVec2(1280.0f, 720.0f), ImVec2(1920.0f, 1080.0f)})
    {
        ui.resize(size.x, size.y);
        use_window_font(size.y);
        for (int g = 0; g < groups; ++g)
        {
            SCOPED_TRACE(std::to_string(g + 1) + " at " + std::to_string(static_cast<int>(size.y)));
            state->presenter_stage_group = g;
            const test::FrameOutput out = ui.frames(*state, 3);
            const std::vector<ImVec4> rects = heatmap_rects(out);
            const std::size_t n = presenter_pipeline_groups()[static_cast<std::size_t>(g)].stages.size();
            ASSERT_EQ(rects.size(), n);
            ASSERT_EQ(state->presenter_grid_cells.size(), n);
            const int columns = state->presenter_grid_columns;
            ASSERT_GE(columns, 1);
            const float chosen = state->presenter_grid_cells[static_cast<std::size_t>(columns - 1)];
            std::printf("group %d at %.0f lines: %d columns, cells", g + 1, static_cast<double>(size.y),
                        columns);
            for (std::size_t c = 0; c < n; ++c)
            {
                std::printf(" %.1f", static_cast<double>(state->presenter_grid_cells[c]));
                // A shape with fewer rows (more columns) wins a tie; one with more rows must win by a pixel.
                const bool more_rows = static_cast<int>(c) + 1 < columns;
                EXPECT_GE(chosen + (more_rows ? 1.0f : 0.0f) + 1e-3f, state->presenter_grid_cells[c])
                    << static_cast<int>(c) + 1 << " columns would give larger cells";
            }
            std::printf("\n");
            const ImGuiWindow* caption = ImGui::FindWindowByName("##presenter_caption");
            ASSERT_NE(caption, nullptr);
            for (const ImVec4& r : rects)
                EXPECT_FALSE(overlaps(r, caption)) << "a map under the caption";
            if (n == 3 && columns == 2)
            {
                // The lone map of the lower row crosses the middle of the two above it.
                const float middle = 0.5f * (rects[0].x + rects[1].z);
                EXPECT_LT(rects[2].x, middle);
                EXPECT_GT(rects[2].z, middle);
            }
        }
    }
}

// At 120 % on 1080 lines (Ctrl+= twice after the launch's 100 %), every Pipeline group and the eight heads of
// the Heads view fit the view or scroll to their end: no map runs past what the view can scroll to, none
// lies under the caption.
TEST_F(PresenterTest, ZoomedPipelineGroupsAndHeadsFitOrScrollNeverCut)
{
    state->session.config.n_heads = 8;
    state->edit();
    state->presenter = true;
    state->mouse_ignored = true;
    ui.resize(1920.0f, 1080.0f);
    const int groups = static_cast<int>(presenter_pipeline_groups().size());
    const auto show = [&](int g)
    {
        state->presenter_view = g == groups ? PresenterView::Heads : PresenterView::Pipeline;
        state->presenter_stage_group = g == groups ? 0 : g;
    };
    // The first map's side of each group and of the heads at 100 %.
    use_window_font(1080.0f);
    std::vector<float> side_100;
    for (int g = 0; g <= groups; ++g)
    {
        show(g);
        const std::vector<ImVec4> rects = heatmap_rects(ui.frames(*state, 3));
        ASSERT_FALSE(rects.empty());
        side_100.push_back(rects[0].z - rects[0].x);
    }
    // Enlarged on the last view, then every group and the heads stepped through at 120 %.
    step_text_size(*state, 1);
    step_text_size(*state, 1);
    use_window_font(1080.0f);
    for (int g = 0; g <= groups; ++g)
    {
        const bool heads = g == groups;
        SCOPED_TRACE(heads ? std::string("heads") : "group " + std::to_string(g + 1));
        show(g);
        const std::size_t n =
            heads ? 8u : presenter_pipeline_groups()[static_cast<std::size_t>(g)].stages.size();
        // Each map is drawn at the top of the view or scrolled to its end (a map out of sight is not drawn),
        // and wherever it is drawn it lies inside what the view can scroll to.
        std::set<TextureHandle> seen;
        std::vector<ImVec4> rects;
        float first_side = 0.0f; // the top left map's side at the top of the view
        const ImGuiWindow* view = nullptr;
        const ImGuiWindow* caption = nullptr;
        for (const bool at_end : {false, true})
        {
            if (at_end)
            {
                ImGui::SetScrollY(const_cast<ImGuiWindow*>(view), view->ScrollMax.y);
                ImGui::SetScrollX(const_cast<ImGuiWindow*>(view), view->ScrollMax.x);
            }
            const test::FrameOutput out = ui.frames(*state, at_end ? 2 : 4);
            if (!at_end && !out.texture_rects.empty())
                first_side = heatmap_rects(out).front().z - heatmap_rects(out).front().x;
            view = ImGui::FindWindowByName("##presenter_view");
            caption = ImGui::FindWindowByName("##presenter_caption");
            ASSERT_NE(view, nullptr);
            ASSERT_NE(caption, nullptr);
            if (!at_end)
            {
                // The view scrolled to the end of the group before opens this one at its top.
                EXPECT_EQ(view->Scroll.x, 0.0f);
                EXPECT_EQ(view->Scroll.y, 0.0f);
            }
            const float right = view->Pos.x - view->Scroll.x + view->ContentSize.x + view->WindowPadding.x;
            const float bottom = view->Pos.y - view->Scroll.y + view->ContentSize.y + view->WindowPadding.y;
            for (const auto& [id, r] : out.texture_rects)
            {
                seen.insert(id);
                rects.push_back(r);
                // What the view shows of it (a map scrolled partly out of sight is cut at the view's edge).
                const ImVec4 shown(std::max(r.x, view->Pos.x), std::max(r.y, view->Pos.y),
                                   std::min(r.z, view->Pos.x + view->Size.x),
                                   std::min(r.w, view->Pos.y + view->Size.y));
                if (shown.x < shown.z && shown.y < shown.w)
                {
                    EXPECT_FALSE(overlaps(shown, caption)) << "a map under the caption";
                }
                EXPECT_LE(r.z, std::max(right, view->Pos.x + view->Size.x) + 0.5f)
                    << "a map cut on the right";
                EXPECT_LE(r.w, std::max(bottom, view->Pos.y + view->Size.y) + 0.5f)
                    << "a map cut at the bottom";
                EXPECT_GE(r.x, view->Pos.x - view->Scroll.x - 0.5f) << "a map cut on the left";
                EXPECT_GE(r.y, view->Pos.y - view->Scroll.y - 0.5f) << "a map cut at the top";
            }
        }
        EXPECT_EQ(seen.size(), n) << "a map can no longer be seen";
        EXPECT_GE(first_side, side_100[static_cast<std::size_t>(g)] - 1.0f) << "the maps shrank";
        const bool scrolls_x = view->ScrollbarX, scrolls_y = view->ScrollbarY;
        float far_right = 0.0f, far_bottom = 0.0f;
        for (const ImVec4& r : rects)
        {
            far_right = std::max(far_right, r.z);
            far_bottom = std::max(far_bottom, r.w);
        }
        std::printf(
            "%s at 120%%: %zu maps to x %.0f y %.0f; view %.0f..%.0f x %.0f..%.0f, content %.0f x %.0f, "
            "scroll bars %d %d, caption at y %.0f\n",
            heads ? "heads" : ("group " + std::to_string(g + 1)).c_str(), n, static_cast<double>(far_right),
            static_cast<double>(far_bottom), static_cast<double>(view->Pos.x),
            static_cast<double>(view->Pos.x + view->Size.x), static_cast<double>(view->Pos.y),
            static_cast<double>(view->Pos.y + view->Size.y), static_cast<double>(view->ContentSize.x),
            static_cast<double>(view->ContentSize.y), scrolls_x ? 1 : 0, scrolls_y ? 1 : 0,
            static_cast<double>(caption->Pos.y));
    }
}

// The Heads view writes each weight in its cell wherever it fits at the labels' floor or larger (4 heads of
// "Jane visits Africa in September ." at 1280x720: 43 px cells), and not where it would be smaller (8 heads
// of a 12-token sentence).
TEST_F(PresenterTest, TheHeadsViewWritesTheWeightsInCellsLargeEnoughForThem)
{
    state->presenter = true;
    state->presenter_view = PresenterView::Heads;
    state->mouse_ignored = true;
    // Row i = 1 of head j's weights as the cells write it, one value after another on one line.
    auto row_text = [&](int j)
    {
        const MatrixView view = resolve_matrix(*state, selected_stage(*state, Stage::weights, j));
        std::string text;
        for (int c = 0; view.m != nullptr && c < view.m->cols(); ++c)
        {
            // A weight of rounding size (4.9e-04) is written to two decimals, as the cell has room for.
            const float v = (*view.m)(1, c);
            text += (c > 0 ? " " : "") + cell_text(v);
        }
        return text;
    };
    for (const ImVec2 size : {ImVec2(1280.0f, 720.0f), ImVec2(1920.0f, 1080.0f)})
    {
        SCOPED_TRACE(size.y);
        ui.resize(size.x, size.y);
        use_window_font(size.y);
        state->session.config.n_heads = 4;
        state->edit();
        test::FrameOutput out = ui.frames(*state, 3);
        std::vector<ImVec4> rects = heatmap_rects(out);
        ASSERT_EQ(rects.size(), 4u);
        const float cell = (rects[0].z - rects[0].x) / 6.0f;
        const float floor_px = presenter_min_text_px(ImGui::GetFontSize());
        std::printf("4 heads at %.0f lines: cells %.0f px, floor %.1f px\n", static_cast<double>(size.y),
                    static_cast<double>(cell), static_cast<double>(floor_px));
        EXPECT_GE(cell, 40.0f);
        for (int j = 0; j < 4; ++j)
            EXPECT_TRUE(drawn(out, row_text(j))) << "head " << j + 1 << ": " << row_text(j) << "\n"
                                                 << out.text;

        state->session.text = "The animal didn't cross the street because it was tired and slow";
        state->session.config.n_heads = 8;
        state->edit();
        out = ui.frames(*state, 3);
        rects = heatmap_rects(out);
        ASSERT_EQ(rects.size(), 8u);
        const float small = (rects[0].z - rects[0].x) / static_cast<float>(state->trace().T());
        std::printf("8 heads of T = %d: cells %.0f px\n", state->trace().T(), static_cast<double>(small));
        for (int j = 0; j < 8; ++j)
            EXPECT_FALSE(drawn(out, row_text(j))) << "head " << j + 1 << " at " << small << " px cells";
        state->session.text = AppState().session.text;
        state->session.config.n_heads = 4;
        state->edit();
    }
}

// The widest value a map writes in its cells at text size px, as the heatmap writes them: two decimals, a
// rounding-size value as 0.00, scientific notation left out, and each row's sum in a Σ column.
float widest_value_px(AppState& state, const MatrixRef& ref, bool row_sums, float px)
{
    const MatrixView view = resolve_matrix(state, ref);
    float widest = 0.0f;
    auto measure = [&](const std::string& text)
    {
        if (text.find('e') == std::string::npos)
            widest = std::max(widest, ImGui::GetFont()->CalcTextSizeA(px, FLT_MAX, 0.0f, text.c_str()).x);
    };
    for (int r = 0; view.m != nullptr && r < view.m->rows(); ++r)
    {
        for (int c = 0; c < view.m->cols(); ++c)
        {
            const float v = (*view.m)(r, c);
            const std::string text = format_value(v);
            measure(std::fabs(v) < 0.005f && text.find('e') != std::string::npos
                        ? (v < 0.0f ? "-0.00" : "0.00")
                        : text);
        }
        if (row_sums && view.probability)
            measure(format_value(view.m->row(r).sum()));
    }
    return widest;
}

// With h = 8, the edit bar open or not, at both screen sizes, in the Heads view and every Pipeline group: the
// axis labels never go under the floor (0.6 of the font, at least 12 px); every map writes its values where
// its cells hold them at the floor, at one size in all maps of the view and never smaller than the floor; a
// caption beside the maps never breaks a setting ("h =" over "8").
TEST_F(PresenterTest, EditBarLayoutsKeepTheLabelFloorAndEveryValueThatFitsAtOneSize)
{
    state->presenter = true;
    state->mouse_ignored = true;
    state->session.text = "The cat sat on the warm mat";
    state->session.config.n_heads = 8;
    state->edit();
    const auto& groups = presenter_pipeline_groups();
    int beside = 0, with_values = 0, without_values = 0;
    for (const ImVec2 size : {ImVec2(1280.0f, 720.0f), ImVec2(1920.0f, 1080.0f)})
    {
        ui.resize(size.x, size.y);
        use_window_font(size.y);
        for (const bool edit_bar : {false, true})
        {
            state->presenter_view = PresenterView::Pipeline;
            ui.frames(*state, 2);
            if (edit_bar && !state->presenter_edit)
                ui.press_key(*state, keys::E); // E opens it, as in the window
            state->presenter_edit = edit_bar;
            for (int view = 0; view <= static_cast<int>(groups.size()); ++view)
            {
                const bool heads = view == static_cast<int>(groups.size());
                state->presenter_view = heads ? PresenterView::Heads : PresenterView::Pipeline;
                state->presenter_stage_group = heads ? 0 : view;
                const test::FrameOutput out = ui.frames(*state, 3);
                SCOPED_TRACE((heads ? std::string("heads") : "group " + std::to_string(view + 1)) + " at " +
                             std::to_string(static_cast<int>(size.y)) + (edit_bar ? ", edit bar" : ""));
                ASSERT_EQ(state->presenter_edit, edit_bar);
                const float fs = ImGui::GetFontSize();
                const float floor_px = presenter_min_text_px(fs);
                EXPECT_GE(floor_px, 12.0f);
                EXPECT_GE(state->presenter_label_px, floor_px - 1e-3f) << "axis labels under the floor";
                std::vector<MatrixRef> refs;
                if (heads)
                    for (int j = 0; j < 8; ++j)
                        refs.push_back(selected_stage(*state, Stage::weights, j));
                else
                    for (const Stage stage : groups[static_cast<std::size_t>(view)].stages)
                        refs.push_back(selected_stage(*state, stage, state->sel.head));
                ASSERT_EQ(state->presenter_number_px.size(), refs.size());
                ASSERT_EQ(state->presenter_map_cells.size(), refs.size());
                float shared = 0.0f;
                for (std::size_t i = 0; i < refs.size(); ++i)
                {
                    const float cell = state->presenter_map_cells[i];
                    const float px = state->presenter_number_px[i];
                    const bool sums = !heads && refs[i].stage == Stage::weights;
                    const float need = widest_value_px(*state, refs[i], sums, floor_px) + 4.0f;
                    std::printf("%s map %zu: cell %.1f, values need %.1f, written at %.1f px\n",
                                heads ? "heads" : "pipeline", i + 1, static_cast<double>(cell),
                                static_cast<double>(need), static_cast<double>(px));
                    if (cell >= need + 0.5f && cell - 2.0f >= floor_px)
                    {
                        EXPECT_GT(px, 0.0f) << "map " << i + 1 << ": " << cell << " px cells hold values at "
                                            << floor_px << " px";
                    }
                    if (px > 0.0f)
                    {
                        EXPECT_GE(px, floor_px - 1e-3f) << "map " << i + 1 << ": values under the floor";
                        if (shared > 0.0f)
                        {
                            EXPECT_FLOAT_EQ(px, shared) << "map " << i + 1 << ": values at another size";
                        }
                        shared = px;
                    }
                    (px > 0.0f ? with_values : without_values) += 1;
                }
                if (state->presenter_caption_beside)
                {
                    ++beside;
                    EXPECT_TRUE(drawn_wrapped(out, "h = 8")) << out.text;
                    EXPECT_FALSE(drawn(out, "h =\n")) << "a setting broken\n" << out.text;
                    EXPECT_FALSE(drawn(out, "d_model =\n")) << "a setting broken\n" << out.text;
                }
            }
        }
    }
    std::printf("%d views with the caption beside; %d maps with values, %d without\n", beside, with_values,
                without_values);
    EXPECT_GT(beside, 0) << "no caption beside the maps was checked";
    EXPECT_GT(with_values, 0);
    EXPECT_GT(without_values, 0);
}

// The Pipeline's input X at 1280x720: its colour bar runs symmetric from its largest magnitude, so the end
// on the other side is not the data's; the data's end there is named ("min -1.93"), never a bare number.
TEST_F(PresenterTest, ColourBarsNameTheDataEndTheScaleDoesNotShow)
{
    state->presenter = true;
    state->mouse_ignored = true;
    state->presenter_stage_group = 0;
    use_window_font(720.0f);
    const test::FrameOutput out = ui.frames(*state, 3);
    MatrixRef x;
    x.stage = Stage::X;
    const MatrixView view = resolve_matrix(*state, x);
    ASSERT_NE(view.m, nullptr);
    const float lo = view.m->minCoeff(), hi = view.m->maxCoeff();
    const bool max_is_end = std::fabs(hi) >= std::fabs(lo);
    const std::string inner = format_value(max_is_end ? lo : hi);
    const std::string end = format_value(max_is_end ? hi : lo);
    EXPECT_TRUE(drawn(out, std::string(max_is_end ? "min " : "max ") + inner)) << out.text;
    EXPECT_FALSE(drawn(out, "\n" + inner + "\n")) << "a bare " << inner << "\n" << out.text;
    EXPECT_FALSE(drawn(out, std::string(max_is_end ? "max " : "min ") + end)) << "the end already says it";
}

} // namespace

} // namespace attnlab
