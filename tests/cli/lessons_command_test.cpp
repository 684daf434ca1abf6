// attnlab lessons: one line per built-in lesson, id first; a broken lesson is named on stderr.
#include "cli_test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace attnlab::test
{

TEST(LessonsCommand, ListsEveryBuiltInLessonIdFirst)
{
    const CliResult r = run_cli({"lessons"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_EQ(line_count(r.out), 12);
    EXPECT_EQ(r.out.rfind("tour  A tour: from words to attention  (11 steps)\n", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("\ntypo  Is W_h^Q · q⟨i⟩ a typo?  ("), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\ncross_attention  "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\ninduction_heads  Induction heads: the plateau and the cliff  (6 steps)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("\nattention_learns_english  Attention learns English  (8 steps)"),
              std::string::npos)
        << r.out;
}

TEST(LessonsCommand, ABrokenLessonIsNamedAndTheOthersListed)
{
    TempDir dir;
    std::ofstream(dir / "01_ok.json") << R"({"format": "attnlab-lesson", "version": 1, "title": "Fine",
        "session": {"text": "a b"}, "steps": [{"text": "look"}]})";
    std::ofstream(dir / "02_bad.json") << R"({"format": "attnlab-lesson", "version": 1, "title": "Bad",
        "steps": [{"text": "look", "stages": ["softmax"]}]})";
    const CliResult r = run_cli({"lessons", "--dir", dir.path.string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "ok  Fine  (1 steps)\n");
    EXPECT_EQ(line_count(r.err), 1);
    // Named by its real path (it said "lessons/02_bad.json" whatever folder it was in).
    EXPECT_NE(r.err.find(dir / "02_bad.json" + ", step 1: unknown stage \"softmax\""), std::string::npos)
        << r.err;
}

// An empty folder says so (it printed nothing and succeeded).
TEST(LessonsCommand, AnEmptyFolderSaysItHoldsNoLessons)
{
    TempDir dir;
    const CliResult r = run_cli({"lessons", "--dir", dir.path.string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(dir.path.string() + " holds no lessons"), std::string::npos) << r.err;
}

// A symlink loop named *.json used to abort the command (filesystem_error, exit 134): it is listed with its
// reason, and the other lessons are listed.
TEST(LessonsCommand, ALinkLoopIsNamedNotFatal)
{
    TempDir dir;
    std::ofstream(dir / "01_ok.json") << R"({"format": "attnlab-lesson", "version": 1, "title": "Fine",
        "session": {"text": "a b"}, "steps": [{"text": "look"}]})";
    std::filesystem::create_symlink("b.json", dir / "a.json");
    std::filesystem::create_symlink("a.json", dir / "b.json");
    const CliResult r = run_cli({"lessons", "--dir", dir.path.string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "ok  Fine  (1 steps)\n");
    EXPECT_EQ(line_count(r.err), 2) << r.err;
    EXPECT_NE(r.err.find(dir / "a.json" + ": cannot read "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(dir / "b.json" + ": cannot read "), std::string::npos) << r.err;
}

// A lesson whose file name holds a terminal escape (the id comes from the name) is listed with the escape
// written out: the listing never retitles or clears the terminal, and its bytes are UTF-8.
TEST(LessonsCommand, AFileNameIsListedEscaped)
{
    TempDir dir;
    std::ofstream(dir / "01_\x1b]0;x\x07\xff.json") << R"({"format": "attnlab-lesson", "version": 1,
        "title": "Fine", "session": {"text": "a b"}, "steps": [{"text": "look"}]})";
    const CliResult r = run_cli({"lessons", "--dir", dir.path.string()});
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find('\x07'), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find('\xff'), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\\x1b]0;x\\x07\\xff  Fine  (1 steps)"), std::string::npos) << r.out;
}

} // namespace attnlab::test
