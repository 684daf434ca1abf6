// The Training panel on a text model: the loss strip follows the loss at the timeline's step, samples repeat
// for the same seed and step and change with the temperature, head maps name their role and label their
// characters, and lesson and session files keep a text run's corpus and repeat share.
#include "config_home.h"
#include "core/io/lesson_file.h"
#include "core/io/model_file.h"
#include "core/train/sampling.h"
#include "ui/model/session_files.h"
#include "ui/model/training/text_readouts.h"
#include "ui/model/training/training_controller.h"
#include "ui/model/training/training_curves.h"
#include "ui/panels/panels.h"
#include "ui/panels/training_panel_views.h"
#include "ui/picture/colormap.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <thread>

namespace attnlab
{
namespace
{

using test::contains;
using test::HeadlessUi;
using test::panel_only;

// The Text task's preset, a few steps long (the suite's time), on the given book.
train::RunSpec small_text(const std::string& corpus = "austen", float repeat = 0.0f)
{
    train::RunSpec r(train::TaskKind::Text);
    r.corpus = corpus;
    r.repeat = repeat;
    r.steps = 60;
    return r;
}

// An AppState whose Training panel holds a text run trained `steps` steps (the panel drawn once, so its
// probe is parsed).
std::unique_ptr<AppState> text_state(HeadlessUi& ui, int steps, const train::RunSpec& spec = small_text())
{
    auto state = std::make_unique<AppState>();
    state->training.edit = spec;
    apply_training_fields(*state);
    EXPECT_TRUE(state->training.error.empty()) << state->training.error;
    if (steps > 0)
        state->training_run.step_now(steps);
    ui.frames(*state, 2, panel_only(draw_training_panel));
    return state;
}

// −ln p of character t + 1 read straight from the probe's probabilities at position t.
float expected_loss(const AppState& state, int t)
{
    const TrainingProbe& pr = state.training.probe;
    const int next = state.training.probe_batch.tokens[static_cast<std::size_t>(t + 1)];
    return -std::log(pr.probs()(t, next));
}

// [SECTION] The loss strip

TEST(TrainingText, StripCellsCarryTheLossOfThePositionThatPredictsThem)
{
    HeadlessUi ui;
    auto state = text_state(ui, 30);
    const TrainingPanelState& ts = state->training;
    ASSERT_GT(ts.probe_batch.T, 10);
    const std::vector<LossCell> cells = loss_strip(ts.probe_batch, ts.probe.acts(), ts.view.vocabulary, 3);
    ASSERT_EQ(static_cast<int>(cells.size()), ts.probe_batch.T);
    EXPECT_TRUE(std::isnan(cells[0].loss)); // nothing predicts the first character
    EXPECT_TRUE(cells[0].top.empty());
    for (int t = 1; t < ts.probe_batch.T; ++t)
    {
        const LossCell& c = cells[static_cast<std::size_t>(t)];
        EXPECT_NEAR(c.loss, expected_loss(*state, t - 1), 1e-4f) << "character " << t;
        EXPECT_EQ(
            c.symbol,
            ts.view.vocabulary[static_cast<std::size_t>(ts.probe_batch.tokens[static_cast<std::size_t>(t)])]);
        ASSERT_EQ(c.top.size(), 3u);
        EXPECT_GE(c.top[0].p, c.top[1].p);
        EXPECT_NEAR(c.top[0].p, ts.probe.probs().row(t - 1).maxCoeff(), 1e-6f);
    }
}

TEST(TrainingText, SurpriseColourRunsFromTheBackgroundToWinePurpleOnBothThemes)
{
    for (const Color32 bg : {pack_rgba(15, 15, 15), pack_rgba(250, 250, 250)})
    {
        EXPECT_EQ(surprise_color(0.0f, 5.0f, bg), bg);
        EXPECT_EQ(surprise_color(std::nanf(""), 5.0f, bg), bg);
        EXPECT_EQ(surprise_color(5.0f, 5.0f, bg), pack_rgba(170, 51, 119));
        EXPECT_EQ(surprise_color(50.0f, 5.0f, bg), pack_rgba(170, 51, 119));
        // The top is not the loss curves' colour: they sit beside the strip.
        const Color32 top = surprise_color(5.0f, 5.0f, bg);
        EXPECT_GT(std::abs(red_of(top) - red_of(kThisRunColor)) +
                      std::abs(green_of(top) - green_of(kThisRunColor)) +
                      std::abs(blue_of(top) - blue_of(kThisRunColor)),
                  150);
        EXPECT_EQ(surprise_color(2.5f, 5.0f, bg), pack_rgba(230, 159, 0));
        // More surprise, further from the background.
        const auto distance = [&](float nats)
        {
            const Color32 c = surprise_color(nats, 5.0f, bg);
            return std::abs(red_of(c) - red_of(bg)) + std::abs(green_of(c) - green_of(bg)) +
                   std::abs(blue_of(c) - blue_of(bg));
        };
        EXPECT_LT(distance(0.5f), distance(1.5f));
    }
}

TEST(TrainingText, StripColoursFollowTheLossAtTheTimelinesStep)
{
    HeadlessUi ui;
    auto state = text_state(ui, 60);
    TrainingPanelState& ts = state->training;
    ASSERT_GE(ts.view.timeline.size(), 2u);

    const auto strip_at = [&](bool latest, int step)
    {
        ts.follow_latest = latest;
        ts.shown_step = step;
        const test::FrameOutput out = ui.frames(*state, 2, panel_only(draw_training_panel));
        std::vector<LossCell> cells = loss_strip(ts.probe_batch, ts.probe.acts(), ts.view.vocabulary);
        // Every cell's colour is drawn (the background of a 0-loss cell need not be: it is the panel's own).
        ImGuiStyle& style = ImGui::GetStyle();
        ImVec4 bgv = style.Colors[ImGuiCol_WindowBg];
        bgv.w = 1.0f;
        const Color32 bg = ImGui::ColorConvertFloat4ToU32(bgv);
        std::set<Color32> colours;
        for (const LossCell& c : cells)
            if (std::isfinite(c.loss))
            {
                const Color32 col = surprise_color(c.loss, kSurpriseMaxNats, bg);
                colours.insert(col);
                EXPECT_TRUE(out.shape_points.count(col) != 0)
                    << "no cell drawn in the colour of loss " << c.loss;
            }
        return std::make_pair(cells, colours);
    };
    const auto [latest_cells, latest_colours] = strip_at(true, 0);
    const auto [first_cells, first_colours] = strip_at(false, 0);
    ASSERT_EQ(ts.probe.T(), static_cast<int>(first_cells.size()));
    // At step 0 the model guesses near-uniformly: every character costs about ln V.
    const float uniform = std::log(static_cast<float>(ts.view.vocabulary.size()));
    for (std::size_t t = 1; t < first_cells.size(); ++t)
        EXPECT_NEAR(first_cells[t].loss, uniform, 1.0f) << t;
    // 60 steps later the strip is another picture: the losses and so the colours moved.
    int changed = 0;
    for (std::size_t t = 1; t < first_cells.size(); ++t)
        changed += std::abs(first_cells[t].loss - latest_cells[t].loss) > 0.05f;
    EXPECT_GT(changed, static_cast<int>(first_cells.size()) / 2);
    EXPECT_NE(first_colours, latest_colours);
}

TEST(TrainingText, HoveringACharacterSaysItsLossAndTheModelsGuesses)
{
    HeadlessUi ui;
    auto state = text_state(ui, 40);
    TrainingPanelState& ts = state->training;
    test::FrameOutput out = ui.frames(*state, 2, panel_only(draw_training_panel));
    const std::vector<LossCell> cells = loss_strip(ts.probe_batch, ts.probe.acts(), ts.view.vocabulary);
    ImVec4 bgv = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    bgv.w = 1.0f;
    const Color32 bg = ImGui::ColorConvertFloat4ToU32(bgv);
    // The most surprising character below the top of the scale (whose colour the loss curve shares).
    std::size_t worst = 0;
    for (std::size_t t = 1; t < cells.size(); ++t)
        if (cells[t].loss < 4.5f && (worst == 0 || cells[t].loss > cells[worst].loss))
            worst = t;
    ASSERT_NE(worst, 0u);
    const Color32 col = surprise_color(cells[worst].loss, kSurpriseMaxNats, bg);
    ASSERT_TRUE(out.shape_points.count(col) != 0);
    const std::vector<ImVec2>& corners = out.shape_points.at(col);
    ASSERT_GE(corners.size(), 4u);
    float x0 = corners[0].x, y0 = corners[0].y, x1 = x0, y1 = y0;
    for (std::size_t i = 1; i < 4; ++i)
    {
        x0 = std::min(x0, corners[i].x);
        y0 = std::min(y0, corners[i].y);
        x1 = std::max(x1, corners[i].x);
        y1 = std::max(y1, corners[i].y);
    }
    ui.mouse((x0 + x1) * 0.5f, (y0 + y1) * 0.5f);
    out = ui.frames(*state, 2, panel_only(draw_training_panel));
    for (const char* text : {"loss", "nats", "bits", "top guesses after", "%"})
        EXPECT_TRUE(contains(out.text, text)) << text << "\n" << out.text;
    char loss[32];
    std::snprintf(loss, sizeof loss, "loss %.2f nats", static_cast<double>(cells[worst].loss));
    EXPECT_TRUE(contains(out.text, loss)) << loss << "\n" << out.text;
}

TEST(TrainingText, PresenterModesTrainingViewShowsTheStrip)
{
    HeadlessUi ui;
    auto state = text_state(ui, 20);
    const test::FrameOutput out = ui.frames(*state, 2, panel_only(draw_training_presenter_view));
    EXPECT_TRUE(contains(out.text, "surprise")) << out.text;
    EXPECT_TRUE(contains(out.text, "mean")) << out.text;
}

TEST(TrainingText, SparseLabelsKeepEveryKthCharacterWhenCellsAreSmall)
{
    EXPECT_EQ(sparse_label_step(12.0f, 11.0f), 1);
    EXPECT_EQ(sparse_label_step(6.0f, 11.0f), 2);
    EXPECT_EQ(sparse_label_step(2.4f, 11.0f), 8);
    EXPECT_EQ(sparse_label_step(1.0f, 11.0f), 16);
}

TEST(TrainingText, BlanksAreDrawnAsFaintGlyphsOnTheStripAndTheMapAxes)
{
    EXPECT_EQ(visible_character(" "), "\xC2\xB7");
    EXPECT_EQ(visible_character("\n"), "\xE2\x86\xB5");
    EXPECT_EQ(visible_character("q"), "q");
    EXPECT_TRUE(is_blank_symbol(" "));
    EXPECT_FALSE(is_blank_symbol("q"));

    HeadlessUi ui;
    auto state = text_state(ui, 5);
    state->training.probe_text = "the cat sat";
    state->training.probe_dirty = true;
    const test::FrameOutput out = ui.frames(*state, 2, panel_only(draw_training_panel));
    const std::vector<std::string> labels = training_probe_tokens(state->training);
    ASSERT_EQ(labels.size(), 11u);
    EXPECT_EQ(labels[3], "\xC2\xB7");
    EXPECT_EQ(labels[0], "t");
    EXPECT_TRUE(contains(out.text, "surprise")) << out.text;
    EXPECT_TRUE(contains(out.text, "nats")) << out.text;
}

// [SECTION] Samples

TEST(TrainingText, SamplesRepeatForTheSameSeedAndStepAndChangeWithTemperature)
{
    HeadlessUi ui;
    auto state = text_state(ui, 60);
    const TrainingSnapshot& v = state->training.view;
    train::CharVocabulary chars;
    ASSERT_TRUE(train::CharVocabulary::from_symbols(v.vocabulary, &chars).is_ok());
    SampleRequest r;
    r.model = v.model;
    r.params = v.timeline.back().params;
    r.prompt = chars.encode("Mr. Darcy ");
    r.seed = 7;
    const SampleResult a = run_sample(r), b = run_sample(r);
    ASSERT_TRUE(a.status.is_ok()) << a.status.message();
    ASSERT_EQ(a.tokens.size(), static_cast<std::size_t>(kSampleCharacters));
    EXPECT_EQ(a.tokens, b.tokens);
    // How long the worker takes for one sample (reported, not asserted: the machine's figure).
    std::printf("[ figures  ] a sample of %d characters at T_max %d: %.1f ms, %.1f ms\n", kSampleCharacters,
                v.model.T_max, a.ms, b.ms);
    RecordProperty("sample_ms", static_cast<int>(std::lround(a.ms)));
    SampleRequest hot = r;
    hot.temperature = 1.6f;
    EXPECT_NE(run_sample(hot).tokens, a.tokens);
    SampleRequest other_seed = r;
    other_seed.seed = 8;
    EXPECT_NE(run_sample(other_seed).tokens, a.tokens);
    SampleRequest first_step = r;
    first_step.params = v.timeline.front().params;
    EXPECT_NE(run_sample(first_step).tokens, a.tokens);

    // The worker gives the same text as the calling thread.
    TextSampler sampler;
    sampler.request(r);
    for (int i = 0; i < 3000 && sampler.pending(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    SampleResult got;
    ASSERT_TRUE(sampler.poll(&got));
    EXPECT_EQ(got.tokens, a.tokens);
    EXPECT_FALSE(sampler.poll(&got)); // nothing newer
    sampler.request(r);               // the same text again: no new request
    EXPECT_FALSE(sampler.pending());
}

TEST(TrainingText, TheProbesWordStartScoreLooksForTheSpacesAndAWordModelHasNone)
{
    HeadlessUi ui;
    auto state = text_state(ui, 0);
    const TrainingProbe& pr = state->training.probe;
    ASSERT_FALSE(pr.empty());
    // At step 0 every head spreads its weight: each keeps some on the last space before its query, as even
    // weights do (about 1/(i + 1) a row on the probe's spaces).
    ASSERT_FALSE(pr.scores().empty());
    for (const train::HeadScores& h : pr.scores())
        EXPECT_GT(h.word_start, 0.01);
    EXPECT_GT(pr.even_scores().word_start, 0.01);
    // A word model: its tokens have no spaces, so the score is 0 and the map titles leave it out.
    train::RunSpec words = small_text();
    words.level = train::TextLevel::Word;
    auto word_state = text_state(ui, 0, words);
    ASSERT_FALSE(word_state->training.probe.empty());
    for (const train::HeadScores& h : word_state->training.probe.scores())
        EXPECT_EQ(h.word_start, 0.0);
    const test::FrameOutput out = ui.frames(*word_state, 2, panel_only(draw_training_panel));
    EXPECT_TRUE(contains(out.text, "prev ")) << out.text;
    EXPECT_FALSE(contains(out.text, "word .")) << out.text;
}

TEST(TrainingText, TheDefaultPromptIsTheProbesStartAndAWordModelsCutsNoWordInTwo)
{
    // 16 characters: "somebody was com".
    const std::string probe = "somebody was coming, Bingley";
    EXPECT_EQ(default_sample_prompt(probe), "somebody was com");
    EXPECT_EQ(default_sample_prompt(probe, true), "somebody was");
    EXPECT_EQ(default_sample_prompt("somebody was com", true), "somebody was com")
        << "the probe's end cuts nothing";
    EXPECT_EQ(default_sample_prompt("extraordinarily-long-words", true), "extraordinarily-")
        << "no space: kept";
    EXPECT_EQ(default_sample_prompt("Mr. Darcy looked at", true), "Mr. Darcy looked") << "a space at the cut";
}

TEST(TrainingText, ThePanelShowsTheSampleAndItsControls)
{
    HeadlessUi ui;
    auto state = text_state(ui, 40);
    state->mouse_ignored = true; // pictures: the sample is written before the frame is drawn
    test::FrameOutput out = ui.frames(*state, 2, panel_only(draw_training_panel));
    const SampleResult& s = state->training.sample;
    ASSERT_NE(s.version, 0u);
    ASSERT_TRUE(s.status.is_ok()) << s.status.message();
    for (const char* text : {"sample", "temperature", "new seed", "prompt"})
        EXPECT_TRUE(contains(out.text, text)) << text;
    EXPECT_EQ(s.request.temperature, kDefaultSampleTemperature);
    EXPECT_EQ(s.request.step, state->training.view.step);
    // The default prompt is the probe's start.
    train::CharVocabulary chars;
    ASSERT_TRUE(train::CharVocabulary::from_symbols(state->training.view.vocabulary, &chars).is_ok());
    EXPECT_EQ(s.request.prompt, chars.encode(default_sample_prompt(state->training.probe_text)));
    // A typed prompt and another temperature: another request, written before the next picture.
    const unsigned long long before = s.version;
    state->training.sample_prompt = "Elizabeth";
    state->training.sample_temperature = 1.2f;
    ui.frames(*state, 2, panel_only(draw_training_panel));
    EXPECT_GT(state->training.sample.version, before);
    EXPECT_EQ(state->training.sample.request.prompt, chars.encode("Elizabeth"));
}

// With the text model in the main panels, the Input panel says what its probe is: English read as one
// sequence of characters (or of words and marks), not the toy tasks' "tokens separated by spaces".
TEST(TrainingText, TheInputPanelNamesATextModelsProbe)
{
    HeadlessUi ui;
    for (const train::TextLevel level : {train::TextLevel::Char, train::TextLevel::Word})
    {
        train::RunSpec spec = small_text();
        spec.level = level;
        auto state = text_state(ui, 2, spec);
        set_trained_view(*state, true);
        const std::string text = ui.frames(*state, 2, panel_only(draw_input_panel)).text;
        EXPECT_TRUE(contains(text, level == train::TextLevel::Word ? "one sequence of its words and marks"
                                                                   : "one sequence of its characters"))
            << text;
        EXPECT_FALSE(contains(text, "separated by spaces")) << text;
    }
}

// [SECTION] Head maps

TEST(TrainingText, HeadRolesAreTheLargestOfTheThreeTextScores)
{
    train::HeadScores s;
    s.previous_token = 0.68;
    s.induction = 0.10;
    s.word_start = 0.29;
    HeadRole r = text_head_role(s);
    EXPECT_EQ(r.kind, train::HeadScoreKind::PreviousToken);
    EXPECT_EQ(head_role_text(r), "previous token .68");
    EXPECT_EQ(head_role_text(r, true), "prev .68");
    s.previous_token = 0.05;
    r = text_head_role(s);
    EXPECT_EQ(r.kind, train::HeadScoreKind::WordStart);
    EXPECT_EQ(head_role_text(r), "word start .29");
    s.word_start = 0.1;
    s.induction = 0.12;
    s.diagonal = 0.9; // not a text role
    r = text_head_role(s);
    EXPECT_EQ(r.kind, train::HeadScoreKind::Count);
    EXPECT_EQ(head_role_text(r), "no clear role");
    EXPECT_NEAR(r.score, 0.12, 1e-12);
    EXPECT_EQ(map_scores_text(train::TaskKind::Text, s), "prev .05  ind .12  word .10");
    EXPECT_EQ(text_scores_text(s, train::HeadScoreKind::Induction), "prev .05  word .10");
}

// A short probe's scores are weighed against its own chance level: evenly spread weights score .20
// previous-token on 11 characters, which is no role there, while .20 on held-out text (chance .06) is one.
TEST(TrainingText, AProbesScoresNeedTwiceTheirChanceLevelForARole)
{
    train::HeadScores s, even;
    s.previous_token = 0.20;
    s.induction = 0.11;
    even.previous_token = 0.202;
    even.induction = 0.111;
    EXPECT_EQ(text_head_role(s).kind, train::HeadScoreKind::PreviousToken); // held out: no chance given
    HeadRole r = text_head_role(s, &even);
    EXPECT_EQ(r.kind, train::HeadScoreKind::Count);
    EXPECT_EQ(head_role_text(r), "no clear role");
    // Twice the chance is a role; the largest score that clears its bar names it.
    s.previous_token = 0.41;
    s.induction = 0.30;
    EXPECT_EQ(text_head_role(s, &even).kind, train::HeadScoreKind::PreviousToken);
    s.previous_token = 0.39;
    r = text_head_role(s, &even);
    EXPECT_EQ(r.kind, train::HeadScoreKind::Induction);
    EXPECT_EQ(head_role_text(r), "induction .30");
}

TEST(TrainingText, TheProbesChanceLevelIsWhatEvenWeightsScoreOnIt)
{
    HeadlessUi ui;
    auto state = text_state(ui, 0);
    const TrainingPanelState& ts = state->training;
    ASSERT_FALSE(ts.probe.empty());
    const int T = ts.probe_batch.T;
    ASSERT_GT(T, 2);
    // Causal: row i spreads 1/(i + 1) over keys 0..i, so the previous key gets 1/(i + 1), averaged over i
    // >= 1.
    double prev = 0.0;
    for (int i = 1; i < T; ++i)
        prev += 1.0 / (i + 1);
    prev /= T - 1;
    EXPECT_NEAR(ts.probe.even_scores().previous_token, prev, 1e-6);
    // Induction: the share of the visible keys whose previous character is the query's.
    const std::vector<int>& x = ts.probe_batch.tokens;
    double ind = 0.0;
    int rows = 0;
    for (int i = 0; i < T; ++i)
    {
        int matches = 0;
        for (int key = 1; key <= i; ++key)
            matches += x[static_cast<std::size_t>(key - 1)] == x[static_cast<std::size_t>(i)];
        if (matches > 0)
        {
            ind += static_cast<double>(matches) / (i + 1);
            ++rows;
        }
    }
    EXPECT_NEAR(ts.probe.even_scores().induction, rows > 0 ? ind / rows : 0.0, 1e-6);
}

TEST(TrainingText, MapTitlesNameEachHeadsRole)
{
    HeadlessUi ui(1920.0f, 1080.0f);
    auto state = text_state(ui, 60);
    const test::FrameOutput out = ui.frames(*state, 2, panel_only(draw_training_panel));
    const TrainingSnapshot& v = state->training.view;
    ASSERT_FALSE(v.evals.empty());
    const std::vector<train::HeadScores>& heads = v.evals.back().heads;
    for (std::size_t k = 0; k < heads.size(); ++k)
    {
        const std::string role = head_role_text(text_head_role(heads[k]));
        const std::string short_role = head_role_text(text_head_role(heads[k]), true);
        EXPECT_TRUE(contains(out.text, role) || contains(out.text, short_role))
            << "head " << k << ": " << role << "\n"
            << out.text;
    }
}

// [SECTION] Files

TEST(TrainingText, LessonRunsKeepTheirCorpusAndRepeatShare)
{
    const char* text = R"({"format": "attnlab-lesson", "version": 1, "title": "t",
        "training": {"task": "text", "corpus": "devil", "repeat": 0.5, "steps": 10, "score": "word-start",
                     "probe": "Mr. Darcy looked away.", "compare": [{"repeat": 0}]},
        "steps": [{"text": "a"}]})";
    Lesson lesson;
    const Status s = parse_lesson(text, "t.json", &lesson);
    ASSERT_TRUE(s.is_ok()) << s.message();
    const LessonTraining& t = lesson.steps[0].training;
    EXPECT_EQ(t.run.task, train::TaskKind::Text);
    EXPECT_EQ(t.run.corpus, "devil");
    EXPECT_EQ(t.run.repeat, 0.5f);
    EXPECT_EQ(t.score_kind, static_cast<int>(train::HeadScoreKind::WordStart));
    ASSERT_EQ(t.compare.size(), 1u);
    EXPECT_EQ(t.compare[0].corpus, "devil"); // the step's run with repeat changed
    EXPECT_EQ(t.compare[0].repeat, 0.0f);

    const auto refused = [](const std::string& training, const std::string& says)
    {
        Lesson l;
        const Status r =
            parse_lesson(R"({"format": "attnlab-lesson", "version": 1, "title": "t", "training": )" +
                             training + R"(, "steps": [{"text": "a"}]})",
                         "t.json", &l);
        EXPECT_FALSE(r.is_ok()) << training;
        EXPECT_TRUE(contains(r.message(), says)) << r.message();
    };
    refused(R"({"task": "reverse", "steps": 10, "corpus": "devil"})", "corpus");
    refused(R"({"task": "text", "steps": 10, "corpus": "nosuchbook"})", "austen");
    refused(R"({"task": "text", "steps": 10, "repeat": 1.5})", "repeat");
}

class TrainingTextFiles : public ConfigHomeTest
{
};

TEST_F(TrainingTextFiles, SessionsKeepATextRunsCorpusAndRepeatShare)
{
    HeadlessUi ui;
    auto state = text_state(ui, 12, small_text("devil", 0.25f));
    ASSERT_EQ(state->training.view.config.corpus, "devil");
    const std::string path = (home / "text_run.json").string();
    ASSERT_TRUE(save_session_as(*state, path).is_ok()) << state->message;

    // The model beside the session records its text.
    TrainedModel saved;
    ASSERT_TRUE(load_model_file((home / "text_run.model.json").string(), &saved).is_ok());
    EXPECT_EQ(saved.text.corpus, "devil");
    EXPECT_EQ(saved.text.repeat, 0.25f);

    auto reopened = std::make_unique<AppState>();
    ASSERT_TRUE(open_session_file(*reopened, path).is_ok());
    ui.frames(*reopened, 2, panel_only(draw_training_panel));
    const train::RunSpec& back = reopened->training.view.config;
    EXPECT_EQ(back.task, train::TaskKind::Text);
    EXPECT_EQ(back.corpus, "devil");
    EXPECT_EQ(back.repeat, 0.25f);
    EXPECT_EQ(reopened->training.view.step, 12);
    EXPECT_EQ(reopened->training.view.vocabulary, state->training.view.vocabulary);
}

} // namespace
} // namespace attnlab
