// Which instruction set the hot kernels (core/kernels) run on: chosen once, at the first product, from what
// this CPU has (cpuid), or from the environment variable ATTNLAB_ISA=baseline|avx2|avx512 (tests force each
// path with it). The rest of the program is compiled for the build's baseline, so one binary runs at full
// speed on every x86-64 CPU.
#pragma once

#include "core/status.h"

#include <string>

namespace attnlab
{

namespace kernels
{
struct TrainKernels;
}

enum class Isa
{
    Baseline, // Eigen's kernels, compiled for the build's baseline (x86-64: SSE2)
    Avx2,     // AVX2 with FMA (Haswell, 2013, and later; AMD since 2015)
    Avx512,   // AVX-512 F (Skylake-SP, Ice Lake, Zen 4 and later)
};

// "baseline", "avx2", "avx512".
const char* isa_name(Isa isa);

// The best set this CPU runs and this build has kernels for.
Isa cpu_isa();

// The set the kernels use: ATTNLAB_ISA's if it names one this CPU runs, else cpu_isa(). Fixed at the first
// call (thread-safe), until set_active_isa.
Isa active_isa();

// The active set's product and row kernels (core/kernels/kernels.h), or null on the baseline path.
const kernels::TrainKernels* active_kernels();

// Why ATTNLAB_ISA was not followed (an unknown name, or a set this CPU lacks), to print once; empty when it
// was followed or is unset.
std::string isa_note();

// Switches the kernels to `isa` (tests and benchmarks compare the paths in one process). Refuses, changing
// nothing, a set this CPU or build cannot run. Not while another thread runs a product.
Status set_active_isa(Isa isa);

// The kernels in use, for benchmark output: "isa=avx2 (cpu: avx512) products=avx2-6x16 forward=eigen".
std::string kernels_in_use();

// One core's peak float rate on the active set, in GFLOP/s, measured for about `seconds` by a probe of
// independent multiply-add chains in registers (core/kernels/kernels.h): the ceiling a product on this path
// can approach. The baseline path's probe is SSE2's separate multiply and add, 4 lanes.
double measure_peak_gflops(double seconds = 0.05);

// "baseline", "avx2" or "avx512" to its Isa; false for anything else.
bool parse_isa(const std::string& name, Isa* out);

} // namespace attnlab
