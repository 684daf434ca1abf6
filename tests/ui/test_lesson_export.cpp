// The window's lesson slide export (File > Export lesson slides, Ctrl+Shift+E), on its worker thread: the
// dialog's defaults and choices, files byte for byte the command line's (`attnlab lesson ID --export-dir
// DIR`, the same job run as app/lesson_export.cpp runs it) for a lesson and for one that trains a run, the
// frames going on and the student's edits not reaching the slides, and failures, Cancel and quitting that
// leave nothing.
#include "core/io/lesson_file.h"
#include "ui/model/lesson_export.h"
#include "ui/model/lesson_export_worker.h"
#include "ui/model/lessons.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
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

// Frames until the dialog's export ends (at most `limit`; the worker writes while they go on). Every frame
// that ends with the export under way shows its progress in the status bar (or that it is being cancelled).
bool run_dialog_export(HeadlessUi& ui, AppState& state, int limit)
{
    for (int i = 0; i < limit && state.lesson_export.job != nullptr; ++i)
    {
        ui.frame(state);
        if (state.lesson_export.job == nullptr)
            break;
        const std::string bar = test::window_text("##status");
        EXPECT_TRUE(contains(bar, "Exporting slides") || contains(bar, "Cancelling the slide export"))
            << "frame " << i << ": the progress\n"
            << bar;
        std::this_thread::sleep_for(std::chrono::milliseconds(1)); // the worker's turn
    }
    return state.lesson_export.job == nullptr;
}

// Holds the export's worker before the slides chosen (LessonExportDialog::before_slide is called on the
// worker's thread) until the test lets it go on; the test's frames go on meanwhile.
class SlideGate
{
public:
    explicit SlideGate(std::set<int> hold) : hold_(std::move(hold)) {}
    std::function<void(int)> hook()
    {
        return [this](int done) { arrive(done); };
    }
    // Waits until the worker is held before the slide after `done` (false: it never came, in a minute).
    bool wait_held(int done)
    {
        std::unique_lock<std::mutex> lock(mutex_);
        return changed_.wait_for(lock, std::chrono::seconds(60), [&] { return held_ == done; });
    }
    // Lets the held worker go on.
    void release()
    {
        std::lock_guard<std::mutex> lock(mutex_);
        held_ = -1;
        changed_.notify_all();
    }
    // Holds nothing more.
    void open()
    {
        std::lock_guard<std::mutex> lock(mutex_);
        open_ = true;
        held_ = -1;
        changed_.notify_all();
    }

private:
    void arrive(int done)
    {
        std::unique_lock<std::mutex> lock(mutex_);
        if (open_ || hold_.count(done) == 0)
            return;
        held_ = done;
        changed_.notify_all();
        changed_.wait(lock, [&] { return open_ || held_ != done; });
    }
    std::set<int> hold_;
    std::mutex mutex_;
    std::condition_variable changed_;
    int held_ = -1;
    bool open_ = false;
};

// Opens the gate when it goes (declared after the state: an assertion that ends the test early never leaves
// the worker held while the state's destructor joins it).
struct OpenOnExit
{
    SlideGate& gate;
    ~OpenOnExit() { gate.open(); }
};

// The slides the hidden folder holds so far.
int hidden_slides(const fs::path& dir, const std::string& id)
{
    const fs::path hidden = dir / (".attnlab-export-" + id);
    std::error_code ec;
    if (!fs::is_directory(hidden, ec))
        return 0;
    int n = 0;
    for (const fs::directory_entry& e : fs::directory_iterator(hidden))
        n += e.path().filename().string()[0] != '.';
    return n;
}

// The command line's export of a built-in lesson into a fresh folder (a picture's state entered at the
// lesson's first step, as `attnlab lesson` starts it).
fs::path command_line_files(HeadlessUi& ui, const std::string& id, const std::string& name,
                            PictureFormat format, int w, int h)
{
    const fs::path dir = temp_dir(name);
    auto cli = std::make_unique<AppState>();
    cli->mouse_ignored = true;
    load_lesson_library(*cli, default_lessons_dir());
    enter_lesson(*cli, lesson_index(*cli, id), 0);
    LessonExportSpec spec;
    spec.dir = dir.string();
    spec.format = format;
    spec.width = w;
    spec.height = h;
    std::string out, err;
    EXPECT_EQ(command_line_export(ui, *cli, spec, &out, &err), 0) << err;
    return dir;
}

// Both folders hold the same files, byte for byte (and at least `n` of them).
void expect_same_files(const fs::path& cli_dir, const fs::path& win_dir, std::size_t n)
{
    const std::set<std::string> files = entries(cli_dir);
    ASSERT_EQ(files.size(), n);
    EXPECT_EQ(entries(win_dir), files) << "the same names, no hidden folder left";
    for (const std::string& f : files)
    {
        const std::string a = read_bytes(cli_dir / f), b = read_bytes(win_dir / f);
        EXPECT_GT(a.size(), 1000u) << f;
        EXPECT_TRUE(a == b) << f << ": " << a.size() << " vs " << b.size() << " bytes";
    }
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
          "typo-01.png … typo-04.png", "Export", "Cancel"})
        EXPECT_TRUE(contains(out.text, text)) << text << "\n" << out.text;
    // The relative folder is named in full, since a window opened from a menu never says its working folder.
    EXPECT_TRUE(contains(out.text, "in " + (fs::current_path() / "typo-slides").string())) << out.text;
    click_label(ui, *state, "1600x1000 (16:10)", true);
    EXPECT_EQ(d.slide_width, 1600);
    EXPECT_EQ(d.slide_height, 1000);
    click_label(ui, *state, "PDF (one file, a page per step)", true);
    EXPECT_EQ(d.format, ExportFormat::Pdf);
    out = ui.frames(*state, 2);
    EXPECT_TRUE(contains(out.text, "typo.pdf")) << out.text;
    EXPECT_FALSE(contains(out.text, "typo-01")) << out.text;
    ui.press_key(*state, kEscape);
    out = ui.frames(*state, 2);
    EXPECT_FALSE(contains(out.text, "a slide each")) << "Esc closes it";
    EXPECT_EQ(state->lesson.step, 1);
}

// A folder too long for the dialog wraps on lines of its own: the files' names under it stay whole (the
// wrap used to split "typo-04.png" after its dot when the working folder was long).
TEST(LessonExportDialog, ALongFolderWrapsWithoutSplittingTheFileNames)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    load_lesson_library(*state, default_lessons_dir());
    enter_lesson(*state, lesson_index(*state, "typo"), 1);
    ui.frames(*state, 2);
    ImGui::GetIO().KeyShift = true;
    ui.press_key(*state, 'E', true, false);
    ImGui::GetIO().KeyShift = false;
    ui.frames(*state, 3);
    click_label(ui, *state, "PNG (a picture per step)", true); // the folder's field lets go of its text
    for (const std::string& name : {std::string(5, 'a'), std::string(60, 'b'), std::string(200, 'c')})
    {
        const fs::path dir = fs::path("/tmp") / name / "lecture.notes" / name / "typo-slides";
        state->lesson_export.dir = dir.string();
        const test::FrameOutput out = ui.frames(*state, 2);
        EXPECT_TRUE(contains(out.text, "typo-01.png … typo-04.png")) << name.size() << "\n" << out.text;
        std::string shown; // the folder's lines, joined again (a wrap at a space drops it)
        std::size_t from = out.text.find("\nin /tmp/");
        from = from != std::string::npos ? from : out.text.find("\nin\n/tmp/");
        for (std::size_t at = from == std::string::npos ? from : from + 1;
             at != std::string::npos && at < out.text.size();)
        {
            const std::size_t end = out.text.find('\n', at);
            const std::string line = out.text.substr(at, end - at);
            if (contains(line, "typo-01.png"))
                break;
            shown += line;
            shown.erase(std::remove(shown.begin(), shown.end(), ' '), shown.end());
            at = end == std::string::npos ? end : end + 1;
        }
        EXPECT_EQ(shown, "in" + dir.string()) << out.text;
    }
}

// The dialog's export of a lesson, on its worker, writes exactly the command line's files (PNG, SVG, PDF;
// both sizes); the dialog closes when it starts, the window's lesson stays at the step the student is on, and
// the status bar says where the slides went.
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
        const fs::path cli_dir = command_line_files(ui, "typo", "cli-" + name, c.picture, c.w, c.h);

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
        const test::FrameOutput during = ui.frames(*state, 2);
        EXPECT_FALSE(contains(during.text, "a slide each")) << "the dialog closed: the student works on";
        ASSERT_TRUE(run_dialog_export(ui, *state, 100000));
        EXPECT_EQ(d.error, "");
        EXPECT_FALSE(state->message_is_error) << state->message;
        const std::string where =
            c.picture == PictureFormat::Pdf ? (win_dir / "typo.pdf").string() : win_dir.string();
        EXPECT_EQ(state->message, "4 slides written to " + where);
        EXPECT_EQ(state->lesson.step, 2) << "the window's lesson never moved";
        ui.frames(*state, 2);
        EXPECT_TRUE(contains(test::window_text("##status"), "4 slides written to"))
            << "the status bar says so";
        expect_same_files(cli_dir, win_dir, c.picture == PictureFormat::Pdf ? 1u : 4u);
    }
}

// The window goes on while the worker writes: held before each slide, frames are drawn and the status bar
// counts the slides ("Exporting slides 2 / 4 …"); the hidden folder fills one slide at a time and the folder
// shows nothing before the last. The student moves to another step, types another sentence and switches the
// theme meanwhile: the slides are still the command line's (the worker exports the lesson as it was).
TEST(LessonExportDialog, TheWindowGoesOnAndItsEditsDoNotReachTheSlides)
{
    HeadlessUi ui;
    const fs::path cli_dir = command_line_files(ui, "typo", "cli", PictureFormat::Png, 1920, 1080);
    const fs::path dir = temp_dir("window");
    SlideGate gate({0, 1, 2, 3});
    auto state = std::make_unique<AppState>();
    OpenOnExit open_gate{gate};
    load_lesson_library(*state, default_lessons_dir());
    enter_lesson(*state, lesson_index(*state, "typo"), 0);
    ui.frames(*state, 2);
    LessonExportDialog& d = state->lesson_export;
    d.dir = dir.string();
    d.before_slide = gate.hook();
    open_lesson_export_dialog(*state);
    ui.frames(*state, 3);
    click_label(ui, *state, "ExportCancel", false);
    ASSERT_NE(d.job, nullptr);
    for (int k = 0; k < 4; ++k)
    {
        SCOPED_TRACE(k);
        ASSERT_TRUE(gate.wait_held(k));
        ui.frames(*state, 2);
        const std::string bar = test::window_text("##status");
        EXPECT_TRUE(contains(bar, "Exporting slides " + std::to_string(k + 1) + " / 4 …")) << bar;
        EXPECT_EQ(hidden_slides(dir, "typo"), k);
        EXPECT_EQ(entries(dir), (std::set<std::string>{".attnlab-export-typo"})) << "no slide in place yet";
        if (k == 1)
        {
            next_step(*state);
            state->session.text = "the student types another sentence";
            state->edit();
            state->prefs.dark_theme = false;
            state->prefs.stretch_weights = true;
            ui.frames(*state, 2);
        }
        gate.release();
    }
    ASSERT_TRUE(run_dialog_export(ui, *state, 100000));
    EXPECT_EQ(state->message, "4 slides written to " + dir.string());
    EXPECT_EQ(state->lesson.step, 1) << "where the student went";
    expect_same_files(cli_dir, dir, 4u);
}

// A lesson that trains a run: the worker trains the export's own run (the student's paused run stays paused
// at its step) and then writes the command line's files, whose run was trained at once.
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
    state->training_run.pause(); // and the student pauses it
    state->training_run.poll(state->training.view);
    const int paused_at = state->training.view.step;
    state->lesson_export.dir = win_dir.string();
    open_lesson_export_dialog(*state);
    ui.frames(*state, 3);
    ASSERT_TRUE(start_lesson_export(*state).is_ok());
    ASSERT_TRUE(run_dialog_export(ui, *state, 100000));
    EXPECT_EQ(state->lesson_export.error, "");
    EXPECT_FALSE(state->training_run.running()) << "the student's run is still paused";
    state->training_run.poll(state->training.view);
    EXPECT_EQ(state->training.view.step, paused_at);
    const std::set<std::string> files = entries(cli_dir);
    ASSERT_EQ(files, (std::set<std::string>{"t-01.png", "t-02.png"}));
    EXPECT_EQ(entries(win_dir), files);
    for (const std::string& f : files)
        EXPECT_TRUE(read_bytes(cli_dir / f) == read_bytes(win_dir / f)) << f;
}

// A folder that cannot be made is refused at once, in the dialog, with nothing written; a write failing
// half-way (the hidden folder gone) leaves nothing either: the status bar says which step failed and what to
// do, and the dialog opens again with it.
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
    EXPECT_TRUE(contains(d.error, "cannot write to " + d.dir + ": Not a directory")) << d.error;
    EXPECT_TRUE(contains(d.error, "Choose a folder you can write to")) << d.error;
    test::FrameOutput out = ui.frames(*state, 2);
    EXPECT_TRUE(contains(out.text, "cannot write to")) << "the dialog says why\n" << out.text;
    EXPECT_EQ(entries(dir), (std::set<std::string>{"a-file"})) << "nothing made";

    // Half-way: before the second slide (on the worker's thread) the hidden folder becomes a file, so the
    // second cannot be written.
    const fs::path hidden = dir / ".attnlab-export-typo";
    d.dir = dir.string();
    d.before_slide = [&](int done)
    {
        if (done != 1)
            return;
        fs::remove_all(hidden);
        std::ofstream(hidden) << "in the way";
    };
    ASSERT_TRUE(start_lesson_export(*state).is_ok());
    ASSERT_TRUE(run_dialog_export(ui, *state, 100000));
    EXPECT_TRUE(contains(d.error, "Nothing was exported: step 2:")) << d.error;
    EXPECT_TRUE(contains(d.error, "that you can write to it")) << d.error;
    EXPECT_TRUE(state->message_is_error);
    EXPECT_EQ(entries(dir), (std::set<std::string>{"a-file"})) << "no slide, no hidden folder";
    out = ui.frames(*state, 3);
    EXPECT_TRUE(contains(out.text, "Nothing was exported")) << "the dialog is back and says why\n"
                                                            << out.text;
    EXPECT_TRUE(contains(out.text, "a slide each")) << "to choose another folder\n" << out.text;
}

// The status bar's Cancel half-way stops the export before its next slide: no slide and no hidden folder
// are left, and the window's lesson is where it was.
TEST(LessonExportDialog, CancelLeavesNothing)
{
    HeadlessUi ui;
    const fs::path dir = temp_dir("out");
    SlideGate gate({2});
    auto state = std::make_unique<AppState>();
    OpenOnExit open_gate{gate};
    load_lesson_library(*state, default_lessons_dir());
    enter_lesson(*state, lesson_index(*state, "typo"), 1);
    LessonExportDialog& d = state->lesson_export;
    d.dir = dir.string();
    d.before_slide = gate.hook();
    open_lesson_export_dialog(*state);
    ui.frames(*state, 3);
    ASSERT_TRUE(start_lesson_export(*state).is_ok());
    ASSERT_TRUE(gate.wait_held(2));
    ui.frames(*state, 3);
    EXPECT_TRUE(contains(test::window_text("##status"), "Exporting slides 3 / 4 …"));
    EXPECT_EQ(hidden_slides(dir, "typo"), 2);
    click_label(ui, *state, "Cancel", false);
    ASSERT_NE(d.job, nullptr);
    EXPECT_TRUE(d.job->cancel_requested());
    ui.frame(*state);
    EXPECT_TRUE(contains(test::window_text("##status"), "Cancelling the slide export…"));
    gate.release();
    ASSERT_TRUE(run_dialog_export(ui, *state, 100000));
    EXPECT_TRUE(entries(dir).empty()) << "no slide, no hidden folder";
    EXPECT_EQ(state->lesson.step, 1);
    EXPECT_EQ(state->message, "Lesson slides: export cancelled, nothing written");
}

// Quitting while a step's run trains for the export (20,000 steps, far more than the test waits for): the
// state goes, its export stops within a training step, and nothing of it is left.
TEST(LessonExportDialog, QuittingWhileItTrainsStopsItAndLeavesNothing)
{
    HeadlessUi ui;
    Lesson lesson;
    std::string long_lesson = kSmallTextLesson;
    long_lesson.replace(long_lesson.find("\"steps\": 40"), 11, "\"steps\": 20000");
    ASSERT_TRUE(parse_lesson(long_lesson, "t.json", &lesson).is_ok());
    const fs::path dir = temp_dir("out");
    auto state = std::make_unique<AppState>();
    state->lesson.library.lessons.push_back(lesson);
    enter_lesson(*state, 0, 0);
    state->training_run.pause();
    state->lesson_export.dir = dir.string();
    ASSERT_TRUE(start_lesson_export(*state).is_ok());
    bool training = false;
    for (int i = 0; i < 100000 && !training; ++i)
    {
        ui.frame(*state);
        training = contains(test::window_text("##status"), "training its run, step");
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_TRUE(training) << "the status bar says the slide waits for its run";
    EXPECT_EQ(hidden_slides(dir, "t"), 0);
    state.reset();
    EXPECT_TRUE(entries(dir).empty()) << "no slide, no hidden folder";
}

} // namespace attnlab
