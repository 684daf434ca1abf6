// The Training panel headless (task combo, buttons, maps after synchronous steps) and TrainingRun's worker:
// play, pause, target, reset and the hand-over of the trainer between threads.
#include "core/io/model_file.h"
#include "core/io/session_file.h"
#include "ui/model/lessons.h"
#include "ui/model/session_files.h"
#include "ui/model/training/training_controller.h"
#include "ui/model/training/training_curves.h"
#include "ui/model/training/training_run.h"
#include "ui/panels/panels.h"
#include "ui/panels/training_panel_views.h"
#include "ui/picture/colormap.h"
#include "ui/picture/export.h"
#include "ui/shell/app_ui.h"
#include "ui/shell/file_actions.h"
#include "ui/shell/fonts.h"
#include "ui/shell/theme.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

namespace attnlab
{
namespace
{

using test::contains;
using test::HeadlessUi;
using test::panel_only;

// The panel's text with wrapped lines joined again (a wrap replaces a space by a line break).
std::string unwrapped(std::string text)
{
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
}

train::RunSpec small_reverse(int target)
{
    train::RunSpec c = train::RunSpec(train::TaskKind::Reverse);
    c.steps = target;
    return c;
}

// Waits (up to 60 s) for the worker to stop by itself.
bool wait_stopped(const TrainingRun& run)
{
    for (int i = 0; i < 6000 && run.running(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return !run.running();
}

// [SECTION] The panel

TEST(TrainingPanel, DrawsTaskComboButtonsCurvesAndMapsAfterSteps)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    auto out = ui.frames(*state, 2, panel_only(draw_training_panel));
    for (const char* text :
         {"Reverse", "task", "preset: 2 layers, h = 2, d_model = 48", "Play", "Step", "Reset", "New seed",
          "step 0 / 500", "loss (log scale)", "held-out accuracy", "head scores",
          "weights at step 0: random, untrained", "layer 1, head 1", "layer 2, head 2", "anti-diag", "probe"})
        EXPECT_TRUE(contains(out.text, text)) << text << "\n" << out.text;
    EXPECT_FALSE(state->training_run.running()); // nothing runs until Play

    state->training_run.step_now(20);
    out = ui.frames(*state, 2, panel_only(draw_training_panel));
    EXPECT_TRUE(contains(out.text, "weights at step 20")) << out.text;
    EXPECT_TRUE(contains(out.text, "step 20 / 500")) << out.text;
    const TrainingSnapshot& v = state->training.view;
    ASSERT_EQ(v.loss.size(), 20u);
    // Held-out points every eval_every steps (10 for a 500-step run), each with every head's scores.
    ASSERT_EQ(v.eval_every, 10);
    ASSERT_EQ(v.evals.size(), 2u);
    EXPECT_EQ(v.evals[1].step, 20);
    EXPECT_EQ(v.evals[1].heads.size(), 4u);
    EXPECT_TRUE(contains(out.text, "held-out: loss")) << out.text;
    // One texture per layer x head, each drawn, for the probe's T.
    for (const char* key : {"train/L0/h0", "train/L0/h1", "train/L1/h0", "train/L1/h1"})
    {
        const HeatmapEntry* e = state->heatmaps.find(key);
        ASSERT_NE(e, nullptr) << key;
        EXPECT_EQ(e->rows, state->training.probe.T());
        EXPECT_TRUE(out.textures.count(e->texture)) << key;
    }
}

// A map's tooltip names the query and key positions as every heatmap does, i and j from 0, so "query 9" is
// never read as the ninth beside the titles' "layer 1, head 1"; the gradient map's tooltip too.
TEST(TrainingPanel, AMapsTooltipNamesPositionsIAndJFromZero)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 1, panel_only(draw_training_panel));
    state->training_run.step_now(5);
    state->training.map_kind = 1; // each map with its gradient beside it
    auto out = ui.frames(*state, 2, panel_only(draw_training_panel));
    const int T = state->training.probe.T();
    ASSERT_EQ(T, 16);
    const auto hover = [&](const char* key, int row, int col)
    {
        const HeatmapEntry* e = state->heatmaps.find(key);
        EXPECT_NE(e, nullptr) << key;
        if (e == nullptr || out.texture_rects.count(e->texture) == 0)
            return false;
        const ImVec4 r = out.texture_rects.at(e->texture);
        ui.mouse(r.x + (r.z - r.x) * (static_cast<float>(col) + 0.5f) / static_cast<float>(T),
                 r.y + (r.w - r.y) * (static_cast<float>(row) + 0.5f) / static_cast<float>(T));
        out = ui.frames(*state, 2, panel_only(draw_training_panel));
        return true;
    };
    ASSERT_TRUE(hover("train/L0/h0", 9, 6));
    EXPECT_TRUE(contains(out.text, "query i = 9 \"")) << out.text;
    EXPECT_TRUE(contains(out.text, "\" -> key j = 6 \"")) << out.text;
    ASSERT_TRUE(hover("train/L0/h0/grad", 9, 6));
    EXPECT_TRUE(contains(out.text, "at query i = 9, key j = 6")) << out.text;
}

// The loss plot's title line names both losses, each beside a swatch of its curve's colour: training (blue)
// first, held-out (this run's vermilion) after it on the same line, at the default size and at 1280x720.
TEST(TrainingPanel, TheLossTitleSaysWhichColourIsWhichLoss)
{
    for (const ImVec2 display : {ImVec2(1600.0f, 1000.0f), ImVec2(1280.0f, 720.0f)})
    {
        HeadlessUi ui(display.x, display.y);
        auto state = std::make_unique<AppState>();
        state->training_run.step_now(20);
        const auto out = ui.frames(*state, 2, panel_only(draw_training_panel));
        EXPECT_TRUE(contains(out.text, "training")) << out.text;
        EXPECT_TRUE(contains(out.text, "held-out")) << out.text;
        const auto blue = out.shape_points.find(kTrainingLossColor);
        ASSERT_NE(blue, out.shape_points.end()) << "no swatch in the training loss's colour";
        // The swatch: the topmost blue, on the title line (the curve itself is blue too, under it).
        float y_min = 1e9f;
        for (const ImVec2& q : blue->second)
            y_min = std::min(y_min, q.y);
        float x_min = 1e9f, x_max = -1e9f, y_max = -1e9f;
        for (const ImVec2& q : blue->second)
            if (q.y < y_min + ImGui::GetFontSize() * 0.5f)
            {
                x_min = std::min(x_min, q.x);
                x_max = std::max(x_max, q.x);
                y_max = std::max(y_max, q.y);
            }
        EXPECT_LT(x_max - x_min, ImGui::GetFontSize() * 1.5f) << "the swatch is one short bar";
        // The held-out swatch: vermilion at the same height, to the right, within the title line.
        const auto vermilion = out.shape_points.find(kThisRunColor);
        ASSERT_NE(vermilion, out.shape_points.end());
        const bool beside = std::any_of(vermilion->second.begin(), vermilion->second.end(),
                                        [&](const ImVec2& q)
                                        {
                                            return q.y >= y_min - 0.5f && q.y <= y_max + 0.5f &&
                                                   q.x > x_max && q.x < x_max + ImGui::GetFontSize() * 8.0f;
                                        });
        EXPECT_TRUE(beside) << "no held-out swatch beside the training one at " << display.x;
    }
}

// The maps at a past step of the timeline are a fresh forward pass of that step's parameters.
TEST(TrainingPanel, ScrubberShowsEveryMapAsItWasAtThatStep)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 1, panel_only(draw_training_panel));
    state->training_run.step_now(30);
    ui.frames(*state, 1, panel_only(draw_training_panel));
    TrainingPanelState& ts = state->training;
    ASSERT_GE(ts.view.timeline.size(), 4u); // steps 0, 10, 20, 30
    EXPECT_EQ(ts.view.timeline[0].step, 0);
    EXPECT_EQ(ts.view.timeline[1].step, 10);
    EXPECT_EQ(ts.view.timeline.back().step, 30);

    ts.follow_latest = false;
    ts.shown_step = 10;
    auto out = ui.frames(*state, 1, panel_only(draw_training_panel));
    EXPECT_TRUE(contains(out.text, "weights at step 10")) << out.text;

    // A fresh model with the same seed, trained 10 steps: its probe must be what the panel shows.
    train::Trainer fresh;
    ASSERT_TRUE(fresh.init(ts.view.config.task, ts.view.config.preset()).is_ok());
    fresh.run(10);
    ASSERT_TRUE(fresh.probe(ts.probe_batch).is_ok());
    const int h = ts.view.model.n_heads;
    for (int l = 0; l < ts.view.model.n_layers; ++l)
        for (int j = 0; j < h; ++j)
        {
            const Mat expected = train::attention_block(
                fresh.probe_activations().layers[static_cast<std::size_t>(l)].weights, 0, j, h, ts.probe.T());
            EXPECT_EQ(ts.probe.weights(l * h + j), expected) << "layer " << l << " head " << j;
            const Mat expected_grad = train::attention_block(
                fresh.probe_act_grads().layers[static_cast<std::size_t>(l)].dweights, 0, j, h, ts.probe.T());
            EXPECT_EQ(ts.probe.dweights(l * h + j), expected_grad);
        }
    EXPECT_EQ(ts.probe.probs(), fresh.probe_activations().probs);

    // Back to the latest: step 30's maps differ from step 10's.
    const Mat at10 = ts.probe.weights(0);
    ts.follow_latest = true;
    ui.frames(*state, 1, panel_only(draw_training_panel));
    EXPECT_NE(ts.probe.weights(0), at10);
}

// The main panels on the trained model: every stage of its pass on the probe, at the timeline's step, and
// back to the session with one switch.
TEST(TrainingPanel, MainPanelsShowTheTrainedModelAtTheShownStep)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 1, panel_only(draw_training_panel));
    state->training_run.step_now(30);
    ui.frames(*state, 1, panel_only(draw_training_panel));
    const Trace* session_trace = &state->engine.trace();
    EXPECT_FALSE(state->showing_trained());

    set_trained_view(*state, true);
    auto out = ui.frames(*state, 2);
    ASSERT_TRUE(state->showing_trained());
    const Trace& t = state->trace();
    EXPECT_NE(&t, session_trace);
    EXPECT_TRUE(t.trained && t.pre_ln);
    TrainingPanelState& ts = state->training;
    const int h = ts.view.model.n_heads;
    ASSERT_EQ(static_cast<int>(t.layers.size()), ts.view.model.n_layers);
    for (int l = 0; l < ts.view.model.n_layers; ++l)
        for (int j = 0; j < h; ++j)
        {
            EXPECT_EQ(t.layers[static_cast<std::size_t>(l)].attn.head(0, j).weights,
                      ts.probe.weights(l * h + j));
            EXPECT_EQ(t.layers[static_cast<std::size_t>(l)].attn.head(0, j).dweights,
                      ts.probe.dweights(l * h + j));
        }
    EXPECT_EQ(t.probs[0], ts.probe.probs());
    EXPECT_TRUE(contains(out.text, "Trained model: reverse · step 30")) << out.text;
    EXPECT_FALSE(contains(out.text, "random weights (seed")) << "the trained model is not untrained";
    out = ui.frames(*state, 1, panel_only(draw_input_panel));
    EXPECT_TRUE(contains(out.text, "The probe")) << out.text;
    state->stage_collapsed.fill(true); // headers only: every stage fits
    out = ui.frames(*state, 1, panel_only(draw_pipeline_panel));
    for (const char* text : {"Token embedding", "LayerNorm 1", "LN1(X)", "show the session"})
        EXPECT_TRUE(contains(out.text, text)) << text;
    EXPECT_FALSE(contains(out.text, "Add & Norm")) << "a pre-LN layer has no Add & Norm";

    // The comparisons run on the trained weights: one packed matmul is the h heads.
    state->ensure_comparisons();
    EXPECT_LT(state->comparisons.packed_max_diff, 1e-5f);

    // The last layer: the model's output stages, logits and probabilities over the vocabulary.
    state->sel.layer = ts.view.model.n_layers - 1;
    out = ui.frames(*state, 1, panel_only(draw_pipeline_panel));
    EXPECT_TRUE(contains(out.text, "Next-token probabilities")) << out.text;
    EXPECT_TRUE(contains(out.text, "the 5 most probable next tokens at each position")) << out.text;
    EXPECT_TRUE(
        contains(out.text, "T×V = " + std::to_string(t.T()) + "×" + std::to_string(t.vocabulary.size())));
    EXPECT_FALSE(contains(out.text, "Token embedding")) << "input stages only above layer 1";

    // The timeline at step 10: the main panels show that step's weights.
    ts.follow_latest = false;
    ts.shown_step = 10;
    out = ui.frames(*state, 1);
    EXPECT_TRUE(contains(out.text, "step 10")) << out.text;
    train::Trainer fresh;
    ASSERT_TRUE(fresh.init(ts.view.config.task, ts.view.config.preset()).is_ok());
    fresh.run(10);
    ASSERT_TRUE(fresh.probe(ts.probe_batch).is_ok());
    EXPECT_EQ(state->trace().layers[0].attn.head(0, 1).weights,
              train::attention_block(fresh.probe_activations().layers[0].weights, 0, 1, h, ts.probe.T()));

    // Ctrl+T: back to the session, whose trace never changed.
    ui.press_key(*state, 'T', true);
    EXPECT_FALSE(state->showing_trained());
    EXPECT_EQ(&state->trace(), session_trace);
    out = ui.frames(*state, 1, panel_only(draw_pipeline_panel));
    EXPECT_TRUE(contains(out.text, "show the trained model")) << out.text;
    EXPECT_TRUE(contains(out.text, "Add & Norm"));
}

TEST(TrainingPanel, ProbeIsEditableAndAWrongTokenIsAMessage)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 1, panel_only(draw_training_panel));
    TrainingPanelState& ts = state->training;
    const std::string default_probe = ts.probe_text;
    EXPECT_FALSE(default_probe.empty());
    EXPECT_EQ(ts.probe.T(), 16);

    ts.probe_text = "1 2 3 | 3 2 1";
    ts.probe_dirty = true;
    ui.frames(*state, 1, panel_only(draw_training_panel));
    EXPECT_TRUE(ts.probe_error.empty()) << ts.probe_error;
    EXPECT_EQ(ts.probe.T(), 7);

    ts.probe_text = "1 2 x";
    ts.probe_dirty = true;
    auto out = ui.frames(*state, 1, panel_only(draw_training_panel));
    EXPECT_TRUE(contains(ts.probe_error, "unknown token 'x'")) << ts.probe_error;
    EXPECT_TRUE(contains(out.text, "the maps show the last good probe")) << out.text;
    EXPECT_EQ(ts.probe.T(), 7); // the last good probe stays

    // Another task brings its own vocabulary and default probe.
    ts.edit = train::RunSpec(train::TaskKind::Sort);
    ASSERT_TRUE(state->training_run.configure(ts.edit).is_ok());
    ui.frames(*state, 1, panel_only(draw_training_panel));
    EXPECT_NE(ts.probe_text, "1 2 x");
    EXPECT_TRUE(ts.probe_error.empty()) << ts.probe_error;
    EXPECT_EQ(ts.probe.T(), 11);
}

// A text model trained on another book opens on that book: its vocabulary, not the default one's.
TEST(TrainingPanel, ATextModelOpensOnTheTextItWasTrainedOn)
{
    std::shared_ptr<const train::TextCorpus> devil;
    ASSERT_TRUE(train::load_text_corpus("devil", train::TextCorpusOptions{}, &devil).is_ok());
    const train::Task task(devil, 0.0f);
    train::Trainer trainer;
    train::Preset preset = task.preset();
    preset.model.vocab_size = task.vocab_size();
    ASSERT_TRUE(trainer.init(task, preset).is_ok());
    trainer.run(3);
    const TrainedModel model = trained_model(trainer, {});
    ASSERT_EQ(model.text.corpus, "devil");
    TrainingRun run;
    ASSERT_TRUE(run.open(model).is_ok());
    TrainingSnapshot view;
    run.poll(view);
    EXPECT_EQ(view.vocabulary, devil->vocabulary.symbols());
    std::shared_ptr<const train::TextCorpus> austen;
    ASSERT_TRUE(train::load_text_corpus("austen", train::TextCorpusOptions{}, &austen).is_ok());
    EXPECT_NE(view.vocabulary, austen->vocabulary.symbols()); // the books' characters differ
}

// File > Train on a text file: the Text task on the user's file (its own characters), the panel's Text
// fields naming it; a bad file is a message in the dialog and the run on screen stays.
TEST(TrainingPanel, TrainOnATextFileOfTheUsers)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("attnlab_text_file_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::filesystem::path good = dir / "notes.txt";
    {
        std::ofstream f(good);
        for (int i = 0; i < 40; ++i)
            f << "The quick brown fox jumps over the lazy dog; zebras quietly vex. ";
    }
    const std::filesystem::path bad = dir / "binary.bin";
    {
        std::ofstream f(bad, std::ios::binary);
        f << std::string("abc\0def", 7) << std::string(2000, 'x');
    }
    ASSERT_TRUE(state->training_run.configure(train::RunSpec(train::TaskKind::Sort)).is_ok());
    state->training_run.poll(state->training.view);

    open_file_dialog(*state, FileAction::TrainTextFile);
    state->file_dialog.path = bad.string();
    const std::string refused = run_file_action(*state);
    EXPECT_TRUE(contains(refused, "binary")) << refused;
    EXPECT_EQ(state->training.view.config.task, train::TaskKind::Sort); // the run on screen stays

    state->file_dialog.path = good.string();
    const std::string error = run_file_action(*state);
    EXPECT_TRUE(error.empty()) << error;
    const TrainingSnapshot& v = state->training.view;
    EXPECT_EQ(v.config.task, train::TaskKind::Text);
    EXPECT_EQ(v.config.corpus, good.string());
    // The file's own characters: 'z' is in it, '%' is not.
    EXPECT_NE(std::find(v.vocabulary.begin(), v.vocabulary.end(), "z"), v.vocabulary.end());
    EXPECT_EQ(std::find(v.vocabulary.begin(), v.vocabulary.end(), "%"), v.vocabulary.end());
    const test::FrameOutput out = ui.frames(*state, 2, panel_only(draw_training_panel));
    EXPECT_TRUE(contains(out.text, "notes.txt")) << out.text;
    EXPECT_TRUE(contains(out.text, "repeat")) << out.text;
    // The status bar describes the file's run ("Training on ...: N characters ..."), until the fields make
    // another run, which it no longer describes (words instead of characters).
    EXPECT_TRUE(contains(state->message, "Training on " + good.string())) << state->message;
    state->training.edit.level = train::TextLevel::Word;
    apply_training_fields(*state);
    EXPECT_FALSE(contains(state->message, "Training on")) << state->message;
    // Another message stays.
    state->set_message("Saved lecture.json", false);
    state->training.edit.level = train::TextLevel::Char;
    apply_training_fields(*state);
    EXPECT_EQ(state->message, "Saved lecture.json");
    std::filesystem::remove_all(dir);
}

// The score list under the head-score curves is as wide as its longest name: at 1264x640 with the window's
// font it read "previous-tok".
TEST(TrainingPanel, TheScoreListShowsItsLongestNameWhole)
{
    HeadlessUi ui(1264.0f, 640.0f);
    auto state = std::make_unique<AppState>();
    ASSERT_TRUE(load_fonts(ui_font_size(*state, 640.0f), nullptr));
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    TrainingPanelState& ts = state->training;
    state->prefs.open[static_cast<std::size_t>(PanelId::Training)] = true;
    ts.edit = train::RunSpec(train::TaskKind::Text);
    ASSERT_TRUE(state->training_run.configure(ts.edit).is_ok());
    ui.frames(*state, 1);
    state->training_run.step_now(2);
    ts.score_kind = static_cast<int>(train::HeadScoreKind::PreviousToken);
    const std::string shown = ui.frames(*state, 2).text;
    EXPECT_TRUE(contains(shown, "head scores: previous-to")) << shown;
    // Each line that names the score: the plot's title (cut with "…" if need be) or the list's whole name.
    int whole = 0;
    std::istringstream lines(shown);
    for (std::string line; std::getline(lines, line);)
        whole += contains(line, "previous-token") && !contains(line, "head scores") ? 1 : 0;
    EXPECT_EQ(whole, 1) << shown;
}

// The text task's probe is read as characters, spaces and punctuation included, one token each.
TEST(TrainingPanel, ATextModelsProbeIsItsCharacters)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    TrainingPanelState& ts = state->training;
    ts.edit = train::RunSpec(train::TaskKind::Text);
    ASSERT_TRUE(state->training_run.configure(ts.edit).is_ok());
    ui.frames(*state, 1, panel_only(draw_training_panel));
    EXPECT_TRUE(ts.probe_error.empty()) << ts.probe_error;
    ts.probe_text = "Mr. Darcy, \u00bfno?";
    ts.probe_dirty = true;
    ui.frames(*state, 1, panel_only(draw_training_panel));
    EXPECT_TRUE(ts.probe_error.empty()) << ts.probe_error;
    ASSERT_EQ(ts.probe_batch.T, 15); // 15 characters ("¿" is one)
    const std::vector<std::string>& vocabulary = state->training.view.vocabulary;
    EXPECT_EQ(vocabulary[static_cast<std::size_t>(ts.probe_batch.tokens[0])], "M");
    EXPECT_EQ(vocabulary[static_cast<std::size_t>(ts.probe_batch.tokens[3])], " ");
}

// One number per score: the title above a head's map is the held-out score at the shown step, the value the
// head-score curve has there (not the probe's, which is one sequence).
TEST(TrainingPanel, AHeadsTitleShowsTheNumberItsCurveShows)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 1, panel_only(draw_training_panel));
    state->training_run.step_now(20);
    const auto out = ui.frames(*state, 2, panel_only(draw_training_panel));
    const TrainingSnapshot& v = state->training.view;
    ASSERT_FALSE(v.evals.empty());
    ASSERT_EQ(v.evals.back().step, v.step);
    const train::HeadScores* held_out = held_out_scores_at(v, v.step, 0);
    ASSERT_NE(held_out, nullptr);
    std::string title = map_scores_text(v.config.task, *held_out);
    for (std::size_t at = title.find("  "); at != std::string::npos; at = title.find("  "))
        title.erase(at, 1); // the captured text has single spaces
    EXPECT_TRUE(contains(out.text, title)) << title << "\n" << out.text;
    const TrainingCurves curves =
        training_curves(v, v.config.steps, static_cast<int>(train::HeadScoreKind::AntiDiagonal));
    ASSERT_FALSE(curves.heads.series.empty());
    ASSERT_FALSE(curves.heads.series[0].points.empty());
    EXPECT_EQ(curves.heads.series[0].points.back().second,
              static_cast<float>(train::head_score(*held_out, train::HeadScoreKind::AntiDiagonal)));
}

// The Training panel covers the Pipeline and the Heads: showing the trained model in them closes it (so they
// show), switching back opens it again; Alt+3 on the covered Pipeline brings it forward rather than closing
// it.
TEST(TrainingPanel, ShowingTheTrainedModelInTheMainPanelsShowsThem)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    bool& training_open = state->prefs.open[static_cast<std::size_t>(PanelId::Training)];
    const auto is_open = [&](PanelId id) { return state->prefs.open[static_cast<std::size_t>(id)]; };
    training_open = true;
    ui.frames(*state, 1);
    state->training_run.step_now(5);
    ui.frames(*state, 1);
    ui.press_key(*state, 'T', true); // Ctrl+T
    ASSERT_TRUE(state->showing_trained());
    EXPECT_FALSE(training_open);
    EXPECT_TRUE(is_open(PanelId::Pipeline) && is_open(PanelId::Heads));
    EXPECT_TRUE(contains(state->message, "Alt+8")) << state->message;
    ui.press_key(*state, 'T', true);
    EXPECT_FALSE(state->showing_trained());
    EXPECT_TRUE(training_open) << "back where the student was";

    // Alt+3 while Training covers the open Pipeline: Training steps aside, the Pipeline stays open.
    ui.press_key(*state, keys::Digit1 + 2, false, true);
    EXPECT_TRUE(is_open(PanelId::Pipeline));
    EXPECT_FALSE(training_open);
    EXPECT_TRUE(contains(state->message, "Pipeline is in front")) << state->message;
    // Nothing covers it now: Alt+3 hides it, and shows it again.
    ui.press_key(*state, keys::Digit1 + 2, false, true);
    EXPECT_FALSE(is_open(PanelId::Pipeline));
    ui.press_key(*state, keys::Digit1 + 2, false, true);
    EXPECT_TRUE(is_open(PanelId::Pipeline));
}

TEST(TrainingPanel, OutputStagesShowLogitsProbabilitiesAndLoss)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 1, panel_only(draw_training_panel));
    state->training_run.step_now(5);
    state->training.map_kind = 2;
    const auto out = ui.frames(*state, 2, panel_only(draw_training_panel));
    EXPECT_TRUE(contains(out.text, "probabilities (T×V)")) << out.text;
    EXPECT_TRUE(contains(out.text, "logits (T×V)")) << out.text;
    const TrainingProbe& pr = state->training.probe;
    ASSERT_EQ(pr.probs().rows(), 16);
    ASSERT_EQ(pr.probs().cols(), 11);
    for (int t = 0; t < 16; ++t)
        EXPECT_NEAR(pr.probs().row(t).sum(), 1.0f, 1e-5f);
    const HeatmapEntry* e = state->heatmaps.find("train/probs");
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->cols, 11);
    // Reverse scores the 8 positions from the separator on: the loss at t is -log p(target t), the reversed
    // digit; the mean over those 8 alone is the probe's loss, the loss that was trained.
    const train::Batch& batch = state->training.probe_batch;
    const int separator = 10;
    const auto at = std::find(batch.tokens.begin(), batch.tokens.end(), separator) - batch.tokens.begin();
    ASSERT_EQ(at, 8);
    double sum = 0;
    int scored = 0;
    for (int t = 0; t < 16; ++t)
    {
        const std::size_t i = static_cast<std::size_t>(t);
        EXPECT_EQ(batch.loss_mask[i] != 0, t >= 8) << t;
        if (!batch.loss_mask[i])
        {
            EXPECT_EQ(pr.loss()[i], 0.0f) << t;
            continue;
        }
        const int target = batch.tokens[static_cast<std::size_t>(15 - t)]; // 2·8 − 1 − t
        EXPECT_EQ(batch.targets[i], target) << t;
        EXPECT_NEAR(pr.loss()[i], -std::log(pr.probs()(t, target)), 1e-4);
        sum += pr.loss()[i];
        ++scored;
    }
    EXPECT_EQ(scored, 8);
    EXPECT_NEAR(sum / scored, pr.mean_loss(), 1e-4);
    EXPECT_TRUE(contains(out.text, "The task scores 8 of the 16 positions")) << out.text;
    EXPECT_TRUE(contains(out.text, "not scored")) << out.text;

    state->training.map_kind = 1; // the gradient beside each map
    ui.frames(*state, 1, panel_only(draw_training_panel));
    EXPECT_NE(state->heatmaps.find("train/L1/h1/grad"), nullptr);
}

TEST(TrainingPanel, EveryStageOfALayerAndHeadInOrder)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 1, panel_only(draw_training_panel));
    state->training_run.step_now(5);
    state->training.map_kind = 3;
    state->training.stage_layer = 1; // the last layer: its list ends with LN_f, the logits and probs
    state->training.stage_head = 1;
    const auto out = ui.frames(*state, 2, panel_only(draw_training_panel));
    const std::size_t x = out.text.find("X (layer 2 input)");
    const std::size_t q = out.text.find("Q_2");
    ASSERT_NE(x, std::string::npos) << out.text;
    EXPECT_LT(x, q);
    EXPECT_TRUE(contains(out.text, "[16 x 24]")) << "Q_h is T x d_k\n" << out.text;
    // Pre-LN with FFN, the last layer: X, LN1, Q, K, V, scores, scaled, masked, A, ∂L/∂A, head, concat, mha,
    // A = X + mha, LN2, hidden, FFN, A + FFN, LN_f, logits, probs (those below the fold are made too).
    const HeatmapEntry* last = state->heatmaps.find("train/stage/20");
    ASSERT_NE(last, nullptr);
    EXPECT_EQ(last->rows, 16);
    EXPECT_EQ(last->cols, 11); // probs: T x V
    EXPECT_EQ(state->heatmaps.find("train/stage/21"), nullptr);
    const HeatmapEntry* hidden = state->heatmaps.find("train/stage/15");
    ASSERT_NE(hidden, nullptr);
    EXPECT_EQ(hidden->cols, 4 * 48); // d_ff
    const HeatmapEntry* e = state->heatmaps.find("train/stage/0");
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->rows, 16);
    EXPECT_EQ(e->cols, 48);
}

TEST(TrainingPanel, OpenTrainingOpensThePanelTrained)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    open_training(*state, train::TaskKind::Copy, 3);
    EXPECT_TRUE(state->prefs.open[static_cast<std::size_t>(PanelId::Training)]);
    EXPECT_FALSE(state->prefs.open[static_cast<std::size_t>(PanelId::Heads)]); // under it: closed
    EXPECT_TRUE(state->prefs.open[static_cast<std::size_t>(PanelId::Input)]);
    const auto out = ui.frames(*state, 3);
    EXPECT_TRUE(contains(out.text, "weights at step 3")) << out.text;
    EXPECT_TRUE(contains(out.text, "Copy")) << out.text;
}

TEST(TrainingPanel, PanelTableHasTrainingWithAShortcut)
{
    const PanelFacts& p = panel_facts(PanelId::Training);
    EXPECT_EQ(p.id, PanelId::Training);
    EXPECT_STREQ(p.title, "Training");
    EXPECT_STREQ(panel_shortcut(p.id), "Alt+8");
}

// [SECTION] Model files and curves from the window

std::string temp_path(const std::string& name)
{
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "attnlab_training_panel_test";
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

TEST(TrainingFiles, SavedModelOpensAtItsStepWithTheSameWeightsMapsAndCurves)
{
    HeadlessUi ui;
    auto a = std::make_unique<AppState>();
    ui.frames(*a, 1, panel_only(draw_training_panel));
    a->training_run.step_now(25);
    ui.frames(*a, 1, panel_only(draw_training_panel));
    const std::string path = temp_path("reverse-25.json");
    ASSERT_TRUE(save_model_file(*a, path).is_ok());
    EXPECT_TRUE(looks_like_model_file(path));
    EXPECT_FALSE(looks_like_model_file(temp_path("no-such-model.json")));
    const std::string session = temp_path("not-a-model.json");
    ASSERT_TRUE(save_session_file(Session{}, session).is_ok());
    EXPECT_FALSE(looks_like_model_file(session));
    EXPECT_EQ(a->training.model_path, path);

    auto b = std::make_unique<AppState>();
    const Status s = open_model_file(*b, path);
    ASSERT_TRUE(s.is_ok()) << s.message();
    ui.frames(*b, 1, panel_only(draw_training_panel));
    const TrainingSnapshot& v = b->training.view;
    EXPECT_EQ(v.step, 25);
    EXPECT_EQ(v.first_step, 25);
    EXPECT_EQ(v.config.task, train::TaskKind::Reverse);
    EXPECT_EQ(v.params()->W_U, a->training.view.params()->W_U); // bit-identical
    EXPECT_EQ(v.params()->layers[1].W_V, a->training.view.params()->layers[1].W_V);
    EXPECT_EQ(b->training.probe.weights(3), a->training.probe.weights(3));
    ASSERT_EQ(v.evals.size(), 2u); // the file's history: the points at steps 10 and 20
    EXPECT_EQ(v.evals[1].step, 20);
    EXPECT_FLOAT_EQ(v.evals[1].loss, a->training.view.evals[1].loss);
    EXPECT_TRUE(b->prefs.open[static_cast<std::size_t>(PanelId::Training)]);
    // Training goes on from the file's step.
    b->training_run.step_now(2);
    b->training_run.poll(b->training.view);
    EXPECT_EQ(b->training.view.step, 27);
}

// Where the user was on a model comes back with it: the main panels, the probe, and an earlier timeline step,
// whose frames are rebuilt by replaying the run from its seed and checked against the saved weights.
TEST(TrainingFiles, TheTimelinePositionComesBackByAReplayCheckedBitForBit)
{
    HeadlessUi ui;
    auto a = std::make_unique<AppState>();
    ui.frames(*a, 1, panel_only(draw_training_panel));
    a->training_run.step_now(40);
    ui.frames(*a, 1, panel_only(draw_training_panel));
    a->training.follow_latest = false;
    a->training.shown_step = 20;
    a->training.probe_text = "1 2 3 4 5 6 7 8 | 8 7 6 5 4 3 2";
    a->training.probe_dirty = true;
    set_trained_view(*a, true);
    ui.frames(*a, 1);
    ASSERT_EQ(a->training.probe_error, "");
    const Mat weights_at_20 = a->trace().layers[1].attn.head(0, 0).weights;
    const std::string path = temp_path("reverse-40-view.json");
    ASSERT_TRUE(save_model_file(*a, path).is_ok());

    auto b = std::make_unique<AppState>();
    ASSERT_TRUE(open_model_file(*b, path).is_ok());
    EXPECT_TRUE(b->training.replay_expect != nullptr) << "step 20 < 40: the run replays";
    ASSERT_TRUE(wait_stopped(b->training_run));
    ui.frames(*b, 2);
    EXPECT_TRUE(b->training.replay_expect == nullptr);
    EXPECT_FALSE(b->message_is_error) << b->message;
    EXPECT_TRUE(contains(b->message, "bit for bit")) << b->message;
    EXPECT_EQ(b->training.view.step, 40);
    EXPECT_GE(b->training.view.timeline.size(), 5u); // steps 0, 10, 20, 30, 40
    EXPECT_FALSE(b->training.follow_latest);
    EXPECT_EQ(b->training.shown_step, 20);
    EXPECT_EQ(b->training.probe_text, "1 2 3 4 5 6 7 8 | 8 7 6 5 4 3 2");
    ASSERT_TRUE(b->showing_trained());
    EXPECT_EQ(b->trace().layers[1].attn.head(0, 0).weights, weights_at_20);

    // A file whose weights no replay reaches (one weight changed by hand): the saved model stays, with its
    // one step, and the message says why.
    TrainedModel tampered;
    ASSERT_TRUE(load_model_file(path, &tampered).is_ok());
    tampered.params.W_U(0, 0) += 0.5f;
    ASSERT_TRUE(write_model_file(tampered, path).is_ok());
    auto c = std::make_unique<AppState>();
    ASSERT_TRUE(open_model_file(*c, path).is_ok());
    ASSERT_TRUE(wait_stopped(c->training_run));
    ui.frames(*c, 2);
    EXPECT_TRUE(c->message_is_error);
    EXPECT_TRUE(contains(c->message, "could not be rebuilt")) << c->message;
    EXPECT_EQ(c->training.view.step, 40);
    EXPECT_EQ(c->training.view.timeline.size(), 1u);
    EXPECT_EQ(c->training.view.params()->W_U(0, 0), tampered.params.W_U(0, 0));
}

// The status bar speaks of the picture shown: over the trained model it does not say "showing the last valid
// result" of an invalid session (it said so in red), and once the session shows again the note that the
// trained model is in the main panels gives way.
TEST(TrainingFiles, TheStatusBarSpeaksOfWhatTheMainPanelsShow)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    state->prefs.open[static_cast<std::size_t>(PanelId::Training)] = true;
    ui.frames(*state, 2);
    state->training_run.step_now(10);
    ui.frames(*state, 1);
    state->session.config.d_model = 10; // not divisible by h = 4
    state->edit();
    ui.frames(*state, 2);
    ASSERT_FALSE(state->status.is_ok());
    EXPECT_TRUE(contains(test::window_text("##status"), "showing the last valid result"));

    set_trained_view(*state, true);
    ui.frames(*state, 2);
    EXPECT_TRUE(contains(test::window_text("##status"), "trained model is in the main panels"))
        << test::window_text("##status");
    EXPECT_FALSE(contains(test::window_text("##status"), "last valid result"))
        << test::window_text("##status");

    set_trained_view(*state, false);
    ui.frames(*state, 2);
    EXPECT_TRUE(contains(test::window_text("##status"), "showing the last valid result"));
    EXPECT_FALSE(contains(state->message, "trained model is in the main panels")) << state->message;
    EXPECT_TRUE(contains(state->message, "show the session again")) << state->message;
}

// A session refers to its trained model: Save session writes the model beside it, and opening the session
// opens the model with the main panels as they were; a missing model is a message and the session opens.
TEST(TrainingFiles, ASessionRefersToItsTrainedModel)
{
    HeadlessUi ui;
    auto a = std::make_unique<AppState>();
    ui.frames(*a, 1, panel_only(draw_training_panel));
    a->training_run.step_now(20);
    set_trained_view(*a, true);
    ui.frames(*a, 1);
    const std::string session = temp_path("lecture.json");
    const std::string model = temp_path("lecture.model.json");
    std::filesystem::remove(model);
    ASSERT_TRUE(save_session_as(*a, session).is_ok());
    ASSERT_TRUE(std::filesystem::exists(model)) << "the model is saved beside the session";
    Session written;
    ASSERT_TRUE(load_session_file(session, &written).is_ok());
    EXPECT_EQ(written.model_path, "lecture.model.json") << "relative to the session's folder";

    auto b = std::make_unique<AppState>();
    ASSERT_TRUE(open_session_file(*b, session).is_ok());
    ui.frames(*b, 2);
    EXPECT_FALSE(b->message_is_error) << b->message;
    EXPECT_EQ(b->training.view.step, 20);
    EXPECT_EQ(b->training.view.params()->W_U, a->training.view.params()->W_U);
    EXPECT_TRUE(b->showing_trained());
    EXPECT_FALSE(quit_would_lose_model(*b, ModelAutosave{}))
        << "the model is its file: quitting loses nothing";

    std::filesystem::remove(model);
    auto c = std::make_unique<AppState>();
    ASSERT_TRUE(open_session_file(*c, session).is_ok()) << "the session opens without its model";
    EXPECT_TRUE(c->message_is_error);
    EXPECT_TRUE(contains(c->message, "trained model " + model + " did not open")) << c->message;
    EXPECT_FALSE(c->training_run.configured());
}

// Opening a trained model or a built-in one over a run no file holds asks first (its weights were replaced
// with no word, and the model autosave then followed the model opened): Cancel keeps the run, Save writes it
// then opens, Discard opens. A run already in a file, or a file that cannot be read, asks nothing.
TEST(TrainingFiles, OpeningAModelOverARunInNoFileAsksFirst)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 1, panel_only(draw_training_panel));
    state->training_run.step_now(20);
    ui.frames(*state, 1, panel_only(draw_training_panel));
    ASSERT_TRUE(model_in_no_file(*state));
    const auto w_u = state->training.view.params()->W_U;

    // A file that cannot be read: an error, no question, the run stays.
    EXPECT_FALSE(request_open_model(*state, temp_path("no_such.model.json")).is_ok());
    EXPECT_FALSE(state->replace_model.waiting());

    // The built-in model waits for the answer; Cancel keeps the run.
    ASSERT_TRUE(request_open_model(*state, std::string(), "austen").is_ok());
    ASSERT_TRUE(state->replace_model.waiting());
    EXPECT_TRUE(contains(state->replace_model.model_name, "step 20")) << state->replace_model.model_name;
    EXPECT_EQ(state->training.view.params()->W_U, w_u) << "nothing replaced while the question is asked";
    ui.frames(*state, 2);
    EXPECT_TRUE(contains(test::window_text("Unsaved trained model###replace_model"), "is in no file"));
    ASSERT_TRUE(answer_replace_model(*state, UnsavedAnswer::Cancel).is_ok());
    EXPECT_FALSE(state->replace_model.waiting());
    EXPECT_EQ(state->training.view.step, 20);
    EXPECT_EQ(state->training.view.params()->W_U, w_u);

    // Save, to a folder that does not exist: the question stays with the error, the run stays.
    ASSERT_TRUE(request_open_model(*state, std::string(), "austen").is_ok());
    state->replace_model.save_path = temp_path("no_folder/run.model.json");
    EXPECT_FALSE(answer_replace_model(*state, UnsavedAnswer::Save).is_ok());
    EXPECT_TRUE(state->replace_model.waiting());
    EXPECT_FALSE(state->replace_model.error.empty());
    EXPECT_EQ(state->training.view.params()->W_U, w_u);

    // Save to a good path: the run is in that file, then the built-in model opens.
    const std::string kept = temp_path("kept_run.model.json");
    std::filesystem::remove(kept);
    state->replace_model.save_path = kept;
    ASSERT_TRUE(answer_replace_model(*state, UnsavedAnswer::Save).is_ok()) << state->message;
    EXPECT_FALSE(state->replace_model.waiting());
    TrainedModel saved;
    ASSERT_TRUE(load_model_file(kept, &saved).is_ok());
    EXPECT_EQ(saved.steps_taken, 20);
    EXPECT_NE(state->training.view.step, 20) << "the built-in model is open";
    EXPECT_TRUE(contains(state->message, "Saved the trained model to " + kept)) << state->message;

    // The built-in model is its own asset: opening the saved run over it asks nothing.
    EXPECT_FALSE(model_in_no_file(*state));
    ASSERT_TRUE(request_open_model(*state, kept).is_ok());
    EXPECT_FALSE(state->replace_model.waiting());
    EXPECT_EQ(state->training.view.step, 20);

    // A few more steps: in no file again, and Discard opens the other model.
    state->training_run.step_now(5);
    ui.frames(*state, 1, panel_only(draw_training_panel));
    ASSERT_TRUE(model_in_no_file(*state));
    ASSERT_TRUE(request_open_model(*state, std::string(), "austen").is_ok());
    ASSERT_TRUE(state->replace_model.waiting());
    ASSERT_TRUE(answer_replace_model(*state, UnsavedAnswer::Discard).is_ok());
    EXPECT_FALSE(state->replace_model.waiting());
    EXPECT_FALSE(model_in_no_file(*state));
}

// The head score shown is the task's own whenever its model opens or its task is chosen, whatever was shown
// before: a Reverse model restored at start-up showed the previous-token curve (the default) under maps
// titled "anti-diag", and a later launch disagreed with the first.
TEST(TrainingFiles, TheHeadScoreIsTheTasksOwnWhenAModelOpensOrItsTaskIsChosen)
{
    const int anti_diagonal = static_cast<int>(train::HeadScoreKind::AntiDiagonal);
    ASSERT_EQ(static_cast<int>(train::task_info(train::TaskKind::Reverse).score), anti_diagonal);
    HeadlessUi ui;
    auto a = std::make_unique<AppState>();
    open_training(*a, train::TaskKind::Reverse, 12);
    ASSERT_TRUE(a->training.error.empty()) << a->training.error;
    EXPECT_EQ(a->training.score_kind, anti_diagonal);
    ModelAutosave autosave;
    autosave.path = temp_path("score_kind_model.json");
    std::filesystem::remove(autosave.path);
    ASSERT_TRUE(model_autosave_tick(*a, autosave, true));

    // The next launch: fresh state, the autosaved model restored, and so on again; each time anti-diagonal,
    // also when the state held another score (a lesson's, or the combo's) before.
    for (const int before : {0, 1, 2, anti_diagonal})
    {
        auto next = std::make_unique<AppState>();
        next->training.score_kind = before;
        ModelAutosave again;
        again.path = autosave.path;
        ASSERT_TRUE(restore_model_autosave(*next, again, false).is_ok());
        EXPECT_EQ(next->training.score_kind, anti_diagonal) << "was " << before;
        // And the curve it shows is the run's: the file keeps the anti-diagonal scores (it kept only
        // previous-token and induction, so a reopened Reverse run read "anti-diag 0.00").
        next->training_run.poll(next->training.view);
        const std::vector<TrainingEval>& had = a->training.view.evals;
        const std::vector<TrainingEval>& has = next->training.view.evals;
        ASSERT_EQ(has.size(), had.size());
        ASSERT_FALSE(has.empty());
        for (std::size_t k = 0; k < had.back().heads.size(); ++k)
        {
            EXPECT_GT(had.back().heads[k].anti_diagonal, 0.0);
            EXPECT_FLOAT_EQ(static_cast<float>(has.back().heads[k].anti_diagonal),
                            static_cast<float>(had.back().heads[k].anti_diagonal));
            EXPECT_FLOAT_EQ(static_cast<float>(has.back().heads[k].diagonal),
                            static_cast<float>(had.back().heads[k].diagonal));
        }
        const auto out = ui.frames(*next, 2, panel_only(draw_training_panel));
        EXPECT_TRUE(contains(out.text, "head scores: anti-diagonal")) << out.text;
        // The task chosen again (--train reverse) while its run is on screen: still its own score.
        next->training.score_kind = 0;
        open_training(*next, train::TaskKind::Reverse, 0);
        EXPECT_EQ(next->training.score_kind, anti_diagonal);
    }
    std::filesystem::remove(autosave.path);
}

TEST(TrainingFiles, ABrokenModelFileIsAMessageAndTheRunStays)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 1, panel_only(draw_training_panel));
    state->training_run.step_now(3);
    ui.frames(*state, 1, panel_only(draw_training_panel));
    // A saved model cut in the middle, as a full disk or a killed program leaves it.
    const std::string path = temp_path("broken-model.json");
    ASSERT_TRUE(save_model_file(*state, path).is_ok());
    std::string text;
    {
        std::ifstream in(path, std::ios::binary);
        text.assign(std::istreambuf_iterator<char>(in), {});
    }
    {
        std::ofstream f(path, std::ios::binary | std::ios::trunc);
        f << text.substr(0, text.size() / 2);
    }
    state->training_run.step_now(2);
    const Status s = open_model_file(*state, path);
    EXPECT_FALSE(s.is_ok());
    EXPECT_TRUE(contains(s.message(), path + ": the file is incomplete: its JSON stops at line "))
        << s.message();
    EXPECT_TRUE(contains(s.message(), "cut off while it was being saved")) << s.message();
    EXPECT_FALSE(contains(s.message(), "json.exception")) << s.message();
    state->training_run.poll(state->training.view);
    EXPECT_EQ(state->training.view.step, 5); // the run on screen stays
    EXPECT_EQ(state->training.view.config.task, train::TaskKind::Reverse);
    EXPECT_FALSE(open_model_file(*state, temp_path("no-such-model.json")).is_ok());
}

// Saving into a folder that takes no files names the folder, says it cannot be written and what to do: the
// model, the curves (CSV and PNG) and the session alike.
TEST(TrainingFiles, AnUnwritableFolderSaysSoAndWhatToDo)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 1, panel_only(draw_training_panel));
    state->training_run.step_now(10);
    ui.frames(*state, 1, panel_only(draw_training_panel));
    const std::string target = "/proc/attnlab-cannot-write-here";
    const Status results[] = {
        save_model_file(*state, target + ".json"),
        write_curves_csv(state->training.view, target + ".csv"),
        export_curves_png(state->training.view, 100, target + ".png"),
        save_session_as(*state, target + ".session.json"),
    };
    for (const Status& r : results)
    {
        EXPECT_FALSE(r.is_ok());
        EXPECT_TRUE(contains(r.message(), "cannot write " + target)) << r.message();
        EXPECT_TRUE(contains(r.message(), "the folder /proc cannot be written")) << r.message();
        EXPECT_TRUE(contains(r.message(), "pick another folder")) << r.message();
        EXPECT_FALSE(contains(r.message(), "does not exist")) << r.message();
    }
}

TEST(TrainingFiles, CurvesCsvHasAHeaderAndOneRowPerPoint)
{
    TrainingRun run;
    ASSERT_TRUE(run.configure(small_reverse(100)).is_ok());
    TrainingSnapshot s;
    run.poll(s);
    EXPECT_FALSE(write_curves_csv(s, temp_path("empty.csv")).is_ok()); // no points yet: a message
    run.step_now(30);
    run.poll(s);
    const std::string csv = curves_csv(s);
    std::istringstream in(csv);
    std::string header, line;
    std::getline(in, header);
    EXPECT_EQ(header.rfind(
                  "step,train_loss,held_out_loss,held_out_accuracy,L1h1_previous_token,L1h1_induction,", 0),
              0u)
        << header;
    EXPECT_TRUE(contains(header, "L2h2_anti_diagonal")) << header;
    int rows = 0;
    while (std::getline(in, line))
    {
        ++rows;
        // 4 columns, then 4 scores for each of the 4 heads.
        EXPECT_EQ(std::count(line.begin(), line.end(), ','), 4 + 16 - 1) << line;
    }
    EXPECT_EQ(rows, 3);
    EXPECT_EQ(csv.substr(header.size() + 1, 3), "10,");
    EXPECT_TRUE(write_curves_csv(s, temp_path("curves.csv")).is_ok());
}

TEST(TrainingFiles, CurvesPictureHasTheRunsCurvesOnWhite)
{
    TrainingRun run;
    ASSERT_TRUE(run.configure(small_reverse(100)).is_ok());
    TrainingSnapshot s;
    run.poll(s);
    EXPECT_FALSE(export_curves_png(s, 100, temp_path("none.png")).is_ok()); // nothing trained yet
    run.step_now(40);
    run.reset(); // an earlier run, overlaid
    run.step_now(60);
    run.poll(s);
    const Image img = render_curves_image(s, 100);
    ASSERT_EQ(img.width, 1800);
    // Title, three plots and the legends under them (at least a line each).
    EXPECT_GT(img.height, 110 + 460 + 16 + 26);
    long vermilion = 0, white = 0;
    for (const Color32 p : img.pixels)
    {
        const int r = static_cast<int>(p & 0xFF), g = static_cast<int>((p >> 8) & 0xFF),
                  b = static_cast<int>((p >> 16) & 0xFF);
        vermilion += r > 190 && g > 70 && g < 130 && b < 60;
        white += r == 255 && g == 255 && b == 255;
    }
    EXPECT_GT(vermilion, 500) << "this run's held-out curves";
    EXPECT_GT(white, static_cast<long>(img.pixels.size()) / 2);
    const std::string path = temp_path("curves.png");
    ASSERT_TRUE(export_curves_png(s, 100, path).is_ok());
    EXPECT_GT(std::filesystem::file_size(path), 1000u);
}

// The curves picture names what it draws: a legend entry per head (with its score), the training and the
// held-out loss in two different colours, both axes titled with several step ticks, and the task's own head
// score whatever the panel's selector held.
TEST(TrainingFiles, CurvesPictureHasALegendPerHeadTwoLossColoursAndTheTasksScore)
{
    TrainingRun run;
    ASSERT_TRUE(run.configure(small_reverse(100)).is_ok());
    run.step_now(60);
    TrainingSnapshot s;
    run.poll(s);
    ASSERT_FALSE(s.evals.empty());
    EXPECT_EQ(curves_export_score(s), train::task_info(train::TaskKind::Reverse).score);
    const std::string svg = svg_document(render_curves_image(s, 100));
    const auto has = [&](const std::string& text) { return svg.find(">" + text) != std::string::npos; };

    // The task's score (anti-diagonal for reverse), not previous-token.
    const std::string score = train::head_score_info(train::HeadScoreKind::AntiDiagonal).name;
    EXPECT_TRUE(has(std::string("head scores: ") + score)) << score;
    EXPECT_FALSE(
        has(std::string("head scores: ") + train::head_score_info(train::HeadScoreKind::PreviousToken).name));
    // One entry per head, each with its score at the last evaluation.
    const int h = s.model.n_heads;
    ASSERT_GT(s.model.n_layers * h, 1);
    for (int k = 0; k < s.model.n_layers * h; ++k)
    {
        const train::HeadScores* at = held_out_scores_at(s, s.evals.back().step, k);
        ASSERT_NE(at, nullptr);
        char entry[64];
        std::snprintf(entry, sizeof entry, "layer %d head %d %.2f", k / h + 1, k % h + 1,
                      train::head_score(*at, train::HeadScoreKind::AntiDiagonal));
        EXPECT_TRUE(has(entry)) << entry;
    }
    // Training and held-out loss both named, in colours that differ (not one colour at two alphas).
    EXPECT_TRUE(has("training loss"));
    EXPECT_TRUE(has("held-out loss"));
    const TrainingCurves c = training_curves(s, 100, 0);
    const CurveSeries* training = nullptr;
    const CurveSeries* held = nullptr;
    for (const CurveSeries& series : c.loss.series)
    {
        if (series.label == "training loss")
            training = &series;
        if (series.label == "held-out loss")
            held = &series;
    }
    ASSERT_NE(training, nullptr);
    ASSERT_NE(held, nullptr);
    EXPECT_NE(training->color & 0x00FFFFFFu, held->color & 0x00FFFFFFu);
    // Both axes titled; the step axis ticked at several round steps, not only its ends.
    EXPECT_TRUE(has("training step"));
    EXPECT_TRUE(has("loss (nats)"));
    EXPECT_TRUE(has("head score"));
    int step_ticks = 0;
    for (const int step : {10, 20, 25, 30, 40, 50, 60})
        step_ticks += has(std::to_string(step) + "<");
    EXPECT_GE(step_ticks, 3);
}

// The curves picture names the steepest drop in the loss plot's key, on its title line as the window does,
// not inside the axes over the data.
TEST(TrainingFiles, CurvesPictureNamesTheSteepestDropInTheKeyNotOverTheData)
{
    TrainingRun run;
    ASSERT_TRUE(run.configure(small_reverse(100)).is_ok());
    run.step_now(100);
    TrainingSnapshot s;
    run.poll(s);
    ASSERT_TRUE(training_curves(s, 100, 0).has_drop) << "a run with a steepest drop";
    const std::string svg = svg_document(render_curves_image(s, 100));
    // render_curves_image: the plots' tops at y = 110, their axes 34 pixels under them.
    const float axes_top = 110.0f + 34.0f;
    int named = 0;
    for (std::size_t at = svg.find(">steepest drop<"); at != std::string::npos;
         at = svg.find(">steepest drop<", at + 1))
    {
        ++named;
        const std::size_t open = svg.rfind("<text", at);
        ASSERT_NE(open, std::string::npos);
        const std::size_t y = svg.find(" y=\"", open);
        ASSERT_LT(y, at);
        EXPECT_LT(std::stof(svg.substr(y + 4)), axes_top) << svg.substr(open, at - open);
    }
    EXPECT_EQ(named, 1) << "named once, in the key";
    EXPECT_NE(svg.find(">loss (log"), std::string::npos) << "the key's line starts with the plot's name";
    EXPECT_EQ(svg.find("shaded: steepest drop"), std::string::npos) << "not named twice";
}

TEST(TrainingFiles, TheModelAutosaveKeepsATrainedModelForTheNextStart)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    ModelAutosave autosave;
    autosave.path = temp_path("last_model.json");
    std::filesystem::remove(autosave.path);
    ui.frames(*state, 1, panel_only(draw_training_panel));
    EXPECT_FALSE(model_autosave_tick(*state, autosave, false)); // step 0: nothing worth keeping
    state->training_run.step_now(12);
    EXPECT_TRUE(model_autosave_tick(*state, autosave, false));
    EXPECT_FALSE(model_autosave_tick(*state, autosave, false)); // the same step: not again
    state->training_run.step_now(1);
    EXPECT_TRUE(model_autosave_tick(*state, autosave, true));

    auto next = std::make_unique<AppState>();
    ModelAutosave again;
    again.path = autosave.path;
    ASSERT_TRUE(restore_model_autosave(*next, again, false).is_ok());
    next->training_run.poll(next->training.view);
    EXPECT_EQ(next->training.view.step, 13);
    EXPECT_FALSE(
        next->prefs.open[static_cast<std::size_t>(PanelId::Training)]); // not shown when asked not to
    ModelAutosave none;
    none.path = temp_path("never-written.json");
    EXPECT_TRUE(restore_model_autosave(*next, none, true).is_ok()); // no file: nothing, no error
}

// [SECTION] Lessons on trained models

const char* kTrainingLesson = R"({
    "format": "attnlab-lesson", "version": 1, "title": "t",
    "training": {"task": "copy", "seed": 2, "steps": 30, "compare": [{"heads": 1, "d_model": 16, "steps": 20}]},
    "steps": [
        {"text": "step 0", "training": {"show_step": 0}},
        {"text": "step 10, output", "training": {"show_step": 10, "map": "output", "probe": "1 2 3 4 5 6 7 8 | 1 2"}},
        {"text": "the end", "training": {"score": "diagonal"}}
    ]
})";

TEST(TrainingLessons, AStepTrainsItsRunsOnceAndShowsItsStepMapsAndProbe)
{
    Lesson lesson;
    const Status parsed = parse_lesson(kTrainingLesson, "t.json", &lesson);
    ASSERT_TRUE(parsed.is_ok()) << parsed.message();
    ASSERT_EQ(lesson.steps.size(), 3u);
    EXPECT_EQ(lesson.steps[0].view, LessonView::Training);
    EXPECT_EQ(lesson.steps[1].training.run.steps, 30); // the lesson's run, patched by the step
    EXPECT_EQ(lesson.steps[1].training.compare.size(), 1u);

    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    state->mouse_ignored = true; // as for pictures: the runs are trained before the frame
    state->lesson.library.lessons.push_back(lesson);
    enter_lesson(*state, 0, 0);
    ui.frames(*state, 1);
    TrainingPanelState& ts = state->training;
    EXPECT_TRUE(state->prefs.open[static_cast<std::size_t>(PanelId::Training)]);
    EXPECT_EQ(ts.view.step, 30);
    EXPECT_EQ(ts.view.config.task, train::TaskKind::Copy);
    ASSERT_EQ(ts.view.past.size(), 1u); // the compared run, its curves kept beside this one
    EXPECT_EQ(ts.view.past[0].loss.size(), 20u);
    EXPECT_TRUE(contains(ts.view.past[0].label, "h = 1, d_model = 16")) << ts.view.past[0].label;
    EXPECT_FALSE(ts.follow_latest);
    EXPECT_EQ(ts.probe.T(), 16); // the task's default probe
    // At step 0 the head scores have no evaluation yet: the plot says so, its axes are not left bare.
    EXPECT_TRUE(contains(ui.frames(*state, 1).text, "no values up to step 0"));

    const unsigned long long version = ts.view.version;
    go_to_step(*state, 1);
    auto out = ui.frames(*state, 1);
    EXPECT_EQ(ts.view.version, version) << "the same runs are not trained again";
    EXPECT_TRUE(contains(out.text, "weights at step 10")) << out.text;
    EXPECT_EQ(ts.map_kind, 2);
    EXPECT_EQ(ts.probe.T(), 11); // the step's own probe
    EXPECT_TRUE(contains(out.text, "probabilities (T×V)")) << out.text;

    go_to_step(*state, 2);
    out = ui.frames(*state, 1);
    EXPECT_TRUE(ts.follow_latest);
    EXPECT_EQ(ts.score_kind, 2);
    EXPECT_TRUE(contains(out.text, "weights at step 30")) << out.text;
}

// In the window a lesson's runs train on the worker one after the other (the compared ones first), so the
// frames go on while they train; the result is the same as training them before the frame.
TEST(TrainingLessons, InTheWindowTheRunsTrainOnTheWorkerInTurn)
{
    Lesson lesson;
    ASSERT_TRUE(parse_lesson(kTrainingLesson, "t.json", &lesson).is_ok());
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    state->lesson.library.lessons.push_back(lesson);
    enter_lesson(*state, 0, 0);
    TrainingPanelState& ts = state->training;
    EXPECT_EQ(ts.lesson_queue.size(), 1u) << "the compared run trains first, the lesson's own waits";
    EXPECT_TRUE(state->training_run.running());
    // While the compared run trains, the curves at the step's position (step 0) show it as it goes: cut at
    // step 0 they were empty axes.
    bool compared_curves_seen = false;
    for (int i = 0; i < 6000 && (!ts.lesson_queue.empty() || state->training_run.running()); ++i)
    {
        state->training_run.poll(ts.view); // before the frame, which starts the next run once this one ends
        if (!ts.lesson_queue.empty() && ts.view.step > 0)
        {
            const TrainingCurves c = shown_training_curves(ts, 0);
            ASSERT_FALSE(c.loss.series.empty());
            EXPECT_FALSE(c.loss.series.back().points.empty()) << "the training loss at step " << ts.view.step;
            compared_curves_seen = true;
        }
        ui.frames(*state, 1);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_TRUE(compared_curves_seen) << "the compared run was never seen training";
    ui.frames(*state, 1);
    EXPECT_TRUE(ts.lesson_queue.empty());
    EXPECT_EQ(ts.view.step, 30);
    EXPECT_EQ(ts.view.config.task, train::TaskKind::Copy);
    ASSERT_EQ(ts.view.past.size(), 1u);
    EXPECT_EQ(ts.view.past[0].loss.size(), 20u);
    EXPECT_TRUE(contains(ts.view.past[0].label, "h = 1, d_model = 16")) << ts.view.past[0].label;
    EXPECT_FALSE(ts.follow_latest) << "the step's timeline position survives the runs";

    // The same runs trained before the frame (as for pictures) give the same weights, bit for bit.
    auto shot = std::make_unique<AppState>();
    shot->mouse_ignored = true;
    shot->lesson.library.lessons.push_back(lesson);
    enter_lesson(*shot, 0, 0);
    EXPECT_EQ(shot->training.view.params()->W_U, ts.view.params()->W_U);
}

// The user's own run is set aside while a lesson trains its runs, and comes back when it is left.
TEST(TrainingLessons, LeavingTheLessonGivesTheUsersOwnRunBack)
{
    Lesson lesson;
    ASSERT_TRUE(parse_lesson(kTrainingLesson, "t.json", &lesson).is_ok());
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    state->mouse_ignored = true;
    ui.frames(*state, 1, panel_only(draw_training_panel));
    state->training_run.step_now(7); // the user's own reverse run
    ui.frames(*state, 1, panel_only(draw_training_panel));
    const Mat user_W_U = state->training.view.params()->W_U;
    state->lesson.library.lessons.push_back(lesson);
    enter_lesson(*state, 0, 0);
    ui.frames(*state, 1);
    EXPECT_EQ(state->training.view.config.task, train::TaskKind::Copy);
    // The legend's earlier runs are the lesson's compared runs in order, so compare[i] always has the colour
    // past_run_color_name(i): the user's own run is set aside, not among them.
    const std::vector<train::RunSpec>& compare = lesson.steps[0].training.compare;
    ASSERT_EQ(state->training.view.past.size(), compare.size());
    for (std::size_t i = 0; i < compare.size(); ++i)
        EXPECT_EQ(state->training.view.past[i].label, compare[i].label()) << i;
    EXPECT_STREQ(past_run_color_name(0), "grey");
    leave_lesson(*state);
    // Its timeline comes back by a replay from the seed, on the worker; the frames go on meanwhile.
    for (int i = 0; i < 6000 && (state->training_run.running() || state->training.replay_expect != nullptr);
         ++i)
    {
        ui.frames(*state, 1);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ui.frames(*state, 1);
    const TrainingSnapshot& v = state->training.view;
    EXPECT_EQ(v.config.task, train::TaskKind::Reverse);
    EXPECT_EQ(v.step, 7);
    EXPECT_EQ(v.params()->W_U, user_W_U);
    EXPECT_FALSE(state->training.user_run_kept);
    EXPECT_TRUE(v.past.empty()) << "the lesson's runs are not in the user's legend";
    EXPECT_GT(v.timeline.size(), 1u) << "the user's timeline, not the one frame of an opened model";
}

// A built-in lesson's text that names an earlier run's colour ("the grey curves") names a compared run that
// exists, and says what sets it apart as the legend does (a part of its label the lesson's own run lacks).
TEST(TrainingLessons, ColoursNamedInLessonTextsAreTheComparedRunsTheyDescribe)
{
    const LessonLibrary library = load_lessons(default_lessons_dir());
    int named = 0;
    for (const Lesson& lesson : library.lessons)
        for (const LessonStep& step : lesson.steps)
            for (std::size_t i = 0; i < static_cast<std::size_t>(TrainingRun::kKeptRuns); ++i)
            {
                const std::string colour = past_run_color_name(i);
                if (!contains(step.text, colour + " curve"))
                    continue;
                ++named;
                ASSERT_TRUE(step.training.on) << lesson.id << ": " << step.title;
                ASSERT_LT(i, step.training.compare.size())
                    << lesson.id << ": \"" << step.title << "\" names the " << colour << " curves";
                const std::string label = step.training.compare[i].label();
                const std::string own = step.training.run.label() + ", ";
                bool told_apart = false;
                for (std::size_t at = 0; at < label.size();)
                {
                    std::size_t end = label.find(", ", at);
                    end = end == std::string::npos ? label.size() : end;
                    const std::string part = label.substr(at, end - at);
                    if (!contains(own, part + ", ") && contains(step.text, part))
                        told_apart = true;
                    at = end + 2;
                }
                EXPECT_TRUE(told_apart) << lesson.id << ": \"" << step.title << "\" names the " << colour
                                        << " curves without what the legend says of them: " << label;
            }
    EXPECT_GT(named, 0) << "no built-in lesson names an earlier run's colour: this check checks nothing";
}

TEST(TrainingPanel, RefusedFieldsTrainNothingAndTheMessageGoesWhenTheyChange)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 1, panel_only(draw_training_panel));
    TrainingPanelState& ts = state->training;
    ts.edit.lr = 0.0f;
    ts.edit.steps = 3;
    auto out = ui.frames(*state, 1, panel_only(draw_training_panel));
    EXPECT_TRUE(contains(out.text, "Changed: Play, Step or Reset")) << out.text;
    state->training.step_count = 3;
    // Step with a refused learning rate: a message, and no step on the old model.
    ts.edit.n_heads = 5; // 48 is not a multiple of 5
    ts.edit.lr = 1e-3f;
    ASSERT_FALSE(state->training_run.configure(ts.edit).is_ok());
    ts.error = "refused";
    ts.error_for = ts.edit;
    out = ui.frames(*state, 1, panel_only(draw_training_panel));
    EXPECT_TRUE(contains(out.text, "refused (the run on screen")) << out.text;
    ts.edit.n_heads = 4; // fixed: the stale message goes
    out = ui.frames(*state, 1, panel_only(draw_training_panel));
    EXPECT_FALSE(contains(out.text, "refused")) << out.text;
    EXPECT_TRUE(ts.error.empty());
}

// Play (Space) at the target step goes on for the preset's length and says so under the progress bar.
TEST(TrainingPanel, PlayAtTheTargetGoesOnForThePresetsLengthAndSaysSo)
{
    HeadlessUi ui;
    ImGui::GetIO().KeyMap[ImGuiKey_Space] = 32; // as GLFW_KEY_SPACE
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 1, panel_only(draw_training_panel));
    TrainingPanelState& ts = state->training;
    ts.edit.steps = 20;
    state->training_run.set_target_steps(20);
    state->training_run.step_now(20);
    auto out = ui.frames(*state, 1, panel_only(draw_training_panel));
    EXPECT_TRUE(contains(out.text, "step 20 / 20")) << out.text;

    ui.press_key(*state, 32, false, false, panel_only(draw_training_panel));
    const int preset = train::RunSpec(train::TaskKind::Reverse).steps;
    EXPECT_EQ(ts.edit.steps, 20 + preset);
    ASSERT_TRUE(wait_stopped(state->training_run));
    out = ui.frames(*state, 2, panel_only(draw_training_panel));
    EXPECT_EQ(ts.view.step, 20 + preset);
    const std::string said = "Step 20 had reached the target of 20 steps: Play goes on for " +
                             std::to_string(preset) + " more, to step " + std::to_string(20 + preset);
    EXPECT_TRUE(contains(unwrapped(out.text), said)) << out.text;
    // Reset starts over: the note about the old target goes.
    state->training_run.reset();
    ts.notice.clear();
    out = ui.frames(*state, 1, panel_only(draw_training_panel));
    EXPECT_FALSE(contains(out.text, "had reached the target")) << out.text;
}

// The main panels never show a diverged step's NaN: they keep the last finite step, or the session.
TEST(TrainingPanel, MainPanelsKeepTheLastFiniteStep)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 1, panel_only(draw_training_panel));
    state->training_run.step_now(10);
    set_trained_view(*state, true);
    ui.frames(*state, 1);
    ASSERT_TRUE(state->showing_trained());
    const Mat finite = state->trace().probs[0];
    ASSERT_TRUE(finite.allFinite());

    TrainedModel model = state->training.view.trained_model();
    model.params.W_U.setConstant(3e38f);
    ASSERT_TRUE(open_trained_model(*state, model).is_ok());
    ui.frames(*state, 2);
    EXPECT_TRUE(state->showing_trained());
    EXPECT_EQ(state->trace().probs[0], finite) << "the last finite step stays";
    EXPECT_TRUE(state->message_is_error);
    EXPECT_TRUE(contains(state->message, "not finite")) << state->message;

    // Nothing finite shown yet: the session comes back instead.
    auto fresh = std::make_unique<AppState>();
    ui.frames(*fresh, 1, panel_only(draw_training_panel));
    ASSERT_TRUE(open_trained_model(*fresh, model).is_ok());
    set_trained_view(*fresh, true);
    ui.frames(*fresh, 2);
    EXPECT_FALSE(fresh->showing_trained());
    EXPECT_FALSE(fresh->trace().trained);
}

// Weights so large that the logits overflow: the loss is NaN from the first step, as after a too-high rate.
TEST(TrainingPanel, ADivergedRunPausesSaysWhatToDoAndDrawsNoNaN)
{
    HeadlessUi ui;
    ImGui::GetIO().KeyMap[ImGuiKey_Space] = 32; // as GLFW_KEY_SPACE
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 1, panel_only(draw_training_panel));
    state->training_run.step_now(10);
    ui.frames(*state, 1, panel_only(draw_training_panel));
    TrainedModel model = state->training.view.trained_model();
    model.params.W_U.setConstant(3e38f);
    ASSERT_TRUE(open_trained_model(*state, model).is_ok());
    state->training_run.step_now(30);
    auto out = ui.frames(*state, 2, panel_only(draw_training_panel));
    const TrainingSnapshot& v = state->training.view;
    EXPECT_EQ(v.diverged_at, 11);
    EXPECT_EQ(v.step, 11) << "no step after the one that diverged";
    for (const char* text : {"The run diverged at step 11", "Lower the learning rate", "Reset",
                             "The maps at step 11 are not drawn"})
        EXPECT_TRUE(contains(unwrapped(out.text), text)) << text << "\n" << out.text;
    EXPECT_FALSE(contains(out.text, "nan")) << out.text;
    EXPECT_FALSE(contains(out.text, "NaN (")) << out.text;
    EXPECT_TRUE(out.textures.empty()) << "no map of NaN weights";

    // Play refuses to train NaN weights on (the message stays); the worker never starts.
    ui.press_key(*state, 32, false, false, panel_only(draw_training_panel));
    EXPECT_FALSE(state->training_run.running());
    state->training_run.poll(state->training.view);
    EXPECT_EQ(state->training.view.step, 11);

    // The worker stops by itself too, and says why.
    ASSERT_TRUE(open_trained_model(*state, model).is_ok());
    state->training_run.set_target_steps(100);
    state->training_run.play();
    ASSERT_TRUE(wait_stopped(state->training_run));
    TrainingSnapshot s;
    state->training_run.poll(s);
    EXPECT_EQ(s.diverged_at, 11);
    EXPECT_TRUE(contains(s.stopped_because, "diverged at step 11")) << s.stopped_because;

    // Reset: finite weights again, the message goes, the maps come back.
    state->training_run.reset();
    out = ui.frames(*state, 2, panel_only(draw_training_panel));
    EXPECT_EQ(state->training.view.diverged_at, -1);
    EXPECT_FALSE(contains(out.text, "diverged")) << out.text;
    EXPECT_FALSE(out.textures.empty());
}

// The progress bar's text reads on its fill and on the empty frame, in the dark and the light theme.
TEST(TrainingPanel, ProgressTextReadsOnTheFillInBothThemes)
{
    for (const bool dark : {true, false})
    {
        HeadlessUi ui;
        auto state = std::make_unique<AppState>();
        state->prefs.dark_theme = dark;
        ui.frames(*state, 1, panel_only(draw_training_panel));
        state->training.edit.steps = 20;
        state->training_run.set_target_steps(20);
        state->training_run.step_now(20); // a full bar: the text lies on the fill
        const auto out = ui.frames(*state, 2, panel_only(draw_training_panel));
        ASSERT_TRUE(contains(out.text, "step 20 / 20")) << out.text;
        const ImU32 fill = ImGui::GetColorU32(ImGuiCol_PlotHistogram);
        const auto it = out.shape_points.find(fill);
        ASSERT_NE(it, out.shape_points.end()) << "the bar's fill";
        ImVec2 lo(1e9f, 1e9f), hi(-1e9f, -1e9f);
        for (const ImVec2& q : it->second)
        {
            lo = ImVec2(std::min(lo.x, q.x), std::min(lo.y, q.y));
            hi = ImVec2(std::max(hi.x, q.x), std::max(hi.y, q.y));
        }
        int glyph_points = 0;
        for (const auto& [colour, points] : out.shape_points)
        {
            if (colour == fill)
                continue;
            for (const ImVec2& q : points)
                if (q.x > lo.x + 1 && q.x < hi.x - 1 && q.y > lo.y + 1 && q.y < hi.y - 1)
                {
                    ++glyph_points;
                    EXPECT_GE(contrast_ratio(colour, fill), 4.5f)
                        << (dark ? "dark" : "light") << " theme: text colour " << std::hex << colour
                        << " on fill " << fill;
                    break;
                }
        }
        EXPECT_GT(glyph_points, 0) << "the text is drawn on the fill";
        // Over the empty frame (step 0 of a new run) the text keeps the theme's colour, which reads there.
        const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
        const ImU32 frame = ImGui::GetColorU32(ImGuiCol_WindowBg);
        EXPECT_GE(contrast_ratio(text, frame), 4.5f);
    }
}

// On the light themes' backgrounds (the window's, presenter mode's view) the curves that were faint on white
// are drawn darker: a fourth head's yellow, an earlier run's dimmed grey (as drawn, over the background) and
// the steepest drop's name, each at least 3:1 (the name, text, 4.5:1); the dark themes keep their colours.
TEST(TrainingPanel, TheLightThemesCurvesHaveContrastOnTheirBackground)
{
    const auto over = [](Color32 c, Color32 bg) // c composited over bg at its alpha, as it shows
    {
        const float a = static_cast<float>(c >> 24) / 255.0f;
        const auto ch = [&](int shift)
        {
            return static_cast<std::uint8_t>(
                std::lround(static_cast<float>((c >> shift) & 0xFFu) * a +
                            static_cast<float>((bg >> shift) & 0xFFu) * (1.0f - a)));
        };
        return pack_rgba(ch(0), ch(8), ch(16));
    };
    HeadlessUi ui;
    std::vector<Color32> light;
    apply_theme(false, 1.0f); // the window's light theme (panel_only draws without the frame that applies it)
    light.push_back(ImGui::GetColorU32(ImGuiCol_WindowBg) | 0xFF000000u);
    float rgba[4];
    presenter_view_background(false, rgba);
    light.push_back(pack_rgba(static_cast<std::uint8_t>(std::lround(rgba[0] * 255.0f)),
                              static_cast<std::uint8_t>(std::lround(rgba[1] * 255.0f)),
                              static_cast<std::uint8_t>(std::lround(rgba[2] * 255.0f))));
    for (const Color32 bg : light)
    {
        ASSERT_GT(contrast_ratio(bg, pack_rgba(0, 0, 0)), 10.0f) << "a light background";
        EXPECT_LT(contrast_ratio(head_color(3), bg), 2.0f) << "the yellow that was faint";
        for (int j = 0; j < 8; ++j)
            EXPECT_GE(contrast_ratio(over(curve_color_on(head_color(j), bg), bg), bg), kCurveMinContrast)
                << "head " << j + 1 << " on " << std::hex << bg;
        for (std::size_t i = 0; i < 3; ++i)
            EXPECT_GE(contrast_ratio(over(curve_color_on(past_run_color(i, kPastRunAlpha), bg), bg), bg),
                      kCurveMinContrast)
                << "earlier run " << i << " on " << std::hex << bg;
        for (const Color32 c : {kTrainingLossColor, kThisRunColor})
            EXPECT_GE(contrast_ratio(over(curve_color_on(c, bg), bg), bg), kCurveMinContrast);
        EXPECT_GE(contrast_ratio(band_label_color_on(bg), bg), 4.5f);
        // A colour that reads already is left alone.
        EXPECT_EQ(curve_color_on(kTrainingLossColor, bg), kTrainingLossColor);
    }
    const Color32 black = pack_rgba(0, 0, 0);
    EXPECT_EQ(curve_color_on(head_color(3), black), head_color(3)) << "the dark themes keep their colours";
    EXPECT_EQ(curve_color_on(past_run_color(0, kPastRunAlpha), black), past_run_color(0, kPastRunAlpha));

    // The panel in the light theme draws the darker yellow, not the faint one: a 4-head run's curves.
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 1, panel_only(draw_training_panel));
    state->training.edit.n_heads = 4;
    apply_training_fields(*state);
    ASSERT_TRUE(state->training.error.empty()) << state->training.error;
    state->training_run.step_now(20);
    const auto out = ui.frames(*state, 2, panel_only(draw_training_panel));
    const Color32 bg = ImGui::GetColorU32(ImGuiCol_WindowBg) | 0xFF000000u;
    EXPECT_EQ(out.shape_points.count(head_color(3)), 0u) << "the faint yellow is drawn";
    EXPECT_EQ(out.shape_points.count(curve_color_on(head_color(3), bg)), 1u) << "no darker yellow curve";
}

TEST(TrainingLessons, ABadTrainingStepIsAMessageNamingTheStep)
{
    const std::pair<const char*, const char*> cases[] = {
        {R"({"task": "nope", "steps": 5})", "nope"},
        {R"({"task": "copy"})", "\"steps\" from 1 to 20000"},
        {R"({"task": "copy", "steps": 5, "show_step": 9})", "after the run's last step 5"},
        {R"({"task": "copy", "steps": 5, "heads": 3})", "must be a multiple of the number of heads"},
        {R"({"task": "copy", "steps": 5, "lr": 1.5})", "\"lr\" must be above 0 and below 1"},
        {R"({"task": "copy", "steps": 5, "d_model": 128, "heads": 128})",
         "\"heads\" must be between 1 and 64"},
        {R"({"task": "copy", "steps": 5, "probe": "1 2 x"})", "unknown token 'x'"},
        {R"({"task": "copy", "steps": 5, "map": "sideways"})", "\"map\" must be one of"},
        {R"({"task": "copy", "steps": 5, "speed": 3})", "unknown key \"speed\""},
    };
    for (const auto& [training, expected] : cases)
    {
        const std::string text = std::string(R"({"format": "attnlab-lesson", "version": 1, "title": "t",
            "steps": [{"text": "a"}, {"text": "b", "training": )") +
                                 training + "}]}";
        Lesson lesson;
        const Status s = parse_lesson(text, "bad.json", &lesson);
        EXPECT_FALSE(s.is_ok()) << training;
        EXPECT_TRUE(contains(s.message(), "bad.json, step 2")) << s.message();
        EXPECT_TRUE(contains(s.message(), expected)) << training << ": " << s.message();
    }
}

// [SECTION] TrainingRun

// The panel's run is checked as the command line's and lessons' are (core/train/run_spec.h): one set of
// limits.
TEST(TrainingRun, RefusesWhatEveryWayInRefusesNamingThePanelsField)
{
    TrainingRun run;
    train::RunSpec c = small_reverse(10);
    c.batch_size = 4097;
    Status s = run.configure(c);
    EXPECT_TRUE(contains(s.message(), "batch must be between 1 and 4096, not 4097")) << s.message();
    train::RunSpec copy(train::TaskKind::Copy); // the smallest model
    copy.batch_size = 1100;                     // over the panel's old 1024, within the one limit
    EXPECT_TRUE(run.configure(copy).is_ok());
    c = small_reverse(10);
    c.lr = 2.0f;
    s = run.configure(c);
    EXPECT_TRUE(contains(s.message(), "learning rate must be above 0 and below 1")) << s.message();
    c.lr = 1e-3f;
    c.d_model = 4096;
    c.n_heads = 8;
    c.n_layers = 24;
    s = run.configure(c);
    EXPECT_TRUE(contains(s.message(), "of memory")) << s.message();
}

TEST(TrainingRun, ResetWithTheSameSeedIsTheSameRun)
{
    TrainingRun run;
    ASSERT_TRUE(run.configure(small_reverse(100)).is_ok());
    run.step_now(8);
    TrainingSnapshot a;
    ASSERT_TRUE(run.poll(a));
    EXPECT_FALSE(run.poll(a)); // nothing newer
    run.reset();
    TrainingSnapshot b;
    run.poll(b);
    EXPECT_EQ(b.step, 0);
    EXPECT_TRUE(b.loss.empty());
    run.step_now(8);
    run.poll(b);
    EXPECT_EQ(a.loss, b.loss);
    ASSERT_NE(a.params(), nullptr);
    EXPECT_EQ(a.params()->layers[0].W_Q, b.params()->layers[0].W_Q);
    EXPECT_EQ(a.params()->W_U, b.params()->W_U);
}

TEST(TrainingRun, WorkerStopsAtTheTargetAndMatchesSynchronousSteps)
{
    TrainingRun worker;
    ASSERT_TRUE(worker.configure(small_reverse(40)).is_ok());
    worker.play();
    ASSERT_TRUE(wait_stopped(worker));
    TrainingSnapshot threaded;
    worker.poll(threaded);
    EXPECT_EQ(threaded.step, 40);
    EXPECT_FALSE(threaded.running);
    EXPECT_EQ(threaded.loss.size(), 40u);
    worker.play(); // at the target: nothing starts
    EXPECT_FALSE(worker.running());

    TrainingRun sync;
    ASSERT_TRUE(sync.configure(small_reverse(40)).is_ok());
    sync.step_now(40);
    TrainingSnapshot direct;
    sync.poll(direct);
    EXPECT_EQ(threaded.loss, direct.loss); // same seed, same run, whichever thread stepped it
    EXPECT_EQ(threaded.params()->layers[1].W_O, direct.params()->layers[1].W_O);
    EXPECT_EQ(threaded.evals.size(), direct.evals.size());
    EXPECT_EQ(threaded.stopped_because, "reached the target of 40 steps");
    EXPECT_LT(direct.loss.back(), direct.loss.front());
}

TEST(TrainingRun, PauseJoinsAndPlayContinues)
{
    TrainingRun run;
    ASSERT_TRUE(run.configure(small_reverse(1000000)).is_ok());
    run.play();
    EXPECT_TRUE(run.running());
    TrainingSnapshot s;
    // The UI polls while the worker trains.
    for (int i = 0; i < 20; ++i)
    {
        run.poll(s);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    run.pause();
    EXPECT_FALSE(run.running());
    run.poll(s);
    const int paused_at = s.step;
    EXPECT_GT(paused_at, 0);
    EXPECT_EQ(s.loss.size(), static_cast<std::size_t>(paused_at));
    run.step_now(2); // the UI thread owns the trainer again
    run.poll(s);
    EXPECT_EQ(s.step, paused_at + 2);
    run.set_target_steps(paused_at + 10);
    run.play();
    ASSERT_TRUE(wait_stopped(run));
    run.poll(s);
    EXPECT_EQ(s.step, paused_at + 10);
}

TEST(TrainingRun, DestructorStopsARunningWorker)
{
    auto run = std::make_unique<TrainingRun>();
    ASSERT_TRUE(run->configure(small_reverse(1000000)).is_ok());
    run->play();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    run.reset(); // joins; a hang here fails by the test's timeout
    SUCCEED();
}

TEST(TrainingRun, InvalidShapeIsAMessage)
{
    TrainingRun run;
    train::RunSpec c = small_reverse(10);
    c.n_heads = 5; // 48 is not divisible by 5
    const Status s = run.configure(c);
    EXPECT_FALSE(s.is_ok());
    EXPECT_FALSE(s.message().empty());
    EXPECT_FALSE(run.configured());
}

TEST(TrainingRun, ResetKeepsTheRunSoFarAsAPastRunToCompare)
{
    TrainingRun run;
    ASSERT_TRUE(run.configure(small_reverse(100)).is_ok());
    run.step_now(12);
    run.reset(); // the 12-step run is kept
    train::RunSpec one_layer = small_reverse(100);
    one_layer.n_layers = 1;
    ASSERT_TRUE(run.configure(one_layer).is_ok()); // a run at step 0 is not kept
    run.step_now(3);
    run.reset();
    TrainingSnapshot s;
    run.poll(s);
    ASSERT_EQ(s.past.size(), 2u);
    EXPECT_EQ(s.past[0].loss.size(), 12u);
    EXPECT_EQ(s.past[0].evals.size(), 1u); // the point at step 10
    EXPECT_TRUE(contains(s.past[0].label, "2 layers, h = 2")) << s.past[0].label;
    EXPECT_EQ(s.past[1].loss.size(), 3u);
    EXPECT_TRUE(contains(s.past[1].label, "1 layer, h = 2")) << s.past[1].label;
    EXPECT_TRUE(s.loss.empty());
    run.step_now(2);
    run.reset();
    run.step_now(2);
    run.reset();
    run.poll(s);
    EXPECT_EQ(static_cast<int>(s.past.size()), TrainingRun::kKeptRuns); // the oldest went
    EXPECT_EQ(s.past[0].loss.size(), 3u);
}

TEST(TrainingRun, StopsAtTheHeldOutAccuracyAndSaysWhy)
{
    TrainingRun run;
    train::RunSpec c = train::RunSpec(train::TaskKind::Copy);
    c.steps = 3000;
    ASSERT_TRUE(run.configure(c).is_ok());
    run.set_stop_accuracy(0.5f);
    run.play();
    ASSERT_TRUE(wait_stopped(run));
    TrainingSnapshot s;
    run.poll(s);
    ASSERT_FALSE(s.evals.empty());
    EXPECT_GE(s.evals.back().accuracy, 0.5f);
    EXPECT_LT(s.step, 3000);
    EXPECT_EQ(s.step, s.evals.back().step);
    EXPECT_TRUE(contains(s.stopped_because, "held-out accuracy at step")) << s.stopped_because;
}

TEST(TrainingRun, SlowMotionPaceStillStepsAndPausesPromptly)
{
    TrainingRun run;
    ASSERT_TRUE(run.configure(small_reverse(1000)).is_ok());
    run.set_max_steps_per_s(20.0f);
    run.play();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    run.pause();
    TrainingSnapshot s;
    run.poll(s);
    // At 20 steps/s, 0.3 s gives a handful of steps, far from the hundreds of full speed (no time asserted
    // beyond "some, and at most what the pace allows" with a wide margin).
    EXPECT_GE(s.step, 1);
    EXPECT_LE(s.step, 20);
}

TEST(TrainingRun, TimelineThinsOutAndKeepsItsEnds)
{
    TrainingRun run;
    train::RunSpec c = train::RunSpec(train::TaskKind::Copy); // the smallest model
    c.steps = 100;                                            // a point every 10 steps
    c.batch_size = 4;
    ASSERT_TRUE(run.configure(c).is_ok());
    run.step_now(TrainingRun::kMaxTimeline * 10 + 50);
    TrainingSnapshot s;
    run.poll(s);
    ASSERT_LE(static_cast<int>(s.timeline.size()), TrainingRun::kMaxTimeline);
    EXPECT_EQ(s.timeline.front().step, 0);
    EXPECT_EQ(s.timeline.back().step, s.step);
    for (std::size_t i = 1; i < s.timeline.size(); ++i)
        EXPECT_LT(s.timeline[i - 1].step, s.timeline[i].step);
    EXPECT_EQ(s.frame_at(s.timeline[1].step + 1)->step, s.timeline[1].step);
    EXPECT_EQ(s.frame_at(-5), &s.timeline.front());
}

TEST(SteepestDrop, FindsTheCliffInAPlateauThenDrop)
{
    // 300 steps at 3.0, a fall to 1.0 over steps 301-340, then flat.
    std::vector<float> loss;
    for (int i = 0; i < 300; ++i)
        loss.push_back(3.0f);
    for (int i = 0; i < 40; ++i)
        loss.push_back(3.0f - 2.0f * static_cast<float>(i + 1) / 40.0f);
    for (int i = 0; i < 300; ++i)
        loss.push_back(1.0f);
    LossDrop d;
    ASSERT_TRUE(steepest_drop(loss, 0, &d));
    EXPECT_GE(d.to_step, 300);
    EXPECT_LE(d.from_step, 345);
    EXPECT_GT(d.drop, 1.0f);
    std::vector<float> shorter(loss.begin(), loss.begin() + 20);
    EXPECT_FALSE(steepest_drop(shorter, 0, &d));
}

} // namespace
} // namespace attnlab
