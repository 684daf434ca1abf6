// Where the fonts are on this machine: DejaVu Sans with the maths glyphs (√ ᵀ ₕ ⟨⟩ α … →) that the window and
// the CPU pictures draw with, and the fallbacks for characters it lacks (CJK, symbols, emoji).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace attnlab
{

// A font file larger than this is refused (DejaVuSans.ttf is about 0.7 MB).
inline constexpr std::size_t kMaxFontFileBytes = std::size_t{32} << 20;

// A font file read whole.
struct FontFile
{
    std::string path;  // "" : none found
    std::string bytes; // the file's content
    std::string note;  // why $ATTNLAB_FONT was not used ("" : it was, or it is not set)
};

// Reads $ATTNLAB_FONT, else the first DejaVuSans.ttf in the usual places, with the checks of every file read
// (read_file: a regular file of at most kMaxFontFileBytes; a FIFO or a device is refused without blocking).
// A refused $ATTNLAB_FONT is named in note with its reason, and the usual places are tried.
FontFile load_font_file();

// The path load_font_file() reads ("" if none).
std::string find_font_file();

// The character ranges (first, last) the window's atlas always holds from DejaVu Sans: Latin, Greek and the
// maths blocks. Other characters are added when the text uses them (ui/model/glyphs.h).
inline constexpr std::array<std::pair<char32_t, char32_t>, 10> kFontRanges{{
    {0x0020, 0x00FF}, // Basic Latin + Latin-1 (· × ÷)
    {0x0370, 0x03FF}, // Greek (α τ Σ)
    {0x1D00, 0x1DBF}, // phonetic extensions (ᵀ ᵢ)
    {0x2010, 0x205E}, // punctuation (… “ ” ‖)
    {0x2070, 0x209F}, // superscripts and subscripts (ₕ ₀–₉)
    {0x2190, 0x21FF}, // arrows (→)
    {0x2200, 0x22FF}, // mathematical operators (√ ∞ ⊙ Σ)
    {0x2423, 0x2423}, // open box (␣: the space a GPT-2 piece starts with)
    {0x27C0, 0x27EF}, // brackets (⟨ ⟩)
    {0x2C60, 0x2C7F}, // Latin Extended-C (ⱼ)
}};

// True when c is in one of kFontRanges.
bool in_font_ranges(char32_t c);

// The fonts tried, in order, for a character DejaVu Sans lacks, as far as they are installed: Droid Sans
// Fallback (Chinese, Japanese, Korean: Debian's fonts-droid-fallback), then Symbola (symbols and emoji:
// fonts-symbola). Each is read with load_font_file()'s checks; missing ones are left out.
std::vector<FontFile> load_fallback_font_files();

} // namespace attnlab
