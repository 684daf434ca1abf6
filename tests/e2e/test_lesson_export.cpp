// End to end: `attnlab lesson ID --export-dir` under Xvfb writes one PNG per step (each lesson's first step,
// the whole tour, presenter mode), one SVG per step or one PDF, as slides in the theme asked for or saved;
// `--lesson` with an unknown id and an unwritable folder fail clearly.
#include "core/io/lesson_file.h"
#include "ui/picture/colormap.h"

#include <stb_image.h>

#include "xvfb.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

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

fs::path work_dir(const std::string& name)
{
    const fs::path dir = fs::path(ATTNLAB_BINARY_DIR) / "tests" / "e2e" / "out" / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// Runs the app under Xvfb (or with no display at all); returns the exit status and fills stdout / stderr.
// config: the XDG_CONFIG_HOME it runs with ("": the caller's).
int run_app(const std::string& args, const fs::path& dir, std::string* out, std::string* err,
            bool xvfb = true, const std::string& config = "")
{
    const std::string env = config.empty() ? std::string() : "env XDG_CONFIG_HOME='" + config + "' ";
    const std::string prefix =
        env + (xvfb ? xvfb_run() + "-s '-screen 0 1920x1080x24' " : "env -u DISPLAY -u WAYLAND_DISPLAY ");
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
};

Png load_png(const fs::path& p)
{
    Png png;
    int n = 0;
    unsigned char* data = stbi_load(p.string().c_str(), &png.w, &png.h, &n, 4);
    if (data == nullptr)
        return png;
    png.px.resize(static_cast<std::size_t>(png.w) * static_cast<std::size_t>(png.h));
    for (std::size_t i = 0; i < png.px.size(); ++i)
        png.px[i] = pack_rgba(data[4 * i], data[4 * i + 1], data[4 * i + 2]);
    stbi_image_free(data);
    return png;
}

// Pixels whose colour is an entry of one of the colour maps: heatmaps on screen.
int heatmap_pixels(const Png& png)
{
    std::unordered_set<Color32> entries;
    for (Colormap map : {Colormap::Sequential, Colormap::Diverging})
        for (Color32 c : colormap_table(map))
            entries.insert(c);
    int n = 0;
    for (Color32 c : png.px)
        n += entries.count(c) ? 1 : 0;
    return n;
}

// Not blank: many colours, and heatmaps in them (at least 1/min_share of the picture).
void expect_picture(const fs::path& p, int w, int h, int min_share = 50)
{
    SCOPED_TRACE(p.string());
    ASSERT_TRUE(fs::exists(p));
    const Png png = load_png(p);
    ASSERT_EQ(png.w, w);
    ASSERT_EQ(png.h, h);
    const std::set<Color32> distinct(png.px.begin(), png.px.end());
    EXPECT_GT(distinct.size(), 200u);
    EXPECT_GT(heatmap_pixels(png), w * h / min_share);
}

// The files in dir with this extension, and any hidden ones (a temporary folder left behind), sorted.
std::vector<std::string> files_in(const fs::path& dir, const std::string& ext)
{
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ext || e.path().filename().string()[0] == '.')
            names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<std::string> pngs_in(const fs::path& dir)
{
    return files_in(dir, ".png");
}

TEST(LessonExport, FirstStepOfEveryLesson)
{
    if (!have_xvfb())
        GTEST_SKIP() << "xvfb-run is not installed";
    const LessonLibrary library = load_lessons(default_lessons_dir());
    ASSERT_TRUE(library.errors.empty());
    ASSERT_EQ(library.lessons.size(), 12u);
    const fs::path dir = work_dir("lesson_first_steps");
    for (const Lesson& lesson : library.lessons)
    {
        std::string out, err;
        ASSERT_EQ(run_app("lesson " + lesson.id + " --step 1 --width 1280 --height 800 --export-dir '" +
                              dir.string() + "'",
                          dir, &out, &err),
                  0)
            << lesson.id << ": " << err;
        const fs::path png = dir / (lesson.id + "-01.png");
        EXPECT_NE(out.find(png.string()), std::string::npos) << out;
        // Known gap: a text model's 64-character maps at 1280x800 get one pixel a character under the first
        // step's five-line caption (slides draw whole-pixel cells, and the curves keep a readable height), so
        // that slide holds less heatmap than the others; the later steps reach two (below).
        const bool text_run = !lesson.steps.empty() && lesson.steps.front().training.on &&
                              lesson.steps.front().training.run.task == train::TaskKind::Text;
        expect_picture(png, 1280, 800, text_run ? 100 : 50);
    }
    // One picture per lesson and no temporary folder left behind.
    EXPECT_EQ(pngs_in(dir).size(), library.lessons.size());
}

// A text lesson's step with a three-line caption: the curves give up height until the probe's maps get
// their cells, and the slide holds as much heatmap as any other lesson's.
TEST(LessonExport, TextMapsTakeTheirShareOfTheSlide)
{
    if (!have_xvfb())
        GTEST_SKIP() << "xvfb-run is not installed";
    const fs::path dir = work_dir("lesson_text_maps");
    std::string out, err;
    ASSERT_EQ(run_app("lesson attention_learns_english --step 5 --width 1280 --height 800 --export-dir '" +
                          dir.string() + "'",
                      dir, &out, &err),
              0)
        << err;
    expect_picture(dir / "attention_learns_english-05.png", 1280, 800);
}

TEST(LessonExport, EveryStepOfTheTourInPresenterMode)
{
    if (!have_xvfb())
        GTEST_SKIP() << "xvfb-run is not installed";
    const LessonLibrary library = load_lessons(default_lessons_dir());
    const Lesson* tour = find_lesson(library, "tour");
    ASSERT_NE(tour, nullptr);
    const fs::path dir = work_dir("lesson_tour_presenter");
    std::string out, err;
    ASSERT_EQ(
        run_app("lesson tour --presenter --width 1920 --height 1080 --export-dir '" + dir.string() + "'", dir,
                &out, &err),
        0)
        << err;
    const std::vector<std::string> names = pngs_in(dir);
    ASSERT_EQ(names.size(), tour->steps.size());
    for (std::size_t k = 0; k < names.size(); ++k)
    {
        char expected[32];
        std::snprintf(expected, sizeof(expected), "tour-%02d.png", static_cast<int>(k + 1));
        EXPECT_EQ(names[k], expected);
        expect_picture(dir / names[k], 1920, 1080);
    }
}

TEST(LessonExport, SvgPerStepAndOnePdfAtTheDefault16By9Size)
{
    if (!have_xvfb())
        GTEST_SKIP() << "xvfb-run is not installed";
    const LessonLibrary library = load_lessons(default_lessons_dir());
    const Lesson* tour = find_lesson(library, "tour");
    ASSERT_NE(tour, nullptr);
    const std::size_t n = tour->steps.size();
    const fs::path dir = work_dir("lesson_vector");
    std::string out, err;
    // No --width or --height: 1920x1080 slides.
    ASSERT_EQ(run_app("lesson tour --step 2 --export-dir '" + (dir / "png").string() + "'", dir, &out, &err),
              0)
        << err;
    expect_picture(dir / "png" / "tour-02.png", 1920, 1080);
    ASSERT_EQ(
        run_app("lesson tour --format svg --export-dir '" + (dir / "svg").string() + "'", dir, &out, &err), 0)
        << err;
    const std::vector<std::string> svgs = files_in(dir / "svg", ".svg");
    ASSERT_EQ(svgs.size(), n);
    for (std::size_t k = 0; k < n; ++k)
    {
        char expected[32];
        std::snprintf(expected, sizeof(expected), "tour-%02d.svg", static_cast<int>(k + 1));
        EXPECT_EQ(svgs[k], expected);
        const std::string svg = read_text(dir / "svg" / svgs[k]);
        EXPECT_NE(svg.find("width=\"1920\" height=\"1080\""), std::string::npos) << svgs[k];
        EXPECT_NE(svg.find("<text"), std::string::npos) << svgs[k];
        EXPECT_NE(out.find((dir / "svg" / svgs[k]).string()), std::string::npos) << out;
    }
    // One PDF with a page per step; one step alone is named by its number.
    ASSERT_EQ(run_app("lesson tour --format pdf --width 1600 --height 1000 --export-dir '" +
                          (dir / "pdf").string() + "'",
                      dir, &out, &err),
              0)
        << err;
    EXPECT_EQ(files_in(dir / "pdf", ".pdf"), std::vector<std::string>{"tour.pdf"});
    ASSERT_EQ(run_app("lesson tour --step 3 --format pdf --export-dir '" + (dir / "pdf").string() + "'", dir,
                      &out, &err),
              0)
        << err;
    EXPECT_EQ(files_in(dir / "pdf", ".pdf"), (std::vector<std::string>{"tour-03.pdf", "tour.pdf"}));
    ASSERT_EQ(std::system("command -v pdfinfo >/dev/null 2>&1"), 0)
        << "pdfinfo is not installed: apt-get install poppler-utils (bash .ci/dev installs it)";
    for (const auto& [name, pages, size] :
         {std::tuple<const char*, std::size_t, const char*>{"tour.pdf", n, "800 x 500 pts"},
          std::tuple<const char*, std::size_t, const char*>{"tour-03.pdf", 1, "960 x 540 pts"}})
    {
        ASSERT_EQ(std::system(("pdfinfo '" + (dir / "pdf" / name).string() + "' >'" +
                               (dir / "pdfinfo.txt").string() + "' 2>&1")
                                  .c_str()),
                  0);
        const std::string info = read_text(dir / "pdfinfo.txt");
        EXPECT_TRUE(std::regex_search(info, std::regex("Pages: +" + std::to_string(pages) + "\n"))) << info;
        EXPECT_NE(info.find(size), std::string::npos) << info;
    }
    // Presenter mode captures the window's pixels: vectors are refused before any window opens.
    EXPECT_EQ(run_app("lesson tour --presenter --format svg --export-dir '" + dir.string() + "'", dir, &out,
                      &err, false),
              2);
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find("--presenter"), std::string::npos) << err;
    EXPECT_NE(run_app("lesson tour --format gif --export-dir '" + dir.string() + "'", dir, &out, &err, false),
              0);
    EXPECT_NE(err.find("gif"), std::string::npos) << err;
}

// Share of the pixels in rows [y0, y1) that are exactly this colour.
double share(const Png& png, Color32 c, int y0, int y1)
{
    int n = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = 0; x < png.w; ++x)
            n += png.px[static_cast<std::size_t>(y) * static_cast<std::size_t>(png.w) +
                        static_cast<std::size_t>(x)] == c;
    return static_cast<double>(n) / static_cast<double>((y1 - y0) * png.w);
}

TEST(LessonExport, SlidesFollowThemeOptionOrTheSavedPreferenceWithoutWindowChrome)
{
    if (!have_xvfb())
        GTEST_SKIP() << "xvfb-run is not installed";
    const fs::path dir = work_dir("lesson_theme");
    const Color32 white = pack_rgba(255, 255, 255), dark_page = pack_rgba(22, 22, 26);
    struct Case
    {
        const char* saved;  // the prefs file's theme
        const char* option; // --theme ("": none)
        bool light;         // the page expected
    };
    for (const Case& c : {Case{"light", "", true}, Case{"dark", "", false}, Case{"light", "dark", false},
                          Case{"dark", "light", true}})
    {
        SCOPED_TRACE(std::string("saved ") + c.saved + ", --theme " + c.option);
        const fs::path config = dir / (std::string("config_") + c.saved + "_" + c.option);
        fs::create_directories(config / "attnlab");
        std::ofstream(config / "attnlab" / "prefs.ini") << "theme = " << c.saved << "\n";
        const fs::path out_dir = dir / (std::string("out_") + c.saved + "_" + c.option);
        std::string out, err;
        const std::string theme = *c.option != '\0' ? std::string(" --theme ") + c.option : std::string();
        ASSERT_EQ(run_app("lesson tour --step 3 --width 1280 --height 720" + theme + " --export-dir '" +
                              out_dir.string() + "'",
                          dir, &out, &err, true, config.string()),
                  0)
            << err;
        const Png png = load_png(out_dir / "tour-03.png");
        ASSERT_EQ(png.w, 1280);
        ASSERT_EQ(png.h, 720);
        const Color32 page = c.light ? white : dark_page;
        EXPECT_GT(share(png, page, 0, png.h), 0.5);
        // No menu bar, no panel title bars: the top rows are the page (and the small header's text).
        EXPECT_GT(share(png, page, 0, 12), 0.95);
        EXPECT_GT(heatmap_pixels(png), png.w * png.h / 50); // the scores map
    }
    // --theme takes only dark or light, before any window opens.
    std::string out, err;
    EXPECT_NE(
        run_app("lesson tour --theme purple --export-dir '" + dir.string() + "'", dir, &out, &err, false), 0);
    EXPECT_NE(err.find("purple"), std::string::npos) << err;
}

TEST(LessonExport, UnknownLessonIsOneLineListingTheValidIds)
{
    const fs::path dir = work_dir("lesson_unknown");
    std::string out, err;
    // Checked before any window opens, so it needs no display.
    EXPECT_EQ(run_app("--lesson no_such_lesson", dir, &out, &err, false), 2);
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find("no_such_lesson"), std::string::npos) << err;
    for (const char* id : {"tour", "typo", "multi_head", "cross_attention"})
        EXPECT_NE(err.find(id), std::string::npos) << id << ": " << err;
    EXPECT_EQ(run_app("lesson nope --export-dir '" + dir.string() + "'", dir, &out, &err, false), 2);
    EXPECT_EQ(run_app("--lesson tour --step 99", dir, &out, &err, false), 2);
    EXPECT_NE(err.find("1..11"), std::string::npos) << err;
    // A lesson sets each step's text and model: options it would drop are refused by name, not ignored.
    EXPECT_EQ(run_app("--lesson tour --text 'my own words' --heads 2", dir, &out, &err, false), 2);
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find("--text"), std::string::npos) << err;
    EXPECT_NE(err.find("--heads"), std::string::npos) << err;
    EXPECT_NE(err.find("Lessons menu"), std::string::npos) << err;
    // The same for the slides command, which wrote "arguments were not expected: my own words --text".
    EXPECT_EQ(run_app("lesson tour --export-dir '" + dir.string() + "' --text 'my own words' --heads 2", dir,
                      &out, &err, false),
              2);
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(
        err.find("lesson sets the text and the model of each of its steps, so --text, --heads would not "
                 "be used"),
        std::string::npos)
        << err;
    EXPECT_TRUE(files_in(dir, ".png").empty());
    EXPECT_EQ(run_app("lesson --help", dir, &out, &err, false), 0);
    EXPECT_EQ(out.find("--heads"), std::string::npos) << "refused options stay out of the help\n" << out;
}

TEST(LessonExport, UnwritableFolderFailsAndWritesNothing)
{
    const fs::path dir = work_dir("lesson_unwritable");
    std::string out, err;
    const int code = run_app("lesson tour --export-dir /proc/attnlab-cannot-write", dir, &out, &err, false);
    EXPECT_NE(code, 0);
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find("/proc/attnlab-cannot-write"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists("/proc/attnlab-cannot-write"));
}

} // namespace
} // namespace attnlab
