// Small helpers for the per-instruction-set kernel files (kernels.h says why they avoid the standard
// library): each file that includes this gets its own copies, with internal linkage, compiled with its flags.
#pragma once

#include "core/kernels/kernels.h"

namespace attnlab::kernels
{
namespace
{

inline Index min_of(Index a, Index b)
{
    return a < b ? a : b;
}

inline Index max_of(Index a, Index b)
{
    return a > b ? a : b;
}

inline void fill_zero(float* begin, Index count)
{
    for (Index i = 0; i < count; ++i)
        begin[i] = 0.0f;
}

// Where a product kernel finds A and B: A(r, p) at a + r·a_row + p·a_step (a row-major A read in place:
// a_row = lda, a_step = 1; Aᵀ read in place: a_row = 1, a_step = lda), B(p, 0..NR) at b + p·b_step (a packed
// panel: b_step = NR; a row-major B read in place: b_step = ldb).
struct Operands
{
    const float* a;
    Index a_row, a_step;
    const float* b;
    Index b_step;
};

// Rows of A per block of a_times_b: `small` (their k values stay in the first-level cache while every panel
// of B passes by: the training shapes, k up to 256) or, for a long sum (a real model's k = 768 or 3072 with
// a few dozen rows), as many rows as fit in 256 KB of the second-level cache, cut into equal blocks, each a
// multiple of the tile's `tile_rows`. Each block reads all of B once: 51 rows of GPT-2 read each weight once,
// not twice as blocks of 48 and 3.
inline Index row_block(Index m, Index k, Index small, Index tile_rows)
{
    constexpr Index block_floats = 64 * 1024;
    const Index fit = max_of(small, block_floats / max_of(k, 1) / tile_rows * tile_rows);
    const Index blocks = (m + fit - 1) / fit;
    return blocks <= 1 ? max_of(m, 1) : ((m + blocks - 1) / blocks + tile_rows - 1) / tile_rows * tile_rows;
}

} // namespace
} // namespace attnlab::kernels
