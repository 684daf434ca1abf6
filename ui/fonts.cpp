// Fonts: DejaVu Sans with the maths glyphs (√ ᵀ ₕ ⟨⟩ α … →), looked up at run time, with a clear fallback.
#include "ui/fonts.h"

#include <imgui.h>

#include <cstdlib>
#include <fstream>

namespace attnlab
{

namespace
{

const ImWchar kMathRanges[] = {
    0x0020, 0x00FF, // Basic Latin + Latin-1 (· × ÷)
    0x0370, 0x03FF, // Greek (α τ Σ)
    0x1D00, 0x1DBF, // phonetic extensions (ᵀ ᵢ)
    0x2010, 0x205E, // punctuation (… “ ” ‖)
    0x2070, 0x209F, // superscripts and subscripts (ₕ ₀–₉)
    0x2190, 0x21FF, // arrows (→)
    0x2200, 0x22FF, // mathematical operators (√ ∞ ⊙ Σ)
    0x27C0, 0x27EF, // brackets (⟨ ⟩)
    0x2C60, 0x2C7F, // Latin Extended-C (ⱼ)
    0,
};

bool readable(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    return f.good();
}

} // namespace

std::string find_font_file()
{
    if (const char* env = std::getenv("ATTNLAB_FONT"); env != nullptr && readable(env))
        return env;
    for (const char* path : {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                             "/usr/share/fonts/TTF/DejaVuSans.ttf", "/usr/share/fonts/dejavu/DejaVuSans.ttf",
                             "/usr/local/share/fonts/DejaVuSans.ttf", "/Library/Fonts/DejaVuSans.ttf"})
        if (readable(path))
            return path;
    return std::string();
}

const unsigned short* math_glyph_ranges()
{
    return kMathRanges;
}

bool load_fonts(float size_px, std::string* message)
{
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    const std::string path = find_font_file();
    if (!path.empty())
    {
        ImFontConfig config;
        config.OversampleH = 2;
        config.OversampleV = 1;
        if (io.Fonts->AddFontFromFileTTF(path.c_str(), size_px, &config, kMathRanges) != nullptr)
            return true;
    }
    ImFontConfig config;
    config.SizePixels = size_px;
    io.Fonts->AddFontDefault(&config);
    if (message != nullptr)
        *message =
            "DejaVuSans.ttf not found (install fonts-dejavu-core or set ATTNLAB_FONT): using the built-in "
            "font, so √, ᵀ, τ and other maths symbols show as '?'.";
    return false;
}

} // namespace attnlab
