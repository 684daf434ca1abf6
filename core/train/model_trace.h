// A trained model's pass in the engine's Trace layout, so every panel that shows a seeded session's stages
// shows a trained model's the same way: per head Q K V scores scaled masked weights head_out, then the
// stages only a trained model has (LN1 and LN2 of pre-LN layers, ∂L/∂A_h, LN_f, logits, probabilities,
// loss) and those of the pretrained architectures (the embedding LayerNorm, the masked-LM head).
#pragma once

#include "core/trace.h"
#include "core/train/transformer.h"
#include "core/weights.h"

#include <string>
#include <vector>

namespace attnlab::train
{

// Copies acts (a Detail::Full forward of batch through params) and, when grads is not null, the attention
// weights' gradients into trace, sentence by sentence. vocabulary names the token ids (its size is V).
// Stages the model does not have are left empty (embed and embed_norm without an embedding LayerNorm, the
// masked-LM head's without one, lnf post-LN, loss when no position of batch has a target), and Trace's flags
// (activation, attention_bias, tied_unembedding, ...) say which equations apply. Reuses trace's buffers: the
// same sizes allocate nothing.
void fill_trace(const ModelConfig& config, const ParamsT<float>& params, const Batch& batch,
                const Activations& acts, const ActGrads* grads, const std::vector<std::string>& vocabulary,
                Trace& trace);
// fill_trace without gradients that uses acts up instead of copying it: with one sentence, every stage kept
// whole moves its storage into trace, each layer's rest is freed once copied, and acts ends empty. So a
// pass and its trace are never both held (the window keeps an opened model's trace, not its activations).
// The next forward into acts allocates again.
void take_trace(const ModelConfig& config, const ParamsT<float>& params, const Batch& batch,
                Activations& acts, const std::vector<std::string>& vocabulary, Trace& trace);

// The model's attention and FFN matrices in core's layout (one W_h^Q per head, LayerNorm gains as rows), for
// what reads a seeded model's weights (the Inspector's products, the comparisons). The attention-only
// model's FFN and LN2 matrices are left empty.
void to_model_weights(const ModelConfig& config, const ParamsT<float>& params, ModelWeights& weights);
// The same for one layer (0 <= layer < n_layers) into weights.
void to_layer_weights(const ModelConfig& config, const ParamsT<float>& params, int layer,
                      LayerWeights& weights);

// The engine's Config describing this model's shape (d_model, h, d_ff, layers, causal mask, τ = 1, scaled).
Config engine_config(const ModelConfig& config);

} // namespace attnlab::train
