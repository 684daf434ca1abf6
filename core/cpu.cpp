// Picks the kernels' instruction set from cpuid and ATTNLAB_ISA (cpu.h).
#include "core/cpu.h"

#include "core/gemm.h"
#include "core/kernels/kernels.h"

#include <atomic>
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

Status set_active_isa(Isa isa)
{
    active_isa(); // ATTNLAB_ISA read first, so a later first call does not overwrite this choice
    if (!cpu_has(isa))
        return Status::error(std::string("This CPU (or build) has no ") + isa_name(isa) + " kernels.");
    g_active.store(static_cast<int>(isa), std::memory_order_release);
    return Status::ok();
}

} // namespace attnlab
