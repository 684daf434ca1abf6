// The kernels' instruction set (core/cpu.h): which one runs, ATTNLAB_ISA, and that switching refuses a set
// the CPU lacks. ATTNLAB_EXPECT_ISA (set where the suite runs this binary under an emulated CPU,
// tests/CMakeLists) names the set that must have been chosen there.
#include "core/cpu.h"
#include "core/gemm.h"

#include <gtest/gtest.h>

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
