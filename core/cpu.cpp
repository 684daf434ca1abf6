// Picks the kernels' instruction set from cpuid and ATTNLAB_ISA (cpu.h).
#include "core/cpu.h"

#include "core/gemm.h"
#include "core/kernels/kernels.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>

namespace attnlab
{

namespace
{

// The active set as an int (-1: not chosen yet), and what ATTNLAB_ISA asked for when it was not followed.
std::atomic<int> g_active{-1};
std::once_flag g_choose_once;
std::string g_note;

bool cpu_has(Isa isa)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    switch (isa)
    {
    case Isa::Baseline:
        return true;
    case Isa::Avx2:
        return kernels::train_kernels_avx2() != nullptr && __builtin_cpu_supports("avx2") &&
               __builtin_cpu_supports("fma");
    case Isa::Avx512:
        return cpu_has(Isa::Avx2) && kernels::train_kernels_avx512() != nullptr &&
               kernels::gemm_kernels_avx512() != nullptr && __builtin_cpu_supports("avx512f");
    }
    return false;
#else
    return isa == Isa::Baseline;
#endif
}

void choose()
{
    Isa chosen = cpu_isa();
    if (const char* asked = std::getenv("ATTNLAB_ISA"); asked != nullptr && *asked != '\0')
    {
        Isa wanted = Isa::Baseline;
        if (!parse_isa(asked, &wanted))
            g_note = std::string("ATTNLAB_ISA=") + asked +
                     " is not an instruction set: use baseline, avx2 or " + "avx512. Running " +
                     isa_name(chosen) + ".";
        else if (!cpu_has(wanted))
            g_note = std::string("ATTNLAB_ISA=") + asked + ": this CPU (or build) has no " +
                     isa_name(wanted) + " kernels. Running " + isa_name(chosen) + ".";
        else
            chosen = wanted;
    }
    g_active.store(static_cast<int>(chosen), std::memory_order_release);
}

} // namespace

const char* isa_name(Isa isa)
{
    switch (isa)
    {
    case Isa::Baseline:
        return "baseline";
    case Isa::Avx2:
        return "avx2";
    case Isa::Avx512:
        return "avx512";
    }
    return "baseline";
}

bool parse_isa(const std::string& name, Isa* out)
{
    for (const Isa isa : {Isa::Baseline, Isa::Avx2, Isa::Avx512})
        if (name == isa_name(isa))
        {
            *out = isa;
            return true;
        }
    return false;
}

Isa cpu_isa()
{
    for (const Isa isa : {Isa::Avx512, Isa::Avx2})
        if (cpu_has(isa))
            return isa;
    return Isa::Baseline;
}

Isa active_isa()
{
    const int active = g_active.load(std::memory_order_acquire);
    if (active >= 0)
        return static_cast<Isa>(active);
    std::call_once(g_choose_once, choose);
    return static_cast<Isa>(g_active.load(std::memory_order_acquire));
}

std::string isa_note()
{
    active_isa();
    return g_note;
}

const kernels::TrainKernels* active_kernels()
{
    switch (active_isa())
    {
    case Isa::Avx512:
        return kernels::train_kernels_avx512();
    case Isa::Avx2:
        return kernels::train_kernels_avx2();
    case Isa::Baseline:
        break;
    }
    return nullptr;
}

std::string kernels_in_use()
{
    const Isa isa = active_isa();
    const kernels::TrainKernels* train = active_kernels();
    return std::string("isa=") + isa_name(isa) + " (cpu: " + isa_name(cpu_isa()) +
           ") products=" + (train != nullptr ? train->name : "eigen") + " forward=" + gemm_kernel();
}

namespace
{

// The baseline probe: fma_probe_avx2's 12 chains on 4-lane vectors of the build's baseline (SSE2 on x86-64),
// a multiply then an add (2 flops) per lane and chain each round.
using Float4 = float __attribute__((vector_size(16)));
float add_probe_baseline(kernels::Index iterations)
{
    const Float4 m = {0.9999999f, 0.9999999f, 0.9999999f, 0.9999999f};
    const Float4 a = {1e-8f, 1e-8f, 1e-8f, 1e-8f};
    Float4 c[kernels::kFmaProbeChains];
    for (int j = 0; j < kernels::kFmaProbeChains; ++j) // chain j from 1 + j / 64 (equal chains would merge)
    {
        const float start = 1.0f + static_cast<float>(j) / 64.0f;
        c[j] = Float4{start, start, start, start};
    }
    for (kernels::Index i = 0; i < iterations; ++i)
        for (Float4& chain : c)
            chain = chain * m + a;
    Float4 sum = c[0];
    for (int j = 1; j < kernels::kFmaProbeChains; ++j)
        sum += c[j];
    return sum[0] + sum[1] + sum[2] + sum[3];
}

} // namespace

double measure_peak_gflops(double seconds)
{
    float (*probe)(kernels::Index) = &add_probe_baseline;
    double lanes = 4;
    switch (active_isa())
    {
    case Isa::Avx512:
        probe = &kernels::fma_probe_avx512;
        lanes = 16;
        break;
    case Isa::Avx2:
        probe = &kernels::fma_probe_avx2;
        lanes = 8;
        break;
    case Isa::Baseline:
        break;
    }
    using Clock = std::chrono::steady_clock;
    const auto time_of = [probe](kernels::Index iterations)
    {
        const auto start = Clock::now();
        volatile float sink = probe(iterations);
        (void)sink;
        return std::chrono::duration<double>(Clock::now() - start).count();
    };
    // Grow the round count until one run takes a fifth of the time, then keep the best of five runs (the
    // least disturbed by other work on the core).
    kernels::Index iterations = 1 << 12;
    while (time_of(iterations) < seconds / 5 && iterations < (kernels::Index(1) << 40))
        iterations *= 2;
    double best = time_of(iterations);
    for (int run = 1; run < 5; ++run)
        best = std::min(best, time_of(iterations));
    const double flops = static_cast<double>(iterations) * kernels::kFmaProbeChains * lanes * 2.0;
    return flops / (best * 1e9);
}

Status set_active_isa(Isa isa)
{
    active_isa(); // ATTNLAB_ISA read first, so a later first call does not overwrite this choice
    if (!cpu_has(isa))
        return Status::error(std::string("This CPU (or build) has no ") + isa_name(isa) + " kernels.");
    g_active.store(static_cast<int>(isa), std::memory_order_release);
    return Status::ok();
}

} // namespace attnlab
