// TextureProvider for OpenGL 3.3: RGBA8 textures with nearest filtering (the only GL in the UI).
#include "ui/gl/gl_textures.h"

#include <glad/gl.h>

namespace attnlab
{

namespace
{

void upload(GLuint id, int w, int h, const std::uint32_t* rgba)
{
    GLint previous = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous);
    glBindTexture(GL_TEXTURE_2D, id);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous));
}

} // namespace

TextureHandle GlTextureProvider::create_texture(int w, int h, const std::uint32_t* rgba)
{
    GLuint id = 0;
    glGenTextures(1, &id);
    GLint previous = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous);
    glBindTexture(GL_TEXTURE_2D, id);
    // Nearest: one cell is one block of texels, never blurred into its neighbours.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous));
    upload(id, w, h, rgba);
    ++live_;
    return static_cast<TextureHandle>(id);
}

void GlTextureProvider::update_texture(TextureHandle texture, int w, int h, const std::uint32_t* rgba)
{
    upload(static_cast<GLuint>(texture), w, h, rgba);
}

void GlTextureProvider::destroy_texture(TextureHandle texture)
{
    const auto id = static_cast<GLuint>(texture);
    glDeleteTextures(1, &id);
    if (live_ > 0)
        --live_;
}

} // namespace attnlab
