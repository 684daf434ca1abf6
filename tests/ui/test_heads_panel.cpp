// The Heads panel: its grid and label rules, the query pinned across every head, the layers x heads overview
// and the cross-attention maps (headless frames), and the head colours' contrast.
#include "core/io/lesson_file.h"
#include "core/softmax.h"
#include "ui/heatmap/heatmap.h"
#include "ui/model/lessons.h"
#include "ui/panels/panels.h"
#include "ui/picture/heads_layout.h"
#include "ui/picture/heatmap_math.h"
#include "ui/shell/app_ui.h"
#include "ui/shell/theme.h"
#include "ui/shell/widgets.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <string>

namespace attnlab
{
namespace
{

using test::contains;
using test::HeadlessUi;
using test::panel_only;

std::string words(int n)
{
    std::string s;
    const char* vocab[] = {"the", "cat", "sat", "on", "a", "mat", "and", "looked", "at", "students"};
    for (int i = 0; i < n; ++i)
        s += std::string(i ? " " : "") + vocab[i % 10];
    return s;
}

TextureHandle texture_of(const AppState& state, const std::string& key)
{
    const HeatmapEntry* e = state.heatmaps.find(key);
    return e == nullptr ? 0 : e->texture;
}

std::string weights_key(int layer, int head)
{
    return "L" + std::to_string(layer) + "/b0/weights/h" + std::to_string(head);
}

const Mat& weights_of(const AppState& state, int layer, int head)
{
    return state.trace().layers[static_cast<std::size_t>(layer)].attn.head(0, head).weights;
}

// "→ Africa 0.31": the title a head shows for a query (its strongest key and weight).
std::string answer(const AppState& state, const Mat& weights, int query)
{
    const TopKey top = top_key(weights, query);
    char text[96];
    std::snprintf(text, sizeof text, "→ %s %.2f",
                  state.trace().tokens.tokens[0][static_cast<std::size_t>(top.col)].c_str(),
                  static_cast<double>(top.weight));
    return text;
}

// Whether a shape in `colour` outlines row `row` of the map drawn in `map` (rows x cols): vertices of that
// colour at both its left and right edges, within the row's band.
bool row_outlined(const test::FrameOutput& out, ImU32 colour, const ImVec4& map, int row, int rows)
{
    const auto it = out.shape_points.find(colour);
    if (it == out.shape_points.end())
        return false;
    const float cell = (map.w - map.y) / static_cast<float>(rows);
    const float top = map.y + cell * static_cast<float>(row) - 5.0f;
    const float bottom = map.y + cell * static_cast<float>(row + 1) + 5.0f;
    bool left = false, right = false;
    for (const ImVec2& p : it->second)
        if (p.y >= top && p.y <= bottom && p.x >= map.x - 5.0f && p.x <= map.z + 5.0f)
        {
            left = left || p.x <= map.x + 1.0f;
            right = right || p.x >= map.z - 1.0f;
        }
    return left && right;
}

class HeadsPanelTest : public ::testing::Test
{
protected:
    HeadlessUi ui;
    std::unique_ptr<AppState> state = std::make_unique<AppState>();
    const std::function<void(AppState&)> heads = panel_only(draw_heads_panel);

    // The screen point of (row, col) in head j's map of the layer.
    ImVec2 cell_point(const test::FrameOutput& out, const std::string& key, int row, int col, int rows,
                      int cols)
    {
        const ImVec4 r = out.texture_rects.at(texture_of(*state, key));
        return ImVec2(r.x + (r.z - r.x) * (static_cast<float>(col) + 0.5f) / static_cast<float>(cols),
                      r.y + (r.w - r.y) * (static_cast<float>(row) + 0.5f) / static_cast<float>(rows));
    }
};

// [SECTION] Label rules of the grid (pure)

HeadsGridRequest grid_request(int heads, int T, float w, float h)
{
    HeadsGridRequest q;
    q.heads = heads;
    q.rows = q.cols = T;
    q.width = w;
    q.height = h;
    q.font_px = 15.0f;
    q.title_h = 24.0f;
    q.gap = 10.0f;
    q.row_label_w = 90.0f;
    q.key_label_h = 90.0f;
    return q;
}

// The grid with its labels fits inside the request, and its cells are square.
void expect_inside(const HeadsGridRequest& q, const HeadsGridLayout& g)
{
    const float w = (g.row_labels ? q.row_label_w : 0.0f) + static_cast<float>(g.columns) * g.map_w +
                    static_cast<float>(g.columns - 1) * q.gap;
    const float h = static_cast<float>(g.grid_rows) * (q.title_h + g.map_h) +
                    static_cast<float>(g.grid_rows - 1) * q.gap + (g.key_labels ? q.key_label_h : 0.0f);
    EXPECT_LE(w, q.width + 0.01f);
    EXPECT_LE(h, q.height + 0.01f);
    EXPECT_EQ(g.columns * g.grid_rows >= q.heads, true);
    EXPECT_NEAR(g.map_w, g.cell_px * static_cast<float>(q.cols), 0.01f);
    EXPECT_NEAR(g.map_h, g.cell_px * static_cast<float>(q.rows), 0.01f);
}

TEST(HeadsGridLayout, ShortSentencesGetBothAxesLabelled)
{
    const HeadsGridRequest q = grid_request(4, 6, 700.0f, 400.0f);
    const HeadsGridLayout g = layout_heads_grid(q);
    EXPECT_TRUE(g.row_labels);
    EXPECT_TRUE(g.key_labels);
    EXPECT_GE(g.cell_px, q.font_px); // every label has a cell at least a line tall
    expect_inside(q, g);
}

TEST(HeadsGridLayout, LabelsNeedACellPerLineAndAreDroppedRatherThanThinned)
{
    // T = 18 in the default Heads panel at 1080p: cells of about 9 px, under a line: no labels (the tooltip
    // names the token), and the maps are as large as without any.
    const HeadsGridRequest q = grid_request(4, 18, 690.0f, 375.0f);
    const HeadsGridLayout g = layout_heads_grid(q);
    EXPECT_FALSE(g.row_labels);
    EXPECT_FALSE(g.key_labels);
    EXPECT_LT(g.cell_px, q.font_px);
    EXPECT_EQ(g.columns, 4);
    EXPECT_NEAR(g.map_w, (690.0f - 3 * 10.0f) / 4.0f, 0.01f);
    expect_inside(q, g);
    // The same sentence on a presenter's whole width: both axes fit again.
    const HeadsGridRequest wide = grid_request(4, 18, 1900.0f, 700.0f);
    const HeadsGridLayout gw = layout_heads_grid(wide);
    EXPECT_TRUE(gw.row_labels);
    EXPECT_TRUE(gw.key_labels);
    EXPECT_GE(gw.cell_px, wide.font_px);
    expect_inside(wide, gw);
}

TEST(HeadsGridLayout, KeysAreLabelledBeforeQueries)
{
    // Room for one axis only: a narrow, tall panel, where query labels would squeeze the maps under a line a
    // cell but key labels (below) fit.
    HeadsGridRequest q = grid_request(1, 12, 260.0f, 600.0f);
    q.row_label_w = 120.0f;
    const HeadsGridLayout g = layout_heads_grid(q);
    EXPECT_TRUE(g.key_labels);
    EXPECT_FALSE(g.row_labels);
    EXPECT_GE(g.cell_px, q.font_px);
    expect_inside(q, g);
}

TEST(HeadsGridLayout, LabelledMapsNeverGetSmallerThanTheMinimum)
{
    // Two tokens: labelled cells would be a line tall, but the maps 30 px: no labels then.
    HeadsGridRequest q = grid_request(4, 2, 700.0f, 160.0f);
    q.row_label_w = 600.0f; // a very long token
    q.key_label_h = 100.0f;
    const HeadsGridLayout g = layout_heads_grid(q);
    if (g.row_labels || g.key_labels)
    {
        EXPECT_GE(std::min(g.map_w, g.map_h), q.min_map_px);
    }
    EXPECT_FALSE(g.row_labels);
    expect_inside(q, g);
}

TEST(HeadsGridLayout, CrossAttentionMapsHaveRectangularShapesOfSquareCells)
{
    HeadsGridRequest q = grid_request(4, 0, 700.0f, 500.0f);
    q.rows = 3;  // T_q
    q.cols = 12; // T_k
    const HeadsGridLayout g = layout_heads_grid(q);
    EXPECT_NEAR(g.map_w / g.map_h, 4.0f, 0.01f);
    expect_inside(q, g);
}

TEST(HeadsOverviewLayout, KeyLabelsAreThinnedToALinePerLabelAndMapsAtMostSquare)
{
    OverviewRequest q;
    q.layers = 2;
    q.heads = 4;
    q.keys = 6;
    q.width = 700.0f;
    q.height = 500.0f;
    q.font_px = 15.0f;
    q.line_h = 20.0f;
    q.gap = 8.0f;
    q.layer_label_w = 60.0f;
    q.key_label_h = 80.0f;
    OverviewLayout o = layout_overview(q);
    EXPECT_EQ(o.key_stride, 1); // 6 keys in ~150 px: every key named
    EXPECT_LE(o.map_h, o.cell_w + 0.01f);
    EXPECT_LE(o.strip_h, 2.5f * q.line_h + 0.01f);
    EXPECT_GE(o.strip_h, q.font_px);
    for (const float row_h : {o.map_row_h, o.strip_row_h})
        EXPECT_LE(static_cast<float>(q.layers) * row_h + q.line_h + q.key_label_h, q.height + 0.01f);
    q.keys = 300;
    o = layout_overview(q);
    EXPECT_GT(o.key_stride, 1);
    EXPECT_GE(o.key_px * static_cast<float>(o.key_stride), q.font_px); // thinned labels do not overlap
    EXPECT_LT(o.key_px, 1.0f);
    q.layers = 40; // more layers than fit: each keeps a strip and its line (the panel scrolls)
    o = layout_overview(q);
    EXPECT_GE(o.strip_h, q.font_px);
    EXPECT_GE(o.strip_row_h, q.font_px + q.line_h);
    EXPECT_GE(o.map_h, 2.0f * q.font_px);
}

// Whole maps (no query) are square whether the width or the height is what limits them, and their key labels
// are thinned for the narrower columns.
TEST(HeadsOverviewLayout, WholeMapsAreSquare)
{
    OverviewRequest q;
    q.layers = 6;
    q.heads = 8;
    q.keys = 22;
    q.width = 440.0f;
    q.font_px = 23.0f * 0.85f;
    q.line_h = 30.0f;
    q.gap = 11.0f;
    q.layer_label_w = 90.0f;
    q.key_label_h = 100.0f;
    q.whole_maps = true;
    for (const float height : {200.0f, 500.0f, 900.0f, 3000.0f})
        for (const float width : {300.0f, 440.0f, 900.0f, 1600.0f})
        {
            q.height = height;
            q.width = width;
            const OverviewLayout o = layout_overview(q);
            EXPECT_NEAR(o.map_h, o.cell_w, 0.01f) << width << " x " << height;
            EXPECT_NEAR(o.key_px * static_cast<float>(q.keys), o.cell_w, 0.01f);
            EXPECT_GE(o.key_px * static_cast<float>(o.key_stride), q.font_px); // labels never overlap
        }
    q.height = 500.0f;
    q.width = 1600.0f; // wide and short: the height sets the side, the columns narrow to it
    const OverviewLayout o = layout_overview(q);
    q.whole_maps = false;
    EXPECT_LT(o.cell_w, layout_overview(q).cell_w);
}

TEST(HeadsOverviewLayout, PixelColumnsCoverEveryKeyOnce)
{
    for (const auto& [keys, pixels] :
         {std::pair{300, 75}, std::pair{512, 100}, std::pair{7, 7}, std::pair{10, 3}})
    {
        int next = 0;
        for (int p = 0; p < pixels; ++p)
        {
            int first = 0, last = 0;
            keys_of_pixel(keys, pixels, p, &first, &last);
            EXPECT_EQ(first, next) << keys << " keys, " << pixels << " px, column " << p;
            EXPECT_GT(last, first);
            next = last;
        }
        EXPECT_EQ(next, keys);
    }
}

TEST(HeadsReadings, TopKeyIsTheRowsLargestFiniteWeight)
{
    Mat w(2, 4);
    w << 0.1f, 0.6f, 0.2f, 0.1f, //
        -std::numeric_limits<float>::infinity(), 0.2f, 0.2f, 0.6f;
    EXPECT_EQ(top_key(w, 0).col, 1);
    EXPECT_FLOAT_EQ(top_key(w, 0).weight, 0.6f);
    EXPECT_EQ(top_key(w, 1).col, 3);
    EXPECT_EQ(top_key(w, 2).col, -1);
    EXPECT_EQ(top_key(w, -1).col, -1);
}

// [SECTION] The grid in a frame

TEST_F(HeadsPanelTest, ShortSentenceLabelsQueriesAndKeysAndLongOneNamesThemOnHover)
{
    auto out = ui.frames(*state, 3, heads);
    ASSERT_TRUE(state->status.is_ok());
    EXPECT_TRUE(state->heads_panel.grid_row_labels);
    // The query labels replace the token chips.
    EXPECT_TRUE(contains(out.text, "click a token (a row label or a row) to pin it in every head"))
        << out.text;
    EXPECT_FALSE(contains(out.text, "query Jane visits")) << out.text;

    state->session.text = words(40);
    state->edit();
    ui.frames(*state, 3, heads);
    EXPECT_FALSE(state->heads_panel.grid_row_labels);
    out = ui.frames(*state, 1, heads);
    EXPECT_TRUE(contains(out.text, "query the cat sat on a mat")) << out.text; // chips instead
    // Hovering a cell names its query and key.
    ui.mouse(cell_point(out, weights_key(0, 1), 3, 7, 40, 40).x,
             cell_point(out, weights_key(0, 1), 3, 7, 40, 40).y);
    out = ui.frames(*state, 2, heads);
    EXPECT_TRUE(contains(out.text, "row i = 3 on")) << out.text;
    EXPECT_TRUE(contains(out.text, "col j = 7 looked")) << out.text;
}

// Key labels that each fit their cell lie flat (turned to read upwards, a lone "I" looked like a dash); a
// label wider than its cell turns them all.
TEST_F(HeadsPanelTest, KeyLabelsLieFlatWhenEachFitsItsCell)
{
    state->session.text = "I love cats";
    state->session.config.n_heads = 1;
    state->edit();
    ui.frames(*state, 3, heads);
    auto out = ui.frames(*state, 1, heads);
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    EXPECT_TRUE(contains(out.text, "I love cats")) << out.text;
    EXPECT_FALSE(contains(out.text, "l\no\nv\ne")) << out.text;
    std::string text = "I love";
    for (int i = 0; i < 14; ++i)
        text += " marvellous";
    state->session.text = text;
    state->edit();
    ui.frames(*state, 3, heads);
    out = ui.frames(*state, 1, heads);
    EXPECT_TRUE(contains(out.text, "m\na\nr\nv\ne\nl\nl\no\nu\ns")) << out.text;
}

// The H legend describes the maps shown: with the first key hidden a row spreads over T - 1 keys.
TEST_F(HeadsPanelTest, EntropyLegendFollowsHideTheFirstKey)
{
    auto out = ui.frames(*state, 3, heads);
    ASSERT_TRUE(state->status.is_ok());
    const int T = state->trace().T();
    ASSERT_GT(T, 2);
    auto uniform = [](int keys)
    {
        char text[64];
        std::snprintf(text, sizeof text, "ln %d = %.2f = uniform", keys, std::log(static_cast<double>(keys)));
        return std::string(text);
    };
    EXPECT_TRUE(contains(out.text, uniform(T))) << out.text;
    EXPECT_FALSE(contains(out.text, "first key left out")) << out.text;
    state->heads_panel.hide_first_key = true;
    out = ui.frames(*state, 2, heads);
    EXPECT_TRUE(contains(out.text, uniform(T - 1) + ", first key left out")) << out.text;
    EXPECT_FALSE(contains(out.text, uniform(T))) << out.text;
}

// A wide chip ("11", "12") leaves its title less room than head 1's: the key is cut with "…" there rather
// than the title left blank.
TEST_F(HeadsPanelTest, TwoDigitHeadsKeepTheirTitlesWithTheFirstKeyHidden)
{
    state->session.config.d_model = 48;
    state->session.config.n_heads = 12;
    state->session.text = "international conversations encouraged understanding everywhere";
    state->edit();
    state->heads_panel.hide_first_key = true;
    ui.frames(*state, 2, heads);
    ASSERT_EQ(state->trace().T(), 5);
    state->heads_panel.query.row = 3;
    state->heads_panel.query.token = state->trace().tokens.tokens[0][3];
    state->heads_panel.query.T = 5;
    int titled = 0;
    for (float width = 200.0f; width <= 1600.0f; width += 20.0f)
    {
        ui.resize(width, 1000.0f);
        const auto out = ui.frames(*state, 2, heads);
        ASSERT_TRUE(state->status.is_ok()) << state->status.message();
        const TextureHandle map = texture_of(*state, weights_key(0, 11) + "|first key hidden");
        ASSERT_TRUE(out.texture_rects.count(map)) << "at width " << width;
        const ImVec4 r = out.texture_rects.at(map);
        // Head 12's title room: its map's width less the chip "12"; enough for "→", a letter and "…".
        const float chip = ImGui::CalcTextSize("12").x + ImGui::GetStyle().FramePadding.x * 2.0f;
        const float room = (r.z - r.x) - chip - 4.0f;
        if (room < ImGui::CalcTextSize("→ in…").x + ImGui::GetFontSize())
            continue;
        ++titled;
        EXPECT_TRUE(contains(out.text, "12 →")) << "room " << room << " at width " << width << "\n"
                                                << out.text;
    }
    EXPECT_GT(titled, 0);
}

TEST_F(HeadsPanelTest, ClickingARowLabelPinsTheQueryInEveryHeadUntilClickedAgain)
{
    auto out = ui.frames(*state, 3, heads);
    const ImVec4 map = out.texture_rects.at(texture_of(*state, weights_key(0, 0)));
    const float cell = (map.w - map.y) / 6.0f;
    const ImVec2 label(map.x - 20.0f, map.y + cell * 2.5f); // "Africa", at the left of the first map
    ui.click(*state, label.x, label.y, heads);
    ASSERT_TRUE(state->heads_panel.query.valid());
    EXPECT_EQ(state->heads_panel.query.row, 2);
    EXPECT_EQ(state->heads_panel.query.token, "Africa");
    ui.mouse(5.0f, 990.0f); // away: the pin stays
    out = ui.frames(*state, 2, heads);
    EXPECT_EQ(state->shown_query(false), 2);
    // Every head's title answers the question: the key its row 2 weighs most.
    for (int j = 0; j < 4; ++j)
        EXPECT_TRUE(contains(out.text, answer(*state, weights_of(*state, 0, j), 2))) << j << "\n" << out.text;
    // Row 2 is outlined in the pinned colour in every map, and no other row is.
    for (int j = 0; j < 4; ++j)
    {
        const ImVec4 r = out.texture_rects.at(texture_of(*state, weights_key(0, j)));
        EXPECT_TRUE(row_outlined(out, pinned_color(), r, 2, 6)) << j;
        EXPECT_FALSE(row_outlined(out, pinned_color(), r, 4, 6)) << j;
    }
    // A second click unpins it: titles show H again, no outline.
    ui.click(*state, label.x, label.y, heads);
    EXPECT_FALSE(state->heads_panel.query.valid());
    ui.mouse(5.0f, 990.0f);
    out = ui.frames(*state, 2, heads);
    for (int j = 0; j < 4; ++j)
        EXPECT_FALSE(row_outlined(out, pinned_color(),
                                  out.texture_rects.at(texture_of(*state, weights_key(0, j))), 2, 6))
            << j;
    EXPECT_TRUE(contains(out.text, "H = ")) << out.text;
}

TEST_F(HeadsPanelTest, ClickingAMapRowPinsItAndSelectsTheHeadWhileHoverPreviewsAnother)
{
    auto out = ui.frames(*state, 3, heads);
    const ImVec2 row4 = cell_point(out, weights_key(0, 2), 4, 1, 6, 6);
    ui.click(*state, row4.x, row4.y, heads);
    EXPECT_EQ(state->sel.head, 2);
    EXPECT_EQ(state->heads_panel.query.row, 4);
    EXPECT_FALSE(state->pinned.valid); // no cell pinned in the Inspector
    // Hovering another row shows that one, in every head; the pin stays.
    const ImVec2 row1 = cell_point(out, weights_key(0, 3), 1, 1, 6, 6);
    ui.mouse(row1.x, row1.y);
    out = ui.frames(*state, 2, heads);
    EXPECT_EQ(state->heads_hover_row, 1);
    EXPECT_EQ(state->shown_query(false), 1);
    EXPECT_EQ(state->heads_panel.query.row, 4);
    for (int j = 0; j < 4; ++j)
    {
        EXPECT_TRUE(contains(out.text, answer(*state, weights_of(*state, 0, j), 1))) << j << "\n" << out.text;
        const ImVec4 r = out.texture_rects.at(texture_of(*state, weights_key(0, j)));
        EXPECT_TRUE(row_outlined(out, IM_COL32(255, 255, 255, 255), r, 1, 6)) << j; // hovered
        EXPECT_TRUE(row_outlined(out, pinned_color(), r, 4, 6)) << j;               // pinned
    }
    ui.mouse(5.0f, 990.0f);
    ui.frames(*state, 2, heads);
    EXPECT_EQ(state->shown_query(false), 4);
}

TEST_F(HeadsPanelTest, EscUnpinsTheQueryAndArrowsMoveIt)
{
    ui.frames(*state, 3);
    // The Heads panel has the keyboard after a click in it.
    const auto out = ui.frames(*state, 1);
    const ImVec2 c = cell_point(out, weights_key(0, 0), 0, 0, 6, 6);
    ui.click(*state, c.x, c.y);
    EXPECT_EQ(state->heads_panel.query.row, 0);
    ui.press_key(*state, keys::Down);
    ui.press_key(*state, keys::Down);
    EXPECT_EQ(state->heads_panel.query.row, 2);
    EXPECT_EQ(state->heads_panel.query.token, "Africa");
    ui.press_key(*state, keys::Up);
    EXPECT_EQ(state->heads_panel.query.row, 1);
    ui.press_key(*state, 256); // Esc
    EXPECT_FALSE(state->heads_panel.query.valid());
    EXPECT_FALSE(state->presenter);
    // From no pin, ↑ pins the last token.
    ui.press_key(*state, keys::Up);
    EXPECT_EQ(state->heads_panel.query.row, 5);
    // V: the next view, and back round.
    ui.press_key(*state, keys::V);
    ui.frames(*state, 2);
    EXPECT_EQ(state->heads_panel.view, HeadsView::AllLayers);
    ui.press_key(*state, keys::V);
    ui.frames(*state, 2);
    EXPECT_EQ(state->heads_panel.view, HeadsView::Maps); // no target: no cross-attention view
}

// [SECTION] The pin when the sentence changes

TEST(QueryPin, StaysOnItsRowWithTheSameTAndFollowsItsWordOtherwise)
{
    AppState state;
    state.update();
    set_query_pin(state.heads_panel.query, 2, *state.query_tokens(false)); // "Africa"
    // Same T, a word edited: the pin keeps its place (and takes the new word).
    state.session.text = "Jane visits Kenya in September .";
    state.edit();
    state.update();
    EXPECT_EQ(state.heads_panel.query.row, 2);
    EXPECT_EQ(state.heads_panel.query.token, "Kenya");
    // A word added in front: T changes, and the pin moves with its word.
    state.session.text = "Yesterday Jane visits Kenya in September .";
    state.edit();
    state.update();
    EXPECT_EQ(state.heads_panel.query.row, 3);
    EXPECT_EQ(state.heads_panel.query.token, "Kenya");
    // The nearest of two occurrences.
    state.session.text = "Kenya : Yesterday Jane visits Kenya in September .";
    state.edit();
    state.update();
    EXPECT_EQ(state.heads_panel.query.row, 5);
    // The word gone and T changed: no pin.
    state.session.text = "Jane stayed home .";
    state.edit();
    state.update();
    EXPECT_FALSE(state.heads_panel.query.valid());
    EXPECT_EQ(state.shown_query(false), -1);
    // A pin out of range (a trace swapped without update) is never shown.
    state.heads_panel.query.row = 40;
    EXPECT_EQ(state.shown_query(false), -1);
}

TEST(QueryPin, ToggleUnpinsTheSameRowAndRefusesRowsOutOfRange)
{
    const std::vector<std::string> tokens = {"a", "b", "c"};
    QueryPin pin;
    toggle_query_pin(pin, 1, tokens);
    EXPECT_EQ(pin.row, 1);
    toggle_query_pin(pin, 2, tokens);
    EXPECT_EQ(pin.row, 2);
    toggle_query_pin(pin, 2, tokens);
    EXPECT_FALSE(pin.valid());
    toggle_query_pin(pin, 7, tokens);
    EXPECT_FALSE(pin.valid());
}

TEST(QueryPin, ALessonStepShowsTheMapsWithNothingPinned)
{
    AppState state;
    load_lesson_library(state, default_lessons_dir());
    state.update();
    state.heads_panel.view = HeadsView::AllLayers;
    set_query_pin(state.heads_panel.query, 1, *state.query_tokens(false));
    enter_lesson(state, 0, 0);
    state.update();
    EXPECT_EQ(state.heads_panel.view, HeadsView::Maps);
    EXPECT_FALSE(state.heads_panel.query.valid());
}

// [SECTION] The layers x heads overview

TEST_F(HeadsPanelTest, OverviewShowsRowQOfEveryLayerAndHead)
{
    state->session.config.n_layers = 2;
    state->heads_panel.view = HeadsView::AllLayers;
    ui.frames(*state, 2, heads);
    set_query_pin(state->heads_panel.query, 3, *state->query_tokens(false)); // "in"
    const auto out = ui.frames(*state, 3, heads);
    ASSERT_EQ(state->heads_panel.view, HeadsView::AllLayers);
    const int T = 6;
    for (int l = 0; l < 2; ++l)
        for (int j = 0; j < 4; ++j)
        {
            SCOPED_TRACE("layer " + std::to_string(l) + " head " + std::to_string(j));
            const TextureHandle tex = texture_of(*state, weights_key(l, j));
            ASSERT_NE(tex, 0u);
            ASSERT_TRUE(out.texture_uvs.count(tex));
            // The strip is the weights map's texture cut to row 3: all keys, one row.
            const ImVec4 uv = out.texture_uvs.at(tex);
            EXPECT_FLOAT_EQ(uv.x, 0.0f);
            EXPECT_FLOAT_EQ(uv.z, 1.0f);
            EXPECT_NEAR(uv.y, 3.0f / T, 1e-6f);
            EXPECT_NEAR(uv.w, 4.0f / T, 1e-6f);
            // Layers down, heads across.
            const ImVec4 r = out.texture_rects.at(tex);
            if (j > 0)
            {
                EXPECT_GT(r.x, out.texture_rects.at(texture_of(*state, weights_key(l, j - 1))).z);
            }
            if (l > 0)
            {
                EXPECT_GT(r.y, out.texture_rects.at(texture_of(*state, weights_key(l - 1, j))).w);
            }
            // Under it, the key that row weighs most, with its weight.
            const TopKey top = top_key(weights_of(*state, l, j), 3);
            char text[64];
            std::snprintf(text, sizeof text, "%s %.2f",
                          state->trace().tokens.tokens[0][static_cast<std::size_t>(top.col)].c_str(),
                          static_cast<double>(top.weight));
            EXPECT_TRUE(contains(out.text, text)) << text << "\n" << out.text;
        }
    EXPECT_TRUE(contains(out.text, "layer 2")) << out.text;
    EXPECT_TRUE(contains(out.text, "row i = 3 (“in”)")) << out.text;
}

TEST_F(HeadsPanelTest, OverviewWithoutAQueryShowsWholeMapsAndAClickPinsOne)
{
    state->session.config.n_layers = 2;
    state->heads_panel.view = HeadsView::AllLayers;
    auto out = ui.frames(*state, 3, heads);
    const TextureHandle tex = texture_of(*state, weights_key(1, 2));
    ASSERT_TRUE(out.texture_uvs.count(tex));
    const ImVec4 uv = out.texture_uvs.at(tex);
    EXPECT_FLOAT_EQ(uv.y, 0.0f);
    EXPECT_FLOAT_EQ(uv.w, 1.0f);
    // A click on row 4 of layer 2 head 3 pins query 4 and selects that layer and head.
    const ImVec2 p = cell_point(out, weights_key(1, 2), 4, 2, 6, 6);
    ui.click(*state, p.x, p.y, heads);
    EXPECT_EQ(state->heads_panel.query.row, 4);
    EXPECT_EQ(state->sel.layer, 1);
    EXPECT_EQ(state->sel.head, 2);
    out = ui.frames(*state, 2, heads);
    EXPECT_NEAR(out.texture_uvs.at(tex).y, 4.0f / 6.0f, 1e-6f);
}

// A right click on a map of the layers x heads grid opens its export menu, as on every other map (it did
// nothing), naming that layer's and head's weights.
TEST_F(HeadsPanelTest, OverviewRightClickOpensTheMapsExportMenu)
{
    state->session.config.n_layers = 2;
    state->heads_panel.view = HeadsView::AllLayers;
    auto out = ui.frames(*state, 3, heads);
    const ImVec2 p = cell_point(out, weights_key(1, 2), 4, 2, 6, 6);
    out = ui.click(*state, p.x, p.y, heads, 1);
    out = ui.frames(*state, 2, heads);
    EXPECT_TRUE(contains(out.text, "attention weights, layer 2, head 3")) << out.text;
    EXPECT_TRUE(contains(out.text, "Export PNG…")) << out.text;
    EXPECT_TRUE(contains(out.text, "Export CSV…")) << out.text;
    EXPECT_FALSE(state->heads_panel.query.valid()) << "a right click pins nothing";
    // Its items (heatmap_export_menu_items, the other maps' menu) act on layer 2, head 3's weights.
    const MatrixRef& map = state->heads_panel.menu_map;
    EXPECT_EQ(map.stage, Stage::weights);
    EXPECT_EQ(map.layer, 1);
    EXPECT_EQ(map.head, 2);
    EXPECT_EQ(map.b, state->sel.b);
}

TEST_F(HeadsPanelTest, OverviewAtLargeTPoolsKeysIntoPixelsWithoutLosingTheLargestWeight)
{
    state->session.text = words(300);
    state->session.config.d_model = 64;
    state->session.config.n_heads = 8;
    state->session.config.n_layers = 2;
    state->heads_panel.view = HeadsView::AllLayers;
    ui.frames(*state, 2, heads);
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    set_query_pin(state->heads_panel.query, 150, *state->query_tokens(false));
    const auto out = ui.frames(*state, 2, heads);
    // Sixteen strips of 300 keys at about 170 px each: a rectangle per pixel column, not per key or widget.
    EXPECT_LT(out.vertices, 40000) << out.vertices;
    for (int l = 0; l < 2; ++l)
        for (int j = 0; j < 8; ++j)
        {
            // Each strip holds the colour of its row's largest weight (nearest sampling could skip it).
            const HeatmapEntry* e = state->heatmaps.find(weights_key(l, j));
            ASSERT_NE(e, nullptr);
            const TopKey top = top_key(weights_of(*state, l, j), 150);
            EXPECT_GT(out.shape_points.count(value_to_color(top.weight, e->scale)), 0u) << l << " " << j;
        }
    // Thinned key labels carry their index.
    EXPECT_TRUE(contains(out.text, "row i = 150")) << out.text;
}

// Texts on one line over each other, or closer than min_gap, within the band y0..y1 of the draw data: a glyph
// whose pen starts before the end of the previous glyph on the same baseline, or after more than a word space
// but within min_gap. The glyphs of one text follow each other exactly (or a space apart).
int crowded_texts(const ImDrawData* dd, float y0, float y1, float min_gap)
{
    const ImFont* font = ImGui::GetIO().Fonts->Fonts[0];
    std::map<std::pair<float, float>, const ImFontGlyph*> by_uv;
    for (const ImFontGlyph& g : font->Glyphs)
        if (g.Visible)
            by_uv[{g.U0, g.V0}] = &g;
    const float space = font->FindGlyph(' ')->AdvanceX;
    int crowded = 0;
    for (int l = 0; l < dd->CmdListsCount; ++l)
    {
        const ImDrawList* list = dd->CmdLists[l];
        float pen_end = -1e9f, last_y = -1e9f;
        for (int i = 0; i + 2 < list->VtxBuffer.Size; ++i)
        {
            const ImDrawVert& a = list->VtxBuffer[i];
            const auto it = by_uv.find({a.uv.x, a.uv.y});
            if (it == by_uv.end())
                continue;
            const ImFontGlyph& g = *it->second;
            const ImDrawVert& c = list->VtxBuffer[i + 2];
            if (c.uv.x != g.U1 || c.uv.y != g.V1)
                continue;
            const float pen = a.pos.x - g.X0;
            const float baseline = a.pos.y - g.Y0;
            i += 3;
            if (baseline < y0 || baseline > y1)
                continue;
            // A word space (one undrawn glyph) belongs to the text; more, or a step back, starts another.
            const float gap = pen - pen_end;
            const bool another_text = gap < -0.5f || gap > space * 1.5f;
            if (std::fabs(baseline - last_y) <= 2.0f && another_text && gap < min_gap)
                ++crowded;
            pen_end = pen + g.AdvanceX;
            last_y = baseline;
        }
    }
    return crowded;
}

// 12 layers of many heads in a narrow panel: the head chips above the columns take the short form, or every
// other head, rather than run into each other.
TEST(HeadsOverviewLabels, HeadChipsDoNotRunIntoEachOther)
{
    for (const int h : {8, 16, 32})
    {
        SCOPED_TRACE("h = " + std::to_string(h));
        HeadlessUi ui(720.0f, 900.0f);
        AppState state;
        state.session.text = words(40);
        state.session.config.d_model = 64;
        state.session.config.n_heads = h;
        state.session.config.n_layers = 12;
        state.heads_panel.view = HeadsView::AllLayers;
        const auto draw = panel_only(draw_heads_panel);
        const auto out = ui.frames(state, 3, draw);
        ASSERT_TRUE(state.status.is_ok()) << state.status.message();
        const TextureHandle first = texture_of(state, weights_key(0, 0));
        ASSERT_TRUE(out.texture_rects.count(first));
        const float maps_top = out.texture_rects.at(first).y;
        const float line = ImGui::GetTextLineHeightWithSpacing();
        // The chips' row: the line above the first layer's maps; a chip's padding apart at least.
        EXPECT_EQ(crowded_texts(ImGui::GetDrawData(), maps_top - 2.0f * line, maps_top,
                                ImGui::GetStyle().FramePadding.x * 2.0f),
                  0)
            << out.text;
        EXPECT_TRUE(contains(out.text, "1")) << out.text;
    }
}

// A new trace re-makes the overview's maps a few a frame: no frame re-makes them all at once at 12 layers x 8
// heads x T = 200, the maps not re-made yet keep their last picture, and a few frames later all are current.
TEST(HeadsOverviewFrames, ANewTraceRemakesItsMapsAFewAFrame)
{
    HeadlessUi ui(1600.0f, 1000.0f);
    AppState state;
    state.session.text = words(200);
    state.session.config.d_model = 64;
    state.session.config.n_heads = 8;
    state.session.config.n_layers = 12;
    state.heads_panel.view = HeadsView::AllLayers;
    const auto draw = panel_only(draw_heads_panel);
    const int maps = 12 * 8;
    std::uint64_t uploads = state.heatmaps.uploads();
    ui.frame(state, draw);
    ASSERT_TRUE(state.status.is_ok()) << state.status.message();
    EXPECT_GT(state.heatmaps.uploads() - uploads, 0u);
    EXPECT_LT(state.heatmaps.uploads() - uploads, static_cast<std::uint64_t>(maps));
    EXPECT_TRUE(state.maps_pending);
    auto all_current = [&]
    {
        for (int l = 0; l < 12; ++l)
            for (int j = 0; j < 8; ++j)
            {
                const HeatmapEntry* e = state.heatmaps.find(weights_key(l, j));
                if (e == nullptr || e->texture == 0 || e->version != state.trace_generation())
                    return false;
            }
        return true;
    };
    for (int i = 0; i < maps && !all_current(); ++i)
        ui.frame(state, draw);
    ASSERT_TRUE(all_current());
    ui.frame(state, draw);
    EXPECT_FALSE(state.maps_pending);

    // A new seed: again a few a frame, and every cell still shows a map (its last one until its turn).
    state.session.config.seed = 5;
    state.edit();
    uploads = state.heatmaps.uploads();
    const auto out = ui.frame(state, draw);
    EXPECT_GT(state.heatmaps.uploads() - uploads, 0u);
    EXPECT_LT(state.heatmaps.uploads() - uploads, static_cast<std::uint64_t>(maps));
    for (int l = 0; l < 12; ++l)
        for (int j = 0; j < 8; ++j)
            EXPECT_TRUE(out.textures.count(texture_of(state, weights_key(l, j)))) << l << " " << j;
    for (int i = 0; i < maps && !all_current(); ++i)
        ui.frame(state, draw);
    EXPECT_TRUE(all_current());
}

TEST_F(HeadsPanelTest, OneTokenAndAPaddedSentenceWorkInEveryView)
{
    state->session.text = "attention\nthe cat sat";
    state->session.target = "le";
    state->session.config.n_layers = 2;
    ui.frames(*state, 2, heads);
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    state->sel.b = 0; // "attention <pad> <pad>"
    for (const HeadsView view : {HeadsView::Maps, HeadsView::AllLayers, HeadsView::Cross})
    {
        state->heads_panel.view = view;
        ui.press_key(*state, keys::Up, false, false, heads); // pins the last token (a <pad>), then moves up
        const auto out = ui.frames(*state, 3, heads);
        EXPECT_EQ(state->heads_panel.view, view);
        EXPECT_FALSE(contains(out.text, "nan")) << out.text;
        EXPECT_FALSE(out.textures.empty());
    }
    EXPECT_EQ(state->heads_panel.query.row, 1); // 2 (a <pad>) in the maps, then 1 in the overview
    EXPECT_EQ(state->heads_panel.query.token, "<pad>");
    EXPECT_EQ(state->heads_panel.cross_query.row, 0); // the target has one token
}

// [SECTION] Cross-attention

TEST_F(HeadsPanelTest, CrossAttentionMapsHaveTheirOwnViewAndPin)
{
    state->session.target = "le chat";
    state->edit();
    ui.frames(*state, 2, heads);
    ASSERT_TRUE(state->trace().has_cross);
    state->heads_panel.view = HeadsView::Cross;
    auto out = ui.frames(*state, 3, heads);
    EXPECT_TRUE(contains(out.text, "Cross-attention")) << out.text;
    for (int j = 0; j < 4; ++j)
        EXPECT_TRUE(out.textures.count(texture_of(*state, "cross/b0/weights/h" + std::to_string(j)))) << j;
    // Clicking target row 1 pins the cross query, not the source one.
    const ImVec2 p = cell_point(out, "cross/b0/weights/h1", 1, 3, 2, 6);
    ui.click(*state, p.x, p.y, heads);
    EXPECT_EQ(state->heads_panel.cross_query.row, 1);
    EXPECT_EQ(state->heads_panel.cross_query.token, "chat");
    EXPECT_FALSE(state->heads_panel.query.valid());
    // Without a target the view falls back to the maps, and the cross pin goes.
    state->session.target.clear();
    state->edit();
    ui.frames(*state, 3, heads);
    EXPECT_EQ(state->heads_panel.view, HeadsView::Maps);
    EXPECT_FALSE(state->heads_panel.cross_query.valid());
}

// [SECTION] Head colours

TEST_F(HeadsPanelTest, HeadTextAndChipsReadWellInBothThemes)
{
    ui.frame(*state);
    for (const bool dark : {true, false})
    {
        apply_theme(dark, 1.0f);
        ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
        bg.w = 1.0f;
        const Color32 window = ImGui::ColorConvertFloat4ToU32(bg);
        for (int j = 0; j < 8; ++j)
        {
            SCOPED_TRACE(std::string(dark ? "dark" : "light") + " head " + std::to_string(j + 1));
            const Color32 text = ImGui::ColorConvertFloat4ToU32(head_text_color(j));
            EXPECT_GE(contrast_ratio(text, window), 4.5f);
            EXPECT_GE(contrast_ratio(chip_text_color(head_color(j)), head_color(j)), 4.5f);
        }
    }
    // Blue (head 5) on the dark theme's panel was 3.3 before; it is lightened, not replaced.
    apply_theme(true, 1.0f);
    const ImVec4 blue = head_text_color(4);
    EXPECT_GT(blue.z, blue.x);
    EXPECT_GT(blue.z, blue.y);
}

} // namespace
} // namespace attnlab
