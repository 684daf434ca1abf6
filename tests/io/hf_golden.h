// Test helper: the PyTorch goldens of the tiny Hugging Face models in tests/data/hf_tiny (made by
// tests/data/make_hf_goldens.py) read into named float64 matrices, and copies of a model folder in F16 or
// BF16, with or without the "transformer." / "bert." prefix, for tests that compare an engine with them.
#pragma once

#include "core/io/safetensors.h"
#include "safetensors_writer.h"

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnlab::test
{

// A golden matrix: float64, rows x cols as the JSON writes it (rows are positions, or head j's rows
// [j T, (j+1) T) for scores, scaled, masked and weights).
using GoldenMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// One golden file (gpt2_golden.json or bert_golden.json).
struct HfGolden
{
    nlohmann::json config;           // model_type, d_model, n_heads, d_k, n_layers, d_ff, n_positions,
                                     // vocab_size, layer_norm_eps, activation, norm ("pre"/"post"), causal
    std::string text;                // the text encoded
    std::vector<std::string> tokens; // [T] the vocabulary's strings ("Ġcat", "##ing", "[CLS]")
    std::vector<int> token_ids;      // [T]
    std::vector<int> token_type_ids; // [T] BERT only (all 0)
    // Outside the layers: "embed" (E[ids] + P[0..T) (+ token type 0), before any LayerNorm), BERT's
    // "embed_norm" (layer 0's X), GPT-2's "lnf", BERT's "mlm_pre", "mlm_hidden", "mlm_norm", and "logits",
    // "probs" (T x V).
    std::map<std::string, GoldenMat> top;
    // Per layer, transformer.h's LayerActsT names: X ln1 Q K V scores scaled masked weights concat mha
    // residual ln2 ffn_pre ffn_hidden ffn residual2 ("masked" holds -inf where a key is masked).
    std::vector<std::map<std::string, GoldenMat>> layers;
    nlohmann::json sensitivity; // how far each mistake the goldens guard against moves them (the script's)

    int T() const { return static_cast<int>(token_ids.size()); }

    // The matrix of that name; throws std::out_of_range naming it when absent.
    const GoldenMat& at(const std::string& name) const
    {
        const auto it = top.find(name);
        if (it == top.end())
            throw std::out_of_range("golden has no \"" + name + "\"");
        return it->second;
    }
    const GoldenMat& layer(int i, const std::string& name) const
    {
        const auto& acts = layers.at(static_cast<std::size_t>(i));
        const auto it = acts.find(name);
        if (it == acts.end())
            throw std::out_of_range("golden layer " + std::to_string(i) + " has no \"" + name + "\"");
        return it->second;
    }
};

// tests/data/hf_tiny: the folders gpt2/ and bert/ and their goldens.
inline std::filesystem::path hf_tiny_dir()
{
    return std::filesystem::path(ATTNLAB_SOURCE_DIR) / "tests" / "data" / "hf_tiny";
}

// A JSON array of rows as a matrix (null read as -inf); throws std::runtime_error on ragged rows.
inline GoldenMat golden_matrix(const nlohmann::json& rows, const std::string& name)
{
    if (!rows.is_array() || rows.empty() || !rows[0].is_array())
        throw std::runtime_error("golden \"" + name + "\" is not a list of rows");
    GoldenMat m(rows.size(), rows[0].size());
    for (std::size_t r = 0; r < rows.size(); ++r)
    {
        if (rows[r].size() != rows[0].size())
            throw std::runtime_error("golden \"" + name + "\" has rows of different lengths");
        for (std::size_t c = 0; c < rows[r].size(); ++c)
            m(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) =
                rows[r][c].is_null() ? -std::numeric_limits<double>::infinity() : rows[r][c].get<double>();
    }
    return m;
}

// Reads a golden file; throws std::runtime_error (or nlohmann's exceptions) when it is damaged.
inline HfGolden load_hf_golden(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot open " + path.string());
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json j = nlohmann::json::parse(text.str());
    HfGolden g;
    g.config = j.at("config");
    g.text = j.at("text").get<std::string>();
    g.tokens = j.at("tokens").get<std::vector<std::string>>();
    g.token_ids = j.at("token_ids").get<std::vector<int>>();
    if (j.contains("token_type_ids"))
        g.token_type_ids = j.at("token_type_ids").get<std::vector<int>>();
    g.sensitivity = j.at("sensitivity");
    for (const char* name :
         {"embed", "embed_norm", "lnf", "mlm_pre", "mlm_hidden", "mlm_norm", "logits", "probs"})
        if (j.contains(name))
            g.top[name] = golden_matrix(j.at(name), name);
    for (const nlohmann::json& layer : j.at("layers"))
    {
        std::map<std::string, GoldenMat> acts;
        for (const auto& [name, rows] : layer.items())
            acts[name] = golden_matrix(rows, name);
        g.layers.push_back(std::move(acts));
    }
    return g;
}

// The name a tensor has in a copy without the base model's prefix ("transformer.wte.weight" → "wte.weight";
// "cls.predictions.bias" unchanged).
inline std::string strip_hf_prefix(const std::string& name)
{
    for (const char* prefix : {"transformer.", "bert."})
        if (name.rfind(prefix, 0) == 0)
            return name.substr(std::string(prefix).size());
    return name;
}

// Copies the model folder src to dst (created): every file but model.safetensors as is, and the tensors of
// src's model.safetensors rewritten in dtype ("F32", "F16" or "BF16"; the values must be exact in it, as the
// goldens' k/256 · 2^e are), without the name prefix when strip_prefix, at unaligned offsets. GPT-2's
// causal-mask buffers (attn.bias, attn.masked_bias: -1e4 is not exact in BF16) stay F32, a mixed file.
// Throws std::runtime_error when src cannot be read.
inline void write_hf_variant(const std::filesystem::path& src, const std::filesystem::path& dst,
                             const std::string& dtype, bool strip_prefix)
{
    namespace fs = std::filesystem;
    fs::create_directories(dst);
    for (const fs::directory_entry& entry : fs::directory_iterator(src))
        if (entry.path().filename() != "model.safetensors")
            fs::copy_file(entry.path(), dst / entry.path().filename(), fs::copy_options::overwrite_existing);
    SafetensorsIndex index;
    if (const Status s = open_safetensors_file((src / "model.safetensors").string(), &index); !s)
        throw std::runtime_error(s.message());
    std::vector<TestTensor> tensors;
    for (const TensorInfo& info : index.tensors)
    {
        Mat m;
        if (const Status s = read_tensor(index, info.name, &m); !s)
            throw std::runtime_error(s.message());
        const auto ends_with = [&](const std::string& tail)
        {
            return info.name.size() >= tail.size() &&
                   info.name.compare(info.name.size() - tail.size(), tail.size(), tail) == 0;
        };
        const bool buffer = ends_with(".attn.bias") || ends_with(".attn.masked_bias");
        TestTensor t;
        t.name = strip_prefix ? strip_hf_prefix(info.name) : info.name;
        t.dtype = buffer ? "F32" : dtype;
        t.shape = info.shape;
        t.values.assign(m.data(), m.data() + m.size()); // row-major: the stored order
        tensors.push_back(std::move(t));
    }
    write_bytes((dst / "model.safetensors").string(), safetensors_bytes(tensors, {{"format", "pt"}}, 3));
}

} // namespace attnlab::test
