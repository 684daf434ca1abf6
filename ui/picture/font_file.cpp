// Where the fonts are on this machine (DejaVu Sans and its fallbacks), read with the checks every file read
// gets.
#include "ui/picture/font_file.h"

#include "core/io/atomic_file.h"

#include <cstdlib>
#include <filesystem>

namespace attnlab
{

FontFile load_font_file()
{
    FontFile font;
    if (const char* env = std::getenv("ATTNLAB_FONT"); env != nullptr && env[0] != '\0')
    {
        const Status s = read_file(env, &font.bytes, kMaxFontFileBytes, "font file (.ttf)");
        if (s)
        {
            font.path = env;
            return font;
        }
        font.note = "ATTNLAB_FONT is not used: " + s.message();
    }
    for (const char* path : {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                             "/usr/share/fonts/TTF/DejaVuSans.ttf", "/usr/share/fonts/dejavu/DejaVuSans.ttf",
                             "/usr/local/share/fonts/DejaVuSans.ttf", "/Library/Fonts/DejaVuSans.ttf"})
    {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) // the usual places that are missing are not worth a message
            continue;
        if (read_file(path, &font.bytes, kMaxFontFileBytes, "font file (.ttf)"))
        {
            font.path = path;
            return font;
        }
    }
    font.bytes.clear();
    return font;
}

std::string find_font_file()
{
    return load_font_file().path;
}

bool in_font_ranges(char32_t c)
{
    for (const auto& [first, last] : kFontRanges)
        if (c >= first && c <= last)
            return true;
    return false;
}

std::vector<FontFile> load_fallback_font_files()
{
    // One row per fallback: the places its file is found on Debian and other Linux systems, first found wins.
    const std::vector<std::vector<const char*>> fallbacks = {
        {"/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
         "/usr/share/fonts-droid-fallback/truetype/DroidSansFallback.ttf",
         "/usr/share/fonts/google-droid/DroidSansFallbackFull.ttf"},
        {"/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf",
         "/usr/share/fonts/truetype/ancient-scripts/Symbola.ttf", "/usr/share/fonts/TTF/Symbola.ttf"},
    };
    std::vector<FontFile> fonts;
    for (const auto& places : fallbacks)
        for (const char* path : places)
        {
            std::error_code ec;
            if (!std::filesystem::exists(path, ec))
                continue;
            FontFile font;
            if (read_file(path, &font.bytes, kMaxFontFileBytes, "font file (.ttf)"))
            {
                font.path = path;
                fonts.push_back(std::move(font));
                break;
            }
        }
    return fonts;
}

} // namespace attnlab
