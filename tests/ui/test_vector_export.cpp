// Vector exports: the SVG of a heatmap, of the training curves and of a lesson slide is well-formed XML
// (xmllint), keeps its text as <text>, and rendered by librsvg (rsvg-convert) matches the PNG of the same
// export; a lesson's PDF has one page per step (pdfinfo), its text as text (pdftotext), and rendered by
// poppler (pdftoppm) matches the PNG of the step. The tools come from the project's package list (.ci/dev):
// a missing one fails the test with the package to install.
#include "ui/model/app_state.h"
#include "ui/model/lessons.h"
#include "ui/model/training/training_run.h"
#include "ui/picture/export.h"
#include "ui/picture/font_file.h"
#include "ui/picture/heatmap_math.h"
#include "ui/picture/slides.h"
#include "ui/picture/vector_out.h"

#include <stb_image.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;

fs::path temp_dir()
{
    const fs::path dir = fs::path(ATTNLAB_BINARY_DIR) / "tests" / "ui" / "out" / "vector_export" /
                         ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::string read_text(const fs::path& p)
{
    std::ifstream f(p);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// Runs a shell command with stdout and stderr to `log`; its exit status.
int run(const std::string& command, const fs::path& log)
{
    const int status = std::system((command + " >'" + log.string() + "' 2>&1").c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// True when the tool is on PATH; otherwise the test fails naming the Debian package that has it.
bool have_tool(const std::string& tool, const std::string& package)
{
    if (std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0)
        return true;
    ADD_FAILURE() << tool << " is not installed: apt-get install " << package
                  << " (bash .ci/dev installs the project's package list)";
    return false;
}

struct Rgb
{
    int w = 0, h = 0;
    std::vector<unsigned char> px; // RGB
};

Rgb load_rgb(const fs::path& p)
{
    Rgb out;
    int n = 0;
    unsigned char* data = stbi_load(p.string().c_str(), &out.w, &out.h, &n, 3);
    if (data == nullptr)
        return out;
    out.px.assign(data, data + static_cast<std::size_t>(out.w) * static_cast<std::size_t>(out.h) * 3);
    stbi_image_free(data);
    return out;
}

Rgb rgb_of(const Image& img)
{
    Rgb out;
    out.w = img.width;
    out.h = img.height;
    for (const Color32 c : img.pixels)
        for (const std::uint8_t v : {red_of(c), green_of(c), blue_of(c)})
            out.px.push_back(v);
    return out;
}

// How far a rendering is from the PNG: the mean absolute difference of the channels (0..255), and the share
// of pixels where some channel differs by more than 96 (a misplaced cell or line, not a glyph's edge).
struct Difference
{
    double mean = 0.0;
    double far_share = 0.0;
};

Difference difference(const Rgb& a, const Rgb& b)
{
    Difference d;
    if (a.w != b.w || a.h != b.h || a.px.empty())
    {
        d.mean = d.far_share = 1e9;
        return d;
    }
    double sum = 0.0;
    long far = 0;
    for (std::size_t i = 0; i < a.px.size(); i += 3)
    {
        int worst = 0;
        for (std::size_t k = 0; k < 3; ++k)
        {
            const int diff = std::abs(static_cast<int>(a.px[i + k]) - static_cast<int>(b.px[i + k]));
            sum += diff;
            worst = std::max(worst, diff);
        }
        far += worst > 96;
    }
    d.mean = sum / static_cast<double>(a.px.size());
    d.far_share = static_cast<double>(far) / static_cast<double>(a.px.size() / 3);
    return d;
}

// The tolerance for a vector rendering against the PNG: the two draw text with different rasterisers
// (stb_truetype against FreeType with hinting), so glyph edges differ; cells, bars, frames and lines fall on
// the same pixels. Measured on the exports below: mean 1.4–3.0, far pixels 0.5–1.1 % (a heatmap with numbers
// in every cell has the most text for its size).
constexpr double kMaxMeanDifference = 4.0;
constexpr double kMaxFarShare = 0.03;

// Writes the SVG, checks it with xmllint and renders it with rsvg-convert; the rendering is compared with the
// picture's own pixels.
void expect_svg_matches(const Image& img, const fs::path& dir, const std::string& name)
{
    SCOPED_TRACE(name);
    ASSERT_GT(img.width, 0);
    const fs::path svg = dir / (name + ".svg"), rendered = dir / (name + "-rsvg.png");
    ASSERT_TRUE(write_svg(img, svg.string()).is_ok());
    ASSERT_TRUE(write_png(img, (dir / (name + ".png")).string()).is_ok());
    if (!have_tool("xmllint", "libxml2-utils") || !have_tool("rsvg-convert", "librsvg2-bin"))
        return;
    EXPECT_EQ(run("xmllint --noout '" + svg.string() + "'", dir / "xmllint.txt"), 0)
        << read_text(dir / "xmllint.txt");
    ASSERT_EQ(run("rsvg-convert -o '" + rendered.string() + "' '" + svg.string() + "'", dir / "rsvg.txt"), 0)
        << read_text(dir / "rsvg.txt");
    const Rgb r = load_rgb(rendered);
    ASSERT_EQ(r.w, img.width);
    ASSERT_EQ(r.h, img.height);
    const Difference d = difference(rgb_of(img), r);
    std::printf("%s: mean absolute difference %.2f, pixels far off %.2f %%\n", name.c_str(), d.mean,
                100.0 * d.far_share);
    EXPECT_LT(d.mean, kMaxMeanDifference);
    EXPECT_LT(d.far_share, kMaxFarShare);
}

class VectorExportTest : public ::testing::Test
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

TEST_F(VectorExportTest, HeatmapSvgIsTheSamePictureWithTextAsText)
{
    const fs::path dir = temp_dir();
    for (const bool dark : {false, true})
    {
        const HeatmapPicture p = heatmap_picture(*state, ref(Stage::masked));
        const Image img = render_heatmap_image(p, 48, dark);
        expect_svg_matches(img, dir, dark ? "masked-dark" : "masked");
        const std::string svg = svg_document(img);
        // The hatching is a pattern shared by the masked cells; every label is a <text>.
        EXPECT_NE(svg.find("<pattern id=\"hatch0\""), std::string::npos);
        EXPECT_NE(svg.find("font-family=\"&apos;DejaVu Sans&apos;"), std::string::npos);
        if (!find_font_file().empty())
        {
            EXPECT_NE(svg.find(">Masked scores"), std::string::npos) << svg.substr(0, 2000);
            EXPECT_NE(svg.find(">query</text>"), std::string::npos);
            EXPECT_NE(svg.find("rotate(-90)"), std::string::npos); // the row axis title reads upwards
        }
    }
    // Small cells: numbers left out, labels thinned; still the same picture.
    expect_svg_matches(render_heatmap_image(heatmap_picture(*state, ref(Stage::weights)), 9), dir,
                       "weights-small");
}

// The exported colour bar says what its extra mark is, as the window's does: X's bar is symmetric about 0
// from its largest magnitude, and the data's end on the other side reads "min …" or "max …".
TEST_F(VectorExportTest, TheColourBarNamesTheDataEndTheScaleDoesNotShow)
{
    if (find_font_file().empty())
        GTEST_SKIP() << "no font: the SVG has no text";
    const HeatmapPicture p = heatmap_picture(*state, ref(Stage::X));
    ASSERT_NE(p.view.m, nullptr);
    const std::string svg = svg_document(render_heatmap_image(p, 40));
    const Mat& m = *p.view.m;
    const float lo = m.minCoeff(), hi = m.maxCoeff();
    const NumberFormat f = choose_number_format(std::max(std::fabs(lo), std::fabs(hi)));
    const bool max_is_end = std::fabs(hi) >= std::fabs(lo);
    const std::string inner = format_number(max_is_end ? lo : hi, f);
    EXPECT_NE(svg.find(std::string(max_is_end ? ">min " : ">max ") + inner + "</text>"), std::string::npos)
        << inner;
    // The bare number only in the cells that hold it, never beside the bar.
    int cells = 0, bare = 0;
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            cells += format_number(m(r, c), f) == inner ? 1 : 0;
    for (std::size_t at = svg.find(">" + inner + "</text>"); at != std::string::npos;
         at = svg.find(">" + inner + "</text>", at + 1))
        ++bare;
    EXPECT_EQ(bare, cells) << "a bare " << inner << " beside the bar";
}

TEST_F(VectorExportTest, SvgEscapesTextForXml)
{
    const fs::path dir = temp_dir();
    HeatmapPicture p = heatmap_picture(*state, ref(Stage::weights));
    p.title = "A<B & \"C\" 'D' > E";
    const Image img = render_heatmap_image(p, 30);
    const std::string svg = svg_document(img);
    if (!find_font_file().empty())
    {
        EXPECT_NE(svg.find(">A&lt;B &amp; &quot;C&quot; &apos;D&apos; &gt; E</text>"), std::string::npos);
    }
    EXPECT_EQ(svg.find("A<B"), std::string::npos);
    expect_svg_matches(img, dir, "escaped");
}

TEST_F(VectorExportTest, EveryExportFormatWritesItsFile)
{
    const fs::path dir = temp_dir();
    const HeatmapPicture p = heatmap_picture(*state, ref(Stage::weights));
    for (const PictureFormat f : {PictureFormat::Png, PictureFormat::Svg, PictureFormat::Pdf})
    {
        const fs::path path = dir / (std::string("weights.") + picture_format_name(f));
        ASSERT_TRUE(export_heatmap(p, path.string(), 40, f).is_ok()) << path;
        const std::string head = read_text(path).substr(0, 8);
        EXPECT_EQ(head.substr(0, f == PictureFormat::Png ? 4 : 5), f == PictureFormat::Png
                                                                       ? std::string("\x89PNG")
                                                                   : f == PictureFormat::Svg ? "<?xml"
                                                                                             : "%PDF-")
            << path;
        EXPECT_EQ(picture_format_of_path(path.string()), f);
    }
    PictureFormat f = PictureFormat::Png;
    EXPECT_TRUE(parse_picture_format("pdf", &f));
    EXPECT_EQ(f, PictureFormat::Pdf);
    EXPECT_FALSE(parse_picture_format("jpeg", &f));
    // An unwritable path is a message naming it, as for PNG.
    const Status s = export_heatmap(p, "/proc/attnlab-no/weights.svg", 40, PictureFormat::Svg);
    EXPECT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("/proc/attnlab-no/weights.svg"), std::string::npos) << s.message();
}

TEST(VectorExport, TrainingCurvesSvgMatchesThePng)
{
    const fs::path dir = temp_dir();
    TrainingRun run;
    train::RunSpec spec(train::TaskKind::Reverse);
    spec.steps = 60;
    ASSERT_TRUE(run.configure(spec).is_ok());
    run.step_now(60);
    TrainingSnapshot s;
    run.poll(s);
    const Image img = render_curves_image(s, 60);
    expect_svg_matches(img, dir, "curves");
    EXPECT_NE(svg_document(img).find("<polyline"), std::string::npos); // the curves are lines, not pixels
    const fs::path path = dir / "curves-file.pdf";
    ASSERT_TRUE(export_curves_picture(s, 60, path.string()).is_ok());
    EXPECT_EQ(read_text(path).substr(0, 5), "%PDF-");
}

class LessonVectorTest : public ::testing::Test
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
    Image slide(int step, bool dark)
    {
        enter_lesson(*state, tour, step);
        state->update();
        state->finish_recompute();
        EXPECT_TRUE(state->status.is_ok()) << state->status.message();
        return render_lesson_slide(*state, 1920, 1080, dark);
    }
    std::unique_ptr<AppState> state = std::make_unique<AppState>();
    int tour = -1;
};

TEST_F(LessonVectorTest, SlideSvgMatchesThePngInBothThemes)
{
    const fs::path dir = temp_dir();
    expect_svg_matches(slide(2, false), dir, "tour-03-light"); // scores, one cell outlined
    expect_svg_matches(slide(10, true), dir, "tour-11-dark");  // every head
}

TEST_F(LessonVectorTest, LessonPdfHasOnePagePerStepThatMatchesItsPng)
{
    const fs::path dir = temp_dir();
    const int n =
        static_cast<int>(state->lesson.library.lessons[static_cast<std::size_t>(tour)].steps.size());
    std::vector<Image> slides;
    for (int k = 0; k < n; ++k)
        slides.push_back(slide(k, false));
    std::vector<const Image*> pages;
    for (const Image& s : slides)
        pages.push_back(&s);
    const fs::path pdf = dir / "tour.pdf";
    ASSERT_TRUE(write_pdf(pages, pdf.string()).is_ok());
    if (!have_tool("pdfinfo", "poppler-utils") || !have_tool("pdftoppm", "poppler-utils"))
        return;
    ASSERT_EQ(run("pdfinfo '" + pdf.string() + "'", dir / "pdfinfo.txt"), 0);
    const std::string info = read_text(dir / "pdfinfo.txt");
    EXPECT_TRUE(std::regex_search(info, std::regex("Pages: +" + std::to_string(n) + "\n"))) << info;
    // A 1920x1080 slide is a 960x540 pt page (13.33 x 7.5 in).
    EXPECT_TRUE(std::regex_search(info, std::regex("Page size: +960 x 540 pts"))) << info;
    // Page 3 at 144 dpi is 1920x1080 pixels again: the same picture as the PNG.
    ASSERT_EQ(run("pdftoppm -r 144 -f 3 -l 3 -png -singlefile '" + pdf.string() + "' '" +
                      (dir / "page3").string() + "'",
                  dir / "pdftoppm.txt"),
              0)
        << read_text(dir / "pdftoppm.txt");
    const Rgb page = load_rgb(dir / "page3.png");
    ASSERT_EQ(page.w, 1920);
    ASSERT_EQ(page.h, 1080);
    const Difference d = difference(rgb_of(slides[2]), page);
    std::printf("tour.pdf page 3: mean absolute difference %.2f, pixels far off %.2f %%\n", d.mean,
                100.0 * d.far_share);
    EXPECT_LT(d.mean, kMaxMeanDifference);
    EXPECT_LT(d.far_share, kMaxFarShare);
    if (find_font_file().empty() || !have_tool("pdftotext", "poppler-utils"))
        return;
    // The text is text: the step's title comes out of the page as characters.
    ASSERT_EQ(run("pdftotext -f 3 -l 3 '" + pdf.string() + "' '" + (dir / "page3.txt").string() + "'",
                  dir / "pdftotext.txt"),
              0);
    const std::string title = state->lesson.library.lessons[static_cast<std::size_t>(tour)].steps[2].title;
    EXPECT_NE(read_text(dir / "page3.txt").find(title), std::string::npos) << read_text(dir / "page3.txt");
}

// Chinese token labels in a PDF are glyphs from the fallback font, as in the PNG, not the empty boxes of a
// font without them: rendered by poppler, every CJK label's box holds ink where the PNG's does, and the
// page's fonts include Droid Sans Fallback.
TEST_F(VectorExportTest, PdfDrawsChineseLabelsInTheFallbackFont)
{
    const fs::path dir = temp_dir();
    bool droid = false;
    for (const FontFile& f : load_fallback_font_files())
        droid = droid || f.path.find("DroidSansFallback") != std::string::npos;
    if (find_font_file().empty() || !droid)
    {
        ADD_FAILURE() << "DejaVu Sans or Droid Sans Fallback is missing: apt-get install fonts-dejavu-core "
                         "fonts-droid-fallback";
        return;
    }
    // The weights' tokens named by Chinese (and one Japanese) labels: "attention mechanism" and so on.
    HeatmapPicture p = heatmap_picture(*state, ref(Stage::weights));
    ASSERT_NE(p.view.m, nullptr);
    const std::vector<std::string> words = {"注意力", "机制", "日本語", "文字", "词", "句子"};
    std::vector<std::string> tokens;
    for (Eigen::Index i = 0; i < p.view.m->rows(); ++i)
        tokens.push_back(words[static_cast<std::size_t>(i) % words.size()]);
    p.view.row_tokens = &tokens;
    p.view.col_tokens = &tokens;
    const Image img = render_heatmap_image(p, 48);
    ASSERT_TRUE(write_png(img, (dir / "weights.png").string()).is_ok());
    const fs::path pdf = dir / "weights.pdf";
    ASSERT_TRUE(write_pdf({&img}, pdf.string()).is_ok());
    if (!have_tool("pdftoppm", "poppler-utils") || !have_tool("pdffonts", "poppler-utils"))
        return;
    ASSERT_EQ(run("pdffonts '" + pdf.string() + "'", dir / "pdffonts.txt"), 0);
    EXPECT_NE(read_text(dir / "pdffonts.txt").find("DroidSansFallback"), std::string::npos)
        << read_text(dir / "pdffonts.txt");
    // At 144 dpi the page (0.5 pt a pixel) is the PNG's size again.
    ASSERT_EQ(run("pdftoppm -r 144 -png -singlefile '" + pdf.string() + "' '" + (dir / "page").string() + "'",
                  dir / "pdftoppm.txt"),
              0)
        << read_text(dir / "pdftoppm.txt");
    const Rgb page = load_rgb(dir / "page.png");
    const Rgb png = rgb_of(img);
    ASSERT_EQ(page.w, png.w);
    ASSERT_EQ(page.h, png.h);
    // Ink: a pixel far from the paper (the picture's first pixel, outside every map).
    const auto ink = [](const Rgb& r, int x, int y)
    {
        const std::size_t i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(r.w) + x) * 3;
        int d = 0;
        for (std::size_t k = 0; k < 3; ++k)
            d = std::max(d, std::abs(static_cast<int>(r.px[i + k]) - static_cast<int>(r.px[k])));
        return d > 96;
    };
    int labels = 0;
    for (const DrawCommand& c : img.commands)
    {
        if (c.kind != DrawKind::Text || c.text.empty() || static_cast<unsigned char>(c.text[0]) < 0xE0)
            continue;
        ++labels;
        SCOPED_TRACE(c.text);
        // The label's box: a text_px-wide square a character, from its baseline up (rotated: to its right).
        const int chars = static_cast<int>(c.text.size() / 3);
        const float along = c.text_px * static_cast<float>(chars), across = c.text_px;
        const int x0 = static_cast<int>(c.rotated ? c.x0 - across : c.x0);
        const int x1 = static_cast<int>(c.rotated ? c.x0 + across * 0.3f : c.x0 + along);
        const int y0 = static_cast<int>(c.rotated ? c.y0 - along : c.y0 - across);
        const int y1 = static_cast<int>(c.rotated ? c.y0 : c.y0 + across * 0.3f);
        // Ink of one picture with ink of the other within a pixel (the two rasterisers place strokes a pixel
        // apart).
        const auto ink_near = [&](const Rgb& r, int x, int y)
        {
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx)
                    if (x + dx >= 0 && x + dx < r.w && y + dy >= 0 && y + dy < r.h && ink(r, x + dx, y + dy))
                        return true;
            return false;
        };
        int png_ink = 0, pdf_ink = 0, pdf_on_png = 0, png_on_pdf = 0;
        for (int y = std::max(0, y0); y < std::min(png.h, y1); ++y)
            for (int x = std::max(0, x0); x < std::min(png.w, x1); ++x)
            {
                png_ink += ink(png, x, y);
                pdf_ink += ink(page, x, y);
                pdf_on_png += ink(page, x, y) && ink_near(png, x, y);
                png_on_pdf += ink(png, x, y) && ink_near(page, x, y);
            }
        std::printf(
            "%s: ink %d px in the PNG, %d in the PDF; %d of the PDF's on the PNG's, %d of the PNG's on "
            "the PDF's\n",
            c.text.c_str(), png_ink, pdf_ink, pdf_on_png, png_on_pdf);
        ASSERT_GT(png_ink, 20);
        // The same glyphs at the same place: as much ink, and each picture's strokes on the other's (an empty
        // box's outline misses the inside of the glyph).
        EXPECT_GT(pdf_ink, png_ink * 2 / 3);
        EXPECT_LT(pdf_ink, png_ink * 3 / 2);
        EXPECT_GT(pdf_on_png, pdf_ink * 3 / 4);
        EXPECT_GT(png_on_pdf, png_ink * 3 / 4);
    }
    EXPECT_GE(labels, static_cast<int>(tokens.size())) << "a Chinese label a row";
}

TEST_F(VectorExportTest, HeadChainIsNineMapsAtOneCellSizeOnOneSlide)
{
    const fs::path dir = temp_dir();
    MatrixRef head = ref(Stage::weights); // head 2
    std::vector<std::string> texts;
    const Image slide = render_head_chain_slide(*state, head, 1920, 1080, false, nullptr, &texts);
    ASSERT_EQ(slide.width, 1920);
    ASSERT_EQ(slide.height, 1080);
    // Every cell of the nine maps is one square (a rectangle, or a hatched masked cell) of one size.
    std::map<int, int> squares; // side -> count
    for (const DrawCommand& c : slide.commands)
        if ((c.kind == DrawKind::Rect || c.kind == DrawKind::Hatch) && c.x1 - c.x0 == c.y1 - c.y0 &&
            c.x1 - c.x0 >= 8.0f && c.x1 - c.x0 < 1000.0f)
            ++squares[static_cast<int>(c.x1 - c.x0)];
    long cells = 0;
    std::vector<std::string> names;
    for (const Stage stage : head_chain_stages())
    {
        MatrixRef r = head;
        r.stage = stage;
        const MatrixView view = resolve_matrix(*state, r);
        ASSERT_NE(view.m, nullptr);
        cells += view.m->size();
        names.push_back(matrix_name(*state, r));
    }
    ASSERT_EQ(squares.size(), 1u) << "more than one cell size";
    EXPECT_EQ(squares.begin()->second, cells);
    // At least 22 px at 1920x1080 for the default six-token sentence (19 px while every map repeated the
    // row labels): the maps right of a row's first one leave out its tokens.
    EXPECT_GE(squares.begin()->first, 22) << "cells as large as the slide allows, not thumbnails";
    if (!find_font_file().empty())
    {
        std::string all;
        for (const std::string& t : texts)
            all += t + "\n";
        for (const std::string& name : names)
            EXPECT_NE(all.find(name + "\n"), std::string::npos) << name << " in\n" << all;
        EXPECT_NE(all.find("Head 2: from X to head_2"), std::string::npos) << all;
        EXPECT_NE(all.find("causal mask"), std::string::npos) << all;
        for (const DrawCommand& c : slide.commands)
        {
            if (c.kind == DrawKind::Text)
            {
                EXPECT_GE(c.text_px, kSlideMinTextPx - 0.01f) << c.text;
            }
        }
    }
    expect_svg_matches(slide, dir, "chain");
    // The window's dialog writes it in the format chosen.
    ExportDialog& d = state->export_dialog;
    d.matrix = head;
    d.head_chain = true;
    d.format = ExportFormat::Pdf;
    d.path = (dir / head_chain_export_path(head, d.format)).string();
    EXPECT_EQ(fs::path(d.path).filename(), "attnlab-chain-layer1-sentence1-head2.pdf");
    run_export_dialog(*state);
    EXPECT_FALSE(state->message_is_error) << state->message;
    EXPECT_EQ(read_text(d.path).substr(0, 5), "%PDF-");
}

// Every step of every lesson, as a 1920x1080 and a 1600x1000 slide: no text under kSlideMinTextPx (scaled
// to the slide's height), so a slide pasted at half size has no text under 8 px; titles are still larger.
TEST(SlideText, NoTextUnderTheSlideMinimumOnAnyLessonStep)
{
    auto state = std::make_unique<AppState>();
    load_lesson_library(*state, default_lessons_dir());
    if (find_font_file().empty())
        GTEST_SKIP() << "no DejaVuSans.ttf: the slides have no text";
    const auto& lessons = state->lesson.library.lessons;
    ASSERT_FALSE(lessons.empty());
    for (const auto& [w, h] : {std::pair<int, int>{1920, 1080}, std::pair<int, int>{1600, 1000}})
    {
        const float floor_px = kSlideMinTextPx * static_cast<float>(h) / 1080.0f;
        float smallest = 1e9f;
        for (std::size_t i = 0; i < lessons.size(); ++i)
            for (std::size_t k = 0; k < lessons[i].steps.size(); ++k)
            {
                enter_lesson(*state, static_cast<int>(i), static_cast<int>(k));
                state->update();
                state->finish_recompute();
                const Image img = render_lesson_slide(*state, w, h, false);
                int texts = 0;
                for (const DrawCommand& c : img.commands)
                    if (c.kind == DrawKind::Text)
                    {
                        ++texts;
                        smallest = std::min(smallest, c.text_px);
                        EXPECT_GE(c.text_px, floor_px - 0.01f) << lessons[i].id << " step " << k + 1 << " at "
                                                               << w << "x" << h << ": \"" << c.text << "\"";
                    }
                EXPECT_GT(texts, 5) << lessons[i].id << " step " << k + 1;
            }
        std::printf("%dx%d: smallest text %.1f px (%.1f px at half size)\n", w, h, smallest, smallest / 2.0f);
    }
}

} // namespace
} // namespace attnlab
