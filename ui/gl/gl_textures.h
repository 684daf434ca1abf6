// TextureProvider for OpenGL 3.3: RGBA8 textures with nearest filtering (the only GL in the UI).
#pragma once

#include "ui/picture/texture_provider.h"

#include <cstddef>

namespace attnlab
{

class GlTextureProvider final : public TextureProvider
{
public:
    TextureHandle create_texture(int w, int h, const std::uint32_t* rgba) override;
    void update_texture(TextureHandle texture, int w, int h, const std::uint32_t* rgba) override;
    void destroy_texture(TextureHandle texture) override;
    std::size_t live_textures() const { return live_; }

private:
    std::size_t live_ = 0;
};

} // namespace attnlab
