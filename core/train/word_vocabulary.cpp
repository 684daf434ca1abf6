// Word-level text: splitting into words and punctuation marks, and the vocabulary of the commonest words.
#include "word_vocabulary.h"

#include "utf8_text.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace attnlab::train
{

namespace
{

constexpr const char* kUnknownWord = "\xEF\xBF\xBD"; // U+FFFD, as the character level's unknown symbol

// The code point at text[i] and its length in bytes; an invalid sequence is U+FFFD of one byte.
char32_t code_point_at(std::string_view text, std::size_t i, std::size_t* length)
{
    std::size_t next = i;
    const char32_t cp = next_code_point_or_replacement(text, next);
    *length = next - i;
    return cp;
}

bool is_space(char32_t cp)
{
    return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\v' || cp == '\f' || cp == 0xA0 ||
           cp == 0x3000 || (cp >= 0x2000 && cp <= 0x200A);
}

bool is_word_char(char32_t cp)
{
    if (cp < 0x80)
        return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
    return cp != 0xFFFD && !(cp >= 0x2000 && cp <= 0x206F);
}

bool is_joiner(char32_t cp)
{
    return cp == '\'' || cp == 0x2019 || cp == '-';
}

bool is_mark(const std::string& token)
{
    std::size_t n = 0;
    return !token.empty() && !is_word_char(code_point_at(token, 0, &n));
}

} // namespace

const char* text_level_key(TextLevel level)
{
    return level == TextLevel::Word ? "word" : "char";
}

Status parse_text_level(std::string_view name, TextLevel* out)
{
    if (name == "char")
        *out = TextLevel::Char;
    else if (name == "word")
        *out = TextLevel::Word;
    else
        return Status::error("unknown text level \"" + std::string(name) +
                             "\": use char (a token per character) or word (a token per word or "
                             "punctuation mark)");
    return Status::ok();
}

std::vector<std::string> split_words(std::string_view utf8)
{
    std::vector<std::string> tokens;
    std::size_t i = 0;
    while (i < utf8.size())
    {
        std::size_t n = 0;
        const char32_t cp = code_point_at(utf8, i, &n);
        if (is_space(cp))
        {
            i += n;
            continue;
        }
        if (!is_word_char(cp))
        {
            tokens.emplace_back(cp == 0xFFFD ? std::string(kUnknownWord) : std::string(utf8.substr(i, n)));
            i += n;
            continue;
        }
        // A word: letters and digits, with joiners between two of them.
        const std::size_t start = i;
        i += n;
        while (i < utf8.size())
        {
            std::size_t m = 0;
            const char32_t next = code_point_at(utf8, i, &m);
            if (is_word_char(next))
            {
                i += m;
                continue;
            }
            if (is_joiner(next) && i + m < utf8.size())
            {
                std::size_t k = 0;
                if (is_word_char(code_point_at(utf8, i + m, &k)))
                {
                    i += m + k;
                    continue;
                }
            }
            break;
        }
        tokens.emplace_back(utf8.substr(start, i - start));
    }
    return tokens;
}

WordVocabulary WordVocabulary::build(const std::vector<std::string>& words, int max_words, int min_count)
{
    WordVocabulary v;
    std::map<std::string, long long> counts;
    for (const std::string& w : words)
        ++counts[w];
    std::vector<std::pair<std::string, long long>> ranked(counts.begin(), counts.end()); // byte order
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    v.symbols_.emplace_back(kUnknownWord);
    const std::size_t keep = static_cast<std::size_t>(std::max(1, max_words - 1));
    for (std::size_t k = 0; k < ranked.size(); ++k)
    {
        if (ranked[k].first == kUnknownWord)
        {
            v.folded_count_ += ranked[k].second; // an invalid byte is the unknown token already
            continue;
        }
        if (v.symbols_.size() - 1 < keep && ranked[k].second >= min_count)
        {
            v.ids_[ranked[k].first] = static_cast<int>(v.symbols_.size());
            v.symbols_.push_back(ranked[k].first);
        }
        else
        {
            ++v.folded_words_;
            v.folded_count_ += ranked[k].second;
        }
    }
    v.token_count_ = static_cast<long long>(words.size());
    return v;
}

Status WordVocabulary::from_symbols(const std::vector<std::string>& symbols, WordVocabulary* out)
{
    if (symbols.size() < 2)
        return Status::error("a word-level model's vocabulary needs the unknown token and at least one word");
    if (symbols[0] != kUnknownWord)
        return Status::error(
            "a word-level model's vocabulary must start with the unknown token U+FFFD, not \"" + symbols[0] +
            "\"");
    WordVocabulary v;
    v.symbols_.push_back(symbols[0]);
    for (std::size_t id = 1; id < symbols.size(); ++id)
    {
        const std::string& s = symbols[id];
        const std::vector<std::string> split = split_words(s);
        if (split.size() != 1 || split[0] != s || s == kUnknownWord)
            return Status::error("word vocabulary entry " + std::to_string(id) + " (\"" + s +
                                 "\") is not one word or punctuation mark");
        if (!v.ids_.emplace(s, static_cast<int>(id)).second)
            return Status::error("word vocabulary entry " + std::to_string(id) + " (\"" + s +
                                 "\") appears twice");
        v.symbols_.push_back(s);
    }
    *out = std::move(v);
    return Status::ok();
}

int WordVocabulary::encode(std::string_view word) const
{
    const auto it = ids_.find(std::string(word));
    return it == ids_.end() ? 0 : it->second;
}

std::vector<int> WordVocabulary::encode(const std::vector<std::string>& words) const
{
    std::vector<int> ids;
    ids.reserve(words.size());
    for (const std::string& w : words)
        ids.push_back(encode(w));
    return ids;
}

std::string WordVocabulary::decode(const int* ids, int n) const
{
    std::string out;
    for (int k = 0; k < n; ++k)
    {
        const int id = ids[k];
        const std::string& s =
            id > 0 && id < size() ? symbols_[static_cast<std::size_t>(id)] : symbols_.front();
        if (k > 0 && !(id > 0 && id < size() && is_mark(s)))
            out += ' ';
        out += s;
    }
    return out;
}

std::string WordVocabulary::summary() const
{
    char share[32];
    std::snprintf(share, sizeof share, "%.1f %%",
                  token_count_ > 0 ? 100.0 * static_cast<double>(folded_count_) / token_count_ : 0.0);
    return with_commas(size()) + " tokens: the " + with_commas(size() - 1) + " commonest of " +
           with_commas(size() - 1 + folded_words_) + " words and marks; " + with_commas(folded_words_) +
           " rarer ones (" + with_commas(folded_count_) + " occurrences, " + share + " of " +
           with_commas(token_count_) + " tokens) folded into U+FFFD";
}

} // namespace attnlab::train
