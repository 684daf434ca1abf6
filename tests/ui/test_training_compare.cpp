// An earlier run's trained maps beside the current run's: what a past run keeps, the compare view's maps and
// titles, the lesson field that asks for them, and lesson 11's text checked against the maps it shows.
#include "core/io/lesson_file.h"
#include "ui/model/lessons.h"
#include "ui/model/training/training_controller.h"
#include "ui/model/training/training_curves.h"
#include "ui/model/training/training_probe.h"
#include "ui/model/training/training_run.h"
#include "ui/panels/panels.h"
#include "ui/picture/slides.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>

namespace attnlab
{
namespace
{

using test::contains;
using test::HeadlessUi;
using test::panel_only;

// The captured text has single spaces where a title has two.
std::string single_spaced(std::string s)
{
    for (std::size_t at = s.find("  "); at != std::string::npos; at = s.find("  "))
        s.erase(at, 1);
    return s;
}

train::RunSpec reverse_run(int heads, int steps)
{
    train::RunSpec c(train::TaskKind::Reverse);
    c.n_heads = heads;
    c.steps = steps;
    return c;
}

// The panel after training `first`, then `second` (first becomes the earlier run), each for its steps.
std::unique_ptr<AppState> two_runs(HeadlessUi& ui, const train::RunSpec& first, const train::RunSpec& second)
{
    auto state = std::make_unique<AppState>();
    state->mouse_ignored = true;
    ui.frames(*state, 1, panel_only(draw_training_panel));
    for (const train::RunSpec& r : {first, second})
    {
        state->training.edit = r;
        apply_training_fields(*state);
        EXPECT_TRUE(state->training.error.empty()) << state->training.error;
        state->training_run.step_now(r.steps);
        ui.frames(*state, 1, panel_only(draw_training_panel));
    }
    return state;
}

// [SECTION] What a past run keeps

TEST(TrainingCompare, APastRunKeepsItsFinalParametersAndShape)
{
    TrainingRun run;
    ASSERT_TRUE(run.configure(reverse_run(2, 100)).is_ok());
    run.step_now(12);
    TrainingSnapshot before;
    run.poll(before);
    const train::Params at_12 = *before.params();
    ASSERT_TRUE(run.configure(reverse_run(1, 100)).is_ok());
    TrainingSnapshot s;
    run.poll(s);
    ASSERT_EQ(s.past.size(), 1u);
    const PastRun& p = s.past[0];
    EXPECT_EQ(p.step, 12);
    EXPECT_EQ(p.model.n_heads, 2);
    EXPECT_EQ(p.config.n_heads, 2);
    EXPECT_EQ(p.config.task, train::TaskKind::Reverse);
    ASSERT_NE(p.params, nullptr);
    EXPECT_EQ(p.params->W_U, at_12.W_U);
    ASSERT_EQ(p.params->layers.size(), at_12.layers.size());
    EXPECT_EQ(p.params->layers[0].W_Q, at_12.layers[0].W_Q);
    EXPECT_NE(p.params->layers[0].W_Q, s.params()->layers[0].W_Q) << "not the new run's weights";

    // Reset keeps the run so far the same way (the trainer is reset after it is kept).
    run.step_now(5);
    TrainingSnapshot at5;
    run.poll(at5);
    run.reset();
    run.poll(s);
    ASSERT_EQ(s.past.size(), 2u);
    EXPECT_EQ(s.past[1].step, 5);
    EXPECT_EQ(s.past[1].model.n_heads, 1);
    EXPECT_EQ(s.past[1].params->W_U, at5.params()->W_U);
}

// An earlier run whose loss is per another kind of token (another task, or Text at the other level) is not
// drawn with this run's curves, and its legend line says why; one of the same task is. A word-level run's
// loss under a character-level one's read as a run that learned worse.
TEST(TrainingCompare, AnEarlierRunOfOtherTokensIsNamedButNotDrawn)
{
    TrainingRun run;
    train::RunSpec copy(train::TaskKind::Copy);
    copy.steps = 100;
    ASSERT_TRUE(run.configure(copy).is_ok());
    run.step_now(8);
    ASSERT_TRUE(run.configure(reverse_run(2, 100)).is_ok());
    run.step_now(12); // past its first held-out point
    ASSERT_TRUE(run.configure(reverse_run(1, 100)).is_ok());
    run.step_now(4);
    TrainingSnapshot s;
    run.poll(s);
    ASSERT_EQ(s.past.size(), 2u);
    const TrainingCurves c = training_curves(s, 100, 0, false, -1);
    // The past runs' series come first, in order: Copy's is empty, Reverse h = 2's is drawn.
    ASSERT_GE(c.loss.series.size(), 2u);
    EXPECT_TRUE(c.loss.series[0].points.empty());
    EXPECT_EQ(c.loss.series[1].points.size(), 12u);
    EXPECT_TRUE(c.accuracy.series[0].points.empty());
    EXPECT_FALSE(c.accuracy.series[1].points.empty());
    const std::vector<LossKeyEntry> key = loss_plot_key(c, s, true);
    bool named = false;
    for (const LossKeyEntry& e : key)
        named = named || e.text.find("not drawn: another task") != std::string::npos;
    EXPECT_TRUE(named);

    train::RunSpec chars(train::TaskKind::Text), words(train::TaskKind::Text);
    words.level = train::TextLevel::Word;
    EXPECT_FALSE(same_loss_units(chars, words));
    EXPECT_EQ(not_drawn_reason(words, chars), "its loss is per word");
    EXPECT_TRUE(same_loss_units(reverse_run(1, 10), reverse_run(4, 50)));
}

TEST(TrainingCompare, LabelDifferenceIsWhatTheLegendSaysOfOneRunAndNotTheOther)
{
    train::RunSpec one(train::TaskKind::Tally), two(train::TaskKind::Tally);
    one.n_heads = 1;
    two.n_heads = 2;
    EXPECT_EQ(label_difference(one.label(), two.label()), "h = 1");
    EXPECT_EQ(label_difference(two.label(), one.label()), "h = 2");
    EXPECT_EQ(label_difference(one.label(), one.label()), "");
}

// [SECTION] The compare view

// The earlier run's group is its final weights run on the probe the panel shows, titled with the legend's
// words for it and its last held-out scores; off by default outside lessons.
TEST(TrainingCompare, TheComparedMapsAreTheEarlierRunsModelOnTheSameProbe)
{
    HeadlessUi ui;
    auto state = two_runs(ui, reverse_run(2, 20), reverse_run(1, 20));
    TrainingPanelState& ts = state->training;
    ASSERT_EQ(ts.view.past.size(), 1u);
    EXPECT_EQ(compared_run(ts), nullptr) << "off until chosen";
    auto out = ui.frames(*state, 1, panel_only(draw_training_panel));
    EXPECT_TRUE(contains(out.text, "compare with: nothing")) << out.text;
    EXPECT_FALSE(contains(out.text, "earlier: h = 2 · step")) << out.text;

    choose_compared_run(ts, 0);
    out = ui.frames(*state, 1, panel_only(draw_training_panel));
    const PastRun* past = compared_run(ts);
    ASSERT_NE(past, nullptr);
    EXPECT_TRUE(contains(out.text, "earlier: h = 2 · step 20")) << out.text;
    EXPECT_TRUE(contains(out.text, "this run: h = 1 · step 20")) << out.text;

    // The same maps as the earlier run's own model evaluated on the probe.
    TrainingProbe fresh;
    ASSERT_TRUE(fresh.update(past->model, past->params, ts.probe_batch, 1));
    const TrainingProbe& shown = ts.compare_probe;
    ASSERT_EQ(shown.n_heads(), 2);
    ASSERT_EQ(shown.n_layers(), past->model.n_layers);
    EXPECT_EQ(ts.probe.n_heads(), 1);
    EXPECT_EQ(shown.T(), ts.probe.T()) << "the same probe";
    for (int k = 0; k < shown.n_layers() * shown.n_heads(); ++k)
        EXPECT_EQ(shown.weights(k), fresh.weights(k)) << k;
    // Its titles: the held-out scores of its last evaluation, from the one score function.
    for (int k = 0; k < shown.n_layers() * shown.n_heads(); ++k)
    {
        const train::HeadScores* s = held_out_scores_at(past->evals, past->step, k);
        ASSERT_NE(s, nullptr);
        const std::string title = single_spaced(map_scores_text(ts.view.config.task, *s));
        EXPECT_TRUE(contains(out.text, title)) << title << "\n" << out.text;
    }

    // Another task's earlier run cannot be drawn on this probe.
    train::RunSpec copy(train::TaskKind::Copy);
    copy.steps = 5;
    ts.edit = copy;
    apply_training_fields(*state);
    state->training_run.step_now(5);
    ui.frames(*state, 1, panel_only(draw_training_panel));
    ASSERT_EQ(ts.view.past.size(), 2u);
    choose_compared_run(ts, 0);
    EXPECT_EQ(compared_run(ts), nullptr);
}

// A run joining the past runs shifts the list: the chosen run is found again by its label and step, and when
// it is gone nothing else is shown in its place.
TEST(TrainingCompare, TheChosenRunIsFoundAgainWhenTheListShifts)
{
    HeadlessUi ui;
    auto state = two_runs(ui, reverse_run(2, 10), reverse_run(1, 10)); // past: [h = 2]
    TrainingPanelState& ts = state->training;
    const auto another = [&](int heads, int steps)
    {
        ts.edit = reverse_run(heads, steps);
        apply_training_fields(*state);
        state->training_run.step_now(3);
        ui.frames(*state, 1, panel_only(draw_training_panel));
    };
    another(4, 11); // past: [h = 2, h = 1]
    another(2, 12); // past: [h = 2, h = 1, h = 4]
    ASSERT_EQ(static_cast<int>(ts.view.past.size()), TrainingRun::kKeptRuns);
    choose_compared_run(ts, 1);
    const std::string chosen = ts.view.past[1].label;
    another(1, 13); // past: [h = 1, h = 4, h = 2 (12 steps)]: the oldest went, the chosen one moved to 0
    ASSERT_NE(compared_run(ts), nullptr);
    EXPECT_EQ(compared_run(ts)->label, chosen);
    EXPECT_EQ(compared_run(ts), &ts.view.past[0]);
    another(4, 14);
    another(2, 15); // the chosen run is gone
    EXPECT_EQ(compared_run(ts), nullptr);
}

// [SECTION] Lessons

TEST(TrainingCompare, ALessonStepsCompareMapsFieldIsParsedAndChecked)
{
    const char* lesson_text = R"({"format": "attnlab-lesson", "version": 1, "title": "t",
        "training": {"task": "copy", "steps": 10, "compare": [{"heads": 1}]},
        "steps": [{"text": "a"}, {"text": "b", "training": {"compare_maps": 0}}]})";
    Lesson lesson;
    const Status s = parse_lesson(lesson_text, "t.json", &lesson);
    ASSERT_TRUE(s.is_ok()) << s.message();
    EXPECT_EQ(lesson.steps[0].training.compare_maps, -1);
    EXPECT_EQ(lesson.steps[1].training.compare_maps, 0);

    const std::pair<const char*, const char*> cases[] = {
        {R"({"compare_maps": 1})", "names no compared run"},
        {R"({"compare_maps": -1})", "\"compare_maps\""},
        {R"({"compare_maps": 0, "map": "output"})", "needs \"map\" \"attention\" or \"gradient\""},
    };
    for (const auto& [training, expected] : cases)
    {
        const std::string text = std::string(R"({"format": "attnlab-lesson", "version": 1, "title": "t",
            "training": {"task": "copy", "steps": 10, "compare": [{"heads": 1}]},
            "steps": [{"text": "a"}, {"text": "b", "training": )") +
                                 training + "}]}";
        const Status bad = parse_lesson(text, "bad.json", &lesson);
        EXPECT_FALSE(bad.is_ok()) << training;
        EXPECT_TRUE(contains(bad.message(), "bad.json, step 2")) << bad.message();
        EXPECT_TRUE(contains(bad.message(), expected)) << training << ": " << bad.message();
    }
}

using test::lesson_index;

// Mean over the rows i >= 2 of the probe map A: the weight on key i − 1, and the mean weight on each key
// before it (0 … i − 2).
void previous_and_earlier(const Mat& A, double* on_previous, double* on_earlier)
{
    double prev = 0, earlier = 0;
    int rows = 0;
    for (int i = 2; i < A.rows(); ++i)
    {
        prev += A(i, i - 1);
        earlier += A.row(i).head(i - 1).mean();
        ++rows;
    }
    *on_previous = prev / std::max(1, rows);
    *on_earlier = earlier / std::max(1, rows);
}

// Lesson 11, step 3 ("One head cannot do both") shows the h = 1 run's maps beside the h = 2 run's, and what
// its text says of them holds on the runs it trains.
TEST(TrainingCompare, WhyMultiHeadStep3ShowsTheOneHeadRunBesideTheTwoAndItsTextHolds)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    state->mouse_ignored = true; // as for pictures: the runs are trained before the frame
    load_lesson_library(*state, default_lessons_dir());
    const int index = lesson_index(*state, "why_multi_head_experiment");
    ASSERT_GE(index, 0);
    const Lesson& lesson = state->lesson.library.lessons[static_cast<std::size_t>(index)];
    ASSERT_GE(lesson.steps.size(), 3u);
    const LessonStep& step = lesson.steps[2];
    ASSERT_EQ(step.training.compare_maps, 0);
    ASSERT_EQ(step.training.compare.size(), 1u);
    EXPECT_EQ(step.training.compare[0].n_heads, 1);
    EXPECT_EQ(step.training.run.n_heads, 2);
    for (std::size_t i = 0; i < lesson.steps.size(); ++i)
    {
        if (i != 2)
        {
            EXPECT_EQ(lesson.steps[i].training.compare_maps, -1) << "step " << i + 1;
        }
    }

    enter_lesson(*state, index, 2);
    const auto out = ui.frames(*state, 1);
    TrainingPanelState& ts = state->training;
    const PastRun* one = compared_run(ts);
    ASSERT_NE(one, nullptr) << "step 3 selects the h = 1 run";
    EXPECT_EQ(one->model.n_heads, 1);
    EXPECT_TRUE(contains(out.text, "earlier: h = 1 · step 1000")) << out.text;
    EXPECT_TRUE(contains(out.text, "this run: h = 2 · step 1000")) << out.text;
    ASSERT_EQ(ts.compare_probe.n_heads(), 1);
    ASSERT_EQ(ts.probe.n_heads(), 2);

    // The single head: a small bump on i − 1 over an even spread. Its weight on i − 1 is above its mean
    // weight on each earlier vote, yet far from a sharp look (the h = 2 previous-vote head's).
    double one_prev = 0, one_earlier = 0;
    previous_and_earlier(ts.compare_probe.weights(0), &one_prev, &one_earlier);
    const train::HeadScores* one_held_out = held_out_scores_at(one->evals, one->step, 0);
    ASSERT_NE(one_held_out, nullptr);
    // The two heads: one sharp on i − 1, the other even.
    double two_prev[2], two_earlier[2];
    for (int j = 0; j < 2; ++j)
        previous_and_earlier(ts.probe.weights(j), &two_prev[j], &two_earlier[j]);
    const int sharp = two_prev[0] > two_prev[1] ? 0 : 1;
    const train::HeadScores* sharp_held_out = held_out_scores_at(ts.view, ts.view.step, sharp);
    const train::HeadScores* even_held_out = held_out_scores_at(ts.view, ts.view.step, 1 - sharp);
    ASSERT_NE(sharp_held_out, nullptr);
    ASSERT_NE(even_held_out, nullptr);
    std::printf("h = 1: on i-1 %.3f, on each earlier %.3f (ratio %.2f), held-out previous-token %.3f, "
                "accuracy %.4f\nh = 2: head %d on i-1 %.3f (held-out %.3f); head %d on i-1 %.3f, on each "
                "earlier %.3f (held-out %.3f); accuracy %.4f\n",
                one_prev, one_earlier, one_prev / one_earlier, one_held_out->previous_token,
                static_cast<double>(one->evals.back().accuracy), sharp + 1, two_prev[sharp],
                sharp_held_out->previous_token, 2 - sharp, two_prev[1 - sharp], two_earlier[1 - sharp],
                even_held_out->previous_token, static_cast<double>(ts.view.evals.back().accuracy));
    // The numbers the text gives are the run's.
    const std::string& text = step.text;
    const auto says = [&](const char* format, double value)
    {
        char claim[96];
        std::snprintf(claim, sizeof claim, format, value);
        EXPECT_TRUE(contains(text, claim)) << "the text should say \"" << claim << "\":\n" << text;
    };
    // The accuracy is rounded in the text, and this run's last digit differs between CPU models on the same
    // instruction-set path (87.2 % on one x86-64 machine, 88 % on another): one point either way is the
    // same claim.
    const double one_accuracy = 100.0 * static_cast<double>(one->evals.back().accuracy);
    bool accuracy_said = false;
    for (const double near :
         {std::round(one_accuracy) - 1, std::round(one_accuracy), std::round(one_accuracy) + 1})
    {
        char claim[64];
        std::snprintf(claim, sizeof claim, "near %.0f %% at step 1000", near);
        accuracy_said = accuracy_said || (contains(text, claim) && std::abs(near - one_accuracy) <= 1.0);
    }
    EXPECT_TRUE(accuracy_said) << "the text should say \"near " << one_accuracy << " % at step 1000\":\n"
                               << text;
    says("about %.1f times its weight on each earlier vote", one_prev / one_earlier);
    says("previous-token %.2f in its title", one_held_out->previous_token);
    says("one puts %.2f on i − 1", sharp_held_out->previous_token);
    EXPECT_TRUE(contains(text, "left the h = 1 run, right this run with h = 2"));
    EXPECT_GT(one_prev, 1.2 * one_earlier) << "a bump on i − 1";
    EXPECT_LT(one_prev, 0.5 * two_prev[sharp]) << "a small one beside the sharp head's";
    EXPECT_GE(sharp_held_out->previous_token, 0.8) << "the other run's head: nearly all its weight on i − 1";
    EXPECT_LT(two_prev[1 - sharp], 1.2 * two_earlier[1 - sharp]) << "its other head: even, no bump";

    // The step's slide shows the same two groups, each map titled with its run's words over its held-out
    // score.
    std::vector<std::string> texts;
    render_lesson_slide(*state, 1600, 900, false, nullptr, &texts);
    const auto on_slide = [&](const std::string& t)
    { return std::find(texts.begin(), texts.end(), t) != texts.end(); };
    EXPECT_TRUE(on_slide("h = 1: A_1 · layer 1"));
    EXPECT_TRUE(on_slide("h = 2: A_1 · layer 1"));
    EXPECT_TRUE(on_slide("h = 2: A_2 · layer 1"));
    char score[64];
    for (const float value :
         {one_held_out->previous_token, sharp_held_out->previous_token, even_held_out->previous_token})
    {
        std::snprintf(score, sizeof score, "previous-token %.2f", static_cast<double>(value));
        EXPECT_TRUE(on_slide(score)) << score;
    }
}

// In presenter mode a training step shows its curves and maps without the panel's controls: the three maps
// of lesson 11's step 3 are on screen, above the caption, at 1280x720.
TEST(TrainingCompare, PresenterModeShowsBothGroupsOnScreen)
{
    HeadlessUi ui(1280.0f, 720.0f);
    auto state = std::make_unique<AppState>();
    state->mouse_ignored = true;
    load_lesson_library(*state, default_lessons_dir());
    const int index = lesson_index(*state, "why_multi_head_experiment");
    ASSERT_GE(index, 0);
    enter_lesson(*state, index, 2);
    state->presenter = true;
    const auto out = ui.frames(*state, 3);
    EXPECT_TRUE(contains(out.text, "earlier: h = 1 · step 1000")) << out.text;
    EXPECT_TRUE(contains(out.text, "this run: h = 2 · step 1000")) << out.text;
    EXPECT_FALSE(contains(out.text, "target steps")) << "no controls in presenter mode";
    EXPECT_FALSE(contains(out.text, "compare with:")) << "the step chose the compared run: no selector";
    // The view between the title and the caption.
    const ImGuiWindow* view = ImGui::FindWindowByName("##presenter_view");
    ASSERT_NE(view, nullptr);
    const float bottom = view->Pos.y + view->Size.y;
    ASSERT_EQ(out.texture_rects.size(), 3u) << out.text;
    for (const auto& [id, r] : out.texture_rects)
    {
        EXPECT_GE(r.x, 0.0f);
        EXPECT_LE(r.z, 1280.0f);
        EXPECT_LE(r.w, bottom) << "above the caption";
        EXPECT_GE(r.z - r.x, 60.0f) << "large enough to read";
    }
    // The cells (24 votes) are too small for every label: every k-th vote is named on both axes of each map,
    // rather than none.
    int labels = 0;
    std::istringstream lines(out.text);
    for (std::string line; std::getline(lines, line);)
    {
        const bool votes = !line.empty() && line.find_first_not_of("AB ") == std::string::npos;
        labels += votes ? static_cast<int>(std::count_if(line.begin(), line.end(),
                                                         [](char c) { return c == 'A' || c == 'B'; }))
                        : 0;
    }
    EXPECT_GE(labels, 3 * 2 * 3) << "three maps, two axes, every 8th of 24 votes at least:\n" << out.text;
}

} // namespace
} // namespace attnlab
