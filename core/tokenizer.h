// Tokenizer: words and punctuation marks become tokens; lines become a padded batch.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnlab
{

inline constexpr const char* kPadToken = "<pad>";

// Splits one line into tokens: runs of letters and digits of any script, apostrophes (' and ’) and '_' form
// a word; each punctuation mark is a token of its own, ASCII or not (“ ” ‘ — … ¿ ¡ « » 。 ，); white space
// separates, the no-break and other Unicode spaces included. "Don't stop!" -> Don't stop !
std::vector<std::string> tokenize(std::string_view line);

// A batch of sentences, each padded with <pad> to the longest.
struct TokenBatch
{
    std::vector<std::vector<std::string>> tokens; // [B][T], padded
    std::vector<int> lengths;                     // [B] real tokens in each sentence
    int T = 0;                                    // padded length

    int batch_size() const { return static_cast<int>(tokens.size()); }
    bool is_pad(int b, int t) const { return t >= lengths[b]; }
};

// The offset of the first byte that is not part of valid UTF-8 (overlong forms and surrogates included), or
// std::string_view::npos when the whole text is valid.
std::size_t invalid_utf8_offset(std::string_view text);
// Whether text looks like UTF-16 rather than UTF-8: it starts with a UTF-16 byte-order mark (FF FE or FE FF),
// or its first bytes alternate with NUL bytes as ASCII does in UTF-16 ("{\0"\0" or "\0{\0""). A file saved
// as "Unicode" by a Windows editor is UTF-16.
bool looks_utf16(std::string_view text);
// "; it is UTF-16 text: save it as UTF-8 (...)", the end of a message about a file that looks_utf16, or
// empty when it does not.
std::string utf16_hint(std::string_view text);
// The length in bytes (1 to 4) of the well-formed UTF-8 character at text[i] (no overlong form, no surrogate,
// nothing past U+10FFFF), or 0 when the bytes there do not make one. i < text.size().
std::size_t utf8_character_length(std::string_view text, std::size_t i);
// The first bytes of text, at most max_bytes of them, cut between UTF-8 characters (all of text when it
// fits): a name or token from a file shortened for a message.
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes);

// One sentence per non-blank line of text. Returns an empty batch when the text has no token.
TokenBatch tokenize_batch(std::string_view text);

} // namespace attnlab
