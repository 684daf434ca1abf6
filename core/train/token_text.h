// Text in a model's vocabulary (tokens separated by spaces, one sequence per line) as a batch in which every
// position predicts the next token: what `attnlab export --model --text` and the Training panel's probe read.
#pragma once

#include "batch.h"
#include "text_corpus.h"

#include "core/status.h"

#include <string>
#include <string_view>
#include <vector>

namespace attnlab::train
{

// Limits of a text batch.
inline constexpr int kMaxTextLines = 4096;

// The vocabulary for a message: "0 1 2 ... |", cut after about 300 characters.
std::string vocabulary_text(const std::vector<std::string>& vocabulary);

// Parses text: one sequence per line (empty lines skipped), tokens separated by spaces, every line as long
// as the first and at most T_max tokens. Position t < T - 1 predicts token t + 1 and counts in the loss and
// the accuracy; the last position counts nowhere (target 0). On error (an unknown token, with the
// vocabulary listed; no tokens; lines of different lengths; too long) out is unchanged.
Status text_batch(std::string_view text, const std::vector<std::string>& vocabulary, int T_max, Batch* out);

// A text model's input: the characters of text as one sequence (a line feed is a character; a character the
// vocabulary lacks is the unknown token), each position predicting the next character; the last position
// counts nowhere. Errors: no characters, more than T_max of them. On error out is unchanged.
Status char_batch(std::string_view text, const CharVocabulary& vocabulary, int T_max, Batch* out);

} // namespace attnlab::train
