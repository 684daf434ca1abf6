// The loss strip's cells and the sample worker of the Training panel's text readouts.
#include "ui/model/training/text_readouts.h"

#include "core/train/metrics.h"
#include "core/train/sampling.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace attnlab
{

// [SECTION] The loss strip

std::string visible_character(const std::string& symbol)
{
    if (symbol == " ")
        return "\xC2\xB7"; // U+00B7 middle dot
    if (symbol == "\n")
        return "\xE2\x86\xB5"; // U+21B5 downwards arrow with corner leftwards
    if (symbol == "\t")
        return "\xE2\x86\x92"; // U+2192 rightwards arrow
    if (symbol == "\r")
        return "\xE2\x86\x90"; // U+2190 leftwards arrow
    return symbol;
}

bool is_blank_symbol(const std::string& symbol)
{
    return symbol == " " || symbol == "\n" || symbol == "\t" || symbol == "\r";
}

std::string character_context(const std::vector<std::string>& symbols, int t, int radius)
{
    const int n = static_cast<int>(symbols.size());
    if (t < 0 || t >= n)
        return "";
    const int from = std::max(0, t - radius), to = std::min(n, t + radius + 1);
    std::string out = from > 0 ? "\xE2\x80\xA6" : ""; // U+2026 ellipsis
    for (int i = from; i < to; ++i)
    {
        const std::string& s = symbols[static_cast<std::size_t>(i)];
        const std::string shown = s == " " ? s : visible_character(s);
        out += i == t ? "[" + shown + "]" : shown;
    }
    if (to < n)
        out += "\xE2\x80\xA6";
    return out;
}

std::vector<LossCell> loss_strip(const train::Batch& batch, const train::Activations& acts,
                                 const std::vector<std::string>& vocabulary, int top_k)
{
    std::vector<LossCell> cells;
    if (batch.B < 1 || batch.T < 1 || acts.T != batch.T)
        return cells;
    const std::vector<float> losses = train::token_losses(batch, acts, 0);
    cells.resize(static_cast<std::size_t>(batch.T));
    for (int t = 0; t < batch.T; ++t)
    {
        LossCell& c = cells[static_cast<std::size_t>(t)];
        const int id = batch.tokens[static_cast<std::size_t>(t)];
        c.symbol = id >= 0 && id < static_cast<int>(vocabulary.size())
                       ? vocabulary[static_cast<std::size_t>(id)]
                       : std::string("?");
        if (t == 0)
        {
            c.loss = std::numeric_limits<float>::quiet_NaN(); // nothing before it predicts it
            continue;
        }
        c.loss = losses[static_cast<std::size_t>(t - 1)];
        c.top = train::top_k(acts.probs.row(t - 1), top_k);
    }
    return cells;
}

// [SECTION] Samples

std::string default_sample_prompt(const std::string& probe, bool whole_words)
{
    std::size_t end = 0;
    for (int n = 0; n < kSamplePromptCharacters && end < probe.size(); ++n)
    {
        ++end; // past the lead byte, then past its continuation bytes
        while (end < probe.size() && (static_cast<unsigned char>(probe[end]) & 0xC0) == 0x80)
            ++end;
    }
    if (whole_words && end < probe.size() && probe[end] != ' ')
        if (const std::size_t space = probe.rfind(' ', end); space != std::string::npos && space > 0)
            end = space;
    return probe.substr(0, end);
}

bool SampleRequest::same_text(const SampleRequest& o) const
{
    return params == o.params && prompt == o.prompt && n == o.n && temperature == o.temperature &&
           seed == o.seed && model.vocab_size == o.model.vocab_size && model.T_max == o.model.T_max;
}

SampleResult run_sample(const SampleRequest& request)
{
    SampleResult r;
    r.request = request;
    if (request.params == nullptr)
    {
        r.status = Status::error("no model to sample from yet: press Step or Play");
        return r;
    }
    const auto t0 = std::chrono::steady_clock::now();
    r.status = train::sample_tokens(request.model, *request.params, request.prompt, request.n,
                                    request.temperature, request.seed, &r.tokens);
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

TextSampler::~TextSampler()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    if (worker_.joinable())
        worker_.join();
}

void TextSampler::request(const SampleRequest& request)
{
    if (asked_ && last_.same_text(request))
        return;
    last_ = request;
    asked_ = true;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        next_ = request;
        waiting_ = true;
        ++requested_;
    }
    if (!worker_.joinable())
        worker_ = std::thread([this] { loop(); });
    wake_.notify_one();
}

void TextSampler::request_now(const SampleRequest& request)
{
    if (asked_ && last_.same_text(request) && !pending())
        return;
    last_ = request;
    asked_ = true;
    unsigned long long version = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        waiting_ = false; // an older request waiting is superseded
        version = ++requested_;
    }
    SampleResult r = run_sample(request);
    r.version = version;
    std::lock_guard<std::mutex> lock(mutex_);
    if (r.version > done_.version)
        done_ = std::move(r);
}

bool TextSampler::poll(SampleResult* out) const
{
    std::lock_guard<std::mutex> lock(mutex_);
    if (done_.version <= out->version)
        return false;
    *out = done_;
    return true;
}

bool TextSampler::pending() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return done_.version < requested_;
}

void TextSampler::loop()
{
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;)
    {
        wake_.wait(lock, [this] { return stop_ || waiting_; });
        if (stop_)
            return;
        const SampleRequest request = next_;
        const unsigned long long version = requested_;
        waiting_ = false;
        lock.unlock();
        SampleResult r = run_sample(request);
        r.version = version;
        lock.lock();
        if (r.version > done_.version)
            done_ = std::move(r);
    }
}

} // namespace attnlab
