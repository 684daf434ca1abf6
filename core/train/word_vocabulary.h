// Word-level text for the Text task: English split into words and punctuation marks, and a vocabulary of the
// most frequent words with the rest folded into one unknown token (the count said).
//
// Typical use:
//     std::vector<std::string> words = split_words("Mr. Darcy bowed.");   // Mr . Darcy bowed .
//     WordVocabulary v = WordVocabulary::build(words, 2000);             // the 1,999 commonest + unknown
//     v.encode(words)                                                    // token ids (rare: kUnknownId)
//     v.summary()                                                        // "2,000 tokens: 1,999 words ..."
//
// The Text task trains on either level (TextCorpusOptions::level, `attnlab train --level word`):
// text_corpus.h holds the vocabulary of both.
#pragma once

#include "core/status.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attnlab::train
{

// How a text becomes tokens: one a character (the Text task's), or one a word or punctuation mark.
enum class TextLevel
{
    Char,
    Word,
};
// "char" or "word" (as `--level` and model files spell them).
const char* text_level_key(TextLevel level);
// Reads "char" or "word"; anything else is an error naming both. out is unchanged on error.
Status parse_text_level(std::string_view name, TextLevel* out);

// Words kept by default, the unknown token included.
inline constexpr int kDefaultWordVocabulary = 2000;

// Splits UTF-8 text into tokens. A word is a run of letters and digits (any character beyond ASCII counts as
// a letter, except the general punctuation block U+2000-U+206F: dashes, curly quotes), with an apostrophe
// (' or U+2019) or a hyphen joined when a letter or digit follows it and one precedes it ("don't",
// "well-bred"); every other character that is not whitespace is a token of its own ("--" is two); whitespace
// separates tokens and is dropped. Case is kept ("The" and "the" are two words). An invalid UTF-8 byte is a
// token of its own, U+FFFD.
std::vector<std::string> split_words(std::string_view utf8);

// A word-level vocabulary: token 0 is the unknown word (U+FFFD), then the kept words, most frequent first.
class WordVocabulary
{
public:
    // The max_words - 1 most frequent tokens of words (ties in byte order) seen at least min_count times,
    // after the unknown token; the others fold into it, counted in folded_words() and folded_count().
    // max_words is at least 2.
    static WordVocabulary build(const std::vector<std::string>& words, int max_words, int min_count = 1);
    // From token strings (a model file's): symbols[0] is the unknown token; every other symbol must be one
    // token as split_words reads it (a word or one mark), each different. Errors name the first bad symbol;
    // out is unchanged on error.
    static Status from_symbols(const std::vector<std::string>& symbols, WordVocabulary* out);

    // The id of a word: its own, or 0 (the unknown token) when it was folded or never seen.
    int encode(std::string_view word) const;
    std::vector<int> encode(const std::vector<std::string>& words) const;
    // The tokens of ids joined with a space, none before punctuation (an unknown id or one outside the
    // vocabulary as U+FFFD).
    std::string decode(const int* ids, int n) const;

    // Token strings by id: symbols()[0] is U+FFFD.
    const std::vector<std::string>& symbols() const { return symbols_; }
    int size() const { return static_cast<int>(symbols_.size()); }
    int folded_words() const { return folded_words_; }       // distinct tokens folded into the unknown one
    long long folded_count() const { return folded_count_; } // their occurrences in the text built from
    long long token_count() const { return token_count_; }   // every token of that text
    // "2,000 tokens: the 1,999 commonest of 7,342 words and marks; 5,343 rarer ones (10,285 occurrences,
    // 7.9 % of 124,512 tokens) folded into U+FFFD".
    std::string summary() const;

private:
    std::vector<std::string> symbols_;
    std::unordered_map<std::string, int> ids_;
    int folded_words_ = 0;
    long long folded_count_ = 0, token_count_ = 0;
};

} // namespace attnlab::train
