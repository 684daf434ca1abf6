// Fonts: DejaVu Sans with the maths glyphs (√ ᵀ ₕ ⟨⟩ α … →), looked up at run time, with a clear fallback.
#include "ui/shell/fonts.h"

#include "ui/picture/font_file.h"

#include <imgui.h>

#include <string>

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

} // namespace

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
