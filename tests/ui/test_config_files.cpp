// The config folder's files planted or careless: a FIFO, a device link or an oversized file at prefs.ini,
// imgui.ini, the recent files or the font is refused at once with a message (never a blocked open or an
// endless read), and a link at the name of one of the app's own files is replaced, never written through.
#include "core/io/atomic_file.h"
#include "core/io/session_file.h"
#include "ui/model/config_files.h"
#include "ui/model/prefs.h"
#include "ui/model/session_files.h"
#include "ui/picture/font_file.h"
#include "ui/picture/raster.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <memory>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;

class ConfigFilesTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        home = fs::path(ATTNLAB_BINARY_DIR) / "tests" / "ui" / "config_files" /
               ::testing::UnitTest::GetInstance()->current_test_info()->name();
        fs::remove_all(home);
        fs::create_directories(home / "attnlab");
        setenv("XDG_CONFIG_HOME", home.string().c_str(), 1);
    }
    void TearDown() override { fs::remove_all(home); }

    std::string config(const char* name) const { return config_dir() + "/" + name; }
    std::string outside(const char* name) const { return (home / name).string(); }
    static std::string read(const std::string& p)
    {
        std::ifstream in(p, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }
    static bool is_regular_not_link(const std::string& p)
    {
        struct stat st = {};
        return ::lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
    }

    fs::path home;
};

// Runs fn on a thread and waits for it up to 10 s. When it has not returned by then it is blocked on the FIFO
// (an open that waits for a writer): the FIFO is then opened for writing and closed, so fn sees the end of
// the file and returns, and the test fails instead of hanging.
bool returns_promptly(const std::function<void()>& fn, const std::string& fifo)
{
    std::promise<void> done;
    std::future<void> finished = done.get_future();
    std::thread worker(
        [&]
        {
            fn();
            done.set_value();
        });
    const bool prompt = finished.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
    if (!prompt)
        if (const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK); fd >= 0)
            ::close(fd);
    worker.join();
    return prompt;
}

// [SECTION] Reading: every file of the config folder goes through read_file's checks

TEST_F(ConfigFilesTest, AFifoAtPrefsIniIsRefusedAtOnceAndTheDefaultsStay)
{
    const std::string prefs = config("prefs.ini");
    ASSERT_EQ(::mkfifo(prefs.c_str(), 0600), 0);
    ViewPrefs loaded;
    loaded.font_size = 21.0f; // what load_prefs must leave alone
    Status s;
    EXPECT_TRUE(returns_promptly([&] { s = load_prefs(prefs, loaded); }, prefs));
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find(prefs), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("not a regular file"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("the default preferences are used"), std::string::npos) << s.message();
    EXPECT_EQ(loaded.font_size, 21.0f);
}

TEST_F(ConfigFilesTest, PrefsIniLinkedToDevZeroOrOversizedIsRefusedWithoutReading)
{
    const std::string prefs = config("prefs.ini");
    fs::create_symlink("/dev/zero", prefs);
    ViewPrefs loaded;
    Status s = load_prefs(prefs, loaded);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("not a regular file"), std::string::npos) << s.message();

    // A sparse file one byte over the limit: refused from its size alone.
    fs::remove(prefs);
    std::ofstream(prefs) << "theme = light\n";
    ASSERT_EQ(::truncate(prefs.c_str(), static_cast<off_t>(kMaxSessionFileBytes + 1)), 0);
    s = load_prefs(prefs, loaded);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("limit for a preferences file"), std::string::npos) << s.message();
    EXPECT_TRUE(loaded.dark_theme); // nothing of the refused file was applied

    // A missing file is no error, and a regular one is read.
    fs::remove(prefs);
    EXPECT_TRUE(load_prefs(prefs, loaded));
    std::ofstream(prefs) << "theme = light\n";
    EXPECT_TRUE(load_prefs(prefs, loaded));
    EXPECT_FALSE(loaded.dark_theme);
}

// imgui.ini is read by the window through read_config_file (then ImGui::LoadIniSettingsFromMemory).
TEST_F(ConfigFilesTest, AFifoAtImguiIniIsRefusedAtOnce)
{
    const std::string ini = config("imgui.ini");
    ASSERT_EQ(::mkfifo(ini.c_str(), 0600), 0);
    std::string text = "stale";
    Status s;
    EXPECT_TRUE(returns_promptly(
        [&] { s = read_config_file(ini, &text, "window layout file", "the default layout is used"); }, ini));
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("window layout file"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("the default layout is used until it is removed or replaced"),
              std::string::npos)
        << s.message();
    EXPECT_EQ(text, "");
}

TEST_F(ConfigFilesTest, ARefusedRecentFilesListIsSaidInTheStatusBar)
{
    const std::string recent = config("recent_sessions.txt");
    fs::create_symlink("/dev/zero", recent);
    auto state = std::make_unique<AppState>();
    state->recent_files_path = recent;
    load_recent_files_into(*state);
    EXPECT_TRUE(state->recent_files.empty());
    EXPECT_TRUE(state->message_is_error);
    EXPECT_NE(state->message.find(recent), std::string::npos) << state->message;
    EXPECT_NE(state->message.find("the recent files list starts empty"), std::string::npos) << state->message;
}

TEST_F(ConfigFilesTest, AFifoNamedByAttnlabFontIsRefusedAndTheUsualFontUsed)
{
    const std::string fifo = outside("font.ttf");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    setenv("ATTNLAB_FONT", fifo.c_str(), 1);
    FontFile font;
    EXPECT_TRUE(returns_promptly([&] { font = load_font_file(); }, fifo));
    unsetenv("ATTNLAB_FONT");
    EXPECT_NE(font.note.find("ATTNLAB_FONT is not used"), std::string::npos) << font.note;
    EXPECT_NE(font.note.find("not a regular file"), std::string::npos) << font.note;
    EXPECT_NE(font.path, fifo);
    EXPECT_EQ(font.path.empty(), font.bytes.empty()); // a font found is a font read
}

TEST_F(ConfigFilesTest, ThePicturesFontReaderRefusesAFifoAtOnce)
{
    const std::string fifo = outside("picture_font.ttf");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    TextRasterizer text;
    bool loaded = true;
    EXPECT_TRUE(returns_promptly([&] { loaded = text.load(fifo); }, fifo));
    EXPECT_FALSE(loaded);
    EXPECT_FALSE(text.loaded());
}

TEST_F(ConfigFilesTest, RecentFilesTextRoundTripsAndSkipsCommentsRepeatsAndCarriageReturns)
{
    const std::vector<std::string> files = {"/a/one.json", "/b/two.json"};
    EXPECT_EQ(recent_files_from_text(recent_files_to_text(files), kMaxRecentFiles), files);
    EXPECT_EQ(recent_files_from_text("# c\n/a.json\r\n\n/a.json\n/b.json", kMaxRecentFiles),
              (std::vector<std::string>{"/a.json", "/b.json"}));
    EXPECT_EQ(recent_files_from_text("/1\n/2\n/3\n", 2), (std::vector<std::string>{"/1", "/2"}));
    EXPECT_TRUE(recent_files_from_text("", kMaxRecentFiles).empty());
}

// [SECTION] Writing: the app's own files replace a link at their name, never write through it

TEST_F(ConfigFilesTest, ALinkAtTheAutosaveIsReplacedAndItsTargetKept)
{
    const std::string victim = outside("victim.json");
    std::ofstream(victim) << "precious";
    Autosave autosave;
    autosave.path = config("last_session.json");
    fs::create_symlink(victim, autosave.path);
    auto state = std::make_unique<AppState>();
    state->session.text = "the cat sat";
    ASSERT_TRUE(autosave_tick(*state, autosave, 10.0, true)) << autosave.error;
    EXPECT_EQ(read(victim), "precious");
    EXPECT_TRUE(is_regular_not_link(autosave.path));
    Session back;
    ASSERT_TRUE(load_session_file(autosave.path, &back));
    EXPECT_EQ(back.text, "the cat sat");

    // The copy kept at the next start replaces a link at last_session.1.json the same way.
    const std::string kept = config("last_session.1.json");
    fs::create_symlink(victim, kept);
    ASSERT_TRUE(rotate_autosaves(autosave.path));
    EXPECT_EQ(read(victim), "precious");
    EXPECT_TRUE(is_regular_not_link(kept));
    EXPECT_EQ(read(kept), read(autosave.path));
}

TEST_F(ConfigFilesTest, ALinkAtPrefsIniOrTheRecentFilesIsReplacedAndItsTargetKept)
{
    const std::string victim = outside("victim.txt");
    std::ofstream(victim) << "precious";
    const std::string prefs = config("prefs.ini");
    const std::string recent = config("recent_sessions.txt");
    fs::create_symlink(victim, prefs);
    fs::create_symlink(victim, recent);
    ViewPrefs p;
    p.dark_theme = false;
    ASSERT_TRUE(save_prefs(prefs, p));
    ASSERT_TRUE(save_recent_files(recent, {"/a/one.json"}));
    EXPECT_EQ(read(victim), "precious");
    EXPECT_TRUE(is_regular_not_link(prefs));
    EXPECT_TRUE(is_regular_not_link(recent));
    ViewPrefs q;
    ASSERT_TRUE(load_prefs(prefs, q));
    EXPECT_FALSE(q.dark_theme);
    EXPECT_EQ(load_recent_files(recent), std::vector<std::string>{"/a/one.json"});
}

} // namespace
} // namespace attnlab
