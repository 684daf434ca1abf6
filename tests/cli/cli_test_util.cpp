// Helpers for the command-line tests.
#include "cli_test_util.h"

#include "app/cli/commands.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace attnlab::test
{

CliResult run_cli(const std::vector<std::string>& args)
{
    std::vector<const char*> argv = {"attnlab-headless"};
    for (const std::string& arg : args)
        argv.push_back(arg.c_str());
    std::ostringstream out, err;
    CliResult result;
    result.exit_code = run_headless_cli(static_cast<int>(argv.size()), argv.data(), out, err);
    result.out = out.str();
    result.err = err.str();
    return result;
}

nlohmann::json read_json(const std::string& path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

int line_count(const std::string& text)
{
    int lines = 0;
    for (const char c : text)
        lines += c == '\n';
    return lines + (!text.empty() && text.back() != '\n');
}

TempDir::TempDir()
{
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    // The process id too: two checkouts' suites running at once must not share (and delete) a folder.
    path = std::filesystem::temp_directory_path() / ("attnlab_cli_" + std::string(info->test_suite_name()) +
                                                     "_" + info->name() + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
}

TempDir::~TempDir()
{
    std::filesystem::remove_all(path);
}

} // namespace attnlab::test
