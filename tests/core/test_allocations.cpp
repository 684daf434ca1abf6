// A warm recompute allocates nothing: no call into the heap at all (malloc and its family, which operator new
// and Eigen's aligned_malloc go through), and every intermediate keeps its buffer. glibc's allocator is
// wrapped for this test binary only, counting calls from every thread (OpenMP's workers included).
#include "core/engine.h"

#include "support/heap_counter.h"

#include <gtest/gtest.h>

#include <Eigen/Core>

#include <cstddef>

using namespace attnlab;

namespace
{

std::vector<const float*> buffers(const Trace& t)
{
    std::vector<const float*> out;
    for (const LayerTrace& layer : t.layers)
        for (const StageInfo& info : stage_table())
            for (int b = 0; b < (engine_layer_stage(info) ? t.batch_size() : 0); ++b)
                for (int j = 0; j < (info.per_head ? t.config.n_heads : 1); ++j)
                    out.push_back(stage_matrix(layer, info.id, b, j).data());
    return out;
}

std::string words(int n)
{
    std::string text;
    for (int i = 0; i < n; ++i)
        text += (i > 0 ? " w" : "w") + std::to_string(i);
    return text;
}

// Two warm-up runs (the engine alternates between the trace shown and a scratch one), then counts the heap
// calls of two more runs with a knob that changes numbers but no shape.
void expect_warm_runs_allocate_nothing(Session s)
{
    Engine engine;
    ASSERT_TRUE(engine.run(s));
    ASSERT_TRUE(engine.run(s));
    const std::vector<const float*> before = buffers(engine.trace());
    s.config.temperature = 0.7f;
    const long calls_before = test::heap_calls();
    ASSERT_TRUE(engine.run(s));
    ASSERT_TRUE(engine.run(s));
    const long calls = test::heap_calls() - calls_before;
    EXPECT_EQ(calls, 0) << calls << " heap calls in two warm recomputes";
    EXPECT_EQ(buffers(engine.trace()), before); // same buffers: nothing was reallocated
}

} // namespace

TEST(Allocations, TheCountCatchesAHeapCall)
{
    // The wrapper is in effect: an Eigen product over 128 KB takes its packing space from malloc.
    const Eigen::MatrixXf A = Eigen::MatrixXf::Random(256, 256), B = Eigen::MatrixXf::Random(256, 256);
    Eigen::MatrixXf C(256, 256);
    const long before = test::heap_calls();
    C.noalias() = A * B;
    EXPECT_GT(test::heap_calls(), before);
}

TEST(Allocations, WarmRecomputeAllocatesNothing)
{
    Session s;
    s.text = "the cat sat on the mat\nhello world";
    s.target = "le chat";
    s.config.n_layers = 2;
    s.config.mask = MaskKind::Causal;
    expect_warm_runs_allocate_nothing(s);
}

TEST(Allocations, WarmRecomputeAllocatesNothingAtTheBenchmarkWidth)
{
    // d_model 512 and 96 tokens: every product is far past the size where Eigen's operator* calls malloc.
    Session s;
    s.text = words(96) + "\n" + words(80);
    s.target = words(40);
    s.config.d_model = 512;
    s.config.n_heads = 8;
    expect_warm_runs_allocate_nothing(s);
}

TEST(Allocations, WarmRecomputeOnOneThreadAllocatesNothing)
{
    const int threads = Eigen::nbThreads();
    Eigen::setNbThreads(1);
    Session s;
    s.text = words(64);
    s.config.d_model = 256;
    s.config.n_heads = 4;
    expect_warm_runs_allocate_nothing(s);
    Eigen::setNbThreads(threads);
}
