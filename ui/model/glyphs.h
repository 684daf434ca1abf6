// The characters the window's font atlas holds beyond its fixed ranges: the CJK and other characters the
// user's text uses, collected so the atlas can be rebuilt with them (ImGui rasterises only listed glyphs).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab
{

// At most this many extra characters go into the atlas (a pasted page of Chinese is about 1,000 distinct
// ones); later ones are drawn as the missing-glyph box.
inline constexpr std::size_t kMaxExtraGlyphs = 4096;

struct GlyphSet
{
    // Sorted, distinct code points ≤ U+FFFF outside kFontRanges (ui/picture/font_file.h), at most
    // kMaxExtraGlyphs. The window's ImGui is built with 16-bit characters, so characters above U+FFFF
    // (emoji) cannot be in its atlas: the window draws them as a box, and the Input panel names them.
    std::vector<char32_t> extra;
    // The characters above U+FFFF in the session's text, each once (characters_beyond_bmp): the Input panel
    // names them, since the window draws them as a box.
    std::vector<char32_t> beyond_bmp;
    // The characters of the session's text beyond ASCII, each once, in order of appearance: the Input panel
    // names those the atlas lacks (missing) and the right-to-left ones.
    std::vector<char32_t> in_text;
    // Sorted: the characters of extra that no installed font has, found after each atlas build (boxes in
    // the window).
    std::vector<char32_t> missing;

    // Adds the characters of text (UTF-8) that are not there yet; true when one was added, so the atlas
    // needs a rebuild. Invalid UTF-8 bytes are skipped.
    bool add_from(std::string_view text);
};

// The characters of text (UTF-8) above U+FFFF, each once, in order of appearance: the ones the window
// cannot draw.
std::vector<char32_t> characters_beyond_bmp(std::string_view text);

// The characters of text (UTF-8) beyond ASCII, each once, in order of appearance.
std::vector<char32_t> characters_beyond_ascii(std::string_view text);

// True for a letter of a right-to-left script (Hebrew, Arabic, Syriac, Thaana, N'Ko and their presentation
// forms): the window draws those left to right, one unjoined letter after another.
bool is_right_to_left(char32_t c);

// "U+1F600": how a code point is named when it cannot be drawn.
std::string code_point_name(char32_t c);

// Decodes the UTF-8 character at text[*i] and moves *i past it; an invalid byte gives U+FFFD and moves one
// byte.
char32_t next_character(std::string_view text, std::size_t* i);

} // namespace attnlab
