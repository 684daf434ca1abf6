// Session files in the app: the throttled autosave and its restore (in a temporary XDG_CONFIG_HOME), recent
// files, opening newer or broken files without losing the current session, and the question before a file
// replaces unsaved changes.
#include "config_home.h"
#include "core/io/json_io.h"
#include "core/io/lesson_file.h"
#include "core/io/model_file.h"
#include "core/io/session_file.h"
#include "ui/model/lessons.h"
#include "ui/model/prefs.h"
#include "ui/model/session_files.h"
#include "ui/shell/app_ui.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;

class SessionFilesTest : public ConfigHomeTest
{
protected:
    void SetUp() override
    {
        ConfigHomeTest::SetUp();
        autosave.path = config_dir() + "/last_session.json";
        model_autosave.path = config_dir() + "/last_model.json";
    }

    // A Reverse run in the Training panel, n steps on (the panel's view polled, as each frame does).
    void train(int n)
    {
        if (!state->training_run.configured())
        {
            ASSERT_TRUE(state->training_run.configure(train::RunSpec()).is_ok());
        }
        if (n > 0)
            state->training_run.step_now(n);
        state->training_run.poll(state->training.view);
    }
    // A model autosave that cannot write: its folder's parent is a file (even root cannot write under it).
    ModelAutosave broken_model_autosave()
    {
        std::ofstream(home / "no_model_folder") << "x";
        ModelAutosave broken;
        broken.path = (home / "no_model_folder" / "attnlab" / "last_model.json").string();
        return broken;
    }

    Autosave autosave;
    ModelAutosave model_autosave;
    std::unique_ptr<AppState> state = std::make_unique<AppState>();
};

TEST_F(SessionFilesTest, AutosaveIsThrottledWrittenAtExitAndRestored)
{
    EXPECT_EQ(autosave.path, (home / "attnlab" / "last_session.json").string());
    state->session.text = "the cat sat";
    EXPECT_TRUE(autosave_tick(*state, autosave, 10.0, false));
    EXPECT_TRUE(fs::exists(autosave.path));
    EXPECT_FALSE(autosave_tick(*state, autosave, 20.0, false)); // unchanged: nothing to write

    state->session.text = "the cat sat on the mat";
    EXPECT_FALSE(autosave_tick(*state, autosave, 10.1, false)); // within a quarter second of the last write
    EXPECT_TRUE(autosave.pending);
    EXPECT_TRUE(autosave_tick(*state, autosave, 10.3, false));
    EXPECT_FALSE(autosave.pending);
    state->session.config.n_heads = 2;
    state->session.config.d_model = 8;
    EXPECT_FALSE(autosave_tick(*state, autosave, 10.4, false));
    EXPECT_TRUE(autosave_tick(*state, autosave, 10.45, true)); // at exit: no wait
    EXPECT_EQ(autosave.writes, 3);
    // Written atomically: no temporary file is left beside it.
    EXPECT_FALSE(fs::exists(autosave.path + ".tmp"));

    // The next start restores it.
    auto next = std::make_unique<AppState>();
    Autosave restored;
    restored.path = autosave.path;
    ASSERT_TRUE(restore_autosave(*next, restored).is_ok());
    EXPECT_EQ(next->session, state->session);
    next->update();
    EXPECT_TRUE(next->status.is_ok()) << next->status.message();
    EXPECT_EQ(next->trace().config.n_heads, 2);
    // Nothing changed since: the restored file is not written again.
    EXPECT_FALSE(autosave_tick(*next, restored, 100.0, true));
}

// A kill -9 loses at most the edits of the last quarter second: each keystroke of a steady stream of typing
// (12 keys a second, a frame every 1/60 s) is in the file 0.25 s after it (and the frame that writes it).
TEST_F(SessionFilesTest, EveryEditIsInTheAutosaveAQuarterSecondAfterIt)
{
    const std::string words = "the cat sat on the mat";
    const double frame_s = 1.0 / 60.0;
    std::vector<std::pair<double, std::size_t>> edits; // when, and the text's length after it
    for (int frame = 0; frame <= 60 * 3; ++frame)
    {
        const double t = 5.0 + frame * frame_s;
        if (frame % 5 == 0 && frame / 5 < static_cast<int>(words.size()))
        {
            state->session.text = words.substr(0, static_cast<std::size_t>(frame / 5 + 1));
            edits.emplace_back(t, state->session.text.size());
        }
        autosave_tick(*state, autosave, t, false);
        Session on_disk;
        ASSERT_TRUE(load_session_file(autosave.path, &on_disk).is_ok());
        for (const auto& [when, length] : edits)
            if (t - when >= 0.25 + frame_s)
            {
                EXPECT_GE(on_disk.text.size(), length)
                    << "typed at " << when << " s, not in the file at " << t;
            }
    }
    EXPECT_EQ(autosave.written.text, words);
    EXPECT_LE(autosave.writes, 3 * 4 + 1); // at most four writes a second while typing
    EXPECT_FALSE(autosave.pending);
}

TEST_F(SessionFilesTest, ABrokenOrNewerAutosaveLeavesTheSessionAndSaysWhy)
{
    fs::create_directories(fs::path(autosave.path).parent_path());
    const Session before = state->session;
    std::ofstream(autosave.path) << "{ \"format\": \"attnlab-session\", \"version\": 1, \"text\": ";
    Status s = restore_autosave(*state, autosave);
    EXPECT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("autosaved session"), std::string::npos) << s.message();
    EXPECT_EQ(state->session, before);

    const std::string newer = "{ \"format\": \"attnlab-session\", \"version\": 99, \"text\": \"a b\" }";
    std::ofstream(autosave.path) << newer;
    s = restore_autosave(*state, autosave);
    EXPECT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("newer"), std::string::npos) << s.message();
    EXPECT_EQ(state->session, before);

    // The unreadable file is kept aside, byte for byte, and the next autosave does not touch it.
    // (The broken file above went to last_session-unreadable.json; this second one must not replace it.)
    const std::string kept = (home / "attnlab" / "last_session-unreadable-2.json").string();
    EXPECT_NE(s.message().find(kept), std::string::npos) << s.message();
    ASSERT_TRUE(fs::exists(kept));
    std::ifstream in(kept);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), newer);
    ASSERT_TRUE(autosave_tick(*state, autosave, 50.0, true));
    std::ifstream again(kept);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(again), {}), newer);

    // No file at all (a first start) is not an error.
    fs::remove(autosave.path);
    EXPECT_TRUE(restore_autosave(*state, autosave).is_ok());
}

TEST_F(SessionFilesTest, ASecondUnreadableAutosaveDoesNotReplaceTheFirstOneSetAside)
{
    const std::string first = "{ \"format\": \"attnlab-session\", \"version\": 98, \"text\": \"a\" }";
    const std::string second = "{ \"format\": \"attnlab-session\", \"version\": 99, \"text\": \"b\" }";
    fs::create_directories(home / "attnlab");
    std::ofstream(autosave.path) << first;
    ASSERT_FALSE(restore_autosave(*state, autosave).is_ok());
    std::ofstream(autosave.path) << second;
    const Status s = restore_autosave(*state, autosave);
    ASSERT_FALSE(s.is_ok());
    const fs::path kept1 = home / "attnlab" / "last_session-unreadable.json";
    const fs::path kept2 = home / "attnlab" / "last_session-unreadable-2.json";
    EXPECT_NE(s.message().find(kept2.string()), std::string::npos) << s.message();
    std::ifstream in1(kept1), in2(kept2);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in1), {}), first);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in2), {}), second);
}

TEST_F(SessionFilesTest, EachStartKeepsACopyOfTheLastAutosaveThreeDeep)
{
    // Four runs, each starting on its own session (as --text does) and autosaving it: the three before the
    // current one stay, newest first, and a start with nothing new does not push them out.
    for (const char* text : {"run one", "run two", "run three", "run four"})
    {
        ASSERT_TRUE(rotate_autosaves(autosave.path).is_ok());
        Autosave fresh;
        fresh.path = autosave.path;
        state->session.text = text;
        ASSERT_TRUE(autosave_tick(*state, fresh, 0.0, true));
    }
    ASSERT_TRUE(rotate_autosaves(autosave.path).is_ok());
    ASSERT_TRUE(rotate_autosaves(autosave.path).is_ok()); // nothing new since: no shift
    const std::vector<std::string> files = autosave_files(autosave.path);
    ASSERT_EQ(files.size(), 4u);
    const char* expected[] = {"run four", "run four", "run three", "run two"};
    for (std::size_t i = 0; i < files.size(); ++i)
    {
        Session s;
        ASSERT_TRUE(load_session_file(files[i], &s).is_ok()) << files[i];
        EXPECT_EQ(s.text, expected[i]) << files[i];
    }
    EXPECT_EQ(files[1], (home / "attnlab" / "last_session.1.json").string());

    // Opening a kept copy brings its session back as unsaved work: Ctrl+S does not write into the autosaves.
    state->session_path = "/somewhere/mine.json";
    ASSERT_TRUE(open_autosave_file(*state, files[3]).is_ok());
    EXPECT_EQ(state->session.text, "run two");
    EXPECT_TRUE(state->session_path.empty());
    EXPECT_TRUE(std::find(state->recent_files.begin(), state->recent_files.end(), files[3]) ==
                state->recent_files.end());
}

TEST_F(SessionFilesTest, AFailedAutosaveIsReportedOnceAndItsRecoveryToo)
{
    // The config folder's parent is a regular file: nothing can be written there (even as root).
    std::ofstream(home / "not_a_folder") << "x";
    autosave.path = (home / "not_a_folder" / "attnlab" / "last_session.json").string();
    state->session.text = "unsaved words";
    EXPECT_FALSE(autosave_tick(*state, autosave, 1.0, true));
    EXPECT_TRUE(state->message_is_error);
    EXPECT_NE(state->message.find("Autosave failed"), std::string::npos) << state->message;
    EXPECT_FALSE(autosave.error.empty());
    state->set_message("something else", false);
    EXPECT_FALSE(autosave_tick(*state, autosave, 5.0, true)); // same reason: not said again
    EXPECT_EQ(state->message, "something else");
    autosave.path = (home / "attnlab" / "last_session.json").string();
    EXPECT_TRUE(autosave_tick(*state, autosave, 9.0, true));
    EXPECT_NE(state->message.find("Autosave works again"), std::string::npos) << state->message;
    EXPECT_TRUE(autosave.error.empty());
}

TEST_F(SessionFilesTest, DuringALessonTheUsersOwnSessionIsAutosaved)
{
    load_lesson_library(*state, default_lessons_dir());
    state->session.text = "my own words";
    enter_lesson(*state, 0, 0);
    ASSERT_TRUE(lesson_active(*state));
    ASSERT_NE(state->session.text, "my own words");
    ASSERT_TRUE(autosave_tick(*state, autosave, 5.0, true));
    Session written;
    ASSERT_TRUE(load_session_file(autosave.path, &written).is_ok());
    EXPECT_EQ(written.text, "my own words");
}

TEST_F(SessionFilesTest, OpeningANewerOrBrokenFileKeepsTheCurrentSession)
{
    const fs::path newer = home / "newer.json";
    std::ofstream(newer) << "{ \"format\": \"attnlab-session\", \"version\": 7, \"text\": \"x\" }";
    const fs::path broken = home / "broken.json";
    std::ofstream(broken) << "not json at all";
    state->session.text = "keep me";
    for (const fs::path& p : {newer, broken, home / "missing.json"})
    {
        const Status s = open_session_file(*state, p.string());
        EXPECT_FALSE(s.is_ok()) << p;
        EXPECT_NE(s.message().find(p.filename().string()), std::string::npos) << s.message();
        EXPECT_EQ(state->session.text, "keep me");
    }
    EXPECT_TRUE(state->recent_files.empty());
}

TEST_F(SessionFilesTest, SaveAndOpenKeepARecentList)
{
    state->recent_files_path = config_dir() + "/recent_sessions.txt";
    const fs::path a = home / "a.json";
    const fs::path b = home / "b.json";
    state->session.text = "first";
    ASSERT_TRUE(save_session_as(*state, a.string()).is_ok());
    state->session.text = "second";
    ASSERT_TRUE(save_session_as(*state, b.string()).is_ok());
    EXPECT_EQ(state->session_path, b.string());
    ASSERT_TRUE(open_session_file(*state, a.string()).is_ok());
    EXPECT_EQ(state->session.text, "first");
    EXPECT_EQ(state->session_path, a.string());
    // Most recent first, no duplicates, kept in the config folder.
    const std::vector<std::string> expected = {a.string(), b.string()};
    EXPECT_EQ(state->recent_files, expected);
    EXPECT_EQ(load_recent_files(state->recent_files_path), expected);

    // A file that disappeared is dropped at the next start, with a message naming it.
    fs::remove(b);
    auto next = std::make_unique<AppState>();
    next->recent_files_path = state->recent_files_path;
    load_recent_files_into(*next);
    EXPECT_EQ(next->recent_files, std::vector<std::string>{a.string()});
    EXPECT_NE(next->message.find("b.json"), std::string::npos) << next->message;
    EXPECT_EQ(load_recent_files(state->recent_files_path), std::vector<std::string>{a.string()});
}

TEST_F(SessionFilesTest, RecentListIsCappedAndMovesReopenedFilesToTheFront)
{
    std::vector<std::string> files;
    for (int i = 0; i < kMaxRecentFiles + 5; ++i)
        push_recent_file(files, "/tmp/s" + std::to_string(i) + ".json");
    ASSERT_EQ(static_cast<int>(files.size()), kMaxRecentFiles);
    EXPECT_EQ(files.front(), "/tmp/s" + std::to_string(kMaxRecentFiles + 4) + ".json");
    push_recent_file(files, "/tmp/s10.json");
    EXPECT_EQ(files.front(), "/tmp/s10.json");
    EXPECT_EQ(static_cast<int>(files.size()), kMaxRecentFiles);
    EXPECT_EQ(std::count(files.begin(), files.end(), "/tmp/s10.json"), 1);
}

TEST_F(SessionFilesTest, WeightsNextToASessionAreFoundFromTheAutosaveAndAfterSaveAs)
{
    // A session file and its weights, side by side in a folder; the file names the weights relatively.
    const fs::path project = home / "project";
    fs::create_directories(project / "models");
    state->session.text = "weights from a file";
    state->update();
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    ASSERT_TRUE(write_weights_json(state->engine.weights(), state->session.config,
                                   (project / "models" / "w.json").string())
                    .is_ok());
    Session on_disk = state->session;
    on_disk.weights_path = "models/w.json";
    ASSERT_TRUE(save_session_file(on_disk, (project / "lecture.json").string()).is_ok());

    ASSERT_TRUE(open_session_file(*state, (project / "lecture.json").string()).is_ok()) << state->message;
    EXPECT_TRUE(state->engine.has_imported_weights());
    EXPECT_EQ(state->session.weights_path, (project / "models" / "w.json").string());

    // The autosave names the weights so that the next start finds them from any working directory.
    ASSERT_TRUE(autosave_tick(*state, autosave, 1.0, true));
    const fs::path cwd = fs::current_path();
    fs::current_path(home);
    auto next = std::make_unique<AppState>();
    Autosave restored;
    restored.path = autosave.path;
    const Status s = restore_autosave(*next, restored);
    fs::current_path(cwd);
    ASSERT_TRUE(s.is_ok()) << s.message();
    EXPECT_EQ(next->session.weights_path, (project / "models" / "w.json").string());
    EXPECT_TRUE(fs::is_regular_file(next->session.weights_path));

    // Saved again in its own folder the path is relative again; saved elsewhere it stays absolute.
    ASSERT_TRUE(save_session_as(*state, (project / "copy.json").string()).is_ok());
    Session copy;
    ASSERT_TRUE(load_session_file((project / "copy.json").string(), &copy).is_ok());
    EXPECT_EQ(copy.weights_path, "models/w.json");
    fs::create_directories(home / "other");
    ASSERT_TRUE(save_session_as(*state, (home / "other" / "elsewhere.json").string()).is_ok());
    Session elsewhere;
    ASSERT_TRUE(load_session_file((home / "other" / "elsewhere.json").string(), &elsewhere).is_ok());
    EXPECT_EQ(elsewhere.weights_path, (project / "models" / "w.json").string());
    // The session in memory is unchanged by where it was saved.
    EXPECT_EQ(state->session.weights_path, (project / "models" / "w.json").string());
}

TEST_F(SessionFilesTest, OpeningASessionLeavesAnOpenLesson)
{
    load_lesson_library(*state, default_lessons_dir());
    const fs::path p = home / "mine.json";
    Session mine;
    mine.text = "a session of my own";
    ASSERT_TRUE(save_session_file(mine, p.string()).is_ok());
    enter_lesson(*state, 0, 3);
    ASSERT_TRUE(open_session_file(*state, p.string()).is_ok());
    EXPECT_FALSE(lesson_active(*state));
    EXPECT_EQ(state->session.text, "a session of my own");
    EXPECT_EQ(user_session(*state).text, "a session of my own");
}

// [SECTION] Quitting: with a config folder where the autosave cannot write (read-only, full), a quit with
// work that no file holds asks first.

TEST_F(SessionFilesTest, QuittingAsksOnlyWhenNoFileHoldsTheWork)
{
    // Nothing changed: nothing to lose, whatever the autosave does.
    Autosave broken;
    std::ofstream(home / "not_a_folder") << "x"; // nothing can be written under it, even as root
    broken.path = (home / "not_a_folder" / "attnlab" / "last_session.json").string();
    EXPECT_FALSE(quit_would_lose_work(*state, broken));
    EXPECT_TRUE(quit_now_or_ask(*state, broken, model_autosave, 1.0));

    // Changed, and the autosave works: quitting writes it and closes at once.
    state->session.text = "typed just now";
    EXPECT_TRUE(quit_would_lose_work(*state, autosave)); // not written yet
    EXPECT_TRUE(quit_now_or_ask(*state, autosave, model_autosave, 1.0));
    Session kept;
    ASSERT_TRUE(load_session_file(autosave.path, &kept).is_ok());
    EXPECT_EQ(kept.text, "typed just now");
    EXPECT_FALSE(state->quit.asking);

    // Changed, and the autosave fails: the question, with the reason, and the window stays.
    EXPECT_TRUE(quit_would_lose_work(*state, broken));
    EXPECT_FALSE(quit_now_or_ask(*state, broken, model_autosave, 2.0));
    EXPECT_TRUE(state->quit.asking);
    EXPECT_TRUE(state->quit.open_request);
    EXPECT_NE(state->quit.reason.find("the autosave failed"), std::string::npos) << state->quit.reason;
    EXPECT_EQ(state->quit.save_path, "session.json");
    // No autosave at all (no config folder, or every window slot taken): the same.
    EXPECT_TRUE(quit_would_lose_work(*state, Autosave{}));
}

TEST_F(SessionFilesTest, TheQuitQuestionSavesQuitsOrCancels)
{
    Autosave broken;
    std::ofstream(home / "not_a_folder") << "x";
    broken.path = (home / "not_a_folder" / "attnlab" / "last_session.json").string();
    state->session.text = "only on screen";
    ASSERT_FALSE(quit_now_or_ask(*state, broken, model_autosave, 1.0));

    // Cancel: the window stays, and the status bar says the work is still in no file.
    ASSERT_TRUE(answer_quit(*state, QuitAnswer::Cancel).is_ok());
    EXPECT_FALSE(state->quit.asking);
    EXPECT_FALSE(state->request_quit);
    EXPECT_NE(state->message.find("in no file"), std::string::npos) << state->message;

    // Save to a path that cannot be written: the question stays with the message.
    ASSERT_FALSE(quit_now_or_ask(*state, broken, model_autosave, 2.0));
    fs::create_directories(home / "a_folder");
    state->quit.save_path = (home / "a_folder").string();
    EXPECT_FALSE(answer_quit(*state, QuitAnswer::Save).is_ok());
    EXPECT_TRUE(state->quit.asking);
    EXPECT_FALSE(state->quit.error.empty());
    EXPECT_FALSE(state->request_quit);
    // Save to a good path: written, then the quit goes through.
    state->quit.save_path = (home / "kept.json").string();
    ASSERT_TRUE(answer_quit(*state, QuitAnswer::Save).is_ok());
    EXPECT_TRUE(state->request_quit);
    Session kept;
    ASSERT_TRUE(load_session_file((home / "kept.json").string(), &kept).is_ok());
    EXPECT_EQ(kept.text, "only on screen");
    EXPECT_TRUE(quit_now_or_ask(*state, broken, model_autosave, 3.0));

    // Quit without saving: the next request closes.
    state->request_quit = false;
    state->session.text = "thrown away";
    ASSERT_FALSE(quit_now_or_ask(*state, broken, model_autosave, 4.0));
    ASSERT_TRUE(answer_quit(*state, QuitAnswer::Quit).is_ok());
    EXPECT_TRUE(state->request_quit);
    EXPECT_TRUE(quit_now_or_ask(*state, broken, model_autosave, 5.0));
}

// [SECTION] Quitting with a trained model: the Training panel's model is asked about too when no file holds
// its current step (neither a saved or opened model file nor the model autosave).

TEST_F(SessionFilesTest, QuittingAsksWhenNoFileHoldsTheTrainedModel)
{
    ModelAutosave broken = broken_model_autosave();
    // No run, then a run that has taken no step: nothing to lose.
    EXPECT_FALSE(quit_would_lose_model(*state, broken));
    train(0);
    EXPECT_FALSE(quit_would_lose_model(*state, broken));
    EXPECT_TRUE(quit_now_or_ask(*state, autosave, broken, 1.0));

    // Trained, and the model autosave works: quitting writes it and closes at once.
    train(4);
    EXPECT_TRUE(quit_would_lose_model(*state, model_autosave)); // not written yet
    EXPECT_TRUE(quit_now_or_ask(*state, autosave, model_autosave, 2.0));
    EXPECT_FALSE(quit_would_lose_model(*state, model_autosave));
    TrainedModel kept;
    ASSERT_TRUE(load_model_file(model_autosave.path, &kept).is_ok());
    EXPECT_EQ(kept.steps_taken, 4);
    EXPECT_FALSE(state->quit.asking);

    // Trained further, and the model autosave fails: the question names the model and the reason.
    train(2);
    EXPECT_FALSE(quit_now_or_ask(*state, autosave, broken, 3.0));
    EXPECT_TRUE(state->quit.asking);
    EXPECT_TRUE(state->quit.model);
    EXPECT_FALSE(state->quit.session);
    EXPECT_EQ(state->quit.model_name, "Reverse, step 6");
    EXPECT_NE(state->quit.model_reason.find("the model autosave failed"), std::string::npos)
        << state->quit.model_reason;
    EXPECT_EQ(state->quit.model_save_path, "trained_model.json");
    EXPECT_FALSE(broken.error.empty()); // the forced write was tried first
    // The autosave's failure is for this step: a later try that works clears it.
    EXPECT_TRUE(quit_now_or_ask(*state, autosave, model_autosave, 4.0));
    // No model autosave at all (no config folder): the same question.
    state->quit = QuitPrompt{};
    ModelAutosave none;
    EXPECT_TRUE(quit_would_lose_model(*state, none));
    EXPECT_FALSE(quit_now_or_ask(*state, autosave, none, 5.0));
    EXPECT_NE(state->quit.model_reason.find("no model autosave"), std::string::npos)
        << state->quit.model_reason;
}

TEST_F(SessionFilesTest, AModelFileHoldsTheModelOnlyAtItsStep)
{
    ModelAutosave broken = broken_model_autosave();
    train(5);
    EXPECT_TRUE(quit_would_lose_model(*state, broken));
    // Save model at this step: nothing to lose; trained more: at risk again.
    const std::string saved = (home / "reverse-5.json").string();
    ASSERT_TRUE(save_model_file(*state, saved).is_ok());
    EXPECT_FALSE(quit_would_lose_model(*state, broken));
    EXPECT_TRUE(quit_now_or_ask(*state, autosave, broken, 1.0));
    train(1);
    EXPECT_TRUE(quit_would_lose_model(*state, broken));

    // A model opened from its file, at the file's step: nothing to lose; trained more: at risk.
    auto other = std::make_unique<AppState>();
    ASSERT_TRUE(open_model_file(*other, saved).is_ok());
    other->training_run.poll(other->training.view);
    ASSERT_EQ(other->training.view.step, 5);
    EXPECT_FALSE(quit_would_lose_model(*other, broken));
    other->training_run.step_now(1);
    other->training_run.poll(other->training.view);
    EXPECT_TRUE(quit_would_lose_model(*other, broken));
}

TEST_F(SessionFilesTest, ALessonsRunIsNeverAskedAboutTheUsersOwnIs)
{
    ModelAutosave broken = broken_model_autosave();
    train(3); // the user's own run
    EXPECT_TRUE(quit_would_lose_model(*state, broken));

    Lesson lesson;
    ASSERT_TRUE(parse_lesson(R"({"format": "attnlab-lesson", "version": 1, "title": "t",
        "training": {"task": "copy", "seed": 2, "steps": 10},
        "steps": [{"text": "trained", "training": {"show_step": 10}}]})",
                             "t.json", &lesson)
                    .is_ok());
    test::HeadlessUi ui;
    state->mouse_ignored = true; // the lesson's run is trained before the frame
    state->lesson.library.lessons.push_back(lesson);
    enter_lesson(*state, 0, 0);
    ui.frames(*state, 1);
    ASSERT_TRUE(lesson_active(*state));
    ASSERT_EQ(state->training.view.step, 10);
    EXPECT_FALSE(quit_would_lose_model(*state, broken));
    EXPECT_TRUE(quit_now_or_ask(*state, autosave, broken, 1.0));

    // The lesson left, the user's run is back at its step, and in no file.
    state->request_quit = false;
    leave_lesson(*state);
    ui.frames(*state, 1);
    ASSERT_FALSE(lesson_active(*state));
    EXPECT_TRUE(quit_would_lose_model(*state, broken)); // its timeline may still be replaying: the same
    for (int i = 0; i < 2000 && state->training_run.running(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ui.frames(*state, 1);
    ASSERT_EQ(state->training.replay_expect, nullptr);
    ASSERT_EQ(state->training.view.step, 3);
    EXPECT_TRUE(quit_would_lose_model(*state, broken));
    state.reset(); // its textures go back to the headless UI's provider first
}

TEST_F(SessionFilesTest, TheQuitQuestionSavesTheModelOrCancelsOrQuits)
{
    ModelAutosave broken = broken_model_autosave();
    train(3);
    ASSERT_FALSE(quit_now_or_ask(*state, autosave, broken, 1.0));

    // Cancel: the window stays, and the status bar says the model is still in no file.
    ASSERT_TRUE(answer_quit(*state, QuitAnswer::Cancel).is_ok());
    EXPECT_FALSE(state->quit.asking);
    EXPECT_FALSE(state->request_quit);
    EXPECT_NE(state->message.find("the trained model is still in no file"), std::string::npos)
        << state->message;

    // Save to a path that cannot be written: the question stays with the message.
    ASSERT_FALSE(quit_now_or_ask(*state, autosave, broken, 2.0));
    fs::create_directories(home / "a_folder");
    state->quit.model_save_path = (home / "a_folder").string();
    EXPECT_FALSE(answer_quit(*state, QuitAnswer::Save).is_ok());
    EXPECT_TRUE(state->quit.asking);
    EXPECT_NE(state->quit.error.find("model"), std::string::npos) << state->quit.error;
    EXPECT_FALSE(state->request_quit);
    // Save to a good path: a model file that opens at the step, then the quit goes through.
    const std::string path = (home / "kept-model.json").string();
    state->quit.model_save_path = path;
    ASSERT_TRUE(answer_quit(*state, QuitAnswer::Save).is_ok());
    EXPECT_TRUE(state->request_quit);
    TrainedModel kept;
    ASSERT_TRUE(load_model_file(path, &kept).is_ok());
    EXPECT_EQ(kept.steps_taken, 3);
    EXPECT_EQ(kept.task, "reverse");
    EXPECT_TRUE(quit_now_or_ask(*state, autosave, broken, 3.0));

    // Quit without saving: the next request closes.
    state->request_quit = false;
    train(1);
    ASSERT_FALSE(quit_now_or_ask(*state, autosave, broken, 4.0));
    ASSERT_TRUE(answer_quit(*state, QuitAnswer::Quit).is_ok());
    EXPECT_TRUE(state->request_quit);
    EXPECT_TRUE(quit_now_or_ask(*state, autosave, broken, 5.0));
}

TEST_F(SessionFilesTest, WithTheSessionAndTheModelAtRiskSaveWritesBoth)
{
    Autosave broken;
    std::ofstream(home / "not_a_folder") << "x";
    broken.path = (home / "not_a_folder" / "attnlab" / "last_session.json").string();
    ModelAutosave broken_model = broken_model_autosave();
    state->session.text = "only on screen";
    train(2);
    ASSERT_FALSE(quit_now_or_ask(*state, broken, broken_model, 1.0));
    EXPECT_TRUE(state->quit.session);
    EXPECT_TRUE(state->quit.model);
    // The session is written, the model's path fails: the question stays, for the model alone.
    fs::create_directories(home / "a_folder");
    state->quit.save_path = (home / "kept.json").string();
    state->quit.model_save_path = (home / "a_folder").string();
    EXPECT_FALSE(answer_quit(*state, QuitAnswer::Save).is_ok());
    EXPECT_TRUE(state->quit.asking);
    EXPECT_FALSE(state->quit.session);
    EXPECT_TRUE(state->quit.model);
    EXPECT_FALSE(state->request_quit);
    Session kept;
    ASSERT_TRUE(load_session_file((home / "kept.json").string(), &kept).is_ok());
    EXPECT_EQ(kept.text, "only on screen");
    // The model's default path is beside the session's file once it has one.
    state->quit.model_save_path = (home / "kept-model.json").string();
    ASSERT_TRUE(answer_quit(*state, QuitAnswer::Save).is_ok());
    EXPECT_TRUE(state->request_quit);
    TrainedModel model;
    ASSERT_TRUE(load_model_file((home / "kept-model.json").string(), &model).is_ok());
    EXPECT_EQ(model.steps_taken, 2);
    EXPECT_TRUE(quit_now_or_ask(*state, broken, broken_model, 2.0));

    // A session with its own file: the model's default path is trained_model.json beside it.
    state->request_quit = false;
    state->session.text = "changed again";
    train(1);
    state->training.model_path.clear();
    state->quit = QuitPrompt{};
    ASSERT_FALSE(quit_now_or_ask(*state, broken, broken_model, 3.0));
    EXPECT_EQ(state->quit.model_save_path, (home / "trained_model.json").string());
}

// [SECTION] Unsaved changes: Open and Recent ask before replacing them

// Two session files, a.json ("first") and b.json ("second"), and the state opened on a.json.
class UnsavedChangesTest : public SessionFilesTest
{
protected:
    void SetUp() override
    {
        SessionFilesTest::SetUp();
        a = home / "a.json";
        b = home / "b.json";
        state->recent_files_path = config_dir() + "/recent_sessions.txt";
        for (const auto& [file, text] : {std::pair{a, "first"}, std::pair{b, "second"}})
        {
            Session s;
            s.text = text;
            ASSERT_TRUE(save_session_file(s, file.string()).is_ok());
        }
        ASSERT_TRUE(open_session_file(*state, a.string()).is_ok());
    }
    Session on_disk(const fs::path& file)
    {
        Session s;
        EXPECT_TRUE(load_session_file(file.string(), &s).is_ok()) << file;
        return s;
    }
    void TearDown() override
    {
        state.reset(); // its textures go back to the headless UI's provider first
        ui.reset();
        SessionFilesTest::TearDown();
    }
    fs::path a, b;
    std::unique_ptr<test::HeadlessUi> ui; // for the tests that draw frames
};

TEST_F(UnsavedChangesTest, WithoutChangesAFileOpensAtOnce)
{
    EXPECT_FALSE(has_unsaved_changes(*state));
    ASSERT_TRUE(request_open_session(*state, b.string()).is_ok());
    EXPECT_EQ(state->session.text, "second");
    EXPECT_EQ(state->session_path, b.string());
    EXPECT_TRUE(state->unsaved.path.empty());
    EXPECT_FALSE(has_unsaved_changes(*state));
}

TEST_F(UnsavedChangesTest, CancelKeepsTheSessionAndDiscardOpensTheFile)
{
    state->session.text = "my edit";
    ASSERT_TRUE(has_unsaved_changes(*state));
    ASSERT_TRUE(request_open_session(*state, b.string()).is_ok());
    // Nothing is replaced until the question is answered.
    EXPECT_EQ(state->session.text, "my edit");
    EXPECT_EQ(state->session_path, a.string());
    EXPECT_EQ(state->unsaved.path, b.string());
    EXPECT_EQ(state->unsaved.save_path, a.string()); // Save would write the session's own file
    EXPECT_TRUE(state->unsaved.open_request);

    ASSERT_TRUE(answer_unsaved_changes(*state, UnsavedAnswer::Cancel).is_ok());
    EXPECT_EQ(state->session.text, "my edit");
    EXPECT_EQ(state->session_path, a.string());
    EXPECT_TRUE(state->unsaved.path.empty());
    EXPECT_EQ(on_disk(a).text, "first");
    EXPECT_TRUE(has_unsaved_changes(*state));

    ASSERT_TRUE(request_open_session(*state, b.string()).is_ok());
    ASSERT_TRUE(answer_unsaved_changes(*state, UnsavedAnswer::Discard).is_ok());
    EXPECT_EQ(state->session.text, "second");
    EXPECT_EQ(state->session_path, b.string());
    EXPECT_EQ(on_disk(a).text, "first"); // discarded, not written
    EXPECT_FALSE(has_unsaved_changes(*state));
}

TEST_F(UnsavedChangesTest, SaveWritesTheSessionFirstThenOpens)
{
    state->session.text = "worth keeping";
    ASSERT_TRUE(request_open_session(*state, b.string()).is_ok());
    ASSERT_TRUE(answer_unsaved_changes(*state, UnsavedAnswer::Save).is_ok());
    EXPECT_EQ(on_disk(a).text, "worth keeping");
    EXPECT_EQ(state->session.text, "second");
    EXPECT_EQ(state->session_path, b.string());

    // A session with no file yet: Save writes to the path typed in the question; a path that cannot be
    // written opens nothing, and the question stays with its message.
    state->session_path.clear();
    state->saved_session.reset();
    state->session.text = "new work";
    ASSERT_TRUE(request_open_session(*state, a.string()).is_ok());
    EXPECT_EQ(state->unsaved.save_path, "session.json");
    fs::create_directories(home / "a_folder");
    state->unsaved.save_path = (home / "a_folder").string();
    EXPECT_FALSE(answer_unsaved_changes(*state, UnsavedAnswer::Save).is_ok());
    EXPECT_FALSE(state->unsaved.error.empty());
    EXPECT_EQ(state->unsaved.path, a.string());
    EXPECT_EQ(state->session.text, "new work");
    state->unsaved.save_path = (home / "new.json").string();
    ASSERT_TRUE(answer_unsaved_changes(*state, UnsavedAnswer::Save).is_ok());
    EXPECT_EQ(on_disk(home / "new.json").text, "new work");
    EXPECT_EQ(state->session.text, "worth keeping");
    EXPECT_EQ(state->recent_files.front(), a.string());
}

TEST_F(UnsavedChangesTest, AFileThatCannotOpenAsksNothingAndChangesNothing)
{
    state->session.text = "my edit";
    const fs::path broken = home / "broken.json";
    std::ofstream(broken) << "not json";
    for (const fs::path& p : {broken, home / "missing.json"})
    {
        const Status s = request_open_session(*state, p.string());
        EXPECT_FALSE(s.is_ok()) << p;
        EXPECT_NE(s.message().find(p.filename().string()), std::string::npos) << s.message();
        EXPECT_TRUE(state->unsaved.path.empty());
        EXPECT_EQ(state->session.text, "my edit");
    }
}

TEST_F(UnsavedChangesTest, DuringALessonSaveKeepsTheUsersOwnSessionNotTheStep)
{
    load_lesson_library(*state, default_lessons_dir());
    state->session.text = "mine, edited";
    enter_lesson(*state, 0, 2);
    ASSERT_TRUE(lesson_active(*state));
    EXPECT_TRUE(has_unsaved_changes(*state)); // the user's own session, not the step's, counts
    ASSERT_TRUE(request_open_session(*state, b.string()).is_ok());
    ASSERT_TRUE(answer_unsaved_changes(*state, UnsavedAnswer::Save).is_ok());
    EXPECT_EQ(on_disk(a).text, "mine, edited");
    EXPECT_FALSE(lesson_active(*state));
    EXPECT_EQ(state->session.text, "second");
}

TEST_F(UnsavedChangesTest, RecentAsksTooAndAMissingFileLeavesTheSessionAndItsTitle)
{
    push_recent_file(state->recent_files, b.string());
    state->session.text = "my edit";
    ASSERT_TRUE(open_recent_file(*state, b.string()).is_ok());
    EXPECT_EQ(state->unsaved.path, b.string());
    EXPECT_EQ(state->session.text, "my edit");
    answer_unsaved_changes(*state, UnsavedAnswer::Cancel);

    // b.json disappears: choosing it says so, drops it, and leaves the session as it was.
    fs::remove(b);
    EXPECT_FALSE(open_recent_file(*state, b.string()).is_ok());
    EXPECT_EQ(state->session.text, "my edit");
    EXPECT_EQ(state->session_path, a.string());
    EXPECT_TRUE(state->message_is_error);
    EXPECT_NE(state->message.find("b.json no longer exists"), std::string::npos) << state->message;
    EXPECT_EQ(std::count(state->recent_files.begin(), state->recent_files.end(), b.string()), 0);
    EXPECT_TRUE(state->unsaved.path.empty());

    // The session's own file disappears: the menu bar no longer names it, and the session is unsaved.
    state->session.text = "first";
    ASSERT_FALSE(has_unsaved_changes(*state));
    fs::remove(a);
    EXPECT_FALSE(open_recent_file(*state, a.string()).is_ok());
    EXPECT_EQ(state->session.text, "first");
    EXPECT_TRUE(state->session_path.empty());
    EXPECT_TRUE(has_unsaved_changes(*state));
    EXPECT_TRUE(state->recent_files.empty());
    EXPECT_EQ(load_recent_files(state->recent_files_path), std::vector<std::string>{});
}

// Through the window: Ctrl+O and Enter on a file, with unsaved changes, shows the question instead of
// opening; Esc cancels it.
TEST_F(UnsavedChangesTest, TheOpenDialogAsksAndEscCancels)
{
    ui = std::make_unique<test::HeadlessUi>();
    ImGui::GetIO().KeyMap[ImGuiKey_Enter] = 257; // as GLFW_KEY_ENTER
    state->session_path = b.string();            // the dialog offers the session's file: b.json
    state->saved_session.reset();
    state->session.text = "my edit";
    ui->frames(*state, 2);
    ui->press_key(*state, keys::O, true);
    auto out = ui->frames(*state, 2);
    ASSERT_NE(out.text.find("Open session from"), std::string::npos) << out.text;
    ui->press_key(*state, 257);
    out = ui->frames(*state, 2);
    EXPECT_EQ(state->session.text, "my edit");
    EXPECT_EQ(state->unsaved.path, b.string());
    EXPECT_NE(out.text.find("changes that are in no file"), std::string::npos) << out.text;
    EXPECT_NE(out.text.find("Discard changes and open"), std::string::npos) << out.text;
    ui->press_key(*state, 256); // Esc
    out = ui->frames(*state, 2);
    EXPECT_TRUE(state->unsaved.path.empty());
    EXPECT_EQ(state->session.text, "my edit");
    EXPECT_EQ(out.text.find("changes that are in no file"), std::string::npos) << out.text;
}

// Through the window: Ctrl+Q with work the failed autosave does not hold shows the question; Esc cancels.
TEST_F(UnsavedChangesTest, CtrlQWithAFailedAutosaveAsksAndEscCancels)
{
    ui = std::make_unique<test::HeadlessUi>();
    Autosave broken;
    std::ofstream(home / "not_a_folder") << "x";
    broken.path = (home / "not_a_folder" / "attnlab" / "last_session.json").string();
    state->session.text = "my edit";
    ui->frames(*state, 2);
    ui->press_key(*state, keys::Q, true);
    ASSERT_TRUE(state->request_quit);
    state->request_quit = false; // what the window's loop does with the request
    ASSERT_FALSE(quit_now_or_ask(*state, broken, model_autosave, 1.0));
    auto out = ui->frames(*state, 2);
    EXPECT_NE(out.text.find("changes that are in no file"), std::string::npos) << out.text;
    EXPECT_NE(out.text.find("the autosave failed"), std::string::npos) << out.text;
    EXPECT_NE(out.text.find("Quit without saving"), std::string::npos) << out.text;
    ui->press_key(*state, 256); // Esc
    out = ui->frames(*state, 2);
    EXPECT_FALSE(state->quit.asking);
    EXPECT_FALSE(state->request_quit);
    EXPECT_EQ(state->session.text, "my edit");
    EXPECT_EQ(out.text.find("Quit without saving"), std::string::npos) << out.text;
}

// Through the window: Ctrl+Q with a trained model the failed model autosave does not hold names the model.
TEST_F(UnsavedChangesTest, CtrlQWithATrainedModelInNoFileAsksAboutTheModel)
{
    ui = std::make_unique<test::HeadlessUi>();
    ModelAutosave broken = broken_model_autosave();
    train(7);
    ui->frames(*state, 2);
    ui->press_key(*state, keys::Q, true);
    ASSERT_TRUE(state->request_quit);
    state->request_quit = false;
    ASSERT_FALSE(quit_now_or_ask(*state, autosave, broken, 1.0));
    auto out = ui->frames(*state, 2);
    EXPECT_NE(out.text.find("The trained model (Reverse, step 7) is in no file"), std::string::npos)
        << out.text;
    EXPECT_NE(out.text.find("the model autosave failed"), std::string::npos) << out.text;
    EXPECT_NE(out.text.find("Save model, then quit"), std::string::npos) << out.text;
    EXPECT_EQ(out.text.find("changes that are in no file"), std::string::npos) << out.text;
    ui->press_key(*state, 256); // Esc
    out = ui->frames(*state, 2);
    EXPECT_FALSE(state->quit.asking);
    EXPECT_FALSE(state->request_quit);
    EXPECT_EQ(out.text.find("Save model, then quit"), std::string::npos) << out.text;
}

} // namespace
} // namespace attnlab
