// A Hugging Face GPT-2 or BERT folder loaded into the engine's one model description (train::ModelConfig and
// train::Params, which also describe the seeded-and-trained models), and texts run through it into a Trace.
#pragma once

#include "core/io/hf_config.h"
#include "core/io/hf_tokenizer.h"
#include "core/status.h"
#include "core/trace.h"
#include "core/train/model.h"
#include "core/train/transformer.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab
{

// An opened model: what it is, its weights in the engine's layout, and its tokenizer. Immutable once loaded,
// so several threads may run it at once (each with its own HfRun).
struct HfLoadedModel
{
    HfModel files;             // the folder, config.json, the safetensors index and the tensor plan
    train::ModelConfig config; // the engine's description (pre-LN GPT-2 or post-LN BERT, see hf_model_config)
    std::shared_ptr<const train::Params> params;
    std::shared_ptr<const HfTokenizer> tokenizer;
    std::vector<std::string> vocabulary; // [V] each id as a token chip shows it ("␣world", "##able")
    long long parameters = 0; // every weight the file holds that the model uses (a tie counts once)
    int mask_id = -1;         // BERT's [MASK] id (-1: none)

    bool is_gpt2() const { return files.config.architecture == HfArchitecture::Gpt2; }
    // "GPT-2 (124M parameters)", "BERT (110M parameters)".
    std::string label() const;
    // "GPT-2 (124M parameters), pretrained, from /models/gpt2": what each panel says it shows.
    std::string source() const;
};

// The engine's description of an HF config: GPT-2 pre-LN with a final LayerNorm, tanh GELU, causal, learned
// positions, biases on Q K V and W_O, unembedding tied to the token embedding without bias; BERT post-LN,
// erf GELU, bidirectional, token types, embedding LayerNorm, and (mlm_head) the masked-LM head whose decoder
// is tied with a bias. A size beyond the engine's limits (train::validate) is refused naming it; so is
// GPT-2's scale_attn_weights false (scores without ÷√d_k).
Status hf_model_config(const HfConfig& hf, bool mlm_head, train::ModelConfig* out);

// The memory an opened model's weights may take as float: a larger model is refused before anything is read
// (GPT-2 medium and BERT-large take about 1.4 GB; the limits of train::validate alone would let through 20
// GB).
inline constexpr double kMaxHfWeightBytes = 3e9;

// Whether a model of config c (read from folder) is within kMaxHfWeightBytes; the message names its size.
Status check_hf_model_size(const train::ModelConfig& c, const std::string& folder);

// Opens FOLDER (open_hf_model), reads the tokenizer and every tensor into the engine's layout: GPT-2's c_attn
// split into W_Q, W_K, W_V, BERT's nn.Linear weights transposed, an lm_head or decoder weight equal to the
// token embedding kept once (a different one is refused: untied heads are not supported). progress, when set,
// is called with the fraction read so far (0 to 1); returning false cancels (an error that says so). A model
// over kMaxHfWeightBytes, or one the machine runs out of memory reading, is an error naming its size. out is
// unchanged on error.
Status load_hf_model(const std::string& folder, HfLoadedModel* out,
                     const std::function<bool(double)>& progress = {});

// One text through an opened model (B = 1): its encoding, the batch fed to the engine and every intermediate.
struct HfRun
{
    Encoding encoding;
    train::Batch batch; // GPT-2: each position's target is the next token (the last has none); BERT: none
    train::Activations acts;
};

// Encodes text with the model's tokenizer and checks its length: at least one token, and at most the model's
// context (n_positions / max_position_embeddings): the message names the limit and the length. out is
// unchanged on error.
Status encode_for_model(const HfLoadedModel& model, std::string_view text, Encoding* out);

// encode_for_model, then one forward pass keeping every intermediate (train::Detail::Full). heads_off
// switches heads off (train::HeadMask). Reuses run's buffers. Refused: a text the tokenizer refuses or too
// long (run unchanged), and logits that overflow float (weights too large: run's activations then hold that
// failed pass, not to be shown; keep the last good trace).
Status run_hf_text(const HfLoadedModel& model, std::string_view text, HfRun* run,
                   const train::HeadMask* heads_off = nullptr);
// The same from token ids (each below the vocabulary size, 1 <= count <= context).
Status run_hf_ids(const HfLoadedModel& model, const std::vector<int>& ids, HfRun* run,
                  const train::HeadMask* heads_off = nullptr);

// The run in the engine's Trace layout (train::fill_trace): token labels are the model's pieces and
// trace->model_source says which model it is.
void fill_hf_trace(const HfLoadedModel& model, const HfRun& run, Trace* trace);
// fill_hf_trace that uses run.acts up (train::take_trace): the window's way, so an opened model's pass is not
// held twice. Read run.acts (predictions, the logit lens) before.
void take_hf_trace(const HfLoadedModel& model, HfRun& run, Trace* trace);

// Writes the run as "attnlab-model-trace" (core/io/FORMAT.md, write_opened_model_trace_json): what
// `attnlab export --model DIR` and File > Export trace write for an opened model. The file appears only when
// it is complete.
Status write_hf_run_json(const HfLoadedModel& model, const HfRun& run, const std::string& path);

} // namespace attnlab
