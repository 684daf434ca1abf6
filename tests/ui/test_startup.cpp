// Start-up without a window (ui/model/startup.h): the config folder's files on a window's start and none for
// a picture, the lesson at its step, and the task and model main() parsed, opened as the values they are.
#include "config_home.h"
#include "core/io/lesson_file.h"
#include "core/io/session_file.h"
#include "ui/model/app_state.h"
#include "ui/model/prefs.h"
#include "ui/model/startup.h"
#include "ui/model/window_slot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;

class StartupTest : public ConfigHomeTest
{
protected:
    StartupFiles files;
};

TEST_F(StartupTest, APictureReadsNoConfigAndOpensTheLessonAtItsStep)
{
    StartupOptions o;
    o.picture = true;
    o.lessons = load_lessons(default_lessons_dir());
    const auto& lessons = o.lessons.lessons;
    const auto it =
        std::find_if(lessons.begin(), lessons.end(), [](const Lesson& l) { return l.id == "typo"; });
    ASSERT_NE(it, lessons.end());
    o.lesson = static_cast<int>(it - lessons.begin());
    o.lesson_step = 2;
    o.theme = "light";
    o.presenter = true;
    const std::unique_ptr<AppState> state = start_app(o, 1.5f, &files);
    EXPECT_TRUE(state->mouse_ignored);
    EXPECT_EQ(state->content_scale, 1.5f);
    EXPECT_EQ(state->lesson.lesson, o.lesson);
    EXPECT_EQ(state->lesson.step, 1); // --step 2
    EXPECT_TRUE(state->presenter);
    EXPECT_FALSE(state->prefs.dark_theme);
    EXPECT_TRUE(state->prefs.presenter_light);
    // Nothing read or written: the same picture on every machine.
    EXPECT_FALSE(fs::exists(prefs_path()));
    EXPECT_TRUE(files.autosave.path.empty());
    EXPECT_TRUE(files.imgui_ini.empty());
}

TEST_F(StartupTest, AWindowWritesPrefsOnTheFirstStartAndRestoresTheAutosaveAfter)
{
    StartupOptions o;
    o.session.text = "the dog ran";
    o.session_from_command_line = true;
    {
        const std::unique_ptr<AppState> first = start_app(o, 1.0f, &files);
        EXPECT_TRUE(first->show_tour_hint);
        EXPECT_TRUE(fs::exists(prefs_path()));
        EXPECT_EQ(files.imgui_ini, config_dir() + "/imgui.ini");
        EXPECT_EQ(files.autosave.path, autosave_path());
        EXPECT_EQ(files.model_autosave.path, model_autosave_path());
        EXPECT_EQ(first->session.text, "the dog ran");
        ASSERT_TRUE(autosave_tick(*first, files.autosave, 10.0, true));
    }
    StartupOptions plain; // no session on the command line: the autosaved one comes back
    const std::unique_ptr<AppState> second = start_app(plain, 1.0f, &files);
    EXPECT_FALSE(second->show_tour_hint);
    EXPECT_EQ(second->session.text, "the dog ran");
    EXPECT_TRUE(fs::exists(autosave_path().substr(0, autosave_path().size() - 5) + ".1.json"))
        << "the last run's autosave is kept before this run writes its own";
    o.session.text = "a cat";
    const std::unique_ptr<AppState> third = start_app(o, 1.0f, &files);
    EXPECT_EQ(third->session.text, "a cat"); // the command line's session is not replaced
}

TEST_F(StartupTest, EveryBadConfigFileIsSaidNotOnlyTheLast)
{
    // Folders where the preferences and the recent files should be: both are refused, and both are said.
    fs::create_directories(home / "attnlab" / "prefs.ini");
    fs::create_directories(home / "attnlab" / "recent_sessions.txt");
    StartupOptions o;
    o.session_from_command_line = true;
    const std::unique_ptr<AppState> state = start_app(o, 1.0f, &files);
    EXPECT_TRUE(state->message_is_error);
    EXPECT_NE(state->message.find("prefs.ini"), std::string::npos) << state->message;
    EXPECT_NE(state->message.find("recent_sessions.txt"), std::string::npos) << state->message;
}

TEST_F(StartupTest, TheTaskAndTheModelAreOpenedAsMainParsedThem)
{
    StartupOptions o;
    o.picture = true;
    o.train_task = train::TaskKind::Copy;
    o.train_steps = 3;
    const std::unique_ptr<AppState> trained = start_app(o, 1.0f, &files);
    ASSERT_TRUE(trained->training_run.configured());
    EXPECT_EQ(trained->training.view.config.task, train::TaskKind::Copy);
    EXPECT_EQ(trained->training.view.step, 3);
    EXPECT_EQ(trained->presenter_view, PresenterView::Training) << "F5 shows the run asked for";
    const TrainedModel model = trained->training.view.trained_model();

    StartupOptions m;
    m.picture = true;
    m.model = model;
    // No file by that name: the model main() loaded is opened as it is, not read again.
    m.model_path = (home / "never-written.json").string();
    m.trained_view = true;
    const std::unique_ptr<AppState> opened = start_app(m, 1.0f, &files);
    ASSERT_TRUE(opened->training_run.configured()) << opened->status.message();
    EXPECT_EQ(opened->training.view.step, 3);
    EXPECT_EQ(opened->training.model_path, m.model_path);
    EXPECT_TRUE(opened->trained_view.on);
    EXPECT_EQ(opened->presenter_view, PresenterView::Pipeline) << "the trained model in the main panels";
    EXPECT_FALSE(opened->prefs.open[static_cast<std::size_t>(PanelId::Training)]);
}

// Two windows on one config folder (the case): A types, B types, A types again, both quit. Each
// window's last words are in a file, and the next start offers the other window's autosave.
TEST_F(StartupTest, TwoWindowsOnOneConfigFolderKeepEachOthersWork)
{
    StartupOptions plain;
    StartupFiles files_a, files_b;
    std::unique_ptr<AppState> a = start_app(plain, 1.0f, &files_a);
    std::unique_ptr<AppState> b = start_app(plain, 1.0f, &files_b);
    EXPECT_EQ(files_a.autosave.path, autosave_path());
    EXPECT_EQ(files_a.model_autosave.path, model_autosave_path());
    ASSERT_NE(files_b.autosave.path, files_a.autosave.path);
    ASSERT_FALSE(files_b.autosave.path.empty());
    EXPECT_NE(files_b.model_autosave.path, files_a.model_autosave.path);
    EXPECT_NE(b->message.find("Another Attention Lab window uses"), std::string::npos) << b->message;
    EXPECT_NE(b->message.find(files_b.autosave.path), std::string::npos) << b->message;
    EXPECT_EQ(a->message.find("Another"), std::string::npos) << a->message;

    a->session.text = "alpha one";
    ASSERT_TRUE(autosave_tick(*a, files_a.autosave, 1.0, false));
    b->session.text = "bravo two";
    ASSERT_TRUE(autosave_tick(*b, files_b.autosave, 1.0, false));
    a->session.text = "alpha three";
    ASSERT_TRUE(autosave_tick(*a, files_a.autosave, 2.0, false));
    autosave_tick(*a, files_a.autosave, 3.0, true); // both quit
    autosave_tick(*b, files_b.autosave, 3.0, true);
    Session in_a, in_b;
    ASSERT_TRUE(load_session_file(files_a.autosave.path, &in_a).is_ok());
    ASSERT_TRUE(load_session_file(files_b.autosave.path, &in_b).is_ok());
    EXPECT_EQ(in_a.text, "alpha three");
    EXPECT_EQ(in_b.text, "bravo two");
    const std::string b_file = files_b.autosave.path;
    a.reset();
    b.reset();
    files_a = StartupFiles{}; // the windows are gone: their slots are free
    files_b = StartupFiles{};

    // The next start is the first window again; the other window's autosave is offered in File > Recent.
    StartupFiles files_c;
    const std::unique_ptr<AppState> c = start_app(plain, 1.0f, &files_c);
    EXPECT_EQ(files_c.slot.number(), 1);
    EXPECT_EQ(c->session.text, "alpha three");
    EXPECT_EQ(other_window_autosaves(c->config_folder, c->window_slot), std::vector<std::string>{b_file});
    // A second window now starts on its own last session, kept before it writes anew.
    StartupFiles files_d;
    const std::unique_ptr<AppState> d = start_app(plain, 1.0f, &files_d);
    EXPECT_EQ(files_d.autosave.path, b_file);
    EXPECT_EQ(d->session.text, "bravo two");
}

// A second window that crashed after the first one's last write: its work is named at the next start.
TEST_F(StartupTest, WorkLeftByAWindowThatCrashedIsNamedAtTheNextStart)
{
    StartupOptions plain;
    std::string b_file;
    {
        StartupFiles files_a, files_b;
        const std::unique_ptr<AppState> a = start_app(plain, 1.0f, &files_a);
        const std::unique_ptr<AppState> b = start_app(plain, 1.0f, &files_b);
        // B starts where A's autosave is, read only: nothing of A's is written by B.
        a->session.text = "alpha";
        ASSERT_TRUE(autosave_tick(*a, files_a.autosave, 1.0, true));
        b->session.text = "bravo, never saved by hand";
        ASSERT_TRUE(autosave_tick(*b, files_b.autosave, 1.0, true));
        b_file = files_b.autosave.path;
        const auto now = fs::last_write_time(autosave_path());
        fs::last_write_time(b_file, now + std::chrono::seconds(5));
    } // both gone (a kill -9 lets the locks go the same way: the process's files close)
    StartupFiles files_c;
    const std::unique_ptr<AppState> c = start_app(plain, 1.0f, &files_c);
    EXPECT_EQ(c->session.text, "alpha");
    EXPECT_NE(c->message.find(b_file), std::string::npos) << c->message;
    EXPECT_NE(c->message.find("File > Recent"), std::string::npos) << c->message;
}

// The tenth window on one folder autosaves nothing and says so; a further window's model autosave is its own.
TEST_F(StartupTest, WhenEverySlotIsTakenTheWindowSaysItsWorkIsNotAutosaved)
{
    StartupOptions plain;
    std::vector<WindowSlot> taken;
    fs::create_directories(config_dir());
    for (int i = 0; i < kMaxWindowSlots; ++i)
        taken.push_back(WindowSlot::claim(config_dir()));
    const std::unique_ptr<AppState> state = start_app(plain, 1.0f, &files);
    EXPECT_EQ(files.slot.number(), 0);
    EXPECT_TRUE(files.autosave.path.empty());
    EXPECT_TRUE(files.model_autosave.path.empty());
    EXPECT_TRUE(state->message_is_error);
    EXPECT_NE(state->message.find("not autosaved"), std::string::npos) << state->message;
}

} // namespace
} // namespace attnlab
