// Test helper: writes .safetensors files (and sharded folders) in the Hugging Face layout from named float
// arrays in F32, F16 or BF16, with byte gaps that leave tensors at unaligned offsets.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab::test
{

// One tensor to write. raw, when not empty, is written as its data instead of values (for bad files).
struct TestTensor
{
    std::string name;
    std::string dtype = "F32";
    std::vector<std::int64_t> shape;
    std::vector<float> values;
    std::string raw;
};

// float → IEEE half bits, for values a half holds exactly (normal or subnormal, ±0, ±inf); throws otherwise.
// Written apart from the reader's conversion (the other direction), so a test compares two independent codes.
inline std::uint16_t exact_f16(float v)
{
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
    const float a = std::fabs(v);
    if (a == 0.0f)
        return sign;
    if (std::isinf(a))
        return static_cast<std::uint16_t>(sign | 0x7C00u);
    int e = 0;
    const float m = std::frexp(a, &e); // a = m 2^e, m in [0.5, 1)
    if (e - 1 >= -14)                  // normal: 1.f x 2^(e-1)
    {
        const float f = (m * 2.0f - 1.0f) * 1024.0f;
        if (e - 1 > 15 || f != std::floor(f))
            throw std::runtime_error("not exact in F16");
        return static_cast<std::uint16_t>(sign | ((e - 1 + 15) << 10) | static_cast<int>(f));
    }
    const float f = std::ldexp(a, 24); // subnormal: f x 2^-24
    if (f != std::floor(f) || f >= 1024.0f)
        throw std::runtime_error("not exact in F16");
    return static_cast<std::uint16_t>(sign | static_cast<int>(f));
}

// float → bfloat16 bits, for values with at most 8 significant bits; throws otherwise.
inline std::uint16_t exact_bf16(float v)
{
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    if ((bits & 0xFFFFu) != 0)
        throw std::runtime_error("not exact in BF16");
    return static_cast<std::uint16_t>(bits >> 16);
}

// The bytes of one tensor's data.
inline std::string tensor_bytes(const TestTensor& t)
{
    if (!t.raw.empty())
        return t.raw;
    std::string out;
    for (const float v : t.values)
    {
        if (t.dtype == "F32")
            out.append(reinterpret_cast<const char*>(&v), 4);
        else
        {
            const std::uint16_t h = t.dtype == "F16" ? exact_f16(v) : exact_bf16(v);
            out.push_back(static_cast<char>(h & 0xFF));
            out.push_back(static_cast<char>(h >> 8));
        }
    }
    return out;
}

// A whole file: 8-byte little-endian header length, the JSON header (metadata as "__metadata__" when not
// null), then each tensor's data after gap bytes (gap 1 or 3 leaves tensors at odd offsets). header_pad
// spaces end the header (the HF writer pads it to a multiple of 8; 0 leaves the data unaligned too).
inline std::string safetensors_bytes(const std::vector<TestTensor>& tensors,
                                     const nlohmann::json& metadata = nullptr, std::size_t gap = 1,
                                     std::size_t header_pad = 0)
{
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.is_null())
        header["__metadata__"] = metadata;
    std::string data;
    for (const TestTensor& t : tensors)
    {
        data.append(gap, '\x5A');
        const std::string bytes = tensor_bytes(t);
        header[t.name] = {{"dtype", t.dtype},
                          {"shape", t.shape},
                          {"data_offsets", {data.size(), data.size() + bytes.size()}}};
        data += bytes;
    }
    const std::string text = header.dump() + std::string(header_pad, ' ');
    std::string out;
    std::uint64_t n = text.size();
    for (int i = 0; i < 8; ++i, n >>= 8)
        out.push_back(static_cast<char>(n & 0xFF));
    return out + text + data;
}

// A header written as given (for bad headers), with data_size bytes of data after it.
inline std::string raw_safetensors(const std::string& header, std::size_t data_size)
{
    std::string out;
    std::uint64_t n = header.size();
    for (int i = 0; i < 8; ++i, n >>= 8)
        out.push_back(static_cast<char>(n & 0xFF));
    return out + header + std::string(data_size, '\0');
}

inline void write_bytes(const std::string& path, const std::string& bytes)
{
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

} // namespace attnlab::test
