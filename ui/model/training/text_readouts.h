// What the Training panel shows of a text model beside its maps: the probe's characters with the model's
// surprise at each (the loss strip) and text sampled from the model at the timeline's step (on a worker
// thread, so the frame never waits for it). No ImGui here.
#pragma once

#include "core/status.h"
#include "core/train/batch.h"
#include "core/train/model.h"
#include "core/train/readouts.h"
#include "core/train/transformer.h"

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace attnlab
{

// [SECTION] The loss strip

// How a character is drawn in the strip and on a map's axis: a space as "·", a line feed as "↵", a tab as "→"
// (each drawn faint by the strip), any other character as itself.
std::string visible_character(const std::string& symbol);
// True for the symbols visible_character replaces (drawn faint).
bool is_blank_symbol(const std::string& symbol);

// Character t of symbols in its context, marked: "…Mr. D[a]rcy lo…" (radius characters either side, blanks
// through visible_character but a space kept as a space).
std::string character_context(const std::vector<std::string>& symbols, int t, int radius = 8);

// One character of the probe and what the model made of it.
struct LossCell
{
    std::string symbol; // the character (the vocabulary's string for its token)
    float loss = 0;     // nats: −ln p(this character | the ones before it); NaN for the first
    std::vector<train::TokenProb> top; // the model's most probable next characters before it (empty: first)
};

// The strip of sequence 0 of a forward pass (acts) over batch: cell t is character t, its loss the loss at
// position t − 1 (train::token_losses, the position that predicts it) and its top the top_k most probable
// tokens there. vocabulary gives the symbols (an id outside it: "?").
std::vector<LossCell> loss_strip(const train::Batch& batch, const train::Activations& acts,
                                 const std::vector<std::string>& vocabulary, int top_k = 5);

// The strip's colour scale: 0 nats (certain and right) to this many (the loss of guessing uniformly among
// e^5 ≈ 150 characters) and beyond: fixed, so that scrubbing the timeline compares like with like.
inline constexpr float kSurpriseMaxNats = 5.0f;

// [SECTION] Samples

// The prompt when none is typed: the probe's first characters.
inline constexpr int kSamplePromptCharacters = 16;
// The default prompt of a probe: its first kSamplePromptCharacters characters (UTF-8 kept whole); with
// whole_words (a word-level model), cut back to the last space within them, so that no word is cut in two
// (a cut word would be an unknown token).
std::string default_sample_prompt(const std::string& probe, bool whole_words = false);
// Characters a sample generates after its prompt.
inline constexpr int kSampleCharacters = 200;
// The temperature the panel starts at: below 1 the likelier characters win more often, so an
// under-trained model's text reads as words sooner than at the model's own probabilities.
inline constexpr float kDefaultSampleTemperature = 0.8f;

// What to generate: train::sample_tokens' arguments, with the parameters shared (immutable).
struct SampleRequest
{
    train::ModelConfig model;
    std::shared_ptr<const train::Params> params;
    std::vector<int> prompt; // token ids (at least one)
    int n = kSampleCharacters;
    float temperature = kDefaultSampleTemperature;
    std::uint64_t seed = 1;
    int step = 0; // the timeline's step of params (shown with the text)

    // The same parameters (by identity), prompt, length, temperature and seed: the same text.
    bool same_text(const SampleRequest& o) const;
};

struct SampleResult
{
    unsigned long long version = 0; // 0: none yet; then the number of the request it answers
    SampleRequest request;
    std::vector<int> tokens; // the generated tokens (the prompt's not included)
    Status status;           // why there is no text
    double ms = 0;           // the time it took
};

// Generates one sample on the calling thread.
SampleResult run_sample(const SampleRequest& request);

// A worker thread that generates the newest request. Requests that arrive while one is under way replace
// each other: only the newest waiting one runs next (the timeline moving during training asks at every new
// frame; only the latest matters).
class TextSampler
{
public:
    TextSampler() = default;
    ~TextSampler(); // stops and joins the worker
    TextSampler(const TextSampler&) = delete;
    TextSampler& operator=(const TextSampler&) = delete;

    // Asks for a sample unless it gives the same text as the last request. The worker starts on first use.
    void request(const SampleRequest& request);
    // The same, generated on the calling thread before it returns (pictures and tests).
    void request_now(const SampleRequest& request);
    // Copies the newest finished sample into out when it is newer than out->version; true when it did.
    bool poll(SampleResult* out) const;
    // True while the last request is not finished.
    bool pending() const;

private:
    void loop();

    std::thread worker_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;                // under mutex_
    bool waiting_ = false;             // under mutex_: next_ waits for the worker
    SampleRequest next_;               // under mutex_
    SampleRequest last_;               // the last request asked (UI thread)
    bool asked_ = false;               // last_ holds one (UI thread)
    unsigned long long requested_ = 0; // under mutex_: the number of the last request
    SampleResult done_;                // under mutex_: the newest finished
};

} // namespace attnlab
