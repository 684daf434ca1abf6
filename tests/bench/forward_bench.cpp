// Google Benchmark of the forward pass (every intermediate kept) at the three shapes.
#include "core/engine.h"
#include "core/io/json_io.h"

#include <benchmark/benchmark.h>

#include <string>

namespace
{

// One sentence of T tokens "t0".."t{T-1}", d_model, h, one layer; state.range = (T, d_model, h).
void BM_forward(benchmark::State& state)
{
    const int T = static_cast<int>(state.range(0));
    attnlab::Session session;
    session.text.clear();
    for (int t = 0; t < T; ++t)
        session.text += (t > 0 ? " t" : "t") + std::to_string(t);
    session.config.d_model = static_cast<int>(state.range(1));
    session.config.n_heads = static_cast<int>(state.range(2));
    session.config.n_layers = 1;
    attnlab::Engine engine;
    for (int warm = 0; warm < 2; ++warm)
        if (!engine.run(session))
        {
            state.SkipWithError("the session is invalid");
            return;
        }
    for (auto _ : state)
    {
        attnlab::Status status = engine.run(session);
        benchmark::DoNotOptimize(status);
    }
    const double d = session.config.d_model, dk = engine.trace().d_k, h = session.config.n_heads;
    const double d_ff = engine.trace().d_ff;
    const double flops =
        2 * T * d * h * 3 * dk + 2.0 * T * T * h * 2 * dk + 2 * T * h * dk * d + 4 * T * d * d_ff;
    state.counters["GFLOP"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["trace_MB"] = static_cast<double>(attnlab::trace_float_count(engine.trace())) * 4 / 1e6;
}

} // namespace

BENCHMARK(BM_forward)
    ->Args({128, 512, 8})
    ->Args({512, 512, 8})
    ->Args({1024, 768, 12})
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
