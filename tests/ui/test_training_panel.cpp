// The Training panel headless (task combo, buttons, maps after synchronous steps) and TrainingRun's worker:
// play, pause, target, reset and the hand-over of the trainer between threads.
#include "ui/panels/panels.h"
#include "ui/training_run.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

namespace attnlab
{
namespace
{

using test::HeadlessUi;
using test::panel_only;

bool contains(const std::string& haystack, const std::string& needle)
{
    return haystack.find(needle) != std::string::npos;
}

TrainingConfig small_reverse(int target)
{
    TrainingConfig c = TrainingConfig::from_preset(train::TaskKind::Reverse);
    c.target_steps = target;
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

TEST(TrainingPanel, DrawsTaskComboButtonsAndMapsAfterSteps)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    auto out = ui.frames(*state, 2, panel_only(draw_training_panel));
    for (const char* text :
         {"Reverse", "task", "preset: 2 layers, h = 2, d_model = 48", "Play", "Step", "Reset", "step 0 / 500",
          "training loss", "trained for 0 steps", "layer 1, head 1", "layer 2, head 2", "anti-diag"})
        EXPECT_TRUE(contains(out.text, text)) << text << "\n" << out.text;
    EXPECT_FALSE(state->training_run.running()); // nothing runs until Play

    state->training_run.step_now(5);
    out = ui.frames(*state, 2, panel_only(draw_training_panel));
    EXPECT_TRUE(contains(out.text, "trained for 5 steps")) << out.text;
    EXPECT_TRUE(contains(out.text, "step 5 / 500")) << out.text;
    ASSERT_EQ(state->training.view.loss.size(), 5u);
    // The loss plot is drawn (its overlay is the last loss).
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, "loss %.4f",
                  static_cast<double>(state->training.view.loss.back()));
    EXPECT_TRUE(contains(out.text, overlay)) << overlay << "\n" << out.text;
    // One texture per layer x head, each drawn.
    for (const char* key : {"train/L0/h0", "train/L0/h1", "train/L1/h0", "train/L1/h1"})
    {
        const HeatmapEntry* e = state->heatmaps.find(key);
        ASSERT_NE(e, nullptr) << key;
        EXPECT_EQ(e->rows, state->training.view.T);
        EXPECT_TRUE(out.textures.count(e->texture)) << key;
    }
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
    EXPECT_TRUE(contains(out.text, "trained for 3 steps")) << out.text;
    EXPECT_TRUE(contains(out.text, "Copy")) << out.text;
}

TEST(TrainingPanel, PanelTableHasTrainingWithAShortcut)
{
    const PanelInfo& p = panel_table()[static_cast<std::size_t>(PanelId::Training)];
    EXPECT_EQ(p.id, PanelId::Training);
    EXPECT_STREQ(p.name, "Training");
    EXPECT_STREQ(p.shortcut, "Alt+8");
}

// [SECTION] TrainingRun

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
    ASSERT_EQ(a.weights.size(), 4u);
    EXPECT_EQ(a.weights[0], b.weights[0]);
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
    EXPECT_EQ(threaded.weights[0], direct.weights[0]);
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
    TrainingConfig c = small_reverse(10);
    c.n_heads = 5; // 48 is not divisible by 5
    const Status s = run.configure(c);
    EXPECT_FALSE(s.is_ok());
    EXPECT_FALSE(s.message().empty());
    EXPECT_FALSE(run.configured());
}

} // namespace
} // namespace attnlab
