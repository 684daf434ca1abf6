// Pictures drawn on the CPU for exports and slides: an RGBA image, rectangles, the masked-cell hatching,
// lines and text with stb_truetype. Every drawing call is also kept as a DrawCommand, so one layout gives the
// PNG (the pixels) and the vector files (ui/picture/vector_out.h). No ImGui and no GL, so headless tests draw
// them too.
#pragma once

#include "ui/picture/colormap.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace attnlab
{

// What one drawing call drew, in pixels (y down), for the vector back ends.
enum class DrawKind
{
    Rect,     // [x0, x1) x [y0, y1) filled with color (opaque)
    Hatch,    // a masked cell: [x0, x1) x [y0, y1) as hatch_rect draws it
    Text,     // text starting at (x0, y0) on its baseline; rotated: reading upwards from there
    Polyline, // points joined by a line of `size` pixels, color with its alpha; one point: a dot
};

struct DrawCommand
{
    DrawKind kind = DrawKind::Rect;
    float x0 = 0.0f, y0 = 0.0f, x1 = 0.0f, y1 = 0.0f;
    Color32 color = 0;
    float size = 0.0f;    // Text: the font size (em) in pixels; Polyline: the line's width
    float text_px = 0.0f; // Text: the size asked of TextRasterizer (ascent to descent, pixels)
    bool rotated = false;
    std::string text;                            // Text, UTF-8
    std::vector<std::pair<float, float>> points; // Polyline
};

// An RGBA8 picture in memory, top row first (R in the low byte), and the drawing calls that made it.
struct Image
{
    int width = 0, height = 0;
    std::vector<std::uint32_t> pixels; // empty for a picture drawn for vectors only
    std::vector<DrawCommand> commands; // every call since reset(), the page first

    // A width x height picture filled with one colour (the first command); pixels = false keeps only the
    // commands (for an SVG or PDF, which need no pixels).
    void reset(int w, int h, Color32 fill, bool pixels = true);
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
// The hatching's period and stripe width (pixels) for a cell whose shorter side is `size`; period 0 when
// the cell is too small for stripes.
void hatch_period(int size, int* period, int* stripe);
// The hatching's stripes for a cell [x0, x1) x [y0, y1) as the vector back ends draw them: each a
// parallelogram (four corners) reaching past the cell, to be clipped to it. Empty when the cell is too small.
std::vector<std::array<std::pair<float, float>, 4>> hatch_stripes(float x0, float y0, float x1, float y1);
// The same with a given period and stripe width (a pattern tile of one period).
std::vector<std::array<std::pair<float, float>, 4>> hatch_stripes(float x0, float y0, float x1, float y1,
                                                                  int period, int stripe);
// A line through points, `width` pixels wide, in color (its alpha blends); one point draws a dot.
void draw_polyline(Image& img, const std::vector<std::pair<float, float>>& points, float width,
                   Color32 color);
// Draws one command into img's pixels (the raster back end; the drawing calls above use it). Text is the
// exception: TextRasterizer::draw draws its glyphs itself, so here it draws nothing.
void rasterize_command(Image& img, const DrawCommand& c);

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
    // Recorded as a Text command at its baseline with the font's em size (nothing when no font is loaded).
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
