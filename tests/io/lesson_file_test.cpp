// Lessons: every built-in lesson loads and its numbers say what its text says; broken files are named.
#include "core/comparisons.h"
#include "core/engine.h"
#include "core/io/lesson_file.h"
#include "core/softmax.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <sys/stat.h>
#include <unistd.h>

using namespace attnlab;

namespace
{

const std::string kLessons = std::string(ATTNLAB_SOURCE_DIR) + "/assets/lessons";

const char* kMinimal = R"({"format": "attnlab-lesson", "version": 1, "title": "T",
    "session": {"text": "a b c", "config": {"d_model": 8, "heads": 2}},
    "steps": [{"text": "first", "stages": ["weights"], "cells": [{"stage": "weights", "row": 2, "col": 1}]},
              {"text": "second", "session": {"config": {"mask": "causal"}}, "head": 1}]})";

Status parse(const std::string& text, Lesson* out)
{
    return parse_lesson(text, "lessons/99_test.json", out);
}

std::string with(std::string text, const std::string& from, const std::string& to)
{
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
}

} // namespace

TEST(Lessons, AllBuiltInLessonsLoad)
{
    const LessonLibrary library = load_lessons(kLessons);
    for (const std::string& e : library.errors)
        ADD_FAILURE() << e;
    const std::vector<std::string> ids = {"tour",
                                          "typo",
                                          "multi_head",
                                          "two_linear_maps",
                                          "shapes_masks",
                                          "why_sqrt_dk",
                                          "cross_attention",
                                          "watch_attention_learn",
                                          "induction_heads",
                                          "sort",
                                          "why_multi_head_experiment",
                                          "attention_learns_english"};
    ASSERT_EQ(library.lessons.size(), ids.size());
    for (size_t i = 0; i < ids.size(); ++i)
    {
        EXPECT_EQ(library.lessons[i].id, ids[i]);
        EXPECT_GE(library.lessons[i].steps.size(), 4u) << ids[i];
        EXPECT_FALSE(library.lessons[i].title.empty());
        EXPECT_FALSE(library.lessons[i].summary.empty());
    }
    EXPECT_NE(find_lesson(library, "typo"), nullptr);
    EXPECT_EQ(find_lesson(library, "nope"), nullptr);
}

TEST(Lessons, StepSessionsMergeIntoTheLessonSession)
{
    Lesson lesson;
    ASSERT_TRUE(parse(kMinimal, &lesson)) << parse(kMinimal, &lesson).message();
    EXPECT_EQ(lesson.id, "test");
    ASSERT_EQ(lesson.steps.size(), 2u);
    EXPECT_EQ(lesson.steps[0].session.config.mask, MaskKind::None);
    EXPECT_EQ(lesson.steps[1].session.config.mask, MaskKind::Causal);
    EXPECT_EQ(lesson.steps[1].session.config.d_model, 8); // kept from the lesson's session
    EXPECT_EQ(lesson.steps[1].session.text, "a b c");
    EXPECT_EQ(lesson.steps[0].stages, std::vector<Stage>{Stage::weights});
    ASSERT_EQ(lesson.steps[0].cells.size(), 1u);
    EXPECT_EQ(lesson.steps[0].cells[0].row, 2);
    EXPECT_EQ(lesson.steps[1].head, 1);
    EXPECT_EQ(lesson.steps[0].view, LessonView::Pipeline);
    EXPECT_EQ(lesson.steps[0].comparison, ComparisonSection::All);

    // "comparison" names one comparison and brings the comparisons view with it.
    ASSERT_TRUE(
        parse(with(kMinimal, "{\"text\": \"first\",", "{\"text\": \"first\", \"comparison\": \"two_step\","),
              &lesson));
    EXPECT_EQ(lesson.steps[0].view, LessonView::Comparisons);
    EXPECT_EQ(lesson.steps[0].comparison, ComparisonSection::TwoStep);
}

TEST(Lessons, ARowSumsStepIsReadAndTheOthersHaveNone)
{
    Lesson lesson;
    ASSERT_TRUE(
        parse(with(kMinimal, "{\"text\": \"first\",", "{\"text\": \"first\", \"row_sums\": true,"), &lesson));
    ASSERT_EQ(lesson.steps.size(), 2u);
    EXPECT_TRUE(lesson.steps[0].row_sums);
    EXPECT_FALSE(lesson.steps[1].row_sums);
}

TEST(Lessons, BrokenLessonsAreRejectedWithFileStepAndField)
{
    struct Bad
    {
        std::string text;
        std::string expected;
    };
    std::vector<Bad> bad = {
        {"{not json", "lessons/99_test.json: not valid JSON at line 1, column 3: invalid literal"},
        {with(kMinimal, "attnlab-lesson", "attnlab-session"),
         "\"format\" is \"attnlab-session\", expected \"attnlab-lesson\""},
        {with(kMinimal, "\"version\": 1", "\"version\": 7"), "newer than this program reads"},
        {with(kMinimal, "[\"weights\"]", "[\"softmax\"]"), "step 1: unknown stage \"softmax\""},
        {with(kMinimal, "\"row\": 2", "\"row\": 3"), "step 1: cell (3, 1) of \"weights\" is outside its 3x3"},
        {with(kMinimal, "\"head\": 1", "\"head\": 2"), "step 2: \"head\" 2 does not exist (h = 2"},
        {with(kMinimal, "\"mask\": \"causal\"", "\"mask\": \"future\""), "step 2"},
        {with(kMinimal, "\"heads\": 2", "\"heads\": 3"), "not divisible by h"},
        {with(kMinimal, "{\"text\": \"first\",", "{\"txt\": \"first\","), "unknown key \"txt\""},
        {with(kMinimal, "\"text\": \"second\",", "\"text\": \"second\", \"cross\": true,"),
         "\"cross\" is true but the session has no target"},
        {with(kMinimal, "{\"text\": \"first\",", "{\"text\": \"first\", \"view\": \"grid\","),
         "step 1: \"view\" must be one of \"pipeline\", \"heads\", \"comparisons\", got \"grid\""},
        {with(kMinimal, "{\"text\": \"first\",", "{\"text\": \"first\", \"comparison\": \"all\","),
         "step 1: \"comparison\" must be one of \"packed\", \"two_step\", \"single_head\", got \"all\""},
        // The rows a Σ column adds up are the weights'.
        {with(kMinimal, "\"text\": \"second\",", "\"text\": \"second\", \"row_sums\": true,"),
         "step 2: \"row_sums\" needs \"weights\" among the step's \"stages\""},
        {with(kMinimal, "{\"text\": \"first\",", "{\"text\": \"first\", \"row_sums\": 1,"),
         "step 1: \"row_sums\""},
    };
    // More steps than --step can reach (1 to kMaxStepsInLesson); the most is accepted.
    const auto with_steps = [](int n)
    {
        std::string steps;
        for (int i = 0; i < n; ++i)
            steps += std::string(i ? ", " : "") + R"({"text": "s"})";
        return with(kMinimal, kMinimal + std::string(kMinimal).find("[{\"text\": \"first\""),
                    "[" + steps + "]}");
    };
    Lesson most;
    ASSERT_TRUE(parse(with_steps(kMaxStepsInLesson), &most));
    EXPECT_EQ(most.steps.size(), static_cast<std::size_t>(kMaxStepsInLesson));
    bad.push_back({with_steps(kMaxStepsInLesson + 1), "\"steps\" has 1001 steps; a lesson has at most 1000"});
    {
        // 1 MiB of text in a 20-step lesson is 20 MiB in all (each step has a copy): refused by step 17.
        const std::string big(1u << 20, 'a');
        Lesson lesson;
        const Status s =
            parse(with(with_steps(20), "\"text\": \"a b c\"", "\"text\": \"" + big + "\""), &lesson);
        ASSERT_FALSE(s);
        EXPECT_NE(s.message().find("more than 16 MiB of session text in all by step 17"), std::string::npos)
            << s.message().substr(0, 300);
        Lesson fits;
        EXPECT_TRUE(parse(with(with_steps(15), "\"text\": \"a b c\"", "\"text\": \"" + big + "\""), &fits));
    }
    {
        // A file name that leaves no id ("12_.json") cannot be opened by id.
        Lesson lesson;
        const Status s = parse_lesson(kMinimal, "lessons/12_.json", &lesson);
        ASSERT_FALSE(s);
        EXPECT_NE(s.message().find("gives the lesson no id: name it like 05_my_lesson.json"),
                  std::string::npos)
            << s.message();
    }
    for (const Bad& b : bad)
    {
        Lesson lesson;
        lesson.id = "unchanged";
        const Status s = parse(b.text, &lesson);
        ASSERT_FALSE(s) << b.expected;
        EXPECT_NE(s.message().find(b.expected), std::string::npos) << s.message();
        EXPECT_NE(s.message().find("lessons/99_test.json"), std::string::npos) << s.message();
        EXPECT_EQ(lesson.id, "unchanged");
    }
}

TEST(Lessons, AMalformedFileIsNamedAndTheOthersStillLoad)
{
    const auto dir = std::filesystem::temp_directory_path() / "attnlab_lessons_test";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "01_good.json") << kMinimal;
    std::ofstream(dir / "02_broken.json") << "{\"format\": \"attnlab-lesson\", \"version\": 1, \"steps\": [";
    std::ofstream(dir / "notes.txt") << "not a lesson";
    const LessonLibrary library = load_lessons(dir.string());
    ASSERT_EQ(library.lessons.size(), 1u);
    EXPECT_EQ(library.lessons[0].id, "good");
    ASSERT_EQ(library.errors.size(), 1u);
    EXPECT_NE(library.errors[0].find((dir / "02_broken.json").string()), std::string::npos)
        << library.errors[0];
    std::filesystem::remove_all(dir);

    const LessonLibrary missing = load_lessons("/nonexistent/lessons");
    EXPECT_TRUE(missing.lessons.empty());
    ASSERT_EQ(missing.errors.size(), 1u);
    EXPECT_NE(missing.errors[0].find("not found"), std::string::npos);
    // A folder the user named is not found through the environment: no advice about ATTNLAB_LESSONS.
    EXPECT_EQ(missing.errors[0].find("ATTNLAB_LESSONS"), std::string::npos) << missing.errors[0];
    EXPECT_NE(missing.errors[0].find("the folder that holds the lesson files"), std::string::npos)
        << missing.errors[0];

    // A file, a FIFO or a link that loops where a folder is wanted: named for what it is.
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "a_file") << "x";
    std::filesystem::create_symlink(dir / "loop", dir / "loop");
    ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
    const LessonLibrary file = load_lessons((dir / "a_file").string());
    ASSERT_EQ(file.errors.size(), 1u);
    EXPECT_NE(file.errors[0].find("a_file is not a folder: give the folder"), std::string::npos)
        << file.errors[0];
    const LessonLibrary loop = load_lessons((dir / "loop").string());
    ASSERT_EQ(loop.errors.size(), 1u);
    EXPECT_NE(loop.errors[0].find("loop is not a folder (Too many levels of symbolic links)"),
              std::string::npos)
        << loop.errors[0];
    const LessonLibrary fifo = load_lessons((dir / "fifo").string());
    ASSERT_EQ(fifo.errors.size(), 1u);
    EXPECT_NE(fifo.errors[0].find("fifo is not a folder"), std::string::npos) << fifo.errors[0];
    EXPECT_EQ(fifo.errors[0].find("ATTNLAB_LESSONS"), std::string::npos) << fifo.errors[0];
    std::filesystem::remove_all(dir);
}

// Entries named *.json that are not regular files are listed with their name and what is wrong (a link
// loop used to abort with filesystem_error; a FIFO, a folder, a device and a dangling link were skipped
// silently), and the rest load.
TEST(Lessons, UnreadableEntriesAreListedAndTheRestLoad)
{
    namespace fs = std::filesystem;
    const auto dir = fs::temp_directory_path() / ("attnlab_lessons_odd_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "01_good.json") << kMinimal;
    fs::create_symlink("03_loop_b.json", dir / "02_loop_a.json");
    fs::create_symlink("02_loop_a.json", dir / "03_loop_b.json");
    ASSERT_EQ(::mkfifo((dir / "04_fifo.json").c_str(), 0600), 0);
    fs::create_directories(dir / "05_folder.json");
    fs::create_symlink("/dev/zero", dir / "06_device.json");
    fs::create_symlink("nowhere.json", dir / "07_dangling.json");
    const LessonLibrary library = load_lessons(dir.string());
    ASSERT_EQ(library.lessons.size(), 1u);
    EXPECT_EQ(library.lessons[0].id, "good");
    const struct
    {
        const char* name;
        const char* reason;
    } expected[] = {
        {"02_loop_a.json", "symbolic links"},     {"03_loop_b.json", "symbolic links"},
        {"04_fifo.json", "not a regular file"},   {"05_folder.json", "folder"},
        {"06_device.json", "not a regular file"}, {"07_dangling.json", "No such file"},
    };
    ASSERT_EQ(library.errors.size(), std::size(expected));
    for (std::size_t i = 0; i < std::size(expected); ++i)
    {
        EXPECT_EQ(library.errors[i].rfind((dir / expected[i].name).string() + ": ", 0), 0u)
            << library.errors[i];
        EXPECT_NE(library.errors[i].find(expected[i].reason), std::string::npos) << library.errors[i];
    }
    fs::remove_all(dir);
}

// A step's weights file that is a device says so (not "is missing"); a missing one is missing.
TEST(Lessons, AStepsWeightsFileThatIsNotAFileSaysWhy)
{
    namespace fs = std::filesystem;
    const auto dir = fs::temp_directory_path() / ("attnlab_lessons_weights_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string session =
        "\"session\": {\"text\": \"a b c\", \"config\": {\"d_model\": 8, \"heads\": 2}";
    std::ofstream(dir / "01_zero.json") << with(kMinimal, session, session + ", \"weights\": \"/dev/zero\"");
    std::ofstream(dir / "02_gone.json") << with(kMinimal, session, session + ", \"weights\": \"gone.json\"");
    const LessonLibrary library = load_lessons(dir.string());
    EXPECT_TRUE(library.lessons.empty());
    ASSERT_EQ(library.errors.size(), 2u);
    EXPECT_NE(library.errors[0].find("its weights file /dev/zero is not a regular file"), std::string::npos)
        << library.errors[0];
    EXPECT_NE(library.errors[1].find("gone.json is missing"), std::string::npos) << library.errors[1];
    fs::remove_all(dir);
}

// A version past 2^32 is newer than this program reads, not version 1.
TEST(Lessons, AHugeVersionIsNewerNotOne)
{
    Lesson lesson;
    const Status s = parse(with(kMinimal, "\"version\": 1", "\"version\": 4294967297"), &lesson);
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("version 4294967297 is newer than this program reads"), std::string::npos)
        << s.message();
}

// The lessons make claims about numbers; the engine must back them.
TEST(Lessons, WhySqrtDkUnscaledRowsSaturate)
{
    const LessonLibrary library = load_lessons(kLessons);
    const Lesson* lesson = find_lesson(library, "why_sqrt_dk");
    ASSERT_NE(lesson, nullptr);
    auto mean_entropy = [](const Session& s)
    {
        Engine engine;
        EXPECT_TRUE(engine.run(s));
        float sum = 0;
        for (int j = 0; j < s.config.n_heads; ++j)
            sum += mean_row_entropy(engine.trace().layers[0].attn.head(0, j).weights);
        return sum / static_cast<float>(s.config.n_heads);
    };
    const float scaled = mean_entropy(lesson->steps[1].session);
    const float unscaled = mean_entropy(lesson->steps[2].session);
    std::cout << "mean row entropy: scaled " << scaled << " nats, unscaled " << unscaled << " nats\n";
    EXPECT_TRUE(lesson->steps[1].session.config.scale);
    EXPECT_FALSE(lesson->steps[2].session.config.scale);
    EXPECT_GT(scaled, 2.5f * unscaled);
    EXPECT_LT(unscaled, 0.5f);

    // The numbers the steps quote, for head 1 of the sentence.
    auto head1 = [](Session s, bool scale, int d_model)
    {
        s.config.scale = scale;
        s.config.d_model = d_model;
        Engine engine;
        EXPECT_TRUE(engine.run(s));
        return engine.trace().layers[0].attn.head(0, 0);
    };
    auto spread = [](const Mat& m)
    {
        const float mean = m.mean();
        return std::sqrt((m.array() - mean).square().mean());
    };
    const Session base = lesson->steps[0].session;
    const HeadTrace wide = head1(base, true, 256);
    EXPECT_EQ(wide.Q.cols(), 64);                                        // d_k = 64
    EXPECT_NEAR(spread(wide.Q), 1.5f, 0.15f);                            // "a spread of about 1.5"
    EXPECT_NEAR(spread(wide.scores), 17.0f, 1.5f);                       // "a spread near 17"
    EXPECT_NEAR(wide.scores.cwiseAbs().maxCoeff(), 43.0f, 2.0f);         // "about ±43"
    EXPECT_NEAR(spread(wide.scaled), spread(wide.scores) / 8.0f, 1e-3f); // "eight-fold"
    EXPECT_NEAR(spread(wide.scaled), 2.0f, 0.3f);                        // "a spread near 2"
    EXPECT_NEAR(mean_row_entropy(wide.weights), 1.35f, 0.02f);           // "H ≈ 1.35"
    const HeadTrace raw = head1(base, false, 256);
    EXPECT_NEAR(mean_row_entropy(raw.weights), 0.35f, 0.02f); // "about 0.35 nats"
    int one_key_rows = 0;
    for (Eigen::Index i = 0; i < raw.weights.rows(); ++i)
        one_key_rows += raw.weights.row(i).maxCoeff() > 0.9f ? 1 : 0;
    EXPECT_EQ(2 * one_key_rows, static_cast<int>(raw.weights.rows())); // "half of the rows ... over 90%"
    const HeadTrace narrow = head1(base, true, 16);
    const HeadTrace narrow_raw = head1(base, false, 16);
    EXPECT_EQ(narrow.Q.cols(), 4);
    EXPECT_NEAR(spread(narrow.scores), 4.0f, 0.5f);                  // "a spread near 4"
    EXPECT_NEAR(mean_row_entropy(narrow.weights), 1.56f, 0.02f);     // "1.56 with scaling"
    EXPECT_NEAR(mean_row_entropy(narrow_raw.weights), 0.99f, 0.02f); // "about 0.99 nats"
    EXPECT_EQ(lesson->steps[3].session.config.d_model, 16);
}

TEST(Lessons, MultiHeadAndTwoMapsClaimsHold)
{
    const LessonLibrary library = load_lessons(kLessons);
    const Lesson* multi = find_lesson(library, "multi_head");
    const Lesson* two = find_lesson(library, "two_linear_maps");
    ASSERT_TRUE(multi && two);
    auto comparisons = [](const Session& s)
    {
        Engine engine;
        EXPECT_TRUE(engine.run(s));
        Comparisons c;
        compute_comparisons(engine.trace(), engine.weights(), 0, 0, 0, c);
        return c;
    };
    EXPECT_LT(comparisons(multi->steps[0].session).packed_max_diff, 1e-6f); // "below 1e-6"
    EXPECT_GT(comparisons(multi->steps[2].session).single_vs_multi_max_diff, 0.01f);
    EXPECT_LT(comparisons(multi->steps[3].session).single_vs_multi_max_diff, 1e-5f); // h = 1
    EXPECT_LT(comparisons(two->steps[1].session).two_step_max_diff, 1e-5f);
}
