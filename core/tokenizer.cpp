// Tokenizer: words and punctuation from free text, one sentence per line, padded into a batch.
#include "tokenizer.h"

#include <algorithm>
#include <cctype>

namespace attnlab
{

namespace
{

enum class CharClass
{
    Space,
    Word,
    Punctuation,
};

// One character of UTF-8 text: its code point and byte length. A byte that does not start a valid sequence
// counts as a one-byte character with a code point past Unicode's, which is part of a word, so a malformed
// line still tokenizes (the engine refuses such text before it gets here).
struct Char
{
    char32_t cp;
    std::size_t length;
};

constexpr char32_t kNotUnicode = 0x110000;

Char decode(std::string_view s, std::size_t i)
{
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned c = b(0);
    std::size_t length = c < 0x80                 ? 1
                         : c >= 0xC2 && c <= 0xDF ? 2
                         : c >= 0xE0 && c <= 0xEF ? 3
                         : c >= 0xF0 && c <= 0xF4 ? 4
                                                  : 0;
    if (length == 0 || i + length > s.size())
        return {kNotUnicode, 1};
    char32_t cp = length == 1 ? c : length == 2 ? c & 0x1F : length == 3 ? c & 0x0F : c & 0x07;
    for (std::size_t k = 1; k < length; ++k)
    {
        if ((b(k) & 0xC0) != 0x80)
            return {kNotUnicode, 1};
        cp = (cp << 6) | (b(k) & 0x3F);
    }
    return {cp, length};
}

// White space, punctuation (ASCII, Latin-1's ¡ ¿ « » ·, the General Punctuation block's dashes, curly
// quotes, bullets and ellipsis, CJK and full-width punctuation), or part of a word: letters and digits of
// any script, apostrophes (' and the typographic ’ of "didn’t"), '_', and everything else.
CharClass classify(char32_t cp)
{
    if (cp < 0x80)
    {
        if (cp == ' ' || cp == '\t' || cp == '\r' || cp == '\n' || cp == '\v' || cp == '\f')
            return CharClass::Space;
        return std::isalnum(static_cast<int>(cp)) || cp == '\'' || cp == '_' ? CharClass::Word
                                                                             : CharClass::Punctuation;
    }
    if (cp == 0x00A0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200B) || cp == 0x2028 || cp == 0x2029 ||
        cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF)
        return CharClass::Space;
    if (cp == 0x2019) // ’ as an apostrophe
        return CharClass::Word;
    if (cp == 0x00A1 || cp == 0x00A7 || cp == 0x00AB || cp == 0x00B6 || cp == 0x00B7 || cp == 0x00BB ||
        cp == 0x00BF || (cp >= 0x2010 && cp <= 0x2027) || (cp >= 0x2030 && cp <= 0x205E) ||
        (cp >= 0x3001 && cp <= 0x3003) || (cp >= 0x3008 && cp <= 0x3011) || (cp >= 0x3014 && cp <= 0x301F) ||
        (cp >= 0xFF01 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20) || (cp >= 0xFF3B && cp <= 0xFF40) ||
        (cp >= 0xFF5B && cp <= 0xFF65))
        return CharClass::Punctuation;
    return CharClass::Word;
}

} // namespace

std::vector<std::string> tokenize(std::string_view line)
{
    std::vector<std::string> tokens;
    std::size_t i = 0;
    while (i < line.size())
    {
        const Char c = decode(line, i);
        const CharClass kind = classify(c.cp);
        if (kind == CharClass::Space)
        {
            i += c.length;
        }
        else if (kind == CharClass::Punctuation)
        {
            tokens.emplace_back(line.substr(i, c.length));
            i += c.length;
        }
        else
        {
            std::size_t j = i + c.length;
            while (j < line.size())
            {
                const Char next = decode(line, j);
                if (classify(next.cp) != CharClass::Word)
                    break;
                j += next.length;
            }
            tokens.emplace_back(line.substr(i, j - i));
            i = j;
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

std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes)
{
    if (text.size() <= max_bytes)
        return text;
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) // inside a UTF-8 sequence
        --cut;
    return text.substr(0, cut);
}

bool looks_utf16(std::string_view text)
{
    if (text.size() >= 2 &&
        ((text[0] == '\xFF' && text[1] == '\xFE') || (text[0] == '\xFE' && text[1] == '\xFF')))
        return true;
    // ASCII in UTF-16: every other byte of the first few characters is NUL, little- or big-endian.
    const std::size_t n = std::min<std::size_t>(text.size() / 2 * 2, 16);
    if (n < 4)
        return false;
    bool little = true, big = true;
    for (std::size_t i = 0; i < n; i += 2)
    {
        little = little && text[i] != '\0' && text[i + 1] == '\0';
        big = big && text[i] == '\0' && text[i + 1] != '\0';
    }
    return little || big;
}

std::string utf16_hint(std::string_view text)
{
    return looks_utf16(text) ? "; it is UTF-16 text (a Windows editor's \"Unicode\"): save it as UTF-8 "
                               "(Save as, Encoding: UTF-8)"
                             : "";
}

std::size_t utf8_character_length(std::string_view text, std::size_t i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned c = byte(i);
    if (c < 0x80)
        return 1;
    std::size_t n = 0;
    unsigned lo = 0x80, hi = 0xBF; // allowed range of the first continuation byte
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
    {
        n = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80; // no overlong forms
        hi = c == 0xED ? 0x9F : 0xBF; // no surrogates
    }
    else if (c >= 0xF0 && c <= 0xF4)
    {
        n = 4;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF; // nothing above U+10FFFF
    }
    if (n == 0 || i + n > text.size() || byte(i + 1) < lo || byte(i + 1) > hi)
        return 0;
    for (std::size_t k = 2; k < n; ++k)
        if ((byte(i + k) & 0xC0) != 0x80)
            return 0;
    return n;
}

std::size_t invalid_utf8_offset(std::string_view text)
{
    for (std::size_t i = 0; i < text.size();)
    {
        const std::size_t n = utf8_character_length(text, i);
        if (n == 0)
            return i;
        i += n;
    }
    return std::string_view::npos;
}

} // namespace attnlab
