// Export: the heatmap PNG (read back with stb_image: masked cells hatched, one number format, titles and
// axis titles), file names, CSV text, unwritable paths, lesson slides (caption, theme, no window hints), the
// window's picture taken without its dialog, and the prefs file.
#include "ui/model/app_state.h"
#include "ui/model/lessons.h"
#include "ui/model/prefs.h"
#include "ui/picture/export.h"
#include "ui/picture/font_file.h"
#include "ui/picture/heatmap_math.h"
#include "ui/picture/slides.h"
#include "ui/shell/app_ui.h"
#include "ui_test_support.h"

#include <stb_image.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <utility>

namespace attnlab
{
namespace
{

std::filesystem::path temp_dir()
{
    const auto dir =
        std::filesystem::temp_directory_path() /
        ("attnlab_ui_export_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir);
    return dir;
}

std::string read_text(const std::filesystem::path& p)
{
    std::ifstream f(p);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

class ExportTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        state->session.config.mask = MaskKind::Causal;
        ASSERT_TRUE(state->update());
        ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    }
    MatrixRef ref(Stage stage) const
    {
        MatrixRef r;
        r.stage = stage;
        r.head = 1;
        return r;
    }
    std::unique_ptr<AppState> state = std::make_unique<AppState>();
};

TEST_F(ExportTest, HeatmapPngHasTheMatrixColoursTitleAndColourBar)
{
    const auto dir = temp_dir();
    const MatrixView view = resolve_matrix(*state, ref(Stage::masked));
    const std::string path = (dir / "masked.png").string();
    ASSERT_TRUE(export_heatmap_png(view, path, 40).is_ok());
    int w = 0, h = 0, n = 0;
    unsigned char* px = stbi_load(path.c_str(), &w, &h, &n, 4);
    ASSERT_NE(px, nullptr);
    EXPECT_GE(w, 6 * 40);
    EXPECT_GE(h, 6 * 40);
    int neg_inf = 0, ink = 0, blue = 0, red = 0;
    for (int i = 0; i < w * h; ++i)
    {
        const unsigned char* p = px + 4 * i;
        const Color32 c = pack_rgba(p[0], p[1], p[2]);
        neg_inf += c == kNegInfColor;
        ink += p[0] < 60 && p[1] < 60 && p[2] < 60;
        blue += p[2] > p[0] + 60;
        red += p[0] > p[2] + 60;
    }
    stbi_image_free(px);
    EXPECT_GT(neg_inf, 40 * 40 * 5);    // causal mask: 15 cells above the diagonal (minus their stripes)
    EXPECT_GT(blue + red, 40 * 40 * 6); // diverging colours of the finite cells and the colour bar
    if (!find_font_file().empty())
    {
        EXPECT_GT(ink, 200); // title, labels and numbers
    }
}

// [SECTION] Slide-ready heatmaps

// The first pixel (row by row) of exactly this colour, or (-1, -1).
std::pair<int, int> first_pixel(const Image& img, Color32 c)
{
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            if (img.at(x, y) == c)
                return {x, y};
    return {-1, -1};
}

TEST_F(ExportTest, MaskedWeightsAreHatchedNotAZeroCell)
{
    // Causal mask: query 0 sees only key 0 (weight exactly 1), keys 1.. are masked (weight 0).
    const MatrixView view = resolve_matrix(*state, ref(Stage::weights));
    ASSERT_NE(view.m, nullptr);
    ASSERT_EQ((*view.m)(0, 0), 1.0f);
    const int cell = 40;
    const Image img = render_heatmap_image(view, cell);
    const ColorScale scale = choose_scale(value_range(view.m->data(), view.m->size()), true);
    // Cell (0, 0) is the first pixel of the top colour (the colour bar's top is to its right).
    const auto [x0, y0] = first_pixel(img, value_to_color(1.0f, scale));
    ASSERT_GE(x0, 0);
    const Color32 zero = value_to_color(0.0f, scale);
    for (int c = 1; c < 6; ++c)
    {
        SCOPED_TRACE("cell (0, " + std::to_string(c) + ")");
        int stripe = 0, base = 0, other = 0;
        for (int y = y0 + 1; y < y0 + cell - 1; ++y)
            for (int x = x0 + c * cell + 1; x < x0 + (c + 1) * cell - 1; ++x)
            {
                const Color32 p = img.at(x, y);
                stripe += p == kNegInfStripe;
                base += p == kNegInfColor;
                other += p != kNegInfStripe && p != kNegInfColor;
                EXPECT_NE(p, zero);
            }
        // The window's hatching (both colours, stripes a quarter or less) and nothing else: no "0" in it.
        EXPECT_GT(stripe, cell * 4);
        EXPECT_GT(base, stripe);
        EXPECT_EQ(other, 0);
    }
    // An allowed cell keeps its colour: (1, 0) is a real weight.
    EXPECT_EQ(img.at(x0 + cell / 8, y0 + cell + cell / 8), value_to_color((*view.m)(1, 0), scale));
}

// Every number a picture writes (cells and colour bar): the texts made only of digits, signs, points and
// exponents.
std::vector<std::string> numbers_drawn(const HeatmapPicture& p, int cell_px)
{
    TextRasterizer text;
    text.load_default();
    std::vector<std::string> drawn;
    text.record(&drawn);
    Image img;
    img.reset(2000, 2000, 0);
    draw_heatmap_picture(img, 0, 0, p, text, PictureFonts{}, picture_palette(false), cell_px);
    std::vector<std::string> numbers;
    for (const std::string& s : drawn)
        if (s.find_first_not_of("-+.0123456789e") == std::string::npos)
            numbers.push_back(s);
    return numbers;
}

TEST(ExportNumbers, OnePictureHasOneNumberFormat)
{
    if (find_font_file().empty())
        GTEST_SKIP() << "no font: the picture has no text";
    const std::vector<std::string> tokens = {"a", "b", "c"};
    Mat tiny(3, 3), mixed(3, 3);
    // What one exported map used to show as "9.0e-10", "1.4e-05", "0.00" and "0".
    tiny << 9e-10f, 1.4e-5f, 0.0f, -3e-4f, 0.0042f, 2e-7f, 0.0f, 1e-6f, -0.0f;
    mixed << 9e-10f, 1.4e-5f, 0.0f, 0.5f, 0.25f, -0.0f, 12.5f, 3.0f, 0.001f;
    for (const Mat* m : {&tiny, &mixed})
    {
        MatrixView view;
        view.m = m;
        view.row_tokens = &tokens;
        view.col_tokens = &tokens;
        const std::vector<std::string> numbers = numbers_drawn(heatmap_picture(view), 80);
        ASSERT_GE(numbers.size(), 9u + 3u); // every cell, and the colour bar
        const std::regex scientific(R"(-?\d\.\de[+-]\d\d)"), one_decimal(R"(-?\d+\.\d)");
        const std::regex& expected = m == &tiny ? scientific : one_decimal; // largest 0.0042; 12.5
        for (const std::string& s : numbers)
            EXPECT_TRUE(std::regex_match(s, expected)) << "\"" << s << "\" in a picture of the other format";
    }
}

TEST(ExportNumbers, FormatFollowsTheLargestMagnitude)
{
    EXPECT_EQ(format_number(0.0f, choose_number_format(0.0f)), "0.00");
    EXPECT_EQ(format_number(-0.0f, choose_number_format(1.0f)), "0.00");
    EXPECT_EQ(format_number(-0.001f, choose_number_format(1.0f)), "0.00");
    EXPECT_EQ(format_number(0.25f, choose_number_format(1.0f)), "0.25");
    EXPECT_EQ(format_number(3.14159f, choose_number_format(12.0f)), "3.1");
    EXPECT_EQ(format_number(42.4f, choose_number_format(310.0f)), "42");
    EXPECT_EQ(format_number(0.0f, choose_number_format(0.004f)), "0.0e+00");
    EXPECT_EQ(format_number(1.4e-5f, choose_number_format(0.004f)), "1.4e-05");
    EXPECT_EQ(format_number(-1.0f / 0.0f, choose_number_format(1.0f)), "−∞");
    const float values[] = {0.5f, -7.0f, 3.0f};
    const float mask[] = {0.0f, -1.0f / 0.0f, 0.0f};
    EXPECT_EQ(shown_max_abs(values, 3, mask), 3.0f); // the masked −7 shows no number
}

TEST_F(ExportTest, TitleSaysWhatAndWhereAxesSayQueryAndKey)
{
    const HeatmapPicture w = heatmap_picture(*state, ref(Stage::weights));
    EXPECT_EQ(w.title, "Attention weights A_2 · layer 1 · sentence 1 · causal mask · τ = 1");
    EXPECT_EQ(w.row_axis, "query");
    EXPECT_EQ(w.col_axis, "key");
    const HeatmapPicture q = heatmap_picture(*state, ref(Stage::Q));
    EXPECT_EQ(q.title, "Queries Q_2 · layer 1 · sentence 1"); // no mask or τ before they apply
    EXPECT_EQ(q.row_axis, "position");
    EXPECT_EQ(q.col_axis, "feature (d_k)");
    EXPECT_EQ(heatmap_picture(*state, ref(Stage::scores)).title, "Scores · head 2 · layer 1 · sentence 1");
    EXPECT_EQ(heatmap_picture(*state, ref(Stage::X)).col_axis, "feature (d_model)");
    state->session.config.temperature = 0.5f;
    state->session.config.mask = MaskKind::None;
    state->edit();
    state->update();
    EXPECT_EQ(heatmap_picture(*state, ref(Stage::masked)).title,
              "Masked scores · head 2 · layer 1 · sentence 1 · no mask");
    EXPECT_EQ(heatmap_picture(*state, ref(Stage::head_out)).title,
              "Head output head_2 · layer 1 · sentence 1 · no mask · τ = 0.5");
    // The picture writes them: title, axis titles.
    if (!find_font_file().empty())
    {
        TextRasterizer text;
        text.load_default();
        std::vector<std::string> drawn;
        text.record(&drawn);
        Image img;
        img.reset(1500, 1500, 0);
        draw_heatmap_picture(img, 0, 0, w, text, PictureFonts{}, picture_palette(false), 40);
        for (const char* s :
             {"query", "key", "Attention weights A_2 · layer 1 · sentence 1 · causal mask · τ = 1"})
            EXPECT_NE(std::find(drawn.begin(), drawn.end(), s), drawn.end()) << s;
    }
}

TEST(ExportNames, FileNamesCountLayersSentencesAndHeadsFromOne)
{
    MatrixRef r;
    r.stage = Stage::weights;
    r.layer = 0;
    r.b = 0;
    r.head = 1;
    EXPECT_EQ(matrix_file_stem(r), "attnlab-weights-layer1-sentence1-head2");
    r.stage = Stage::mha;
    r.layer = 1;
    r.b = 2;
    EXPECT_EQ(default_export_path(r, ExportFormat::Csv), "attnlab-mha-layer2-sentence3.csv");
    r.source = MatrixSource::Cross;
    r.stage = Stage::scores;
    EXPECT_EQ(matrix_file_stem(r), "attnlab-scores-cross-sentence3-head2");
    r.source = MatrixSource::Comparison;
    r.comparison = ComparisonMatrix::single_weights;
    EXPECT_EQ(matrix_file_stem(r), "attnlab-single_weights-layer2-sentence3-head2");
}

TEST_F(ExportTest, PngWithoutFontStillHasCells)
{
    const MatrixView view = resolve_matrix(*state, ref(Stage::weights));
    std::string note;
    const Image img = render_heatmap_image(view, 10, &note);
    EXPECT_GT(img.width, 60);
    EXPECT_GT(img.height, 60);
    EXPECT_EQ(img.pixels.size(), static_cast<std::size_t>(img.width) * img.height);
}

TEST_F(ExportTest, CsvHasTokensAndValues)
{
    const auto dir = temp_dir();
    const MatrixView view = resolve_matrix(*state, ref(Stage::masked));
    const auto path = dir / "masked.csv";
    ASSERT_TRUE(export_matrix_csv(view, path.string()).is_ok());
    const std::string text = read_text(path);
    EXPECT_EQ(text.rfind("row,Jane,visits,Africa,in,September,.\n", 0), 0u) << text;
    EXPECT_NE(text.find("\nJane,"), std::string::npos);
    EXPECT_NE(text.find(",-inf"), std::string::npos); // causal mask
    int lines = 0;
    for (char c : text)
        lines += c == '\n';
    EXPECT_EQ(lines, 7);
}

TEST_F(ExportTest, UnwritablePathIsAMessageAndLeavesNothing)
{
    state->export_dialog.matrix = ref(Stage::weights);
    state->export_dialog.format = ExportFormat::Png;
    state->export_dialog.path = "/nonexistent-dir/attnlab/x.png";
    state->export_dialog.scale = 10;
    run_export_dialog(*state);
    EXPECT_TRUE(state->message_is_error);
    EXPECT_NE(state->message.find("/nonexistent-dir/attnlab/x.png"), std::string::npos) << state->message;
    EXPECT_FALSE(std::filesystem::exists("/nonexistent-dir"));
    // The app state is untouched: the next export works.
    const auto dir = temp_dir();
    state->export_dialog.path = (dir / "ok.png").string();
    run_export_dialog(*state);
    EXPECT_FALSE(state->message_is_error) << state->message;
    EXPECT_TRUE(std::filesystem::exists(dir / "ok.png"));
}

// The window's dialog for a head's chain offers the slide in 16:9 (1920x1080, the default) and 16:10
// (1600x1000); a click on 16:10 writes a 1600x1000 PNG, and the choice stays for the next chain.
TEST_F(ExportTest, TheHeadChainDialogOffersSixteenByTenAndWritesThatSize)
{
    const auto dir = temp_dir();
    test::HeadlessUi ui;
    // A state of its own, made after the window: its textures go before the window's provider does.
    auto app = std::make_unique<AppState>();
    app->session.config.mask = MaskKind::Causal;
    ASSERT_TRUE(app->update());
    ExportDialog& d = app->export_dialog;
    d.open_request = true;
    d.matrix = ref(Stage::weights);
    d.head_chain = true;
    d.format = ExportFormat::Png;
    EXPECT_EQ(d.slide_width, 1920);
    EXPECT_EQ(d.slide_height, 1080);
    // (An auto-sized popup is laid out, not drawn, on its first frame.)
    test::FrameOutput out = ui.frames(*app, 3);
    EXPECT_TRUE(test::contains(out.text, "1920x1080 (16:9)")) << out.text;
    ASSERT_TRUE(test::contains(out.text, "1600x1000 (16:10)")) << out.text;
    const ImVec2 at = test::text_position("1600x1000 (16:10)");
    ASSERT_GE(at.x, 0.0f);
    // The radio's circle is left of its label: click there.
    ui.click(*app, at.x - ImGui::GetFontSize() * 0.6f, at.y + ImGui::GetFontSize() * 0.5f);
    EXPECT_EQ(d.slide_width, 1600);
    EXPECT_EQ(d.slide_height, 1000);

    const auto png_size = [](const std::filesystem::path& p)
    {
        int w = 0, h = 0, n = 0;
        EXPECT_NE(stbi_info(p.string().c_str(), &w, &h, &n), 0) << p;
        return std::pair<int, int>(w, h);
    };
    d.path = (dir / "chain-16x10.png").string();
    run_export_dialog(*app);
    ASSERT_FALSE(app->message_is_error) << app->message;
    EXPECT_EQ(png_size(d.path), (std::pair<int, int>(1600, 1000)));

    // Closed and opened again for another head: still 16:10. Back to 16:9 gives 1920x1080.
    ui.press_key(*app, 256); // Escape
    d.open_request = true;
    d.matrix.head = 0;
    ui.frames(*app, 3);
    EXPECT_EQ(d.slide_width, 1600);
    const ImVec2 wide = test::text_position("1920x1080 (16:9)");
    ASSERT_GE(wide.x, 0.0f);
    ui.click(*app, wide.x - ImGui::GetFontSize() * 0.6f, wide.y + ImGui::GetFontSize() * 0.5f);
    EXPECT_EQ(d.slide_width, 1920);
    EXPECT_EQ(d.slide_height, 1080);
    d.path = (dir / "chain-16x9.png").string();
    run_export_dialog(*app);
    ASSERT_FALSE(app->message_is_error) << app->message;
    EXPECT_EQ(png_size(d.path), (std::pair<int, int>(1920, 1080)));
}

// [SECTION] Lesson slides

TEST(SlideCaption, LeavesOutWhatOnlyTheWindowCanDo)
{
    EXPECT_EQ(
        slide_caption("Entry (i, j) is a dot product. The highlighted cell is query \"visits\" against key "
                      "\"Africa\"; hover it to see the sum written out."),
        "Entry (i, j) is a dot product. The highlighted cell is query \"visits\" against key \"Africa\".");
    EXPECT_EQ(
        slide_caption("Head h multiplies X. Use [ and ] to step through the heads: each differs. Done."),
        "Head h multiplies X. Done.");
    EXPECT_EQ(
        slide_caption("Each row sums to 1. Hover a weight to see its row's sum. Drag the timeline to go "
                      "back. Toggle “scale by √d_k” in the Model panel to see both."),
        "Each row sums to 1.");
    // An exercise for the student is all instructions: it stays whole.
    const std::string exercise = "Type your own probe: six symbols. Then try fewer layers and Play again.";
    EXPECT_EQ(slide_caption(exercise), exercise);
    const std::string all_window = "Hover a row to see it in every head.";
    EXPECT_EQ(slide_caption(all_window), all_window);
}

class SlideTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        load_lesson_library(*state, default_lessons_dir());
        const auto& lessons = state->lesson.library.lessons;
        for (std::size_t i = 0; i < lessons.size(); ++i)
            if (lessons[i].id == "tour")
                tour = static_cast<int>(i);
        ASSERT_GE(tour, 0);
    }
    // Share of the slide's pixels that are exactly this colour.
    static double share(const Image& img, Color32 c)
    {
        return static_cast<double>(std::count(img.pixels.begin(), img.pixels.end(), c)) /
               static_cast<double>(img.pixels.size());
    }
    std::unique_ptr<AppState> state = std::make_unique<AppState>();
    int tour = -1;
};

TEST_F(SlideTest, AStepIsItsTitleMapsAndCaptionWithoutWindowHints)
{
    enter_lesson(*state, tour, 2); // scores, one highlighted cell, "hover it" in the text
    state->update();
    ASSERT_TRUE(state->status.is_ok());
    std::vector<std::string> texts;
    const Image light = render_lesson_slide(*state, 1280, 720, false, nullptr, &texts);
    ASSERT_EQ(light.width, 1280);
    ASSERT_EQ(light.height, 720);
    EXPECT_GT(share(light, picture_palette(false).paper), 0.5); // a white page
    // The scores map's colours are on it, with its cell outlined in the lesson colour.
    const MatrixView scores = resolve_matrix(*state,
                                             [&]
                                             {
                                                 MatrixRef r;
                                                 r.stage = Stage::scores;
                                                 return r;
                                             }());
    const ColorScale scale = choose_scale(value_range(scores.m->data(), scores.m->size()), false);
    EXPECT_GT(share(light, value_to_color((*scores.m)(0, 0), scale)), 0.001);
    EXPECT_GT(share(light, lesson_highlight_color()), 0.0005);
    const Image dark = render_lesson_slide(*state, 1280, 720, true);
    EXPECT_GT(share(dark, picture_palette(true).paper), 0.5);
    if (find_font_file().empty())
        return;
    std::string all;
    for (const std::string& t : texts)
        all += t + "\n";
    for (const char* expected : {"Scores: every query against every key", "3 / 11", "Scores · head 1",
                                 "query", "key", "A tour: from words to attention"})
        EXPECT_NE(all.find(expected), std::string::npos) << expected << " in\n" << all;
    for (const char* hint : {"hover", "Hover", "click", "right click", "Alt+", "F5"})
        EXPECT_EQ(all.find(hint), std::string::npos) << hint << " in\n" << all;
}

TEST_F(SlideTest, HeadsStepShowsEveryHead)
{
    enter_lesson(*state, tour, 10); // the heads view
    state->update();
    std::vector<std::string> texts;
    render_lesson_slide(*state, 1920, 1080, false, nullptr, &texts);
    if (find_font_file().empty())
        return;
    for (int j = 1; j <= state->heads(); ++j)
        EXPECT_NE(std::find(texts.begin(), texts.end(), "Attention weights A_" + std::to_string(j)),
                  texts.end())
            << j;
}

TEST_F(SlideTest, EightHeadsNameEveryTokenOnTheCleanSlide)
{
    // multi_head step 5: h = 8 over "The animal didn't cross the street because it was tired", whose maps
    // are small enough that labels at the slide's full size would be thinned to every other token.
    const auto& lessons = state->lesson.library.lessons;
    int multi_head = -1;
    for (std::size_t i = 0; i < lessons.size(); ++i)
        if (lessons[i].id == "multi_head")
            multi_head = static_cast<int>(i);
    ASSERT_GE(multi_head, 0);
    enter_lesson(*state, multi_head, 4);
    state->update();
    ASSERT_EQ(state->heads(), 8);
    if (find_font_file().empty())
        return;
    for (const auto& [w, h] : {std::pair<int, int>{1600, 1000}, {1920, 1080}, {1280, 720}})
    {
        std::vector<std::string> texts;
        render_lesson_slide(*state, w, h, false, nullptr, &texts);
        for (const std::string& token : state->trace().tokens.tokens[0])
        {
            // Each token as a query label and a key label of each of the eight maps.
            const auto n = std::count(texts.begin(), texts.end(), token);
            EXPECT_GE(n, 16) << token << " at " << w << "x" << h;
        }
    }
}

// [SECTION] The window's picture without its dialog

TEST(WindowPicture, IsTakenOnAFrameWithoutTheDialogOrAnyPopup)
{
    test::HeadlessUi ui(1280, 720);
    ImGui::GetIO().KeyMap[ImGuiKey_Enter] = 257; // as GLFW_KEY_ENTER
    auto state = std::make_unique<AppState>();
    const char* dialog = "Save a picture of the window (PNG) to";
    state->request_file_action = FileAction::ExportWindowPng;
    test::FrameOutput out = ui.frames(*state, 3);
    ASSERT_NE(out.text.find(dialog), std::string::npos) << out.text;
    EXPECT_FALSE(begin_window_capture(*state)); // nothing asked yet
    // Enter in the path field: the same frame asks for the picture and closes the dialog, which it still
    // drew.
    ImGui::GetIO().KeysDown[257] = true;
    out = ui.frame(*state);
    ImGui::GetIO().KeysDown[257] = false;
    ASSERT_EQ(state->request_window_png, "attnlab-window.png");
    EXPECT_NE(out.text.find(dialog), std::string::npos);
    int captured_at = -1;
    for (int i = 0; i < 4 && captured_at < 0; ++i)
    {
        const bool capture = begin_window_capture(*state);
        if (capture)
        {
            EXPECT_NE(ImGui::GetIO().ConfigFlags & ImGuiConfigFlags_NoMouse, 0); // no tooltip, no hover
        }
        out = ui.frame(*state);
        if (!capture)
            continue;
        captured_at = i;
        EXPECT_EQ(out.text.find(dialog), std::string::npos) << out.text;
        EXPECT_NE(out.text.find("Pipeline"), std::string::npos); // the window itself is there
        end_window_capture(*state, Status::ok());
    }
    EXPECT_EQ(captured_at, 1); // one clean frame drawn first, the next is captured
    EXPECT_TRUE(state->request_window_png.empty());
    EXPECT_EQ(ImGui::GetIO().ConfigFlags & ImGuiConfigFlags_NoMouse, 0); // the mouse is back
    EXPECT_EQ(state->message, "Saved the window to attnlab-window.png");

    // Asked while another popup is open: nothing is captured until it has gone.
    state->request_window_png = "later.png";
    state->export_dialog.open_request = true;
    for (int i = 0; i < 5; ++i)
    {
        EXPECT_FALSE(begin_window_capture(*state)) << i;
        out = ui.frame(*state);
        // (An auto-sized popup is laid out, not drawn, on its first frame.)
        EXPECT_TRUE(i == 0 || out.text.find("Export heatmap") != std::string::npos) << i;
    }
    ui.press_key(*state, 256); // Escape closes it
    out = ui.frame(*state);
    EXPECT_TRUE(begin_window_capture(*state));
    out = ui.frame(*state);
    EXPECT_EQ(out.text.find("Export heatmap"), std::string::npos);
    end_window_capture(*state, Status::error("disk full"));
    EXPECT_TRUE(state->message_is_error);
    EXPECT_NE(state->message.find("disk full"), std::string::npos);
}

TEST(Prefs, RoundTripAndTolerateJunk)
{
    ViewPrefs p;
    p.dark_theme = false;
    p.font_size = 22.0f;
    p.numbers_in_cells = false;
    p.open[static_cast<std::size_t>(PanelId::Comparisons)] = true;
    p.open[static_cast<std::size_t>(PanelId::Input)] = false;
    ViewPrefs q;
    prefs_from_text(prefs_to_text(p), q);
    EXPECT_EQ(p, q);
    ViewPrefs r;
    prefs_from_text("theme = purple\nfont_size = 9000\nnonsense\npanel.heads = maybe\n", r);
    EXPECT_EQ(r, ViewPrefs{});
}

TEST(Prefs, LiveInTheXdgConfigFolder)
{
    const auto dir = temp_dir();
    ::setenv("XDG_CONFIG_HOME", dir.c_str(), 1);
    EXPECT_EQ(config_dir(), (dir / "attnlab").string());
    ViewPrefs p;
    p.font_size = 25.0f;
    const std::string path = config_dir() + "/prefs.ini";
    ASSERT_TRUE(save_prefs(path, p).is_ok());
    ViewPrefs q;
    load_prefs(path, q);
    EXPECT_EQ(q.font_size, 25.0f);
    ::unsetenv("XDG_CONFIG_HOME");
}

} // namespace
} // namespace attnlab
