// Matrix products for the forward pass. Three kernels, chosen at start-up (core/cpu.h):
//  - on a CPU with AVX-512: a 6 x 64 register-blocked kernel (core/kernels/avx512_gemm.cpp);
//  - on AVX2: the training engine's 6 x 16 tiles (core/kernels/avx2_products.cpp);
//  - otherwise: Eigen's own GEMM (general_matrix_matrix_product, the kernel behind operator*), Eigen 3.4's
//    internal interface, the version Debian 12 ships, called with packing space this file owns.
// Both keep their packing space in a per-thread buffer that only grows. A right operand that meets many
// products (the weights) can be packed once for the AVX-512 or the AVX2 kernel (PackedOperand) and skip that
// step (AVX-512) or be read from contiguous panels instead of in place (AVX2).
#include "gemm.h"

#include <algorithm>
#include <vector>

#include "core/cpu.h"
#include "core/kernels/kernels.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attnlab
{

namespace
{

using Index = Eigen::Index;
using Buffer = std::vector<float, Eigen::aligned_allocator<float>>;

Buffer& thread_scratch()
{
    thread_local Buffer buffer;
    return buffer;
}

float* scratch(Index floats)
{
    Buffer& buffer = thread_scratch();
    if (buffer.size() < static_cast<size_t>(floats))
        buffer.resize(static_cast<size_t>(floats));
    return buffer.data();
}

// [SECTION] Eigen's kernel

using Blocking = ScratchBlocking<&scratch>; // the packed panels in this thread's scratch

template <bool TransB>
void rows_product(const float* A, Index m, Index k, const float* B, Index n, float* C, Index m_whole)
{
    // op(B) = B (k x n, row-major) or Bᵀ of a row-major n x k B, which is column-major with leading dimension
    // k. The block sizes come from the whole product's rows (m_whole), not this thread's share: Eigen picks
    // kc from the sizes, and a different kc would sum each entry in another order, so the bits would depend
    // on the number of threads.
    constexpr int RhsOrder = TransB ? Eigen::ColMajor : Eigen::RowMajor;
    using Gemm = Eigen::internal::general_matrix_matrix_product<Index, float, Eigen::RowMajor, false, float,
                                                                RhsOrder, false, Eigen::RowMajor, 1>;
    std::fill(C, C + m * n, 0.0f); // Eigen's kernel accumulates: C += A op(B)
    Blocking blocking(n, m_whole, k);
    Gemm::run(m, n, k, A, k, B, TransB ? k : n, C, 1, n, 1.0f, blocking);
}

// The rows of C [0, m) = A op(B): the AVX-512 kernel (core/kernels/avx512_gemm.cpp) when it is the active
// set, the training engine's AVX2 kernel (kernels/avx2_products.cpp, the same product) on AVX2, Eigen's
// otherwise. Each row of C is summed the same way however the rows are split, on every path.
// Bp, when not null, is op(B) packed whole for the active set's kernel (PackedOperand).
// e, when not null, is only passed with a packed Bp on AVX-512 or AVX2 (the kernel's store applies it), at
// row 0 of A.
template <bool TransB>
void rows_product_active(const float* A, Index m, Index k, const float* B, const float* Bp, Index n, float* C,
                         Index m_whole, const kernels::Epilogue* e = nullptr)
{
    switch (active_isa())
    {
    case Isa::Avx512:
        if (Bp)
            kernels::gemm_kernels_avx512()->rows_product_packed(A, m, k, Bp, n, C, e);
        else
            kernels::gemm_kernels_avx512()->rows_product(TransB, A, m, k, B, n, C, &scratch);
        return;
    case Isa::Avx2:
        if (Bp)
            kernels::gemm_kernels_avx2()->rows_product_packed(A, m, k, Bp, n, C, e);
        else
            kernels::gemm_kernels_avx2()->rows_product(TransB, A, m, k, B, n, C, &scratch);
        return;
    case Isa::Baseline:
        break;
    }
    rows_product<TransB>(A, m, k, B, n, C, m_whole);
}

// Below this many multiply-adds a product stays on one thread (the same threshold idea as Eigen's own).
constexpr double min_work_per_thread = 1 << 20;

// e: an epilogue for the AVX-512 or AVX2 kernel's store, only with a packed Bp on those sets (its add and sum
// at row 0).
template <bool TransB>
void product(const Mat& A, const Mat& B, const float* Bp, Index n, Mat& C,
             const kernels::Epilogue* e = nullptr)
{
    const Index m = A.rows(), k = A.cols();
    C.resize(m, n);
    if (m == 0 || n == 0)
        return;
    if (k == 0)
    {
        C.setZero();
        return;
    }
    int threads = 1;
#ifdef _OPENMP
    const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    if (!omp_in_parallel())
        threads =
            static_cast<int>(std::min<double>({static_cast<double>(Eigen::nbThreads()),
                                               work / min_work_per_thread, static_cast<double>(m) / 8}));
#endif
    if (threads <= 1)
    {
        rows_product_active<TransB>(A.data(), m, k, B.data(), Bp, n, C.data(), m, e);
        return;
    }
#ifdef _OPENMP
    // Each thread computes its own rows of C, packing op(B) into its own scratch.
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t)
    {
        // Split points on multiples of 24 rows, a whole number of both kernels' row tiles (6 here, 4 or 8 in
        // Eigen's): a tile cut short takes another code path, which sums in another order, so a split
        // elsewhere would make the bits depend on the number of threads.
        constexpr Index kRowGrain = 24;
        const auto split = [&](int i)
        { return i == threads ? m : std::min(m, m * i / threads / kRowGrain * kRowGrain); };
        const Index r0 = split(t), r1 = split(t + 1);
        kernels::Epilogue rows_e{};
        if (e) // the same epilogue at this thread's first row
            rows_e = kernels::Epilogue{e->bias, e->relu, e->add ? e->add + r0 * n : nullptr,
                                       e->sum ? e->sum + r0 * n : nullptr};
        rows_product_active<TransB>(A.data() + r0 * k, r1 - r0, k, B.data(), Bp, n, C.data() + r0 * n, m,
                                    e ? &rows_e : nullptr);
    }
#endif
}

} // namespace

void gemm(const Mat& A, const Mat& B, Mat& C)
{
    eigen_assert(A.cols() == B.rows() && &A != &C && &B != &C);
    product<false>(A, B, nullptr, B.cols(), C);
}

void gemm_bt(const Mat& A, const Mat& B, Mat& C)
{
    eigen_assert(A.cols() == B.cols() && &A != &C && &B != &C);
    product<true>(A, B, nullptr, B.rows(), C);
}

void gemm(const Mat& A, const Mat& B, const PackedOperand* packed, Mat& C)
{
    eigen_assert(A.cols() == B.rows() && &A != &C && &B != &C);
    product<false>(A, B, packed && packed->packed_from(B) ? packed->panels() : nullptr, B.cols(), C);
}

void gemm(const Mat& A, const Mat& B, const PackedOperand* packed, Mat& C, const ProductEpilogue& epilogue)
{
    eigen_assert(A.cols() == B.rows() && &A != &C && &B != &C);
    eigen_assert(!epilogue.bias || epilogue.bias->size() == B.cols());
    eigen_assert((epilogue.add == nullptr) == (epilogue.sum == nullptr));
    eigen_assert(!epilogue.add || (epilogue.add->rows() == A.rows() && epilogue.add->cols() == B.cols()));
    const float* Bp = packed && packed->packed_from(B) ? packed->panels() : nullptr;
    if (epilogue.sum)
        epilogue.sum->resize(A.rows(), B.cols());
    // In the AVX-512 or AVX2 kernel's store when B is packed and the sum runs over k (k = 0 takes no kernel).
    if (Bp && active_isa() != Isa::Baseline && A.cols() > 0)
    {
        const kernels::Epilogue e{epilogue.bias ? epilogue.bias->data() : nullptr, epilogue.relu,
                                  epilogue.add ? epilogue.add->data() : nullptr,
                                  epilogue.sum ? epilogue.sum->data() : nullptr};
        product<false>(A, B, Bp, B.cols(), C, &e);
        return;
    }
    // Otherwise passes over C, the same operations in the same order.
    product<false>(A, B, Bp, B.cols(), C);
    if (epilogue.bias)
        C.rowwise() += *epilogue.bias;
    if (epilogue.relu)
        C = C.cwiseMax(0.0f);
    if (epilogue.sum)
        epilogue.sum->noalias() = *epilogue.add + C;
}

// [SECTION] Packed right operands

namespace
{

// The active set's forward kernels that take a packed right operand (null on baseline: Eigen packs per
// product).
const kernels::GemmKernels* packing_kernels()
{
    switch (active_isa())
    {
    case Isa::Avx512:
        return kernels::gemm_kernels_avx512();
    case Isa::Avx2:
        return kernels::gemm_kernels_avx2();
    case Isa::Baseline:
        break;
    }
    return nullptr;
}

} // namespace

std::size_t packed_operand_floats(Eigen::Index k, Eigen::Index n)
{
    const kernels::GemmKernels* kernels = packing_kernels();
    return kernels ? static_cast<std::size_t>(kernels->packed_floats(k, n)) : 0;
}

void PackedOperand::pack(const Mat& B)
{
    clear();
    const kernels::GemmKernels* k = packing_kernels();
    if (!k) // Eigen's kernel packs per product
        return;
    const std::size_t floats = packed_operand_floats(B.rows(), B.cols());
    if (panels_.size() != floats)
        panels_.resize(floats);
    k->pack(false, B.data(), B.rows(), B.cols(), panels_.data());
    source_ = B.data();
    rows_ = B.rows();
    cols_ = B.cols();
    isa_ = active_isa();
}

void PackedOperand::clear()
{
    source_ = nullptr;
    rows_ = cols_ = 0;
}

bool PackedOperand::packed_from(const Mat& B) const
{
    return source_ && source_ == B.data() && rows_ == B.rows() && cols_ == B.cols() && isa_ == active_isa();
}

const char* gemm_kernel()
{
    switch (active_isa())
    {
    case Isa::Avx512:
        return kernels::gemm_kernels_avx512()->name;
    case Isa::Avx2:
        return kernels::gemm_kernels_avx2()->name;
    case Isa::Baseline:
        break;
    }
    return "eigen";
}

std::size_t gemm_scratch_floats()
{
    return thread_scratch().size();
}

} // namespace attnlab
