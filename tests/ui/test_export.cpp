// Export: the heatmap PNG (read back with stb_image), CSV text, unwritable paths, and the prefs file.
#include "ui/app_state.h"
#include "ui/export.h"
#include "ui/fonts.h"
#include "ui/prefs.h"

#include <stb_image.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

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
