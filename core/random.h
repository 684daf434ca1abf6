// Counter-based random numbers: a value depends only on its key, so results never depend on call order.
#pragma once

#include <cmath>
#include <cstdint>

namespace attnlab
{

// SplitMix64's finaliser: a bijective mix of 64 bits.
inline std::uint64_t mix64(std::uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// A uniform number in (0, 1) from a key (24 bits of mantissa, never 0 or 1).
inline double uniform01(std::uint64_t key)
{
    return (static_cast<double>(mix64(key) >> 40) + 0.5) / 16777216.0;
}

// A standard normal number from a key (Box-Muller on two derived uniforms).
inline float normal01(std::uint64_t key)
{
    const double u1 = uniform01(key * 2 + 1);
    const double u2 = uniform01(key * 2 + 2);
    return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
}

} // namespace attnlab
