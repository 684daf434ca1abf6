// The weight matrices in the Pipeline (X · W_h^Q = Q_h, Concat · W^O, the FFN's W_1 and W_2, the packed W^Q),
// their hover in the Inspector, the "show weights" switch, and the two-step comparison's difference map.
#include "core/io/lesson_file.h"
#include "ui/model/lessons.h"
#include "ui/model/prefs.h"
#include "ui/panels/panels.h"
#include "ui/panels/pipeline_products.h"
#include "ui/picture/heatmap_math.h"
#include "ui/picture/step_maps.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <regex>
#include <string>
#include <vector>

namespace attnlab
{
namespace
{

using test::contains;
using test::HeadlessUi;
using test::panel_only;

// Only `stage` unfolded in the Pipeline.
void open_only(AppState& state, Stage stage)
{
    state.stage_collapsed.fill(true);
    state.stage_collapsed[static_cast<std::size_t>(stage)] = false;
}

const Mat& shown(const AppState& state, const MatrixRef& ref)
{
    const MatrixView view = resolve_matrix(state, ref);
    EXPECT_NE(view.m, nullptr);
    static const Mat empty;
    return view.m != nullptr ? *view.m : empty;
}

class PipelineWeightsTest : public ::testing::Test
{
protected:
    HeadlessUi ui;
    std::unique_ptr<AppState> state = std::make_unique<AppState>();
};

// [SECTION] The products with their weights

TEST_F(PipelineWeightsTest, QueriesAreDrawnAsXTimesTheHeadsWeightMatrix)
{
    state->sel.head = 2;
    open_only(*state, Stage::Q);
    const auto out = ui.frames(*state, 3, panel_only(draw_pipeline_panel));
    ASSERT_TRUE(state->has_trace());
    const MatrixRef q = selected_stage(*state, Stage::Q, 2);
    const std::vector<ProductTerm> terms = product_terms(*state, q);
    ASSERT_EQ(terms.size(), 5u);
    // X · W_3^Q = Q_3, in that order.
    std::string reading;
    for (const ProductTerm& t : terms)
        reading += t.symbol + " ";
    EXPECT_EQ(reading, "X · W_3^Q = Q_3 ");
    const MatrixRef& w = terms[2].ref;
    EXPECT_EQ(w.source, MatrixSource::Weight);
    EXPECT_EQ(w.weight, WeightMatrix::W_Q);
    // The drawn W_3^Q is the engine's, with its shape, and X · W_3^Q of the drawn matrices is the drawn Q_3.
    const Mat& W = shown(*state, w);
    EXPECT_TRUE(W.isApprox(state->engine.weights().layers[0].attn.W_Q[2]));
    EXPECT_EQ(&W, &state->engine.weights().layers[0].attn.W_Q[2]);
    EXPECT_EQ(resolve_matrix(*state, w).shape, "d_model×d_k = 16×4");
    const Mat product = shown(*state, terms[0].ref) * W;
    EXPECT_LT((product - shown(*state, terms[4].ref)).cwiseAbs().maxCoeff(), 1e-5f);
    // On screen: all three maps, the weight named with its shape.
    for (const ProductTerm& t : terms)
        if (t.is_matrix)
        {
            const HeatmapEntry* e = state->heatmaps.find(resolve_matrix(*state, t.ref).key);
            ASSERT_NE(e, nullptr) << t.symbol;
            EXPECT_TRUE(out.textures.count(e->texture)) << t.symbol;
        }
    EXPECT_TRUE(contains(out.text, "W_3^Q")) << out.text;
    EXPECT_TRUE(contains(out.text, "d_model×d_k = 16×4")) << out.text;
}

TEST_F(PipelineWeightsTest, EveryWeightMatrixHasItsShapeAndTheEnginesNumbers)
{
    state->session.config.d_ff = 24; // d_ff apart from d_model's multiples: W_1 and W_2 cannot be swapped
    state->edit();
    ui.frames(*state, 2, panel_only(draw_pipeline_panel));
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    const LayerWeights& lw = state->engine.weights().layers[0];
    struct Expect
    {
        WeightMatrix w;
        const Mat* m;
        const char* shape;
    };
    for (const Expect& e : {Expect{WeightMatrix::W_K, &lw.attn.W_K[1], "d_model×d_k = 16×4"},
                            Expect{WeightMatrix::W_V, &lw.attn.W_V[1], "d_model×d_v = 16×4"},
                            Expect{WeightMatrix::W_O, &lw.attn.W_O, "h·d_v×d_model = 16×16"},
                            Expect{WeightMatrix::W_1, &lw.W_1, "d_model×d_ff = 16×24"},
                            Expect{WeightMatrix::W_2, &lw.W_2, "d_ff×d_model = 24×16"}})
    {
        const MatrixView view = resolve_matrix(*state, selected_weight(*state, e.w, 1));
        ASSERT_NE(view.m, nullptr);
        EXPECT_EQ(view.m, e.m);
        EXPECT_EQ(view.shape, e.shape);
    }
    // The other products read from the drawn matrices: Concat · W^O = MultiHead, and the FFN.
    const LayerTrace& layer = state->trace().layers[0];
    const std::vector<ProductTerm> mha = product_terms(*state, selected_stage(*state, Stage::mha, 0));
    ASSERT_EQ(mha.size(), 5u);
    EXPECT_EQ(mha[2].ref.weight, WeightMatrix::W_O);
    EXPECT_LT(
        (shown(*state, mha[0].ref) * shown(*state, mha[2].ref) - layer.attn.mha[0]).cwiseAbs().maxCoeff(),
        1e-5f);
    const std::vector<ProductTerm> ffn = product_terms(*state, selected_stage(*state, Stage::ffn, 0));
    ASSERT_EQ(ffn.size(), 7u);
    EXPECT_EQ(ffn[2].ref.weight, WeightMatrix::W_1);
    EXPECT_EQ(ffn[4].ref.weight, WeightMatrix::W_2);
    Mat hidden = shown(*state, ffn[0].ref) * shown(*state, ffn[2].ref);
    hidden.rowwise() += lw.b_1;
    hidden = hidden.cwiseMax(0.0f);
    Mat out = hidden * shown(*state, ffn[4].ref);
    out.rowwise() += lw.b_2;
    EXPECT_LT((out - layer.ffn[0]).cwiseAbs().maxCoeff(), 1e-5f);
    // The stages that are no product of a weight matrix have no row.
    for (const Stage s : {Stage::X, Stage::scores, Stage::weights, Stage::concat, Stage::norm1})
        EXPECT_TRUE(product_terms(*state, selected_stage(*state, s, 0)).empty()) << stage_info(s).key;
}

TEST_F(PipelineWeightsTest, PackedWQIsTheHeadsSideBySideWithTheSelectedBlockFramed)
{
    state->sel.head = 1;
    open_only(*state, Stage::Q);
    const auto out = ui.frames(*state, 3, panel_only(draw_pipeline_panel));
    const MatrixRef ref = selected_weight(*state, WeightMatrix::W_Q_packed, 1);
    const MatrixView view = resolve_matrix(*state, ref);
    ASSERT_NE(view.m, nullptr);
    const int h = state->heads(), d_k = state->trace().d_k;
    EXPECT_EQ(view.m->rows(), 16);
    EXPECT_EQ(view.m->cols(), h * d_k);
    EXPECT_EQ(view.column_blocks, d_k);
    EXPECT_EQ(view.shape, "d_model×h·d_k = 16×16");
    for (int j = 0; j < h; ++j)
    {
        EXPECT_EQ(view.m->middleCols(j * d_k, d_k),
                  shown(*state, selected_weight(*state, WeightMatrix::W_Q, j)))
            << "block " << j;
    }
    const HeatmapEntry* e = state->heatmaps.find(view.key);
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(out.textures.count(e->texture));
    // The selected head's block is framed in its colour.
    EXPECT_TRUE(out.shape_points.count(head_color(1))) << "no frame in head 2's colour";
}

// [SECTION] Folding the weights away, and what they cost

TEST_F(PipelineWeightsTest, ShowWeightsSwitchFoldsThemAwayAndIsSaved)
{
    open_only(*state, Stage::Q);
    ui.frames(*state, 2, panel_only(draw_pipeline_panel));
    EXPECT_NE(state->heatmaps.find("W/L0/W_Q/h0"), nullptr);
    state->prefs.pipeline_weights = false;
    state->heatmaps.end_frame(0); // forget last frame's textures
    const auto out = ui.frames(*state, 2, panel_only(draw_pipeline_panel));
    EXPECT_EQ(state->heatmaps.find("W/L0/W_Q/h0"), nullptr);
    EXPECT_FALSE(contains(out.text, "W_1^Q")) << out.text;
    EXPECT_TRUE(contains(out.text, "show weights")) << out.text;
    // Saved with the preferences, on by default.
    EXPECT_TRUE(ViewPrefs{}.pipeline_weights);
    ViewPrefs back;
    prefs_from_text(prefs_to_text(state->prefs), back);
    EXPECT_FALSE(back.pipeline_weights);
}

TEST_F(PipelineWeightsTest, TypingDoesNotUploadTheWeightsAgain)
{
    open_only(*state, Stage::Q);
    ui.frames(*state, 3, panel_only(draw_pipeline_panel));
    const HeatmapEntry* w = state->heatmaps.find("W/L0/W_Q/h0");
    ASSERT_NE(w, nullptr);
    const unsigned long long version = w->version;
    state->session.text = "Jane visits Africa in May";
    state->edit();
    ui.frames(*state, 2, panel_only(draw_pipeline_panel));
    EXPECT_EQ(state->heatmaps.find("W/L0/W_Q/h0")->version, version);
    state->session.config.seed = 7; // other weights: drawn again
    state->edit();
    ui.frames(*state, 2, panel_only(draw_pipeline_panel));
    EXPECT_NE(state->heatmaps.find("W/L0/W_Q/h0")->version, version);
}

TEST_F(PipelineWeightsTest, LargeDModelKeepsTheWeightsBounded)
{
    state->session.config.d_model = 1024;
    state->edit();
    open_only(*state, Stage::Q);
    const auto out = ui.frames(*state, 3, panel_only(draw_pipeline_panel));
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    const HeatmapEntry* w = state->heatmaps.find("W/L0/W_Q/h0");
    ASSERT_NE(w, nullptr);
    ASSERT_TRUE(out.texture_rects.count(w->texture));
    const ImVec4 r = out.texture_rects.at(w->texture);
    EXPECT_LE(r.w - r.y, ImGui::GetFontSize() * 20.0f + 0.5f)
        << "W_1^Q's 1024 rows are drawn in a bounded height";
    EXPECT_GT(r.w - r.y, ImGui::GetFontSize() * 4.0f);
}

// The FFN's row has four maps: in a narrow panel it goes on over more lines, every map inside the panel.
TEST_F(PipelineWeightsTest, ARowTooWideForThePanelWrapsInsteadOfLeavingIt)
{
    for (const float width : {1600.0f, 700.0f})
    {
        ui.resize(width, 1000.0f);
        open_only(*state, Stage::ffn);
        const auto out = ui.frames(*state, 3, panel_only(draw_pipeline_panel));
        const std::vector<ProductTerm> terms = product_terms(*state, selected_stage(*state, Stage::ffn, 0));
        ASSERT_EQ(terms.size(), 7u);
        // The input is drawn as its own stage above (the FFN's row names it): the weights and the product.
        for (const ProductTerm& t : terms)
            if (t.is_matrix && t.ref.stage != Stage::norm1)
            {
                const HeatmapEntry* e = state->heatmaps.find(resolve_matrix(*state, t.ref).key);
                ASSERT_NE(e, nullptr) << t.symbol << " at width " << width;
                ASSERT_TRUE(out.texture_rects.count(e->texture)) << t.symbol << " at width " << width;
                const ImVec4 r = out.texture_rects.at(e->texture);
                EXPECT_GE(r.x, 0.0f) << t.symbol;
                EXPECT_LE(r.z, width) << t.symbol << " at width " << width;
            }
    }
}

// The tour's step 2 in a Pipeline as narrow as it is at 1280x720 beside the lesson: X · W_1^Q = Q_1 on one
// line, with W_1^Q's 4 columns and Q_1's 4 columns the same width. Q_1's thinned token labels ("i=4
// September") used to take their room from its image, leaving an 18-pixel sliver beside a 45-pixel W_1^Q.
TEST_F(PipelineWeightsTest, ANarrowLessonRowKeepsTheProductAsWideAsItsWeights)
{
    load_lesson_library(*state, default_lessons_dir());
    enter_lesson(*state, test::lesson_index(*state, "tour"), 1);
    for (const float width : {450.0f, 470.0f, 490.0f})
    {
        ui.resize(width, 575.0f);
        const auto out = ui.frames(*state, 4, panel_only(draw_pipeline_panel));
        const std::vector<ProductTerm> terms = product_terms(*state, selected_stage(*state, Stage::Q, 0));
        ASSERT_EQ(terms.size(), 5u);
        float w_width = 0.0f, q_width = 0.0f;
        for (const ProductTerm& t : {terms[2], terms[4]})
        {
            const HeatmapEntry* e = state->heatmaps.find(resolve_matrix(*state, t.ref).key);
            ASSERT_NE(e, nullptr) << t.symbol << " at width " << width;
            ASSERT_TRUE(out.texture_rects.count(e->texture)) << t.symbol << " is drawn at width " << width;
            const ImVec4 r = out.texture_rects.at(e->texture);
            (t.ref.source == MatrixSource::Weight ? w_width : q_width) = r.z - r.x;
            EXPECT_LE(r.z, width) << t.symbol;
        }
        EXPECT_GE(q_width, 2.0f * ImGui::GetFontSize()) << "Q_1 is a readable map at width " << width;
        EXPECT_NEAR(q_width, w_width, 1.5f) << "the same 4 columns at the same cell size, width " << width;
    }
}

// Where the top left of each "→" drawn last frame is (the operator "→ ReLU ·" between W_1 and W_2).
std::vector<ImVec2> arrow_positions()
{
    std::vector<ImVec2> out;
    const ImFontGlyph* g = ImGui::GetIO().Fonts->Fonts[0]->FindGlyphNoFallback(0x2192);
    const ImDrawData* dd = ImGui::GetDrawData();
    if (g == nullptr || dd == nullptr)
        return out;
    for (int l = 0; l < dd->CmdListsCount; ++l)
        for (const ImDrawVert& v : dd->CmdLists[l]->VtxBuffer)
            if (v.uv.x == g->U0 && v.uv.y == g->V0)
                out.push_back(v.pos);
    return out;
}

// When W_2 goes on a line of its own, "→ ReLU ·" is a line above it, not drawn level with W_2's middle
// over its row labels.
TEST_F(PipelineWeightsTest, AnOperatorAloneOnItsLineDoesNotOverlapTheNextMap)
{
    ASSERT_NE(ImGui::GetIO().Fonts->Fonts[0]->FindGlyphNoFallback(0x2192), nullptr);
    // Wide enough that W_2 (d_ff x d_model) at a few pixels a cell fills a line (GPT-2's at 1280 x 720).
    state->session.config.d_model = 256;
    state->edit();
    int above = 0;
    for (float width = 300.0f; width <= 1600.0f; width += 25.0f)
    {
        ui.resize(width, 3000.0f);
        open_only(*state, Stage::ffn);
        const auto out = ui.frames(*state, 3, panel_only(draw_pipeline_panel));
        MatrixRef w2 = selected_stage(*state, Stage::ffn, 0);
        w2.source = MatrixSource::Weight;
        w2.stage = Stage::X;
        w2.weight = WeightMatrix::W_2;
        const HeatmapEntry* e = state->heatmaps.find(resolve_matrix(*state, w2).key);
        ASSERT_NE(e, nullptr) << "at width " << width;
        ASSERT_TRUE(out.texture_rects.count(e->texture));
        const ImVec4 r = out.texture_rects.at(e->texture);
        const float op_w = ImGui::CalcTextSize("→ ReLU ·").x;
        for (const ImVec2& a : arrow_positions())
        {
            // Beside W_2 on its line, the operator ends before W_2's map starts; when W_2's map starts
            // before that, W_2 is on a line of its own and the operator must be above it, not over it.
            if (r.x >= a.x + op_w)
                continue;
            EXPECT_LE(a.y + ImGui::GetFontSize(), r.y)
                << "an arrow at the left of W_2, level with its map, at width " << width;
            ++above;
        }
    }
    EXPECT_GT(above, 0) << "some width puts the operator on a line before W_2";
}

// [SECTION] Hover: the Inspector names the weight

TEST_F(PipelineWeightsTest, HoveringAWeightCellNamesItInTheInspector)
{
    open_only(*state, Stage::Q);
    auto out = ui.frames(*state, 3);
    const HeatmapEntry* e = state->heatmaps.find("W/L0/W_Q/h0");
    ASSERT_NE(e, nullptr);
    ASSERT_TRUE(out.texture_rects.count(e->texture));
    const ImVec4 r = out.texture_rects.at(e->texture);
    const float cw = (r.z - r.x) / 4.0f, ch = (r.w - r.y) / 16.0f;
    ui.mouse(r.x + cw * 2.5f, r.y + ch * 5.5f); // row 5, column 2
    out = ui.frames(*state, 2);
    ASSERT_TRUE(state->hovered.valid);
    EXPECT_EQ(state->hovered.matrix.source, MatrixSource::Weight);
    EXPECT_EQ(state->hovered.matrix.weight, WeightMatrix::W_Q);
    EXPECT_EQ(state->hovered.row, 5);
    EXPECT_EQ(state->hovered.col, 2);
    const float value = state->engine.weights().layers[0].attn.W_Q[0](5, 2);
    for (const std::string& text :
         {std::string("W_1^Q[m, c] = W_1^Q[5, 2]"), "value = " + format_value_long(value),
          std::string("column 2 of W_1^Q makes column 2 of Q_1"), std::string("seeded random weights")})
        EXPECT_TRUE(contains(out.text, text)) << text << "\n" << out.text;
}

TEST_F(PipelineWeightsTest, AQueryCellNamesTheColumnOfWhqItUsesAndTheConvention)
{
    ui.frames(*state, 2);
    state->pinned.valid = true;
    state->pinned.matrix = selected_stage(*state, Stage::Q, 1);
    state->pinned.row = 3;
    state->pinned.col = 2;
    const auto out = ui.frames(*state, 2, panel_only(draw_inspector_panel));
    for (const char* text : {"It uses column c = 2 of W_2^Q (layer 1, head 2)", "q_i = (W_2^Q)ᵀ x_i",
                             "(T×d_model)(d_model×d_k)"})
        EXPECT_TRUE(contains(out.text, text)) << text << "\n" << out.text;
}

// [SECTION] The two-step comparison: both products and their difference

TEST_F(PipelineWeightsTest, TwoStepShowsBothProductsAndTheirDifference)
{
    const auto out = ui.frames(*state, 3, panel_only(draw_comparisons_panel));
    const Comparisons& c = state->comparisons;
    const std::vector<MatrixRef> maps = comparison_maps(*state, ComparisonSection::TwoStep);
    ASSERT_EQ(maps.size(), 3u);
    const Mat& two = shown(*state, maps[0]);
    const Mat& one = shown(*state, maps[1]);
    const Mat& diff = shown(*state, maps[2]);
    EXPECT_EQ(diff, Mat(two - one));
    EXPECT_EQ(diff.cwiseAbs().maxCoeff(), c.two_step_max_diff);
    for (const MatrixRef& ref : maps)
    {
        const HeatmapEntry* e = state->heatmaps.find(resolve_matrix(*state, ref).key);
        ASSERT_NE(e, nullptr);
        EXPECT_TRUE(out.textures.count(e->texture));
    }
    // Its own colour scale: the differences' range, not the products'.
    const HeatmapEntry* d = state->heatmaps.find(resolve_matrix(*state, maps[2]).key);
    EXPECT_LE(d->scale.hi, 10.0f * c.two_step_max_diff + 1e-12f);
    EXPECT_TRUE(contains(out.text, "largest |difference| = " + format_value(c.two_step_max_diff)))
        << out.text;
    EXPECT_TRUE(contains(out.text, "not the model's Q_1 = X W_1^Q")) << out.text;
}

// The typo lesson's step 3 quotes numbers: they are the comparison's two-step Q and the Pipeline's Q_h.
TEST(TypoLesson, StepThreeQuotesTheNumbersTheAppShows)
{
    AppState state;
    load_lesson_library(state, default_lessons_dir());
    const Lesson* lesson = find_lesson(state.lesson.library, "typo");
    ASSERT_NE(lesson, nullptr);
    ASSERT_GE(lesson->steps.size(), 3u);
    const LessonStep& step = lesson->steps[2];
    EXPECT_EQ(step.comparison, ComparisonSection::TwoStep);
    enter_lesson(state, static_cast<int>(lesson - state.lesson.library.lessons.data()), 2);
    state.update();
    state.ensure_comparisons();
    const Comparisons& c = state.comparisons;
    const Mat& Q_h = state.trace().layers[0].attn.head(0, state.sel.head).Q;
    // "(a, b, c, d)" groups of four numbers, in the order the text gives them: the two-step row, then Q_h's.
    const std::regex group("\\(([-−0-9.]+), ([-−0-9.]+), ([-−0-9.]+), ([-−0-9.]+)\\)");
    std::vector<std::vector<std::string>> quoted;
    for (std::sregex_iterator it(step.text.begin(), step.text.end(), group), end; it != end; ++it)
        quoted.push_back({(*it)[1], (*it)[2], (*it)[3], (*it)[4]});
    ASSERT_EQ(quoted.size(), 2u) << step.text;
    auto two_decimals = [](float v)
    {
        char s[32];
        std::snprintf(s, sizeof s, "%.2f", static_cast<double>(v));
        std::string out = s;
        if (out[0] == '-')
            out = "−" + out.substr(1); // the lesson writes a real minus sign
        return out;
    };
    for (int k = 0; k < 4; ++k)
    {
        EXPECT_EQ(quoted[0][static_cast<std::size_t>(k)], two_decimals(c.Q_two_step(0, k)))
            << "two-step " << k;
        EXPECT_EQ(quoted[1][static_cast<std::size_t>(k)], two_decimals(Q_h(0, k))) << "Q_h " << k;
    }
    // And the claim that the two are different products, with the difference at rounding size.
    EXPECT_GT((c.Q_two_step - Q_h).cwiseAbs().maxCoeff(), 0.1f);
    EXPECT_LT(c.two_step_max_diff, 1e-5f);
}

} // namespace
} // namespace attnlab
