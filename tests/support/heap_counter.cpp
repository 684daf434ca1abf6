// Wraps glibc's malloc, calloc, realloc, aligned_alloc, memalign and posix_memalign to count every call
// (see heap_counter.h).
#include "heap_counter.h"

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

long attnlab::test::heap_calls()
{
    return g_heap_calls.load();
}
