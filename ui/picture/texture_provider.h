// The only thing the UI needs from the GPU: make, refill and free an RGBA8 texture. GL implements it in
// ui/gl/, the tests use a stub, so attnlab_ui never includes GL.
#pragma once

#include <cstdint>

namespace attnlab
{

using TextureHandle = std::uintptr_t; // 0 = none; otherwise the value ImGui receives as ImTextureID

class TextureProvider
{
public:
    virtual ~TextureProvider() = default;
    // A new texture of w x h texels, nearest filtering, filled with rgba (R in the low byte, top row first).
    virtual TextureHandle create_texture(int w, int h, const std::uint32_t* rgba) = 0;
    // Refills a texture; w and h may differ from its current size.
    virtual void update_texture(TextureHandle texture, int w, int h, const std::uint32_t* rgba) = 0;
    virtual void destroy_texture(TextureHandle texture) = 0;
};

} // namespace attnlab
