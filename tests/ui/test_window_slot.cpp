// Window slots (ui/model/window_slot.h): one lock per window on a config folder, taken in order, let go when
// the window's process ends (even by kill -9), and lock files planted as links or FIFOs replaced, not used.
#include "ui/model/window_slot.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;

class WindowSlotTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        dir = fs::path(ATTNLAB_BINARY_DIR) / "tests" / "ui" / "config_home" /
              ::testing::UnitTest::GetInstance()->current_test_info()->name();
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }
    fs::path dir;
};

TEST_F(WindowSlotTest, SlotsAreTakenInOrderAndFreedWithTheirOwner)
{
    std::vector<WindowSlot> slots;
    for (int n = 1; n <= kMaxWindowSlots; ++n)
    {
        slots.push_back(WindowSlot::claim(dir.string()));
        EXPECT_EQ(slots.back().number(), n);
        EXPECT_TRUE(slots.back().locked());
    }
    EXPECT_EQ(WindowSlot::claim(dir.string()).number(), 0); // every slot is taken
    slots[2] = WindowSlot();                                // the third window closes
    EXPECT_EQ(WindowSlot::claim(dir.string()).number(), 3);
    EXPECT_EQ(window_slot_file("/c", 1, "last_session"), "/c/last_session.json");
    EXPECT_EQ(window_slot_file("/c", 2, "last_model"), "/c/last_model-window2.json");
}

// Another process holds slot 1; when it is killed (no destructor runs), the slot is free again.
TEST_F(WindowSlotTest, AKilledProcessLetsItsSlotGo)
{
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0)
    {
        WindowSlot mine = WindowSlot::claim(dir.string());
        const char n = static_cast<char>('0' + mine.number());
        if (::write(ready[1], &n, 1) != 1)
            ::_exit(1);
        for (;;)
            ::pause();
    }
    char n = 0;
    ASSERT_EQ(::read(ready[0], &n, 1), 1);
    EXPECT_EQ(n, '1');
    {
        const WindowSlot second = WindowSlot::claim(dir.string());
        EXPECT_EQ(second.number(), 2);
    }
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ::close(ready[0]);
    ::close(ready[1]);
    EXPECT_EQ(WindowSlot::claim(dir.string()).number(), 1);
}

TEST_F(WindowSlotTest, APlantedLinkOrFifoAtTheLockFileIsReplacedNotUsed)
{
    const fs::path elsewhere = dir / "elsewhere.txt";
    std::ofstream(elsewhere) << "keep me";
    fs::create_symlink(elsewhere, dir / "last_session.lock");
    ASSERT_EQ(::mkfifo((dir / "last_session-window2.lock").c_str(), 0644), 0);
    const WindowSlot first = WindowSlot::claim(dir.string());
    const WindowSlot second = WindowSlot::claim(dir.string());
    EXPECT_EQ(first.number(), 1);
    EXPECT_EQ(second.number(), 2);
    EXPECT_TRUE(first.locked() && second.locked());
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / "last_session.lock")));
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / "last_session-window2.lock")));
    std::ifstream in(elsewhere);
    std::string text;
    std::getline(in, text);
    EXPECT_EQ(text, "keep me");
}

TEST_F(WindowSlotTest, AFolderWhereNoLockFileCanBeMadeGivesTheFirstSlotUnlocked)
{
    // The folder's name is a regular file: nothing can be made in it (even as root).
    std::ofstream(dir / "file") << "x";
    const WindowSlot slot = WindowSlot::claim((dir / "file").string());
    EXPECT_EQ(slot.number(), 1);
    EXPECT_FALSE(slot.locked());
    EXPECT_FALSE(slot.lock_error().empty());
}

TEST_F(WindowSlotTest, OtherWindowsAutosavesAreListed)
{
    std::ofstream(dir / "last_session.json") << "{}";
    std::ofstream(dir / "last_session-window3.json") << "{}";
    std::ofstream(dir / "last_session.1.json") << "{}"; // a kept copy is not another window's
    EXPECT_EQ(other_window_autosaves(dir.string(), 1),
              std::vector<std::string>{(dir / "last_session-window3.json").string()});
    EXPECT_EQ(other_window_autosaves(dir.string(), 3),
              std::vector<std::string>{(dir / "last_session.json").string()});
}

} // namespace
} // namespace attnlab
