// Headless ImGui for UI tests: a context with a built font atlas, a stub texture provider and frame helpers.
#include "ui_test_support.h"

#include "ui/shell/app_ui.h"
#include "ui/shell/fonts.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace attnlab::test
{

namespace
{

void append_utf8(std::string& out, unsigned int cp)
{
    if (cp < 0x80)
        out += static_cast<char>(cp);
    else if (cp < 0x800)
    {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    else
    {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

// Reads the text back from the draw data: every glyph quad is found by its texture coordinates in the font
// atlas. Spaces are not drawn, so a gap wider than a third of the font size becomes one; a new line starts
// when the baseline moves. This sees every piece of text, including labels drawn straight into draw lists.
std::string decode_text(const ImDrawData* dd)
{
    // Every font of the atlas (the text font, and presenter mode's caption font when loaded).
    std::map<std::pair<float, float>, std::pair<const ImFontGlyph*, const ImFont*>> by_uv;
    for (const ImFont* font : ImGui::GetIO().Fonts->Fonts)
        for (const ImFontGlyph& g : font->Glyphs)
            if (g.Visible)
                by_uv[{g.U0, g.V0}] = {&g, font};
    std::string out;
    for (int l = 0; l < dd->CmdListsCount; ++l)
    {
        const ImDrawList* list = dd->CmdLists[l];
        float pen_end = -1e9f, last_y = -1e9f;
        for (int i = 0; i + 2 < list->VtxBuffer.Size; ++i)
        {
            const ImDrawVert& a = list->VtxBuffer[i];
            const auto it = by_uv.find({a.uv.x, a.uv.y});
            if (it == by_uv.end())
                continue;
            const ImFontGlyph& g = *it->second.first;
            const float space = it->second.second->FindGlyph(' ')->AdvanceX;
            const ImDrawVert& c = list->VtxBuffer[i + 2];
            if (c.uv.x != g.U1 || c.uv.y != g.V1)
                continue;
            // Text drawn at another size than the atlas's (labels shrunk to small cells): the glyph's scale
            // from its quad's width, when the quad is upright (rotated text keeps 1: a glyph a line).
            const ImDrawVert& b = list->VtxBuffer[i + 1];
            const float s = std::fabs(b.pos.y - a.pos.y) < 0.01f && g.X1 > g.X0
                                ? (c.pos.x - a.pos.x) / (g.X1 - g.X0)
                                : 1.0f;
            // The pen position before this glyph, and where the previous glyph left it.
            const float pen = a.pos.x - g.X0 * s;
            const float baseline = a.pos.y - g.Y0 * s;
            if (std::fabs(baseline - last_y) > 2.0f)
                out += '\n';
            else if (std::fabs(pen - pen_end) > space * s * 0.5f)
                out += ' ';
            append_utf8(out, g.Codepoint);
            pen_end = pen + g.AdvanceX * s;
            last_y = baseline;
            i += 3;
        }
        out += '\n';
    }
    return out;
}

} // namespace

std::string window_text(const char* name)
{
    const ImGuiWindow* window = ImGui::FindWindowByName(name);
    if (window == nullptr)
        return std::string();
    ImDrawList* list = window->DrawList;
    ImDrawData dd;
    dd.CmdLists = &list;
    dd.CmdListsCount = 1;
    return decode_text(&dd);
}

HeadlessUi::HeadlessUi(float width, float height)
{
    IMGUI_CHECKVERSION();
    context_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.LogFilename = nullptr;
    io.DisplaySize = ImVec2(width, height);
    io.DeltaTime = 1.0f / 60.0f;
    io.KeyMap[ImGuiKey_Escape] = 256; // as GLFW_KEY_ESCAPE
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    load_fonts(15.0f, nullptr); // the app's font with the maths glyphs (ImGui's default when missing)
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(static_cast<std::uintptr_t>(0xF0F0)));
}

HeadlessUi::~HeadlessUi()
{
    ImGui::DestroyContext(context_);
}

FrameOutput HeadlessUi::frame(AppState& state, const std::function<void(AppState&)>& draw)
{
    if (state.heatmaps.provider() != &textures)
        state.heatmaps.set_provider(&textures);
    state.update();
    ImGui::NewFrame();
    state.begin_frame();
    if (draw)
        draw(state);
    else
        draw_app(state);
    ImGui::Render();
    state.heatmaps.end_frame();

    FrameOutput out;
    const ImDrawData* dd = ImGui::GetDrawData();
    out.text = decode_text(dd);
    out.vertices = dd->TotalVtxCount;
    out.indices = dd->TotalIdxCount;
    const auto font = reinterpret_cast<ImTextureID>(static_cast<std::uintptr_t>(0xF0F0));
    for (int l = 0; l < dd->CmdListsCount; ++l)
    {
        const ImDrawList* list = dd->CmdLists[l];
        out.commands += list->CmdBuffer.Size;
        for (const ImDrawCmd& cmd : list->CmdBuffer)
        {
            if (cmd.ElemCount > 0 && cmd.TextureId == font && cmd.UserCallback == nullptr)
            {
                for (unsigned int e = 0; e < cmd.ElemCount; ++e)
                {
                    const ImDrawVert& v = list->VtxBuffer[static_cast<int>(
                        cmd.VtxOffset + list->IdxBuffer[static_cast<int>(cmd.IdxOffset + e)])];
                    out.shape_points[v.col].push_back(v.pos);
                }
            }
            if (cmd.ElemCount == 0 || cmd.TextureId == font || cmd.UserCallback != nullptr)
                continue;
            const auto id = reinterpret_cast<TextureHandle>(cmd.TextureId);
            out.textures.insert(id);
            // The quad's bounds from its vertices.
            ImVec4 r(1e9f, 1e9f, -1e9f, -1e9f);
            ImVec4 uv(1e9f, 1e9f, -1e9f, -1e9f);
            for (unsigned int e = 0; e < cmd.ElemCount; ++e)
            {
                const ImDrawVert& v = list->VtxBuffer[static_cast<int>(
                    cmd.VtxOffset + list->IdxBuffer[static_cast<int>(cmd.IdxOffset + e)])];
                r.x = std::min(r.x, v.pos.x);
                r.y = std::min(r.y, v.pos.y);
                r.z = std::max(r.z, v.pos.x);
                r.w = std::max(r.w, v.pos.y);
                uv.x = std::min(uv.x, v.uv.x);
                uv.y = std::min(uv.y, v.uv.y);
                uv.z = std::max(uv.z, v.uv.x);
                uv.w = std::max(uv.w, v.uv.y);
            }
            out.texture_rects[id] = r;
            out.texture_uvs[id] = uv;
        }
    }
    return out;
}

FrameOutput HeadlessUi::frames(AppState& state, int n, const std::function<void(AppState&)>& draw)
{
    FrameOutput out;
    for (int i = 0; i < n; ++i)
        out = frame(state, draw);
    return out;
}

void HeadlessUi::resize(float width, float height)
{
    ImGui::GetIO().DisplaySize = ImVec2(width, height);
}

FrameOutput HeadlessUi::drag(AppState& state, float x0, float y0, float x1, float y1)
{
    mouse(x0, y0, false);
    frame(state);
    mouse(x0, y0, true);
    frame(state);
    for (int k = 1; k <= 4; ++k)
    {
        mouse(x0 + (x1 - x0) * static_cast<float>(k) / 4.0f, y0 + (y1 - y0) * static_cast<float>(k) / 4.0f,
              true);
        frame(state);
    }
    mouse(x1, y1, false);
    return frame(state);
}

void HeadlessUi::mouse(float x, float y, bool down, int button)
{
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(x, y);
    io.MouseDown[0] = false;
    io.MouseDown[1] = false;
    io.MouseDown[button] = down;
}

FrameOutput HeadlessUi::click(AppState& state, float x, float y, const std::function<void(AppState&)>& draw,
                              int button)
{
    mouse(x, y, false, button);
    frame(state, draw);
    mouse(x, y, true, button);
    frame(state, draw);
    mouse(x, y, false, button);
    return frame(state, draw);
}

FrameOutput HeadlessUi::press_key(AppState& state, int key, bool ctrl, bool alt,
                                  const std::function<void(AppState&)>& draw)
{
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = ctrl;
    io.KeyAlt = alt;
    io.KeysDown[key] = true;
    FrameOutput out = frame(state, draw);
    io.KeysDown[key] = false;
    io.KeyCtrl = false;
    io.KeyAlt = false;
    frame(state, draw);
    return out;
}

std::function<void(AppState&)> panel_only(void (*panel)(AppState&))
{
    return [panel](AppState& state)
    {
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
        if (ImGui::Begin("panel", nullptr, ImGuiWindowFlags_NoSavedSettings))
            panel(state);
        ImGui::End();
    };
}

ImVec2 rect_center(const ImVec4& r)
{
    return ImVec2((r.x + r.z) * 0.5f, (r.y + r.w) * 0.5f);
}

int lesson_index(const AppState& state, const std::string& id)
{
    const std::vector<Lesson>& lessons = state.lesson.library.lessons;
    for (std::size_t i = 0; i < lessons.size(); ++i)
        if (lessons[i].id == id)
            return static_cast<int>(i);
    return -1;
}

ImVec2 text_position(const std::string& needle)
{
    const ImFont* font = ImGui::GetIO().Fonts->Fonts[0];
    const ImDrawData* dd = ImGui::GetDrawData();
    for (int l = 0; dd != nullptr && l < dd->CmdListsCount; ++l)
    {
        const ImDrawList* list = dd->CmdLists[l];
        std::string text;
        std::vector<ImVec2> at;
        for (int i = 0; i + 2 < list->VtxBuffer.Size; ++i)
        {
            const ImDrawVert& a = list->VtxBuffer[i];
            const ImDrawVert& b = list->VtxBuffer[i + 2];
            for (const ImFontGlyph& g : font->Glyphs)
                if (g.Codepoint < 128 && g.Visible && a.uv.x == g.U0 && a.uv.y == g.V0 && b.uv.x == g.U1 &&
                    b.uv.y == g.V1)
                {
                    text += static_cast<char>(g.Codepoint);
                    at.push_back(a.pos);
                    i += 3;
                    break;
                }
        }
        const std::string squeezed_needle = [&]
        {
            std::string n = needle;
            n.erase(std::remove(n.begin(), n.end(), ' '), n.end());
            return n;
        }();
        if (const std::size_t k = text.find(squeezed_needle); k != std::string::npos)
            return at[k];
    }
    return ImVec2(-1.0f, -1.0f);
}

} // namespace attnlab::test
