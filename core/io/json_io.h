// JSON files of the engine: the attnlab-trace export and weight import (attnlab and PyTorch layouts).
#pragma once

#include "core/session.h"
#include "core/status.h"
#include "core/trace.h"
#include "core/weights.h"

#include <string>
#include <string_view>

namespace attnlab
{

inline constexpr const char* kTraceFormat = "attnlab-trace";
inline constexpr const char* kWeightsFormat = "attnlab-weights";
inline constexpr int kTraceVersion = 1;
inline constexpr int kWeightsVersion = 1;

// [SECTION] Export (core/io/FORMAT.md describes the files)

// Writes the whole trace as "attnlab-trace" version 1: config, tokens, weights, every stage of every layer
// (walking stage_table()), cross-attention when present, and the comparisons for layer 0, head 0 and every
// sentence. −∞ is written as null. The file appears only when it is complete (temporary file + rename).
// weights_source is recorded in "config" ("" for seeded weights).
Status write_trace_json(const Trace& trace, const ModelWeights& weights, const std::string& path,
                        const std::string& weights_source = "");

// The same document as a string (tests and small traces).
std::string trace_to_json(const Trace& trace, const ModelWeights& weights,
                          const std::string& weights_source = "");

// Writes {"format": "attnlab-weights", "version": 1, "config": {...}, "weights": {...}}.
Status write_weights_json(const ModelWeights& weights, const Config& config, const std::string& path);

// [SECTION] Import

// Reads the "weights" object of an attnlab file (a trace export, an attnlab-weights file, or a file that
// is just {"weights": {...}}) into out, for this config. Every malformed field or shape mismatch is an error
// naming the field and the expected shape; then check_weights(out, config) must pass. A file without
// "cross" gets the seeded cross-attention weights of the config. On error out is left unchanged.
Status load_weights_file(const std::string& path, const Config& config, ModelWeights* out);
// The same from text; source names it in messages ("weights.json").
Status parse_weights_json(std::string_view text, const std::string& source, const Config& config,
                          ModelWeights* out);

// Reads a PyTorch state dict written as JSON (parameter name -> nested lists), for
//   nn.MultiheadAttention        in_proj_weight (3E, E) = [W_q; W_k; W_v], out_proj.weight (E, E)
//   nn.TransformerEncoderLayer   self_attn.*, linear1.*, linear2.*, norm1.*, norm2.* (post-LN, ReLU)
//   nn.TransformerEncoder        layers.<i>.<the above>
// optionally wrapped as {"state_dict": {...}}. PyTorch computes x Wᵀ + b, so every matrix is transposed
// once here into the paper's orientation: W_Q[j] = (rows j·d_k .. of W_q)ᵀ, W_O = out_proj.weightᵀ,
// W_1 = linear1.weightᵀ, W_2 = linear2.weightᵀ. The attention has no biases in attnlab, so
// in_proj_bias and out_proj.bias must be absent or zero. A bare nn.MultiheadAttention fills layer 0's
// attention only; the rest (FFN, LayerNorm, other layers, cross-attention) keeps the seeded weights.
// Needs d_k = d_v = d_model / h, as PyTorch does.
Status load_torch_weights_file(const std::string& path, const Config& config, ModelWeights* out);
Status parse_torch_weights_json(std::string_view text, const std::string& source, const Config& config,
                                ModelWeights* out);

// Loads either layout: a file with a top-level "in_proj_weight", "self_attn.in_proj_weight",
// "layers.0.self_attn.in_proj_weight" or "state_dict" is read as PyTorch's, any other as attnlab's.
Status load_any_weights_file(const std::string& path, const Config& config, ModelWeights* out);

// [SECTION] Helpers shared with the CLI

// Floats kept by a trace: every matrix of every stage (embedding, positional, layers, cross). Bytes = 4x.
size_t trace_float_count(const Trace& trace);

} // namespace attnlab
