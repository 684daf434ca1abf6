// Hugging Face model folders: config.json of GPT-2 and BERT, and the tensor table of each checked against a
// file.
#include "hf_config.h"

#include "atomic_file.h"
#include "json_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <utility>

namespace attnlab
{

namespace
{

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kSupportedTypes = "\"gpt2\" (GPT-2, DistilGPT2 and other GPT-2-shaped models) and "
                                        "\"bert\" (BERT and other BERT-shaped models)";

// The activations accepted, by their config.json names.
Status read_activation(const JsonReader& reader, const json& root, const char* key, HfConfig* config)
{
    ATTNLAB_TRY(reader.choice(root, "", key,
                              {{"gelu_new", HfActivation::GeluTanh},
                               {"gelu_pytorch_tanh", HfActivation::GeluTanh},
                               {"gelu", HfActivation::GeluErf},
                               {"relu", HfActivation::Relu}},
                              &config->activation, Need::Optional));
    if (const auto it = root.find(key); it != root.end())
        config->activation_name = it->get<std::string>(); // a string: choice accepted it
    return Status::ok();
}

Status read_gpt2(const JsonReader& reader, const json& root, HfConfig* c)
{
    ATTNLAB_TRY(reader.integer(root, "", "n_layer", {1, kMaxHfLayers}, &c->n_layers, Need::Optional));
    ATTNLAB_TRY(reader.integer(root, "", "n_head", {1, kMaxHfHeads}, &c->n_heads, Need::Optional));
    ATTNLAB_TRY(reader.integer(root, "", "n_embd", {1, kMaxHfWidth}, &c->d_model, Need::Optional));
    c->d_ff = 4 * c->d_model;
    if (const auto it = root.find("n_inner"); it != root.end() && !it->is_null())
        ATTNLAB_TRY(reader.integer(root, "", "n_inner", {1, kMaxHfWidth, "or null: 4 n_embd"}, &c->d_ff));
    ATTNLAB_TRY(
        reader.integer(root, "", "n_positions", {1, kMaxHfPositions}, &c->n_positions, Need::Optional));
    ATTNLAB_TRY(reader.integer(root, "", "vocab_size", {1, kMaxHfVocab}, &c->vocab_size, Need::Optional));
    ATTNLAB_TRY(reader.real(root, "", "layer_norm_epsilon", {0.0, 1.0, true, true, false}, &c->layer_norm_eps,
                            Need::Optional));
    ATTNLAB_TRY(read_activation(reader, root, "activation_function", c));
    ATTNLAB_TRY(reader.boolean(root, "", "scale_attn_weights", &c->scale_attn_weights, Need::Optional));
    ATTNLAB_TRY(reader.boolean(root, "", "scale_attn_by_inverse_layer_idx",
                               &c->scale_attn_by_inverse_layer_idx, Need::Optional));
    return Status::ok();
}

Status read_bert(const JsonReader& reader, const json& root, HfConfig* c)
{
    ATTNLAB_TRY(
        reader.integer(root, "", "num_hidden_layers", {1, kMaxHfLayers}, &c->n_layers, Need::Optional));
    ATTNLAB_TRY(
        reader.integer(root, "", "num_attention_heads", {1, kMaxHfHeads}, &c->n_heads, Need::Optional));
    ATTNLAB_TRY(reader.integer(root, "", "hidden_size", {1, kMaxHfWidth}, &c->d_model, Need::Optional));
    ATTNLAB_TRY(reader.integer(root, "", "intermediate_size", {1, kMaxHfWidth}, &c->d_ff, Need::Optional));
    ATTNLAB_TRY(reader.integer(root, "", "max_position_embeddings", {1, kMaxHfPositions}, &c->n_positions,
                               Need::Optional));
    ATTNLAB_TRY(reader.integer(root, "", "vocab_size", {1, kMaxHfVocab}, &c->vocab_size, Need::Optional));
    ATTNLAB_TRY(
        reader.integer(root, "", "type_vocab_size", {1, kMaxHfVocab}, &c->type_vocab_size, Need::Optional));
    ATTNLAB_TRY(reader.real(root, "", "layer_norm_eps", {0.0, 1.0, true, true, false}, &c->layer_norm_eps,
                            Need::Optional));
    ATTNLAB_TRY(read_activation(reader, root, "hidden_act", c));
    int position_kind = 0;
    ATTNLAB_TRY(reader.choice(root, "", "position_embedding_type", {{"absolute", 0}}, &position_kind,
                              Need::Optional));
    return Status::ok();
}

// Layer i's name of a rule ("{i}" replaced), with prefix before it when the rule is in the base model.
std::string rule_name(const char* pattern, int layer, const std::string& prefix)
{
    std::string name = pattern;
    if (const std::size_t at = name.find("{i}"); at != std::string::npos)
        name.replace(at, 3, std::to_string(layer));
    return prefix + name;
}

std::int64_t dim_size(HfDim dim, const HfConfig& c)
{
    switch (dim)
    {
    case HfDim::None:
        return 0;
    case HfDim::Model:
        return c.d_model;
    case HfDim::Model3:
        return std::int64_t{3} * c.d_model;
    case HfDim::Ffn:
        return c.d_ff;
    case HfDim::Vocab:
        return c.vocab_size;
    case HfDim::Positions:
        return c.n_positions;
    case HfDim::TokenTypes:
        return c.type_vocab_size;
    }
    return 0;
}

// What in config.json gives a size, for messages ("n_embd", "vocab_size").
const char* dim_source(HfDim dim, HfArchitecture a)
{
    const bool gpt2 = a == HfArchitecture::Gpt2;
    switch (dim)
    {
    case HfDim::None:
        return "";
    case HfDim::Model:
        return gpt2 ? "n_embd" : "hidden_size";
    case HfDim::Model3:
        return "3 n_embd";
    case HfDim::Ffn:
        return gpt2 ? "n_inner" : "intermediate_size";
    case HfDim::Vocab:
        return "vocab_size";
    case HfDim::Positions:
        return gpt2 ? "n_positions" : "max_position_embeddings";
    case HfDim::TokenTypes:
        return "type_vocab_size";
    }
    return "";
}

std::string shape_source(const HfTensorRule& rule, HfArchitecture a)
{
    std::string text = dim_source(rule.rows, a);
    if (rule.cols != HfDim::None)
        text += std::string(" x ") + dim_source(rule.cols, a);
    return text;
}

std::string layers_hint(const HfConfig& c)
{
    return c.architecture == HfArchitecture::Gpt2 ? "n_layer" : "num_hidden_layers";
}

} // namespace

Status parse_hf_config(std::string_view text, const std::string& source, HfConfig* out)
{
    const JsonReader reader(source);
    json root;
    ATTNLAB_TRY(reader.parse(text, &root));
    const json* type = nullptr;
    ATTNLAB_TRY(reader.member(root, "", "model_type", Need::Optional, &type));
    if (type == nullptr)
        return reader.error("\"model_type\" is missing; Attention Lab reads the model types " +
                            std::string(kSupportedTypes) + ", as a Hugging Face config.json names them");
    if (!type->is_string() || (*type != "gpt2" && *type != "bert"))
        return reader.error("\"model_type\" is " + describe_json(*type) +
                            ", which Attention Lab does not run; "
                            "supported: " +
                            kSupportedTypes);

    HfConfig c;
    c.model_type = type->get<std::string>();
    if (c.model_type == "gpt2")
    {
        ATTNLAB_TRY(read_gpt2(reader, root, &c));
    }
    else
    {
        c.architecture = HfArchitecture::Bert;
        c.n_positions = 512;
        c.vocab_size = 30522;
        c.type_vocab_size = 2;
        c.layer_norm_eps = 1e-12f;
        c.activation = HfActivation::GeluErf;
        c.activation_name = "gelu";
        ATTNLAB_TRY(read_bert(reader, root, &c));
    }
    if (c.d_model % c.n_heads != 0)
    {
        const bool gpt2 = c.architecture == HfArchitecture::Gpt2;
        return reader.error(std::string(gpt2 ? "\"n_embd\" " : "\"hidden_size\" ") +
                            std::to_string(c.d_model) + " is not divisible by " +
                            (gpt2 ? "\"n_head\" " : "\"num_attention_heads\" ") + std::to_string(c.n_heads) +
                            ": each head takes an equal share of the width; the config is damaged");
    }
    *out = std::move(c);
    return Status::ok();
}

Status read_hf_config(const std::string& folder, HfConfig* out)
{
    const fs::path path = fs::path(folder) / "config.json";
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
        return Status::error(
            path_for_message(folder) +
            " is not a folder; give the folder of a Hugging Face model (it holds config.json "
            "and model.safetensors)");
    if (!path_present(path))
    {
        // A folder of models (one picked a level too high): name the subfolders that are models.
        std::vector<std::string> models;
        int looked = 0; // a folder of a million files is not read whole for a message
        for (fs::directory_iterator it(folder, ec), end; !ec && it != end && ++looked <= 10000;
             it.increment(ec))
            if (it->is_directory(ec) && path_present(it->path() / "config.json"))
                models.push_back(it->path().filename().string());
        std::sort(models.begin(), models.end());
        if (!models.empty())
        {
            std::string list;
            for (std::size_t i = 0; i < models.size() && i < 5; ++i)
                list += (i > 0 ? ", " : "") + models[i] + "/";
            if (models.size() > 5)
                list += " and " + std::to_string(models.size() - 5) + " more";
            return Status::error(path_for_message(folder) + " has no config.json, but " +
                                 (models.size() == 1
                                      ? "its subfolder " + list + " has one: open it"
                                      : "its subfolders " + list + " have one: open one of them"));
        }
        return Status::error(
            path_for_message(folder) +
            " has no config.json, so the model's architecture and sizes are unknown; a Hugging "
            "Face model folder holds config.json beside model.safetensors: download the "
            "model's whole folder from the Hub");
    }
    std::string text;
    ATTNLAB_TRY(read_file(path.string(), &text, kMaxSessionFileBytes, "config.json"));
    return parse_hf_config(text, path.string(), out);
}

// [SECTION] Tensor table

const std::vector<HfTensorRule>& hf_tensor_rules(HfArchitecture architecture)
{
    using S = HfSlot;
    using D = HfDim;
    constexpr HfNeed R = HfNeed::Required, O = HfNeed::Optional, H = HfNeed::Head;
    // GPT-2's Conv1D stores its weight input x output, as X W uses it: nothing is transposed.
    static const std::vector<HfTensorRule> gpt2 = {
        {S::TokenEmbedding, "wte.weight", nullptr, false, true, false, R, D::Vocab, D::Model},
        {S::PositionEmbedding, "wpe.weight", nullptr, false, true, false, R, D::Positions, D::Model},
        {S::AttnNormGain, "h.{i}.ln_1.weight", nullptr, true, true, false, R, D::Model, D::None},
        {S::AttnNormBias, "h.{i}.ln_1.bias", nullptr, true, true, false, R, D::Model, D::None},
        {S::QkvWeight, "h.{i}.attn.c_attn.weight", nullptr, true, true, false, R, D::Model, D::Model3},
        {S::QkvBias, "h.{i}.attn.c_attn.bias", nullptr, true, true, false, R, D::Model3, D::None},
        {S::OutWeight, "h.{i}.attn.c_proj.weight", nullptr, true, true, false, R, D::Model, D::Model},
        {S::OutBias, "h.{i}.attn.c_proj.bias", nullptr, true, true, false, R, D::Model, D::None},
        {S::FfnNormGain, "h.{i}.ln_2.weight", nullptr, true, true, false, R, D::Model, D::None},
        {S::FfnNormBias, "h.{i}.ln_2.bias", nullptr, true, true, false, R, D::Model, D::None},
        {S::FfnInWeight, "h.{i}.mlp.c_fc.weight", nullptr, true, true, false, R, D::Model, D::Ffn},
        {S::FfnInBias, "h.{i}.mlp.c_fc.bias", nullptr, true, true, false, R, D::Ffn, D::None},
        {S::FfnOutWeight, "h.{i}.mlp.c_proj.weight", nullptr, true, true, false, R, D::Ffn, D::Model},
        {S::FfnOutBias, "h.{i}.mlp.c_proj.bias", nullptr, true, true, false, R, D::Model, D::None},
        {S::FinalNormGain, "ln_f.weight", nullptr, false, true, false, R, D::Model, D::None},
        {S::FinalNormBias, "ln_f.bias", nullptr, false, true, false, R, D::Model, D::None},
        {S::LmHeadWeight, "lm_head.weight", nullptr, false, false, false, O, D::Vocab, D::Model},
    };
    // BERT's nn.Linear stores its weight output x input: every dense weight is transposed. Checkpoints
    // converted from TensorFlow name LayerNorm's weight and bias gamma and beta.
    static const std::vector<HfTensorRule> bert = {
        {S::TokenEmbedding, "embeddings.word_embeddings.weight", nullptr, false, true, false, R, D::Vocab,
         D::Model},
        {S::PositionEmbedding, "embeddings.position_embeddings.weight", nullptr, false, true, false, R,
         D::Positions, D::Model},
        {S::TokenTypeEmbedding, "embeddings.token_type_embeddings.weight", nullptr, false, true, false, R,
         D::TokenTypes, D::Model},
        {S::EmbeddingNormGain, "embeddings.LayerNorm.weight", "embeddings.LayerNorm.gamma", false, true,
         false, R, D::Model, D::None},
        {S::EmbeddingNormBias, "embeddings.LayerNorm.bias", "embeddings.LayerNorm.beta", false, true, false,
         R, D::Model, D::None},
        {S::QueryWeight, "encoder.layer.{i}.attention.self.query.weight", nullptr, true, true, true, R,
         D::Model, D::Model},
        {S::QueryBias, "encoder.layer.{i}.attention.self.query.bias", nullptr, true, true, false, R, D::Model,
         D::None},
        {S::KeyWeight, "encoder.layer.{i}.attention.self.key.weight", nullptr, true, true, true, R, D::Model,
         D::Model},
        {S::KeyBias, "encoder.layer.{i}.attention.self.key.bias", nullptr, true, true, false, R, D::Model,
         D::None},
        {S::ValueWeight, "encoder.layer.{i}.attention.self.value.weight", nullptr, true, true, true, R,
         D::Model, D::Model},
        {S::ValueBias, "encoder.layer.{i}.attention.self.value.bias", nullptr, true, true, false, R, D::Model,
         D::None},
        {S::OutWeight, "encoder.layer.{i}.attention.output.dense.weight", nullptr, true, true, true, R,
         D::Model, D::Model},
        {S::OutBias, "encoder.layer.{i}.attention.output.dense.bias", nullptr, true, true, false, R, D::Model,
         D::None},
        {S::AttnNormGain, "encoder.layer.{i}.attention.output.LayerNorm.weight",
         "encoder.layer.{i}.attention.output.LayerNorm.gamma", true, true, false, R, D::Model, D::None},
        {S::AttnNormBias, "encoder.layer.{i}.attention.output.LayerNorm.bias",
         "encoder.layer.{i}.attention.output.LayerNorm.beta", true, true, false, R, D::Model, D::None},
        {S::FfnInWeight, "encoder.layer.{i}.intermediate.dense.weight", nullptr, true, true, true, R, D::Ffn,
         D::Model},
        {S::FfnInBias, "encoder.layer.{i}.intermediate.dense.bias", nullptr, true, true, false, R, D::Ffn,
         D::None},
        {S::FfnOutWeight, "encoder.layer.{i}.output.dense.weight", nullptr, true, true, true, R, D::Model,
         D::Ffn},
        {S::FfnOutBias, "encoder.layer.{i}.output.dense.bias", nullptr, true, true, false, R, D::Model,
         D::None},
        {S::FfnNormGain, "encoder.layer.{i}.output.LayerNorm.weight",
         "encoder.layer.{i}.output.LayerNorm.gamma", true, true, false, R, D::Model, D::None},
        {S::FfnNormBias, "encoder.layer.{i}.output.LayerNorm.bias", "encoder.layer.{i}.output.LayerNorm.beta",
         true, true, false, R, D::Model, D::None},
        {S::MlmTransformWeight, "cls.predictions.transform.dense.weight", nullptr, false, false, true, H,
         D::Model, D::Model},
        {S::MlmTransformBias, "cls.predictions.transform.dense.bias", nullptr, false, false, false, H,
         D::Model, D::None},
        {S::MlmNormGain, "cls.predictions.transform.LayerNorm.weight",
         "cls.predictions.transform.LayerNorm.gamma", false, false, false, H, D::Model, D::None},
        {S::MlmNormBias, "cls.predictions.transform.LayerNorm.bias",
         "cls.predictions.transform.LayerNorm.beta", false, false, false, H, D::Model, D::None},
        {S::MlmDecoderWeight, "cls.predictions.decoder.weight", nullptr, false, false, false, O, D::Vocab,
         D::Model},
        {S::MlmBias, "cls.predictions.bias", nullptr, false, false, false, H, D::Vocab, D::None},
        {S::MlmDecoderBias, "cls.predictions.decoder.bias", nullptr, false, false, false, O, D::Vocab,
         D::None},
    };
    return architecture == HfArchitecture::Gpt2 ? gpt2 : bert;
}

const std::vector<const char*>& hf_ignored_names(HfArchitecture architecture)
{
    static const std::vector<const char*> gpt2 = {"h.{i}.attn.bias", "h.{i}.attn.masked_bias"};
    static const std::vector<const char*> bert = {
        "embeddings.position_ids", "embeddings.token_type_ids",   "pooler.dense.weight",
        "pooler.dense.bias",       "cls.seq_relationship.weight", "cls.seq_relationship.bias",
    };
    return architecture == HfArchitecture::Gpt2 ? gpt2 : bert;
}

const char* hf_name_prefix(HfArchitecture architecture)
{
    return architecture == HfArchitecture::Gpt2 ? "transformer." : "bert.";
}

std::vector<std::int64_t> hf_expected_shape(const HfTensorRule& rule, const HfConfig& config)
{
    std::vector<std::int64_t> shape{dim_size(rule.rows, config)};
    if (rule.cols != HfDim::None)
        shape.push_back(dim_size(rule.cols, config));
    return shape;
}

const HfTensorRef* HfTensorPlan::find(HfSlot slot, int layer) const
{
    for (const HfTensorRef& t : tensors)
        if (t.slot == slot && t.layer == layer)
            return &t;
    return nullptr;
}

Status check_hf_tensors(const HfConfig& config, const SafetensorsIndex& index, HfTensorPlan* out)
{
    const std::vector<HfTensorRule>& rules = hf_tensor_rules(config.architecture);
    const std::string with_prefix = hf_name_prefix(config.architecture);
    // A sharded model has only the tensors its index names (a shard's others are not read): the index is
    // what lacks one.
    const bool sharded = index.files.size() != 1;
    const std::string where = sharded ? std::string("model.safetensors.index.json (the tensors it names)")
                                      : path_for_message(index.files[0]);

    HfTensorPlan plan;
    // The token embedding decides the prefix for the whole base model.
    const std::string anchor = rules.front().name;
    if (index.find(anchor) != nullptr)
        plan.prefix = "";
    else if (index.find(with_prefix + anchor) != nullptr)
        plan.prefix = with_prefix;
    else
        return Status::error(where + " has no tensor \"" + anchor + "\" (nor \"" + with_prefix + anchor +
                             "\"), the token embedding of a " + config.model_type + " model; " +
                             (sharded ? "the index is incomplete (download it again), or the model is of "
                                        "another architecture than config.json says"
                                      : "the file is of another architecture than config.json says"));

    // BERT's masked-LM head: all of its tensors or none.
    for (const HfTensorRule& rule : rules)
        if (rule.need == HfNeed::Head && (index.find(rule.name) != nullptr ||
                                          (rule.old_name != nullptr && index.find(rule.old_name) != nullptr)))
            plan.has_head = true;

    std::vector<std::string> used;
    for (const HfTensorRule& rule : rules)
    {
        const int layers = rule.per_layer ? config.n_layers : 1;
        const std::string prefix = rule.prefixed ? plan.prefix : "";
        for (int layer = 0; layer < layers; ++layer)
        {
            const std::string name = rule_name(rule.name, layer, prefix);
            const TensorInfo* info = index.find(name);
            if (info == nullptr && rule.old_name != nullptr)
                info = index.find(rule_name(rule.old_name, layer, prefix));
            const std::vector<std::int64_t> expected = hf_expected_shape(rule, config);
            if (info == nullptr)
            {
                if (rule.need == HfNeed::Optional || (rule.need == HfNeed::Head && !plan.has_head))
                    continue;
                return Status::error(
                    where + " has no tensor \"" + name + "\" (" + format_shape(expected) + ", " +
                    shape_source(rule, config.architecture) + ")" +
                    (rule.need == HfNeed::Head ? ", part of the masked-LM head whose other tensors are there"
                                               : "") +
                    (rule.per_layer ? "; the file is incomplete, or config.json (" + layers_hint(config) +
                                          " " + std::to_string(config.n_layers) + ") is of another model"
                                    : "; the file is incomplete or of another model"));
            }
            if (info->shape != expected)
                return Status::error(
                    where + ": tensor \"" + info->name + "\" is " + format_shape(info->shape) +
                    ", expected " + format_shape(expected) + " (" + shape_source(rule, config.architecture) +
                    " from config.json); the weights and config.json are of different models");
            if (info->dtype == SafetensorsDtype::Other)
                return Status::error(
                    where + ": tensor \"" + info->name + "\" has dtype " + info->dtype_text +
                    ", which Attention Lab does not read; supported: F32, F16 and BF16 (save "
                    "the model in float32, float16 or bfloat16)");
            HfTensorRef ref;
            ref.slot = rule.slot;
            ref.layer = rule.per_layer ? layer : -1;
            ref.name = info->name;
            ref.transpose = rule.transpose;
            ref.shape = info->shape;
            used.push_back(info->name);
            plan.tensors.push_back(std::move(ref));
        }
    }

    // Everything else: ignored buffers and heads, or names the table does not know.
    std::vector<std::string> ignored;
    for (const char* pattern : hf_ignored_names(config.architecture))
    {
        const bool per_layer = std::string_view(pattern).find("{i}") != std::string_view::npos;
        for (int layer = 0; layer < (per_layer ? config.n_layers : 1); ++layer)
        {
            ignored.push_back(rule_name(pattern, layer, ""));
            ignored.push_back(rule_name(pattern, layer, with_prefix));
        }
    }
    std::sort(used.begin(), used.end());
    std::sort(ignored.begin(), ignored.end());
    for (const TensorInfo& t : index.tensors)
        if (!std::binary_search(used.begin(), used.end(), t.name) &&
            !std::binary_search(ignored.begin(), ignored.end(), t.name))
            plan.unused.push_back(t.name);
    *out = std::move(plan);
    return Status::ok();
}

Status open_hf_model(const std::string& folder, HfModel* out)
{
    HfModel model;
    model.folder = folder;
    ATTNLAB_TRY(read_hf_config(folder, &model.config));
    ATTNLAB_TRY(open_safetensors(folder, &model.index));
    ATTNLAB_TRY(check_hf_tensors(model.config, model.index, &model.plan));
    *out = std::move(model);
    return Status::ok();
}

} // namespace attnlab
