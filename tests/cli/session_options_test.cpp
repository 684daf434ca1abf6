// The shared session options: one flag per row of the settings table, each accepted and applied to its own
// setting alone; a bad value is refused naming the flag.
#include "../support/settings_support.h"
#include "app/cli/session_options.h"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace attnlab
{
namespace
{

// Parses args with the shared options and builds the session.
Status parse_session(const std::vector<std::string>& args, Session* out, bool* any_given)
{
    CLI::App app("test");
    SessionOptions options;
    add_session_options(app, options);
    std::vector<std::string> reversed(args.rbegin(), args.rend()); // CLI11 takes them last first
    app.parse(reversed);
    *any_given = any_session_option_given(options);
    return build_session(options, out);
}

TEST(SessionOptions, EveryRowsFlagIsAcceptedAndSetsItsSettingAlone)
{
    for (const SettingInfo& info : setting_table())
    {
        SCOPED_TRACE(info.flag);
        const Config wanted = test::with_other_value(info, Config{});
        ASSERT_NE(wanted, Config{});
        std::vector<std::string> args = {info.flag};
        if (info.kind != SettingKind::Bool)
            args.push_back(test::value_argument(info, wanted));
        Session session;
        bool any_given = false;
        const Status status = parse_session(args, &session, &any_given);
        ASSERT_TRUE(status.is_ok()) << status.message();
        EXPECT_TRUE(any_given);
        EXPECT_EQ(session.config, wanted);
    }
}

// --session FILE: the file's model file and model folder are relative to it, as its weights are (and as File
// > Open reads them), whatever the working folder.
TEST(SessionOptions, ASessionsModelPathsAreRelativeToItsFile)
{
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "attnlab_session_paths";
    std::filesystem::create_directories(dir);
    const std::filesystem::path file = dir / "s.json";
    {
        std::ofstream f(file);
        f << R"({"format": "attnlab-session", "version": 1, "text": "a b",
                 "model": "runs/m.json", "model_folder": "hf/gpt2"})";
    }
    Session session;
    bool any_given = false;
    const Status status = parse_session({"--session", file.string()}, &session, &any_given);
    ASSERT_TRUE(status.is_ok()) << status.message();
    EXPECT_EQ(session.model_path, (dir / "runs" / "m.json").string());
    EXPECT_EQ(session.model_folder, (dir / "hf" / "gpt2").string());
    std::filesystem::remove_all(dir);
}

TEST(SessionOptions, NoOptionKeepsTheDefaultSession)
{
    Session session;
    session.text = "changed";
    bool any_given = true;
    ASSERT_TRUE(parse_session({}, &session, &any_given).is_ok());
    EXPECT_FALSE(any_given);
    EXPECT_EQ(session, Session{});
}

TEST(SessionOptions, AnUnknownNameOrABadSeedNamesItsFlag)
{
    for (const SettingInfo& info : setting_table())
    {
        if (info.kind != SettingKind::Choice && info.kind != SettingKind::Seed)
            continue;
        Session session;
        bool any_given = false;
        const Status status = parse_session({info.flag, "five"}, &session, &any_given);
        ASSERT_FALSE(status.is_ok()) << info.flag;
        EXPECT_EQ(status.message().rfind(std::string(info.flag) + ": ", 0), 0u) << status.message();
    }
}

TEST(SessionOptions, AnInvalidConfigIsRefused)
{
    Session session;
    bool any_given = false;
    const Status status = parse_session({"--d-model", "10", "--heads", "4"}, &session, &any_given);
    ASSERT_FALSE(status.is_ok());
    EXPECT_NE(status.message().find("not divisible by h"), std::string::npos) << status.message();
}

} // namespace
} // namespace attnlab
