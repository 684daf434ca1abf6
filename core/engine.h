// Engine: turns a Session into a Trace, keeping the last good Trace when the session is invalid.
#pragma once

#include "gemm.h"
#include "session.h"
#include "status.h"
#include "tokenizer.h"
#include "trace.h"
#include "weights.h"

#include <memory>
#include <string>

namespace attnlab
{

// Owns the weights and two traces (the one shown and a scratch one), so a recompute with unchanged shapes
// reuses every buffer and an error leaves the last good trace in place: once warm it makes no heap call at
// all (the matrix products keep their packing space too, see gemm.h). The weights' right operands are packed
// for the products once, when the weights change (pack_weights), not in every product of every run.
class Engine
{
public:
    // Validates the session, rebuilds the seeded weights when the seed or a shape changed (imported weights
    // are kept while they fit the config), and recomputes every intermediate. On error nothing changes.
    // session.weights_path is not read here: load the file and call set_imported_weights first.
    Status run(const Session& session);

    // Uses these weights instead of seeded ones until clear_imported_weights(). They are checked against the
    // config at the next run(); a mismatch is reported there and the previous trace stays.
    void set_imported_weights(ModelWeights weights);
    void clear_imported_weights();
    bool has_imported_weights() const { return imported_; }
    // The imported weights as one shared object (nullptr: none), and set so: a second engine computing on a
    // worker thread (ui/model/recompute_worker.h) uses the same weights without a copy.
    std::shared_ptr<const ModelWeights> shared_imported_weights() const
    {
        return imported_ ? next_weights_ : nullptr;
    }
    void share_imported_weights(std::shared_ptr<const ModelWeights> weights);
    // Takes other's last good trace and the weights it was computed with as this engine's (generation() + 1);
    // other keeps this engine's old trace as a buffer to reuse; weights_generation() + 1 when the weights
    // differ from this engine's. For the worker's engine and the shown one.
    void take_trace(Engine& other);

    const Trace& trace() const { return *current_; }
    // The weights trace() was computed with (imported weights set since then wait for the next good run).
    const ModelWeights& weights() const { return *weights_; }
    // The weights' right operands packed for the products (WeightPanels), made when the weights change.
    const WeightPanels& weight_panels() const { return panels_; }
    // The imported weights the next run() uses; meaningful while has_imported_weights().
    const ModelWeights& imported_weights() const { return *next_weights_; }
    // Increases by one each time run() succeeds; the UI re-uploads textures when it changes.
    unsigned long long generation() const { return generation_; }
    // Increases by one each time a successful run() starts using other weights than the run before it
    // (seed or shape changed, weights imported or cleared): pictures of the weights wait for it.
    unsigned long long weights_generation() const { return weights_generation_; }

private:
    // What the next run() uses (imported, or seeded for weights_config_), and what the last successful run
    // used. Never changed in place: new weights are a new object, so a good run shares it without a copy.
    std::shared_ptr<const ModelWeights> next_weights_ = std::make_shared<const ModelWeights>();
    std::shared_ptr<const ModelWeights> weights_ = next_weights_;
    Config weights_config_;
    // next_weights_'s right operands packed (pack_weights), and the weights and cross flag they were packed
    // for: a run repacks when either differs. Holding the weights keeps their memory from being reused.
    WeightPanels panels_;
    std::shared_ptr<const ModelWeights> panels_from_;
    bool panels_cross_ = false;
    bool weights_valid_ = false;
    bool imported_ = false;
    // Tokenized inputs of the last session, reused while the texts are unchanged.
    std::string text_, target_text_;
    bool tokens_valid_ = false;
    TokenBatch source_, target_;
    std::unique_ptr<Trace> current_ = std::make_unique<Trace>();
    std::unique_ptr<Trace> scratch_ = std::make_unique<Trace>();
    unsigned long long generation_ = 0;
    unsigned long long weights_generation_ = 0;
};

// Tokenizes the session's texts and checks everything a forward pass needs: the config, that there is a
// token, the target's line count (one, or one per source sentence), T and B against Limits, and the memory
// the trace would keep. The message says what to fix.
Status prepare_inputs(const Session& session, TokenBatch& source, TokenBatch& target);
Status validate_session(const Session& session);

// Floats a trace keeps for these sizes (every intermediate of every layer, masks included).
double trace_floats(const Config& config, int B, int T, int T_target);
// Floats of the model's weights (with the cross-attention block's when cross is true) and of the packed
// copies the engine keeps of them on the active instruction set.
double weight_floats(const Config& config, bool cross);
// Those packed copies alone (pack_weights: whole panels, so a head of d_k = 4 takes a panel's width; 0 where
// the active set keeps none).
double packed_weight_floats(const Config& config, bool cross);

// One forward pass into trace, reusing its buffers: with the same sizes and tokens nothing is allocated.
// Inputs must have passed prepare_inputs and the weights check_weights. target may be empty (no
// cross-attention). panels, when given, are pack_weights(weights, ...): the same numbers, fewer packings.
// Returns an error only if a non-finite number appears (e.g. huge imported weights).
Status forward(const Config& config, const TokenBatch& source, const TokenBatch& target,
               const ModelWeights& weights, Trace& trace, const WeightPanels* panels = nullptr);

// One multi-head attention block for sentence b: fills attn.head(b, j) for every head j, attn.concat[b] and
// attn.mha[b], reading the additive mask attn.mask[b] (T_q x T_k, 0 or -inf). attn must hold B·h heads.
// scale is the factor applied to the scores: 1/√d_k normally, 1 when scaling is switched off.
// panels, when given, are w's right operands packed (pack_weights). output, when given, is done to mha with
// Concat W^O's product (the layer's residual add: gemm.h's ProductEpilogue). Returns whether every score
// (Q_h K_hᵀ of every head) is finite.
bool attention_forward(const Mat& X_q, const Mat& X_kv, const AttentionWeights& w, float scale,
                       float temperature, int b, AttentionTrace& attn,
                       const AttentionPanels* panels = nullptr, const ProductEpilogue& output = {});

// The factor the config applies to the scores: 1/√d_k, or 1 when config.scale is false.
float score_scale(const Config& config);

// One post-LN encoder layer for sentence b, reading layer.X[b]: mask, attention, Add & Norm, FFN, Add & Norm.
// With c.residual false each Add & Norm adds nothing back: norm1 = LayerNorm(MultiHead(X)), norm2 =
// LayerNorm(FFN(norm1)) (residual and residual2 then hold the sub-layer's output alone).
// key_length is the sentence's real (unpadded) length. layer must be sized with size_layer.
// Returns whether every score of its attention block is finite (attention_forward).
bool encoder_layer_forward(const Config& c, const LayerWeights& lw, int b, int key_length, LayerTrace& layer,
                           const LayerPanels* panels = nullptr);

// Give the per-sentence and per-head vectors of a block or layer their batch size (no-op when unchanged).
void size_attention(AttentionTrace& attn, int B, int h);
void size_layer(LayerTrace& layer, int B, int h);

// M for one sentence: -inf where key t >= key_length (padding) or, when causal, where key > query.
void build_mask(int T_q, int T_k, int key_length, bool causal, Mat& mask);

} // namespace attnlab
