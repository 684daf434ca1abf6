// Export of a heatmap: a slide-ready PNG drawn on the CPU with stb_truetype, and CSV of the matrix.
#include "ui/export.h"

#include "core/io/atomic_file.h"
#include "ui/colormap.h"
#include "ui/fonts.h"
#include "ui/heatmap_math.h"
#include "ui/training_curves.h"

#include <stb_image_write.h>
#include <stb_truetype.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>

namespace attnlab
{

int default_export_scale(int rows, int cols)
{
    const int n = std::max(1, std::max(rows, cols));
    return std::clamp(640 / n, 2, 64);
}

// [SECTION] Text on the CPU

namespace
{

constexpr Color32 kInk = pack_rgba(20, 20, 24);
constexpr Color32 kGreyInk = pack_rgba(100, 100, 110);
constexpr Color32 kPaper = pack_rgba(255, 255, 255);

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

class TextRasterizer
{
public:
    bool load(const std::string& path)
    {
        std::ifstream f(path, std::ios::binary);
        if (!f)
            return false;
        data_.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
        const auto* bytes = reinterpret_cast<const unsigned char*>(data_.data());
        ok_ = !data_.empty() && stbtt_InitFont(&font_, bytes, stbtt_GetFontOffsetForIndex(bytes, 0)) != 0;
        return ok_;
    }
    bool ok() const { return ok_; }

    float width(const std::string& text, float px) const
    {
        if (!ok_)
            return 0.0f;
        const float scale = stbtt_ScaleForPixelHeight(&font_, px);
        float x = 0.0f;
        for (std::size_t i = 0; i < text.size();)
        {
            int advance = 0, lsb = 0;
            stbtt_GetCodepointHMetrics(&font_, next_code_point(text, i), &advance, &lsb);
            x += static_cast<float>(advance) * scale;
        }
        return x;
    }

    // Draws text with its top-left at (x, y); rotated: reading upwards, starting at (x, y) = bottom-left.
    void draw(Image& img, float x, float y, float px, Color32 color, const std::string& text,
              bool rotated = false) const
    {
        if (!ok_)
            return;
        const float scale = stbtt_ScaleForPixelHeight(&font_, px);
        int ascent = 0, descent = 0, gap = 0;
        stbtt_GetFontVMetrics(&font_, &ascent, &descent, &gap);
        const float baseline = static_cast<float>(ascent) * scale;
        float pen = 0.0f;
        for (std::size_t i = 0; i < text.size();)
        {
            const int cp = next_code_point(text, i);
            int advance = 0, lsb = 0;
            stbtt_GetCodepointHMetrics(&font_, cp, &advance, &lsb);
            int w = 0, h = 0, xoff = 0, yoff = 0;
            unsigned char* bitmap = stbtt_GetCodepointBitmap(&font_, scale, scale, cp, &w, &h, &xoff, &yoff);
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

private:
    static void blend(Image& img, int x, int y, Color32 color, int alpha)
    {
        if (x < 0 || y < 0 || x >= img.width || y >= img.height)
            return;
        Color32& p = img.pixels[static_cast<std::size_t>(y) * img.width + x];
        auto mix = [alpha](int dst, int src)
        { return static_cast<std::uint8_t>((src * alpha + dst * (255 - alpha)) / 255); };
        p = pack_rgba(mix(red_of(p), red_of(color)), mix(green_of(p), green_of(color)),
                      mix(blue_of(p), blue_of(color)));
    }

    std::vector<char> data_;
    stbtt_fontinfo font_{};
    bool ok_ = false;
};

void fill_rect(Image& img, int x0, int y0, int x1, int y1, Color32 color)
{
    x0 = std::max(0, x0);
    y0 = std::max(0, y0);
    x1 = std::min(img.width, x1);
    y1 = std::min(img.height, y1);
    for (int y = y0; y < y1; ++y)
        std::fill(img.pixels.begin() + static_cast<std::ptrdiff_t>(y) * img.width + x0,
                  img.pixels.begin() + static_cast<std::ptrdiff_t>(y) * img.width + x1, color);
}

void frame_rect(Image& img, int x0, int y0, int x1, int y1, Color32 color)
{
    fill_rect(img, x0, y0, x1, y0 + 1, color);
    fill_rect(img, x0, y1 - 1, x1, y1, color);
    fill_rect(img, x0, y0, x0 + 1, y1, color);
    fill_rect(img, x1 - 1, y0, x1, y1, color);
}

void write_to_string(void* context, void* data, int size)
{
    static_cast<std::string*>(context)->append(static_cast<const char*>(data),
                                               static_cast<std::size_t>(size));
}

Status write_bytes(const std::string& bytes, const std::string& path)
{
    AtomicFile file;
    if (Status s = file.open(path); !s.is_ok())
        return s;
    file.write(bytes);
    return file.commit();
}

} // namespace

// [SECTION] The heatmap picture

Image render_heatmap_image(const MatrixView& view, int cell_px, std::string* note)
{
    Image img;
    if (view.m == nullptr || view.m->size() == 0)
        return img;
    const Mat& m = *view.m;
    const int rows = static_cast<int>(m.rows());
    const int cols = static_cast<int>(m.cols());
    cell_px = std::clamp(cell_px, 1, 256);

    TextRasterizer text;
    const std::string font = find_font_file();
    if (font.empty() || !text.load(font))
    {
        if (note != nullptr)
            *note = "DejaVuSans.ttf not found: the picture has no text";
    }
    const float title_px = 30.0f, body_px = 20.0f, label_px = 18.0f;
    const int margin = 28;

    std::vector<std::string> row_labels(static_cast<std::size_t>(rows)),
        col_labels(static_cast<std::size_t>(cols));
    float row_w = 0.0f, col_h = 0.0f;
    const int rstride = label_stride(rows, static_cast<float>(cell_px), label_px * 1.15f);
    const bool col_tokens = view.col_tokens != nullptr;
    const int cstride =
        label_stride(cols, static_cast<float>(cell_px), col_tokens ? label_px * 1.15f : label_px * 2.4f);
    for (int r = 0; r < rows; r += rstride)
    {
        row_labels[static_cast<std::size_t>(r)] = truncate_utf8(row_label(view, r), 14);
        row_w = std::max(row_w, text.width(row_labels[static_cast<std::size_t>(r)], label_px));
    }
    for (int c = 0; c < cols; c += cstride)
    {
        col_labels[static_cast<std::size_t>(c)] = truncate_utf8(col_label(view, c), 14);
        if (col_tokens)
            col_h = std::max(col_h, text.width(col_labels[static_cast<std::size_t>(c)], label_px));
    }
    if (!col_tokens)
        col_h = label_px * 1.3f;

    ValueRange range = value_range(m.data(), static_cast<std::size_t>(m.size()));
    const ColorScale scale =
        choose_scale(range, view.probability,
                     view.stretch ? stretch_top(m.data(), static_cast<std::size_t>(m.size())) : 0.0f);

    const int image_w = cols * cell_px, image_h = rows * cell_px;
    const int header_h = static_cast<int>(title_px * 1.4f + body_px * 1.5f) + 12;
    const int x_img = margin + static_cast<int>(row_w) + 10;
    const int y_img = margin + header_h;
    const int bar_w = 22;
    const int bar_h = std::max(image_h, 160);
    const int x_bar = x_img + image_w + 24;
    const float bar_label_w =
        std::max({text.width(format_value(scale.hi), body_px), text.width(format_value(scale.lo), body_px),
                  text.width("−∞", body_px), text.width("max 0.000", body_px)});
    const std::string heading = view.title;
    const std::string subheading = view.equation + "      " + view.shape;
    img.width = std::max(x_bar + bar_w + 10 + static_cast<int>(bar_label_w) + margin,
                         margin * 2 + static_cast<int>(std::max(text.width(heading, title_px),
                                                                text.width(subheading, body_px))));
    img.height = y_img +
                 std::max(image_h + static_cast<int>(col_h) + 12, bar_h + (range.has_neg_inf ? 40 : 0)) +
                 margin;
    img.pixels.assign(static_cast<std::size_t>(img.width) * img.height, kPaper);

    text.draw(img, margin, margin, title_px, kInk, heading);
    text.draw(img, margin, margin + title_px * 1.4f, body_px, kGreyInk, subheading);

    // Cells (stripes on −∞ when they are large enough to show them).
    std::vector<Color32> cells;
    const int k = std::min(cell_px, 8);
    fill_heatmap_pixels(m.data(), rows, cols, scale, 1, cells);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
        {
            const Color32 color = cells[static_cast<std::size_t>(r) * cols + c];
            const int x0 = x_img + c * cell_px, y0 = y_img + r * cell_px;
            fill_rect(img, x0, y0, x0 + cell_px, y0 + cell_px, color);
            const float v = m(r, c);
            if (std::isinf(v) && v < 0 && k >= 4)
                for (int d = 0; d < cell_px; ++d)
                    for (int e = 0; e < cell_px; ++e)
                        if ((d + e) % std::max(4, cell_px / 4) == 0)
                            img.pixels[static_cast<std::size_t>(y0 + e) * img.width + x0 + d] = kNegInfStripe;
        }
    if (view.column_blocks > 0)
        for (int c = view.column_blocks; c < cols; c += view.column_blocks)
            fill_rect(img, x_img + c * cell_px - 1, y_img - 4, x_img + c * cell_px + 1, y_img + image_h + 4,
                      kInk);
    frame_rect(img, x_img - 1, y_img - 1, x_img + image_w + 1, y_img + image_h + 1, kGreyInk);

    // Numbers inside the cells when they fit: one size for all, shrunk until the widest fits.
    float number_px = std::min(body_px, cell_px * 0.42f);
    if (text.ok() && number_px >= 10.0f && rows * cols <= 4096)
    {
        float widest = 0.0f;
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c)
                widest = std::max(widest, text.width(format_value(m(r, c)), number_px));
        while (number_px >= 10.0f && widest > cell_px - 4)
        {
            widest *= 0.9f;
            number_px *= 0.9f;
        }
        if (number_px >= 10.0f)
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < cols; ++c)
                {
                    const std::string s = format_value(m(r, c));
                    const float w = text.width(s, number_px);
                    const Color32 color = text_color_on(cells[static_cast<std::size_t>(r) * cols + c]);
                    text.draw(img, x_img + c * cell_px + (cell_px - w) * 0.5f,
                              y_img + r * cell_px + (cell_px - number_px * 1.15f) * 0.5f, number_px, color,
                              s);
                }
    }

    // Labels.
    for (int r = 0; r < rows; r += rstride)
    {
        const std::string& s = row_labels[static_cast<std::size_t>(r)];
        const float w = text.width(s, label_px);
        text.draw(img, x_img - 8 - w, y_img + (r + 0.5f) * cell_px - label_px * 0.6f, label_px,
                  s == "<pad>" ? kGreyInk : kInk, s);
    }
    for (int c = 0; c < cols; c += cstride)
    {
        const std::string& s = col_labels[static_cast<std::size_t>(c)];
        if (col_tokens)
        {
            const float w = text.width(s, label_px);
            text.draw(img, x_img + (c + 0.5f) * cell_px - label_px * 0.6f, y_img + image_h + 8 + w, label_px,
                      s == "<pad>" ? kGreyInk : kInk, s, true);
        }
        else
        {
            const float w = text.width(s, label_px);
            text.draw(img, x_img + (c + 0.5f) * cell_px - w * 0.5f, y_img + image_h + 4, label_px, kGreyInk,
                      s);
        }
    }

    // Colour bar: high at the top, marks at the true min and max.
    const auto& table = colormap_table(scale.map());
    for (int y = 0; y < bar_h; ++y)
    {
        const auto idx =
            static_cast<std::size_t>(std::lround((1.0f - static_cast<float>(y) / (bar_h - 1)) * 255.0f));
        fill_rect(img, x_bar, y_img + y, x_bar + bar_w, y_img + y + 1, table[idx]);
    }
    frame_rect(img, x_bar - 1, y_img - 1, x_bar + bar_w + 1, y_img + bar_h + 1, kGreyInk);
    const int tx = x_bar + bar_w + 8;
    text.draw(img, tx, y_img - 4, body_px, kInk, format_value(scale.hi));
    text.draw(img, tx, y_img + bar_h * 0.5f - body_px * 0.6f, body_px, kInk,
              format_value(0.5f * (scale.lo + scale.hi)));
    text.draw(img, tx, y_img + bar_h - body_px, body_px, kInk, format_value(scale.lo));
    if (range.finite_count > 0)
        for (float v : {range.min, range.max})
        {
            const int y = y_img + static_cast<int>((1.0f - scale_position(v, scale)) * (bar_h - 1));
            fill_rect(img, x_bar - 5, y - 1, x_bar + bar_w + 5, y + 2, kInk);
        }
    if (range.has_neg_inf)
    {
        const int ys = y_img + bar_h + 12;
        fill_rect(img, x_bar, ys, x_bar + bar_w, ys + 20, kNegInfColor);
        text.draw(img, tx, ys - 2, body_px, kInk, "−∞");
    }
    return img;
}

// [SECTION] Files

Status write_png(const Image& image, const std::string& path)
{
    if (image.width <= 0 || image.height <= 0)
        return Status::error("nothing to export: the matrix is empty");
    std::string bytes;
    if (stbi_write_png_to_func(write_to_string, &bytes, image.width, image.height, 4, image.pixels.data(),
                               image.width * 4) == 0)
        return Status::error("could not encode the PNG for " + path);
    return write_bytes(bytes, path);
}

Status write_rgb_png_bottom_up(const std::uint8_t* rgb, int width, int height, const std::string& path)
{
    std::string bytes;
    const int stride = width * 3;
    // Point at the last row and use a negative stride: the PNG's top row is the framebuffer's top.
    if (stbi_write_png_to_func(write_to_string, &bytes, width, height, 3,
                               rgb + static_cast<std::ptrdiff_t>(height - 1) * stride, -stride) == 0)
        return Status::error("could not encode the PNG for " + path);
    return write_bytes(bytes, path);
}

Status export_matrix_csv(const MatrixView& view, const std::string& path)
{
    if (view.m == nullptr)
        return Status::error("nothing to export: the matrix is not available");
    const Mat& m = *view.m;
    auto field = [](const std::string& s)
    {
        if (s.find_first_of(",\"\n") == std::string::npos)
            return s;
        std::string q = "\"";
        for (char ch : s)
            q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        return q + "\"";
    };
    std::string out;
    out += "row";
    for (int c = 0; c < m.cols(); ++c)
        out += "," + field(col_label(view, c));
    out += "\n";
    char buf[32];
    for (int r = 0; r < m.rows(); ++r)
    {
        out += field(row_label(view, r));
        for (int c = 0; c < m.cols(); ++c)
        {
            const float v = m(r, c);
            if (std::isinf(v))
                out += v < 0 ? ",-inf" : ",inf";
            else
            {
                std::snprintf(buf, sizeof(buf), ",%.9g", static_cast<double>(v));
                out += buf;
            }
        }
        out += "\n";
    }
    return write_bytes(out, path);
}

Status export_heatmap_png(const MatrixView& view, const std::string& path, int cell_px)
{
    if (view.m == nullptr)
        return Status::error("nothing to export: the matrix is not available");
    return write_png(render_heatmap_image(view, cell_px), path);
}

// [SECTION] The training curves picture

namespace
{

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

void draw_line(Image& img, float x0, float y0, float x1, float y1, float width, Color32 color)
{
    const float n = std::max({std::fabs(x1 - x0), std::fabs(y1 - y0), 1.0f});
    // Dots half a pixel apart: the blend darkens overlaps a little, which reads as a solid line.
    for (float t = 0.0f; t <= n; t += 0.5f)
        blend_dot(img, x0 + (x1 - x0) * t / n, y0 + (y1 - y0) * t / n, width * 0.5f, color);
}

std::string axis_text(float v, const CurvePlot& plot)
{
    char s[32];
    if (plot.percent)
        std::snprintf(s, sizeof s, "%.0f %%", 100.0 * static_cast<double>(v));
    else if (v != 0.0f && std::fabs(v) < 0.01f)
        std::snprintf(s, sizeof s, "%.1e", static_cast<double>(v));
    else
        std::snprintf(s, sizeof s, "%.3g", static_cast<double>(v));
    return s;
}

void draw_curve_plot(Image& img, const TextRasterizer& text, const CurvePlot& plot, const TrainingCurves& c,
                     int x, int y, int w, int h)
{
    const float label_px = 17.0f;
    text.draw(img, static_cast<float>(x), static_cast<float>(y), 20.0f, kInk, plot.title);
    const int ax = x + 74, ay = y + 34, bx = x + w, by = y + h - 28;
    float lo = 0, hi = 1;
    plot_y_range(plot, &lo, &hi);
    const auto fy = [&](float v) { return plot.log_y ? std::log10(std::max(v, 1e-12f)) : v; };
    float ylo = fy(lo), yhi = fy(hi);
    if (yhi - ylo < 1e-6f)
    {
        ylo -= 0.5f;
        yhi += 0.5f;
    }
    const float span = static_cast<float>(std::max(1, c.x_max - c.x_min));
    const auto sx = [&](float step)
    {
        return static_cast<float>(ax) +
               (step - static_cast<float>(c.x_min)) / span * static_cast<float>(bx - ax);
    };
    const auto sy = [&](float v)
    { return static_cast<float>(by) - (fy(v) - ylo) / (yhi - ylo) * static_cast<float>(by - ay); };
    const auto y_label = [&](float v)
    {
        const std::string t = axis_text(v, plot);
        const float yy = sy(v);
        text.draw(img, static_cast<float>(ax) - text.width(t, label_px) - 6.0f, yy - label_px * 0.6f,
                  label_px, kGreyInk, t);
        fill_rect(img, ax, static_cast<int>(yy), bx, static_cast<int>(yy) + 1, pack_rgba(225, 225, 230));
    };
    y_label(lo);
    y_label(hi);
    float last_y = static_cast<float>(by);
    if (plot.log_y)
        for (float d = std::ceil(ylo); d < yhi; d += 1.0f)
        {
            const float yy = sy(std::pow(10.0f, d));
            if (yy < static_cast<float>(by) - 2.0f * label_px &&
                yy > static_cast<float>(ay) + 2.0f * label_px && yy < last_y - 2.0f * label_px)
            {
                y_label(std::pow(10.0f, d));
                last_y = yy;
            }
        }
    if (&plot == &c.loss && c.has_drop)
    {
        fill_rect(img, static_cast<int>(sx(static_cast<float>(c.drop.from_step))), ay,
                  std::max(static_cast<int>(sx(static_cast<float>(c.drop.to_step))),
                           static_cast<int>(sx(static_cast<float>(c.drop.from_step))) + 2),
                  by, pack_rgba(252, 232, 200));
        text.draw(img, sx(static_cast<float>(c.drop.from_step)) + 4.0f, static_cast<float>(ay) + 4.0f,
                  label_px, pack_rgba(200, 120, 0), "steepest drop");
    }
    for (const CurveSeries& s : plot.series)
    {
        bool has_prev = false;
        float px = 0, py = 0;
        for (const auto& [stp, v] : s.points)
        {
            if (!std::isfinite(v) || (plot.log_y && v <= 0.0f))
                continue;
            const float qx = sx(stp), qy = std::clamp(sy(v), static_cast<float>(ay), static_cast<float>(by));
            if (has_prev)
                draw_line(img, px, py, qx, qy, s.width * 1.6f, s.color);
            else
                blend_dot(img, qx, qy, s.width, s.color);
            px = qx;
            py = qy;
            has_prev = true;
        }
    }
    frame_rect(img, ax, ay, bx + 1, by + 1, kGreyInk);
    const std::string first = std::to_string(c.x_min), last = "step " + std::to_string(c.x_max);
    text.draw(img, static_cast<float>(ax), static_cast<float>(by) + 4.0f, label_px, kGreyInk, first);
    text.draw(img, static_cast<float>(bx) - text.width(last, label_px), static_cast<float>(by) + 4.0f,
              label_px, kGreyInk, last);
}

} // namespace

Image render_curves_image(const TrainingSnapshot& run, int target_steps, int score_kind, std::string* note)
{
    TextRasterizer text;
    const std::string font = find_font_file();
    if ((font.empty() || !text.load(font)) && note != nullptr)
        *note = "DejaVuSans.ttf not found: the picture has no text";
    const TrainingCurves c = training_curves(run, target_steps, score_kind);
    const int n_legend = 1 + static_cast<int>(run.past.size());
    Image img;
    img.width = 1800;
    img.height = 110 + 420 + 16 + 26 * n_legend + 20;
    img.pixels.assign(static_cast<std::size_t>(img.width) * static_cast<std::size_t>(img.height), kPaper);
    const int margin = 28;
    char heading[256];
    std::snprintf(heading, sizeof heading, "%s: step %d", run.config.label().c_str(), run.step);
    text.draw(img, margin, margin, 28.0f, kInk, heading);
    if (!run.evals.empty())
    {
        char sub[128];
        std::snprintf(sub, sizeof sub,
                      "held-out (sequences never trained on) at step %d: loss %.3f, accuracy %.1f %%",
                      run.evals.back().step, static_cast<double>(run.evals.back().loss),
                      100.0 * static_cast<double>(run.evals.back().accuracy));
        text.draw(img, margin, margin + 38.0f, 19.0f, kGreyInk, sub);
    }
    const int plot_w = (img.width - 2 * margin - 2 * 40) / 3;
    const int top = 110;
    draw_curve_plot(img, text, c.loss, c, margin, top, plot_w, 420);
    draw_curve_plot(img, text, c.accuracy, c, margin + plot_w + 40, top, plot_w, 420);
    draw_curve_plot(img, text, c.heads, c, margin + 2 * (plot_w + 40), top, plot_w, 420);
    // Legend: this run, then the earlier ones; the heads' colours are those of the window's head chips.
    int ly = top + 420 + 16;
    const auto legend = [&](Color32 color, const std::string& label)
    {
        fill_rect(img, margin, ly + 9, margin + 30, ly + 13, color | 0xFF000000u);
        text.draw(img, margin + 40.0f, static_cast<float>(ly), 18.0f, kInk, label);
        ly += 26;
    };
    legend(kThisRunColor,
           "this run (thin: training loss per step; thick: held-out); head scores: thin = layer 1, "
           "thick = later layers, coloured by head");
    for (std::size_t i = run.past.size(); i-- > 0;)
        legend(past_run_color(i),
               "earlier: " + run.past[i].label + " (" + std::to_string(run.past[i].loss.size()) + " steps)");
    return img;
}

Status export_curves_png(const TrainingSnapshot& run, int target_steps, int score_kind,
                         const std::string& path)
{
    if (run.evals.empty() && run.loss.empty())
        return Status::error("no curves yet: train a few steps first");
    return write_png(render_curves_image(run, target_steps, score_kind), path);
}

void run_export_dialog(AppState& state)
{
    const ExportDialog& d = state.export_dialog;
    const MatrixView view = resolve_matrix(state, d.matrix);
    const Status s = d.format == ExportFormat::Png ? export_heatmap_png(view, d.path, d.scale)
                                                   : export_matrix_csv(view, d.path);
    if (s.is_ok())
        state.set_message("Exported " + view.title + " to " + d.path, false);
    else
        state.set_message("Export failed: " + s.message(), true);
}

} // namespace attnlab
