// Model weights in the paper's orientation (Q = X W^Q: input x output), seeded or imported.
#pragma once

#include "gemm.h"
#include "matrix.h"
#include "session.h"
#include "status.h"

#include <vector>

namespace attnlab
{

// One multi-head attention block.
struct AttentionWeights
{
    std::vector<Mat> W_Q; // [h] (d_model, d_k)
    std::vector<Mat> W_K; // [h] (d_model, d_k)
    std::vector<Mat> W_V; // [h] (d_model, d_v)
    Mat W_O;              // (h·d_v, d_model)
};

// One post-LN encoder layer: attention, Add & Norm, FFN, Add & Norm.
struct LayerWeights
{
    AttentionWeights attn;
    RowVec gamma_1, beta_1; // (d_model) LayerNorm after the attention residual
    Mat W_1;                // (d_model, d_ff)
    RowVec b_1;             // (d_ff)
    Mat W_2;                // (d_ff, d_model)
    RowVec b_2;             // (d_model)
    RowVec gamma_2, beta_2; // (d_model) LayerNorm after the FFN residual
};

struct ModelWeights
{
    std::vector<LayerWeights> layers; // [n_layers]
    AttentionWeights cross;           // decoder-style cross-attention (queries: target, keys/values: source)
};

// The matrices the forward pass multiplies by on the right, packed once into the products' panels (gemm.h's
// PackedOperand), the same tree as the weights they were packed from.
struct AttentionPanels
{
    std::vector<PackedOperand> W_Q, W_K, W_V; // [h]
    PackedOperand W_O;
};

struct LayerPanels
{
    AttentionPanels attn;
    PackedOperand W_1, W_2;
};

struct WeightPanels
{
    std::vector<LayerPanels> layers; // [n_layers]
    AttentionPanels cross;
};

// Packs every right operand of weights into panels (buffers reused where large enough), the cross-attention
// block's only when cross is true. weights must not be changed in place afterwards: pack new weights again.
void pack_weights(const ModelWeights& weights, bool cross, WeightPanels& panels);
// Floats the packed copies hold (0 on the paths whose kernels do not pack the weights).
std::size_t panel_floats(const WeightPanels& panels);

// Seeded Glorot/Xavier uniform weights (biases 0, γ = 1, β = 0). The same seed and shape always give the
// same numbers, and each matrix depends only on the seed, its name, layer and head, never on the tokens.
ModelWeights init_weights(const Config& config);

// Checks that every matrix has the shape the config asks for. The message names the first mismatch, e.g.
// "layers[0].W_Q[1] is 8x3 but d_model x d_k is 8x4".
Status check_weights(const ModelWeights& weights, const Config& config);

// The packed projection W^Q = [W_1^Q | ... | W_h^Q] (d_model, h·d_k); likewise for K and V.
void pack_heads(const std::vector<Mat>& per_head, Mat& packed);

// A seeded (d_model, d_model) matrix: the extra W^Q of the lecture slides' two-step projection.
Mat slide_projection(const Config& config);

} // namespace attnlab
