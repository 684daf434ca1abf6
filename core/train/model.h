// A small decoder-only transformer language model for training: its config and its named parameter tensors.
#pragma once

#include "core/matrix.h"
#include "core/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::train
{

// Every tensor of the training engine: row-major, as core's Mat (MatT<float> is attnlab::Mat). Templated on
// the scalar so the same code runs in double for the gradient check. Biases and gains are 1 x n rows.
template <typename S> using MatT = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
// A column of per-row numbers (LayerNorm's mean and 1/σ, the loss per position).
template <typename S> using ColT = Eigen::Matrix<S, Eigen::Dynamic, 1>;

enum class NormPlacement
{
    Pre,  // A = X + MHA(LN1(X)), Y = A + FFN(LN2(A)), LN_f before the unembedding (GPT-2)
    Post, // A = LN1(X + MHA(X)), Y = LN2(A + FFN(A)) (the paper's)
};

// The FFN's non-linearity (and the masked-LM head's, which uses the same).
enum class Activation
{
    Relu,     // max(0, x): the paper's, and the models trained here
    GeluTanh, // 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³))): GPT-2's "gelu_new"
    GeluErf,  // 0.5 x (1 + erf(x / √2)): BERT's "gelu"
};

enum class PositionKind
{
    Learned,    // P is a trained (T_max, d_model) table
    Sinusoidal, // P is the paper's sinusoids (core's positional_encoding), not trained
    None,       // P = 0: X_0 = E[tokens] alone, so only the causal mask tells positions apart
};

// The model's shape. d_k = d_v = d_model / n_heads.
struct ModelConfig
{
    int vocab_size = 0; // V
    int T_max = 0;      // longest sequence the position table holds
    int d_model = 64;
    int n_heads = 4; // h
    int n_layers = 2;
    int d_ff = 0;                // 0: 4 d_model
    bool attention_only = false; // no FFN sub-layer (and no LN2)
    NormPlacement norm = NormPlacement::Pre;
    PositionKind positions = PositionKind::Learned;
    // Each sub-layer adds to its input (X + MHA(...), ...); false: its output replaces it (A = MHA(LN1(X)) or
    // LN1(MHA(X)), and the same for the FFN)
    bool residual = true;
    bool causal = true;          // query i sees keys 0..i only
    std::uint64_t seed = 1;      // the initial parameters
    float embedding_std = 0.02f; // E and P start as N(0, embedding_std²) (GPT-2: 0.02)

    // What the pretrained architectures add (an opened Hugging Face model, core/io/hf_model.h). The models
    // trained here keep the defaults: training refuses the others (see trainable()).
    Activation activation = Activation::Relu;
    float layer_norm_eps = 1e-5f;  // ε of every LayerNorm (GPT-2 1e-5, BERT 1e-12)
    bool attention_bias = false;   // Q = x W_Q + b_Q, likewise K and V, and mha = concat W_O + b_O
    int token_types = 0;           // BERT: a (token_types, d_model) table T whose row 0 joins X_0
    bool embedding_norm = false;   // BERT: X_0 = LN_emb(E[tokens] + P + T[0])
    bool scale_by_layer = false;   // GPT-2 scale_attn_by_inverse_layer_idx: layer l's scores also ÷ (l + 1)
    bool mlm_head = false;         // BERT: Z' = LN_mlm(act(Z W_T + b_T)) is what the unembedding reads
    bool tied_unembedding = false; // logits = Z Eᵀ (+ b_U): no W_U of its own (GPT-2, BERT)
    bool unembedding_bias = true;  // b_U (GPT-2 has none)

    int d_k() const { return n_heads > 0 ? d_model / n_heads : 0; }
    int d_v() const { return d_k(); }
    int resolved_d_ff() const { return d_ff > 0 ? d_ff : 4 * d_model; }
    bool has_ffn() const { return !attention_only; }
    bool has_final_norm() const { return norm == NormPlacement::Pre; }
    // Backward and the optimizer handle this model (none of the pretrained architectures' additions).
    bool trainable() const
    {
        return activation == Activation::Relu && !attention_bias && token_types == 0 && !embedding_norm &&
               !scale_by_layer && !mlm_head && !tied_unembedding && unembedding_bias &&
               layer_norm_eps == 1e-5f;
    }
};

// "relu", "gelu_tanh", "gelu_erf".
const char* to_string(Activation activation);

// "learned", "sinusoidal", "none": the names of command lines and model files.
const char* to_string(PositionKind positions);
// Parses those names; an unknown one is an error listing them.
Status parse_positions(const std::string& name, PositionKind* out);

// The engine's limits on a model's sizes (validate; the run spec's table shows them, core/train/run_spec.h).
inline constexpr int kMaxLayers = 24, kMaxDModel = 4096, kMaxDFF = 16384;

// Sizes in range, d_model divisible by h. The message says what to change.
Status validate(const ModelConfig& config);

// One layer's parameters. Per-head projections are stored side by side (as core's pack_heads does): head j
// of W_Q is columns [j d_k, (j + 1) d_k), see head_cols().
template <typename S> struct LayerParamsT
{
    MatT<S> ln1_gamma, ln1_beta; // (1, d_model) LayerNorm 1: γ, β
    MatT<S> W_Q;                 // (d_model, h·d_k)  [W_1^Q | ... | W_h^Q]
    MatT<S> W_K;                 // (d_model, h·d_k)  [W_1^K | ... | W_h^K]
    MatT<S> W_V;                 // (d_model, h·d_v)  [W_1^V | ... | W_h^V]
    MatT<S> W_O;                 // (h·d_v, d_model)
    // (1, h·d_k), (1, h·d_k), (1, h·d_v), (1, d_model) with attention_bias, else 0 x 0
    MatT<S> b_Q, b_K, b_V, b_O;
    MatT<S> ln2_gamma, ln2_beta; // (1, d_model) LayerNorm 2 (0 x 0 when attention_only)
    MatT<S> W_1;                 // (d_model, d_ff)   FFN(x) = act(x W_1 + b_1) W_2 + b_2
    MatT<S> b_1;                 // (1, d_ff)
    MatT<S> W_2;                 // (d_ff, d_model)
    MatT<S> b_2;                 // (1, d_model)
};

// All parameters (and, with the same type, their gradients).
template <typename S> struct ParamsT
{
    MatT<S> E; // (V, d_model) token embedding
    MatT<S> P; // (T_max, d_model) positions: learned, or the fixed sinusoids or zeros (then not trained)
    std::vector<LayerParamsT<S>> layers; // [n_layers]
    MatT<S> lnf_gamma, lnf_beta;         // (1, d_model) final LayerNorm, pre-LN only (else 0 x 0)
    MatT<S> W_U;                         // (d_model, V) unembedding (0 x 0 when tied to E: logits = Z Eᵀ)
    MatT<S> b_U;                         // (1, V) (0 x 0 without unembedding_bias)
    // The pretrained architectures' extras (0 x 0 when the config has none):
    MatT<S> T_type;              // (token_types, d_model) BERT's token type embedding
    MatT<S> emb_gamma, emb_beta; // (1, d_model) BERT's embedding LayerNorm
    MatT<S> W_T, b_T;            // (d_model, d_model), (1, d_model) the masked-LM head's transform
    MatT<S> mlm_gamma, mlm_beta; // (1, d_model) its LayerNorm
};
using Params = ParamsT<float>;

// One trained tensor by name, for the optimizer, save/load and the UI: "E", "P", "layers.0.W_Q",
// "layers.1.ln2_gamma", "lnf_beta", "W_U", ... (the field names above). decay says whether AdamW's weight
// decay applies (see adamw.h).
template <typename S> struct NamedTensorT
{
    std::string name;
    MatT<S>* value = nullptr;
    bool decay = false;
};
using NamedTensor = NamedTensorT<float>;

// The trained tensors of params in a fixed order (sinusoidal P, absent LN2/FFN/LN_f are left out). The
// pointers stay valid while params is neither resized nor moved.
template <typename S>
std::vector<NamedTensorT<S>> named_tensors(const ModelConfig& config, ParamsT<S>& params);

// Gives every tensor its shape for config. Values are left as they are for tensors already of that shape.
template <typename S> void size_params(const ModelConfig& config, ParamsT<S>& params);
// Sets every tensor to zero (the shapes stay).
template <typename S> void set_zero(ParamsT<S>& params);

// GPT-2-like seeded initialisation: matrices N(0, 0.02²), the residual projections W_O and W_2
// N(0, (0.02 / √(2 n_layers))²), the embeddings E and learned P N(0, config.embedding_std²) (0.02 unless a
// preset sets it), biases 0, γ = 1, β = 0. Each tensor's numbers depend only on config.seed and its name, so
// the same seed gives bit-identical parameters.
void init_params(const ModelConfig& config, Params& params);

// A copy in another precision (the float model in double for the gradient check).
template <typename To, typename From> ParamsT<To> cast_params(const ParamsT<From>& params);

// Total number of trained scalars, counted from the shape (nothing allocated: size checks come first).
long long parameter_count(const ModelConfig& config);

// [SECTION] Views: per head, per sentence

// Columns of head j in a (rows, h·d_k) matrix such as W_Q, Q or concat.
template <typename Derived> auto head_cols(Eigen::MatrixBase<Derived>& m, int j, int d_k)
{
    return m.middleCols(static_cast<Eigen::Index>(j) * d_k, d_k);
}
template <typename Derived> auto head_cols(const Eigen::MatrixBase<Derived>& m, int j, int d_k)
{
    return m.middleCols(static_cast<Eigen::Index>(j) * d_k, d_k);
}

} // namespace attnlab::train
