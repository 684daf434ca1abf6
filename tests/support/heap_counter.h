// Counts calls into the heap: a test binary that links heap_counter.cpp has glibc's malloc and its family
// (which operator new and Eigen's aligned_malloc go through) wrapped, counting calls from every thread.
// AddressSanitizer replaces the same functions, so such a binary is left out of sanitizer builds.
#pragma once

namespace attnlab::test
{

// Heap calls made by this process so far.
long heap_calls();

} // namespace attnlab::test
