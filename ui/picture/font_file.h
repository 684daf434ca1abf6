// Where DejaVu Sans is on this machine: the font with the maths glyphs (√ ᵀ ₕ ⟨⟩ α … →) that the window and
// the CPU pictures draw with.
#pragma once

#include <string>

namespace attnlab
{

// The first DejaVuSans.ttf found in the usual places ("" if none). $ATTNLAB_FONT overrides.
std::string find_font_file();

} // namespace attnlab
