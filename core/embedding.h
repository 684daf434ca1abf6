// Token embeddings and positional encodings: deterministic, so the same word keeps its vector.
#pragma once

#include "matrix.h"
#include "session.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab
{

// Row t = the embedding of tokens[t]: N(0, 1) entries drawn from a hash of (seed, token text, column), so a
// word's vector depends only on its text and the seed, not on its position or the other tokens, and its
// first n entries stay the same when d_model grows.
void embed_tokens(const std::vector<std::string>& tokens, int d_model, std::uint64_t seed, Mat& out);

// One token's embedding into a row of length d_model (the same numbers embed_tokens gives it).
void embed_token(const std::string& token, int d_model, std::uint64_t seed, Eigen::Ref<RowVec> out);

// (T, d_model) positional encoding; zeros for PositionalKind::None.
void positional_encoding(PositionalKind kind, int T, int d_model, Mat& out);

// A stable 64-bit hash of a string (FNV-1a), the same on every platform.
std::uint64_t hash_string(const std::string& text);

} // namespace attnlab
