// The vector back ends of the CPU pictures: an Image's drawing commands (ui/picture/raster.h) written as SVG
// (text as <text> elements) or as PDF pages through cairo (text as text), so the PNG, the SVG and the PDF of
// one export come from the same layout.
#pragma once

#include "core/status.h"
#include "ui/picture/raster.h"

#include <string>
#include <vector>

namespace attnlab
{

// A picture file's format.
enum class PictureFormat
{
    Png,
    Svg,
    Pdf,
};

// "png", "svg", "pdf".
const char* picture_format_name(PictureFormat format);
// Reads "png", "svg" or "pdf"; false for anything else.
bool parse_picture_format(const std::string& name, PictureFormat* format);
// The format a file name asks for by its extension (.svg, .pdf; anything else: PNG).
PictureFormat picture_format_of_path(const std::string& path);

// The fonts the SVG's text asks for, the app's first: DejaVu Sans, then the fallbacks the pictures use for
// characters it lacks (ui/picture/font_file.h), then any sans-serif.
extern const char* const kSvgFontFamily;

// The picture's commands as an SVG document of image.width x image.height pixels.
std::string svg_document(const Image& image);
// Writes svg_document(image) through a temporary file; the error names the path and the reason.
Status write_svg(const Image& image, const std::string& path);
// Writes one PDF page per picture (each of its own size, at 0.5 pt a pixel: a 1920x1080 slide is a
// 13.33 x 7.5 inch page, a presentation program's 16:9 slide), through a temporary file.
Status write_pdf(const std::vector<const Image*>& pages, const std::string& path);
// Writes the picture in the format asked for (PNG: its pixels; SVG and PDF: its commands).
Status write_picture(const Image& image, const std::string& path, PictureFormat format);

} // namespace attnlab
