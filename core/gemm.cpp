// Eigen's GEMM (general_matrix_matrix_product, the kernel behind operator*) called with packing space this
// file owns. The internal interface used here is Eigen 3.4's, the version Debian 12 ships.
#include "gemm.h"

#include <algorithm>
#include <vector>

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

// Eigen's cache block sizes (kc, mc, nc) for one product, with the packed panels in this thread's scratch.
// rows, cols and depth are those of the column-major product Eigen runs: for a row-major C = A B it computes
// Cᵀ = Bᵀ Aᵀ, so rows = C.cols() and cols = C.rows().
class Blocking : public Eigen::internal::level3_blocking<float, float>
{
public:
    Blocking(Index rows, Index cols, Index depth)
    {
        m_mc = rows;
        m_nc = cols;
        m_kc = depth;
        Eigen::internal::computeProductBlockingSizes<float, float, 1>(m_kc, m_mc, m_nc, Index{1});
        constexpr Index align = 16; // floats per 64 bytes: the second panel starts aligned for AVX-512
        const Index size_a = (m_kc * m_mc + align - 1) / align * align;
        Buffer& buffer = thread_scratch();
        const auto needed = static_cast<size_t>(size_a + m_kc * m_nc);
        if (buffer.size() < needed)
            buffer.resize(needed);
        m_blockA = buffer.data();
        m_blockB = buffer.data() + size_a;
    }
};

// Below this many multiply-adds a product stays on one thread (the same threshold idea as Eigen's own).
constexpr double min_work_per_thread = 1 << 20;

// C = A op(B) with A (m x k) row-major, op(B) (k x n) stored in RhsOrder with leading dimension ldb.
template <int RhsOrder> void product(const Mat& A, const float* B, Index ldb, Index n, Mat& C)
{
    using Gemm = Eigen::internal::general_matrix_matrix_product<Index, float, Eigen::RowMajor, false, float,
                                                                RhsOrder, false, Eigen::RowMajor, 1>;
    const Index m = A.rows(), k = A.cols();
    C.resize(m, n);
    auto rows = [&](Index r0, Index r1)
    {
        C.middleRows(r0, r1 - r0).setZero(); // the kernel accumulates: C += A op(B)
        if (r1 == r0 || n == 0 || k == 0)
            return;
        Blocking blocking(n, r1 - r0, k);
        Gemm::run(r1 - r0, n, k, A.data() + r0 * k, k, B, ldb, C.data() + r0 * n, 1, n, 1.0f, blocking);
    };
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
        rows(0, m);
        return;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t)
        rows(m * t / threads, m * (t + 1) / threads);
#endif
}

} // namespace

void gemm(const Mat& A, const Mat& B, Mat& C)
{
    eigen_assert(A.cols() == B.rows() && &A != &C && &B != &C);
    // B (k x n) row-major: its leading dimension is its column count.
    product<Eigen::RowMajor>(A, B.data(), B.cols(), B.cols(), C);
}

void gemm_bt(const Mat& A, const Mat& B, Mat& C)
{
    eigen_assert(A.cols() == B.cols() && &A != &C && &B != &C);
    // Bᵀ (k x n) of a row-major B (n x k) is column-major with leading dimension k.
    product<Eigen::ColMajor>(A, B.data(), B.cols(), B.rows(), C);
}

std::size_t gemm_scratch_floats()
{
    return thread_scratch().size();
}

} // namespace attnlab
