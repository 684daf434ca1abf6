// Google Benchmark of the forward pass (every intermediate kept) at the bench's three shapes, and of each
// product of that layer alone, on one thread.
#include "core/engine.h"
#include "core/gemm.h"
#include "core/io/json_io.h"

#include <Eigen/Core>
#include <benchmark/benchmark.h>

#include <string>
#include <tuple>
#include <vector>

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

// The products of one encoder layer, each kind alone: what the layer's products would take with nothing
// between them (the sum of the six is the layer's floor on this core).
enum Product
{
    kProjections, // Q_h, K_h, V_h = X W_h (3h products, T x d_model by d_model x d_k, weights packed)
    kScores,      // Q_h K_hᵀ (h, T x d_k by d_k x T)
    kWeighted,    // A_h V_h (h, T x T by T x d_k)
    kOutput,      // Concat W^O (T x d_model by d_model x d_model, packed)
    kFfnIn,       // x W_1 (T x d_model by d_model x 4 d_model, packed)
    kFfnOut,      // h W_2 (T x 4 d_model by 4 d_model x d_model, packed)
};

// state.range = (T, d_model, h, Product), one thread.
void BM_layer_product(benchmark::State& state)
{
    using attnlab::Mat;
    const auto T = static_cast<Eigen::Index>(state.range(0)), d = static_cast<Eigen::Index>(state.range(1));
    const auto h = static_cast<int>(state.range(2));
    const auto kind = static_cast<Product>(state.range(3));
    const Eigen::Index dk = d / h;
    Eigen::setNbThreads(1);
    struct Shape
    {
        Eigen::Index m, k, n;
        int count;
        bool packed, transposed;
    };
    const Shape shapes[] = {{T, d, dk, 3 * h, true, false}, {T, dk, T, h, false, true},
                            {T, T, dk, h, false, false},    {T, d, d, 1, true, false},
                            {T, d, 4 * d, 1, true, false},  {T, 4 * d, d, 1, true, false}};
    const Shape& s = shapes[kind];
    const Mat A = Mat::Random(s.m, s.k);
    std::vector<Mat> B;
    std::vector<attnlab::PackedOperand> packed(static_cast<size_t>(s.count));
    for (int i = 0; i < s.count; ++i)
    {
        B.push_back(s.transposed ? Mat::Random(s.n, s.k) : Mat::Random(s.k, s.n));
        if (s.packed)
            packed[static_cast<size_t>(i)].pack(B.back());
    }
    Mat C;
    for (auto _ : state)
        for (int i = 0; i < s.count; ++i)
        {
            const auto at = static_cast<size_t>(i);
            if (s.transposed)
                attnlab::gemm_bt(A, B[at], C);
            else
                attnlab::gemm(A, B[at], s.packed ? &packed[at] : nullptr, C);
            benchmark::DoNotOptimize(C.data());
        }
    const double flops = 2.0 * static_cast<double>(s.m * s.k * s.n) * s.count;
    state.counters["GFLOP"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void layer_products(benchmark::internal::Benchmark* b)
{
    for (const auto& [T, d, h] : {std::tuple{128, 512, 8}, {512, 512, 8}, {1024, 768, 12}})
        for (int kind = kProjections; kind <= kFfnOut; ++kind)
            b->Args({T, d, h, kind});
}

} // namespace

BENCHMARK(BM_layer_product)->Apply(layer_products)->Unit(benchmark::kMillisecond);

BENCHMARK(BM_forward)
    ->Args({128, 512, 8})
    ->Args({512, 512, 8})
    ->Args({1024, 768, 12})
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
