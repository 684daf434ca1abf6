// The window's lesson slide export (File > Export lesson slides, Ctrl+Shift+E): the dialog's defaults and
// choices, files byte for byte the command line's (`attnlab lesson ID --export-dir DIR`, the same job run as
// app/lesson_export.cpp runs it) for a lesson and for one that trains a run, and failures that leave nothing.
#include "core/io/lesson_file.h"
#include "ui/model/lesson_export.h"
#include "ui/model/lessons.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;
using test::contains;
using test::HeadlessUi;
using test::lesson_index;

constexpr int kEscape = 256; // the headless UI's key map

fs::path temp_dir(const std::string& name)
{
    const fs::path dir = fs::path(ATTNLAB_BINARY_DIR) / "tests" / "ui" / "out" / "lesson_export" /
                         ::testing::UnitTest::GetInstance()->current_test_info()->name() / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// A file's bytes; a PDF's creation time (cairo writes the clock's second, the one difference between two
// exports of the same slides) as zeros.
std::string read_bytes(const fs::path& p)
{
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    std::string bytes = s.str();
    const std::string key = "/CreationDate (D:";
    const std::size_t at = bytes.find(key);
    if (p.extension() == ".pdf" && at != std::string::npos)
        for (std::size_t i = at + key.size(); i < bytes.size() && bytes[i] != ')'; ++i)
            bytes[i] = '0';
    return bytes;
}

// Every entry of dir (hidden ones too), by name.
std::set<std::string> entries(const fs::path& dir)
{
    std::set<std::string> names;
    for (const fs::directory_entry& e : fs::directory_iterator(dir))
        names.insert(e.path().filename().string());
    return names;
}

// The command line's export of the lesson open in `state` (a picture's state, as `attnlab lesson` starts
// it): the job app/lesson_export.cpp runs, a frame of the whole app drawn between its ticks.
int command_line_export(HeadlessUi& ui, AppState& state, const LessonExportSpec& spec, std::string* out,
                        std::string* err)
{
    std::ostringstream o, e;
    const int code = run_lesson_export(
        state, spec, false,
        [&](const std::string&)
        {
            ui.frame(state);
            return Status::ok();
        },
        o, e);
    *out = o.str();
    *err = e.str();
    return code;
}

// Clicks a label the last frame drew (a button's or a radio's, whose circle is left of it).
void click_label(HeadlessUi& ui, AppState& state, const std::string& label, bool radio)
{
    const ImVec2 at = test::text_position(label);
    ASSERT_GE(at.x, 0.0f) << label;
    const float fs = ImGui::GetFontSize();
    ui.click(state, radio ? at.x - fs * 0.6f : at.x + fs * 0.5f, at.y + fs * 0.5f);
}

// Frames until the dialog's export ends (at most `limit`); whether the progress bar said a step waited for
// its run's training. Every frame that ends with the export still under way shows its dialog (a step brought
// to the front must not close it).
bool run_dialog_export(HeadlessUi& ui, AppState& state, int limit, bool* saw_training)
{
    for (int i = 0; i < limit && state.lesson_export.job != nullptr; ++i)
    {
        const test::FrameOutput out = ui.frame(state);
        if (contains(out.text, "training its run"))
            *saw_training = true;
        if (state.lesson_export.job == nullptr)
            break;
        EXPECT_TRUE(contains(out.text, "slides to")) << "frame " << i << ": the progress dialog\n"
                                                     << out.text;
        if (state.lesson_export.job->waits_for() > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return state.lesson_export.job == nullptr;
}

const char* const kSmallTextLesson = R"({"format": "attnlab-lesson", "version": 1, "title": "t",
    "training": {"task": "text", "corpus": "austen", "steps": 40},
    "steps": [{"text": "At step 0 the weights are random.", "training": {"show_step": 0, "probe": "She smiled."}},
              {"text": "In the loss strip the second copy is paler.",
               "training": {"probe": "Mr. Darcy bowed. Mr. Darcy bowed."}}]})";

} // namespace

// Ctrl+Shift+E opens the dialog in a lesson (and nothing outside one; Ctrl+E is still the heatmap's): the
// folder "<id>-slides", PNG, 1920x1080 (16:9) chosen; 1600x1000 (16:10), SVG and PDF offered.
TEST(LessonExportDialog, OpensWithSixteenByNinePngInTheLessonsFolder)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    load_lesson_library(*state, default_lessons_dir());
    ui.frames(*state, 2);
    ui.press_key(*state, 'E', true, false);
    EXPECT_FALSE(state->lesson_export.open_request);
    test::FrameOutput out = ui.frames(*state, 3);
    EXPECT_TRUE(contains(out.text, "Export heatmap")) << "Ctrl+E: the heatmap's dialog\n" << out.text;
    EXPECT_FALSE(contains(out.text, "1600x1000 (16:10)"));
    ui.press_key(*state, kEscape);
    ImGui::GetIO().KeyShift = true;
    ui.press_key(*state, 'E', true, false);
    ImGui::GetIO().KeyShift = false;
    out = ui.frames(*state, 3);
    EXPECT_FALSE(contains(out.text, "a slide each")) << "no lesson, no dialog";

    enter_lesson(*state, lesson_index(*state, "typo"), 1);
    ui.frames(*state, 2);
    ImGui::GetIO().KeyShift = true;
    ui.press_key(*state, 'E', true, false);
    ImGui::GetIO().KeyShift = false;
    out = ui.frames(*state, 3); // (an auto-sized popup is laid out, not drawn, on its first frame)
    const LessonExportDialog& d = state->lesson_export;
    EXPECT_EQ(d.dir, "typo-slides");
    EXPECT_EQ(d.format, ExportFormat::Png);
    EXPECT_EQ(d.slide_width, 1920);
    EXPECT_EQ(d.slide_height, 1080);
    for (const char* text :
         {"4 steps, a slide each", "PNG (a picture per step)", "SVG (vectors, a file per step)",
          "PDF (one file, a page per step)", "1920x1080 (16:9)", "1600x1000 (16:10)",
          "typo-slides/typo-01.png", "typo-04.png", "Export", "Cancel"})
        EXPECT_TRUE(contains(out.text, text)) << text << "\n" << out.text;
    click_label(ui, *state, "1600x1000 (16:10)", true);
    EXPECT_EQ(d.slide_width, 1600);
    EXPECT_EQ(d.slide_height, 1000);
    click_label(ui, *state, "PDF (one file, a page per step)", true);
    EXPECT_EQ(d.format, ExportFormat::Pdf);
    out = ui.frames(*state, 2);
    EXPECT_TRUE(contains(out.text, "typo-slides/typo.pdf")) << out.text;
    ui.press_key(*state, kEscape);
    out = ui.frames(*state, 2);
    EXPECT_FALSE(contains(out.text, "a slide each")) << "Esc closes it";
    EXPECT_EQ(state->lesson.step, 1);
}

// The dialog's export of a lesson writes exactly the command line's files (PNG, SVG, PDF; both sizes), and
// the lesson is back at the step it was on.
TEST(LessonExportDialog, WritesTheCommandLinesFilesByteForByte)
{
    HeadlessUi ui;
    struct Case
    {
        ExportFormat format;
        PictureFormat picture;
        int w, h;
    };
    for (const Case& c : {Case{ExportFormat::Png, PictureFormat::Png, 1920, 1080},
                          Case{ExportFormat::Svg, PictureFormat::Svg, 1600, 1000},
                          Case{ExportFormat::Pdf, PictureFormat::Pdf, 1920, 1080}})
    {
        const std::string name = picture_format_name(c.picture);
        SCOPED_TRACE(name);
        // The command line's: a picture's state, entered at the lesson's first step.
        const fs::path cli_dir = temp_dir("cli-" + name);
        auto cli = std::make_unique<AppState>();
        cli->mouse_ignored = true;
        load_lesson_library(*cli, default_lessons_dir());
        enter_lesson(*cli, lesson_index(*cli, "typo"), 0);
        LessonExportSpec spec;
        spec.dir = cli_dir.string();
        spec.format = c.picture;
        spec.width = c.w;
        spec.height = c.h;
        std::string out, err;
        ASSERT_EQ(command_line_export(ui, *cli, spec, &out, &err), 0) << err;
        cli.reset();

        // The window's: a student on step 3, the dialog opened and Export clicked.
        const fs::path win_dir = temp_dir("window-" + name);
        auto state = std::make_unique<AppState>();
        load_lesson_library(*state, default_lessons_dir());
        enter_lesson(*state, lesson_index(*state, "typo"), 2);
        ui.frames(*state, 2);
        // The choices as a student makes them (set before the dialog opens: its folder box, focused, keeps
        // what it shows).
        LessonExportDialog& d = state->lesson_export;
        d.dir = win_dir.string();
        d.format = c.format;
        d.slide_width = c.w;
        d.slide_height = c.h;
        open_lesson_export_dialog(*state);
        ui.frames(*state, 3);
        ASSERT_EQ(d.dir, win_dir.string());
        click_label(ui, *state, "ExportCancel", false);
        ASSERT_EQ(d.error, "");
        bool training = false;
        ASSERT_TRUE(run_dialog_export(ui, *state, 200, &training));
        EXPECT_EQ(d.error, "");
        EXPECT_FALSE(state->message_is_error) << state->message;
        EXPECT_TRUE(contains(state->message, "Exported")) << state->message;
        EXPECT_EQ(state->lesson.step, 2) << "back at the step the student was on";
        const test::FrameOutput after = ui.frames(*state, 2);
        EXPECT_FALSE(contains(after.text, "a slide each")) << "the dialog closed";

        const std::set<std::string> files = entries(cli_dir);
        ASSERT_EQ(files.size(), c.picture == PictureFormat::Pdf ? 1u : 4u) << out;
        EXPECT_EQ(entries(win_dir), files) << "the same names, no hidden folder left";
        for (const std::string& f : files)
        {
            const std::string a = read_bytes(cli_dir / f), b = read_bytes(win_dir / f);
            EXPECT_GT(a.size(), 1000u) << f;
            EXPECT_TRUE(a == b) << f << ": " << a.size() << " vs " << b.size() << " bytes";
        }
    }
}

// A lesson that trains a run: the window's export waits for the run (trained on the worker while the
// frames go on, the progress bar saying so) and then writes the command line's files, whose run was
// trained at once.
TEST(LessonExportDialog, ATrainingLessonIsExportedAfterItsRunIsTrained)
{
    HeadlessUi ui;
    Lesson lesson;
    ASSERT_TRUE(parse_lesson(kSmallTextLesson, "t.json", &lesson).is_ok());
    const fs::path cli_dir = temp_dir("cli");
    auto cli = std::make_unique<AppState>();
    cli->mouse_ignored = true;
    cli->lesson.library.lessons.push_back(lesson);
    enter_lesson(*cli, 0, 0);
    LessonExportSpec spec;
    spec.dir = cli_dir.string();
    std::string out, err;
    ASSERT_EQ(command_line_export(ui, *cli, spec, &out, &err), 0) << err;
    cli.reset();

    const fs::path win_dir = temp_dir("window");
    auto state = std::make_unique<AppState>();
    state->lesson.library.lessons.push_back(lesson);
    enter_lesson(*state, 0, 0);  // the run starts training on the worker
    state->training_run.pause(); // and the student pauses it: the export plays it on
    state->lesson_export.dir = win_dir.string();
    open_lesson_export_dialog(*state);
    ui.frames(*state, 3);
    ASSERT_TRUE(start_lesson_export(*state).is_ok());
    bool training = false;
    ASSERT_TRUE(run_dialog_export(ui, *state, 20000, &training));
    EXPECT_EQ(state->lesson_export.error, "");
    EXPECT_TRUE(training) << "the progress bar said the step waits for its run";
    const std::set<std::string> files = entries(cli_dir);
    ASSERT_EQ(files, (std::set<std::string>{"t-01.png", "t-02.png"}));
    EXPECT_EQ(entries(win_dir), files);
    for (const std::string& f : files)
        EXPECT_TRUE(read_bytes(cli_dir / f) == read_bytes(win_dir / f)) << f;
}

// A folder that cannot be made is refused at once, in the dialog, with nothing written; a write failing
// half-way (the hidden folder gone) leaves nothing either, and says which step failed.
TEST(LessonExportDialog, AFailureSaysWhyAndLeavesNothing)
{
    HeadlessUi ui;
    const fs::path dir = temp_dir("out");
    auto state = std::make_unique<AppState>();
    load_lesson_library(*state, default_lessons_dir());
    enter_lesson(*state, lesson_index(*state, "typo"), 0);
    ui.frames(*state, 2);
    {
        std::ofstream(dir / "a-file") << "not a folder";
    }
    open_lesson_export_dialog(*state);
    ui.frames(*state, 3);
    LessonExportDialog& d = state->lesson_export;
    d.dir = (dir / "a-file" / "slides").string();
    EXPECT_FALSE(start_lesson_export(*state).is_ok());
    EXPECT_EQ(d.job, nullptr);
    EXPECT_TRUE(contains(d.error, "cannot write to " + d.dir)) << d.error;
    test::FrameOutput out = ui.frames(*state, 2);
    EXPECT_TRUE(contains(out.text, "cannot write to")) << "the dialog says why\n" << out.text;

    // Half-way: after the first slide the hidden folder becomes a file, so the second cannot be written.
    d.dir = dir.string();
    ASSERT_TRUE(start_lesson_export(*state).is_ok());
    const fs::path hidden = dir / ".attnlab-export-typo";
    for (int i = 0; i < 100 && d.job != nullptr && d.job->steps_done() < 1; ++i)
        ui.frame(*state);
    ASSERT_NE(d.job, nullptr);
    ASSERT_TRUE(fs::exists(hidden / "typo-01.png"));
    fs::remove_all(hidden);
    {
        std::ofstream(hidden) << "in the way";
    }
    bool training = false;
    ASSERT_TRUE(run_dialog_export(ui, *state, 100, &training));
    EXPECT_TRUE(contains(d.error, "Nothing was exported: step 2:")) << d.error;
    EXPECT_TRUE(state->message_is_error);
    EXPECT_EQ(entries(dir), (std::set<std::string>{"a-file"})) << "no slide, no hidden folder";
    out = ui.frames(*state, 2);
    EXPECT_TRUE(contains(out.text, "Nothing was exported")) << "the dialog stays open and says why\n"
                                                            << out.text;
}

// Esc (the dialog's Cancel) half-way stops the export: no slide and no hidden folder are left, and the lesson
// is back at the step the student was on.
TEST(LessonExportDialog, CancelLeavesNothingAndGoesBackToTheStep)
{
    HeadlessUi ui;
    const fs::path dir = temp_dir("out");
    auto state = std::make_unique<AppState>();
    load_lesson_library(*state, default_lessons_dir());
    enter_lesson(*state, lesson_index(*state, "typo"), 1);
    LessonExportDialog& d = state->lesson_export;
    d.dir = dir.string();
    open_lesson_export_dialog(*state);
    ui.frames(*state, 3);
    ASSERT_TRUE(start_lesson_export(*state).is_ok());
    for (int i = 0; i < 100 && d.job != nullptr && d.job->steps_done() < 2; ++i)
        ui.frame(*state);
    ASSERT_NE(d.job, nullptr);
    EXPECT_TRUE(fs::exists(dir / ".attnlab-export-typo" / "typo-02.png"));
    ui.press_key(*state, kEscape);
    EXPECT_EQ(d.job, nullptr);
    EXPECT_TRUE(entries(dir).empty()) << "no slide, no hidden folder";
    EXPECT_EQ(state->lesson.step, 1);
    EXPECT_TRUE(contains(state->message, "cancelled")) << state->message;
    const test::FrameOutput out = ui.frames(*state, 2);
    EXPECT_FALSE(contains(out.text, "slides to")) << "the dialog closed";
}

} // namespace attnlab
