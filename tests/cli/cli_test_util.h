// Helpers for the command-line tests: run attnlab-headless in-process and capture its output.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace attnlab::test
{

struct CliResult
{
    int exit_code = 0;
    std::string out, err;
};

// Runs run_headless_cli with argv = {"attnlab-headless", args...}.
CliResult run_cli(const std::vector<std::string>& args);

// The JSON file a command wrote (nlohmann's exception when it is missing or not JSON).
nlohmann::json read_json(const std::string& path);

// Number of lines in text (a last line without '\n' counts).
int line_count(const std::string& text);

// A fresh empty folder for one test, removed by the destructor.
struct TempDir
{
    TempDir();
    ~TempDir();
    std::string operator/(const std::string& name) const { return (path / name).string(); }
    std::filesystem::path path;
};

} // namespace attnlab::test
