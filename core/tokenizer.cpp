// Tokenizer: words and punctuation from free text, one sentence per line, padded into a batch.
#include "tokenizer.h"

#include <algorithm>
#include <cctype>

namespace attnlab
{

namespace
{

bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

// Letters, digits, apostrophes, and every byte of a multi-byte UTF-8 character (é, ü, 中) belong to words.
bool is_word_byte(unsigned char c)
{
    return c >= 0x80 || std::isalnum(c) || c == '\'' || c == '_';
}

} // namespace

std::vector<std::string> tokenize(std::string_view line)
{
    std::vector<std::string> tokens;
    size_t i = 0;
    while (i < line.size())
    {
        const auto c = static_cast<unsigned char>(line[i]);
        if (is_space(c))
        {
            ++i;
        }
        else if (is_word_byte(c))
        {
            size_t j = i;
            while (j < line.size() && is_word_byte(static_cast<unsigned char>(line[j])))
                ++j;
            tokens.emplace_back(line.substr(i, j - i));
            i = j;
        }
        else
        {
            tokens.emplace_back(1, static_cast<char>(c));
            ++i;
        }
    }
    return tokens;
}

TokenBatch tokenize_batch(std::string_view text)
{
    TokenBatch batch;
    size_t start = 0;
    while (start <= text.size())
    {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        std::vector<std::string> tokens = tokenize(text.substr(start, end - start));
        if (!tokens.empty())
        {
            batch.lengths.push_back(static_cast<int>(tokens.size()));
            batch.tokens.push_back(std::move(tokens));
        }
        start = end + 1;
    }
    for (int length : batch.lengths)
        batch.T = std::max(batch.T, length);
    for (auto& sentence : batch.tokens)
        sentence.resize(static_cast<size_t>(batch.T), kPadToken);
    return batch;
}

std::size_t invalid_utf8_offset(std::string_view text)
{
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    std::size_t i = 0;
    while (i < n)
    {
        const unsigned c = p[i];
        int extra = 0;
        unsigned lo = 0x80, hi = 0xBF; // allowed range of the first continuation byte
        if (c < 0x80)
            extra = 0;
        else if (c >= 0xC2 && c <= 0xDF)
            extra = 1;
        else if (c >= 0xE0 && c <= 0xEF)
        {
            extra = 2;
            lo = c == 0xE0 ? 0xA0 : 0x80; // no overlong forms
            hi = c == 0xED ? 0x9F : 0xBF; // no surrogates
        }
        else if (c >= 0xF0 && c <= 0xF4)
        {
            extra = 3;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF; // nothing above U+10FFFF
        }
        else
            return i;
        for (int k = 1; k <= extra; ++k)
        {
            if (i + static_cast<std::size_t>(k) >= n)
                return i;
            const unsigned b = p[i + static_cast<std::size_t>(k)];
            if (b < (k == 1 ? lo : 0x80u) || b > (k == 1 ? hi : 0xBFu))
                return i;
        }
        i += static_cast<std::size_t>(extra) + 1;
    }
    return std::string_view::npos;
}

} // namespace attnlab
