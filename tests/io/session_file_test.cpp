// Session files: byte-identical save -> load -> save, and every bad file as a clear error that changes
// nothing.
#include "../support/settings_support.h"
#include "core/io/atomic_file.h"
#include "core/io/session_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;

Session unusual_session()
{
    Session s;
    s.text = "Jane visits Africa in September .\n\n  \"quoted\" and back\\slash\ttab  \nÉlan vital → ∞\n";
    s.target = "Jane visite l'Afrique en septembre .";
    s.config.d_model = 12;
    s.config.n_heads = 3;
    s.config.d_k = 5;
    s.config.d_v = 2;
    s.config.d_ff = 7;
    s.config.n_layers = 3;
    s.config.mask = MaskKind::Causal;
    s.config.positional = PositionalKind::None;
    s.config.temperature = 0.7f;
    s.config.scale = false;
    s.config.residual = false;
    s.config.seed = 9223372036854775813ull;
    s.weights_path = "models/w.json";
    return s;
}

TEST(SessionFile, DefaultRoundTripIsByteIdentical)
{
    const Session original;
    const std::string first = session_to_json(original);
    Session loaded;
    loaded.config.d_model = 99;
    ASSERT_TRUE(session_from_json(first, "s.json", &loaded).is_ok());
    EXPECT_EQ(loaded, original);
    EXPECT_EQ(session_to_json(loaded), first);
}

TEST(SessionFile, EveryFieldRoundTripsThroughAFile)
{
    const fs::path dir = fs::temp_directory_path() / "attnlab_session_file_test";
    fs::create_directories(dir);
    const Session original = unusual_session();
    const std::string a = (dir / "a.json").string(), b = (dir / "b.json").string();
    ASSERT_TRUE(save_session_file(original, a).is_ok());
    Session loaded;
    ASSERT_TRUE(load_session_file(a, &loaded).is_ok());
    EXPECT_EQ(loaded, original);
    EXPECT_EQ(loaded.config.temperature, 0.7f);
    EXPECT_EQ(loaded.config.seed, 9223372036854775813ull);
    ASSERT_TRUE(save_session_file(loaded, b).is_ok());
    std::string text_a, text_b;
    ASSERT_TRUE(read_file(a, &text_a).is_ok());
    ASSERT_TRUE(read_file(b, &text_b).is_ok());
    EXPECT_EQ(text_a, text_b);
    EXPECT_NE(text_a.find("\"temperature\": 0.7,"), std::string::npos) << text_a;
    EXPECT_NE(text_a.find("\"format\": \"attnlab-session\""), std::string::npos);
    EXPECT_FALSE(fs::exists(a + ".tmp"));
    fs::remove_all(dir);
}

TEST(SessionFile, MissingOptionalFieldsKeepDefaults)
{
    Session loaded;
    ASSERT_TRUE(session_from_json(R"({"format": "attnlab-session", "version": 1, "text": "a b",
                                      "config": {"heads": 2}})",
                                  "s.json", &loaded)
                    .is_ok());
    EXPECT_EQ(loaded.text, "a b");
    EXPECT_EQ(loaded.config.n_heads, 2);
    EXPECT_EQ(loaded.config.d_model, Config().d_model);
    EXPECT_TRUE(loaded.weights_path.empty());
}

TEST(SessionFile, TheSwitchesRoundTripAndAnOldFileWithoutThemHasThemOn)
{
    Session off;
    off.config.residual = false;
    off.config.positional = PositionalKind::None;
    const std::string text = session_to_json(off);
    EXPECT_NE(text.find("\"residual\": false"), std::string::npos) << text;
    EXPECT_NE(text.find("\"positional\": \"none\""), std::string::npos) << text;
    Session loaded;
    ASSERT_TRUE(session_from_json(text, "s.json", &loaded).is_ok());
    EXPECT_FALSE(loaded.config.residual);
    EXPECT_EQ(loaded.config.positional, PositionalKind::None);
    // A file written before the residual switch existed (its config as every version so far wrote it).
    Session old = off;
    ASSERT_TRUE(
        session_from_json(R"({"format": "attnlab-session", "version": 1, "text": ["a b"], "target": [],
        "config": {"d_model": 16, "heads": 4, "d_k": 0, "d_v": 0, "d_ff": 0, "layers": 1, "mask": "none",
                   "positional": "sinusoidal", "temperature": 1.0, "scale": true, "seed": 1},
        "weights": ""})",
                          "old.json", &old)
            .is_ok());
    EXPECT_TRUE(old.config.residual);
    EXPECT_EQ(old.config.positional, PositionalKind::Sinusoidal);
}

// Each bad document gives an error containing the expected text, and leaves the session untouched.
void expect_error(const std::string& text, const std::string& expected)
{
    Session target = unusual_session();
    const Status s = session_from_json(text, "session.json", &target);
    ASSERT_FALSE(s.is_ok()) << text;
    EXPECT_NE(s.message().find(expected), std::string::npos) << s.message();
    EXPECT_EQ(target, unusual_session());
}

TEST(SessionFile, BadFilesAreClearErrors)
{
    const std::string head = R"({"format": "attnlab-session", "version": 1, )";
    expect_error(head + R"("config": {"heads": -3}})",
                 "session.json: \"heads\" must be a positive integer, got -3");
    expect_error("{\"format\": \"attnlab-session\", ",
                 "session.json: the file is incomplete: its JSON stops at line 1, column 29");
    expect_error("{\"format\": \"attnlab-session\", \n}", "session.json: not valid JSON at line 2, column 1");
    expect_error("", "session.json: the file is empty");
    expect_error(" \n", "may have been cut off while it was being saved");
    expect_error(R"({"format": "attnlab-trace", "version": 1})", "a trace export is not a session file");
    expect_error(R"({"version": 1})", "\"format\" is missing");
    expect_error(R"({"format": "attnlab-session", "version": 2})", "version 2 is newer");
    expect_error(R"({"format": "attnlab-session", "version": "1"})",
                 "\"version\" must be a positive integer");
    expect_error(head + R"("config": {"mask": "diagonal"}})", "\"mask\": ");
    expect_error(head + R"("config": {"positional": 3}})",
                 "\"positional\" must be \"sinusoidal\" or \"none\"");
    expect_error(head + R"("config": {"temperature": "hot"}})", "\"temperature\" must be a number");
    expect_error(head + R"("config": {"temperature": 0}})", "\"temperature\" must be a number");
    expect_error(head + R"("config": {"d_model": 2.5}})", "\"d_model\" must be a positive integer, got 2.5");
    expect_error(head + R"("config": {"d_k": -1}})", "\"d_k\" must be a non-negative integer");
    expect_error(head + R"("config": {"seed": -1}})", "\"seed\" must be a non-negative integer");
    expect_error(head + R"("config": {"scale": "yes"}})", "\"scale\" must be true");
    expect_error(head + R"("config": {"d_model": 10, "heads": 3}})", "session.json: ");
    expect_error(head + R"("config": {"head": 3}})", "unknown key \"head\" in \"config\"");
    expect_error(head + R"("txt": "a"})", "unknown key \"txt\"");
    expect_error(head + R"("text": 5})", "\"text\" must be a string or a list of strings");
    expect_error(head + R"("weights": 5})", "\"weights\" must be a file path");
    expect_error("[1, 2]", "expected a JSON object");
}

TEST(SessionFile, EverySettingIsWrittenUnderItsKeyAndRoundTrips)
{
    using json = nlohmann::ordered_json;
    const json base = json::parse(session_to_json(Session{}));
    // The "config" object holds every setting, in the table's order.
    std::vector<std::string> keys;
    for (const auto& item : base["config"].items())
        keys.push_back(item.key());
    ASSERT_EQ(keys.size(), setting_table().size());
    for (const SettingInfo& info : setting_table())
        EXPECT_EQ(keys[static_cast<std::size_t>(info.id)], info.key);

    for (const SettingInfo& info : setting_table())
    {
        SCOPED_TRACE(info.key);
        Session s;
        s.config = test::with_other_value(info, s.config);
        ASSERT_NE(s.config, Config{});
        const std::string text = session_to_json(s);
        Session loaded;
        ASSERT_TRUE(session_from_json(text, "s.json", &loaded).is_ok());
        EXPECT_EQ(loaded, s);
        EXPECT_EQ(session_to_json(loaded), text);
        // Only the row's own key changed in the file.
        const json doc = json::parse(text);
        for (const SettingInfo& other : setting_table())
            EXPECT_EQ(doc["config"][other.key] != base["config"][other.key], other.id == info.id)
                << other.key;
    }
}

TEST(SessionFile, ABadValueOfEverySettingIsAnErrorNamingItsKey)
{
    const std::string head = R"({"format": "attnlab-session", "version": 1, "config": {")";
    for (const SettingInfo& info : setting_table())
    {
        Session s;
        const Status status = session_from_json(head + info.key + R"(": [1]}})", "session.json", &s);
        ASSERT_FALSE(status.is_ok()) << info.key;
        EXPECT_EQ(status.message().rfind("session.json: \"" + std::string(info.key) + "\" must be ", 0), 0u)
            << status.message();
        EXPECT_EQ(s, Session{}); // unchanged
    }
}

TEST(SessionFile, ATrainedModelIsReferredToOnlyWhenThereIsOne)
{
    Session with_model;
    with_model.model_path = "lecture.model.json";
    const std::string text = session_to_json(with_model);
    EXPECT_NE(text.find("\"model\": \"lecture.model.json\""), std::string::npos) << text;
    EXPECT_EQ(session_to_json(Session{}).find("\"model\""), std::string::npos) << "none: the key is left out";
    Session loaded;
    ASSERT_TRUE(session_from_json(text, "s.json", &loaded).is_ok());
    EXPECT_EQ(loaded, with_model);
    const std::string head = R"({"format": "attnlab-session", "version": 1, )";
    expect_error(head + R"("model": 3})", "session.json: \"model\" must be the path of a trained model file");
}

TEST(SessionFile, UnreadableFileNamesIt)
{
    Session s;
    const Status status = load_session_file("/nonexistent/dir/session.json", &s);
    ASSERT_FALSE(status.is_ok());
    EXPECT_NE(status.message().find("/nonexistent/dir/session.json"), std::string::npos);
    EXPECT_EQ(s, Session());
    // A folder is not a file: reading it fails with the system's reason, not as malformed JSON.
    const std::string folder = fs::temp_directory_path().string();
    const Status dir_status = load_session_file(folder, &s);
    ASSERT_FALSE(dir_status.is_ok());
    EXPECT_NE(dir_status.message().find("cannot read " + folder), std::string::npos) << dir_status.message();
}

TEST(SessionFile, WeightsPathIsRelativeToTheSessionFile)
{
    EXPECT_EQ(resolve_weights_path("dir/sub/s.json", "w.json"), "dir/sub/w.json");
    EXPECT_EQ(resolve_weights_path("dir/s.json", "/abs/w.json"), "/abs/w.json");
    EXPECT_EQ(resolve_weights_path("s.json", "w.json"), "w.json");
    EXPECT_EQ(resolve_weights_path("dir/s.json", ""), "");
}

TEST(SessionFile, WeightsPathIsAbsoluteInMemoryAndRelativeOnlyInsideTheSessionFolder)
{
    const std::string cwd = std::filesystem::current_path().lexically_normal().string();
    EXPECT_EQ(absolute_weights_path("dir/sub/s.json", "w.json"), cwd + "/dir/sub/w.json");
    EXPECT_EQ(absolute_weights_path("dir/s.json", "../m/./w.json"), cwd + "/m/w.json");
    EXPECT_EQ(absolute_weights_path("", "w.json"), cwd + "/w.json");
    EXPECT_EQ(absolute_weights_path("/a/s.json", "/abs/w.json"), "/abs/w.json");
    EXPECT_EQ(absolute_weights_path("/a/s.json", ""), "");

    // Saving: weights in the session's folder or below are written relative to it, others stay absolute.
    EXPECT_EQ(portable_weights_path("/a/s.json", "/a/w.json"), "w.json");
    EXPECT_EQ(portable_weights_path("/a/s.json", "/a/models/w.json"), "models/w.json");
    EXPECT_EQ(portable_weights_path("/a/b/s.json", "/a/w.json"), "/a/w.json");
    EXPECT_EQ(portable_weights_path("/a/s.json", "/ab/w.json"), "/ab/w.json");
    EXPECT_EQ(portable_weights_path("/a/s.json", ""), "");
    // Round trip: what is written resolves back to the same file.
    EXPECT_EQ(absolute_weights_path("/a/s.json", portable_weights_path("/a/s.json", "/a/models/w.json")),
              "/a/models/w.json");
}

TEST(SessionFile, SavingThroughASymbolicLinkWritesItsTargetAndKeepsTheLink)
{
    const fs::path dir = fs::temp_directory_path() / "attnlab_session_link_test";
    fs::remove_all(dir);
    fs::create_directories(dir / "real");
    const fs::path target = dir / "real" / "lecture.json";
    const fs::path link = dir / "lecture.json";
    {
        std::ofstream(target) << "old";
    }
    fs::create_symlink(fs::path("real") / "lecture.json", link);
    Session s;
    s.text = "through the link";
    ASSERT_TRUE(save_session_file(s, link.string()).is_ok());
    EXPECT_TRUE(fs::is_symlink(link));
    Session loaded;
    ASSERT_TRUE(load_session_file(target.string(), &loaded).is_ok());
    EXPECT_EQ(loaded.text, "through the link");
    EXPECT_FALSE(fs::exists(dir / "real" / "lecture.json.tmp"));
    EXPECT_FALSE(fs::exists(dir / "lecture.json.tmp"));
    fs::remove_all(dir);
}

} // namespace
} // namespace attnlab
