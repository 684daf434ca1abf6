// Text corpora: reading and checking a UTF-8 text, its character vocabulary and its held-out split.
#include "text_corpus.h"

#include "core/assets.h"
#include "core/tokenizer.h"
#include "utf8_text.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <tuple>

namespace attnlab::train
{

namespace
{

constexpr char32_t kReplacement = 0xFFFD;

std::string megabytes(std::size_t bytes)
{
    char s[32];
    std::snprintf(s, sizeof s, "%.1f MiB", static_cast<double>(bytes) / (1u << 20)); // 2^20 bytes, not 10^6
    return s;
}

// "is 20.5 MiB, more than the 16.0 MiB" for a text over the limit; a size that rounds to the limit's own text
// is written in bytes, with the limit's ("16.0 MiB, more than the 16.0 MiB" read as no reason at all).
std::string over_the_limit(std::size_t bytes)
{
    std::string size = megabytes(bytes), limit = megabytes(kMaxTextBytes);
    if (size == limit)
    {
        size = std::to_string(bytes) + " bytes";
        limit += " (" + std::to_string(kMaxTextBytes) + " bytes)";
    }
    return "is " + size + ", more than the " + limit;
}

bool is_whitespace(char32_t cp)
{
    return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\v' || cp == '\f' || cp == 0xA0 ||
           cp == 0x3000 || (cp >= 0x2000 && cp <= 0x200A);
}

} // namespace

// [SECTION] CharVocabulary

CharVocabulary CharVocabulary::of_code_points(const std::vector<char32_t>& code_points)
{
    CharVocabulary v;
    v.symbols_.emplace_back(kUnknownSymbol);
    v.code_points_.push_back(0);
    for (const char32_t cp : code_points)
    {
        if (cp == kReplacement || v.ids_.count(cp) > 0)
            continue;
        v.ids_[cp] = static_cast<int>(v.symbols_.size());
        std::string s;
        append_utf8(s, cp);
        v.symbols_.push_back(std::move(s));
        v.code_points_.push_back(cp);
    }
    return v;
}

Status CharVocabulary::from_symbols(const std::vector<std::string>& symbols, CharVocabulary* out)
{
    if (symbols.size() < 2)
        return Status::error("a text model's vocabulary needs the unknown symbol and at least one character");
    if (symbols[0] != kUnknownSymbol)
        return Status::error("a text model's vocabulary must start with the unknown symbol U+FFFD, not \"" +
                             symbols[0] + "\"");
    std::vector<char32_t> cps;
    for (std::size_t id = 1; id < symbols.size(); ++id)
    {
        const std::string& s = symbols[id];
        std::size_t i = 0;
        if (s.empty() || invalid_utf8_offset(s) != std::string_view::npos)
            return Status::error("text vocabulary entry " + std::to_string(id) +
                                 " is not one UTF-8 character");
        const char32_t cp = next_code_point(s, i);
        if (i != s.size() || cp == kReplacement)
            return Status::error("text vocabulary entry " + std::to_string(id) + " (\"" + s +
                                 "\") is not one character other than U+FFFD");
        if (std::find(cps.begin(), cps.end(), cp) != cps.end())
            return Status::error("text vocabulary entry " + std::to_string(id) + " (\"" + s +
                                 "\") appears twice");
        cps.push_back(cp);
    }
    *out = of_code_points(cps);
    return Status::ok();
}

int CharVocabulary::encode(char32_t code_point) const
{
    const auto it = ids_.find(code_point);
    return it == ids_.end() ? kUnknownId : it->second;
}

std::vector<int> CharVocabulary::encode(std::string_view utf8) const
{
    std::vector<int> ids;
    for (std::size_t i = 0; i < utf8.size();)
    {
        const char32_t cp = next_code_point_or_replacement(utf8, i);
        ids.push_back(cp == kReplacement ? kUnknownId : encode(cp));
    }
    return ids;
}

std::string CharVocabulary::decode(const int* ids, int n) const
{
    std::string s;
    for (int t = 0; t < n; ++t)
        s += ids[t] >= 0 && ids[t] < size() ? symbols_[static_cast<std::size_t>(ids[t])]
                                            : std::string(kUnknownSymbol);
    return s;
}

std::vector<std::uint8_t> CharVocabulary::word_boundaries() const
{
    std::vector<std::uint8_t> out(symbols_.size(), 0);
    for (std::size_t id = 1; id < code_points_.size(); ++id)
        out[id] = is_whitespace(code_points_[id]);
    return out;
}

// [SECTION] TextVocabulary

Status TextVocabulary::from_symbols(TextLevel level, const std::vector<std::string>& symbols,
                                    TextVocabulary* out)
{
    if (level == TextLevel::Word)
    {
        WordVocabulary words;
        ATTNLAB_TRY(WordVocabulary::from_symbols(symbols, &words));
        *out = TextVocabulary(std::move(words));
        return Status::ok();
    }
    CharVocabulary chars;
    ATTNLAB_TRY(CharVocabulary::from_symbols(symbols, &chars));
    *out = TextVocabulary(std::move(chars));
    return Status::ok();
}

std::vector<int> TextVocabulary::encode(std::string_view utf8) const
{
    return level_ == TextLevel::Word ? words_.encode(split_words(utf8)) : chars_.encode(utf8);
}

std::string TextVocabulary::decode(const int* ids, int n) const
{
    return level_ == TextLevel::Word ? words_.decode(ids, n) : chars_.decode(ids, n);
}

std::vector<std::uint8_t> TextVocabulary::word_boundaries() const
{
    return level_ == TextLevel::Word ? std::vector<std::uint8_t>() : chars_.word_boundaries();
}

// [SECTION] TextCorpus

std::string TextCorpus::summary() const
{
    const bool words = level() == TextLevel::Word;
    const char* unit = words ? "word" : "character";
    std::string s = with_commas(tokens) + (words ? " words and marks (" : " characters (") +
                    with_commas(static_cast<long long>(train_end)) +
                    " for training, the last tenth held out), " + with_commas(vocabulary.size()) +
                    (words ? " tokens" : " symbols");
    if (folded_symbols > 0)
        s += "; " + with_commas(folded_symbols) + " rare " + unit + (folded_symbols == 1 ? "" : "s") + " (" +
             with_commas(folded_count) + " occurrence" + (folded_count == 1 ? "" : "s") +
             ") folded into the unknown symbol";
    if (unseen_held_out > 0)
        s += "; " + with_commas(unseen_held_out) + " held-out " + unit + (unseen_held_out == 1 ? "" : "s") +
             " unknown to training";
    return s;
}

const std::vector<BuiltinCorpus>& builtin_corpora()
{
    static const std::vector<BuiltinCorpus> rows = {
        {"austen", "pride_and_prejudice.txt", "Jane Austen, Pride and Prejudice (1813)"},
        {"devil", "devils_dictionary.txt", "Ambrose Bierce, The Devil's Dictionary (1911)"},
    };
    return rows;
}

const BuiltinCorpus* find_builtin_corpus(std::string_view key)
{
    for (const BuiltinCorpus& c : builtin_corpora())
        if (key == c.key)
            return &c;
    return nullptr;
}

std::string builtin_corpus_keys()
{
    std::string keys;
    for (const BuiltinCorpus& c : builtin_corpora())
        keys += (keys.empty() ? "" : ", ") + std::string(c.key);
    return keys;
}

std::string corpora_folder()
{
    if (const char* env = std::getenv("ATTNLAB_CORPORA"); env && *env)
        return env;
    return asset_path("corpora");
}

std::uint64_t fnv1a64(std::string_view bytes)
{
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (const char c : bytes)
    {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001B3ull;
    }
    return h;
}

namespace
{

// A text of n tokens must leave one window of T + 1 in its held-out last tenth.
Status check_length(const std::string& name, long long n, const char* units, int T)
{
    const long long need = 10LL * (T + 1);
    if (n >= need)
        return Status::ok();
    return Status::error(name + " has " + with_commas(n) + " " + units + "; training needs at least " +
                         with_commas(need) + " (the held-out last tenth must hold one sequence of T + 1 = " +
                         std::to_string(T + 1) + "): use a longer text");
}

// A corpus of n tokens with its options and split (the last tenth held out), before its vocabulary and ids.
std::shared_ptr<TextCorpus> empty_corpus(const TextSource& source, const TextCorpusOptions& options,
                                         long long n)
{
    auto corpus = std::make_shared<TextCorpus>();
    corpus->source = source;
    corpus->tokens = n;
    corpus->min_count = options.min_count;
    corpus->max_words = options.max_words;
    corpus->train_end = static_cast<std::size_t>(n - n / 10);
    return corpus;
}

// The word level of build_text_corpus, on text already checked (UTF-8, no NUL, not empty).
Status build_word_corpus(std::string_view text, const std::string& name, const TextSource& source,
                         const TextCorpusOptions& options, std::shared_ptr<const TextCorpus>* out)
{
    if (options.max_words < 2 || options.max_words > 65535)
        return Status::error("a word-level vocabulary holds 2 to 65,535 tokens, not " +
                             std::to_string(options.max_words));
    std::vector<std::string> training = split_words(text); // CR, LF and spaces are no tokens
    const long long n = static_cast<long long>(training.size());
    if (Status s = check_length(name, n, n == 1 ? "word or mark" : "words and marks", options.T); !s)
    {
        // Enough characters, too few words: a script written without spaces (Chinese, Japanese, Thai), or one
        // long run of symbols, is a text for the character level.
        const long long characters = std::count_if(
            text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
        if (characters >= 10LL * (options.T + 1))
            return Status::error(s.message() + ". It has " + with_commas(characters) +
                                 " characters but few spaces between words: train on characters instead "
                                 "(--level char, or Characters in the Training panel)");
        return s;
    }
    const std::shared_ptr<TextCorpus> corpus = empty_corpus(source, options, n);
    // The held-out tenth moved out, so that the training part is the vector itself (no copy of a 16 MB text).
    std::vector<std::string> held_out(
        std::make_move_iterator(training.begin() + static_cast<std::ptrdiff_t>(corpus->train_end)),
        std::make_move_iterator(training.end()));
    training.resize(corpus->train_end);
    const WordVocabulary vocabulary = WordVocabulary::build(training, options.max_words, options.min_count);
    corpus->folded_symbols = vocabulary.folded_words();
    corpus->folded_count = vocabulary.folded_count();

    corpus->ids.reserve(static_cast<std::size_t>(n));
    for (const std::string& w : training)
        corpus->ids.push_back(static_cast<std::uint16_t>(vocabulary.encode(w)));
    std::unordered_map<std::string_view, char> seen; // the training part's distinct tokens
    for (const std::string& w : training)
        seen.emplace(w, 0);
    for (const std::string& w : held_out)
    {
        const int id = vocabulary.encode(w);
        corpus->ids.push_back(static_cast<std::uint16_t>(id));
        if (id == kUnknownId && seen.count(w) == 0)
            ++corpus->unseen_held_out;
    }
    corpus->vocabulary = TextVocabulary(vocabulary);
    *out = std::move(corpus);
    return Status::ok();
}

} // namespace

Status build_text_corpus(std::string_view bytes, const TextSource& source, const TextCorpusOptions& options,
                         std::shared_ptr<const TextCorpus>* out)
{
    const std::string name = source.name().empty() ? std::string("the text") : source.name();
    if (bytes.size() > kMaxTextBytes)
        return Status::error(name + " " + over_the_limit(bytes.size()) +
                             " a text for training may have: use a part of it");
    std::string_view text = bytes;
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3);
    if (text.empty())
        return Status::error(name + " is empty: choose a file of plain text (UTF-8), a book or an essay");
    if (looks_utf16(text))
        return Status::error(name + " is UTF-16 text (a Windows editor's \"Unicode\"), not UTF-8: save it as "
                                    "UTF-8 (Save as, Encoding: UTF-8)");
    if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
        return Status::error(name + " looks binary (a NUL byte at offset " + std::to_string(nul) +
                             "), not text: choose a plain UTF-8 text file (.txt); save a document from its "
                             "editor as plain text first");
    if (const std::size_t bad = invalid_utf8_offset(text); bad != std::string_view::npos)
    {
        const long long line =
            1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n');
        return Status::error(name + " is not valid UTF-8 (line " + std::to_string(line) + ", byte offset " +
                             std::to_string(bad) +
                             "): save it as UTF-8 (Latin-1 and Windows-1252 files need converting, e.g. with "
                             "iconv -f latin1 -t utf-8)");
    }

    if (options.level == TextLevel::Word)
        return build_word_corpus(text, name, source, options, out);

    std::vector<char32_t> cps;
    cps.reserve(text.size());
    for (std::size_t i = 0; i < text.size();)
    {
        const char32_t cp = next_code_point(text, i);
        if (cp == '\r' && i < text.size() && text[i] == '\n')
            continue; // CR LF reads as LF
        cps.push_back(cp);
    }
    const long long n = static_cast<long long>(cps.size());
    ATTNLAB_TRY(check_length(name, n, "characters", options.T));
    const std::shared_ptr<TextCorpus> corpus = empty_corpus(source, options, n);

    std::map<char32_t, long long> counts;
    for (std::size_t i = 0; i < corpus->train_end; ++i)
        ++counts[cps[i]];
    counts.erase(kReplacement);
    std::vector<std::pair<long long, char32_t>> by_count;
    for (const auto& [cp, count] : counts)
        by_count.emplace_back(count, cp);
    // The most frequent first (ties by code point), at most kMaxTextSymbols - 1, each seen min_count times.
    std::sort(by_count.begin(), by_count.end(),
              [](const auto& a, const auto& b)
              { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    std::vector<char32_t> kept;
    for (const auto& [count, cp] : by_count)
        if (count >= options.min_count && static_cast<int>(kept.size()) + 1 < kMaxTextSymbols)
            kept.push_back(cp);
        else
        {
            ++corpus->folded_symbols;
            corpus->folded_count += count;
        }
    std::sort(kept.begin(), kept.end());
    const CharVocabulary chars = CharVocabulary::of_code_points(kept);
    corpus->vocabulary = TextVocabulary(chars);

    corpus->ids.resize(cps.size());
    for (std::size_t i = 0; i < cps.size(); ++i)
    {
        const int id = chars.encode(cps[i]);
        corpus->ids[i] = static_cast<std::uint16_t>(id);
        if (i >= corpus->train_end && id == kUnknownId && counts.count(cps[i]) == 0)
            ++corpus->unseen_held_out;
    }
    *out = std::move(corpus);
    return Status::ok();
}

Status load_text_corpus(const std::string& what, const TextCorpusOptions& options,
                        std::shared_ptr<const TextCorpus>* out)
{
    namespace fs = std::filesystem;
    TextSource source;
    std::string path = what;
    for (const BuiltinCorpus& c : builtin_corpora())
        if (what == c.key)
        {
            source.builtin = c.key;
            path = corpora_folder() + "/" + c.file;
        }
    source.path = path;

    // Built-in corpora are read once per process and shared.
    static std::mutex cache_mutex;
    static std::map<std::tuple<std::string, int, int, TextLevel, int>, std::shared_ptr<const TextCorpus>>
        cache;
    const auto cache_key =
        std::make_tuple(source.builtin, options.T, options.min_count, options.level, options.max_words);
    if (!source.builtin.empty())
    {
        const std::lock_guard<std::mutex> lock(cache_mutex);
        if (const auto it = cache.find(cache_key); it != cache.end())
        {
            *out = it->second;
            return Status::ok();
        }
    }

    const std::string hint = source.builtin.empty() ? " (built-in texts: " + builtin_corpus_keys() + ")"
                                                    : " (set ATTNLAB_CORPORA to the corpora folder, or "
                                                      "ATTNLAB_ASSETS to the data folder that holds it)";
    if (path.empty())
        return Status::error("no text given: name a built-in text (" + builtin_corpus_keys() + ") or a file");
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st))
    {
        // A link that leads nowhere, or loops, is there to see: say which, not "no such file".
        std::error_code link_ec;
        if (fs::is_symlink(fs::symlink_status(path, link_ec)))
            return Status::error(path + " is a link that cannot be followed (" +
                                 (ec ? ec.message() : std::string("it leads nowhere")) +
                                 "): give the text file itself");
        return Status::error(path + ": no such file" + hint);
    }
    if (fs::is_directory(st))
        return Status::error(path + " is a folder: choose a text file in it");
    if (!fs::is_regular_file(st))
        return Status::error(path + " is not a regular file (a device, a FIFO or a socket), which could "
                                    "never end: choose a text file");
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec)
        return Status::error(path + ": cannot read its size (" + ec.message() + ")");
    if (size > kMaxTextBytes)
        return Status::error(path + " " + over_the_limit(static_cast<std::size_t>(size)) +
                             " a text for training may have: use a part of it");
    std::ifstream in(path, std::ios::binary);
    std::string bytes(static_cast<std::size_t>(size), '\0');
    if (!in || !in.read(bytes.data(), static_cast<std::streamsize>(size)))
        return Status::error(path + ": cannot be read (check that it exists and that you may read it)");
    source.bytes = size;
    source.hash = fnv1a64(bytes);
    std::shared_ptr<const TextCorpus> corpus;
    ATTNLAB_TRY(build_text_corpus(bytes, source, options, &corpus));
    if (!source.builtin.empty())
    {
        const std::lock_guard<std::mutex> lock(cache_mutex);
        cache.emplace(cache_key, corpus);
    }
    *out = std::move(corpus);
    return Status::ok();
}

} // namespace attnlab::train
