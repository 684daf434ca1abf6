// Headless ImGui for UI tests: a context with a built font atlas, a stub texture provider and frame helpers.
#pragma once

#include "ui/model/app_state.h"
#include "ui/picture/texture_provider.h"

#include <imgui.h>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace attnlab::test
{

// True when needle occurs in haystack (a panel's text says something).
inline bool contains(const std::string& haystack, const std::string& needle)
{
    return haystack.find(needle) != std::string::npos;
}

// Hands out ids 1, 2, 3, ... and keeps the last pixels of each texture, so tests can look at colours.
class StubTextureProvider final : public TextureProvider
{
public:
    struct Texture
    {
        int w = 0, h = 0;
        std::vector<std::uint32_t> pixels;
    };
    TextureHandle create_texture(int w, int h, const std::uint32_t* rgba) override
    {
        const TextureHandle id = next_++;
        store(id, w, h, rgba);
        ++creates;
        return id;
    }
    void update_texture(TextureHandle id, int w, int h, const std::uint32_t* rgba) override
    {
        store(id, w, h, rgba);
        ++updates;
    }
    void destroy_texture(TextureHandle id) override
    {
        textures.erase(id);
        ++destroys;
    }
    std::map<TextureHandle, Texture> textures;
    int creates = 0, updates = 0, destroys = 0;

private:
    void store(TextureHandle id, int w, int h, const std::uint32_t* rgba)
    {
        Texture& t = textures[id];
        t.w = w;
        t.h = h;
        t.pixels.assign(rgba, rgba + static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
    }
    TextureHandle next_ = 1;
};

// What one frame drew.
struct FrameOutput
{
    std::string text; // every glyph drawn, read back from the draw data (see decode_text)
    int vertices = 0, indices = 0, commands = 0;
    std::set<TextureHandle> textures; // texture ids used by draw commands (the font atlas excluded)
    // The screen rectangle of each textured quad, by texture id (heatmaps draw one quad per texture).
    std::map<TextureHandle, ImVec4> texture_rects;
    // The texture coordinates of that quad (u0, v0, u1, v1): a part of a texture shows a part of a matrix.
    std::map<TextureHandle, ImVec4> texture_uvs;
    // Where the vertices of shapes and text (everything but heatmap textures) are, by colour.
    std::map<ImU32, std::vector<ImVec2>> shape_points;
};

class HeadlessUi
{
public:
    explicit HeadlessUi(float width = 1600.0f, float height = 1000.0f);
    ~HeadlessUi();
    HeadlessUi(const HeadlessUi&) = delete;
    HeadlessUi& operator=(const HeadlessUi&) = delete;

    // One frame: state.update(), NewFrame, begin_frame, draw (default: the whole app), Render.
    FrameOutput frame(AppState& state, const std::function<void(AppState&)>& draw = nullptr);
    // Runs n frames and returns the last one's output.
    FrameOutput frames(AppState& state, int n, const std::function<void(AppState&)>& draw = nullptr);

    // The display size from the next frame on (a window resized).
    void resize(float width, float height);
    // Mouse for the next frames (button: 0 left, 1 right).
    void mouse(float x, float y, bool down = false, int button = 0);
    // Presses at (x0, y0), moves to (x1, y1) over a few frames, releases (a window dragged by its title bar).
    FrameOutput drag(AppState& state, float x0, float y0, float x1, float y1);
    // Moves there, presses, releases (3 frames of `draw`, default the whole app); returns the last frame.
    FrameOutput click(AppState& state, float x, float y, const std::function<void(AppState&)>& draw = nullptr,
                      int button = 0);
    // Holds a key down for one frame (a KeysDown index), with modifiers.
    FrameOutput press_key(AppState& state, int key, bool ctrl = false, bool alt = false,
                          const std::function<void(AppState&)>& draw = nullptr);

    StubTextureProvider textures;

private:
    ImGuiContext* context_ = nullptr;
};

// The index of the lesson with this id in the state's library (-1: none).
int lesson_index(const AppState& state, const std::string& id);

// A panel inside its own full-size window, as the app draws it.
std::function<void(AppState&)> panel_only(void (*panel)(AppState&));

// The centre of a texture's quad in the last frame.
ImVec2 rect_center(const ImVec4& r);

// The text the window named `name` drew last frame in its own draw list (its child windows not included),
// read back as FrameOutput::text is: a line of text a line; "" when there is no such window.
std::string window_text(const char* name);

// Where `needle` (ASCII; spaces ignored) starts on screen last frame (its first glyph's top-left corner),
// found in the glyphs drawn one after another; (-1, -1) when it was not drawn.
ImVec2 text_position(const std::string& needle);

} // namespace attnlab::test
