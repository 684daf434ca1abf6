// Text in a model's vocabulary as a next-token batch.
#include "token_text.h"

#include <unordered_map>

namespace attnlab::train
{

std::string vocabulary_text(const std::vector<std::string>& vocabulary)
{
    std::string s;
    for (size_t i = 0; i < vocabulary.size(); ++i)
    {
        if (s.size() > 300)
            return s + " … (" + std::to_string(vocabulary.size()) + " tokens in all)";
        s += (i ? " " : "") + vocabulary[i];
    }
    return s;
}

namespace
{

// The words of one line, split at spaces and tabs.
std::vector<std::string_view> words(std::string_view line)
{
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < line.size())
    {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
            ++i;
        size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r')
            ++j;
        if (j > i)
            out.push_back(line.substr(i, j - i));
        i = j;
    }
    return out;
}

} // namespace

Status text_batch(std::string_view text, const std::vector<std::string>& vocabulary, int T_max, Batch* out)
{
    std::unordered_map<std::string_view, int> ids;
    for (size_t i = 0; i < vocabulary.size(); ++i)
        ids.emplace(vocabulary[i], static_cast<int>(i));
    std::vector<std::vector<int>> lines;
    size_t start = 0;
    while (start <= text.size())
    {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        std::vector<int> tokens;
        for (const std::string_view word : words(text.substr(start, end - start)))
        {
            const auto it = ids.find(word);
            if (it == ids.end())
                return Status::error(
                    "unknown token '" + std::string(word) + "' on line " + std::to_string(lines.size() + 1) +
                    "; the model's vocabulary (separate tokens by spaces): " + vocabulary_text(vocabulary));
            tokens.push_back(it->second);
        }
        if (!tokens.empty())
        {
            if (lines.size() >= static_cast<size_t>(kMaxTextLines))
                return Status::error("the text has more than " + std::to_string(kMaxTextLines) + " lines");
            lines.push_back(std::move(tokens));
        }
        start = end + 1;
    }
    if (lines.empty())
        return Status::error("the text has no tokens; the model's vocabulary: " +
                             vocabulary_text(vocabulary));
    const int T = static_cast<int>(lines[0].size());
    for (size_t b = 1; b < lines.size(); ++b)
        if (static_cast<int>(lines[b].size()) != T)
            return Status::error("every line must have as many tokens as the first (" + std::to_string(T) +
                                 "), but line " + std::to_string(b + 1) + " has " +
                                 std::to_string(lines[b].size()));
    if (T > T_max)
        return Status::error("the text has " + std::to_string(T) +
                             " tokens per line, more than the model's T_max " + std::to_string(T_max));
    Batch batch;
    batch.resize(static_cast<int>(lines.size()), T);
    for (int b = 0; b < batch.B; ++b)
        for (int t = 0; t < T; ++t)
        {
            const size_t i = static_cast<size_t>(b) * static_cast<size_t>(T) + static_cast<size_t>(t);
            const std::vector<int>& line = lines[static_cast<size_t>(b)];
            batch.tokens[i] = line[static_cast<size_t>(t)];
            batch.targets[i] = t + 1 < T ? line[static_cast<size_t>(t + 1)] : 0;
            batch.loss_mask[i] = t + 1 < T;
            batch.acc_mask[i] = t + 1 < T;
        }
    *out = std::move(batch);
    return Status::ok();
}

Status plain_text_batch(std::string_view text, const TextVocabulary& vocabulary, int T_max, Batch* out)
{
    const std::vector<int> ids = vocabulary.encode(text);
    if (ids.empty())
        return Status::error("the text is empty: type a sentence for the model to read");
    if (static_cast<int>(ids.size()) > T_max)
        return Status::error("the text has " + std::to_string(ids.size()) + " " + vocabulary.unit() +
                             "s, more than the " + std::to_string(T_max) +
                             " the model reads at once: shorten it");
    const int T = static_cast<int>(ids.size());
    Batch b;
    b.resize(1, T);
    b.tokens = ids;
    for (int t = 0; t + 1 < T; ++t)
    {
        b.targets[static_cast<size_t>(t)] = ids[static_cast<size_t>(t) + 1];
        b.loss_mask[static_cast<size_t>(t)] = 1;
        b.acc_mask[static_cast<size_t>(t)] = 1;
    }
    *out = std::move(b);
    return Status::ok();
}

} // namespace attnlab::train
