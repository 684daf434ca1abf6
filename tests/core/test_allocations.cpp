// A warm recompute allocates nothing: no operator new, and every intermediate keeps its buffer.
#include "core/engine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace
{
std::atomic<long> g_news{0};
}

// Counts every allocation made through operator new in this test binary (std::vector, std::string, ...).
void* operator new(std::size_t n)
{
    g_news.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n ? n : 1))
        return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept
{
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept
{
    std::free(p);
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

} // namespace

TEST(Allocations, WarmRecomputeAllocatesNothing)
{
    Session s;
    s.text = "the cat sat on the mat\nhello world";
    s.target = "le chat";
    s.config.n_layers = 2;
    s.config.mask = MaskKind::Causal;
    Engine engine;
    // Two runs warm both buffers (the shown trace and the scratch one).
    ASSERT_TRUE(engine.run(s));
    ASSERT_TRUE(engine.run(s));
    const std::vector<const float*> before = buffers(engine.trace());
    s.config.temperature = 0.7f; // a knob that changes numbers but no shape
    const long news_before = g_news.load();
    ASSERT_TRUE(engine.run(s));
    ASSERT_TRUE(engine.run(s));
    const long news = g_news.load() - news_before;
    EXPECT_EQ(news, 0) << "operator new called " << news << " times in warm recomputes";
    EXPECT_EQ(buffers(engine.trace()), before); // same buffers: nothing was reallocated
}
