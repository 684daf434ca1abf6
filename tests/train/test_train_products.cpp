// The training engine's float products against double products: every shape class the kernels split on
// (rows past a tile of 6, columns past a panel of 16 or 8, ragged both), strided blocks, and the causal
// triangles.
#include "core/cpu.h"
#include "core/kernels/kernels.h"
#include "core/random.h"
#include "core/train/products.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace attnlab;
using namespace attnlab::train;

namespace
{

using Index = Eigen::Index;
using MatD = MatT<double>;
using MatF = MatT<float>;

// Entries in [-1, 1), seeded.
MatF random_matrix(Index rows, Index cols, std::uint64_t seed)
{
    MatF m(rows, cols);
    for (Index i = 0; i < m.size(); ++i)
        m.data()[i] =
            static_cast<float>(2.0 * uniform01(mix64(seed * 7919 + static_cast<std::uint64_t>(i))) - 1.0);
    return m;
}

// A float sum of k products of numbers in [-1, 1) is off by at most ~k·2⁻²⁴ in each partial sum: 1e-6·k
// leaves room for that and is far below what a wrong index or a dropped term does (an error of ~1).
void expect_near(const MatF& ours, const MatD& expected, Index k, const std::string& what)
{
    ASSERT_EQ(ours.rows(), expected.rows()) << what;
    ASSERT_EQ(ours.cols(), expected.cols()) << what;
    const double tolerance = 1e-6 * static_cast<double>(std::max<Index>(k, 1));
    EXPECT_LE((ours.cast<double>() - expected).cwiseAbs().maxCoeff(), tolerance) << what;
}

const Index kSizes[] = {1, 5, 6, 7, 8, 12, 16, 17, 24, 33, 48};

std::string dims(Index m, Index n, Index k)
{
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

TEST(TrainProducts, WholeMatricesMatchDouble)
{
    std::uint64_t seed = 1;
    for (Index m : kSizes)
        for (Index n : kSizes)
            for (Index k : {Index{1}, Index{7}, Index{16}, Index{33}})
            {
                const MatF A = random_matrix(m, k, seed++), B = random_matrix(k, n, seed++);
                const MatF Bt = random_matrix(n, k, seed++), D = random_matrix(m, n, seed++);
                const MatF A2 = random_matrix(k, m, seed++); // Aᵀ B: A is k x m
                MatF C;
                product(A, B, C);
                expect_near(C, A.cast<double>() * B.cast<double>(), k, "A B " + dims(m, n, k));
                product_bt(A, Bt, C);
                expect_near(C, A.cast<double>() * Bt.cast<double>().transpose(), k, "A Bt " + dims(m, n, k));
                C = D;
                product(A, B, C, true);
                expect_near(C, D.cast<double>() + A.cast<double>() * B.cast<double>(), k + 1,
                            "D + A B " + dims(m, n, k));
                C = D;
                product_bt(A, Bt, C, true);
                expect_near(C, D.cast<double>() + A.cast<double>() * Bt.cast<double>().transpose(), k + 1,
                            "D + A Bt " + dims(m, n, k));
                product_at(A2, random_matrix(k, n, seed), C);
                expect_near(C, A2.cast<double>().transpose() * random_matrix(k, n, seed).cast<double>(), k,
                            "At B " + dims(m, n, k));
                ++seed;
            }
}

TEST(TrainProducts, LongSumsOfAtBRunInBlocks)
{
    // Aᵀ B sums over the B·T rows (a thousand and more) in blocks; a block boundary must neither drop nor
    // repeat a row.
    for (Index k : {Index{127}, Index{128}, Index{129}, Index{1000}})
    {
        const MatF A = random_matrix(k, 13, 40 + static_cast<std::uint64_t>(k));
        const MatF B = random_matrix(k, 20, 41 + static_cast<std::uint64_t>(k));
        MatF C;
        product_at(A, B, C);
        expect_near(C, A.cast<double>().transpose() * B.cast<double>(), k, "k = " + std::to_string(k));
    }
}

// One head's blocks inside larger matrices: rows hd apart, columns from an offset, as the attention uses
// them.
TEST(TrainProducts, StridedBlocksAndCausalTriangles)
{
    std::uint64_t seed = 100;
    for (Index T : {Index{1}, Index{5}, Index{11}, Index{16}, Index{17}, Index{32}})
        for (Index dk : {Index{4}, Index{12}, Index{16}, Index{24}})
        {
            const Index hd = 3 * dk + 5, off = dk + 2; // the head's columns [off, off + dk) of rows hd apart
            const MatF Q = random_matrix(T, hd, seed++), K = random_matrix(T, hd, seed++);
            const MatD Qh = Q.cast<double>().middleCols(off, dk), Kh = K.cast<double>().middleCols(off, dk);
            const std::string what = "T " + std::to_string(T) + " d_k " + std::to_string(dk);

            // S = Q_h K_hᵀ, whole and lower triangle only
            MatF S = MatF::Constant(T, T, 7.0f);
            block_product(Q.data() + off, hd, K.data() + off, hd, true, S.data(), T, T, T, dk);
            const MatD S_expected = Qh * Kh.transpose();
            expect_near(S, S_expected, dk, "Q Kt " + what);
            MatF S_lower = MatF::Constant(T, T, 7.0f);
            block_product(Q.data() + off, hd, K.data() + off, hd, true, S_lower.data(), T, T, T, dk, false,
                          Lower::C);
            for (Index i = 0; i < T; ++i)
                for (Index j = 0; j <= i; ++j)
                    EXPECT_EQ(S_lower(i, j), S(i, j)) << "lower triangle of Q Kt, the same bits " << what;

            // A lower triangular: A V (into a strided output) and Aᵀ V, with and without Lower::A
            MatF A = random_matrix(T, T, seed++);
            for (Index i = 0; i < T; ++i)
                for (Index j = i + 1; j < T; ++j)
                    A(i, j) = 0.0f;
            const MatD Ad = A.cast<double>();
            for (Lower lower : {Lower::None, Lower::A})
            {
                MatF out = MatF::Constant(T, hd, 7.0f);
                block_product(A.data(), T, K.data() + off, hd, false, out.data() + off, hd, T, dk, T, false,
                              lower);
                expect_near(out.middleCols(off, dk), Ad * Kh, T, "A V " + what);
                EXPECT_EQ(out.leftCols(off), MatF::Constant(T, off, 7.0f)) << "A V wrote outside its block";
                MatF at = MatF::Constant(T, hd, 7.0f);
                block_product_at(A.data(), T, Q.data() + off, hd, at.data() + off, hd, T, dk, T, lower);
                expect_near(at.middleCols(off, dk), Ad.transpose() * Qh, T, "At Q " + what);
                EXPECT_EQ(at.rightCols(hd - off - dk), MatF::Constant(T, hd - off - dk, 7.0f))
                    << "At Q wrote outside its block";
            }
        }
}

} // namespace

// Large products are cut into column slabs shared between threads (and a transposed B wider than a slab is
// packed a slab at a time): the result is the same bits on one thread and on two, and matches double.
TEST(TrainProducts, SlabsGiveTheSameBitsOnAnyNumberOfThreads)
{
    const int saved = Eigen::nbThreads();
    const MatF A = random_matrix(37, 96, 901), B = random_matrix(96, 5000, 902),
               Bt = random_matrix(4999, 96, 903);
    MatF one, one_bt, two, two_bt;
    Eigen::setNbThreads(1);
    product(A, B, one);
    product_bt(A, Bt, one_bt);
    Eigen::setNbThreads(2);
    product(A, B, two);
    product_bt(A, Bt, two_bt);
    Eigen::setNbThreads(saved);
    EXPECT_TRUE(one == two);
    EXPECT_TRUE(one_bt == two_bt);
    expect_near(one, A.cast<double>() * B.cast<double>(), 96, "A B, 5000 columns");
    expect_near(one_bt, A.cast<double>() * Bt.cast<double>().transpose(), 96, "A Bt, 4999 columns");
}

// Long sums (a real model's k = 768) take the rows of A in bigger blocks, cut into equal parts: however the
// rows are blocked, every row of C is the same bits as that row computed alone (on the AVX2 and AVX-512
// kernels; Eigen's, on the baseline path, blocks by shape), and matches double.
TEST(TrainProducts, RowBlocksOfLongSumsGiveEachRowItsOwnBits)
{
    const bool own_bits = active_isa() != Isa::Baseline;
    for (Index m : {Index{51}, Index{64}, Index{100}, Index{203}})
    {
        const MatF A = random_matrix(m, 768, 950 + static_cast<std::uint64_t>(m));
        const MatF B = random_matrix(768, 40, 951), Bt = random_matrix(40, 768, 952);
        MatF C, C_bt, row, row_bt;
        product(A, B, C);
        product_bt(A, Bt, C_bt);
        for (Index i = 0; i < m && own_bits; ++i)
        {
            const MatF a = A.row(i);
            product(a, B, row);
            product_bt(a, Bt, row_bt);
            ASSERT_TRUE(MatF(C.row(i)) == row) << "A B, row " << i << " of " << m;
            ASSERT_TRUE(MatF(C_bt.row(i)) == row_bt) << "A Bt, row " << i << " of " << m;
        }
        expect_near(C, A.cast<double>() * B.cast<double>(), 768, "A B, " + std::to_string(m) + " rows");
    }
}

namespace
{

// Every product kind on shapes that cross the tiles of both FMA sets (6 rows, with short last tiles of 1 to
// 5; 16 or 32 columns), with long sums, accumulation, strided causal blocks: the results in order, under the
// active instruction set. For Lower::C only the lower triangle is kept (the rest is not asked for).
std::vector<MatF> every_product_kind()
{
    std::vector<MatF> out;
    std::uint64_t seed = 5000;
    for (Index m : {Index{1}, Index{7}, Index{14}, Index{51}}) // last tiles of 1, 1, 2 and 3 rows
        for (Index n : {Index{5}, Index{16}, Index{33}, Index{64}, Index{100}})
            for (Index k : {Index{1}, Index{33}, Index{300}})
            {
                const MatF A = random_matrix(m, k, seed++), B = random_matrix(k, n, seed++);
                const MatF Bt = random_matrix(n, k, seed++), D = random_matrix(m, n, seed++);
                const MatF A2 = random_matrix(k, m, seed++), B2 = random_matrix(k, n, seed++);
                MatF C;
                product(A, B, C);
                out.push_back(C);
                product_bt(A, Bt, C);
                out.push_back(C);
                C = D;
                product(A, B, C, true);
                out.push_back(C);
                C = D;
                product_bt(A, Bt, C, true);
                out.push_back(C);
                product_at(A2, B2, C);
                out.push_back(C);
            }
    for (Index T : {Index{5}, Index{17}, Index{40}})
    {
        MatF L = random_matrix(T, T, seed++);
        for (Index i = 0; i < T; ++i)
            for (Index j = i + 1; j < T; ++j)
                L(i, j) = 0.0f;
        const MatF V = random_matrix(T, 24, seed++);
        MatF S = MatF::Zero(T, T), LV(T, 24), LtV(T, 24);
        block_product(V.data(), 24, V.data(), 24, true, S.data(), T, T, T, 24, false, Lower::C);
        out.push_back(S.triangularView<Eigen::Lower>().toDenseMatrix());
        block_product(L.data(), T, V.data(), 24, false, LV.data(), 24, T, 24, T, false, Lower::A);
        out.push_back(LV);
        block_product_at(L.data(), T, V.data(), 24, LtV.data(), 24, T, 24, T, Lower::A);
        out.push_back(LtV);
    }
    return out;
}

} // namespace

// The AVX2 and AVX-512 kernels run every entry as the same multiply-add chain: the same bits on every product
// kind. The baseline path (Eigen's kernels and plain loops, without FMA) rounds differently, within the float
// tolerance of expect_near.
TEST(TrainProducts, InstructionSetsGiveTheSameBits)
{
    if (cpu_isa() != Isa::Avx512)
        GTEST_SKIP() << "This CPU has " << isa_name(cpu_isa())
                     << ", so only one FMA kernel set: nothing to compare.";
    const Isa before = active_isa();
    ASSERT_TRUE(set_active_isa(Isa::Avx512));
    const std::vector<MatF> wide = every_product_kind();
    ASSERT_TRUE(set_active_isa(Isa::Avx2));
    const std::vector<MatF> narrow = every_product_kind();
    ASSERT_TRUE(set_active_isa(Isa::Baseline));
    const std::vector<MatF> baseline = every_product_kind();
    ASSERT_TRUE(set_active_isa(before));
    ASSERT_EQ(wide.size(), narrow.size());
    ASSERT_EQ(wide.size(), baseline.size());
    int rounded_apart = 0; // products where baseline's bits differ: the switch really changed the kernels
    for (std::size_t i = 0; i < wide.size(); ++i)
    {
        EXPECT_TRUE(wide[i] == narrow[i]) << "product " << i << ": AVX-512 and AVX2 differ";
        rounded_apart += baseline[i] == wide[i] ? 0 : 1;
        expect_near(baseline[i], wide[i].cast<double>(), 301,
                    "product " + std::to_string(i) + " on baseline");
    }
    EXPECT_GT(rounded_apart, 0) << "the baseline path gave the FMA kernels' bits everywhere";
}

// The AVX-512 set's softmax rows (16 lanes) give the AVX2 set's bits: rows of every length a tile meets
// (partial groups of 8 and 16), -inf entries, entries far enough under the max to flush to 0, a row of only
// -inf, and the temperatures of training (1) and of the window.
TEST(TrainProducts, SoftmaxRowsGiveTheSameBitsOnBothSets)
{
    if (cpu_isa() != Isa::Avx512)
        GTEST_SKIP() << "This CPU has " << isa_name(cpu_isa()) << ", so only one softmax row kernel.";
    const kernels::TrainKernels* wide = kernels::train_kernels_avx512();
    const kernels::TrainKernels* narrow = kernels::train_kernels_avx2();
    ASSERT_NE(wide, nullptr);
    ASSERT_NE(narrow, nullptr);
    ASSERT_NE(wide->softmax_row, narrow->softmax_row) << "the sets share one function: nothing is compared";
    const float minus_inf = -std::numeric_limits<float>::infinity();
    std::uint64_t seed = 5;
    int rows = 0;
    for (Index n = 1; n <= 70; ++n)
        for (const float inv_temperature : {1.0f, 1.0f / 0.7f, 3.0f})
            for (int kind = 0; kind < 4; ++kind)
            {
                MatF x = random_matrix(1, n, seed++) * 12.0f;
                for (Index j = 0; j < n; ++j)
                {
                    if (kind == 1 && j % 3 == 2)
                        x(0, j) = minus_inf; // masked keys
                    if (kind == 2 && j % 2 == 1)
                        x(0, j) = -200.0f; // exp under the smallest normal float: flushed to 0
                    if (kind == 3)
                        x(0, j) = minus_inf; // a fully masked row
                }
                MatF y_wide(1, n), y_narrow(1, n);
                y_wide.setConstant(7.0f);
                y_narrow.setConstant(-7.0f);
                const bool ok_wide = wide->softmax_row(x.data(), n, inv_temperature, y_wide.data());
                const bool ok_narrow = narrow->softmax_row(x.data(), n, inv_temperature, y_narrow.data());
                EXPECT_EQ(ok_wide, kind != 3);
                EXPECT_EQ(ok_wide, ok_narrow);
                EXPECT_EQ(std::memcmp(y_wide.data(), y_narrow.data(), sizeof(float) * static_cast<size_t>(n)),
                          0)
                    << "n = " << n << ", 1/τ = " << inv_temperature << ", kind " << kind;
                if (kind != 3)
                {
                    EXPECT_NEAR(y_wide.sum(), 1.0f, 1e-5f) << n;
                }
                ++rows;
            }
    // In place, as the training engine calls it.
    MatF x = random_matrix(1, 37, 99), y = x;
    MatF in_place = x;
    wide->softmax_row(in_place.data(), 37, 1.0f, in_place.data());
    narrow->softmax_row(x.data(), 37, 1.0f, y.data());
    EXPECT_TRUE(in_place == y);
    EXPECT_EQ(rows, 70 * 3 * 4);
}

// The forward engine's attention rows on AVX-512 give the AVX2 set's bits in all three outputs, and the same
// check of the scores: rows of every length starting anywhere in a matrix (aligned or not for streaming),
// with a mask, with none, with a -0 in the mask, and with a score that is not finite.
TEST(TrainProducts, AttentionRowsGiveTheSameBitsOnBothSets)
{
    if (cpu_isa() != Isa::Avx512)
        GTEST_SKIP() << "This CPU has " << isa_name(cpu_isa()) << ", so only one attention row kernel.";
    const kernels::TrainKernels* wide = kernels::train_kernels_avx512();
    const kernels::TrainKernels* narrow = kernels::train_kernels_avx2();
    ASSERT_NE(wide->attention_row, narrow->attention_row)
        << "the sets share one function: nothing is compared";
    const float minus_inf = -std::numeric_limits<float>::infinity();
    std::uint64_t seed = 11;
    for (Index n = 1; n <= 140; n += (n < 40 ? 1 : 13))
        for (Index offset : {Index{0}, Index{1}, Index{4}, Index{13}})
            for (int kind = 0; kind < 4; ++kind)
            {
                const MatF scores_m = random_matrix(1, n + offset, seed++) * 9.0f;
                MatF mask_m = MatF::Zero(1, n + offset);
                for (Index j = 0; j < n; ++j)
                    if (kind == 1 && (j + 1) % 4 == 0)
                        mask_m(0, offset + j) = minus_inf; // a causal-like mask
                MatF scores_in = scores_m;
                if (kind == 3)
                    scores_in(0, offset + n / 2) = std::numeric_limits<float>::quiet_NaN();
                const float* scores = scores_in.data() + offset;
                const float* mask = kind == 0 || kind == 3 ? nullptr : mask_m.data() + offset;
                if (kind == 2)
                    mask_m(0, offset) = -0.0f; // a mask entry of -0: read, not taken as zeros
                MatF out_w(3, n + offset), out_n(3, n + offset);
                out_w.setConstant(5.0f);
                out_n.setConstant(-5.0f);
                bool finite_w = false, finite_n = true;
                const bool ok_w = wide->attention_row(
                    scores, mask, n, 0.25f, 1.0f / 0.8f, out_w.row(0).data() + offset,
                    out_w.row(1).data() + offset, out_w.row(2).data() + offset, &finite_w);
                const bool ok_n = narrow->attention_row(
                    scores, mask, n, 0.25f, 1.0f / 0.8f, out_n.row(0).data() + offset,
                    out_n.row(1).data() + offset, out_n.row(2).data() + offset, &finite_n);
                const std::string what = "n = " + std::to_string(n) + ", offset " + std::to_string(offset) +
                                         ", kind " + std::to_string(kind);
                EXPECT_EQ(finite_w, finite_n) << what;
                EXPECT_EQ(finite_w, kind != 3) << what;
                // A row with a score that is not finite has no weights to speak of (the engine refuses the
                // trace): only its scaled and masked copies are compared.
                if (kind != 3)
                {
                    EXPECT_EQ(ok_w, ok_n) << what;
                }
                for (int r = 0; r < (kind == 3 ? 2 : 3); ++r)
                    EXPECT_EQ(std::memcmp(out_w.row(r).data() + offset, out_n.row(r).data() + offset,
                                          sizeof(float) * static_cast<size_t>(n)),
                              0)
                        << what << ", output " << r;
            }
}
