// Memory given back: framebuffer-sized blocks freed after a storm of window sizes leave the heap.
#include "ui/model/heap_policy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

namespace attnlab
{
namespace
{

// This process's resident memory in bytes, from /proc/self/statm (0 if it cannot be read).
long resident_bytes()
{
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (f == nullptr)
        return 0;
    long size = 0, resident = 0;
    const int n = std::fscanf(f, "%ld %ld", &size, &resident);
    std::fclose(f);
    return n == 2 ? resident * sysconf(_SC_PAGESIZE) : 0;
}

void* volatile g_last_block = nullptr; // keeps the compiler from leaving out an allocation freed unread

void* touched_block(std::size_t bytes)
{
    void* p = std::malloc(bytes);
    if (p != nullptr)
        std::memset(p, 1, bytes); // resident, as a rendered framebuffer is
    g_last_block = p;
    return p;
}

TEST(HeapPolicy, FramebufferSizedBlocksFreedAfterAResizeStormLeaveTheProcess)
{
#if !defined(__GLIBC__)
    GTEST_SKIP() << "glibc's malloc only";
#else
    ASSERT_TRUE(map_large_blocks_apart());
    const long before = resident_bytes();
    ASSERT_GT(before, 0);
    constexpr std::size_t kMB = std::size_t{1} << 20;
    // A large window's buffer freed (left to itself, glibc would now take blocks up to this size from the
    // heap),
    std::free(touched_block(24 * kMB));
    // then the buffers of a 1600x1000 window, a small block allocated after them, and the buffers freed
    // again.
    std::vector<void*> buffers;
    for (int i = 0; i < 8; ++i)
        buffers.push_back(touched_block(6 * kMB + 4096 * static_cast<std::size_t>(i)));
    void* small = touched_block(256 * 1024);
    for (void* p : buffers)
    {
        ASSERT_NE(p, nullptr);
        std::free(p);
    }
    const long after = resident_bytes();
    std::free(small);
    // 48 MB were freed; what stays resident is at most a few pages of bookkeeping.
    EXPECT_LT(after - before, static_cast<long>(8 * kMB))
        << "resident before " << before << ", after " << after;
#endif
}

} // namespace
} // namespace attnlab
