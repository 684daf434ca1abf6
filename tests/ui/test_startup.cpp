// Start-up without a window (ui/model/startup.h): the config folder's files on a window's start and none for
// a picture, the lesson at its step, and the task and model main() parsed, opened as the values they are.
#include "core/io/lesson_file.h"
#include "ui/model/app_state.h"
#include "ui/model/prefs.h"
#include "ui/model/startup.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;

class StartupTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        home = fs::path(ATTNLAB_BINARY_DIR) / "tests" / "ui" / "config_home" /
               ::testing::UnitTest::GetInstance()->current_test_info()->name();
        fs::remove_all(home);
        fs::create_directories(home);
        setenv("XDG_CONFIG_HOME", home.string().c_str(), 1);
    }
    void TearDown() override
    {
        unsetenv("XDG_CONFIG_HOME");
        fs::remove_all(home);
    }

    fs::path home;
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
    EXPECT_FALSE(opened->prefs.open[static_cast<std::size_t>(PanelId::Training)]);
}

} // namespace
} // namespace attnlab
