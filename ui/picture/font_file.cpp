// Where DejaVu Sans is on this machine.
#include "ui/picture/font_file.h"

#include <cstdlib>
#include <fstream>

namespace attnlab
{

namespace
{

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

} // namespace attnlab
