// Matrix products for the forward pass, with their packing space kept between calls.
#pragma once

#include "cpu.h"
#include "matrix.h"

#include <cstddef>
#include <vector>

namespace attnlab
{

// C = A B and C = A Bᵀ (C is resized; A, B and C must not overlap). The forward pass spends most of its
// time here. Built with AVX-512 the products run a register-blocked kernel of this project (20-30% faster
// than Eigen's on the shapes of attention, see gemm.cpp); otherwise Eigen's own GEMM kernel. Either way the
// packing space lives in a buffer per thread that only grows, where Eigen's operator* takes it from malloc
// for every product over 128 KB (and, past glibc's mmap threshold, fresh zeroed pages each time). So a warm
// recompute asks the heap for nothing. The buffer holds one block of packed panels: 512 KB at most with the
// AVX-512 kernel, whatever Eigen's blocking picks otherwise (1.5 MB for a 512 x 512 x 512 product).
//
// With Eigen::nbThreads() > 1 (OpenMP) the rows of C are split between the threads, each packing its own
// panels; one thread otherwise.
void gemm(const Mat& A, const Mat& B, Mat& C);
void gemm_bt(const Mat& A, const Mat& B, Mat& C);

// A right operand packed once, whole, into the active kernel's panels, for a matrix that meets many products
// unchanged (the weights: they stay the same between recomputes, so no product needs to pack them again).
// The AVX-512 kernel packs its right operand for every product, and the copy saves that; the AVX2 kernel
// reads B in place, and the copy's contiguous panels of 16 columns save it the first-level cache misses of
// B's rows n floats apart. On baseline pack() keeps nothing and gemm goes on as without it (Eigen packs per
// product).
class PackedOperand
{
public:
    // Packs B for gemm(A, B, this, C), reusing the buffer when it is large enough.
    void pack(const Mat& B);
    // Forgets the packed copy (keeping the buffer): gemm packs per product again.
    void clear();
    // True when the copy was packed from this matrix (the same memory and shape) for the active instruction
    // set. B must not have been changed in place since: whoever packs a matrix repacks it when it changes.
    bool packed_from(const Mat& B) const;
    // Floats the packed copy holds (0 when nothing is packed).
    std::size_t floats() const { return source_ ? panels_.size() : 0; }
    const float* panels() const { return panels_.data(); }

private:
    std::vector<float, Eigen::aligned_allocator<float>> panels_;
    const float* source_ = nullptr; // B.data() of the matrix packed; null: nothing packed
    Eigen::Index rows_ = 0, cols_ = 0;
    Isa isa_ = Isa::Baseline;
};

// Floats a PackedOperand packed from a k x n matrix holds on the active instruction set (0 where it keeps no
// copy: panels are whole, so a narrow matrix takes more than k·n).
std::size_t packed_operand_floats(Eigen::Index k, Eigen::Index n);

// C = A B with B's packed copy when packed->packed_from(B) (the same bits as gemm(A, B, C), without the
// packing); as gemm(A, B, C) when packed is null or was made from another matrix or for another set.
void gemm(const Mat& A, const Mat& B, const PackedOperand* packed, Mat& C);

// What the product does to C after it (each step optional, in this order): C += bias (row vector of C.cols()
// entries, added to every row), C = max(0, C) when relu (as Eigen's cwiseMax(0)), then *sum = *add + C (add
// C's shape; sum is resized to it; C is kept too). The layer's bias and ReLU, and its residual added to a
// product's output: on AVX-512 or AVX2 with a packed B they happen in the kernel's store, while the tile is
// in registers, instead of as passes over C; elsewhere as those passes. The same bits either way.
struct ProductEpilogue
{
    const RowVec* bias = nullptr;
    bool relu = false;
    const Mat* add = nullptr;
    Mat* sum = nullptr;
};

// gemm(A, B, packed, C), then epilogue (add and sum must not be A, B or C).
void gemm(const Mat& A, const Mat& B, const PackedOperand* packed, Mat& C, const ProductEpilogue& epilogue);

// The kernel this build uses: "avx512-6x64" or "eigen".
const char* gemm_kernel();

// Floats of packing space the calling thread holds (for tests and the memory figures).
std::size_t gemm_scratch_floats();

// Eigen's cache block sizes (kc, mc, nc) for one product of its GEMM kernel, with the packed panels in the
// buffer Scratch(floats) returns (a per-thread buffer that only grows) rather than from malloc. rows, cols
// and depth are those of the column-major product Eigen runs: for a row-major C = A B it computes Cᵀ = Bᵀ Aᵀ,
// so rows = C.cols() and cols = C.rows().
template <float* (*Scratch)(Eigen::Index)>
class ScratchBlocking : public Eigen::internal::level3_blocking<float, float>
{
public:
    ScratchBlocking(Eigen::Index rows, Eigen::Index cols, Eigen::Index depth)
    {
        m_mc = rows;
        m_nc = cols;
        m_kc = depth;
        Eigen::internal::computeProductBlockingSizes<float, float, 1>(m_kc, m_mc, m_nc, Eigen::Index{1});
        constexpr Eigen::Index align = 16; // floats per 64 bytes: the second panel starts aligned
        const Eigen::Index size_a = (m_kc * m_mc + align - 1) / align * align;
        m_blockA = Scratch(size_a + m_kc * m_nc);
        m_blockB = m_blockA + size_a;
    }
};

} // namespace attnlab
