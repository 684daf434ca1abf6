// Fonts: DejaVu Sans with the maths glyphs (√ ᵀ ₕ ⟨⟩ α … →), the fallbacks for the CJK and other characters
// the text uses, and a box for a character no font has; looked up at run time, with a clear fallback.
#include "ui/shell/fonts.h"

#include "ui/picture/font_file.h"

#include <imgui.h>

#include <cmath>
#include <cstring>
#include <string>

namespace attnlab
{

namespace
{

// A copy of a font file's bytes that the atlas owns and frees.
void* atlas_copy(const std::string& bytes)
{
    void* data = IM_ALLOC(bytes.size());
    std::memcpy(data, bytes.data(), bytes.size());
    return data;
}

// The ranges of the extra characters, built once: every font's fallbacks point into them.
void build_extra_ranges(const std::vector<char32_t>& extra, ImVector<ImWchar>* ranges)
{
    ranges->clear();
    if (extra.empty())
        return;
    ImFontGlyphRangesBuilder builder;
    for (const char32_t c : extra)
        builder.AddChar(static_cast<ImWchar>(c));
    builder.BuildRanges(ranges);
}

// DejaVu Sans itself (Cyrillic, Hebrew, Arabic, ...), then the fallback fonts, merged into the font added
// last for the extra characters (ImGui skips those a font lacks, and never replaces a glyph an earlier font
// gave).
void merge_fallbacks(ImFontAtlas* atlas, float size_px, const ImVector<ImWchar>& ranges, const FontFile& main)
{
    if (ranges.empty())
        return;
    std::vector<FontFile> files = load_fallback_font_files();
    files.insert(files.begin(), main);
    for (const FontFile& file : files)
    {
        ImFontConfig config;
        config.MergeMode = true;
        config.OversampleH = 1;
        config.OversampleV = 1;
        atlas->AddFontFromMemoryTTF(atlas_copy(file.bytes), static_cast<int>(file.bytes.size()), size_px,
                                    &config, ranges.Data);
    }
}

// U+FFFD, the character ImGui draws for any glyph it lacks (and for every character above U+FFFF, which its
// 16-bit build cannot hold), becomes an empty box: a missing character, never a question mark.
int add_missing_glyph_box(ImFontAtlas* atlas, ImFont* font, float size_px)
{
    const int w = std::max(4, static_cast<int>(std::lround(size_px * 0.5f)));
    const int h = std::max(6, static_cast<int>(std::lround(size_px * 0.7f)));
    const float top = std::round(size_px * 0.2f);
    return atlas->AddCustomRectFontGlyph(font, static_cast<ImWchar>(0xFFFD), w, h,
                                         static_cast<float>(w) + 2.0f, ImVec2(1.0f, top));
}

void paint_missing_glyph_box(ImFontAtlas* atlas, int rect_id)
{
    unsigned char* pixels = nullptr;
    int tex_w = 0, tex_h = 0;
    atlas->GetTexDataAsAlpha8(&pixels, &tex_w, &tex_h);
    const ImFontAtlasCustomRect* r = atlas->GetCustomRectByIndex(rect_id);
    for (int y = 0; y < r->Height; ++y)
        for (int x = 0; x < r->Width; ++x)
        {
            const bool edge = x == 0 || y == 0 || x == r->Width - 1 || y == r->Height - 1;
            pixels[(r->Y + y) * tex_w + (r->X + x)] = edge ? 255 : 0;
        }
}

} // namespace

bool load_fonts(float size_px, std::string* message, const std::vector<char32_t>& extra, float caption_px)
{
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    // Read here with the checks of every file read (a FIFO or a device named by ATTNLAB_FONT is refused,
    // never opened by ImGui), then handed over from memory: the atlas owns and frees the copy.
    const FontFile font = load_font_file();
    if (message != nullptr)
        *message = font.note;
    // The ranges must outlive the atlas build, which happens when the renderer asks for the texture.
    static ImVector<ImWchar> ranges;
    static ImVector<ImWchar> extra_ranges;
    ranges.clear();
    for (const auto& [first, last] : kFontRanges)
    {
        ranges.push_back(static_cast<ImWchar>(first));
        ranges.push_back(static_cast<ImWchar>(last));
    }
    ranges.push_back(0);
    build_extra_ranges(extra, &extra_ranges);
    if (!font.path.empty() && !font.bytes.empty())
    {
        // DejaVu at one size, its fallbacks merged and the box for missing characters; Fonts[0] is the text
        // font, Fonts[1] (when asked for) the caption's.
        std::vector<int> boxes;
        for (const float px : {size_px, caption_px})
        {
            if (!(px > 0.0f))
                continue;
            ImFontConfig config;
            config.OversampleH = 2;
            config.OversampleV = 1;
            ImFont* added = io.Fonts->AddFontFromMemoryTTF(
                atlas_copy(font.bytes), static_cast<int>(font.bytes.size()), px, &config, ranges.Data);
            if (added == nullptr)
                break;
            merge_fallbacks(io.Fonts, px, extra_ranges, font);
            boxes.push_back(add_missing_glyph_box(io.Fonts, added, px));
        }
        if (!boxes.empty())
        {
            io.Fonts->Build();
            for (const int box : boxes)
                paint_missing_glyph_box(io.Fonts, box);
            return true;
        }
    }
    io.Fonts->Clear();
    for (const float px : {size_px, caption_px})
        if (px > 0.0f)
        {
            ImFontConfig config;
            config.SizePixels = px;
            io.Fonts->AddFontDefault(&config);
        }
    if (message != nullptr)
        *message = (font.note.empty() ? std::string() : font.note + ". ") +
                   "DejaVuSans.ttf not found (install fonts-dejavu-core or set ATTNLAB_FONT): using the "
                   "built-in font, so √, ᵀ, τ and other maths symbols show as '?'.";
    return false;
}

std::vector<char32_t> characters_without_glyph(const std::vector<char32_t>& chars)
{
    std::vector<char32_t> out;
    const ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    if (atlas->Fonts.Size == 0 || !atlas->IsBuilt())
        return out;
    const ImFont* font = atlas->Fonts[0];
    for (const char32_t c : chars)
        if (c <= 0xFFFF && font->FindGlyphNoFallback(static_cast<ImWchar>(c)) == nullptr)
            out.push_back(c);
    return out;
}

ImFont* caption_font()
{
    const ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    return atlas->Fonts.Size > 1 ? atlas->Fonts[1] : nullptr;
}

} // namespace attnlab
