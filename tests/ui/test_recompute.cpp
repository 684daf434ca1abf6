// The session's recompute on the worker (AppState::update, ui/model/recompute_worker.h): an edit while a
// large run goes on does not block, the latest edit wins, an error keeps the last good trace, and a state
// destroyed with a run going on joins its worker.
#include "core/engine.h"
#include "core/weights.h"
#include "ui/model/app_state.h"

#include <gtest/gtest.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <chrono>
#include <memory>
#include <string>
#include <thread>

namespace attnlab
{
namespace
{

// A session whose run takes a long while next to a frame (d_model 512, 4 layers, about 150 tokens).
Session large_session(const std::string& first_word)
{
    Session s;
    s.config.d_model = 512;
    s.config.n_heads = 8;
    s.config.n_layers = 4;
    std::string text = first_word;
    for (int i = 0; i < 150; ++i)
        text += (i % 3 == 0) ? " the" : (i % 3 == 1) ? " cat" : " sat";
    s.text = text;
    return s;
}

// The tokens a synchronous engine gives for the session (what the trace must show once it is in).
std::vector<std::vector<std::string>> tokens_of(const Session& s)
{
    Engine e;
    EXPECT_TRUE(e.run(s).is_ok());
    return e.trace().tokens.tokens;
}

// Waits (sleeping, no time asserted) until the worker has started `runs` runs in all.
void wait_for_runs(const AppState& state, int runs)
{
    while (state.recompute.runs() < runs)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// A state showing the default session's trace, whose update() never waits for the worker (as a frame whose
// runs are too long to wait for).
std::unique_ptr<AppState> shown_state()
{
    auto state = std::make_unique<AppState>();
    state->finish_recompute();
    EXPECT_TRUE(state->has_trace());
    state->recompute_wait_ms = 0.0;
    return state;
}

TEST(Recompute, DefaultUpdateGivesTheNewTraceAtOnce)
{
    AppState state;
    ASSERT_TRUE(state.update());
    EXPECT_FALSE(state.recompute_pending());
    EXPECT_EQ(state.trace().tokens.tokens, tokens_of(state.session));
    state.session.text = "a new sentence";
    state.edit();
    ASSERT_TRUE(state.update());
    EXPECT_EQ(state.trace().tokens.tokens, tokens_of(state.session));
    EXPECT_FALSE(state.update()) << "nothing changed: nothing to take";
}

TEST(Recompute, AnEditWhileALargeRunGoesOnDoesNotBlockTheFrame)
{
    auto state = shown_state();
    const int runs = state->recompute.runs();
    const auto small_tokens = state->trace().tokens.tokens;
    const auto generation = state->trace_generation();
    state->session = large_session("first");
    state->edit();
    // The run is on the worker: update() comes back with the last picture, marked pending.
    EXPECT_FALSE(state->update());
    EXPECT_TRUE(state->recompute_pending());
    EXPECT_EQ(state->trace().tokens.tokens, small_tokens);
    EXPECT_EQ(state->trace_generation(), generation);
    // A second edit while it runs is queued, and does not block either.
    wait_for_runs(*state, runs + 1);
    state->session.text = "second" + state->session.text.substr(5);
    state->edit();
    EXPECT_FALSE(state->update());
    EXPECT_EQ(state->trace().tokens.tokens, small_tokens);

    state->finish_recompute();
    EXPECT_FALSE(state->recompute_pending());
    EXPECT_TRUE(state->status.is_ok()) << state->status.message();
    EXPECT_EQ(state->trace().tokens.tokens, tokens_of(state->session));
    EXPECT_GT(state->trace_generation(), generation);
}

TEST(Recompute, TheLatestEditWinsAndAnOutdatedResultStillShows)
{
    auto state = shown_state();
    const int runs = state->recompute.runs();
    const Session a = large_session("alpha");
    const Session b = large_session("beta");
    const Session c = large_session("gamma");
    state->session = a;
    state->edit();
    const auto version_a = state->session_version;
    EXPECT_FALSE(state->update());
    wait_for_runs(*state, runs + 1); // a is running
    state->session = b;
    state->edit();
    EXPECT_FALSE(state->update());
    state->session = c; // replaces b, which never started
    state->edit();
    EXPECT_FALSE(state->update());

    // a's result comes in first: newer than the picture, so it shows, and c is still pending.
    while (!state->update())
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(state->computed_version, version_a);
    EXPECT_TRUE(state->recompute_pending());
    EXPECT_EQ(state->trace().tokens.tokens, tokens_of(a));

    state->finish_recompute();
    EXPECT_EQ(state->computed_version, state->session_version);
    EXPECT_EQ(state->trace().tokens.tokens, tokens_of(c));
    EXPECT_EQ(state->recompute.runs(), runs + 2) << "a (outdated once c came) and c; b never ran";
    EXPECT_FALSE(state->recompute.busy());
}

TEST(Recompute, AnErrorKeepsTheLastGoodTrace)
{
    auto state = shown_state();
    const auto tokens = state->trace().tokens.tokens;
    const auto generation = state->trace_generation();
    state->session.config.n_heads = 3; // does not divide d_model = 16
    state->edit();
    state->finish_recompute();
    EXPECT_FALSE(state->status.is_ok());
    EXPECT_FALSE(state->recompute_pending()) << "the error is the result of the current session";
    EXPECT_TRUE(state->has_trace());
    EXPECT_EQ(state->trace().tokens.tokens, tokens);
    EXPECT_EQ(state->trace_generation(), generation);

    state->session.config.n_heads = 4;
    state->session.text = "fixed again";
    state->edit();
    state->finish_recompute();
    EXPECT_TRUE(state->status.is_ok()) << state->status.message();
    EXPECT_EQ(state->trace().tokens.tokens, tokens_of(state->session));
}

TEST(Recompute, ImportedWeightsGoToTheWorker)
{
    auto state = shown_state();
    Config other = state->session.config;
    other.seed = 99;
    const ModelWeights imported = init_weights(other); // the same shapes, other numbers
    state->engine.set_imported_weights(imported);
    state->edit();
    state->finish_recompute();
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    EXPECT_EQ(state->engine.weights().layers[0].attn.W_Q[0], imported.layers[0].attn.W_Q[0]);

    state->engine.clear_imported_weights();
    state->edit();
    state->finish_recompute();
    EXPECT_EQ(state->engine.weights().layers[0].attn.W_Q[0],
              init_weights(state->session.config).layers[0].attn.W_Q[0]);
}

TEST(Recompute, DestroyingTheStateWithARunGoingOnJoinsTheWorker)
{
    auto state = shown_state();
    const int runs = state->recompute.runs();
    state->session = large_session("first");
    state->edit();
    EXPECT_FALSE(state->update());
    wait_for_runs(*state, runs + 1);
    state->session.text += " more";
    state->edit();
    EXPECT_FALSE(state->update()); // one running, one queued
    EXPECT_TRUE(state->recompute.busy());
    state.reset(); // finishes the run, drops the queued one, joins
    EXPECT_EQ(state, nullptr);
}

TEST(Recompute, ProductsSplitOverEveryCoreUnlessATrainingRunHasOne)
{
#ifdef _OPENMP
    const int all_cores = omp_get_max_threads();
#else
    const int all_cores = 1;
#endif
    AppState state;
    ASSERT_TRUE(state.update());
    EXPECT_EQ(state.recompute_threads, all_cores) << "an idle window: the run may use every core";

    // A long training run going on in the background (paused at the end of the test).
    train::RunSpec spec(train::TaskKind::Reverse);
    spec.steps = 100000;
    ASSERT_TRUE(state.training_run.configure(spec).is_ok());
    state.training_run.play();
    ASSERT_TRUE(state.training_run.running());
    state.session.text = "while it trains";
    state.edit();
    state.finish_recompute();
    EXPECT_EQ(state.recompute_threads, 1) << "the training run has the other core";
    EXPECT_EQ(state.trace().tokens.tokens, tokens_of(state.session));

    state.training_run.pause();
    state.session.text = "after the run";
    state.edit();
    state.finish_recompute();
    EXPECT_EQ(state.recompute_threads, all_cores);
}

} // namespace
} // namespace attnlab
