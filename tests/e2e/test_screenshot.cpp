// End to end: `attnlab screenshot` under Xvfb on the default session; the PNG is read back and checked.
#include "ui/picture/colormap.h"

#include <stb_image.h>

#include "xvfb.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <unordered_set>

namespace attnlab
{
namespace
{

using test::have_xvfb;
using test::xvfb_run;

namespace fs = std::filesystem;

std::string read_text(const fs::path& p)
{
    std::ifstream f(p);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

fs::path work_dir(const char* name)
{
    const fs::path dir = fs::path(ATTNLAB_BINARY_DIR) / "tests" / "e2e" / "out" / name;
    fs::create_directories(dir);
    return dir;
}

// Runs the app with arguments under Xvfb; returns the exit status and fills stdout / stderr.
int run_app(const std::string& args, const fs::path& dir, std::string* out, std::string* err,
            bool xvfb = true)
{
    const std::string prefix =
        xvfb ? xvfb_run() + "-s '-screen 0 1600x1000x24' " : "env -u DISPLAY -u WAYLAND_DISPLAY ";
    const std::string cmd = prefix + "'" + ATTNLAB_APP + "' " + args + " >'" + (dir / "stdout.txt").string() +
                            "' 2>'" + (dir / "stderr.txt").string() + "'";
    const int status = std::system(cmd.c_str());
    *out = read_text(dir / "stdout.txt");
    *err = read_text(dir / "stderr.txt");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct Png
{
    int w = 0, h = 0;
    std::vector<Color32> px;
    Color32 at(int x, int y) const { return px[static_cast<std::size_t>(y) * w + x]; }
};

Png load_png(const fs::path& p)
{
    Png png;
    int n = 0;
    unsigned char* data = stbi_load(p.string().c_str(), &png.w, &png.h, &n, 4);
    if (data == nullptr)
        return png;
    png.px.resize(static_cast<std::size_t>(png.w) * png.h);
    for (std::size_t i = 0; i < png.px.size(); ++i)
        png.px[i] = pack_rgba(data[4 * i], data[4 * i + 1], data[4 * i + 2]);
    stbi_image_free(data);
    return png;
}

// Pixels in [x0, x1) x [y0, y1) (fractions of the image) whose colour is an entry of the colour map.
int colormap_pixels(const Png& png, Colormap map, float x0, float y0, float x1, float y1)
{
    const auto& table = colormap_table(map);
    const std::unordered_set<Color32> entries(table.begin(), table.end());
    int n = 0;
    for (int y = static_cast<int>(y0 * png.h); y < static_cast<int>(y1 * png.h); ++y)
        for (int x = static_cast<int>(x0 * png.w); x < static_cast<int>(x1 * png.w); ++x)
            n += entries.count(png.at(x, y)) ? 1 : 0;
    return n;
}

TEST(Screenshot, DefaultSessionShowsHeatmaps)
{
    if (!have_xvfb())
        GTEST_SKIP() << "xvfb-run is not installed";
    const fs::path dir = work_dir("default");
    const fs::path png_path = dir / "screenshot.png";
    fs::remove(png_path);
    std::string out, err;
    ASSERT_EQ(run_app("screenshot -o '" + png_path.string() + "'", dir, &out, &err), 0) << err;
    EXPECT_NE(out.find(png_path.string()), std::string::npos) << out; // prints the path

    const Png png = load_png(png_path);
    ASSERT_EQ(png.w, 1600);
    ASSERT_EQ(png.h, 1000);
    std::set<Color32> distinct(png.px.begin(), png.px.end());
    EXPECT_GT(distinct.size(), 200u); // not blank: text, widgets and heatmaps
    // Heads (right, top): the weights in the sequential map. Pipeline (middle): signed values, diverging.
    EXPECT_GT(colormap_pixels(png, Colormap::Sequential, 0.64f, 0.05f, 1.0f, 0.55f), 20000);
    EXPECT_GT(colormap_pixels(png, Colormap::Diverging, 0.24f, 0.05f, 0.64f, 0.95f), 20000);
    // The left column (Input, Model) has no heatmap.
    EXPECT_LT(colormap_pixels(png, Colormap::Sequential, 0.0f, 0.05f, 0.2f, 0.95f), 500);
}

// Mean brightness (0..255) of the pixels in [x0, x1) x [y0, y1), fractions of the image.
double mean_brightness(const Png& png, float x0, float y0, float x1, float y1)
{
    double sum = 0.0;
    long n = 0;
    for (int y = static_cast<int>(y0 * png.h); y < static_cast<int>(y1 * png.h); ++y)
        for (int x = static_cast<int>(x0 * png.w); x < static_cast<int>(x1 * png.w); ++x, ++n)
        {
            const Color32 c = png.at(x, y);
            sum += ((c & 0xFF) + ((c >> 8) & 0xFF) + ((c >> 16) & 0xFF)) / 3.0;
        }
    return n > 0 ? sum / static_cast<double>(n) : 0.0;
}

TEST(Screenshot, ThemeOptionPicksLightOrDark)
{
    if (!have_xvfb())
        GTEST_SKIP() << "xvfb-run is not installed";
    const fs::path dir = work_dir("theme");
    std::string out, err;
    for (const char* theme : {"light", "dark"})
    {
        const fs::path png_path = dir / (std::string(theme) + ".png");
        ASSERT_EQ(run_app(std::string("screenshot --theme ") + theme + " -o '" + png_path.string() + "'", dir,
                          &out, &err),
                  0)
            << err;
        // The Inspector's empty area (right, bottom) is the theme's background.
        const double b = mean_brightness(load_png(png_path), 0.66f, 0.7f, 0.98f, 0.9f);
        if (std::string(theme) == "light")
        {
            EXPECT_GT(b, 180.0) << theme;
        }
        else
        {
            EXPECT_LT(b, 60.0) << theme;
        }
    }
    EXPECT_EQ(run_app("screenshot --theme blue -o '" + (dir / "x.png").string() + "'", dir, &out, &err), 2);
    EXPECT_NE(err.find("--theme"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(dir / "x.png"));
}

TEST(Screenshot, BenchFramesPrintsFigures)
{
    if (!have_xvfb())
        GTEST_SKIP() << "xvfb-run is not installed";
    const fs::path dir = work_dir("bench");
    std::string out, err;
    ASSERT_EQ(
        run_app("screenshot -o '" + (dir / "bench.png").string() + "' --bench-frames 10", dir, &out, &err), 0)
        << err;
    for (const char* text : {"frame: median", "p95", "edit to picture", "recompute",
                             "start-up to first frame", "\nframe while recomputing: median "})
        EXPECT_NE(out.find(text), std::string::npos) << text << "\n" << out;
}

// An option before the subcommand is the window's: refused with where it goes, not silently ignored (it used
// to render the default session instead of the lesson).
TEST(Screenshot, AnOptionBeforeTheSubcommandIsRefusedWithWhereItGoes)
{
    const fs::path dir = work_dir("option_before_subcommand");
    fs::remove(dir / "x.png");
    std::string out, err;
    const int code =
        run_app("--lesson tour screenshot -o '" + (dir / "x.png").string() + "'", dir, &out, &err, false);
    EXPECT_EQ(code, 2) << err;
    EXPECT_NE(err.find("--lesson goes after the subcommand: attnlab screenshot --lesson"), std::string::npos)
        << err;
    EXPECT_FALSE(fs::exists(dir / "x.png"));
}

TEST(Screenshot, NoDisplayIsOneClearLine)
{
    const fs::path dir = work_dir("no_display");
    std::string out, err;
    const int code = run_app("screenshot -o '" + (dir / "x.png").string() + "'", dir, &out, &err, false);
    EXPECT_NE(code, 0);
    EXPECT_NE(err.find("no display"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_FALSE(fs::exists(dir / "x.png"));
}

TEST(Screenshot, UnwritablePathFailsWithAMessage)
{
    if (!have_xvfb())
        GTEST_SKIP() << "xvfb-run is not installed";
    const fs::path dir = work_dir("unwritable");
    std::string out, err;
    const int code = run_app("screenshot -o /nonexistent-dir/x.png", dir, &out, &err);
    EXPECT_NE(code, 0);
    EXPECT_NE(err.find("/nonexistent-dir/x.png"), std::string::npos) << err;
}

// screenshot --train: the Training panel, trained before the first frame, its maps in the sequential map.
TEST(Screenshot, TrainReverseShowsTheTrainingPanel)
{
    if (!have_xvfb())
        GTEST_SKIP() << "xvfb-run is not installed";
    const fs::path dir = work_dir("train_reverse");
    const fs::path png_path = dir / "train_reverse.png";
    fs::remove(png_path);
    std::string out, err;
    ASSERT_EQ(
        run_app("screenshot --train reverse --steps 150 -o '" + png_path.string() + "'", dir, &out, &err), 0)
        << err;
    EXPECT_NE(out.find(png_path.string()), std::string::npos) << out;
    const Png png = load_png(png_path);
    ASSERT_EQ(png.w, 1600);
    ASSERT_EQ(png.h, 1000);
    // The panel covers everything right of the Input / Model column; its maps are on its right side.
    EXPECT_GT(colormap_pixels(png, Colormap::Sequential, 0.5f, 0.05f, 1.0f, 0.95f), 40000);
}

// The induction preset trained in the real window past its jump (seed 1: about 0.2 held-out accuracy on the
// plateau until step 150, 0.79 at step 250, 0.91 at 500): the accuracy the picture shows is printed, and the
// picture has the maps.
TEST(Screenshot, TrainInductionPastItsJump)
{
    if (!have_xvfb())
        GTEST_SKIP() << "xvfb-run is not installed";
    const fs::path dir = work_dir("train_induction");
    const fs::path png_path = dir / "train_induction.png";
    fs::remove(png_path);
    std::string out, err;
    ASSERT_EQ(
        run_app("screenshot --train induction --steps 500 -o '" + png_path.string() + "'", dir, &out, &err),
        0)
        << err;
    const std::size_t at = out.find("training: induction at step 500, held-out loss ");
    ASSERT_NE(at, std::string::npos) << out;
    const double accuracy = std::stod(out.substr(out.find("accuracy ", at) + 9));
    EXPECT_GT(accuracy, 0.8) << out;
    const Png png = load_png(png_path);
    ASSERT_EQ(png.w, 1600);
    EXPECT_GT(colormap_pixels(png, Colormap::Sequential, 0.5f, 0.05f, 1.0f, 0.95f), 40000);
}

// A model written by `attnlab train` opens in the window with --model.
TEST(Screenshot, ModelFileFromTrainOpensInTheTrainingPanel)
{
    if (!have_xvfb())
        GTEST_SKIP() << "xvfb-run is not installed";
    const fs::path dir = work_dir("model_file");
    const fs::path model = dir / "copy.json";
    const fs::path png_path = dir / "copy.png";
    std::string out, err;
    ASSERT_EQ(run_app("train --task copy --steps 60 -o '" + model.string() + "'", dir, &out, &err, false), 0)
        << err;
    ASSERT_EQ(run_app("screenshot --model '" + model.string() + "' -o '" + png_path.string() + "'", dir, &out,
                      &err),
              0)
        << err;
    EXPECT_NE(out.find("training: copy at step 60"), std::string::npos) << out;
    EXPECT_TRUE(fs::exists(png_path));
    // A broken model file: one line, exit 1, no picture.
    {
        std::ofstream f(dir / "broken.json");
        f << "{\"format\": \"attnlab-model\"";
    }
    fs::remove(dir / "x.png");
    EXPECT_NE(run_app("screenshot --model '" + (dir / "broken.json").string() + "' -o '" +
                          (dir / "x.png").string() + "'",
                      dir, &out, &err, false),
              0);
    EXPECT_NE(err.find("broken.json"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(dir / "x.png"));
}

// A session that refers to a model folder that does not open: the picture is not the one asked for, so the
// command says which folder and why, and fails (it used to exit 0 with the session's own model pictured).
TEST(Screenshot, SessionWhoseModelFolderDoesNotOpenFails)
{
    if (!have_xvfb())
        GTEST_SKIP() << "xvfb-run is not installed";
    const fs::path dir = work_dir("session_bad_folder");
    fs::create_directories(dir / "not_a_model");
    // An empty folder (no config.json), then a path with nothing there: each says why, and the command fails.
    for (const auto& [folder, reason] :
         {std::pair{dir / "not_a_model", "config.json"}, std::pair{dir / "nowhere", "does not exist"}})
    {
        const fs::path session = dir / (folder.filename().string() + ".json");
        {
            std::ofstream f(session);
            f << R"({"format": "attnlab-session", "version": 1, "text": "the cat sat", "model_folder": ")"
              << folder.string() << "\"}";
        }
        std::string out, err;
        EXPECT_EQ(
            run_app("screenshot --session '" + session.string() + "' -o '" + (dir / "x.png").string() + "'",
                    dir, &out, &err),
            1);
        EXPECT_NE(err.find(folder.filename().string() + " did not open"), std::string::npos) << err;
        EXPECT_NE(err.find(reason), std::string::npos) << err;
        EXPECT_EQ(err.find("did not open"), err.rfind("did not open")) << "said once: " << err;
    }
}

// A text the opened model cannot read (longer than its context of 16 tokens) fails and writes no picture, as
// export --model does: the picture showed "No result yet" and the command exited 0.
TEST(Screenshot, ATextLongerThanTheModelsContextFailsAndWritesNothing)
{
    if (!have_xvfb())
        GTEST_SKIP() << "xvfb-run is not installed";
    const fs::path dir = work_dir("model_text_too_long");
    const fs::path png = dir / "x.png";
    fs::remove(png);
    const std::string model = std::string(ATTNLAB_SOURCE_DIR) + "/tests/data/hf_tiny/gpt2";
    std::string out, err;
    EXPECT_EQ(run_app("screenshot --model '" + model + "' --text '" + std::string(40, 'a') +
                          " b c d e f g h i j k l m n o p q r s' -o '" + png.string() + "'",
                      dir, &out, &err),
              1);
    EXPECT_NE(err.find("tokens long"), std::string::npos) << err;
    EXPECT_NE(err.find("no picture was written"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(png));
    // A text it can read is pictured.
    EXPECT_EQ(run_app("screenshot --model '" + model + "' --text 'The cat sat.' -o '" + png.string() + "'",
                      dir, &out, &err),
              0)
        << err;
    EXPECT_TRUE(fs::exists(png));
}

// A session's trained model ("model", beside the session file) opens in the Training panel as File > Open
// opens it (it was ignored on the command line); one that does not open is named with why, and the command
// fails.
TEST(Screenshot, SessionsTrainedModelOpensOrTheCommandSaysWhy)
{
    if (!have_xvfb())
        GTEST_SKIP() << "xvfb-run is not installed";
    const fs::path dir = work_dir("session_model");
    std::string out, err;
    ASSERT_EQ(run_app("train --task copy --steps 40 -o '" + (dir / "copy.model.json").string() + "'", dir,
                      &out, &err, false),
              0)
        << err;
    const auto session = [&](const char* name, const char* model)
    {
        std::ofstream f(dir / name);
        f << R"({"format": "attnlab-session", "version": 1, "text": "the cat sat", "model": ")" << model
          << "\"}";
        return (dir / name).string();
    };
    // Run from elsewhere: the model's path is the session file's folder's.
    const fs::path elsewhere = work_dir("session_model_cwd");
    EXPECT_EQ(run_app("screenshot --session '" + session("good.json", "copy.model.json") + "' -o '" +
                          (dir / "good.png").string() + "'",
                      elsewhere, &out, &err),
              0)
        << err;
    EXPECT_NE(out.find("training: copy at step 40"), std::string::npos) << out;
    EXPECT_EQ(run_app("screenshot --session '" + session("bad.json", "missing.model.json") + "' -o '" +
                          (dir / "bad.png").string() + "'",
                      elsewhere, &out, &err),
              1);
    EXPECT_NE(err.find("its trained model " + (dir / "missing.model.json").string() + " did not open"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("No such file"), std::string::npos) << err;
}

// --lesson ID for a lesson file that did not load: the message says why it did not, not only "unknown".
TEST(Screenshot, ALessonThatDidNotLoadSaysWhy)
{
    const fs::path dir = work_dir("lesson_refused");
    fs::create_directories(dir / "lessons");
    {
        std::ofstream f(dir / "lessons" / "05_broken.json");
        f << R"({"format": "attnlab-lesson", "version": 1, "title": "B", "steps": []})";
    }
    setenv("ATTNLAB_LESSONS", (dir / "lessons").c_str(), 1);
    std::string out, err;
    const int status =
        run_app("screenshot --lesson broken -o '" + (dir / "x.png").string() + "'", dir, &out, &err, false);
    unsetenv("ATTNLAB_LESSONS");
    EXPECT_EQ(status, 2);
    EXPECT_NE(err.find("unknown lesson \"broken\"; it did not load: "), std::string::npos) << err;
    EXPECT_NE(err.find("05_broken.json"), std::string::npos) << err;
    EXPECT_NE(err.find("\"steps\" must be a non-empty list"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(dir / "x.png"));
}

TEST(Screenshot, TrainUnknownTaskListsTheTasks)
{
    const fs::path dir = work_dir("train_unknown");
    std::string out, err;
    EXPECT_NE(
        run_app("screenshot --train nope -o '" + (dir / "x.png").string() + "'", dir, &out, &err, false), 0);
    EXPECT_NE(err.find("reverse"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(dir / "x.png"));
}

} // namespace
} // namespace attnlab
