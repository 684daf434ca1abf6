// The extra characters of the window's font atlas, collected from the text the user typed.
#include "ui/model/glyphs.h"

#include "ui/picture/font_file.h"

#include <algorithm>
#include <cstdio>

namespace attnlab
{

char32_t next_character(std::string_view text, std::size_t* i)
{
    const auto c = static_cast<unsigned char>(text[(*i)++]);
    if (c < 0x80)
        return c;
    const int extra = c >= 0xF0 && c < 0xF8 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
    if (extra < 0)
        return 0xFFFD;
    char32_t cp = c & (0x3Fu >> extra);
    for (int k = 0; k < extra; ++k)
    {
        if (*i >= text.size() || (static_cast<unsigned char>(text[*i]) & 0xC0) != 0x80)
            return 0xFFFD;
        cp = (cp << 6) | (static_cast<unsigned char>(text[(*i)++]) & 0x3Fu);
    }
    return cp;
}

bool GlyphSet::add_from(std::string_view text)
{
    bool added = false;
    for (std::size_t i = 0; i < text.size();)
    {
        const char32_t c = next_character(text, &i);
        if (c > 0xFFFF || c == 0xFFFD || in_font_ranges(c) || extra.size() >= kMaxExtraGlyphs)
            continue;
        const auto at = std::lower_bound(extra.begin(), extra.end(), c);
        if (at != extra.end() && *at == c)
            continue;
        extra.insert(at, c);
        added = true;
    }
    return added;
}

namespace
{

// The characters of text above `above`, each once, in order of appearance.
std::vector<char32_t> characters_above(std::string_view text, char32_t above)
{
    std::vector<char32_t> out;
    for (std::size_t i = 0; i < text.size();)
    {
        const char32_t c = next_character(text, &i);
        if (c > above && std::find(out.begin(), out.end(), c) == out.end())
            out.push_back(c);
    }
    return out;
}

} // namespace

std::vector<char32_t> characters_beyond_bmp(std::string_view text)
{
    return characters_above(text, 0xFFFF);
}

std::vector<char32_t> characters_beyond_ascii(std::string_view text)
{
    return characters_above(text, 0x7F);
}

bool is_right_to_left(char32_t c)
{
    return (c >= 0x0590 && c <= 0x08FF) || // Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic
           (c >= 0xFB1D && c <= 0xFDFF) || // Hebrew and Arabic presentation forms A
           (c >= 0xFE70 && c <= 0xFEFF);   // Arabic presentation forms B
}

std::string code_point_name(char32_t c)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
    return buf;
}

} // namespace attnlab
