// Pictures drawn on the CPU for exports and slides: rectangles, the masked-cell hatching, lines and text,
// each kept as a command for the vector back ends.
#include "ui/picture/raster.h"

#include "ui/picture/font_file.h"

#include "core/io/atomic_file.h"

#include <stb_truetype.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <vector>

namespace attnlab
{

void Image::reset(int w, int h, Color32 fill, bool with_pixels)
{
    width = std::max(0, w);
    height = std::max(0, h);
    pixels.clear();
    if (with_pixels)
        pixels.assign(static_cast<std::size_t>(width) * static_cast<std::size_t>(height), fill);
    commands.clear();
    DrawCommand page;
    page.kind = DrawKind::Rect;
    page.x1 = static_cast<float>(width);
    page.y1 = static_cast<float>(height);
    page.color = fill;
    commands.push_back(std::move(page));
}

Palette picture_palette(bool dark)
{
    Palette p;
    p.dark = dark;
    if (dark)
    {
        // Close to the app's dark theme: light text on a near-black page.
        p.paper = pack_rgba(22, 22, 26);
        p.ink = pack_rgba(236, 236, 240);
        p.grey_ink = pack_rgba(160, 160, 172);
        p.frame = pack_rgba(120, 120, 132);
    }
    else
    {
        p.paper = pack_rgba(255, 255, 255);
        p.ink = pack_rgba(20, 20, 24);
        p.grey_ink = pack_rgba(100, 100, 110);
        p.frame = pack_rgba(100, 100, 110);
    }
    return p;
}

// [SECTION] Rectangles and lines

void hatch_period(int size, int* period, int* stripe)
{
    // The window's texture has four stripes across a cell, one texel in four: the same here, at any size.
    *period = size < 4 ? 0 : std::max(4, size / 4);
    *stripe = std::max(1, *period / 4);
}

namespace
{

void raster_rect(Image& img, int x0, int y0, int x1, int y1, Color32 color)
{
    x0 = std::max(0, x0);
    y0 = std::max(0, y0);
    x1 = std::min(img.width, x1);
    y1 = std::min(img.height, y1);
    if (x0 >= x1 || y0 >= y1 || img.pixels.empty())
        return; // outside the image, or a picture of commands only
    for (int y = y0; y < y1; ++y)
        std::fill(img.pixels.begin() + static_cast<std::ptrdiff_t>(y) * img.width + x0,
                  img.pixels.begin() + static_cast<std::ptrdiff_t>(y) * img.width + x1, color);
}

void raster_hatch(Image& img, int x0, int y0, int x1, int y1)
{
    raster_rect(img, x0, y0, x1, y1, kNegInfColor);
    int period = 0, stripe = 0;
    hatch_period(std::min(x1 - x0, y1 - y0), &period, &stripe);
    if (period == 0 || img.pixels.empty())
        return;
    for (int y = std::max(0, y0); y < std::min(img.height, y1); ++y)
        for (int x = std::max(0, x0); x < std::min(img.width, x1); ++x)
            if (((x - x0) + (y - y0)) % period < stripe)
                img.pixels[static_cast<std::size_t>(y) * img.width + x] = kNegInfStripe;
}

// A round dot of radius r, blended by the colour's alpha.
void blend_dot(Image& img, float cx, float cy, float r, Color32 color)
{
    const float a = static_cast<float>((color >> 24) & 0xFF) / 255.0f;
    for (int y = static_cast<int>(std::floor(cy - r)); y <= static_cast<int>(std::ceil(cy + r)); ++y)
        for (int x = static_cast<int>(std::floor(cx - r)); x <= static_cast<int>(std::ceil(cx + r)); ++x)
        {
            if (x < 0 || y < 0 || x >= img.width || y >= img.height)
                continue;
            const float dx = static_cast<float>(x) - cx, dy = static_cast<float>(y) - cy;
            if (dx * dx + dy * dy > r * r)
                continue;
            Color32& p = img.pixels[static_cast<std::size_t>(y) * static_cast<std::size_t>(img.width) +
                                    static_cast<std::size_t>(x)];
            Color32 out = 0xFF000000u;
            for (int shift = 0; shift < 24; shift += 8)
            {
                const float under = static_cast<float>((p >> shift) & 0xFF);
                const float over = static_cast<float>((color >> shift) & 0xFF);
                out |= static_cast<Color32>(std::lround(under + (over - under) * a)) << shift;
            }
            p = out;
        }
}

void raster_line(Image& img, float x0, float y0, float x1, float y1, float width, Color32 color)
{
    const float n = std::max({std::fabs(x1 - x0), std::fabs(y1 - y0), 1.0f});
    // Dots half a pixel apart: the blend darkens overlaps a little, which reads as a solid line.
    for (float t = 0.0f; t <= n; t += 0.5f)
        blend_dot(img, x0 + (x1 - x0) * t / n, y0 + (y1 - y0) * t / n, width * 0.5f, color);
}

DrawCommand rect_command(DrawKind kind, int x0, int y0, int x1, int y1, Color32 color)
{
    DrawCommand c;
    c.kind = kind;
    c.x0 = static_cast<float>(x0);
    c.y0 = static_cast<float>(y0);
    c.x1 = static_cast<float>(x1);
    c.y1 = static_cast<float>(y1);
    c.color = color;
    return c;
}

} // namespace

void rasterize_command(Image& img, const DrawCommand& c)
{
    if (img.pixels.empty())
        return;
    const auto i = [](float v) { return static_cast<int>(std::lround(v)); };
    switch (c.kind)
    {
    case DrawKind::Rect:
        raster_rect(img, i(c.x0), i(c.y0), i(c.x1), i(c.y1), c.color);
        break;
    case DrawKind::Hatch:
        raster_hatch(img, i(c.x0), i(c.y0), i(c.x1), i(c.y1));
        break;
    case DrawKind::Polyline:
        if (c.points.size() == 1)
            blend_dot(img, c.points[0].first, c.points[0].second, c.size * 0.5f, c.color);
        for (std::size_t k = 1; k < c.points.size(); ++k)
            raster_line(img, c.points[k - 1].first, c.points[k - 1].second, c.points[k].first,
                        c.points[k].second, c.size, c.color);
        break;
    case DrawKind::Text:
        break; // drawn by TextRasterizer::draw
    }
}

void fill_rect(Image& img, int x0, int y0, int x1, int y1, Color32 color)
{
    if (x0 >= x1 || y0 >= y1)
        return;
    img.commands.push_back(rect_command(DrawKind::Rect, x0, y0, x1, y1, color));
    raster_rect(img, x0, y0, x1, y1, color);
}

void frame_rect(Image& img, int x0, int y0, int x1, int y1, Color32 color, int thickness)
{
    const int t = std::max(1, thickness);
    fill_rect(img, x0, y0, x1, y0 + t, color);
    fill_rect(img, x0, y1 - t, x1, y1, color);
    fill_rect(img, x0, y0, x0 + t, y1, color);
    fill_rect(img, x1 - t, y0, x1, y1, color);
}

void hatch_rect(Image& img, int x0, int y0, int x1, int y1)
{
    if (x0 >= x1 || y0 >= y1)
        return;
    img.commands.push_back(rect_command(DrawKind::Hatch, x0, y0, x1, y1, kNegInfColor));
    raster_hatch(img, x0, y0, x1, y1);
}

std::vector<std::array<std::pair<float, float>, 4>> hatch_stripes(float x0, float y0, float x1, float y1)
{
    int period = 0, stripe = 0;
    hatch_period(static_cast<int>(std::lround(std::min(x1 - x0, y1 - y0))), &period, &stripe);
    return hatch_stripes(x0, y0, x1, y1, period, stripe);
}

std::vector<std::array<std::pair<float, float>, 4>> hatch_stripes(float x0, float y0, float x1, float y1,
                                                                  int period, int stripe)
{
    std::vector<std::array<std::pair<float, float>, 4>> out;
    if (period <= 0)
        return out;
    // Pixel (x, y) is a stripe when (x - x0 + y - y0) mod period < stripe; its centre's x + y is one more, so
    // stripe k covers x + y - x0 - y0 in [k period + 0.5, k period + stripe + 0.5].
    const float ya = y0 - 1.0f, yb = y1 + 1.0f;
    const float span = (x1 - x0) + (y1 - y0);
    for (int k = -1; static_cast<float>(k * period) <= span + 1.0f; ++k)
    {
        const float c0 = x0 + y0 + static_cast<float>(k * period) + 0.5f;
        const float c1 = c0 + static_cast<float>(stripe);
        out.push_back({{{c0 - ya, ya}, {c1 - ya, ya}, {c1 - yb, yb}, {c0 - yb, yb}}});
    }
    return out;
}

void draw_polyline(Image& img, const std::vector<std::pair<float, float>>& points, float width, Color32 color)
{
    if (points.empty())
        return;
    DrawCommand c;
    c.kind = DrawKind::Polyline;
    c.points = points;
    c.size = width;
    c.color = color;
    rasterize_command(img, c);
    img.commands.push_back(std::move(c));
}

// [SECTION] Text

namespace
{

// Decodes one UTF-8 code point starting at s[i]; advances i.
int next_code_point(const std::string& s, std::size_t& i)
{
    const auto c = static_cast<unsigned char>(s[i++]);
    if (c < 0x80)
        return c;
    int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
    int cp = c & (0x3F >> extra);
    while (extra-- > 0 && i < s.size())
        cp = (cp << 6) | (static_cast<unsigned char>(s[i++]) & 0x3F);
    return cp;
}

void blend(Image& img, int x, int y, Color32 color, int alpha)
{
    if (x < 0 || y < 0 || x >= img.width || y >= img.height)
        return;
    Color32& p = img.pixels[static_cast<std::size_t>(y) * img.width + x];
    auto mix = [alpha](int dst, int src)
    { return static_cast<std::uint8_t>((src * alpha + dst * (255 - alpha)) / 255); };
    p = pack_rgba(mix(red_of(p), red_of(color)), mix(green_of(p), green_of(color)),
                  mix(blue_of(p), blue_of(color)));
}

} // namespace

// One font file: its bytes and stb_truetype's view of them (which points into the bytes, so a face never
// moves).
struct FontFace
{
    std::string data;
    stbtt_fontinfo info{};

    bool init()
    {
        const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
        const int offset = data.empty() ? -1 : stbtt_GetFontOffsetForIndex(bytes, 0);
        return offset >= 0 && stbtt_InitFont(&info, bytes, offset) != 0;
    }
};

// DejaVu Sans, and the fallback fonts for characters it lacks (CJK, symbols, emoji), read the first time one
// is needed.
struct TextRasterizer::Font
{
    FontFace main;
    mutable std::vector<std::unique_ptr<FontFace>> fallbacks;
    mutable bool fallbacks_read = false;

    // The face that draws cp: the main font when it has the character or no fallback has it.
    const FontFace& face_for(int cp) const
    {
        if (cp < 0x80 || stbtt_FindGlyphIndex(&main.info, cp) != 0)
            return main;
        if (!fallbacks_read)
        {
            fallbacks_read = true;
            for (FontFile& file : load_fallback_font_files())
            {
                auto face = std::make_unique<FontFace>();
                face->data = std::move(file.bytes);
                if (face->init())
                    fallbacks.push_back(std::move(face));
            }
        }
        for (const auto& face : fallbacks)
            if (stbtt_FindGlyphIndex(&face->info, cp) != 0)
                return *face;
        return main;
    }
};

TextRasterizer::TextRasterizer() = default;
TextRasterizer::~TextRasterizer() = default;

bool TextRasterizer::load_default(std::string* note)
{
    FontFile file = load_font_file();
    if (!file.path.empty() && load_bytes(std::move(file.bytes)))
        return true;
    if (note != nullptr)
        *note = file.path.empty()
                    ? "DejaVuSans.ttf not found: the picture has no text"
                    : file.path + " is not a font stb_truetype can read: the picture has no text";
    return false;
}

bool TextRasterizer::load(const std::string& path)
{
    ok_ = false;
    std::string bytes;
    if (!read_file(path, &bytes, kMaxFontFileBytes, "font file (.ttf)"))
        return false;
    return load_bytes(std::move(bytes));
}

bool TextRasterizer::load_bytes(std::string bytes)
{
    ok_ = false;
    font_ = std::make_unique<Font>();
    font_->main.data = std::move(bytes);
    ok_ = font_->main.init();
    return ok_;
}

float TextRasterizer::width(const std::string& text, float px) const
{
    if (!ok_)
        return 0.0f;
    float x = 0.0f;
    for (std::size_t i = 0; i < text.size();)
    {
        const int cp = next_code_point(text, i);
        const stbtt_fontinfo* face = &font_->face_for(cp).info;
        int advance = 0, lsb = 0;
        stbtt_GetCodepointHMetrics(face, cp, &advance, &lsb);
        x += static_cast<float>(advance) * stbtt_ScaleForPixelHeight(face, px);
    }
    return x;
}

void TextRasterizer::draw(Image& img, float x, float y, float px, Color32 color, const std::string& text,
                          bool rotated) const
{
    if (drawn_ != nullptr && !text.empty())
        drawn_->push_back(text);
    if (!ok_ || text.empty())
        return;
    const stbtt_fontinfo* main = &font_->main.info;
    int ascent = 0, descent = 0, gap = 0;
    stbtt_GetFontVMetrics(main, &ascent, &descent, &gap);
    const float baseline = static_cast<float>(ascent) * stbtt_ScaleForPixelHeight(main, px);
    DrawCommand command;
    command.kind = DrawKind::Text;
    command.x0 = rotated ? x + baseline : x;
    command.y0 = rotated ? y : y + baseline;
    command.color = color;
    // stb_truetype's "pixel height" is ascent − descent; a font size (em) is smaller by units per em over it.
    command.size = stbtt_ScaleForPixelHeight(main, px) / stbtt_ScaleForMappingEmToPixels(main, 1.0f);
    command.text_px = px;
    command.rotated = rotated;
    command.text = text;
    img.commands.push_back(std::move(command));
    if (img.pixels.empty())
        return; // a picture for vectors only
    float pen = 0.0f;
    for (std::size_t i = 0; i < text.size();)
    {
        const int cp = next_code_point(text, i);
        const stbtt_fontinfo* font = &font_->face_for(cp).info;
        const float scale = stbtt_ScaleForPixelHeight(font, px);
        int advance = 0, lsb = 0;
        stbtt_GetCodepointHMetrics(font, cp, &advance, &lsb);
        int w = 0, h = 0, xoff = 0, yoff = 0;
        unsigned char* bitmap = stbtt_GetCodepointBitmap(font, scale, scale, cp, &w, &h, &xoff, &yoff);
        for (int by = 0; by < h; ++by)
            for (int bx = 0; bx < w; ++bx)
            {
                const int a = bitmap[by * w + bx];
                if (a == 0)
                    continue;
                // Glyph-space point (u, v) with v down from the line's top.
                const float u = pen + static_cast<float>(xoff + bx);
                const float v = baseline + static_cast<float>(yoff + by);
                const int px_x =
                    rotated ? static_cast<int>(std::lround(x + v)) : static_cast<int>(std::lround(x + u));
                const int px_y =
                    rotated ? static_cast<int>(std::lround(y - u)) : static_cast<int>(std::lround(y + v));
                blend(img, px_x, px_y, color, a);
            }
        stbtt_FreeBitmap(bitmap, nullptr);
        pen += static_cast<float>(advance) * scale;
    }
}

std::vector<std::string> TextRasterizer::wrap(const std::string& text, float px, float max_w) const
{
    std::vector<std::string> lines;
    std::string line;
    std::size_t i = 0;
    while (i < text.size())
    {
        const std::size_t end = std::min(text.find(' ', i), text.size());
        const std::string word = text.substr(i, end - i);
        i = end + 1;
        if (word.empty())
            continue;
        const std::string longer = line.empty() ? word : line + " " + word;
        if (!line.empty() && width(longer, px) > max_w)
        {
            lines.push_back(line);
            line = word;
        }
        else
            line = longer;
    }
    if (!line.empty())
        lines.push_back(line);
    return lines;
}

} // namespace attnlab
