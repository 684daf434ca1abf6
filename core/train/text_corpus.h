// Text corpora for the Text task: a UTF-8 text (a built-in book or the user's file) checked, split into a
// training part and a held-out tenth, and encoded one character a token (or one word or punctuation mark a
// token: TextCorpusOptions::level) with a vocabulary built from the training part.
//
// Typical use:
//     std::shared_ptr<const TextCorpus> corpus;
//     if (Status s = load_text_corpus("austen", TextCorpusOptions{}, &corpus); !s) { print s.message(); }
//     Task task(corpus, 0.5f);                    // core/train/tasks.h: the Text task on it
//     corpus->vocabulary.encode("Mr. Darcy")      // token ids (an unknown character: kUnknownId)
//
// A corpus is immutable once built; tasks, trainers and threads share it through a shared_ptr.
#pragma once

#include "word_vocabulary.h"

#include "core/status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attnlab::train
{

// Limits of a text for training.
inline constexpr std::size_t kMaxTextBytes = 16u
                                             << 20; // 16 MiB: a file larger is refused with this limit named
inline constexpr int kMaxTextSymbols = 512;         // characters kept; the rarer ones fold into unknown
inline constexpr int kUnknownId = 0;                // the token id of every folded or unseen character
inline constexpr const char* kUnknownSymbol = "\xEF\xBF\xBD"; // U+FFFD, the unknown token's string
// The sentence a text model reads when none is given (`attnlab export --model` without --text): English with
// a repeated phrase, so a previous-token head and an induction head both have something to show (63
// characters).
inline constexpr const char* kDefaultTextProbe =
    "Mr. Darcy looked at Elizabeth, and Mr. Darcy looked away again.";

// A character-level vocabulary: token 0 is the unknown symbol (U+FFFD), then one token per character in code
// point order. Built from a corpus's training part, or from a model file's vocabulary strings.
class CharVocabulary
{
public:
    // From token strings (a model file's): symbols[0] is the unknown symbol; every other symbol must be one
    // UTF-8 character, each different. Errors name the first bad symbol.
    static Status from_symbols(const std::vector<std::string>& symbols, CharVocabulary* out);

    // The token of a code point: its id, or kUnknownId for a character the vocabulary does not hold.
    int encode(char32_t code_point) const;
    // Every character of utf8 as a token id; an invalid byte is one unknown token.
    std::vector<int> encode(std::string_view utf8) const;
    // The characters of ids as UTF-8 (an unknown token as U+FFFD; an id outside the vocabulary as well).
    std::string decode(const int* ids, int n) const;

    // Token strings by id: symbols()[0] is U+FFFD.
    const std::vector<std::string>& symbols() const { return symbols_; }
    int size() const { return static_cast<int>(symbols_.size()); }
    // 1 for the ids of whitespace (space, tab, line feed, ...): the word boundaries of the word-start score.
    std::vector<std::uint8_t> word_boundaries() const;

    // The vocabulary of the given code points (in any order; kept as given after the unknown symbol, sorted
    // by the caller). U+FFFD itself is never one: it is the unknown symbol.
    static CharVocabulary of_code_points(const std::vector<char32_t>& code_points);

private:
    std::vector<std::string> symbols_;
    std::vector<char32_t> code_points_; // [id]; 0 for the unknown symbol
    std::unordered_map<char32_t, int> ids_;
};

// A text's vocabulary at its level: one token a character (CharVocabulary) or one a word or punctuation mark
// (WordVocabulary). What the Text task, model files and the probe read; the default is an empty character
// vocabulary.
class TextVocabulary
{
public:
    TextVocabulary() = default;
    explicit TextVocabulary(CharVocabulary chars) : chars_(std::move(chars)) {}
    explicit TextVocabulary(WordVocabulary words) : level_(TextLevel::Word), words_(std::move(words)) {}
    // From a model file's token strings at its level (CharVocabulary::from_symbols,
    // WordVocabulary::from_symbols). out is unchanged on error.
    static Status from_symbols(TextLevel level, const std::vector<std::string>& symbols, TextVocabulary* out);

    TextLevel level() const { return level_; }
    // "character" or "word": what one token is, for messages ("sequences of 64 words").
    const char* unit() const { return level_ == TextLevel::Word ? "word" : "character"; }
    const std::vector<std::string>& symbols() const
    {
        return level_ == TextLevel::Word ? words_.symbols() : chars_.symbols();
    }
    int size() const { return static_cast<int>(symbols().size()); }
    // utf8 as token ids: every character, or every word and mark (split_words); unknown ones as kUnknownId.
    std::vector<int> encode(std::string_view utf8) const;
    // ids as text: characters joined as they are, words with a space between them and none before a mark.
    std::string decode(const int* ids, int n) const;
    // The word-start score's boundaries (CharVocabulary::word_boundaries); empty at the word level, where
    // every token starts a word and the score means nothing.
    std::vector<std::uint8_t> word_boundaries() const;
    // The vocabulary of its level (the other one is empty).
    const CharVocabulary& chars() const { return chars_; }
    const WordVocabulary& words() const { return words_; }

private:
    TextLevel level_ = TextLevel::Char;
    CharVocabulary chars_;
    WordVocabulary words_;
};

// How a corpus is built.
struct TextCorpusOptions
{
    int T = 64;        // the task's sequence length: the held-out tenth must hold one window of T + 1 tokens
    int min_count = 3; // a token seen fewer times in the training part folds into the unknown symbol
    TextLevel level = TextLevel::Char;
    int max_words = kDefaultWordVocabulary; // the word level's vocabulary size, the unknown token included
};

// Where a corpus came from: what a model file records so that a reopened model can name its text and say
// whether a user's file has changed since.
struct TextSource
{
    std::string builtin;     // "austen", "devil"; "" for a user's file
    std::string path;        // the file read (a built-in's path on this machine, not recorded in model files)
    std::uint64_t bytes = 0; // the file's size
    std::uint64_t hash = 0;  // FNV-1a 64 of the file's bytes

    // "austen" or the file's path.
    std::string name() const { return builtin.empty() ? path : builtin; }
};

// An encoded text, immutable once built.
struct TextCorpus
{
    TextSource source;
    TextVocabulary vocabulary;      // built from the training part, at the corpus's level
    std::vector<std::uint16_t> ids; // every token (character or word) of the text as a token id
    std::size_t train_end = 0;      // ids[0, train_end): training; ids[train_end, end): held-out (last tenth)
    long long tokens = 0;           // ids.size()
    int folded_symbols = 0;         // distinct tokens of the training part folded into unknown
    long long folded_count = 0;     // their occurrences in the training part
    long long unseen_held_out = 0;  // held-out tokens never seen in training (unknown tokens)
    int min_count = 3;              // TextCorpusOptions::min_count it was built with
    int max_words = kDefaultWordVocabulary; // TextCorpusOptions::max_words (the word level's)

    TextLevel level() const { return vocabulary.level(); }
    // "616,000 characters, 75 symbols, 3 rare characters (12 occurrences) folded into U+FFFD" (or "124,512
    // words and marks, 2,000 tokens, ..."): for the command line and the UI.
    std::string summary() const;
};

// The built-in corpora, one row each.
struct BuiltinCorpus
{
    const char* key;   // "austen"
    const char* file;  // "pride_and_prejudice.txt", in the corpora folder
    const char* title; // "Jane Austen, Pride and Prejudice (1813)"
};
const std::vector<BuiltinCorpus>& builtin_corpora();
// The built-in corpus of that key, or nullptr (a file's path).
const BuiltinCorpus* find_builtin_corpus(std::string_view key);
// "austen, devil": the built-in keys (help texts, messages).
std::string builtin_corpus_keys();
// The folder holding the built-in corpora: $ATTNLAB_CORPORA if set, else assets/corpora beside the sources.
std::string corpora_folder();

// FNV-1a 64 of bytes: the hash a model file records of its text.
std::uint64_t fnv1a64(std::string_view bytes);

// Builds a corpus from a text's bytes. A UTF-8 byte order mark is skipped and CR LF read as LF. Errors, each
// saying what to do: no bytes (or only a byte order mark), a NUL byte (binary), invalid UTF-8 (with its line
// and byte offset), more than kMaxTextBytes, too short for the held-out tenth to hold T + 1 tokens
// (characters or words), a word-level vocabulary of fewer than 2 or more than 65,535 tokens. On error out is
// unchanged.
Status build_text_corpus(std::string_view bytes, const TextSource& source, const TextCorpusOptions& options,
                         std::shared_ptr<const TextCorpus>* out);

// Reads and builds a corpus: `what` is a built-in key ("austen", "devil") or a file path. Errors name the
// file and add a missing or unreadable file, a folder, a file over kMaxTextBytes (checked before reading). A
// built-in corpus is read once per process and shared (the same options give the same pointer).
Status load_text_corpus(const std::string& what, const TextCorpusOptions& options,
                        std::shared_ptr<const TextCorpus>* out);

} // namespace attnlab::train
