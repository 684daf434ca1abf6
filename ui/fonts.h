// Fonts: DejaVu Sans with the maths glyphs (√ ᵀ ₕ ⟨⟩ α … →), looked up at run time, with a clear fallback.
#pragma once

#include <string>

namespace attnlab
{

// The first DejaVuSans.ttf found in the usual places ("" if none). $ATTNLAB_FONT overrides.
std::string find_font_file();

// Glyph ranges for the atlas: Latin-1, Greek, phonetic extensions (ᵀ), super/subscripts, arrows,
// mathematical operators, brackets (⟨⟩), Latin Extended-C (ⱼ). Static storage: it outlives the atlas.
const unsigned short* math_glyph_ranges();

// Clears the font atlas of the current ImGui context and adds DejaVu Sans at size_px (or ImGui's default
// font when the file is missing: then message explains that maths symbols will show as '?').
// Returns true when DejaVu was loaded. The caller rebuilds the renderer's font texture.
bool load_fonts(float size_px, std::string* message);

} // namespace attnlab
