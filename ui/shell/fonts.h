// The window's fonts: DejaVu Sans (ui/picture/font_file.h) with the maths glyphs in ImGui's atlas, the
// fallback fonts for the extra characters the text uses (ui/model/glyphs.h), with a clear fallback.
#pragma once

#include <string>
#include <vector>

struct ImFont;

namespace attnlab
{

// Clears the font atlas of the current ImGui context and adds DejaVu Sans at size_px (or ImGui's default
// font when the file is missing: then message explains that maths symbols will show as '?'), with the
// extra characters (≤ U+FFFF) taken from the fallback fonts that have them; a character no font has is
// drawn as an empty box. Returns true when DejaVu was loaded. The caller rebuilds the renderer's font
// texture. caption_px > 0: a second font, the same at that size, for presenter mode's caption
// (caption_font()).
bool load_fonts(float size_px, std::string* message, const std::vector<char32_t>& extra = {},
                float caption_px = 0.0f);

// The characters of chars (sorted) that the text font of the built atlas has no glyph for, sorted: drawn as
// boxes.
std::vector<char32_t> characters_without_glyph(const std::vector<char32_t>& chars);

// The caption's font that load_fonts added (nullptr when it added none).
ImFont* caption_font();

} // namespace attnlab
