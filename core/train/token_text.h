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

// A text model's input: text as one sequence of its vocabulary's tokens (characters, a line feed among them;
// or words and marks), a token the vocabulary lacks as the unknown one, each position predicting the next
// token; the last position counts nowhere. Errors: no tokens, more than T_max of them. On error out is
// unchanged.
Status plain_text_batch(std::string_view text, const TextVocabulary& vocabulary, int T_max, Batch* out);

} // namespace attnlab::train
