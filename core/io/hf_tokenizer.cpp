// Hugging Face tokenizers: GPT-2's byte-level BPE (PCRE2 for the pre-tokenizer's \p{L} and \p{N}) and BERT's
// WordPiece (utf8proc for categories, lower case and NFD).
//
// Index:
//   [SECTION] UTF-8 helpers
//   [SECTION] Byte-level BPE
//   [SECTION] WordPiece
//   [SECTION] Parsing the files
//   [SECTION] Model folders
#include "hf_tokenizer.h"

#include "atomic_file.h"
#include "core/tokenizer.h"
#include "json_reader.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <utf8proc.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace attnlab
{

namespace
{

using json = nlohmann::json;
namespace fs = std::filesystem;

// [SECTION] UTF-8 helpers

// Bytes of the valid UTF-8 character at the start of text, or 0 when there is none.
std::size_t utf8_char_bytes(std::string_view text)
{
    if (text.empty())
        return 0;
    utf8proc_int32_t cp = 0;
    const utf8proc_ssize_t n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                                static_cast<utf8proc_ssize_t>(text.size()), &cp);
    return n > 0 ? static_cast<std::size_t>(n) : 0;
}

// The code points of valid UTF-8 text.
std::vector<std::int32_t> code_points(std::string_view text)
{
    std::vector<std::int32_t> cps;
    cps.reserve(text.size());
    std::size_t at = 0;
    while (at < text.size())
    {
        utf8proc_int32_t cp = 0;
        const utf8proc_ssize_t n =
            utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + at),
                             static_cast<utf8proc_ssize_t>(text.size() - at), &cp);
        if (n <= 0) // not reached for validated text; skip the byte rather than loop
        {
            ++at;
            continue;
        }
        cps.push_back(cp);
        at += static_cast<std::size_t>(n);
    }
    return cps;
}

void append_utf8(std::string& out, std::int32_t cp)
{
    utf8proc_uint8_t buf[4];
    const utf8proc_ssize_t n = utf8proc_encode_char(cp, buf);
    out.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(n));
}

// Bytes as text: valid characters kept, each other byte replaced by U+FFFD.
std::string lossy_utf8(std::string_view bytes)
{
    std::string out;
    out.reserve(bytes.size());
    for (std::size_t at = 0; at < bytes.size();)
    {
        const std::size_t n = utf8_char_bytes(bytes.substr(at));
        if (n == 0)
        {
            out += "\uFFFD";
            ++at;
            continue;
        }
        out.append(bytes.substr(at, n));
        at += n;
    }
    return out;
}

Status check_utf8(std::string_view text)
{
    const std::size_t bad = invalid_utf8_offset(text);
    if (bad == std::string_view::npos)
        return Status::ok();
    return Status::error("the text is not valid UTF-8 (byte " + std::to_string(bad) +
                         " starts no character); type or paste it as UTF-8 text");
}

// Splits text around the first occurrence of any of specials (longest first when two start at the same byte):
// calls plain(segment) for text between them and special(index) for each one found.
template <typename Plain, typename Special>
void split_specials(std::string_view text, const std::vector<std::string>& specials, Plain plain,
                    Special special)
{
    std::size_t at = 0;
    while (at < text.size())
    {
        std::size_t best = std::string_view::npos;
        std::size_t best_index = 0;
        for (std::size_t i = 0; i < specials.size(); ++i)
        {
            if (specials[i].empty())
                continue;
            const std::size_t found = text.find(specials[i], at);
            if (found < best || (found == best && found != std::string_view::npos &&
                                 specials[i].size() > specials[best_index].size()))
            {
                best = found;
                best_index = i;
            }
        }
        if (best == std::string_view::npos)
        {
            plain(text.substr(at));
            return;
        }
        if (best > at)
            plain(text.substr(at, best - at));
        special(best_index);
        at = best + specials[best_index].size();
    }
}

// [SECTION] Byte-level BPE

// GPT-2's pre-tokenizer: contractions, letters, digits, other symbols (each with one leading space), then
// runs of white space (all but the last space of a run before a word, which joins that word).
constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

struct Pcre2CodeDeleter
{
    void operator()(pcre2_code* code) const { pcre2_code_free(code); }
};
struct Pcre2MatchDeleter
{
    void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};

const std::array<std::string, 256>& byte_chars()
{
    static const std::array<std::string, 256> table = []
    {
        std::array<std::string, 256> t;
        int next = 256;
        for (int b = 0; b < 256; ++b)
        {
            const bool printable =
                (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            append_utf8(t[static_cast<std::size_t>(b)], printable ? b : next++);
        }
        return t;
    }();
    return table;
}

// The key of a merge (a, b) in the rank table: unambiguous whatever the tokens hold.
std::string merge_key(std::string_view a, std::string_view b)
{
    std::string key = std::to_string(a.size());
    key += ':';
    key.append(a);
    key.append(b);
    return key;
}

// How a GPT-2 piece is shown: its bytes as text, white space marked, stray bytes as <0xNN>.
// The code point of one whole UTF-8 character.
char32_t decode_one(std::string_view ch)
{
    const auto b = [&](std::size_t i) { return static_cast<char32_t>(static_cast<unsigned char>(ch[i])); };
    switch (ch.size())
    {
    case 1:
        return b(0);
    case 2:
        return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3:
        return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default:
        return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    }
}

// A character that draws as nothing: the C0 and C1 controls, and the Unicode spaces and zero-width marks
// other than the plain space (which gets its own mark).
bool invisible(std::string_view ch)
{
    const char32_t c = decode_one(ch);
    return c < 0x20 || (c >= 0x7F && c <= 0xA0) || c == 0xAD || c == 0x1680 || (c >= 0x2000 && c <= 0x200F) ||
           (c >= 0x2028 && c <= 0x202F) || (c >= 0x205F && c <= 0x206F) || c == 0x3000 || c == 0xFEFF;
}

std::string display_bytes(std::string_view bytes)
{
    std::string out;
    for (std::size_t at = 0; at < bytes.size();)
    {
        const std::size_t n = utf8_char_bytes(bytes.substr(at));
        if (n == 0)
        {
            static const char* hex = "0123456789ABCDEF";
            const auto b = static_cast<unsigned char>(bytes[at]);
            out += "<0x";
            out += hex[b >> 4];
            out += hex[b & 15];
            out += '>';
            ++at;
            continue;
        }
        const std::string_view ch = bytes.substr(at, n);
        if (ch == " ")
            out += kSpaceMark;
        else if (ch == "\n")
            out += "\u21B5";
        else if (ch == "\t")
            out += "\u21E5";
        else if (ch == "\r")
            out += "\u240D";
        else if (invisible(ch))
        {
            // Another control character or a space that draws nothing: its code point, so no chip is blank.
            char code[16];
            std::snprintf(code, sizeof code, "<U+%04X>", static_cast<unsigned>(decode_one(ch)));
            out += code;
        }
        else
            out.append(ch);
        at += n;
    }
    return out;
}

// What both kinds share: the vocabulary both ways, and the special tokens kept whole when typed.
class VocabTokenizer : public HfTokenizer
{
public:
    std::unordered_map<std::string, int> vocab;       // token → id
    std::unordered_map<int, std::string> id_to_token; // id → token
    std::vector<std::string> specials;                // typed in the text, kept whole
    int size = 0;                                     // largest id + 1

    int vocab_size() const override { return size; }
    std::string token(int i) const override
    {
        const auto it = id_to_token.find(i);
        return it == id_to_token.end() ? std::string() : it->second;
    }
    int id(std::string_view t) const override
    {
        const auto it = vocab.find(std::string(t));
        return it == vocab.end() ? -1 : it->second;
    }
};

class BpeTokenizer final : public VocabTokenizer
{
public:
    std::unordered_map<std::string, int> ranks; // merge_key(a, b) → rank (0 first)
    bool add_prefix_space = false;

    Status init()
    {
        byte_of_char_.fill(-1);
        for (int b = 0; b < 256; ++b)
        {
            const std::string& ch = byte_chars()[static_cast<std::size_t>(b)];
            utf8proc_int32_t cp = 0;
            utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(ch.data()),
                             static_cast<utf8proc_ssize_t>(ch.size()), &cp);
            byte_of_char_[static_cast<std::size_t>(cp)] = static_cast<short>(b);
        }
        int error = 0;
        PCRE2_SIZE offset = 0;
        regex_.reset(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kGpt2Pattern), PCRE2_ZERO_TERMINATED,
                                   PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr));
        if (!regex_)
            return Status::error("the GPT-2 pre-tokenizer pattern does not compile (PCRE2 error " +
                                 std::to_string(error) + "); PCRE2 was built without Unicode support");
        return Status::ok();
    }

    HfTokenizerKind kind() const override { return HfTokenizerKind::ByteLevelBpe; }

    Status encode(std::string_view text, Encoding* out) const override
    {
        ATTNLAB_TRY(check_utf8(text));
        std::string prefixed;
        if (add_prefix_space && !text.empty() && text.front() != ' ')
        {
            prefixed = " " + std::string(text);
            text = prefixed;
        }
        Encoding e;
        std::unique_ptr<pcre2_match_data, Pcre2MatchDeleter> match(
            pcre2_match_data_create_from_pattern(regex_.get(), nullptr));
        split_specials(
            text, specials, [&](std::string_view segment) { encode_segment(segment, match.get(), &e); },
            [&](std::size_t i) { push(vocab.at(specials[i]), &e); });
        *out = std::move(e);
        return Status::ok();
    }

    std::string decode(const std::vector<int>& ids) const override
    {
        std::string bytes;
        for (const int i : ids)
        {
            const auto it = id_to_token.find(i);
            if (it != id_to_token.end())
                bytes += token_bytes(it->second);
        }
        return lossy_utf8(bytes);
    }

private:
    // The bytes a token stands for; a character outside the byte table (an added token's text) as itself.
    std::string token_bytes(const std::string& t) const
    {
        std::string bytes;
        bytes.reserve(t.size());
        for (std::size_t at = 0; at < t.size();)
        {
            utf8proc_int32_t cp = -1;
            const utf8proc_ssize_t got =
                utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(t.data() + at),
                                 static_cast<utf8proc_ssize_t>(t.size() - at), &cp);
            const std::size_t n = got > 0 ? static_cast<std::size_t>(got) : 1; // a stray byte: as itself
            const int byte = got > 0 && cp >= 0 && static_cast<std::size_t>(cp) < byte_of_char_.size()
                                 ? byte_of_char_[static_cast<std::size_t>(cp)]
                                 : -1;
            if (byte >= 0)
                bytes += static_cast<char>(byte);
            else
                bytes.append(t, at, n);
            at += n;
        }
        return bytes;
    }

    void push(int i, Encoding* e) const
    {
        e->ids.push_back(i);
        const std::string& t = id_to_token.at(i);
        e->tokens.push_back(t);
        e->pieces.push_back(display_bytes(token_bytes(t)));
    }

public:
    std::string piece(int i) const override
    {
        const auto it = id_to_token.find(i);
        return it == id_to_token.end() ? std::string() : display_bytes(token_bytes(it->second));
    }

private:
    void encode_segment(std::string_view segment, pcre2_match_data* match, Encoding* e) const
    {
        const auto* subject = reinterpret_cast<PCRE2_SPTR>(segment.data());
        std::size_t at = 0;
        while (at < segment.size())
        {
            const int rc =
                pcre2_match(regex_.get(), subject, segment.size(), at, PCRE2_NO_UTF_CHECK, match, nullptr);
            std::size_t begin = segment.size();
            std::size_t end = segment.size();
            if (rc > 0)
            {
                const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(match);
                begin = ov[0];
                end = ov[1];
            }
            if (begin > at) // text no alternative matched (not expected: \s+ and the symbol class cover all)
                encode_word(segment.substr(at, begin - at), e);
            if (end <= begin) // an empty match or none: the rest was taken above
            {
                if (rc > 0 && begin < segment.size())
                {
                    const std::size_t n = std::max<std::size_t>(1, utf8_char_bytes(segment.substr(begin)));
                    encode_word(segment.substr(begin, n), e);
                    at = begin + n;
                    continue;
                }
                break;
            }
            encode_word(segment.substr(begin, end - begin), e);
            at = end;
        }
    }

    void encode_word(std::string_view word, Encoding* e) const
    {
        constexpr std::size_t kMaxCachedWord = 256;
        constexpr std::size_t kMaxCacheEntries = 1 << 16;
        if (word.size() <= kMaxCachedWord)
        {
            std::lock_guard<std::mutex> lock(cache_mutex_);
            if (const auto it = cache_.find(std::string(word)); it != cache_.end())
            {
                for (const int i : it->second)
                    push(i, e);
                return;
            }
        }
        const std::vector<int> ids = bpe(word);
        for (const int i : ids)
            push(i, e);
        if (word.size() <= kMaxCachedWord)
        {
            std::lock_guard<std::mutex> lock(cache_mutex_);
            if (cache_.size() >= kMaxCacheEntries)
                cache_.clear();
            cache_.emplace(std::string(word), ids);
        }
    }

    // Merges the word's byte characters, lowest rank first (leftmost first among equal ranks, which is
    // GPT-2's "every occurrence of the best pair, left to right"), in O(n log n).
    std::vector<int> bpe(std::string_view word) const
    {
        struct Symbol
        {
            std::string text;
            int prev, next;
        };
        std::vector<Symbol> sym;
        sym.reserve(word.size());
        for (std::size_t i = 0; i < word.size(); ++i)
            sym.push_back({byte_chars()[static_cast<unsigned char>(word[i])], static_cast<int>(i) - 1,
                           i + 1 < word.size() ? static_cast<int>(i) + 1 : -1});
        struct Candidate
        {
            int rank, left, right;
            std::size_t left_size, right_size; // the symbols' sizes when queued: a changed symbol is stale
            bool operator>(const Candidate& o) const
            {
                return rank != o.rank ? rank > o.rank : left > o.left;
            }
        };
        std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
        const auto offer = [&](int left, int right)
        {
            if (left < 0 || right < 0)
                return;
            const auto it = ranks.find(merge_key(sym[static_cast<std::size_t>(left)].text,
                                                 sym[static_cast<std::size_t>(right)].text));
            if (it != ranks.end())
                queue.push({it->second, left, right, sym[static_cast<std::size_t>(left)].text.size(),
                            sym[static_cast<std::size_t>(right)].text.size()});
        };
        for (int i = 0; i + 1 < static_cast<int>(sym.size()); ++i)
            offer(i, i + 1);
        std::vector<bool> alive(sym.size(), true);
        while (!queue.empty())
        {
            const Candidate c = queue.top();
            queue.pop();
            Symbol& l = sym[static_cast<std::size_t>(c.left)];
            if (!alive[static_cast<std::size_t>(c.left)] || !alive[static_cast<std::size_t>(c.right)] ||
                l.next != c.right || l.text.size() != c.left_size ||
                sym[static_cast<std::size_t>(c.right)].text.size() != c.right_size)
                continue;
            Symbol& r = sym[static_cast<std::size_t>(c.right)];
            l.text += r.text;
            l.next = r.next;
            if (r.next >= 0)
                sym[static_cast<std::size_t>(r.next)].prev = c.left;
            alive[static_cast<std::size_t>(c.right)] = false;
            offer(l.prev, c.left);
            offer(c.left, l.next);
        }
        std::vector<int> ids;
        for (int i = sym.empty() ? -1 : 0; i >= 0; i = sym[static_cast<std::size_t>(i)].next)
        {
            const auto it = vocab.find(sym[static_cast<std::size_t>(i)].text);
            // Every byte and every merge result was checked to be in the vocabulary when it was read.
            if (it != vocab.end())
                ids.push_back(it->second);
        }
        return ids;
    }

    std::unique_ptr<pcre2_code, Pcre2CodeDeleter> regex_;
    // The byte each of byte_chars()'s characters stands for, by code point (-1: not one of them). They are
    // all below U+0144.
    std::array<short, 0x144> byte_of_char_{};
    mutable std::mutex cache_mutex_;
    mutable std::unordered_map<std::string, std::vector<int>> cache_; // word → ids
};

// [SECTION] WordPiece

bool is_cjk(std::int32_t cp)
{
    // The CJK Unified Ideographs blocks and their extensions and compatibility blocks, as BERT lists them
    // (Hangul, Hiragana and Katakana are written with spaces or are not split by BERT).
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
           (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
           (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

bool is_whitespace(std::int32_t cp)
{
    return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' ||
           utf8proc_category(cp) == UTF8PROC_CATEGORY_ZS;
}

bool is_control(std::int32_t cp)
{
    if (cp == '\t' || cp == '\n' || cp == '\r')
        return false;
    // Every "other" category, as BERT counts them: controls, format characters, surrogates, private use and
    // unassigned code points.
    const utf8proc_category_t c = utf8proc_category(cp);
    return c == UTF8PROC_CATEGORY_CN || c == UTF8PROC_CATEGORY_CC || c == UTF8PROC_CATEGORY_CF ||
           c == UTF8PROC_CATEGORY_CS || c == UTF8PROC_CATEGORY_CO;
}

bool is_punctuation(std::int32_t cp)
{
    // BERT counts every non-letter, non-digit ASCII character as punctuation ("$", "^", "`" are symbols in
    // Unicode), and the Unicode punctuation categories P*.
    if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) ||
        (cp >= 123 && cp <= 126))
        return true;
    const utf8proc_category_t c = utf8proc_category(cp);
    return c >= UTF8PROC_CATEGORY_PC && c <= UTF8PROC_CATEGORY_PO;
}

class WordPieceTokenizer final : public VocabTokenizer
{
public:
    WordPieceOptions options;
    int unk = 0, cls = 0, sep = 0;

    HfTokenizerKind kind() const override { return HfTokenizerKind::WordPiece; }
    std::string piece(int i) const override { return token(i); }

    Status encode(std::string_view text, Encoding* out) const override
    {
        ATTNLAB_TRY(check_utf8(text));
        Encoding e;
        push(cls, &e);
        split_specials(
            text, specials,
            [&](std::string_view segment)
            {
                for (const std::string& word : basic_tokenize(segment))
                    wordpiece(word, &e);
            },
            [&](std::size_t i) { push(vocab.at(specials[i]), &e); });
        push(sep, &e);
        *out = std::move(e);
        return Status::ok();
    }

    std::string decode(const std::vector<int>& ids) const override
    {
        std::string text;
        for (const int i : ids)
        {
            const auto it = id_to_token.find(i);
            if (it == id_to_token.end() || i == cls || i == sep || it->second == "[PAD]")
                continue;
            const std::string& t = it->second;
            if (t.rfind("##", 0) == 0 && !text.empty())
                text.append(t, 2, std::string::npos);
            else
            {
                if (!text.empty())
                    text += ' ';
                text += t;
            }
        }
        return text;
    }

private:
    void push(int i, Encoding* e) const
    {
        e->ids.push_back(i);
        e->tokens.push_back(id_to_token.at(i));
        e->pieces.push_back(e->tokens.back());
    }

    // BERT's basic tokenizer: clean, split CJK, split on white space, lower case and strip accents, split
    // off punctuation. Returns the words as UTF-8.
    std::vector<std::string> basic_tokenize(std::string_view text) const
    {
        std::vector<std::string> words;
        std::vector<std::int32_t> word;
        const auto flush = [&]
        {
            if (word.empty())
                return;
            std::vector<std::int32_t> cps;
            for (std::int32_t cp : word)
            {
                if (options.lower_case)
                    cp = utf8proc_tolower(cp);
                if (!options.strip_accents)
                {
                    cps.push_back(cp);
                    continue;
                }
                utf8proc_int32_t parts[32];
                int last_boundclass = 0;
                const utf8proc_ssize_t n =
                    utf8proc_decompose_char(cp, parts, 32, UTF8PROC_DECOMPOSE, &last_boundclass);
                if (n < 0 || n > 32)
                {
                    cps.push_back(cp);
                    continue;
                }
                for (utf8proc_ssize_t k = 0; k < n; ++k)
                    if (utf8proc_category(parts[k]) != UTF8PROC_CATEGORY_MN)
                        cps.push_back(parts[k]);
            }
            std::string current;
            for (const std::int32_t cp : cps)
            {
                if (is_punctuation(cp))
                {
                    if (!current.empty())
                        words.push_back(std::move(current));
                    current.clear();
                    std::string p;
                    append_utf8(p, cp);
                    words.push_back(std::move(p));
                }
                else
                    append_utf8(current, cp);
            }
            if (!current.empty())
                words.push_back(std::move(current));
            word.clear();
        };
        for (const std::int32_t cp : code_points(text))
        {
            if (cp == 0 || cp == 0xFFFD || is_control(cp))
                continue;
            if (is_whitespace(cp))
                flush();
            else if (options.split_cjk && is_cjk(cp))
            {
                flush();
                word.push_back(cp);
                flush();
            }
            else
                word.push_back(cp);
        }
        flush();
        return words;
    }

    // Greedy longest match first; a continuation piece is looked up with "##" before it. A word longer than
    // kMaxWordPieceChars, or with a part no piece matches, is [UNK] as a whole.
    void wordpiece(const std::string& word, Encoding* e) const
    {
        std::vector<std::size_t> bounds; // byte offset of each character, and the end
        for (std::size_t at = 0; at < word.size();)
        {
            bounds.push_back(at);
            at += std::max<std::size_t>(1, utf8_char_bytes(std::string_view(word).substr(at)));
        }
        const std::size_t chars = bounds.size();
        bounds.push_back(word.size());
        if (chars > static_cast<std::size_t>(kMaxWordPieceChars))
        {
            push(unk, e);
            return;
        }
        std::vector<int> ids;
        std::size_t start = 0;
        std::string candidate;
        while (start < chars)
        {
            int found = -1;
            std::size_t end = chars;
            for (; end > start; --end)
            {
                candidate = start > 0 ? "##" : "";
                candidate.append(word, bounds[start], bounds[end] - bounds[start]);
                if (const auto it = vocab.find(candidate); it != vocab.end())
                {
                    found = it->second;
                    break;
                }
            }
            if (found < 0)
            {
                push(unk, e);
                return;
            }
            ids.push_back(found);
            start = end;
        }
        for (const int i : ids)
            push(i, e);
    }
};

// [SECTION] Parsing the files

constexpr const char* kBertSpecials[] = {"[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]"};

// A "vocab" object (token → id) into the maps; source and field name it in messages.
Status read_vocab_object(const JsonReader& reader, const json& vocab, const std::string& field,
                         std::unordered_map<std::string, int>* token_to_id,
                         std::unordered_map<int, std::string>* id_to_token, int* size)
{
    if (!vocab.is_object())
        return field.empty()
                   ? reader.error("must be a JSON object of token → id, got " + describe_json(vocab))
                   : reader.expected(field, "an object of token → id", vocab);
    if (vocab.empty())
        return field.empty() ? reader.error("is an empty vocabulary")
                             : reader.error(field, "is an empty vocabulary");
    int largest = -1;
    token_to_id->reserve(token_to_id->size() + vocab.size());
    id_to_token->reserve(id_to_token->size() + vocab.size());
    for (const auto& [t, value] : vocab.items())
    {
        long long i = 0;
        // An id in range is taken at once; anything else gets integer_value's message, naming the member.
        if (value.is_number_unsigned() && value.get<std::uint64_t>() < std::uint64_t{kMaxTokenizerVocab})
            i = static_cast<long long>(value.get<std::uint64_t>());
        else
            ATTNLAB_TRY(reader.integer_value(value, json_field(field, t), {0, kMaxTokenizerVocab - 1}, &i));
        const int id = static_cast<int>(i);
        const auto [it, added] = id_to_token->try_emplace(id, t);
        if (!added)
            return reader.error("the tokens \"" + it->second + "\" and \"" + t + "\" both have id " +
                                std::to_string(id) + "; each token needs its own id");
        (*token_to_id)[t] = id;
        largest = std::max(largest, id);
    }
    *size = largest + 1;
    return Status::ok();
}

Status check_byte_level(const BpeTokenizer& t, const std::string& source)
{
    for (int b = 0; b < 256; ++b)
    {
        const std::string& ch = byte_chars()[static_cast<std::size_t>(b)];
        if (t.vocab.find(ch) == t.vocab.end())
        {
            static const char* hex = "0123456789ABCDEF";
            return Status::error(
                source + " lacks the token \"" + ch + "\" of byte 0x" + hex[b >> 4] + hex[b & 15] +
                "; a GPT-2 (byte-level BPE) vocabulary has a token for each of the 256 bytes");
        }
    }
    return Status::ok();
}

// A token of a merge as a message shows it: whole up to 40 bytes, else its first 40 (cut between UTF-8
// characters) and its length, so that a damaged file's megabyte-long line does not fill the message.
std::string shown_token(std::string_view token)
{
    const std::string_view shown = utf8_prefix(token, 40);
    return shown.size() == token.size()
               ? std::string(token)
               : std::string(shown) + "… (" + std::to_string(token.size()) + " bytes)";
}

// Adds merges to a BPE tokenizer. Its lookups go through one buffer, so a merge costs no allocation beyond
// its entry in the rank table (GPT-2 has 50k merges).
class MergeReader
{
public:
    // expected: about how many merges come (lines, entries). The table is reserved for at most one merge per
    // vocabulary token (each merge makes one), so a file of empty lines cannot make it reserve much more than
    // the vocabulary already holds.
    MergeReader(BpeTokenizer& t, std::size_t expected) : t_(t)
    {
        t_.ranks.reserve(std::min(expected, t_.vocab.size()));
    }

    // One merge (a, b) at rank; where() names it in messages ("merges.txt line 7"), made only for one.
    template <typename Where> Status add(std::string_view a, std::string_view b, int rank, const Where& where)
    {
        for (const std::string_view part : {a, b})
            if (!known(part))
                return Status::error(where() + ": the merge \"" + shown_token(a) + " " + shown_token(b) +
                                     "\" uses \"" + shown_token(part) +
                                     "\", which the vocabulary lacks; the merges and the vocabulary are of "
                                     "different tokenizers");
        key_.assign(a);
        key_.append(b);
        if (t_.vocab.find(key_) == t_.vocab.end())
            return Status::error(where() + ": the merge \"" + shown_token(a) + " " + shown_token(b) +
                                 "\" makes \"" + shown_token(key_) +
                                 "\", which the vocabulary lacks; the merges and the vocabulary are of "
                                 "different tokenizers");
        t_.ranks[merge_key(a, b)] = rank;
        return Status::ok();
    }

private:
    bool known(std::string_view token)
    {
        key_.assign(token);
        return t_.vocab.find(key_) != t_.vocab.end();
    }

    BpeTokenizer& t_;
    std::string key_; // the token looked up
};

// "<|endoftext|>" stays one token when the vocabulary has it, as Hugging Face's GPT2Tokenizer keeps it.
void add_gpt2_specials(BpeTokenizer& t)
{
    if (t.vocab.count("<|endoftext|>") != 0 &&
        std::find(t.specials.begin(), t.specials.end(), "<|endoftext|>") == t.specials.end())
        t.specials.emplace_back("<|endoftext|>");
}

Status finish_wordpiece(WordPieceTokenizer& t, const std::string& source)
{
    for (const char* needed : {"[UNK]", "[CLS]", "[SEP]"})
        if (t.vocab.find(needed) == t.vocab.end())
            return Status::error(source + " has no " + needed +
                                 " token; a BERT (WordPiece) vocabulary has [UNK], [CLS] and [SEP]");
    t.unk = t.vocab.at("[UNK]");
    t.cls = t.vocab.at("[CLS]");
    t.sep = t.vocab.at("[SEP]");
    for (const char* special : kBertSpecials)
        if (t.vocab.count(special) != 0 &&
            std::find(t.specials.begin(), t.specials.end(), special) == t.specials.end())
            t.specials.emplace_back(special);
    return Status::ok();
}

// Reads a file of the folder into text; what names it ("vocab.json").
Status read_tokenizer_file(const fs::path& path, std::string* text)
{
    return read_file(path.string(), text, kMaxTokenizerFileBytes, "tokenizer file");
}

} // namespace

const std::string& gpt2_byte_char(unsigned char byte)
{
    return byte_chars()[byte];
}

Status parse_bpe_files(std::string_view vocab_json, std::string_view merges_txt,
                       const std::string& vocab_source, const std::string& merges_source,
                       std::unique_ptr<HfTokenizer>* out)
{
    auto t = std::make_unique<BpeTokenizer>();
    const JsonReader reader(vocab_source);
    json root;
    ATTNLAB_TRY(reader.parse(vocab_json, &root));
    ATTNLAB_TRY(read_vocab_object(reader, root, "", &t->vocab, &t->id_to_token, &t->size));
    ATTNLAB_TRY(check_byte_level(*t, vocab_source));

    int rank = 0;
    std::size_t line_number = 0;
    MergeReader merges(*t,
                       static_cast<std::size_t>(std::count(merges_txt.begin(), merges_txt.end(), '\n')) + 1);
    for (std::size_t at = 0; at <= merges_txt.size();)
    {
        std::size_t end = merges_txt.find('\n', at);
        if (end == std::string_view::npos)
            end = merges_txt.size();
        std::string_view line = merges_txt.substr(at, end - at);
        at = end + 1;
        ++line_number;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (line.empty() || (line_number == 1 && line.rfind("#version", 0) == 0))
            continue;
        const auto where = [&] { return merges_source + " line " + std::to_string(line_number); };
        if (invalid_utf8_offset(line) != std::string_view::npos)
            return Status::error(where() + " is not UTF-8 text" +
                                 (looks_utf16(merges_txt)
                                      ? utf16_hint(merges_txt)
                                      : std::string("; merges.txt is a text file of merges "
                                                    "\"a b\"")));
        const std::size_t space = line.find(' ');
        if (space == std::string_view::npos || space == 0 || space + 1 == line.size() ||
            line.find(' ', space + 1) != std::string_view::npos)
            return Status::error(where() + ": \"" + shown_token(line) +
                                 "\" is not a merge; each line holds two tokens separated by one space");
        ATTNLAB_TRY(merges.add(line.substr(0, space), line.substr(space + 1), rank++, where));
    }
    // Tokens of more than one byte come only from merges: a vocabulary with them and no merges would split
    // every text into single bytes without a word of warning.
    if (rank == 0)
    {
        std::unordered_set<std::string_view> bytes;
        for (const std::string& ch : byte_chars())
            bytes.insert(ch);
        for (const auto& entry : t->vocab)
            if (bytes.count(entry.first) == 0 && entry.first != "<|endoftext|>")
                return Status::error(
                    merges_source + " holds no merges, but " + vocab_source + " has tokens of " +
                    "several bytes (\"" + shown_token(entry.first) + "\"), which only merges " +
                    "make; use the merges.txt that came with this vocab.json (GPT-2's lists " +
                    "50,000 merges \"a b\", one per line)");
    }
    add_gpt2_specials(*t);
    ATTNLAB_TRY(t->init());
    *out = std::move(t);
    return Status::ok();
}

Status parse_tokenizer_json(std::string_view text, const std::string& source,
                            std::unique_ptr<HfTokenizer>* out)
{
    const JsonReader reader(source);
    json root;
    ATTNLAB_TRY(reader.parse(text, &root));
    const json* model = nullptr;
    ATTNLAB_TRY(reader.member(root, "", "model", Need::Required, &model));
    if (!model->is_object())
        return reader.expected("model", "an object", *model);
    std::string type;
    ATTNLAB_TRY(reader.string(*model, "model", "type", &type, Need::Optional));
    if (type.empty())
        type = model->contains("merges") ? "BPE" : "WordPiece";
    const json* vocab = nullptr;
    ATTNLAB_TRY(reader.member(*model, "model", "vocab", Need::Required, &vocab));

    // The special added tokens ("<|endoftext|>", "[MASK]"): kept whole when typed.
    std::vector<std::pair<std::string, int>> added;
    const json* added_tokens = nullptr;
    ATTNLAB_TRY(reader.member(root, "", "added_tokens", Need::Optional, &added_tokens));
    if (added_tokens != nullptr && !added_tokens->is_null())
    {
        if (!added_tokens->is_array())
            return reader.expected("added_tokens", "a list", *added_tokens);
        for (std::size_t i = 0; i < added_tokens->size(); ++i)
        {
            const json& a = (*added_tokens)[i];
            const std::string field = "added_tokens[" + std::to_string(i) + "]";
            std::string content;
            int id = 0;
            bool special = false;
            ATTNLAB_TRY(reader.string(a, field, "content", &content));
            ATTNLAB_TRY(reader.integer(a, field, "id", {0, kMaxTokenizerVocab - 1}, &id));
            ATTNLAB_TRY(reader.boolean(a, field, "special", &special, Need::Optional));
            if (special && !content.empty())
                added.emplace_back(content, id);
        }
    }
    const auto add_specials = [&](auto& t) -> Status
    {
        for (const auto& [content, id] : added)
        {
            const auto by_id = t.id_to_token.find(id);
            const auto by_token = t.vocab.find(content);
            if ((by_id != t.id_to_token.end() && by_id->second != content) ||
                (by_token != t.vocab.end() && by_token->second != id))
                return reader.error("the added token \"" + content + "\" has id " + std::to_string(id) +
                                    ", which the vocabulary gives another token; the file is damaged");
            t.vocab[content] = id;
            t.id_to_token[id] = content;
            t.size = std::max(t.size, id + 1);
            if (std::find(t.specials.begin(), t.specials.end(), content) == t.specials.end())
                t.specials.push_back(content);
        }
        return Status::ok();
    };

    if (type == "BPE")
    {
        auto t = std::make_unique<BpeTokenizer>();
        const json* pre = nullptr;
        ATTNLAB_TRY(reader.member(root, "", "pre_tokenizer", Need::Optional, &pre));
        if (pre != nullptr && !pre->is_null())
        {
            std::string pre_type;
            ATTNLAB_TRY(reader.string(*pre, "pre_tokenizer", "type", &pre_type));
            if (pre_type != "ByteLevel")
                return reader.error(
                    "pre_tokenizer.type",
                    "is \"" + pre_type +
                        "\"; Attention Lab reads byte-level BPE (GPT-2's tokenizer, \"ByteLevel\") "
                        "and WordPiece (BERT's) only");
            ATTNLAB_TRY(reader.boolean(*pre, "pre_tokenizer", "add_prefix_space", &t->add_prefix_space,
                                       Need::Optional));
        }
        ATTNLAB_TRY(read_vocab_object(reader, *vocab, "model.vocab", &t->vocab, &t->id_to_token, &t->size));
        ATTNLAB_TRY(check_byte_level(*t, source));
        const json* merges = nullptr;
        ATTNLAB_TRY(reader.member(*model, "model", "merges", Need::Required, &merges));
        if (!merges->is_array())
            return reader.expected("model.merges", "a list of merges", *merges);
        MergeReader merge_reader(*t, merges->size());
        for (std::size_t i = 0; i < merges->size(); ++i)
        {
            const json& m = (*merges)[i];
            const auto field = [i] { return "model.merges[" + std::to_string(i) + "]"; };
            std::string_view a, b;
            if (m.is_string())
            {
                const std::string_view s = m.get_ref<const std::string&>();
                const std::size_t space = s.find(' ');
                if (space == std::string::npos || space == 0 || space + 1 == s.size() ||
                    s.find(' ', space + 1) != std::string::npos)
                    return reader.expected(field(), "a merge \"a b\" (two tokens separated by one space)", m);
                a = s.substr(0, space);
                b = s.substr(space + 1);
            }
            else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string())
            {
                a = m[0].get_ref<const std::string&>();
                b = m[1].get_ref<const std::string&>();
            }
            else
                return reader.expected(field(), "a merge, \"a b\" or [\"a\", \"b\"]", m);
            ATTNLAB_TRY(merge_reader.add(a, b, static_cast<int>(i),
                                         [&] { return source + ": \"" + field() + "\""; }));
        }
        ATTNLAB_TRY(add_specials(*t));
        add_gpt2_specials(*t);
        ATTNLAB_TRY(t->init());
        *out = std::move(t);
        return Status::ok();
    }
    if (type == "WordPiece")
    {
        auto t = std::make_unique<WordPieceTokenizer>();
        ATTNLAB_TRY(read_vocab_object(reader, *vocab, "model.vocab", &t->vocab, &t->id_to_token, &t->size));
        const json* normalizer = nullptr;
        ATTNLAB_TRY(reader.member(root, "", "normalizer", Need::Optional, &normalizer));
        if (normalizer != nullptr && normalizer->is_object())
        {
            ATTNLAB_TRY(reader.boolean(*normalizer, "normalizer", "lowercase", &t->options.lower_case,
                                       Need::Optional));
            t->options.strip_accents = t->options.lower_case;
            if (const auto it = normalizer->find("strip_accents"); it != normalizer->end() && !it->is_null())
                ATTNLAB_TRY(
                    reader.boolean(*normalizer, "normalizer", "strip_accents", &t->options.strip_accents));
            ATTNLAB_TRY(reader.boolean(*normalizer, "normalizer", "handle_chinese_chars",
                                       &t->options.split_cjk, Need::Optional));
        }
        ATTNLAB_TRY(add_specials(*t));
        ATTNLAB_TRY(finish_wordpiece(*t, source));
        *out = std::move(t);
        return Status::ok();
    }
    return reader.error("model.type", "is \"" + type +
                                          "\"; Attention Lab reads \"BPE\" (GPT-2's byte-level BPE) and "
                                          "\"WordPiece\" (BERT's) tokenizers");
}

Status parse_wordpiece_options(std::string_view text, const std::string& source, WordPieceOptions* out)
{
    const JsonReader reader(source);
    json root;
    ATTNLAB_TRY(reader.parse(text, &root));
    if (!root.is_object())
        return reader.error("expected a JSON object, got " + describe_json(root));
    WordPieceOptions o = *out;
    ATTNLAB_TRY(reader.boolean(root, "", "do_lower_case", &o.lower_case, Need::Optional));
    o.strip_accents = o.lower_case;
    if (const auto it = root.find("strip_accents"); it != root.end() && !it->is_null())
        ATTNLAB_TRY(reader.boolean(root, "", "strip_accents", &o.strip_accents));
    ATTNLAB_TRY(reader.boolean(root, "", "tokenize_chinese_chars", &o.split_cjk, Need::Optional));
    *out = o;
    return Status::ok();
}

Status parse_wordpiece_vocab(std::string_view vocab_txt, const std::string& source,
                             const WordPieceOptions& options, std::unique_ptr<HfTokenizer>* out)
{
    auto t = std::make_unique<WordPieceTokenizer>();
    t->options = options;
    if (const std::size_t bad = invalid_utf8_offset(vocab_txt); bad != std::string_view::npos)
        return Status::error(source + " is not UTF-8 text (byte " + std::to_string(bad) + ")" +
                             (looks_utf16(vocab_txt) ? utf16_hint(vocab_txt)
                                                     : std::string("; vocab.txt holds one token a line")));
    int line = 0;
    for (std::size_t at = 0; at < vocab_txt.size(); ++line)
    {
        if (line >= kMaxTokenizerVocab)
            return Status::error(source + " has more than " + std::to_string(kMaxTokenizerVocab) +
                                 " lines; it is not a vocabulary");
        std::size_t end = vocab_txt.find('\n', at);
        if (end == std::string_view::npos)
            end = vocab_txt.size();
        std::string_view token = vocab_txt.substr(at, end - at);
        at = end + 1;
        if (!token.empty() && token.back() == '\r')
            token.remove_suffix(1);
        t->vocab[std::string(token)] = line; // a repeated token keeps its last line, as transformers does
        t->id_to_token[line] = std::string(token);
    }
    t->size = line;
    if (line == 0)
        return Status::error(source + " is empty; vocab.txt holds one token a line");
    ATTNLAB_TRY(finish_wordpiece(*t, source));
    *out = std::move(t);
    return Status::ok();
}

// [SECTION] Model folders

Status read_hf_tokenizer(const std::string& folder, HfArchitecture architecture,
                         std::unique_ptr<HfTokenizer>* out)
{
    const fs::path dir(folder);
    std::error_code ec;
    // A link counts as there even when it leads nowhere: reading it then says so ("no vocab.json" would send
    // the user looking for a file they can see).
    const auto has = [&](const char* name) { return path_present(dir / name); };
    std::string text;
    if (architecture == HfArchitecture::Gpt2)
    {
        if (has("vocab.json") && has("merges.txt"))
        {
            std::string merges;
            ATTNLAB_TRY(read_tokenizer_file(dir / "vocab.json", &text));
            ATTNLAB_TRY(read_tokenizer_file(dir / "merges.txt", &merges));
            return parse_bpe_files(text, merges, path_for_message((dir / "vocab.json").string()),
                                   path_for_message((dir / "merges.txt").string()), out);
        }
    }
    else if (has("vocab.txt"))
    {
        WordPieceOptions options;
        if (has("tokenizer_config.json"))
        {
            std::string config;
            ATTNLAB_TRY(read_tokenizer_file(dir / "tokenizer_config.json", &config));
            ATTNLAB_TRY(parse_wordpiece_options(
                config, path_for_message((dir / "tokenizer_config.json").string()), &options));
        }
        ATTNLAB_TRY(read_tokenizer_file(dir / "vocab.txt", &text));
        return parse_wordpiece_vocab(text, path_for_message((dir / "vocab.txt").string()), options, out);
    }
    if (has("tokenizer.json"))
    {
        ATTNLAB_TRY(read_tokenizer_file(dir / "tokenizer.json", &text));
        std::unique_ptr<HfTokenizer> t;
        const std::string source = path_for_message((dir / "tokenizer.json").string());
        ATTNLAB_TRY(parse_tokenizer_json(text, source, &t));
        const HfTokenizerKind expected =
            architecture == HfArchitecture::Gpt2 ? HfTokenizerKind::ByteLevelBpe : HfTokenizerKind::WordPiece;
        if (t->kind() != expected)
            return Status::error(
                source + " holds a " +
                (t->kind() == HfTokenizerKind::WordPiece ? "WordPiece" : "byte-level BPE") +
                " tokenizer, but config.json's model is " +
                (architecture == HfArchitecture::Gpt2 ? "GPT-2 (byte-level BPE)" : "BERT (WordPiece)") +
                "; the files are of different models");
        *out = std::move(t);
        return Status::ok();
    }
    if (architecture == HfArchitecture::Gpt2 && has("vocab.json") != has("merges.txt"))
        return Status::error(
            path_for_message(folder) + " has " + (has("vocab.json") ? "vocab.json" : "merges.txt") +
            " but no " + (has("vocab.json") ? "merges.txt" : "vocab.json") +
            " (nor tokenizer.json): GPT-2's tokenizer needs both; download the missing one from "
            "the model's page on the Hub");
    return Status::error(path_for_message(folder) + " has no tokenizer: a " +
                         (architecture == HfArchitecture::Gpt2
                              ? "GPT-2 folder holds vocab.json and merges.txt (or tokenizer.json)"
                              : "BERT folder holds vocab.txt (or tokenizer.json)") +
                         "; download them with the model's other files from the Hub");
}

} // namespace attnlab
