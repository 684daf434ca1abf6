// The model's config check, named tensors, shapes and seeded GPT-2-like initialisation.
#include "model.h"

#include "core/embedding.h"
#include "core/matrix.h"
#include "core/random.h"

#include <cmath>

namespace attnlab::train
{

Status validate(const ModelConfig& c)
{
    if (c.vocab_size < 2 || c.vocab_size > 65536)
        return Status::error("vocab_size must be between 2 and 65536, not " + std::to_string(c.vocab_size));
    if (c.T_max < 1 || c.T_max > 4096)
        return Status::error("T_max must be between 1 and 4096, not " + std::to_string(c.T_max));
    if (c.d_model < 1 || c.d_model > kMaxDModel)
        return Status::error("d_model must be between 1 and " + std::to_string(kMaxDModel) + ", not " +
                             std::to_string(c.d_model));
    if (c.n_heads < 1 || c.n_heads > c.d_model || c.d_model % c.n_heads != 0)
        return Status::error("d_model (" + std::to_string(c.d_model) +
                             ") must be a multiple of the number of heads (" + std::to_string(c.n_heads) +
                             ")");
    if (c.n_layers < 1 || c.n_layers > kMaxLayers)
        return Status::error("n_layers must be between 1 and " + std::to_string(kMaxLayers) + ", not " +
                             std::to_string(c.n_layers));
    if (c.d_ff < 0 || c.d_ff > kMaxDFF)
        return Status::error("d_ff must be between 0 (4 d_model) and " + std::to_string(kMaxDFF) + ", not " +
                             std::to_string(c.d_ff));
    if (!(c.layer_norm_eps > 0.0f && c.layer_norm_eps < 1.0f))
        return Status::error("the LayerNorm epsilon must be between 0 and 1, not " +
                             std::to_string(c.layer_norm_eps));
    if (c.token_types < 0 || c.token_types > 1024)
        return Status::error("token_types must be between 0 and 1024, not " + std::to_string(c.token_types));
    return Status::ok();
}

const char* to_string(Activation activation)
{
    switch (activation)
    {
    case Activation::Relu:
        return "relu";
    case Activation::GeluTanh:
        return "gelu_tanh";
    case Activation::GeluErf:
        return "gelu_erf";
    }
    return "relu";
}

const char* to_string(PositionKind positions)
{
    switch (positions)
    {
    case PositionKind::Learned:
        return "learned";
    case PositionKind::Sinusoidal:
        return "sinusoidal";
    case PositionKind::None:
        return "none";
    }
    return "learned";
}

Status parse_positions(const std::string& name, PositionKind* out)
{
    for (const PositionKind k : {PositionKind::Learned, PositionKind::Sinusoidal, PositionKind::None})
        if (name == to_string(k))
        {
            *out = k;
            return Status::ok();
        }
    return Status::error("positions must be learned, sinusoidal or none, not '" + name + "'");
}

long long parameter_count(const ModelConfig& c)
{
    const long long V = c.vocab_size, d = c.d_model, d_ff = c.resolved_d_ff(), hd = c.n_heads * c.d_k();
    long long layer = 3 * d * hd + hd * d + 2 * d; // W_Q, W_K, W_V, W_O, LN1
    if (c.attention_bias)
        layer += 3 * hd + d; // b_Q, b_K, b_V, b_O
    if (c.has_ffn())
        layer += d * d_ff + d_ff + d_ff * d + d + 2 * d; // W_1, b_1, W_2, b_2, LN2
    long long n = V * d + c.n_layers * layer;            // E, layers
    if (!c.tied_unembedding)
        n += d * V; // W_U
    if (c.unembedding_bias)
        n += V; // b_U
    if (c.positions == PositionKind::Learned)
        n += static_cast<long long>(c.T_max) * d;
    if (c.has_final_norm())
        n += 2 * d;
    n += static_cast<long long>(c.token_types) * d; // T_type
    if (c.embedding_norm)
        n += 2 * d;
    if (c.mlm_head)
        n += d * d + 3 * d; // W_T, b_T, LN_mlm
    return n;
}

namespace
{

template <typename S> void shape(MatT<S>& m, Eigen::Index rows, Eigen::Index cols)
{
    if (m.rows() != rows || m.cols() != cols)
        m.setZero(rows, cols);
}

std::string layer_name(int l, const char* field)
{
    return "layers." + std::to_string(l) + "." + field;
}

} // namespace

template <typename S> void size_params(const ModelConfig& c, ParamsT<S>& p)
{
    const int d = c.d_model, hd = c.n_heads * c.d_k(), ff = c.resolved_d_ff(), V = c.vocab_size;
    shape(p.E, V, d);
    shape(p.P, c.T_max, d);
    p.layers.resize(static_cast<size_t>(c.n_layers));
    for (LayerParamsT<S>& L : p.layers)
    {
        shape(L.ln1_gamma, 1, d);
        shape(L.ln1_beta, 1, d);
        shape(L.W_Q, d, hd);
        shape(L.W_K, d, hd);
        shape(L.W_V, d, hd);
        shape(L.W_O, hd, d);
        const int a = c.attention_bias ? 1 : 0;
        shape(L.b_Q, a, a * hd);
        shape(L.b_K, a, a * hd);
        shape(L.b_V, a, a * hd);
        shape(L.b_O, a, a * d);
        const int n = c.has_ffn() ? 1 : 0;
        shape(L.ln2_gamma, n, n * d);
        shape(L.ln2_beta, n, n * d);
        shape(L.W_1, n * d, n * ff);
        shape(L.b_1, n, n * ff);
        shape(L.W_2, n * ff, n * d);
        shape(L.b_2, n, n * d);
    }
    const int f = c.has_final_norm() ? 1 : 0;
    shape(p.lnf_gamma, f, f * d);
    shape(p.lnf_beta, f, f * d);
    const int u = c.tied_unembedding ? 0 : 1, ub = c.unembedding_bias ? 1 : 0;
    shape(p.W_U, u * d, u * V);
    shape(p.b_U, ub, ub * V);
    shape(p.T_type, c.token_types, c.token_types > 0 ? d : 0);
    const int en = c.embedding_norm ? 1 : 0, m = c.mlm_head ? 1 : 0;
    shape(p.emb_gamma, en, en * d);
    shape(p.emb_beta, en, en * d);
    shape(p.W_T, m * d, m * d);
    shape(p.b_T, m, m * d);
    shape(p.mlm_gamma, m, m * d);
    shape(p.mlm_beta, m, m * d);
}

template <typename S> void set_zero(ParamsT<S>& p)
{
    p.E.setZero();
    p.P.setZero();
    for (LayerParamsT<S>& L : p.layers)
        for (MatT<S>* m : {&L.ln1_gamma, &L.ln1_beta, &L.W_Q, &L.W_K, &L.W_V, &L.W_O, &L.b_Q, &L.b_K, &L.b_V,
                           &L.b_O, &L.ln2_gamma, &L.ln2_beta, &L.W_1, &L.b_1, &L.W_2, &L.b_2})
            m->setZero();
    for (MatT<S>* m : {&p.lnf_gamma, &p.lnf_beta, &p.W_U, &p.b_U, &p.T_type, &p.emb_gamma, &p.emb_beta,
                       &p.W_T, &p.b_T, &p.mlm_gamma, &p.mlm_beta})
        m->setZero();
}

// Weight decay (AdamW) goes to the matrices that multiply activations: W_Q, W_K, W_V, W_O, W_1, W_2, W_U.
// Not to biases and LayerNorm's γ, β (decaying γ towards 0 would shrink the normalised signal, not make the
// model simpler), and not to the embeddings E and P, as minGPT does: a token or position seen rarely would be
// pulled to 0 between its few gradients.
template <typename S> std::vector<NamedTensorT<S>> named_tensors(const ModelConfig& c, ParamsT<S>& p)
{
    std::vector<NamedTensorT<S>> out;
    out.push_back({"E", &p.E, false});
    if (c.positions == PositionKind::Learned)
        out.push_back({"P", &p.P, false});
    for (int l = 0; l < static_cast<int>(p.layers.size()); ++l)
    {
        LayerParamsT<S>& L = p.layers[static_cast<size_t>(l)];
        out.push_back({layer_name(l, "ln1_gamma"), &L.ln1_gamma, false});
        out.push_back({layer_name(l, "ln1_beta"), &L.ln1_beta, false});
        out.push_back({layer_name(l, "W_Q"), &L.W_Q, true});
        out.push_back({layer_name(l, "W_K"), &L.W_K, true});
        out.push_back({layer_name(l, "W_V"), &L.W_V, true});
        out.push_back({layer_name(l, "W_O"), &L.W_O, true});
        if (c.attention_bias)
        {
            out.push_back({layer_name(l, "b_Q"), &L.b_Q, false});
            out.push_back({layer_name(l, "b_K"), &L.b_K, false});
            out.push_back({layer_name(l, "b_V"), &L.b_V, false});
            out.push_back({layer_name(l, "b_O"), &L.b_O, false});
        }
        if (c.has_ffn())
        {
            out.push_back({layer_name(l, "ln2_gamma"), &L.ln2_gamma, false});
            out.push_back({layer_name(l, "ln2_beta"), &L.ln2_beta, false});
            out.push_back({layer_name(l, "W_1"), &L.W_1, true});
            out.push_back({layer_name(l, "b_1"), &L.b_1, false});
            out.push_back({layer_name(l, "W_2"), &L.W_2, true});
            out.push_back({layer_name(l, "b_2"), &L.b_2, false});
        }
    }
    if (c.has_final_norm())
    {
        out.push_back({"lnf_gamma", &p.lnf_gamma, false});
        out.push_back({"lnf_beta", &p.lnf_beta, false});
    }
    if (c.token_types > 0)
        out.push_back({"T_type", &p.T_type, false});
    if (c.embedding_norm)
    {
        out.push_back({"emb_gamma", &p.emb_gamma, false});
        out.push_back({"emb_beta", &p.emb_beta, false});
    }
    if (c.mlm_head)
    {
        out.push_back({"W_T", &p.W_T, true});
        out.push_back({"b_T", &p.b_T, false});
        out.push_back({"mlm_gamma", &p.mlm_gamma, false});
        out.push_back({"mlm_beta", &p.mlm_beta, false});
    }
    if (!c.tied_unembedding)
        out.push_back({"W_U", &p.W_U, true});
    if (c.unembedding_bias)
        out.push_back({"b_U", &p.b_U, false});
    return out;
}

namespace
{

// N(0, std²), each entry from its own key: a hash of the seed and the tensor's name, plus the entry's index.
void normal_init(std::uint64_t seed, const std::string& name, double std, Mat& m)
{
    const std::uint64_t key = mix64(mix64(seed ^ 0x747261696E6Eull) ^ hash_string(name)); // "trainn"
    for (Eigen::Index i = 0; i < m.size(); ++i)
        m.data()[i] = static_cast<float>(std * normal01(key + static_cast<std::uint64_t>(i)));
}

} // namespace

void init_params(const ModelConfig& c, Params& p)
{
    size_params(c, p);
    const double std = 0.02, residual_std = 0.02 / std::sqrt(2.0 * c.n_layers);
    for (NamedTensor& t : named_tensors(c, p))
    {
        Mat& m = *t.value;
        const std::string& n = t.name;
        const auto ends_with = [&](const char* s)
        {
            const std::string suffix(s);
            return n.size() >= suffix.size() &&
                   n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0;
        };
        if (ends_with("gamma"))
            m.setOnes();
        else if (ends_with("beta") || n.rfind("b_", 0) == 0 || n.find(".b_") != std::string::npos)
            m.setZero();
        else
            normal_init(c.seed, n,
                        n == "E" || n == "P" || n == "T_type"  ? c.embedding_std
                        : ends_with("W_O") || ends_with("W_2") ? residual_std
                                                               : std,
                        m);
    }
    if (c.positions == PositionKind::Sinusoidal)
        positional_encoding(PositionalKind::Sinusoidal, c.T_max, c.d_model, p.P);
    else if (c.positions == PositionKind::None)
        p.P.setZero();
}

template <typename To, typename From> ParamsT<To> cast_params(const ParamsT<From>& p)
{
    ParamsT<To> out;
    out.E = p.E.template cast<To>();
    out.P = p.P.template cast<To>();
    out.layers.resize(p.layers.size());
    for (size_t l = 0; l < p.layers.size(); ++l)
    {
        const LayerParamsT<From>& a = p.layers[l];
        LayerParamsT<To>& b = out.layers[l];
        b.ln1_gamma = a.ln1_gamma.template cast<To>();
        b.ln1_beta = a.ln1_beta.template cast<To>();
        b.W_Q = a.W_Q.template cast<To>();
        b.W_K = a.W_K.template cast<To>();
        b.W_V = a.W_V.template cast<To>();
        b.W_O = a.W_O.template cast<To>();
        b.b_Q = a.b_Q.template cast<To>();
        b.b_K = a.b_K.template cast<To>();
        b.b_V = a.b_V.template cast<To>();
        b.b_O = a.b_O.template cast<To>();
        b.ln2_gamma = a.ln2_gamma.template cast<To>();
        b.ln2_beta = a.ln2_beta.template cast<To>();
        b.W_1 = a.W_1.template cast<To>();
        b.b_1 = a.b_1.template cast<To>();
        b.W_2 = a.W_2.template cast<To>();
        b.b_2 = a.b_2.template cast<To>();
    }
    out.lnf_gamma = p.lnf_gamma.template cast<To>();
    out.lnf_beta = p.lnf_beta.template cast<To>();
    out.W_U = p.W_U.template cast<To>();
    out.b_U = p.b_U.template cast<To>();
    out.T_type = p.T_type.template cast<To>();
    out.emb_gamma = p.emb_gamma.template cast<To>();
    out.emb_beta = p.emb_beta.template cast<To>();
    out.W_T = p.W_T.template cast<To>();
    out.b_T = p.b_T.template cast<To>();
    out.mlm_gamma = p.mlm_gamma.template cast<To>();
    out.mlm_beta = p.mlm_beta.template cast<To>();
    return out;
}

template void size_params(const ModelConfig&, ParamsT<float>&);
template void size_params(const ModelConfig&, ParamsT<double>&);
template void set_zero(ParamsT<float>&);
template void set_zero(ParamsT<double>&);
template std::vector<NamedTensorT<float>> named_tensors(const ModelConfig&, ParamsT<float>&);
template std::vector<NamedTensorT<double>> named_tensors(const ModelConfig&, ParamsT<double>&);
template ParamsT<double> cast_params(const ParamsT<float>&);
template ParamsT<float> cast_params(const ParamsT<double>&);
template ParamsT<float> cast_params(const ParamsT<float>&);

} // namespace attnlab::train
