// The vector back ends: a picture's drawing commands as SVG (written here) and as PDF pages (cairo).
//
// The SVG is written by hand rather than by cairo's SVG surface, which turns text into glyph outlines: here
// every label stays a <text> element a reader can select, search and edit in a slide program.
#include "ui/picture/vector_out.h"

#include "core/io/atomic_file.h"
#include "ui/picture/export.h"
#include "ui/picture/font_file.h"

#include <cairo-ft.h>
#include <cairo-pdf.h>
#include <cairo.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

namespace attnlab
{

const char* const kSvgFontFamily = "'DejaVu Sans', 'Droid Sans Fallback', Symbola, sans-serif";

const char* picture_format_name(PictureFormat format)
{
    switch (format)
    {
    case PictureFormat::Png:
        return "png";
    case PictureFormat::Svg:
        return "svg";
    case PictureFormat::Pdf:
        return "pdf";
    }
    return "png";
}

bool parse_picture_format(const std::string& name, PictureFormat* format)
{
    for (PictureFormat f : {PictureFormat::Png, PictureFormat::Svg, PictureFormat::Pdf})
        if (name == picture_format_name(f))
        {
            *format = f;
            return true;
        }
    return false;
}

PictureFormat picture_format_of_path(const std::string& path)
{
    const auto ends_with = [&](const char* ext)
    {
        const std::string e(ext);
        if (path.size() < e.size())
            return false;
        for (std::size_t i = 0; i < e.size(); ++i)
            if (std::tolower(static_cast<unsigned char>(path[path.size() - e.size() + i])) != e[i])
                return false;
        return true;
    };
    return ends_with(".svg")   ? PictureFormat::Svg
           : ends_with(".pdf") ? PictureFormat::Pdf
                               : PictureFormat::Png;
}

namespace
{

// [SECTION] SVG

// A number with at most two decimals and no trailing zeros ("12", "12.5").
std::string num(float v)
{
    char s[32];
    std::snprintf(s, sizeof s, "%.2f", static_cast<double>(v));
    std::string out = s;
    while (!out.empty() && out.back() == '0')
        out.pop_back();
    if (!out.empty() && out.back() == '.')
        out.pop_back();
    return out == "-0" ? "0" : out;
}

std::string hex_color(Color32 c)
{
    char s[8];
    std::snprintf(s, sizeof s, "#%02x%02x%02x", red_of(c), green_of(c), blue_of(c));
    return s;
}

float alpha_of(Color32 c)
{
    return static_cast<float>((c >> 24) & 0xFF) / 255.0f;
}

// Text for XML content and attribute values: & < > " ' escaped, and bytes XML 1.0 forbids (control
// characters other than tab, line feed and carriage return) left out.
std::string xml_escaped(const std::string& s)
{
    std::string out;
    out.reserve(s.size());
    for (char ch : s)
    {
        const auto u = static_cast<unsigned char>(ch);
        switch (ch)
        {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&apos;";
            break;
        default:
            if (u >= 0x20 || ch == '\t' || ch == '\n' || ch == '\r')
                out += ch;
        }
    }
    return out;
}

// The hatching as patterns: one per stripe period, width and phase ((x0 + y0) mod period), tiled from the
// page's origin, so every masked cell of a map shares one.
class HatchPatterns
{
public:
    // The pattern's id for a cell, adding its definition to defs the first time.
    std::string id_for(const DrawCommand& c, std::string& defs)
    {
        int period = 0, stripe = 0;
        hatch_period(static_cast<int>(std::lround(std::min(c.x1 - c.x0, c.y1 - c.y0))), &period, &stripe);
        if (period == 0)
            return std::string();
        const int phase = ((static_cast<int>(std::lround(c.x0 + c.y0)) % period) + period) % period;
        const auto key = std::make_tuple(period, stripe, phase);
        auto it = ids_.find(key);
        if (it != ids_.end())
            return it->second;
        const std::string id = "hatch" + std::to_string(ids_.size());
        ids_.emplace(key, id);
        // A tile of period x period from (phase, 0): the stripes of a cell whose corner sits at the tile's.
        const float p = static_cast<float>(period);
        defs += "<pattern id=\"" + id + "\" patternUnits=\"userSpaceOnUse\" x=\"" + std::to_string(phase) +
                "\" y=\"0\" width=\"" + num(p) + "\" height=\"" + num(p) + "\"><rect width=\"" + num(p) +
                "\" height=\"" + num(p) + "\" fill=\"" + hex_color(kNegInfColor) + "\"/>";
        for (const auto& quad : hatch_stripes(0.0f, 0.0f, p, p, period, stripe))
        {
            defs += "<polygon fill=\"" + hex_color(kNegInfStripe) + "\" points=\"";
            for (const auto& [x, y] : quad)
                defs += num(x) + "," + num(y) + " ";
            defs.back() = '"';
            defs += "/>";
        }
        defs += "</pattern>\n";
        return id;
    }

private:
    std::map<std::tuple<int, int, int>, std::string> ids_;
};

void svg_rect(std::string& out, const DrawCommand& c, const std::string& fill)
{
    out += "<rect x=\"" + num(c.x0) + "\" y=\"" + num(c.y0) + "\" width=\"" + num(c.x1 - c.x0) +
           "\" height=\"" + num(c.y1 - c.y0) + "\" fill=\"" + fill + "\"/>\n";
}

void svg_text(std::string& out, const DrawCommand& c)
{
    out += "<text";
    if (c.rotated)
        out += " transform=\"translate(" + num(c.x0) + " " + num(c.y0) + ") rotate(-90)\"";
    else
        out += " x=\"" + num(c.x0) + "\" y=\"" + num(c.y0) + "\"";
    out += " font-size=\"" + num(c.size) + "\" fill=\"" + hex_color(c.color) + "\">" + xml_escaped(c.text) +
           "</text>\n";
}

void svg_polyline(std::string& out, const DrawCommand& c)
{
    const float a = alpha_of(c.color);
    const std::string opacity = a < 0.999f ? " stroke-opacity=\"" + num(a) + "\"" : std::string();
    if (c.points.size() == 1)
    {
        out += "<circle cx=\"" + num(c.points[0].first) + "\" cy=\"" + num(c.points[0].second) + "\" r=\"" +
               num(c.size * 0.5f) + "\" fill=\"" + hex_color(c.color) + "\"" +
               (a < 0.999f ? " fill-opacity=\"" + num(a) + "\"" : std::string()) + "/>\n";
        return;
    }
    out += "<polyline fill=\"none\" stroke=\"" + hex_color(c.color) + "\" stroke-width=\"" + num(c.size) +
           "\"" + opacity + " stroke-linecap=\"round\" stroke-linejoin=\"round\" points=\"";
    for (const auto& [x, y] : c.points)
        out += num(x) + "," + num(y) + " ";
    out.back() = '"';
    out += "/>\n";
}

// [SECTION] PDF

// The PDF's fonts, those the PNG draws with (ui/picture/raster.h): DejaVu Sans from the file font_file.h
// finds, then the fallbacks for the characters it lacks (Droid Sans Fallback: Chinese, Japanese, Korean;
// Symbola). cairo's text calls draw with one font and no fallback, so a label is drawn a run of characters at
// a time, each run in the first font that has its characters (else CJK labels are empty boxes).
class PdfFonts
{
public:
    PdfFonts()
    {
        add(find_font_file());
        for (const FontFile& file : load_fallback_font_files())
            add(file.path);
    }
    ~PdfFonts()
    {
        for (const Face& f : faces_)
        {
            cairo_scaled_font_destroy(f.probe);
            cairo_font_face_destroy(f.face);
        }
    }
    PdfFonts(const PdfFonts&) = delete;
    PdfFonts& operator=(const PdfFonts&) = delete;

    // Draws the text command's label from the current point on.
    void show_text(cairo_t* cr, const DrawCommand& c) const
    {
        std::size_t run_start = 0;
        int run_face = -1;
        const auto show_run = [&](std::size_t end)
        {
            if (run_face < 0 || end <= run_start)
                return;
            const Face& f = faces_[static_cast<std::size_t>(run_face)];
            cairo_set_font_face(cr, f.face);
            // A fallback is sized as the PNG sizes it: its ascent to descent is the label's pixel height.
            cairo_set_font_size(cr, run_face == 0 || c.text_px <= 0.0f ? c.size : c.text_px * f.em_per_px);
            cairo_show_text(cr, c.text.substr(run_start, end - run_start).c_str());
        };
        for (std::size_t i = 0; i < c.text.size();)
        {
            const auto lead = static_cast<unsigned char>(c.text[i]);
            const std::size_t n = std::min<std::size_t>(lead >= 0xF0   ? 4
                                                        : lead >= 0xE0 ? 3
                                                        : lead >= 0xC0 ? 2
                                                                       : 1,
                                                        c.text.size() - i);
            const int face = face_for(c.text.substr(i, n));
            if (face != run_face)
            {
                show_run(i);
                run_start = i;
                run_face = face;
            }
            i += n;
        }
        show_run(c.text.size());
    }

private:
    static constexpr double kProbeSize = 1000.0;
    struct Face
    {
        cairo_font_face_t* face = nullptr;
        cairo_scaled_font_t* probe = nullptr; // at kProbeSize: asked which characters it has, and its metrics
        double em_per_px = 1.0;               // the em of a label whose ascent to descent is 1
    };

    // A face from a font file; "" (DejaVu Sans not found): the one fontconfig finds by its name.
    void add(const std::string& path)
    {
        cairo_font_face_t* face = nullptr;
        if (path.empty())
        {
            if (!faces_.empty())
                return;
            face =
                cairo_toy_font_face_create("DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
        }
        else
        {
            FcPattern* pattern = FcPatternCreate();
            FcPatternAddString(pattern, FC_FILE, reinterpret_cast<const FcChar8*>(path.c_str()));
            FcPatternAddInteger(pattern, FC_INDEX, 0);
            face = cairo_ft_font_face_create_for_pattern(pattern);
            FcPatternDestroy(pattern);
        }
        // Metrics unhinted (hinted, they are rounded to whole units of the size).
        cairo_matrix_t size, identity;
        cairo_matrix_init_scale(&size, kProbeSize, kProbeSize);
        cairo_matrix_init_identity(&identity);
        cairo_font_options_t* options = cairo_font_options_create();
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);
        cairo_scaled_font_t* probe = cairo_scaled_font_create(face, &size, &identity, options);
        cairo_font_options_destroy(options);
        cairo_font_extents_t e{};
        cairo_scaled_font_extents(probe, &e);
        if (cairo_font_face_status(face) != CAIRO_STATUS_SUCCESS ||
            cairo_scaled_font_status(probe) != CAIRO_STATUS_SUCCESS || !(e.ascent + e.descent > 0.0))
        {
            cairo_scaled_font_destroy(probe);
            cairo_font_face_destroy(face);
            return;
        }
        faces_.push_back({face, probe, kProbeSize / (e.ascent + e.descent)});
    }

    // The face for one character (UTF-8): DejaVu Sans for ASCII, else the first that has a glyph for it (none
    // has: DejaVu Sans, whose box says so).
    int face_for(const std::string& character) const
    {
        if (faces_.size() < 2 || static_cast<unsigned char>(character[0]) < 0x80)
            return 0;
        for (std::size_t k = 0; k < faces_.size(); ++k)
        {
            cairo_glyph_t* glyphs = nullptr;
            int count = 0;
            const cairo_status_t s = cairo_scaled_font_text_to_glyphs(
                faces_[k].probe, 0.0, 0.0, character.data(), static_cast<int>(character.size()), &glyphs,
                &count, nullptr, nullptr, nullptr);
            const bool has = s == CAIRO_STATUS_SUCCESS && count == 1 && glyphs[0].index != 0;
            cairo_glyph_free(glyphs);
            if (has)
                return static_cast<int>(k);
        }
        return 0;
    }

    std::vector<Face> faces_; // [0] DejaVu Sans
};

void set_color(cairo_t* cr, Color32 c, bool with_alpha)
{
    const double r = red_of(c) / 255.0, g = green_of(c) / 255.0, b = blue_of(c) / 255.0;
    if (with_alpha)
        cairo_set_source_rgba(cr, r, g, b, alpha_of(c));
    else
        cairo_set_source_rgb(cr, r, g, b);
}

void cairo_command(cairo_t* cr, const DrawCommand& c, const PdfFonts& fonts)
{
    switch (c.kind)
    {
    case DrawKind::Rect:
        set_color(cr, c.color, false);
        cairo_rectangle(cr, c.x0, c.y0, c.x1 - c.x0, c.y1 - c.y0);
        cairo_fill(cr);
        break;
    case DrawKind::Hatch:
        set_color(cr, kNegInfColor, false);
        cairo_rectangle(cr, c.x0, c.y0, c.x1 - c.x0, c.y1 - c.y0);
        cairo_fill(cr);
        cairo_save(cr);
        cairo_rectangle(cr, c.x0, c.y0, c.x1 - c.x0, c.y1 - c.y0);
        cairo_clip(cr);
        set_color(cr, kNegInfStripe, false);
        for (const auto& quad : hatch_stripes(c.x0, c.y0, c.x1, c.y1))
        {
            cairo_move_to(cr, quad[0].first, quad[0].second);
            for (int k = 1; k < 4; ++k)
                cairo_line_to(cr, quad[static_cast<std::size_t>(k)].first,
                              quad[static_cast<std::size_t>(k)].second);
            cairo_close_path(cr);
        }
        cairo_fill(cr);
        cairo_restore(cr);
        break;
    case DrawKind::Text:
        set_color(cr, c.color, false);
        cairo_save(cr);
        cairo_translate(cr, c.x0, c.y0);
        if (c.rotated)
            cairo_rotate(cr, -M_PI / 2.0);
        cairo_move_to(cr, 0.0, 0.0);
        fonts.show_text(cr, c);
        cairo_restore(cr);
        break;
    case DrawKind::Polyline:
        set_color(cr, c.color, true);
        if (c.points.size() == 1)
        {
            cairo_arc(cr, c.points[0].first, c.points[0].second, c.size * 0.5, 0.0, 2.0 * M_PI);
            cairo_fill(cr);
            break;
        }
        cairo_set_line_width(cr, c.size);
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        cairo_move_to(cr, c.points[0].first, c.points[0].second);
        for (std::size_t k = 1; k < c.points.size(); ++k)
            cairo_line_to(cr, c.points[k].first, c.points[k].second);
        cairo_stroke(cr);
        break;
    }
}

cairo_status_t append_to_string(void* closure, const unsigned char* data, unsigned int length)
{
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
}

} // namespace

std::string svg_document(const Image& image)
{
    std::string defs, body;
    HatchPatterns hatches;
    for (const DrawCommand& c : image.commands)
        switch (c.kind)
        {
        case DrawKind::Rect:
            svg_rect(body, c, hex_color(c.color));
            break;
        case DrawKind::Hatch:
        {
            const std::string id = hatches.id_for(c, defs);
            svg_rect(body, c, id.empty() ? hex_color(kNegInfColor) : "url(#" + id + ")");
            break;
        }
        case DrawKind::Text:
            svg_text(body, c);
            break;
        case DrawKind::Polyline:
            svg_polyline(body, c);
            break;
        }
    const std::string w = std::to_string(image.width), h = std::to_string(image.height);
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" +
                      w + "\" height=\"" + h + "\" viewBox=\"0 0 " + w + " " + h + "\">\n";
    if (!defs.empty())
        out += "<defs>\n" + defs + "</defs>\n";
    // Cells meet edge to edge: crisp edges keep the renderer from drawing seams between them.
    out += "<g shape-rendering=\"crispEdges\" font-family=\"" + xml_escaped(kSvgFontFamily) + "\">\n";
    out += body;
    out += "</g>\n</svg>\n";
    return out;
}

Status write_svg(const Image& image, const std::string& path)
{
    if (image.width <= 0 || image.height <= 0)
        return Status::error("nothing to export: the matrix is empty");
    return write_file_atomically(path, svg_document(image));
}

Status write_pdf(const std::vector<const Image*>& pages, const std::string& path)
{
    if (pages.empty() || pages.front()->width <= 0 || pages.front()->height <= 0)
        return Status::error("nothing to export: the picture is empty");
    constexpr double kPointsPerPixel = 0.5;
    std::string bytes;
    cairo_surface_t* surface =
        cairo_pdf_surface_create_for_stream(append_to_string, &bytes, pages.front()->width * kPointsPerPixel,
                                            pages.front()->height * kPointsPerPixel);
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "Attention Lab");
    const PdfFonts fonts;
    for (const Image* page : pages)
    {
        cairo_pdf_surface_set_size(surface, page->width * kPointsPerPixel, page->height * kPointsPerPixel);
        cairo_t* cr = cairo_create(surface);
        cairo_scale(cr, kPointsPerPixel, kPointsPerPixel);
        for (const DrawCommand& c : page->commands)
            cairo_command(cr, c, fonts);
        cairo_show_page(cr);
        cairo_destroy(cr);
    }
    cairo_surface_finish(surface);
    const cairo_status_t status = cairo_surface_status(surface);
    cairo_surface_destroy(surface);
    if (status != CAIRO_STATUS_SUCCESS)
        return Status::error("could not make the PDF for " + path + ": " + cairo_status_to_string(status));
    return write_file_atomically(path, bytes);
}

Status write_picture(const Image& image, const std::string& path, PictureFormat format)
{
    switch (format)
    {
    case PictureFormat::Svg:
        return write_svg(image, path);
    case PictureFormat::Pdf:
        return write_pdf({&image}, path);
    case PictureFormat::Png:
        break;
    }
    return write_png(image, path);
}

} // namespace attnlab
