// Large heap blocks as mappings of their own, so freeing them gives the memory back (see heap_policy.h).
#include "ui/model/heap_policy.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attnlab
{

bool map_large_blocks_apart()
{
#if defined(__GLIBC__)
    // Setting the threshold also turns off glibc's dynamic raising of it and of the trim threshold. The trim
    // threshold then stays at 128 KB, and the frame's own churn of smaller blocks would shrink and regrow the
    // heap's top on every frame (some 50 brk calls a frame, doubling the frame time under llvmpipe): keep up
    // to kHeapTopBytes free at the top instead.
    return mallopt(M_MMAP_THRESHOLD, static_cast<int>(kLargeBlockBytes)) == 1 &&
           mallopt(M_TRIM_THRESHOLD, static_cast<int>(kHeapTopBytes)) == 1;
#else
    return false;
#endif
}

} // namespace attnlab
