// Memory given back: large blocks freed after the window shrinks return to the system instead of staying in
// the heap (see map_large_blocks_apart).
#pragma once

#include <cstddef>

namespace attnlab
{

// Blocks of this size or larger get their own mapping, unmapped when freed: a 1600x1000 colour or depth
// buffer (6.4 MB) is one, the ImGui vertex data of a usual frame is far below it.
constexpr std::size_t kLargeBlockBytes = std::size_t{1} << 20;
// Free memory kept at the top of the heap for the next frame's blocks before the rest goes back to the
// system.
constexpr std::size_t kHeapTopBytes = 4 * kLargeBlockBytes;

// Makes every heap block of kLargeBlockBytes or more a mapping of its own for the rest of the process.
// glibc's malloc otherwise raises that threshold to the size of each large block freed (up to 32 MB), so
// after a window resize the next framebuffer-sized blocks (llvmpipe's colour and depth buffers, the font
// atlas) come from the heap, where any small block allocated above them keeps their pages after they are
// freed: a storm of window sizes left the window tens of megabytes larger for good. Call once at start-up,
// before the window opens. Returns false where the C library has no such setting (not glibc; nothing changes
// then).
bool map_large_blocks_apart();

} // namespace attnlab
