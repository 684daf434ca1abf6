// Matrix products for the forward pass: Eigen's own GEMM kernel, with its packing space kept between calls.
#pragma once

#include "matrix.h"

#include <cstddef>

namespace attnlab
{

// C = A B and C = A Bᵀ (C is resized). Same kernel and same numbers as C.noalias() = A * B, but where
// Eigen's operator* takes its packing space from malloc for every product over 128 KB (and, past glibc's
// mmap threshold, fresh zeroed pages from the kernel each time), these keep it in a buffer per thread that
// only grows. So a warm recompute asks the heap for nothing; the buffer holds the largest product's panels
// (kc·(mc + nc) floats, under 2 MB for the shapes of `attnlab bench`).
//
// With Eigen::nbThreads() > 1 (OpenMP) the rows of C are split between the threads, each packing its own
// panels; one thread otherwise. A, B and C must not overlap.
void gemm(const Mat& A, const Mat& B, Mat& C);
void gemm_bt(const Mat& A, const Mat& B, Mat& C);

// Floats of packing space the calling thread holds (for tests and the memory figures).
std::size_t gemm_scratch_floats();

} // namespace attnlab
