// UTF-8 helpers the text task's readers share (characters: text_corpus.cpp; words: word_vocabulary.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace attnlab::train
{

// Decodes the UTF-8 sequence at text[i] of a text known to be valid UTF-8 and moves i past it.
char32_t next_code_point(std::string_view text, std::size_t& i);
// The same for any text: an invalid or cut sequence is U+FFFD, one byte long.
char32_t next_code_point_or_replacement(std::string_view text, std::size_t& i);
// Appends cp's UTF-8 bytes to s.
void append_utf8(std::string& s, char32_t cp);
// "616,343": a count with thousands separated, as the messages print them.
std::string with_commas(long long n);

} // namespace attnlab::train
