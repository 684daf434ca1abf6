// attnlab bench: the line format on a tiny shape, and bad arguments. Timings are printed, never asserted.
#include "cli_test_util.h"

#include <gtest/gtest.h>

#include <regex>

namespace attnlab::test
{
namespace
{

TEST(BenchCommand, OneLinePerShapeWithTheRequiredFields)
{
    const CliResult r = run_cli({"bench", "--t", "16", "--d-model", "32", "--heads", "4", "--repeats", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::regex line(
        R"(T=16 d_model=32 h=4 forward_ms=[0-9.]+ gflops=[0-9.]+ gemm_gflops=[0-9.]+ )"
        R"(ratio=[0-9.]+ attention_ms=[0-9.]+ trace_mb=[0-9.]+ engine_mb=[0-9.]+ )"
        R"(panels_mb=[0-9.]+ eigen_gemm_gflops=[0-9.]+ gemm_of_peak=[0-9.]+ )"
        R"(layer_of_peak=[0-9.]+ packed_gemm_gflops=[0-9.]+ packed_gemm_of_peak=[0-9.]+\n)");
    EXPECT_TRUE(std::regex_search(r.out, line)) << r.out;
    EXPECT_EQ(line_count(r.out), 2) << r.out; // the header and one shape
    // The forward kernel of the instruction set this CPU runs (AVX-512, AVX2, or Eigen's on the baseline).
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^threads=1 .*kernel=(avx512-6x64|avx2-6x16|eigen) )")))
        << r.out;
    std::smatch peak;
    ASSERT_TRUE(std::regex_search(r.out, peak, std::regex(R"( peak_gflops=([0-9.]+) )"))) << r.out;
    EXPECT_GT(std::stod(peak[1]), 0.0);
}

TEST(BenchCommand, TwoThreadsSplitTheProducts)
{
    // The products split over two threads as the window's recompute splits them (core/gemm.h); a build
    // without OpenMP has one thread only and says so.
    const CliResult r = run_cli(
        {"bench", "--t", "64", "--d-model", "64", "--heads", "2", "--repeats", "1", "--threads", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
#ifdef _OPENMP
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^threads=2 \(requested 2\) )"))) << r.out;
#else
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^threads=1 \(requested 2\) )"))) << r.out;
#endif
    EXPECT_EQ(line_count(r.out), 2) << r.out;
}

TEST(BenchCommand, BadArguments)
{
    for (const std::vector<std::string>& args : {std::vector<std::string>{"bench", "--t", "0"},
                                                 {"bench", "--heads", "x"},
                                                 {"bench", "--threads", "0"},
                                                 {"bench", "--d-model", "99999"}})
    {
        const CliResult r = run_cli(args);
        EXPECT_EQ(r.exit_code, 2) << args[1];
        EXPECT_EQ(line_count(r.err), 1) << r.err;
        EXPECT_NE(r.err.find("attnlab bench: "), std::string::npos) << r.err;
        EXPECT_TRUE(r.out.empty());
    }
    // d_model not divisible by h is the engine's error, reported the same way.
    const CliResult r = run_cli({"bench", "--t", "4", "--d-model", "10", "--heads", "3", "--repeats", "1"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(line_count(r.err), 1) << r.err;
}

} // namespace
} // namespace attnlab::test
