// A warm recompute allocates nothing: no call into the heap at all (malloc and its family, which operator new
// and Eigen's aligned_malloc go through), and every intermediate keeps its buffer. glibc's allocator is
// wrapped for this test binary only, counting calls from every thread (OpenMP's workers included).
#include "core/engine.h"

#include <gtest/gtest.h>

#include <Eigen/Core>

#include <atomic>
#include <cerrno>
#include <cstddef>

extern "C"
{
    void* __libc_malloc(std::size_t);
    void* __libc_calloc(std::size_t, std::size_t);
    void* __libc_realloc(void*, std::size_t);
    void* __libc_memalign(std::size_t, std::size_t);
}

namespace
{
std::atomic<long> g_heap_calls{0};
}

extern "C"
{
    void* malloc(std::size_t n)
    {
        g_heap_calls.fetch_add(1, std::memory_order_relaxed);
        return __libc_malloc(n);
    }
    void* calloc(std::size_t count, std::size_t n)
    {
        g_heap_calls.fetch_add(1, std::memory_order_relaxed);
        return __libc_calloc(count, n);
    }
    void* realloc(void* p, std::size_t n)
    {
        g_heap_calls.fetch_add(1, std::memory_order_relaxed);
        return __libc_realloc(p, n);
    }
    void* aligned_alloc(std::size_t alignment, std::size_t n)
    {
        g_heap_calls.fetch_add(1, std::memory_order_relaxed);
        return __libc_memalign(alignment, n);
    }
    void* memalign(std::size_t alignment, std::size_t n)
    {
        g_heap_calls.fetch_add(1, std::memory_order_relaxed);
        return __libc_memalign(alignment, n);
    }
    int posix_memalign(void** out, std::size_t alignment, std::size_t n)
    {
        g_heap_calls.fetch_add(1, std::memory_order_relaxed);
        void* p = __libc_memalign(alignment, n);
        if (p == nullptr)
            return ENOMEM;
        *out = p;
        return 0;
    }
}

using namespace attnlab;

namespace
{

std::vector<const float*> buffers(const Trace& t)
{
    std::vector<const float*> out;
    for (const LayerTrace& layer : t.layers)
        for (const StageInfo& info : stage_table())
            for (int b = 0; b < t.batch_size(); ++b)
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
    const long calls_before = g_heap_calls.load();
    ASSERT_TRUE(engine.run(s));
    ASSERT_TRUE(engine.run(s));
    const long calls = g_heap_calls.load() - calls_before;
    EXPECT_EQ(calls, 0) << calls << " heap calls in two warm recomputes";
    EXPECT_EQ(buffers(engine.trace()), before); // same buffers: nothing was reallocated
}

} // namespace

TEST(Allocations, TheCountCatchesAHeapCall)
{
    // The wrapper is in effect: an Eigen product over 128 KB takes its packing space from malloc.
    const Eigen::MatrixXf A = Eigen::MatrixXf::Random(256, 256), B = Eigen::MatrixXf::Random(256, 256);
    Eigen::MatrixXf C(256, 256);
    const long before = g_heap_calls.load();
    C.noalias() = A * B;
    EXPECT_GT(g_heap_calls.load(), before);
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
