// Weight import: the "weights" object of attnlab files and PyTorch state dicts (transposed at this boundary).
#include "json_io.h"

#include "atomic_file.h"
#include "core/settings.h"
#include "json_parse.h"
#include "json_reader.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <set>

namespace attnlab
{

namespace
{

using json = nlohmann::json;

using Reader = JsonReader;

// Parses JSON text; big arrays that are not weights (the stages of an exported trace) are skipped while
// parsing, so reading the weights of a large trace does not build the whole document in memory.
bool is_skipped_key(const std::string& key)
{
    static const std::set<std::string> skipped = {"layers",     "cross",  "comparisons", "embedding",
                                                  "positional", "tokens", "stages",      "lengths"};
    return skipped.count(key) != 0;
}

Status parse_json(std::string_view text, const Reader& reader, json* out)
{
    return reader.parse(text, out, &is_skipped_key);
}

Status read_attention(const Reader& reader, const json& j, const std::string& prefix, const Config& config,
                      AttentionWeights& out)
{
    if (!j.is_object())
        return reader.error(prefix, "must be an object with W_Q, W_K, W_V, W_O");
    const int h = config.n_heads, d_model = config.d_model;
    const int d_k = config.resolved_d_k(), d_v = config.resolved_d_v();
    ATTNLAB_TRY(reader.member_heads(j, prefix, "W_Q", h, d_model, d_k, "d_model x d_k", out.W_Q));
    ATTNLAB_TRY(reader.member_heads(j, prefix, "W_K", h, d_model, d_k, "d_model x d_k", out.W_K));
    ATTNLAB_TRY(reader.member_heads(j, prefix, "W_V", h, d_model, d_v, "d_model x d_v", out.W_V));
    ATTNLAB_TRY(reader.member_matrix(j, prefix, "W_O", h * d_v, d_model, "h·d_v x d_model", out.W_O));
    return Status::ok();
}

Status read_layer(const Reader& reader, const json& j, int index, const Config& config, LayerWeights& out)
{
    const std::string prefix = "weights.layers[" + std::to_string(index) + "]";
    ATTNLAB_TRY(read_attention(reader, j, prefix, config, out.attn));
    const int d_model = config.d_model, d_ff = config.resolved_d_ff();
    ATTNLAB_TRY(reader.member_matrix(j, prefix, "W_1", d_model, d_ff, "d_model x d_ff", out.W_1));
    ATTNLAB_TRY(reader.member_vector(j, prefix, "b_1", d_ff, "d_ff", out.b_1));
    ATTNLAB_TRY(reader.member_matrix(j, prefix, "W_2", d_ff, d_model, "d_ff x d_model", out.W_2));
    ATTNLAB_TRY(reader.member_vector(j, prefix, "b_2", d_model, "d_model", out.b_2));
    const struct
    {
        const char* key;
        RowVec* target;
    } norms[] = {{"gamma_1", &out.gamma_1},
                 {"beta_1", &out.beta_1},
                 {"gamma_2", &out.gamma_2},
                 {"beta_2", &out.beta_2}};
    for (const auto& norm : norms)
    {
        ATTNLAB_TRY(reader.member_vector(j, prefix, norm.key, d_model, "d_model", *norm.target));
    }
    return Status::ok();
}

Status check_header(const Reader& reader, const json& root)
{
    if (!root.is_object())
        return reader.error("expected a JSON object with a \"weights\" object");
    // A bare {"weights": ...} object has no header; a file that names its format must name one of these.
    if (root.contains("format"))
    {
        ATTNLAB_TRY(reader.format(root, {kTraceFormat, kWeightsFormat}));
        const int newest = root["format"] == kTraceFormat ? kTraceVersion : kWeightsVersion;
        int version = 0;
        ATTNLAB_TRY(reader.version(root, newest, &version));
    }
    return Status::ok();
}

Status read_weights_root(const Reader& reader, const json& root, const Config& config, ModelWeights* out)
{
    ATTNLAB_TRY(validate_config(config));
    ATTNLAB_TRY(check_header(reader, root));
    const auto weights = root.find("weights");
    if (weights == root.end() || !weights->is_object())
        return reader.error(weights == root.end() ? "no \"weights\" object found"
                                                  : "\"weights\" must be an object");
    const auto layers = weights->find("layers");
    if (layers == weights->end() || !layers->is_array())
        return reader.error("weights.layers", "must be a list of layer objects");
    if (layers->empty() || static_cast<int>(layers->size()) > Limits::max_layers)
        return reader.error("weights.layers",
                            "holds " + std::to_string(layers->size()) + " layers; a model has 1 to " +
                                std::to_string(Limits::max_layers) +
                                ", so the file is damaged or not made by Attention Lab (export the weights "
                                "again from the window or with attnlab export)");
    if (static_cast<int>(layers->size()) != config.n_layers)
        return reader.error("weights.layers",
                            "holds " + std::to_string(layers->size()) +
                                " layers but the session has N = " + std::to_string(config.n_layers) +
                                " (set the layers to " + std::to_string(layers->size()) + ")");
    ModelWeights result;
    result.layers.resize(static_cast<size_t>(config.n_layers));
    for (int i = 0; i < config.n_layers; ++i)
    {
        const json& layer = (*layers)[static_cast<size_t>(i)];
        if (!layer.is_object())
            return reader.error("weights.layers[" + std::to_string(i) + "]", "must be an object");
        ATTNLAB_TRY(read_layer(reader, layer, i, config, result.layers[static_cast<size_t>(i)]));
    }
    const auto cross = weights->find("cross");
    if (cross != weights->end())
        ATTNLAB_TRY(read_attention(reader, *cross, "weights.cross", config, result.cross));
    else
        result.cross = init_weights(config).cross;
    Status checked = check_weights(result, config);
    if (!checked)
        return reader.error(checked.message());
    *out = std::move(result);
    return Status::ok();
}

// The sizes (the Int settings, walking the settings table) an attnlab file says it was made with, as a hint
// for a shape mismatch ("" when it has none).
std::string config_hint(const json& root)
{
    const auto config = root.find("config");
    if (config == root.end() || !config->is_object())
        return "";
    std::string hint;
    for (const SettingInfo& info : setting_table())
    {
        if (info.kind != SettingKind::Int)
            continue;
        const auto it = config->find(info.key);
        if (it != config->end() && it->is_number_integer() && it->get<long long>() != 0)
            hint += std::string(hint.empty() ? "" : ", ") + info.key + " " + json_excerpt(*it);
    }
    return hint.empty() ? "" : " (the file was made with " + hint + ": use the same settings)";
}

Status read_weights_with_hint(const Reader& reader, const json& root, const Config& config, ModelWeights* out)
{
    Status status = read_weights_root(reader, root, config, out);
    if (status)
        return status;
    return Status::error(status.message() + config_hint(root));
}

// [SECTION] PyTorch state dicts

class TorchDict
{
public:
    TorchDict(const Reader& reader, const json& dict) : reader_(reader), dict_(dict) {}

    bool has(const std::string& name) const { return dict_.contains(name); }

    // A PyTorch parameter of shape (rows, cols).
    Status matrix(const std::string& name, int rows, int cols, const std::string& shape, Mat& out) const
    {
        if (!has(name))
            return reader_.error("\"" + name + "\" is missing from the state dict");
        return reader_.matrix(dict_.at(name), name, rows, cols, shape, out);
    }
    Status vector(const std::string& name, int n, const std::string& shape, RowVec& out) const
    {
        if (!has(name))
            return reader_.error("\"" + name + "\" is missing from the state dict");
        return reader_.vector(dict_.at(name), name, n, shape, out);
    }
    // Absent, or present and all zero: attnlab's attention has no biases.
    Status zero_bias(const std::string& name, int n) const
    {
        if (!has(name) || dict_.at(name).is_null())
            return Status::ok();
        RowVec bias;
        ATTNLAB_TRY(reader_.vector(dict_.at(name), name, n, std::to_string(n), bias));
        if (bias.size() > 0 && bias.cwiseAbs().maxCoeff() != 0.0f)
            return reader_.error(name, "is not zero, but attnlab's attention has no biases (make the module "
                                       "with bias=False or zero it before saving)");
        return Status::ok();
    }

private:
    const Reader& reader_;
    const json& dict_;
};

// nn.MultiheadAttention at prefix ("", "self_attn.", "layers.0.self_attn."): in_proj_weight rows are
// [W_q; W_k; W_v], each (E, E) mapping x to x Wᵀ; head j uses rows j·d_k .. (j+1)·d_k - 1 of each.
Status read_torch_attention(const Reader& reader, const TorchDict& dict, const std::string& prefix,
                            const Config& config, AttentionWeights& out)
{
    const int E = config.d_model, h = config.n_heads, d_k = config.resolved_d_k();
    if (dict.has(prefix + "q_proj_weight"))
        return reader.error("separate q/k/v projections (\"" + prefix +
                            "q_proj_weight\", kdim/vdim != embed_dim) are not supported");
    Mat in_proj, out_proj;
    ATTNLAB_TRY(dict.matrix(prefix + "in_proj_weight", 3 * E, E, "3·d_model x d_model", in_proj));
    ATTNLAB_TRY(dict.zero_bias(prefix + "in_proj_bias", 3 * E));
    ATTNLAB_TRY(dict.matrix(prefix + "out_proj.weight", E, E, "d_model x d_model", out_proj));
    ATTNLAB_TRY(dict.zero_bias(prefix + "out_proj.bias", E));
    out.W_Q.resize(static_cast<size_t>(h));
    out.W_K.resize(static_cast<size_t>(h));
    out.W_V.resize(static_cast<size_t>(h));
    for (int j = 0; j < h; ++j)
    {
        // (d_k, E) rows of PyTorch's W_q, transposed: the paper's (d_model, d_k) W_j^Q.
        out.W_Q[static_cast<size_t>(j)] = in_proj.block(j * d_k, 0, d_k, E).transpose();
        out.W_K[static_cast<size_t>(j)] = in_proj.block(E + j * d_k, 0, d_k, E).transpose();
        out.W_V[static_cast<size_t>(j)] = in_proj.block(2 * E + j * d_k, 0, d_k, E).transpose();
    }
    out.W_O = out_proj.transpose(); // (h·d_v, d_model): Concat(...) W^O = Concat(...) out_proj.weightᵀ
    return Status::ok();
}

// nn.TransformerEncoderLayer (post-LN, ReLU) at prefix ("" or "layers.<i>.").
Status read_torch_layer(const Reader& reader, const TorchDict& dict, const std::string& prefix,
                        const Config& config, LayerWeights& out)
{
    const int E = config.d_model, d_ff = config.resolved_d_ff();
    ATTNLAB_TRY(read_torch_attention(reader, dict, prefix + "self_attn.", config, out.attn));
    Mat linear1, linear2;
    ATTNLAB_TRY(dict.matrix(prefix + "linear1.weight", d_ff, E, "d_ff x d_model", linear1));
    ATTNLAB_TRY(dict.vector(prefix + "linear1.bias", d_ff, "d_ff", out.b_1));
    ATTNLAB_TRY(dict.matrix(prefix + "linear2.weight", E, d_ff, "d_model x d_ff", linear2));
    ATTNLAB_TRY(dict.vector(prefix + "linear2.bias", E, "d_model", out.b_2));
    out.W_1 = linear1.transpose();
    out.W_2 = linear2.transpose();
    ATTNLAB_TRY(dict.vector(prefix + "norm1.weight", E, "d_model", out.gamma_1));
    ATTNLAB_TRY(dict.vector(prefix + "norm1.bias", E, "d_model", out.beta_1));
    ATTNLAB_TRY(dict.vector(prefix + "norm2.weight", E, "d_model", out.gamma_2));
    ATTNLAB_TRY(dict.vector(prefix + "norm2.bias", E, "d_model", out.beta_2));
    return Status::ok();
}

bool is_torch_state_dict(const json& root)
{
    return root.is_object() &&
           (root.contains("state_dict") || root.contains("in_proj_weight") ||
            root.contains("self_attn.in_proj_weight") || root.contains("layers.0.self_attn.in_proj_weight"));
}

Status read_torch_root(const Reader& reader, const json& root, const Config& config, ModelWeights* out)
{
    ATTNLAB_TRY(validate_config(config));
    if (!root.is_object())
        return reader.error("expected a JSON object mapping PyTorch parameter names to nested lists");
    const json& dict_json = root.contains("state_dict") ? root.at("state_dict") : root;
    if (!dict_json.is_object())
        return reader.error("state_dict", "must be an object mapping parameter names to nested lists");
    if (config.d_model % config.n_heads != 0 || config.resolved_d_k() != config.d_model / config.n_heads ||
        config.resolved_d_v() != config.d_model / config.n_heads)
        return reader.error("PyTorch's attention uses d_k = d_v = d_model / h; leave d_k and d_v at their "
                            "defaults to import it");
    const TorchDict dict(reader, dict_json);
    ModelWeights result = init_weights(config);
    Status status;
    if (dict.has("layers.0.self_attn.in_proj_weight"))
    {
        int n = 0;
        while (dict.has("layers." + std::to_string(n) + ".self_attn.in_proj_weight"))
            ++n;
        if (n != config.n_layers)
            return reader.error("the state dict has " + std::to_string(n) +
                                " encoder layers but the session has "
                                "N = " +
                                std::to_string(config.n_layers) + " (set the layers to " + std::to_string(n) +
                                ")");
        for (int i = 0; i < n && status; ++i)
            status = read_torch_layer(reader, dict, "layers." + std::to_string(i) + ".", config,
                                      result.layers[static_cast<size_t>(i)]);
    }
    else if (dict.has("self_attn.in_proj_weight"))
    {
        if (config.n_layers != 1)
            return reader.error("the state dict is one encoder layer but the session has N = " +
                                std::to_string(config.n_layers) + " (set the layers to 1)");
        status = read_torch_layer(reader, dict, "", config, result.layers[0]);
    }
    else if (dict.has("in_proj_weight"))
    {
        status = read_torch_attention(reader, dict, "", config, result.layers[0].attn);
    }
    else
    {
        return reader.error("no \"in_proj_weight\", \"self_attn.in_proj_weight\" or "
                            "\"layers.0.self_attn.in_proj_weight\" found: not an attention state dict");
    }
    if (!status)
        return status;
    Status checked = check_weights(result, config);
    if (!checked)
        return reader.error(checked.message());
    *out = std::move(result);
    return Status::ok();
}

// The "weights" object of an attnlab file, or a PyTorch state dict: whichever the file holds.
Status read_any_root(const Reader& reader, const json& root, const Config& config, ModelWeights* out)
{
    if (is_torch_state_dict(root))
        return read_torch_root(reader, root, config, out);
    return read_weights_with_hint(reader, root, config, out);
}

// Reads the weights from a parsed file (read_weights_with_hint, read_torch_root or read_any_root).
using RootReader = Status (*)(const Reader&, const json&, const Config&, ModelWeights*);

Status parse_with(RootReader read, std::string_view text, const std::string& source, const Config& config,
                  ModelWeights* out)
{
    const Reader reader(source);
    json root;
    ATTNLAB_TRY(parse_json(text, reader, &root));
    return read(reader, root, config, out);
}

Status load_with(RootReader read, const std::string& path, const Config& config, ModelWeights* out)
{
    std::string text;
    ATTNLAB_TRY(read_file(path, &text, kMaxWeightsFileBytes, "weights file"));
    return parse_with(read, text, path, config, out);
}

} // namespace

// [SECTION] Public functions

Status parse_weights_json(std::string_view text, const std::string& source, const Config& config,
                          ModelWeights* out)
{
    return parse_with(&read_weights_with_hint, text, source, config, out);
}

Status load_weights_file(const std::string& path, const Config& config, ModelWeights* out)
{
    return load_with(&read_weights_with_hint, path, config, out);
}

Status parse_torch_weights_json(std::string_view text, const std::string& source, const Config& config,
                                ModelWeights* out)
{
    return parse_with(&read_torch_root, text, source, config, out);
}

Status load_torch_weights_file(const std::string& path, const Config& config, ModelWeights* out)
{
    return load_with(&read_torch_root, path, config, out);
}

Status load_any_weights_file(const std::string& path, const Config& config, ModelWeights* out)
{
    return load_with(&read_any_root, path, config, out);
}

} // namespace attnlab
