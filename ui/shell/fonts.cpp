// Fonts: DejaVu Sans with the maths glyphs (√ ᵀ ₕ ⟨⟩ α … →), looked up at run time, with a clear fallback.
#include "ui/shell/fonts.h"

#include "ui/picture/font_file.h"

#include <imgui.h>

#include <cstring>
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
    // Read here with the checks of every file read (a FIFO or a device named by ATTNLAB_FONT is refused,
    // never opened by ImGui), then handed over from memory: the atlas owns and frees the copy.
    const FontFile font = load_font_file();
    if (message != nullptr)
        *message = font.note;
    if (!font.path.empty() && !font.bytes.empty())
    {
        ImFontConfig config;
        config.OversampleH = 2;
        config.OversampleV = 1;
        void* data = IM_ALLOC(font.bytes.size());
        std::memcpy(data, font.bytes.data(), font.bytes.size());
        if (io.Fonts->AddFontFromMemoryTTF(data, static_cast<int>(font.bytes.size()), size_px, &config,
                                           kMathRanges) != nullptr)
            return true;
    }
    ImFontConfig config;
    config.SizePixels = size_px;
    io.Fonts->AddFontDefault(&config);
    if (message != nullptr)
        *message = (font.note.empty() ? std::string() : font.note + ". ") +
                   "DejaVuSans.ttf not found (install fonts-dejavu-core or set ATTNLAB_FONT): using the "
                   "built-in font, so √, ᵀ, τ and other maths symbols show as '?'.";
    return false;
}

} // namespace attnlab
