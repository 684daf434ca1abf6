// The window's fonts: DejaVu Sans (ui/picture/font_file.h) with the maths glyphs in ImGui's atlas, with a
// clear fallback.
#pragma once

#include <string>

namespace attnlab
{

// Clears the font atlas of the current ImGui context and adds DejaVu Sans at size_px (or ImGui's default
// font when the file is missing: then message explains that maths symbols will show as '?').
// Returns true when DejaVu was loaded. The caller rebuilds the renderer's font texture.
bool load_fonts(float size_px, std::string* message);

} // namespace attnlab
