// Session: everything the user chose (texts, model shape, mask, seed, ...), plain data that is saved and
// loaded.
#pragma once

#include "status.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace attnlab
{

// Which positions a query may attend to, besides padding (padding keys are always masked).
enum class MaskKind
{
    None,   // every query sees every (non-padding) key
    Causal, // query i sees keys 0..i only: the decoder's look-ahead mask
};

enum class PositionalKind
{
    Sinusoidal, // the paper's PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(...)
    None,       // X is the token embedding alone: attention cannot tell word order apart
};

// Upper bounds that keep every session interactive and its memory bounded (documented in README.md).
struct Limits
{
    static constexpr int max_tokens = 2048;   // T, after padding, per sentence (source or target)
    static constexpr int max_sentences = 64;  // B
    static constexpr int max_d_model = 4096;  // d_model
    static constexpr int max_heads = 64;      // h
    static constexpr int max_head_dim = 4096; // d_k and d_v
    static constexpr int max_d_ff = 16384;    // d_ff
    static constexpr int max_layers = 12;     // N
    static constexpr float min_temperature = 0.01f;
    static constexpr float max_temperature = 100.0f;
    // Floats kept by one trace (every intermediate of every layer) and its weights: 5e8 floats = 2 GB.
    static constexpr double max_trace_floats = 5e8;
};

// One per Config field, in the fields' order. core/settings.h gives each a row (its key in files, its
// command-line flag, its label, limits, ...) read by everyone who lists the settings; a static_assert there
// fails when a field has no entry here or no row there. A new setting: its field and entry here, its row,
// and its meaning in the engine.
enum class Setting
{
    d_model,
    heads,
    d_k,
    d_v,
    d_ff,
    layers,
    mask,
    positional,
    residual,
    temperature,
    scale,
    seed,
    Count
};
inline constexpr int kSettingCount = static_cast<int>(Setting::Count);

// The model's shape and the knobs of the forward pass. 0 for d_k, d_v, d_ff means "the paper's default".
struct Config
{
    int d_model = 16;
    int n_heads = 4; // h
    int d_k = 0;     // 0: d_model / h
    int d_v = 0;     // 0: d_model / h
    int d_ff = 0;    // 0: 4 * d_model
    int n_layers = 1;
    MaskKind mask = MaskKind::None;
    PositionalKind positional = PositionalKind::Sinusoidal;
    // Add & Norm adds the sub-layer's input back: LayerNorm(x + sublayer(x)); false: LayerNorm(sublayer(x))
    bool residual = true;
    float temperature = 1.0f; // τ in softmax(x / τ)
    bool scale = true; // divide the scores by √d_k (false: scaled = scores, to see the softmax saturate)
    std::uint64_t seed = 1; // embeddings and weights

    // The sizes actually used, with the defaults above resolved.
    int resolved_d_k() const { return d_k > 0 ? d_k : (n_heads > 0 ? d_model / n_heads : 0); }
    int resolved_d_v() const { return d_v > 0 ? d_v : (n_heads > 0 ? d_model / n_heads : 0); }
    int resolved_d_ff() const { return d_ff > 0 ? d_ff : 4 * d_model; }

    // Compares every setting (walking the settings table).
    bool operator==(const Config& o) const;
    bool operator!=(const Config& o) const { return !(*this == o); }
};

// What the user chose: it is what gets saved, loaded and passed on the command line.
struct Session
{
    // One sentence per line: a batch of B sentences, padded to the longest with <pad>.
    std::string text = "Jane visits Africa in September .";
    // Optional target sentence(s) for cross-attention: one line for all sources, or one line per source.
    std::string target;
    Config config;
    // Empty: seeded Xavier weights. Otherwise a JSON file whose "weights" object is read (core/io/FORMAT.md).
    std::string weights_path;
    // A trained model (an attnlab-model file) that goes with the session: opening the session opens it in
    // the Training panel, where the file's "view" says whether the main panels show it. Empty: none.
    std::string model_path;
    // A Hugging Face GPT-2 or BERT folder (core/io/hf_model.h) the text runs through in the main panels
    // instead of the seeded weights (the shape settings above then wait). Empty: none.
    std::string model_folder;

    bool operator==(const Session& o) const;
    bool operator!=(const Session& o) const { return !(*this == o); }
};

// The next number of heads after h in direction (+1 or -1) that divides d_model, so that the default
// d_k = d_v = d_model / h stays whole (the Model panel's h buttons step through these): 16 gives 1, 2, 4, 8,
// 16. Stays within 1 .. min(d_model, Limits::max_heads); h itself when there is none further that way.
int next_head_count(int d_model, int h, int direction);

// Checks the config alone: each setting's limits (its row in the settings table), then the rules between them
// (h divides d_model while d_k or d_v is the default). The message says what to change. On error, *setting
// (when given) is the setting the message is about, so a form can show it beside that field.
Status validate_config(const Config& config, Setting* setting = nullptr);

// Names used by the command line, session files and the UI (the settings table's names).
const char* to_string(MaskKind mask);
const char* to_string(PositionalKind positional);
// Parses "none" / "causal"; an unknown name gives an error listing the valid ones.
Status parse_mask(std::string_view name, MaskKind* out);
// Parses "sinusoidal" / "none".
Status parse_positional(std::string_view name, PositionalKind* out);

} // namespace attnlab
