// Seeded Glorot/Xavier weights, their shape check, and the packing of per-head projections.
#include "weights.h"

#include "embedding.h"
#include "random.h"

#include <cmath>
#include <string>

namespace attnlab
{

namespace
{

// Glorot/Xavier uniform: U(-a, a) with a = sqrt(6 / (fan_in + fan_out)); each entry from its own key.
Mat xavier(std::uint64_t seed, const std::string& name, int rows, int cols)
{
    Mat m(rows, cols);
    const std::uint64_t key = mix64(mix64(seed ^ 0x77656967687473ull) ^ hash_string(name)); // "weights"
    const double a = std::sqrt(6.0 / (rows + cols));
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
        {
            const std::uint64_t index = static_cast<std::uint64_t>(r) * static_cast<std::uint64_t>(cols) + c;
            m(r, c) = static_cast<float>((2.0 * uniform01(key + index) - 1.0) * a);
        }
    return m;
}

AttentionWeights init_attention(const Config& c, const std::string& prefix)
{
    const int h = c.n_heads, d_k = c.resolved_d_k(), d_v = c.resolved_d_v();
    AttentionWeights w;
    for (int j = 0; j < h; ++j)
    {
        const std::string suffix = "[" + std::to_string(j) + "]";
        w.W_Q.push_back(xavier(c.seed, prefix + "W_Q" + suffix, c.d_model, d_k));
        w.W_K.push_back(xavier(c.seed, prefix + "W_K" + suffix, c.d_model, d_k));
        w.W_V.push_back(xavier(c.seed, prefix + "W_V" + suffix, c.d_model, d_v));
    }
    w.W_O = xavier(c.seed, prefix + "W_O", h * d_v, c.d_model);
    return w;
}

std::string shape_text(Eigen::Index rows, Eigen::Index cols)
{
    return std::to_string(rows) + "x" + std::to_string(cols);
}

Status check_matrix(const Mat& m, const std::string& name, int rows, int cols, const char* symbols)
{
    if (m.rows() != rows || m.cols() != cols)
        return Status::error(name + " is " + shape_text(m.rows(), m.cols()) + " but " + symbols + " is " +
                             shape_text(rows, cols));
    if (!m.allFinite())
        return Status::error(name + " contains a NaN or infinite value");
    return Status::ok();
}

Status check_vector(const RowVec& v, const std::string& name, int n, const char* symbol)
{
    if (v.size() != n)
        return Status::error(name + " has " + std::to_string(v.size()) + " entries but " + symbol + " is " +
                             std::to_string(n));
    if (!v.allFinite())
        return Status::error(name + " contains a NaN or infinite value");
    return Status::ok();
}

Status check_attention(const AttentionWeights& w, const Config& c, const std::string& prefix)
{
    const int h = c.n_heads, d_k = c.resolved_d_k(), d_v = c.resolved_d_v();
    if (static_cast<int>(w.W_Q.size()) != h || static_cast<int>(w.W_K.size()) != h ||
        static_cast<int>(w.W_V.size()) != h)
        return Status::error(prefix + "W_Q, W_K and W_V need one matrix per head: h = " + std::to_string(h) +
                             ", found " + std::to_string(w.W_Q.size()) + ", " + std::to_string(w.W_K.size()) +
                             " and " + std::to_string(w.W_V.size()));
    for (int j = 0; j < h; ++j)
    {
        const std::string at = "[" + std::to_string(j) + "]";
        if (Status s = check_matrix(w.W_Q[j], prefix + "W_Q" + at, c.d_model, d_k, "d_model x d_k"); !s)
            return s;
        if (Status s = check_matrix(w.W_K[j], prefix + "W_K" + at, c.d_model, d_k, "d_model x d_k"); !s)
            return s;
        if (Status s = check_matrix(w.W_V[j], prefix + "W_V" + at, c.d_model, d_v, "d_model x d_v"); !s)
            return s;
    }
    return check_matrix(w.W_O, prefix + "W_O", h * d_v, c.d_model, "h·d_v x d_model");
}

} // namespace

ModelWeights init_weights(const Config& c)
{
    ModelWeights w;
    const int d_ff = c.resolved_d_ff();
    for (int l = 0; l < c.n_layers; ++l)
    {
        const std::string prefix = "layers[" + std::to_string(l) + "].";
        LayerWeights lw;
        lw.attn = init_attention(c, prefix);
        lw.gamma_1 = RowVec::Ones(c.d_model);
        lw.beta_1 = RowVec::Zero(c.d_model);
        lw.W_1 = xavier(c.seed, prefix + "W_1", c.d_model, d_ff);
        lw.b_1 = RowVec::Zero(d_ff);
        lw.W_2 = xavier(c.seed, prefix + "W_2", d_ff, c.d_model);
        lw.b_2 = RowVec::Zero(c.d_model);
        lw.gamma_2 = RowVec::Ones(c.d_model);
        lw.beta_2 = RowVec::Zero(c.d_model);
        w.layers.push_back(std::move(lw));
    }
    w.cross = init_attention(c, "cross.");
    return w;
}

Status check_weights(const ModelWeights& w, const Config& c)
{
    if (static_cast<int>(w.layers.size()) != c.n_layers)
        return Status::error("the weights have " + std::to_string(w.layers.size()) +
                             " layers but the session asks for " + std::to_string(c.n_layers) +
                             ": set layers to match the weights file");
    const int d_ff = c.resolved_d_ff();
    for (int l = 0; l < c.n_layers; ++l)
    {
        const LayerWeights& lw = w.layers[static_cast<size_t>(l)];
        const std::string p = "layers[" + std::to_string(l) + "].";
        Status s = check_attention(lw.attn, c, p);
        if (s)
            s = check_vector(lw.gamma_1, p + "gamma_1", c.d_model, "d_model");
        if (s)
            s = check_vector(lw.beta_1, p + "beta_1", c.d_model, "d_model");
        if (s)
            s = check_matrix(lw.W_1, p + "W_1", c.d_model, d_ff, "d_model x d_ff");
        if (s)
            s = check_vector(lw.b_1, p + "b_1", d_ff, "d_ff");
        if (s)
            s = check_matrix(lw.W_2, p + "W_2", d_ff, c.d_model, "d_ff x d_model");
        if (s)
            s = check_vector(lw.b_2, p + "b_2", c.d_model, "d_model");
        if (s)
            s = check_vector(lw.gamma_2, p + "gamma_2", c.d_model, "d_model");
        if (s)
            s = check_vector(lw.beta_2, p + "beta_2", c.d_model, "d_model");
        if (!s)
            return s;
    }
    return check_attention(w.cross, c, "cross.");
}

void pack_heads(const std::vector<Mat>& per_head, Mat& packed)
{
    if (per_head.empty())
    {
        packed.resize(0, 0);
        return;
    }
    const Eigen::Index rows = per_head[0].rows(), cols = per_head[0].cols();
    packed.resize(rows, cols * static_cast<Eigen::Index>(per_head.size()));
    for (size_t j = 0; j < per_head.size(); ++j)
        packed.middleCols(static_cast<Eigen::Index>(j) * cols, cols) = per_head[j];
}

Mat slide_projection(const Config& c)
{
    return xavier(c.seed, "slide.W_Q", c.d_model, c.d_model);
}

// [SECTION] Panels

namespace
{

void pack_attention(const AttentionWeights& w, AttentionPanels& p)
{
    const auto pack_heads_of = [](const std::vector<Mat>& W, std::vector<PackedOperand>& P)
    {
        P.resize(W.size());
        for (size_t j = 0; j < W.size(); ++j)
            P[j].pack(W[j]);
    };
    pack_heads_of(w.W_Q, p.W_Q);
    pack_heads_of(w.W_K, p.W_K);
    pack_heads_of(w.W_V, p.W_V);
    p.W_O.pack(w.W_O);
}

std::size_t attention_floats(const AttentionPanels& p)
{
    std::size_t floats = p.W_O.floats();
    for (const std::vector<PackedOperand>* heads : {&p.W_Q, &p.W_K, &p.W_V})
        for (const PackedOperand& W : *heads)
            floats += W.floats();
    return floats;
}

} // namespace

void pack_weights(const ModelWeights& weights, bool cross, WeightPanels& panels)
{
    panels.layers.resize(weights.layers.size());
    for (size_t l = 0; l < weights.layers.size(); ++l)
    {
        const LayerWeights& lw = weights.layers[l];
        LayerPanels& lp = panels.layers[l];
        pack_attention(lw.attn, lp.attn);
        lp.W_1.pack(lw.W_1);
        lp.W_2.pack(lw.W_2);
    }
    if (cross)
    {
        pack_attention(weights.cross, panels.cross);
        return;
    }
    for (std::vector<PackedOperand>* heads : {&panels.cross.W_Q, &panels.cross.W_K, &panels.cross.W_V})
        heads->clear();
    panels.cross.W_O.clear();
}

std::size_t panel_floats(const WeightPanels& panels)
{
    std::size_t floats = attention_floats(panels.cross);
    for (const LayerPanels& lp : panels.layers)
        floats += attention_floats(lp.attn) + lp.W_1.floats() + lp.W_2.floats();
    return floats;
}

} // namespace attnlab
