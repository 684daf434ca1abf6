// attnlab train --task text: a built-in corpus or a file, what the model file records of it, a reopened text
// model's probe, and every bad text or option with its one-line message.
#include "cli_test_util.h"

#include "core/io/model_file.h"
#include "core/train/text_corpus.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace attnlab::test
{
namespace
{

namespace fs = std::filesystem;

void write(const std::string& path, const std::string& bytes)
{
    std::ofstream(path, std::ios::binary) << bytes;
}

std::string slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// About 5,000 characters of English.
std::string essay()
{
    std::string s;
    for (int i = 0; i < 60; ++i)
        s += "It was the best of times, it was the worst of times; line " + std::to_string(i) + ".\n";
    return s;
}

TEST(TrainText, ABuiltInCorpusTrainsAndItsModelRecordsIt)
{
    TempDir dir;
    const CliResult r = run_cli({"train", "--task", "text", "--corpus", "devil", "--steps", "3", "-o",
                                 dir / "m.json", "--log", dir / "m.csv"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("text devil: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" symbols"), std::string::npos) << r.out;
    EXPECT_NE(slurp(dir / "m.csv").find("L2H4_induction,L2H4_word\n"), std::string::npos);
    TrainedModel model;
    const Status s = load_model_file(dir / "m.json", &model);
    ASSERT_TRUE(s.is_ok()) << s.message();
    EXPECT_EQ(model.task, "text");
    EXPECT_EQ(model.text.corpus, "devil");
    EXPECT_EQ(model.text.repeat, 0.0f);
    EXPECT_EQ(model.vocabulary.front(), train::kUnknownSymbol);
    EXPECT_NE(std::find(model.vocabulary.begin(), model.vocabulary.end(), " "), model.vocabulary.end());
    EXPECT_EQ(static_cast<int>(model.history.back().word_start.size()), 8);
    EXPECT_TRUE(check_trained_text(model).is_ok());
    // Saved again, it is the same file.
    ASSERT_TRUE(write_model_file(model, dir / "again.json").is_ok());
    EXPECT_EQ(slurp(dir / "again.json"), slurp(dir / "m.json"));
}

TEST(TrainText, AFileModelRecordsItsSizeAndHashAndReopensToItsProbe)
{
    TempDir dir;
    const std::string text = dir / "essay.txt";
    write(text, essay());
    const CliResult r = run_cli({"train", "--task", "text", "--corpus", text, "--repeat", "0.5", "--steps",
                                 "2", "-o", dir / "m.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    TrainedModel model;
    ASSERT_TRUE(load_model_file(dir / "m.json", &model).is_ok());
    EXPECT_EQ(model.text.corpus, "");
    EXPECT_EQ(model.text.file, text);
    EXPECT_EQ(model.text.bytes, essay().size());
    EXPECT_EQ(model.text.hash, train::fnv1a64(essay()));
    EXPECT_EQ(model.text.repeat, 0.5f);
    EXPECT_TRUE(check_trained_text(model).is_ok());
    train::Task task(train::TaskKind::Copy);
    ASSERT_TRUE(trained_text_task(model, &task).is_ok());
    EXPECT_EQ(task.vocabulary(), model.vocabulary);
    EXPECT_EQ(task.repeat_share(), 0.5f);

    // Its probe runs: the default sentence, and one typed with a character it never saw ('#').
    CliResult e = run_cli({"export", "--model", dir / "m.json", "-o", dir / "t.json"});
    ASSERT_EQ(e.exit_code, 0) << e.err;
    EXPECT_TRUE(e.err.empty()) << e.err;
    EXPECT_EQ(read_json(dir / "t.json")["tokens"][0].size(), std::string(train::kDefaultTextProbe).size());
    e = run_cli({"export", "--model", dir / "m.json", "--text", "It was #1", "-o", dir / "t2.json"});
    ASSERT_EQ(e.exit_code, 0) << e.err;
    EXPECT_EQ(read_json(dir / "t2.json")["tokens"][0][7], train::kUnknownSymbol);

    // The file changed: the model still opens, and says so.
    write(text, essay() + "more");
    EXPECT_NE(check_trained_text(model).message().find("has changed since this model was trained"),
              std::string::npos);
    e = run_cli({"export", "--model", dir / "m.json", "-o", dir / "t3.json"});
    ASSERT_EQ(e.exit_code, 0) << e.err;
    EXPECT_NE(e.err.find("note: " + text + " has changed"), std::string::npos) << e.err;
    std::string same_size = essay();
    same_size[0] = 'i';
    write(text, same_size);
    EXPECT_NE(check_trained_text(model).message().find("same size, other content"), std::string::npos);
}

TEST(TrainText, AWordLevelModelRecordsItsLevelAndReopensToAProbeOfWords)
{
    TempDir dir;
    const std::string text = dir / "essay.txt";
    write(text, essay());
    const CliResult r = run_cli({"train", "--task", "text", "--corpus", text, "--level", "word", "--steps",
                                 "2", "-o", dir / "m.json", "--log", dir / "m.csv"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // 60 lines of 17 tokens ("It was the best of times , it was the worst of times ; line 7 ."), the last 6
    // held out: the line numbers of training (once each) fold, the held-out ones are unknown to it.
    EXPECT_NE(r.out.find("1,020 words and marks (918 for training"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("54 rare words (54 occurrences)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("6 held-out words unknown to training"), std::string::npos) << r.out;
    EXPECT_EQ(slurp(dir / "m.csv").find("_word"), std::string::npos)
        << "no word-start score at the word level";
    TrainedModel model;
    ASSERT_TRUE(load_model_file(dir / "m.json", &model).is_ok());
    EXPECT_EQ(model.text.level, train::TextLevel::Word);
    EXPECT_EQ(model.text.max_words, train::kDefaultWordVocabulary);
    EXPECT_NE(std::find(model.vocabulary.begin(), model.vocabulary.end(), "times"), model.vocabulary.end());
    EXPECT_TRUE(model.history.back().word_start.empty());
    const std::string file = slurp(dir / "m.json");
    EXPECT_NE(file.find("\"level\": \"word\""), std::string::npos);
    train::Task task(train::TaskKind::Copy);
    ASSERT_TRUE(trained_text_task(model, &task).is_ok());
    EXPECT_EQ(task.vocabulary(), model.vocabulary);
    ASSERT_TRUE(task.corpus() != nullptr);
    EXPECT_EQ(task.corpus()->level(), train::TextLevel::Word);
    // Saved again, it is the same file.
    ASSERT_TRUE(write_model_file(model, dir / "again.json").is_ok());
    EXPECT_EQ(slurp(dir / "again.json"), file);

    // Its probe is read word by word ("zebra" unknown); the map labels are whole words.
    const CliResult e = run_cli(
        {"export", "--model", dir / "m.json", "--text", "It was the zebra of times.", "-o", dir / "t.json"});
    ASSERT_EQ(e.exit_code, 0) << e.err;
    const auto tokens = read_json(dir / "t.json")["tokens"][0];
    ASSERT_EQ(tokens.size(), 7u);
    EXPECT_EQ(tokens[2], "the");
    EXPECT_EQ(tokens[3], train::kUnknownSymbol);
    EXPECT_EQ(tokens[6], ".");

    // A character vocabulary read as words (and the reverse) is refused by name.
    std::string as_chars = file;
    as_chars.replace(as_chars.find("\"level\": \"word\""), 15, "\"level\": \"char\"");
    TrainedModel refused;
    Status s = parse_model_json(as_chars, "m.json", &refused);
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("max_words"), std::string::npos) << s.message();
    std::string bad_level = file;
    bad_level.replace(bad_level.find("\"level\": \"word\""), 15, "\"level\": \"byte\"");
    s = parse_model_json(bad_level, "m.json", &refused);
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("text.level"), std::string::npos) << s.message();
}

TEST(TrainText, EveryBadTextOrOptionGivesOneLineAndNoFile)
{
    TempDir files; // (one folder per test: the inputs and the output go in the same one)
    write(files / "empty.txt", "");
    write(files / "binary.bin", std::string("PK\x03\x04\0\0", 6) + essay());
    write(files / "latin1.txt", "caf\xE9\n" + essay());
    write(files / "short.txt", "Too short to hold out a tenth.");
    const std::string model = files / "m.json";
    struct Case
    {
        std::vector<std::string> args;
        const char* part;
    };
    const std::vector<Case> cases = {
        {{"--corpus", files / "empty.txt"}, "is empty: choose a file of plain text"},
        {{"--corpus", files / "binary.bin"}, "looks binary (a NUL byte at offset 4)"},
        {{"--corpus", files / "latin1.txt"}, "is not valid UTF-8 (line 1, byte offset 3)"},
        {{"--corpus", files / "short.txt"}, "has 30 characters; training needs at least 650"},
        {{"--corpus", files / "missing.txt"}, "no such file (built-in texts: austen, devil)"},
        {{"--corpus", files.path.string()}, "is a folder"},
        {{"--corpus", "devil", "--repeat", "1.5"}, "--repeat is the share of sequences"},
        {{"--corpus", "devil", "--repeat=-0.1"}, "from 0 to 1 (try 0.5)"},
        {{"--corpus", "devil", "--level", "words"}, "--level: unknown text level \"words\": use char"},
        {{"--corpus", files / "short.txt", "--level", "word"},
         "has 8 words and marks; training needs at least 650"},
    };
    for (const Case& c : cases)
    {
        std::vector<std::string> args = {"train", "--task", "text"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        args.insert(args.end(), {"-o", model});
        SCOPED_TRACE(c.part);
        const CliResult r = run_cli(args);
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_EQ(line_count(r.err), 1) << r.err;
        EXPECT_NE(r.err.find(c.part), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(model));
    }
    const CliResult r = run_cli({"train", "--task", "copy", "--corpus", "devil", "-o", model});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--corpus goes with --task text only"), std::string::npos) << r.err;
    const CliResult level = run_cli({"train", "--task", "copy", "--level", "word", "-o", model});
    EXPECT_EQ(level.exit_code, 1);
    EXPECT_NE(level.err.find("--level goes with --task text only"), std::string::npos) << level.err;
    int entries = 0; // the four texts, nothing written beside them
    for (const auto& entry : fs::directory_iterator(files.path))
        entries += entry.is_regular_file();
    EXPECT_EQ(entries, 4);
}

} // namespace
} // namespace attnlab::test
