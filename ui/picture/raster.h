// Pictures drawn on the CPU for exports and slides: an RGBA image, rectangles, the masked-cell hatching and
// text with stb_truetype. No ImGui and no GL, so headless tests draw them too.
#pragma once

#include "ui/picture/colormap.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attnlab
{

// An RGBA8 picture in memory, top row first (R in the low byte).
struct Image
{
    int width = 0, height = 0;
    std::vector<std::uint32_t> pixels;

    // A width x height picture filled with one colour.
    void reset(int w, int h, Color32 fill);
    Color32 at(int x, int y) const { return pixels[static_cast<std::size_t>(y) * width + x]; }
};

// The colours of a picture's background and text: light (white paper, for printed or bright slides) or dark
// (the app's dark theme).
struct Palette
{
    bool dark = false;
    Color32 paper = 0;    // background
    Color32 ink = 0;      // titles, labels
    Color32 grey_ink = 0; // equations, axis titles, numbered labels
    Color32 frame = 0;    // frames around maps and colour bars
};
Palette picture_palette(bool dark);

// Fills [x0, x1) x [y0, y1), clipped to the image.
void fill_rect(Image& img, int x0, int y0, int x1, int y1, Color32 color);
// A one-pixel frame along the inside of [x0, x1) x [y0, y1).
void frame_rect(Image& img, int x0, int y0, int x1, int y1, Color32 color, int thickness = 1);
// A masked cell as the window draws it: the −∞ colour with diagonal stripes in kNegInfStripe (a plain −∞
// colour when the cell is under 4 pixels, too small for stripes).
void hatch_rect(Image& img, int x0, int y0, int x1, int y1);

// Text in DejaVu Sans at any pixel size, characters it lacks from the fallback fonts (CJK, symbols, emoji;
// ui/picture/font_file.h). When the font file is missing every call draws nothing and widths
// are 0, so a picture still has its cells.
class TextRasterizer
{
public:
    TextRasterizer();
    ~TextRasterizer();
    TextRasterizer(const TextRasterizer&) = delete;
    TextRasterizer& operator=(const TextRasterizer&) = delete;

    // Loads load_font_file()'s font; false (and *note set) when it is missing or not a font.
    bool load_default(std::string* note = nullptr);
    // Reads path with read_file's checks (a regular file of at most kMaxFontFileBytes); false if refused.
    bool load(const std::string& path);
    // Takes a font file's bytes; false if stb_truetype cannot read them.
    bool load_bytes(std::string bytes);
    bool loaded() const { return ok_; }

    float width(const std::string& text, float px) const;
    // Draws text with its top-left at (x, y); rotated: reading upwards, starting at (x, y) = bottom-left.
    void draw(Image& img, float x, float y, float px, Color32 color, const std::string& text,
              bool rotated = false) const;
    // From now on every draw() also appends its text here (nullptr: stop), so tests can read what a picture
    // says.
    void record(std::vector<std::string>* drawn) { drawn_ = drawn; }
    // Splits text into lines no wider than max_w (at spaces; a single longer word stays whole).
    std::vector<std::string> wrap(const std::string& text, float px, float max_w) const;

private:
    struct Font; // the file's bytes and stb_truetype's font info
    std::unique_ptr<Font> font_;
    bool ok_ = false;
    std::vector<std::string>* drawn_ = nullptr;
};

} // namespace attnlab
