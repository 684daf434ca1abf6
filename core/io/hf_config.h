// Hugging Face model folders: config.json of GPT-2 and BERT read into one plain struct, and each
// architecture's table of tensor names (HF name → slot, transposed or not, expected shape) checked against a
// safetensors index.
#pragma once

#include "core/io/safetensors.h"
#include "core/status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab
{

// The architectures read ("model_type" in config.json).
enum class HfArchitecture
{
    Gpt2, // "gpt2": gpt2, distilgpt2, gpt2-medium/large/xl and any GPT-2-shaped checkpoint
    Bert, // "bert": bert-base-uncased/cased, Google's miniature BERTs, any BERT-shaped checkpoint
};

// The feed-forward activation ("activation_function" of GPT-2, "hidden_act" of BERT).
enum class HfActivation
{
    GeluTanh, // "gelu_new", "gelu_pytorch_tanh": 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³))), GPT-2's default
    GeluErf, // "gelu": 0.5 x (1 + erf(x / √2)), BERT's default
    Relu,    // "relu"
};

// Every field of config.json these architectures use, under one set of names (the HF key of each beside it).
// A key that is absent takes the default of transformers' GPT2Config / BertConfig, as transformers does.
struct HfConfig
{
    HfArchitecture architecture = HfArchitecture::Gpt2;
    std::string model_type = "gpt2";
    int n_layers = 12;            // GPT-2 n_layer (12), BERT num_hidden_layers (12)
    int n_heads = 12;             // n_head (12), num_attention_heads (12)
    int d_model = 768;            // n_embd (768), hidden_size (768)
    int d_ff = 3072;              // n_inner (null: 4 n_embd), intermediate_size (3072)
    int n_positions = 1024;       // n_positions (1024), max_position_embeddings (512)
    int vocab_size = 50257;       // vocab_size (50257, 30522)
    int type_vocab_size = 0;      // BERT type_vocab_size (2); 0 for GPT-2, which has no token types
    float layer_norm_eps = 1e-5f; // layer_norm_epsilon (1e-5), layer_norm_eps (1e-12)
    HfActivation activation = HfActivation::GeluTanh;
    std::string activation_name =
        "gelu_new"; // as written: activation_function ("gelu_new"), hidden_act ("gelu")
    // GPT-2 only: scores divided by √d_k (scale_attn_weights, true) and also by the layer's number from 1
    // (scale_attn_by_inverse_layer_idx, false).
    bool scale_attn_weights = true;
    bool scale_attn_by_inverse_layer_idx = false;

    int d_head() const { return d_model / n_heads; } // checked to divide exactly
};

// Largest sizes accepted (a config.json asking for more is refused as damaged).
inline constexpr int kMaxHfLayers = 256;
inline constexpr int kMaxHfHeads = 256;
inline constexpr int kMaxHfWidth = 65536; // d_model and d_ff
inline constexpr int kMaxHfPositions = 1 << 20;
inline constexpr int kMaxHfVocab = 1 << 24;

// Parses config.json text (source names it in messages). Refuses, out unchanged: text that is not a JSON
// object, no "model_type" or one other than gpt2 and bert (the message names those), a size that is not a
// positive integer within the limits above, hidden size not divisible by the head count, a LayerNorm ε that
// is not in (0, 1), an activation other than gelu_new, gelu_pytorch_tanh, gelu and relu, and a BERT
// position_embedding_type other than "absolute".
Status parse_hf_config(std::string_view text, const std::string& source, HfConfig* out);

// Reads FOLDER/config.json. A folder without one is refused with a message saying what a model folder holds.
Status read_hf_config(const std::string& folder, HfConfig* out);

// [SECTION] Tensor table

// Where a tensor goes in the model. Names follow the maths: attention weights are d_model x d_out after the
// transpose flag is applied (X W), embeddings are vocabulary x d_model (one row per token).
enum class HfSlot
{
    TokenEmbedding,     // wte / word_embeddings: V x d_model
    PositionEmbedding,  // wpe / position_embeddings: P x d_model
    TokenTypeEmbedding, // BERT token_type_embeddings: type_vocab x d_model
    EmbeddingNormGain,  // BERT embeddings.LayerNorm
    EmbeddingNormBias,
    QkvWeight,   // GPT-2 c_attn: d_model x 3 d_model, [W_Q | W_K | W_V] side by side
    QkvBias,     // 3 d_model
    QueryWeight, // BERT query / key / value: d_model x d_model after the transpose
    QueryBias,
    KeyWeight,
    KeyBias,
    ValueWeight,
    ValueBias,
    OutWeight, // W_O: d_model x d_model (GPT-2 attn.c_proj, BERT attention.output.dense)
    OutBias,
    AttnNormGain, // GPT-2 ln_1 (before attention), BERT attention.output.LayerNorm (after it)
    AttnNormBias,
    FfnInWeight, // W_1: d_model x d_ff (GPT-2 mlp.c_fc, BERT intermediate.dense)
    FfnInBias,
    FfnOutWeight, // W_2: d_ff x d_model (GPT-2 mlp.c_proj, BERT output.dense)
    FfnOutBias,
    FfnNormGain, // GPT-2 ln_2 (before the FFN), BERT output.LayerNorm (after it)
    FfnNormBias,
    FinalNormGain, // GPT-2 ln_f
    FinalNormBias,
    LmHeadWeight,       // GPT-2 lm_head: V x d_model (optional: tied to wte)
    MlmTransformWeight, // BERT cls.predictions.transform.dense: d_model x d_model after the transpose
    MlmTransformBias,
    MlmNormGain, // cls.predictions.transform.LayerNorm
    MlmNormBias,
    MlmDecoderWeight, // cls.predictions.decoder: V x d_model (optional: tied to word_embeddings)
    MlmBias,          // cls.predictions.bias: V
    MlmDecoderBias,   // cls.predictions.decoder.bias (optional: the same values as cls.predictions.bias)
};

// A size of a tensor's shape, from the config.
enum class HfDim
{
    None,       // (for cols) the tensor is a vector
    Model,      // d_model
    Model3,     // 3 d_model
    Ffn,        // d_ff
    Vocab,      // vocab_size
    Positions,  // n_positions
    TokenTypes, // type_vocab_size
};

// Whether a tensor must be in the file.
enum class HfNeed
{
    Required,
    Optional, // tied or redundant: used when present (with its shape checked), otherwise the tie
    Head,     // part of BERT's masked-LM head: all of them or none (a bare BertModel has no head)
};

// One row of an architecture's table.
struct HfTensorRule
{
    HfSlot slot;
    const char* name; // as HF writes it, "{i}" standing for the layer number: "h.{i}.attn.c_attn.weight"
    const char*
        old_name;   // an older spelling read as well (BERT's TF-converted "LayerNorm.gamma"), or nullptr
    bool per_layer; // one per layer ("{i}" in name)
    bool prefixed;  // part of the base model, so written with "transformer." / "bert." by *LMHeadModel
    bool transpose; // stored output x input (nn.Linear): transposed to input x output for X W
    HfNeed need;
    HfDim rows; // the shape as stored in the file: rows x cols, or rows alone for a vector
    HfDim cols;
};

// The table of an architecture, in the order a forward pass uses the tensors.
const std::vector<HfTensorRule>& hf_tensor_rules(HfArchitecture architecture);

// Names in a checkpoint that are not weights and are skipped ("{i}" for the layer): GPT-2's causal-mask
// buffers attn.bias and attn.masked_bias; BERT's position_ids / token_type_ids buffers, pooler and
// next-sentence head. Each is also matched with the prefix.
const std::vector<const char*>& hf_ignored_names(HfArchitecture architecture);

// "transformer." (GPT-2) or "bert." (BERT).
const char* hf_name_prefix(HfArchitecture architecture);

// The shape a rule expects from a config (as stored: {rows} or {rows, cols}).
std::vector<std::int64_t> hf_expected_shape(const HfTensorRule& rule, const HfConfig& config);

// One tensor of the model found in the file.
struct HfTensorRef
{
    HfSlot slot = HfSlot::TokenEmbedding;
    int layer = -1;   // -1 for a tensor outside the layers
    std::string name; // the name in the file, prefix included
    bool transpose = false;
    std::vector<std::int64_t> shape; // as stored
};

// Where every tensor the model uses is, after check_hf_tensors.
struct HfTensorPlan
{
    std::string prefix;               // "", "transformer." or "bert.": the one the base model's names carry
    bool has_head = false;            // BERT: the masked-LM head is in the file
    std::vector<HfTensorRef> tensors; // rule by rule, layer by layer; absent optional tensors left out
    std::vector<std::string> unused;  // names in the file neither in the table nor ignored (left unread)

    const HfTensorRef* find(HfSlot slot, int layer = -1) const;
};

// Checks index against config's table: the prefix is decided by the token embedding (with or without it;
// every base-model name must then carry the same one), and the first tensor missing, misshapen, or of a dtype
// other than F32, F16 and BF16 is reported by name with the shape expected and what in config.json gives it.
// out is unchanged on error.
Status check_hf_tensors(const HfConfig& config, const SafetensorsIndex& index, HfTensorPlan* out);

// A model folder opened: config.json, the safetensors index and the checked tensor plan (no tensor data).
struct HfModel
{
    std::string folder;
    HfConfig config;
    SafetensorsIndex index;
    HfTensorPlan plan;
};

// Opens FOLDER: read_hf_config, open_safetensors (which names pytorch_model.bin-only folders and says how to
// convert them), check_hf_tensors. out is unchanged on error.
Status open_hf_model(const std::string& folder, HfModel* out);

} // namespace attnlab
