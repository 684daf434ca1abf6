// Where DejaVu Sans is on this machine, read with the checks every file read gets.
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

} // namespace attnlab
