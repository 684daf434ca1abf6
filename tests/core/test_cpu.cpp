// The kernels' instruction set (core/cpu.h): which one runs, ATTNLAB_ISA, and that switching refuses a set
// the CPU lacks. ATTNLAB_EXPECT_ISA (set where the suite runs this binary under an emulated CPU,
// tests/CMakeLists) names the set that must have been chosen there.
#include "core/cpu.h"
#include "core/gemm.h"
#include "core/kernels/kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

using namespace attnlab;

TEST(Cpu, TheActiveSetIsWhatTheEnvironmentAsksOrTheBestTheCpuHas)
{
    const char* asked = std::getenv("ATTNLAB_ISA");
    Isa wanted = Isa::Baseline;
    if (asked != nullptr && parse_isa(asked, &wanted) && wanted <= cpu_isa())
    {
        EXPECT_EQ(active_isa(), wanted);
        EXPECT_EQ(isa_note(), "");
    }
    else if (asked == nullptr || *asked == '\0')
        EXPECT_EQ(active_isa(), cpu_isa());
    else
    {
        EXPECT_EQ(active_isa(), cpu_isa());
        EXPECT_NE(isa_note().find("ATTNLAB_ISA="), std::string::npos) << isa_note();
    }
    if (const char* expect = std::getenv("ATTNLAB_EXPECT_ISA"))
    {
        EXPECT_STREQ(isa_name(active_isa()), expect);
    }
}

TEST(Cpu, NamesGoBothWays)
{
    for (const Isa isa : {Isa::Baseline, Isa::Avx2, Isa::Avx512})
    {
        Isa back = Isa::Avx512;
        ASSERT_TRUE(parse_isa(isa_name(isa), &back));
        EXPECT_EQ(back, isa);
    }
    Isa untouched = Isa::Avx2;
    EXPECT_FALSE(parse_isa("sse9", &untouched));
    EXPECT_FALSE(parse_isa("", &untouched));
    EXPECT_EQ(untouched, Isa::Avx2);
}

TEST(Cpu, SwitchingFollowsTheCpuAndRefusesWhatItLacks)
{
    const Isa before = active_isa();
    for (const Isa isa : {Isa::Baseline, Isa::Avx2, Isa::Avx512})
    {
        const Status switched = set_active_isa(isa);
        if (isa <= cpu_isa())
        {
            EXPECT_TRUE(switched) << switched.message();
            EXPECT_EQ(active_isa(), isa);
            EXPECT_EQ(std::string(gemm_kernel()), isa == Isa::Avx512 ? "avx512-6x64"
                                                  : isa == Isa::Avx2 ? "avx2-6x16"
                                                                     : "eigen");
        }
        else
        {
            EXPECT_FALSE(switched) << isa_name(isa);
            EXPECT_NE(switched.message().find(isa_name(isa)), std::string::npos) << switched.message();
        }
    }
    ASSERT_TRUE(set_active_isa(before));
    EXPECT_EQ(active_isa(), before);
}

TEST(Cpu, PeakProbesDoEveryRoundOfTheirChains)
{
    // Chain j runs c = c m + a from 1 + j / 64, every lane alike, so after n rounds the probe's sum is lanes
    // x the sum over the chains of c_j(n). A probe that skipped its loop, or merged its chains, would give
    // another sum.
    const kernels::Index rounds = 1000;
    double chains_sum = 0.0, starts_sum = 0.0;
    for (int j = 0; j < kernels::kFmaProbeChains; ++j)
    {
        float c = 1.0f + static_cast<float>(j) / 64.0f;
        starts_sum += c;
        for (kernels::Index i = 0; i < rounds; ++i)
            c = std::fma(c, 0.9999999f, 1e-8f);
        chains_sum += c;
    }
    ASSERT_LT(chains_sum, starts_sum - 1e-3) << "the rounds must move the chains away from their start";
    const Isa best = cpu_isa();
    if (best >= Isa::Avx2)
    {
        EXPECT_NEAR(kernels::fma_probe_avx2(rounds), 8 * chains_sum, 1e-3);
    }
    if (best >= Isa::Avx512)
    {
        EXPECT_NEAR(kernels::fma_probe_avx512(rounds), 16 * chains_sum, 1e-3);
    }
    // The measured rate, on whichever set is active: a positive, finite figure.
    const double peak = measure_peak_gflops(0.01);
    EXPECT_GT(peak, 0.0);
    EXPECT_TRUE(std::isfinite(peak));
}
