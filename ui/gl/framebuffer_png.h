// Reads the current framebuffer (before the swap) and writes it as a PNG.
#pragma once

#include "core/status.h"

#include <string>

namespace attnlab
{

// glReadPixels of the back buffer (width x height, RGB) encoded with stb_image_write.
Status write_framebuffer_png(int width, int height, const std::string& path);

} // namespace attnlab
