// Token embeddings from a hash of (seed, token, column), and the paper's sinusoidal positional encoding.
#include "embedding.h"

#include "random.h"

#include <cmath>

namespace attnlab
{

std::uint64_t hash_string(const std::string& text)
{
    std::uint64_t h = 0xCBF29CE484222325ull; // FNV-1a offset basis
    for (unsigned char c : text)
    {
        h ^= c;
        h *= 0x100000001B3ull; // FNV prime
    }
    return h;
}

void embed_token(const std::string& token, int d_model, std::uint64_t seed, Eigen::Ref<RowVec> out)
{
    const std::uint64_t seed_key = mix64(seed ^ 0x656D6265646Dull); // "embedm"
    const std::uint64_t token_key = mix64(seed_key ^ hash_string(token));
    for (int c = 0; c < d_model; ++c)
        out(c) = normal01(token_key + static_cast<std::uint64_t>(c) * 0x2545F491ull);
}

void embed_tokens(const std::vector<std::string>& tokens, int d_model, std::uint64_t seed, Mat& out)
{
    out.resize(static_cast<Eigen::Index>(tokens.size()), d_model);
    for (size_t t = 0; t < tokens.size(); ++t)
        embed_token(tokens[t], d_model, seed, out.row(static_cast<Eigen::Index>(t)));
}

void positional_encoding(PositionalKind kind, int T, int d_model, Mat& out)
{
    out.resize(T, d_model);
    if (kind == PositionalKind::None)
    {
        out.setZero();
        return;
    }
    for (int c = 0; c < d_model; c += 2)
    {
        // PE(pos, 2i) = sin(pos / 10000^(2i / d_model)), PE(pos, 2i + 1) = cos(pos / 10000^(2i / d_model))
        const double inv_freq = std::pow(10000.0, -static_cast<double>(c) / d_model);
        for (int pos = 0; pos < T; ++pos)
        {
            const double angle = pos * inv_freq;
            out(pos, c) = static_cast<float>(std::sin(angle));
            if (c + 1 < d_model)
                out(pos, c + 1) = static_cast<float>(std::cos(angle));
        }
    }
}

} // namespace attnlab
