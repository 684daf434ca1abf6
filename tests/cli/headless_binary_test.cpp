// The attnlab-headless binary itself: exit codes, one stderr line, no output file on error.
#include "cli_test_util.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <sys/wait.h>

namespace attnlab::test
{
namespace
{

namespace fs = std::filesystem;

const std::string kBinary = std::string(ATTNLAB_BINARY_DIR) + "/app/attnlab-headless";

std::string quote(const std::string& s)
{
    std::string q = "'";
    for (const char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Runs the binary with a shell; returns its exit status and fills the captured streams.
int run_binary(const std::string& args, const TempDir& dir, std::string* out, std::string* err)
{
    const std::string command =
        quote(kBinary) + " " + args + " >" + quote(dir / "stdout.txt") + " 2>" + quote(dir / "stderr.txt");
    const int status = std::system(command.c_str());
    auto slurp = [](const std::string& path)
    {
        std::ifstream in(path);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    };
    *out = slurp(dir / "stdout.txt");
    *err = slurp(dir / "stderr.txt");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(HeadlessBinary, ExportSucceeds)
{
    ASSERT_TRUE(fs::exists(kBinary)) << kBinary;
    TempDir dir;
    std::string out, err;
    const int code = run_binary("export --text 'a b c' --d-model 8 --heads 2 -o " + quote(dir / "t.json"),
                                dir, &out, &err);
    EXPECT_EQ(code, 0) << err;
    EXPECT_TRUE(fs::exists(dir / "t.json"));
    EXPECT_TRUE(err.empty()) << err;
}

TEST(HeadlessBinary, BadInputGivesOneLineAndNoFile)
{
    TempDir dir;
    std::string out, err;
    const int code =
        run_binary("export --text 'a b c' --mask diagonal -o " + quote(dir / "t.json"), dir, &out, &err);
    EXPECT_EQ(code, 1);
    EXPECT_EQ(line_count(err), 1) << err;
    EXPECT_NE(err.find("diagonal"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(dir / "t.json"));
}

TEST(HeadlessBinary, NoSubcommandIsAUsageError)
{
    TempDir dir;
    std::string out, err;
    EXPECT_EQ(run_binary("", dir, &out, &err), 2);
    EXPECT_EQ(line_count(err), 1) << err;
}

} // namespace
} // namespace attnlab::test
