// Sampling: generating tokens from a trained model.
#include "sampling.h"

#include "batch.h"
#include "one_thread.h"
#include "transformer.h"

#include "core/random.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace attnlab::train
{

Status sample_tokens(const ModelConfig& config, const Params& params, const std::vector<int>& prompt, int n,
                     float temperature, std::uint64_t seed, std::vector<int>* out)
{
    if (prompt.empty())
        return Status::error("the prompt is empty: type a few characters for the model to go on from");
    for (const int id : prompt)
        if (id < 0 || id >= config.vocab_size)
            return Status::error("prompt token " + std::to_string(id) + " is outside the vocabulary of " +
                                 std::to_string(config.vocab_size));
    if (n < 0 || n > kMaxSampleTokens)
        return Status::error("a sample has 0 to " + std::to_string(kMaxSampleTokens) + " tokens, not " +
                             std::to_string(n));
    if (!(temperature >= 0) || !std::isfinite(temperature))
        return Status::error("the temperature must be 0 or more (1: the model's own probabilities), not " +
                             format_number(temperature));
    OneThread one_thread;
    std::vector<int> text = prompt;
    std::vector<int> made;
    made.reserve(static_cast<size_t>(n));
    Batch batch;
    Activations acts;
    std::vector<double> p(static_cast<size_t>(config.vocab_size));
    for (int k = 0; k < n; ++k)
    {
        const int T = std::min(static_cast<int>(text.size()), config.T_max);
        if (batch.T != T)
        {
            batch.resize(1, T);
            std::fill(batch.targets.begin(), batch.targets.end(), -1);
            size_activations(config, 1, T, acts);
        }
        std::copy(text.end() - T, text.end(), batch.tokens.begin());
        forward(config, params, batch, acts, static_cast<const WeightNudge<float>*>(nullptr),
                Detail::Training);
        const auto logits = acts.logits.row(T - 1);
        Eigen::Index best = 0;
        const float max = logits.maxCoeff(&best);
        int next = static_cast<int>(best);
        if (temperature > 0)
        {
            double sum = 0;
            for (int v = 0; v < config.vocab_size; ++v)
                sum += p[static_cast<size_t>(v)] =
                    std::exp(static_cast<double>(logits(v) - max) / static_cast<double>(temperature));
            double u = uniform01(mix64(seed ^ 0x73616D706C65ull) + static_cast<std::uint64_t>(k)) * sum;
            for (int v = 0; v < config.vocab_size; ++v)
            {
                u -= p[static_cast<size_t>(v)];
                next = v;
                if (u <= 0)
                    break;
            }
        }
        text.push_back(next);
        made.push_back(next);
    }
    *out = std::move(made);
    return Status::ok();
}

} // namespace attnlab::train
