// The forward pass's matrix products against a double-precision reference, on shapes that exercise every
// edge of the blocking: rows not a multiple of 6, columns not a multiple of 64 or past one block of 512,
// depths past one block of 256 (where later blocks add to C instead of writing it). Run once per instruction
// set this CPU has (ATTNLAB_ISA, tests/CMakeLists.txt): the AVX-512 kernel, the AVX2 one and Eigen's.
#include "core/cpu.h"
#include "core/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

using namespace attnlab;

namespace
{

struct Shape
{
    int m, k, n;
};

const Shape kShapes[] = {{1, 1, 1},      {7, 5, 3},      {6, 64, 64},   {13, 300, 70}, {100, 700, 130},
                         {37, 513, 600}, {200, 64, 512}, {64, 2, 1030}, {5, 1, 65}};

// The exact product in double, to compare float results against.
Eigen::MatrixXd reference(const Mat& A, const Mat& B)
{
    return A.cast<double>() * B.cast<double>();
}

// Entries of A and B are in [-1, 1], so each entry of C is a sum of k products of at most 1: float rounding
// stays far under k * 1e-6.
void expect_close(const Mat& C, const Eigen::MatrixXd& expected, int k)
{
    ASSERT_EQ(C.rows(), expected.rows());
    ASSERT_EQ(C.cols(), expected.cols());
    const double error = (C.cast<double>() - expected).cwiseAbs().maxCoeff();
    EXPECT_LE(error, 1e-6 * k) << C.rows() << " x " << k << " x " << C.cols();
}

} // namespace

TEST(Gemm, KernelIsTheActiveInstructionSets)
{
    EXPECT_EQ(std::string(gemm_kernel()), active_isa() == Isa::Avx512 ? "avx512-6x64"
                                          : active_isa() == Isa::Avx2 ? "avx2-6x16"
                                                                      : "eigen");
}

TEST(Gemm, ProductMatchesADoublePrecisionReference)
{
    for (const Shape& s : kShapes)
    {
        const Mat A = Mat::Random(s.m, s.k), B = Mat::Random(s.k, s.n);
        Mat C;
        gemm(A, B, C);
        expect_close(C, reference(A, B), s.k);
    }
}

TEST(Gemm, ProductWithTransposeMatchesADoublePrecisionReference)
{
    for (const Shape& s : kShapes)
    {
        const Mat A = Mat::Random(s.m, s.k), B = Mat::Random(s.n, s.k); // C = A Bᵀ
        Mat C;
        gemm_bt(A, B, C);
        expect_close(C, reference(A, Mat(B.transpose())), s.k);
    }
}

TEST(Gemm, OldContentsOfTheResultDoNotLeakIn)
{
    // Same size as before, so the buffer is reused as is: a NaN left in it must not survive.
    const Mat A = Mat::Random(37, 513), B = Mat::Random(513, 600);
    Mat C = Mat::Constant(37, 600, std::numeric_limits<float>::quiet_NaN());
    gemm(A, B, C);
    EXPECT_TRUE(C.allFinite());
    expect_close(C, reference(A, B), 513);
    Mat D = Mat::Constant(37, 37, std::numeric_limits<float>::quiet_NaN());
    gemm_bt(A, A, D);
    EXPECT_TRUE(D.allFinite());
}

TEST(Gemm, EmptyDepthGivesZeros)
{
    const Mat A(4, 0), B(0, 3);
    Mat C = Mat::Constant(4, 3, 7.0f);
    gemm(A, B, C);
    ASSERT_EQ(C.rows(), 4);
    ASSERT_EQ(C.cols(), 3);
    EXPECT_EQ(C.cwiseAbs().maxCoeff(), 0.0f);
}

TEST(Gemm, SplittingRowsBetweenThreadsGivesTheSameBits)
{
    // Each entry of C is summed in the same order whichever thread computes its row: also with row counts
    // whose halves are not whole kernel tiles (150 of 300 is not a multiple of Eigen's 4), and for A Bᵀ.
    const int threads = Eigen::nbThreads();
    for (const Eigen::Index rows : {300, 301, 150, 97})
    {
        const Mat A = Mat::Random(rows, 520), B = Mat::Random(520, 200), Bt = B.transpose();
        Eigen::setNbThreads(1);
        Mat one, one_bt, two, two_bt;
        gemm(A, B, one);
        gemm_bt(A, Bt, one_bt);
        Eigen::setNbThreads(2);
        gemm(A, B, two);
        gemm_bt(A, Bt, two_bt);
        EXPECT_TRUE(one == two) << rows << " rows";
        EXPECT_TRUE(one_bt == two_bt) << rows << " rows, A Bᵀ";
    }
    Eigen::setNbThreads(threads);
}

TEST(Gemm, PackingSpaceIsKeptAndDoesNotGrowWhenRepeated)
{
    const Mat A = Mat::Random(64, 512), B = Mat::Random(512, 512);
    Mat C;
    const int threads = Eigen::nbThreads();
    Eigen::setNbThreads(1); // the scratch counted is this thread's
    gemm(A, B, C);          // the AVX2 kernel reads B in place: only A Bᵀ packs on every path
    gemm_bt(A, A, C);
    const std::size_t held = gemm_scratch_floats();
    EXPECT_GT(held, 0u);
    gemm(A, B, C);
    gemm_bt(A, A, C);
    EXPECT_EQ(gemm_scratch_floats(), held);
    Eigen::setNbThreads(threads);
}

TEST(Gemm, PackedRightOperandGivesTheSameBitsAsPackingPerProduct)
{
    // The weights are packed once (PackedOperand); the products with that copy must sum every entry as the
    // per-product packing does: the same bits, on ragged shapes too (columns not a multiple of 64 or past a
    // block of 512, odd depths, depths past a block of 256), on one thread and split over two.
    const int threads = Eigen::nbThreads();
    for (const Shape& s : kShapes)
    {
        const Mat A = Mat::Random(s.m, s.k), B = Mat::Random(s.k, s.n);
        PackedOperand packed;
        packed.pack(B);
        // The AVX-512 and AVX2 kernels take a packed B; on baseline the products go on as without the copy.
        EXPECT_EQ(packed.packed_from(B), active_isa() != Isa::Baseline);
        EXPECT_EQ(packed.floats() > 0, active_isa() != Isa::Baseline);
        for (const int t : {1, 2})
        {
            Eigen::setNbThreads(t);
            Mat per_product, once = Mat::Constant(s.m, s.n, std::numeric_limits<float>::quiet_NaN());
            gemm(A, B, per_product);
            gemm(A, B, &packed, once);
            EXPECT_TRUE(once == per_product)
                << s.m << " x " << s.k << " x " << s.n << ", " << t << " threads";
        }
    }
    for (const Eigen::Index rows : {300, 301, 97}) // splits of the rows that the kernel's tiles do not divide
    {
        const Mat A = Mat::Random(rows, 517), B = Mat::Random(517, 200);
        PackedOperand packed;
        packed.pack(B);
        Mat one, two;
        Eigen::setNbThreads(1);
        gemm(A, B, &packed, one);
        Eigen::setNbThreads(2);
        gemm(A, B, &packed, two);
        EXPECT_TRUE(one == two) << rows << " rows";
        gemm(A, B, two);
        EXPECT_TRUE(one == two) << rows << " rows, per product on two threads";
    }
    Eigen::setNbThreads(threads);
}

TEST(Gemm, PackedCopyOfAnotherMatrixIsNotUsed)
{
    // A copy packed from other memory, or from a matrix whose shape changed since, is skipped: the product is
    // that of the B given.
    const Mat A = Mat::Random(13, 70), B = Mat::Random(70, 90), other = Mat::Random(70, 90);
    PackedOperand packed;
    packed.pack(other);
    EXPECT_FALSE(packed.packed_from(B));
    Mat C, expected;
    gemm(A, B, &packed, C);
    gemm(A, B, expected);
    EXPECT_TRUE(C == expected);
    Mat resized = other;
    packed.pack(resized);
    resized.resize(90, 70); // same size in floats, new shape (and perhaps the same memory)
    EXPECT_FALSE(packed.packed_from(resized));
    packed.clear();
    EXPECT_FALSE(packed.packed_from(other));
    EXPECT_EQ(packed.floats(), 0u);
}

namespace
{

// Whether a and b hold the same bits (NaN included, which == does not compare).
bool same_bits(const Mat& a, const Mat& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<size_t>(a.size())) == 0;
}

} // namespace

TEST(Gemm, EpilogueGivesTheBitsOfPassesAfterTheProduct)
{
    // The bias, the ReLU and the residual add done with the product (in the AVX-512 or AVX2 kernel's store
    // when B is packed) must give the bits of the passes the engine made after it: C + b, max(0, C) as
    // Eigen's cwiseMax(0) (a NaN stays NaN), add + C. Ragged shapes and depths past one block of 256 (the
    // epilogue only in the last block), packed or not, on one thread and split over two.
    const int threads = Eigen::nbThreads();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (const Shape& s : kShapes)
        for (const bool pack : {true, false})
            for (const int t : {1, 2})
            {
                Mat A = Mat::Random(s.m, s.k);
                A(s.m - 1, 0) = nan; // the last row of C is NaN: the ReLU must keep it
                const Mat B = Mat::Random(s.k, s.n), X = Mat::Random(s.m, s.n);
                const RowVec bias = RowVec::Random(s.n);
                PackedOperand packed;
                if (pack)
                    packed.pack(B);
                Eigen::setNbThreads(t);
                Mat plain, expected_relu, expected_bias, expected_sum;
                gemm(A, B, plain);
                expected_relu = (plain.rowwise() + bias).cwiseMax(0.0f);
                expected_bias = plain.rowwise() + bias;
                expected_sum = X + expected_bias;
                Mat relu, biased, sum = Mat::Constant(1, 1, nan);
                gemm(A, B, &packed, relu, ProductEpilogue{&bias, true});
                gemm(A, B, &packed, biased, ProductEpilogue{&bias, false, &X, &sum});
                const std::string where = std::to_string(s.m) + " x " + std::to_string(s.k) + " x " +
                                          std::to_string(s.n) + (pack ? ", packed, " : ", ") +
                                          std::to_string(t) + " threads";
                EXPECT_TRUE(same_bits(relu, expected_relu)) << where;
                EXPECT_TRUE(same_bits(biased, expected_bias)) << where;
                EXPECT_TRUE(same_bits(sum, expected_sum)) << where;
                EXPECT_TRUE(std::isnan(relu(s.m - 1, 0))) << where;
                Mat residual_only;
                gemm(A, B, &packed, residual_only, ProductEpilogue{nullptr, false, &X, &sum});
                EXPECT_TRUE(same_bits(residual_only, plain)) << where;
                EXPECT_TRUE(same_bits(sum, Mat(X + plain))) << where;
            }
    Eigen::setNbThreads(threads);
}

TEST(Gemm, TilesOfFewerRowsGiveTheBitsOfWholeTiles)
{
    // The AVX-512 kernel runs a tile of fewer than 6 rows (a product's last, when its rows are not a multiple
    // of 6) with only those rows; each row of C must still be the same sums as in a whole tile. The first
    // rows of a tall product against the same rows alone, B packed per product and packed once, on ragged
    // columns, depths past one block of 256 and every tile height (1 to 6 rows). Eigen's kernel (baseline)
    // picks its blocks from the sizes, so its bits depend on the rows.
    if (active_isa() == Isa::Baseline)
        GTEST_SKIP() << "Eigen's blocking depends on the number of rows";
    const int threads = Eigen::nbThreads();
    Eigen::setNbThreads(1);
    // (Sized for the emulated Haswell and Nehalem runs of this file, tests/CMakeLists.txt.)
    for (const Shape& s : {Shape{140, 520, 200}, Shape{140, 64, 70}, Shape{140, 700, 600}})
    {
        const Mat A = Mat::Random(s.m, s.k), B = Mat::Random(s.k, s.n);
        Mat tall;
        gemm(A, B, tall);
        PackedOperand packed;
        packed.pack(B);
        for (const Eigen::Index rows : {131, 7, 5, 4, 3, 2, 1})
        {
            Mat part, part_packed;
            gemm(A.topRows(rows), B, part);
            gemm(A.topRows(rows), B, &packed, part_packed);
            const std::string where = std::to_string(rows) + " of " + std::to_string(s.m) + " x " +
                                      std::to_string(s.k) + " x " + std::to_string(s.n);
            EXPECT_TRUE(same_bits(part, Mat(tall.topRows(rows)))) << where;
            EXPECT_TRUE(same_bits(part_packed, Mat(tall.topRows(rows)))) << where;
        }
    }
    Eigen::setNbThreads(threads);
}
