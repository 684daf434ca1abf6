// Where DejaVu Sans is on this machine: the font with the maths glyphs (√ ᵀ ₕ ⟨⟩ α … →) that the window and
// the CPU pictures draw with.
#pragma once

#include <cstddef>
#include <string>

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

} // namespace attnlab
