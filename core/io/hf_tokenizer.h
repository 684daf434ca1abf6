// Hugging Face tokenizers: GPT-2's byte-level BPE (vocab.json + merges.txt, or tokenizer.json) and BERT's
// WordPiece (vocab.txt + tokenizer_config.json), text to token ids and the pieces shown on the token chips.
#pragma once

#include "core/io/hf_config.h"
#include "core/status.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab
{

// Limits of the tokenizer files (core/io/FORMAT.md, "Tokenizers").
inline constexpr std::size_t kMaxTokenizerFileBytes = std::size_t{64} << 20; // each file read
inline constexpr int kMaxTokenizerVocab = kMaxHfVocab;                       // ids are below this
inline constexpr int kMaxWordPieceChars = 100; // a longer word becomes [UNK], as BERT does

// The mark shown for a space inside a GPT-2 piece (U+2423 OPEN BOX: " world" is shown "␣world"); a line
// feed is shown "↵", a tab "⇥", a carriage return "␍". A byte that is not part of a whole UTF-8 character
// (a piece holding half of an emoji) is shown "<0xF0>".
inline constexpr const char* kSpaceMark = "\u2423";

// One text encoded: the ids fed to the model, the vocabulary's own strings, and what a token chip shows.
struct Encoding
{
    std::vector<int> ids;            // [T]
    std::vector<std::string> tokens; // [T] as the vocabulary writes them: "Ġworld", "##able", "[CLS]"
    std::vector<std::string> pieces; // [T] for display: "␣world", "##able", "[CLS]"
};

enum class HfTokenizerKind
{
    ByteLevelBpe, // GPT-2
    WordPiece,    // BERT
};

// A tokenizer read from files. encode and decode may be called from several threads at once.
class HfTokenizer
{
public:
    virtual ~HfTokenizer() = default;

    virtual HfTokenizerKind kind() const = 0;
    // One more than the largest id of the vocabulary.
    virtual int vocab_size() const = 0;
    // The vocabulary's string of an id ("" for an id it does not have).
    virtual std::string token(int id) const = 0;
    // The id of a vocabulary string, or -1.
    virtual int id(std::string_view token) const = 0;
    // What a token chip shows for an id (Encoding::pieces): "␣world", "##able" ("" for an id it does not
    // have).
    virtual std::string piece(int id) const = 0;

    // Encodes text (any length; the model's context limit is the caller's). GPT-2: no token is added, and
    // "<|endoftext|>" (and tokenizer.json's special added tokens) typed in the text stay one token. BERT:
    // [CLS] first and [SEP] last, and the special tokens [CLS] [SEP] [MASK] [PAD] [UNK] typed in the text
    // stay one token each. Text that is not valid UTF-8 is refused (the message gives the byte offset), out
    // unchanged; nothing else fails.
    virtual Status encode(std::string_view text, Encoding* out) const = 0;

    // The text of ids: GPT-2's bytes joined (a cut UTF-8 character becomes U+FFFD); BERT's tokens joined by
    // spaces with the "##" continuations glued back and [CLS] / [SEP] / [PAD] left out. Ids the vocabulary
    // does not have are skipped.
    virtual std::string decode(const std::vector<int>& ids) const = 0;
};

// GPT-2's byte-to-character table: each byte is a printable character ("!" to "~", "¡" to "¬", "®" to "ÿ"
// stand for themselves; the other 68 bytes, space included, are U+0100 on: the space is "Ġ"), as UTF-8.
const std::string& gpt2_byte_char(unsigned char byte);

// [SECTION] Byte-level BPE (GPT-2)

// From the text of vocab.json (an object: token → id) and merges.txt (an optional "#version" line, then one
// merge "a b" a line, by rank). vocab_source and merges_source name the files in messages. Refused, with the
// file and the line or member: text that does not parse, an id that is not an integer in [0, 2^24), two
// tokens with one id, a merge line without exactly two parts, a merge whose parts or result are not in the
// vocabulary, and a vocabulary missing one of the 256 byte characters (not a byte-level BPE).
Status parse_bpe_files(std::string_view vocab_json, std::string_view merges_txt,
                       const std::string& vocab_source, const std::string& merges_source,
                       std::unique_ptr<HfTokenizer>* out);

// From tokenizer.json (the Hugging Face "tokenizers" format): "model" of "type" "BPE" (with "vocab" and
// "merges" as "a b" strings or ["a", "b"] pairs) or "WordPiece" (with "vocab"; lower-casing from the
// "normalizer"'s "lowercase", default true); "added_tokens" marked "special" stay one token. A BPE
// pre_tokenizer other than ByteLevel is refused (only GPT-2's byte-level BPE is read).
Status parse_tokenizer_json(std::string_view text, const std::string& source,
                            std::unique_ptr<HfTokenizer>* out);

// [SECTION] WordPiece (BERT)

// The options of BERT's basic tokenizer, from tokenizer_config.json.
struct WordPieceOptions
{
    bool lower_case = true;    // "do_lower_case" (default true: bert-base-uncased)
    bool strip_accents = true; // "strip_accents" (null or absent: the same as lower_case)
    bool split_cjk = true;     // "tokenize_chinese_chars" (default true)
};

// Parses tokenizer_config.json text into options (absent keys keep out's values; strip_accents follows
// do_lower_case unless given). Refuses text that is not a JSON object and a key of the wrong type.
Status parse_wordpiece_options(std::string_view text, const std::string& source, WordPieceOptions* out);

// From the text of vocab.txt (one token a line, the id its line number from 0). Refused: an empty
// vocabulary, more than 2^24 lines, and one without [UNK], [CLS] or [SEP].
Status parse_wordpiece_vocab(std::string_view vocab_txt, const std::string& source,
                             const WordPieceOptions& options, std::unique_ptr<HfTokenizer>* out);

// [SECTION] Model folders

// Reads the tokenizer of a model folder. GPT-2: vocab.json + merges.txt, otherwise tokenizer.json. BERT:
// vocab.txt (with tokenizer_config.json when there), otherwise tokenizer.json. A folder with neither gets a
// message naming the files a folder of that architecture holds. out is unchanged on error.
Status read_hf_tokenizer(const std::string& folder, HfArchitecture architecture,
                         std::unique_ptr<HfTokenizer>* out);

} // namespace attnlab
