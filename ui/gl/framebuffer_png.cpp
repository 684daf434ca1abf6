// Reads the current framebuffer (before the swap) and writes it as a PNG.
#include "ui/gl/framebuffer_png.h"

#include "ui/picture/export.h"

#include <glad/gl.h>

#include <vector>

namespace attnlab
{

Status write_framebuffer_png(int width, int height, const std::string& path)
{
    if (width <= 0 || height <= 0)
        return Status::error("the window has no pixels to save");
    std::vector<std::uint8_t> rgb(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, rgb.data());
    return write_rgb_png_bottom_up(rgb.data(), width, height, path);
}

} // namespace attnlab
