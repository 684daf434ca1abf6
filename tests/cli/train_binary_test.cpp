// attnlab-headless train as a process: Ctrl+C (SIGINT) stops it after the current step and keeps the model.
#include "cli_test_util.h"

#include "core/io/model_file.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

extern char** environ;

namespace attnlab::test
{
namespace
{

namespace fs = std::filesystem;

const std::string kBinary = std::string(ATTNLAB_BINARY_DIR) + "/app/attnlab-headless";

std::string slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Starts the binary with stdout and stderr going to files.
pid_t spawn(const std::vector<std::string>& args, const std::string& out, const std::string& err)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    std::vector<char*> argv = {const_cast<char*>(kBinary.c_str())};
    for (const std::string& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, kBinary.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    return rc == 0 ? pid : -1;
}

// Waits up to timeout for the process; kills it after that. Returns its exit code, -1 when it did not exit.
int wait_exit(pid_t pid, std::chrono::seconds timeout)
{
    const auto end = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0)
    {
        if (std::chrono::steady_clock::now() > end)
        {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(TrainBinary, SigintStopsAfterTheCurrentStepAndWritesTheModel)
{
    ASSERT_TRUE(fs::exists(kBinary)) << kBinary;
    TempDir dir;
    const std::string out = dir / "stdout.txt", err = dir / "stderr.txt";
    const pid_t pid = spawn(
        {"train", "--task", "reverse", "--steps", "1000000", "-o", dir / "m.json", "--log", dir / "m.csv"},
        out, err);
    ASSERT_GT(pid, 0);
    // The first line appears once the handler is in place; then let it train about a second.
    const auto start = std::chrono::steady_clock::now();
    while (slurp(out).find('\n') == std::string::npos &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(60))
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::this_thread::sleep_for(std::chrono::seconds(1));
    ASSERT_EQ(kill(pid, SIGINT), 0);
    const int code = wait_exit(pid, std::chrono::seconds(120));
    EXPECT_EQ(code, 130) << slurp(err);

    const std::string err_text = slurp(err);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(err_text, m, std::regex("interrupted at step ([0-9]+)"))) << err_text;
    const int interrupted_at = std::stoi(m[1].str());
    EXPECT_EQ(line_count(err_text), 1) << err_text;

    TrainedModel model;
    const Status s = load_model_file(dir / "m.json", &model);
    ASSERT_TRUE(s.is_ok()) << s.message();
    EXPECT_EQ(model.steps_taken, interrupted_at);
    EXPECT_GE(model.steps_taken, 1);
    EXPECT_LT(model.steps_taken, 1000000);
    EXPECT_EQ(model.settings.steps, 1000000);
    ASSERT_FALSE(model.history.empty());
    EXPECT_EQ(model.history.back().step, interrupted_at); // the last step is logged
    const std::string out_text = slurp(out);
    EXPECT_NE(out_text.find("\nsteps=" + std::to_string(interrupted_at) + " ms_per_step="), std::string::npos)
        << out_text;
    EXPECT_TRUE(fs::exists(dir / "m.csv"));
}

TEST(TrainBinary, ProgressGoesToAFileAsWholeLines)
{
    TempDir dir;
    const std::string out = dir / "stdout.txt", err = dir / "stderr.txt";
    const pid_t pid =
        spawn({"train", "--task", "copy", "--steps", "20", "--batch", "8", "-o", dir / "m.json"}, out, err);
    ASSERT_GT(pid, 0);
    EXPECT_EQ(wait_exit(pid, std::chrono::seconds(120)), 0) << slurp(err);
    const std::string text = slurp(out);
    EXPECT_EQ(text.find('\r'), std::string::npos) << text;
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
    EXPECT_NE(text.find("step 1/20 loss="), std::string::npos) << text;
    EXPECT_NE(text.find("step 20/20 loss="), std::string::npos) << text;
    EXPECT_TRUE(slurp(err).empty());
}

} // namespace
} // namespace attnlab::test
