// "Attention learns English" (assets/lessons/12_*.json) and the built-in trained model: every reveal names
// heads as the run's map titles name them and says the role their held-out scores give at the step shown;
// Next waits for the run to reach the step a text is about; the built-in model opens from the menu's action
// and from a lesson step.
#include "core/io/builtin_models.h"
#include "core/io/lesson_file.h"
#include "core/io/model_file.h"
#include "ui/model/lessons.h"
#include "ui/model/session_files.h"
#include "ui/model/training/training_controller.h"
#include "ui/model/training/training_curves.h"
#include "ui/panels/panels.h"
#include "ui/shell/fonts.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>
#include <imgui_internal.h>

#include <chrono>
#include <memory>
#include <regex>
#include <string>
#include <thread>

namespace attnlab
{
namespace
{

using test::contains;
using test::HeadlessUi;
using test::lesson_index;

train::HeadScoreKind role_named(const std::string& name)
{
    using K = train::HeadScoreKind;
    return name == "previous token" ? K::PreviousToken : name == "induction" ? K::Induction : K::WordStart;
}

// A window's state in the lesson `text` (a lesson file's JSON), entered at its first step.
std::unique_ptr<AppState> enter_lesson_text(const char* text)
{
    Lesson lesson;
    const Status parsed = parse_lesson(text, "t.json", &lesson);
    EXPECT_TRUE(parsed.is_ok()) << parsed.message();
    auto state = std::make_unique<AppState>();
    state->lesson.library.lessons.push_back(lesson);
    enter_lesson(*state, 0, 0);
    return state;
}

} // namespace

TEST(TextLesson, ItTrainsOnTheBuiltInBookAndAsksBeforeEachReveal)
{
    auto state = std::make_unique<AppState>();
    load_lesson_library(*state, default_lessons_dir());
    const int index = lesson_index(*state, "attention_learns_english");
    ASSERT_GE(index, 0) << "assets/lessons/12_attention_learns_english.json";
    const Lesson& lesson = state->lesson.library.lessons[static_cast<std::size_t>(index)];
    EXPECT_EQ(lesson.title, "Attention learns English");
    const train::RunSpec& run = lesson.steps.front().training.run;
    EXPECT_EQ(run.task, train::TaskKind::Text);
    EXPECT_EQ(run.corpus, "austen");
    EXPECT_GT(run.repeat, 0.0f);
    int questions = 0;
    for (std::size_t k = 0; k < lesson.steps.size(); ++k)
    {
        const LessonStep& s = lesson.steps[k];
        EXPECT_EQ(s.view, LessonView::Training) << s.title;
        if (s.text.find("do you think") == std::string::npos)
            continue;
        // A question: the next step reveals the answer, later in the run or on the same maps.
        ++questions;
        ASSERT_LT(k + 1, lesson.steps.size()) << s.title << ": a question needs its reveal after it";
        const LessonStep& reveal = lesson.steps[k + 1];
        EXPECT_TRUE(std::regex_search(reveal.text, std::regex("layer [12], head [1-4]: "))) << reveal.text;
    }
    EXPECT_GE(questions, 2);
    EXPECT_FALSE(lesson.steps.back().training.model.empty()) << "the last step opens the built-in model";
}

// Every "layer L, head J: role" in a step's text is what that head's map title says at the step shown:
// the run is trained here as for a picture (before the frame), the same run bit for bit as in the window.
TEST(TextLesson, EveryHeadItNamesHasTheRoleItsMapTitleGives)
{
    HeadlessUi ui(1920.0f, 1080.0f);
    auto state = std::make_unique<AppState>();
    state->mouse_ignored = true;
    load_lesson_library(*state, default_lessons_dir());
    const int index = lesson_index(*state, "attention_learns_english");
    ASSERT_GE(index, 0);
    const Lesson& lesson = state->lesson.library.lessons[static_cast<std::size_t>(index)];
    const std::regex named("layer ([12]), head ([1-4]): (previous token|induction|word start)");
    int checked = 0;
    std::shared_ptr<const train::Params> run_end; // the lesson's run at the last step showing it
    std::size_t run_timeline = 0;
    for (int k = 0; k < static_cast<int>(lesson.steps.size()); ++k)
    {
        const LessonStep& s = lesson.steps[static_cast<std::size_t>(k)];
        SCOPED_TRACE(s.title);
        if (k == 0)
            enter_lesson(*state, index, 0);
        else
            next_step(*state);
        ASSERT_EQ(state->lesson.step, k);
        const test::FrameOutput out = ui.frames(*state, 2);
        const TrainingPanelState& ts = state->training;
        const TrainingFrame* f = shown_frame(ts);
        ASSERT_NE(f, nullptr);
        if (s.training.model.empty())
        {
            run_end = ts.view.params();
            run_timeline = ts.view.timeline.size();
        }
        for (auto it = std::sregex_iterator(s.text.begin(), s.text.end(), named);
             it != std::sregex_iterator(); ++it)
        {
            const int l = std::stoi((*it)[1]) - 1, j = std::stoi((*it)[2]) - 1;
            const int k_head = l * ts.view.model.n_heads + j;
            int eval_step = 0;
            const train::HeadScores* scores = held_out_scores_at(ts.view, f->step, k_head, &eval_step);
            ASSERT_NE(scores, nullptr);
            const HeadRole role = text_head_role(*scores);
            EXPECT_EQ(role.kind, role_named((*it)[3]))
                << (*it)[0] << " at step " << f->step << ": the map says " << head_role_text(role);
            // The title on screen says it too.
            EXPECT_TRUE(contains(out.text, head_role_text(role)) ||
                        contains(out.text, head_role_text(role, true)))
                << out.text;
            ++checked;
        }
    }
    EXPECT_GE(checked, 3);

    // Back from the built-in model's step: the run the earlier steps trained is shown again as it was (the
    // same weights, the same timeline), not trained again from step 0.
    ASSERT_FALSE(lesson.steps.back().training.model.empty());
    const TrainedModel builtin = state->training.view.trained_model();
    previous_step(*state);
    ui.frames(*state, 2);
    const TrainingSnapshot& back = state->training.view;
    EXPECT_EQ(back.config, lesson.steps.front().training.run);
    EXPECT_EQ(back.step, lesson.steps.front().training.run.steps) << "the lesson's run, at its end";
    EXPECT_EQ(back.first_step, 0);
    ASSERT_TRUE(back.params());
    EXPECT_EQ(back.params().get(), run_end.get()) << "the same weights, not a new run";
    EXPECT_EQ(back.timeline.size(), run_timeline);
    // And forward again: the built-in model, as it was.
    next_step(*state);
    ui.frames(*state, 1);
    EXPECT_EQ(state->training.view.step, builtin.steps_taken);
    ASSERT_TRUE(state->training.view.params());
    EXPECT_EQ(state->training.view.params()->W_U, builtin.params.W_U);
}

// At step 0 the weights are random and no held-out evaluation exists yet: the titles weigh the probe's own
// scores against its chance level, and every one says "no clear role", as the first two steps' text says.
TEST(TextLesson, AtStepZeroEveryMapTitleSaysNoClearRole)
{
    HeadlessUi ui(1920.0f, 1080.0f);
    auto state = std::make_unique<AppState>();
    state->mouse_ignored = true;
    load_lesson_library(*state, default_lessons_dir());
    const int index = lesson_index(*state, "attention_learns_english");
    ASSERT_GE(index, 0);
    for (int k = 0; k < 2; ++k)
    {
        if (k == 0)
            enter_lesson(*state, index, 0);
        else
            next_step(*state);
        ASSERT_EQ(state->lesson.step, k);
        const LessonStep& s = state->lesson.library.lessons[static_cast<std::size_t>(index)].steps[0];
        if (k == 0)
        {
            EXPECT_NE(s.text.find("\"no clear role\""), std::string::npos) << s.text;
        }
        const test::FrameOutput out = ui.frames(*state, 2);
        const TrainingPanelState& ts = state->training;
        const TrainingFrame* f = shown_frame(ts);
        ASSERT_NE(f, nullptr);
        ASSERT_EQ(f->step, 0);
        ASSERT_EQ(held_out_scores_at(ts.view, 0, 0), nullptr)
            << "no evaluation at step 0: the probe's scores";
        // The probe is short, so its chance level is high: more than kHeadRoleMin for the previous token.
        EXPECT_GT(ts.probe.even_scores().previous_token, kHeadRoleMin);
        const int h = ts.view.model.n_heads;
        for (int head = 0; head < ts.probe.n_layers() * h; ++head)
        {
            const HeadRole role =
                text_head_role(ts.probe.scores()[static_cast<std::size_t>(head)], &ts.probe.even_scores());
            EXPECT_EQ(role.kind, train::HeadScoreKind::Count)
                << "head " << head << ": "
                << text_scores_text(ts.probe.scores()[static_cast<std::size_t>(head)]);
            const std::string l = std::to_string(head / h + 1), j = std::to_string(head % h + 1);
            EXPECT_TRUE(contains(out.text, "layer " + l + ", head " + j + ": no clear role") ||
                        contains(out.text, "L" + l + " H" + j + ": no clear role") ||
                        contains(out.text, "L" + l + " H" + j + " no role"))
                << "layer " << l << ", head " << j << "\n"
                << out.text;
        }
    }
}

// At 1280x720 with the window's font, the Training panel of a lesson step shows both layers of heads above
// the fold: every map's cells end inside the panel.
TEST(TextLesson, BothLayersOfHeadsFitTheTrainingPanelAtSevenTwenty)
{
    HeadlessUi ui(1280.0f, 720.0f);
    auto state = std::make_unique<AppState>();
    state->mouse_ignored = true;
    load_lesson_library(*state, default_lessons_dir());
    ASSERT_TRUE(load_fonts(ui_font_size(*state, 720.0f), nullptr));
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    enter_lesson(*state, lesson_index(*state, "attention_learns_english"), 4);
    const test::FrameOutput out = ui.frames(*state, 3);
    const ImGuiWindow* panel = ImGui::FindWindowByName("Training");
    ASSERT_NE(panel, nullptr);
    // The heads' maps (a quad or two each): the textured quads in the panel's columns (other panels draw
    // theirs beside it).
    int maps = 0;
    for (const auto& [id, r] : out.texture_rects)
    {
        if (r.x < panel->Pos.x || r.x >= panel->Pos.x + panel->Size.x)
            continue;
        ++maps;
        EXPECT_LE(r.w, panel->InnerClipRect.Max.y) << "a map's cells below the fold";
        EXPECT_GE(r.y, panel->InnerClipRect.Min.y);
    }
    EXPECT_GE(maps, 8) << out.text;
}

// A text a step says about step N of the run waits for the run to get there (the window trains on the
// worker).
TEST(TextLesson, NextWaitsUntilTheRunReachesTheStepTheTextIsAbout)
{
    const char* text = R"({"format": "attnlab-lesson", "version": 1, "title": "t",
        "training": {"task": "text", "corpus": "austen", "steps": 40},
        "steps": [{"text": "at the start", "training": {"show_step": 0}},
                  {"text": "later", "training": {"show_step": 30}},
                  {"text": "the end"}]})";
    HeadlessUi ui;
    std::unique_ptr<AppState> state = enter_lesson_text(text);
    ASSERT_TRUE(state->training_run.running());
    state->training_run.poll(state->training.view);
    ASSERT_LT(state->training.view.step, 30);
    EXPECT_EQ(next_step_waits_for(*state), 30);
    next_step(*state);
    EXPECT_EQ(state->lesson.step, 0) << "the text about step 30 waits";
    EXPECT_TRUE(contains(state->message, "step 30")) << state->message;
    const test::FrameOutput waiting = ui.frames(*state, 1);
    EXPECT_TRUE(contains(waiting.text, "training: step")) << waiting.text;

    for (int i = 0; i < 60000 && next_step_waits_for(*state) > 0; ++i)
    {
        ui.frames(*state, 1);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_GE(state->training.view.step, 30);
    next_step(*state);
    EXPECT_EQ(state->lesson.step, 1);
    // The last step is about the run's end: it waits for the last step, then goes.
    for (int i = 0; i < 60000 && next_step_waits_for(*state) > 0; ++i)
    {
        ui.frames(*state, 1);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ui.frames(*state, 1); // the worker has stopped: the panel's next poll shows its last step
    EXPECT_EQ(state->training.view.step, 40);
    next_step(*state);
    EXPECT_EQ(state->lesson.step, 2);
    EXPECT_TRUE(contains(ui.frames(*state, 1).text, "the end"));
}

TEST(BuiltinModelUi, ItOpensAtOnceAndSaveDoesNotOverwriteIt)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    ASSERT_TRUE(open_builtin_model(*state, "austen").is_ok()) << state->message;
    TrainedModel file;
    ASSERT_TRUE(load_builtin_model("austen", &file).is_ok());
    const TrainingSnapshot& v = state->training.view;
    EXPECT_EQ(v.config.task, train::TaskKind::Text);
    EXPECT_EQ(v.config.corpus, "austen");
    EXPECT_EQ(v.step, file.steps_taken);
    ASSERT_TRUE(v.params());
    EXPECT_EQ(v.params()->W_U, file.params.W_U);
    EXPECT_TRUE(state->training.model_path.empty())
        << "Save asks where: the asset stays as its command made it";
    EXPECT_TRUE(state->prefs.open[static_cast<std::size_t>(PanelId::Training)]);
    EXPECT_FALSE(open_builtin_model(*state, "tolstoy").is_ok());
}

TEST(BuiltinModelUi, ALessonStepOpensIt)
{
    const char* text = R"({"format": "attnlab-lesson", "version": 1, "title": "t",
        "training": {"task": "text", "corpus": "austen", "steps": 20},
        "steps": [{"text": "a run", "training": {"show_step": 0}},
                  {"text": "the built-in model", "training": {"model": "austen"}}]})";
    Lesson lesson;
    const Status parsed = parse_lesson(text, "t.json", &lesson);
    ASSERT_TRUE(parsed.is_ok()) << parsed.message();
    EXPECT_EQ(lesson.steps[1].training.model, "austen");
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    state->mouse_ignored = true;
    state->lesson.library.lessons.push_back(lesson);
    enter_lesson(*state, 0, 0);
    ui.frames(*state, 1);
    EXPECT_EQ(state->training.view.step, 20);
    go_to_step(*state, 1);
    ui.frames(*state, 1);
    TrainedModel file;
    ASSERT_TRUE(load_builtin_model("austen", &file).is_ok());
    EXPECT_EQ(state->training.view.step, file.steps_taken);
    ASSERT_TRUE(state->training.view.params());
    EXPECT_EQ(state->training.view.params()->W_U, file.params.W_U);

    // Refused in a lesson file: an unknown model, or a model with runs to compare.
    Lesson bad;
    Status s = parse_lesson(std::string(text).replace(std::string(text).find("\"model\": \"austen\""), 17,
                                                      "\"model\": \"tolstoy\""),
                            "t.json", &bad);
    EXPECT_FALSE(s.is_ok());
    EXPECT_TRUE(contains(s.message(), "not a built-in trained model")) << s.message();
}

// Going back from a step that opens the built-in model to the steps of the lesson's run, in the window (the
// run trains on the worker): the run goes on from where it was set aside, and ends on the weights of a run
// never interrupted, bit for bit.
TEST(TextLesson, GoingBackFromTheBuiltInModelResumesTheRunItHad)
{
    const char* text = R"({"format": "attnlab-lesson", "version": 1, "title": "t",
        "training": {"task": "text", "corpus": "austen", "repeat": 0.5, "steps": 150},
        "steps": [{"text": "a run", "training": {"show_step": 0}},
                  {"text": "the built-in model", "training": {"model": "austen"}}]})";
    HeadlessUi ui;
    std::unique_ptr<AppState> state = enter_lesson_text(text);
    ASSERT_TRUE(state->training_run.running());
    for (int i = 0; i < 20000 && state->training.view.step < 20; ++i)
    {
        ui.frames(*state, 1);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    go_to_step(*state, 1);
    ui.frames(*state, 1);
    TrainedModel file;
    ASSERT_TRUE(load_builtin_model("austen", &file).is_ok());
    EXPECT_EQ(state->training.view.step, file.steps_taken) << "the built-in model is shown";
    EXPECT_FALSE(state->training_run.running());

    previous_step(*state);
    const int reached = state->training.view.step;
    EXPECT_GE(reached, 20) << "the run is back where it was, not at step 0";
    EXPECT_LT(reached, 150);
    EXPECT_EQ(state->training.view.first_step, 0);
    ASSERT_FALSE(state->training.view.timeline.empty());
    EXPECT_EQ(state->training.view.timeline.front().step, 0) << "its timeline from step 0 is kept";
    EXPECT_TRUE(state->training_run.running()) << "and it goes on training";
    for (int i = 0; i < 60000 && state->training_run.running(); ++i)
    {
        ui.frames(*state, 1);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ui.frames(*state, 1);
    const TrainingSnapshot& v = state->training.view;
    ASSERT_EQ(v.step, 150);
    EXPECT_GE(v.evals.size(), 10u) << "the held-out curves cover the whole run";

    // The same run never set aside.
    TrainingRun straight;
    ASSERT_TRUE(straight.configure(state->lesson.library.lessons[0].steps[0].training.run).is_ok());
    straight.step_now(150);
    TrainingSnapshot expected;
    straight.poll(expected);
    ASSERT_TRUE(v.params() && expected.params());
    EXPECT_EQ(v.params()->W_U, expected.params()->W_U);
    EXPECT_EQ(v.params()->E, expected.params()->E);
    EXPECT_EQ(v.params()->layers[1].W_K, expected.params()->layers[1].W_K);
    EXPECT_EQ(v.evals.back().loss, expected.evals.back().loss);

    // Leaving the lesson forgets the run set aside.
    leave_lesson(*state);
    EXPECT_FALSE(state->training_run.has_aside());
}

// English has line feeds (a held-out probe often does): the probe box shows what follows one, and the model
// reads it as one character of the sequence.
TEST(TextProbeField, WhatFollowsALineFeedStaysOnScreen)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    train::RunSpec r(train::TaskKind::Text);
    r.steps = 10;
    state->training.edit = r;
    apply_training_fields(*state);
    ui.frames(*state, 2, test::panel_only(draw_training_panel));
    state->training.probe_text = "It is a truth\nuniversally acknowledged";
    state->training.probe_dirty = true;
    const test::FrameOutput out = ui.frames(*state, 2, test::panel_only(draw_training_panel));
    EXPECT_TRUE(state->training.probe_error.empty()) << state->training.probe_error;
    EXPECT_EQ(state->training.probe_batch.T, 38) << "the line feed is one character of the sequence";
    EXPECT_TRUE(contains(out.text, "universally acknowledged")) << out.text;
}

} // namespace attnlab
