// Small ImGui helpers shared by the panels: std::string text fields, tooltips, head colours.
#include "ui/widgets.h"

#include <imgui.h>

#include <array>

namespace attnlab
{

namespace
{

int resize_callback(ImGuiInputTextCallbackData* data)
{
    if (data->EventFlag == ImGuiInputTextFlags_CallbackResize)
    {
        auto* text = static_cast<std::string*>(data->UserData);
        text->resize(static_cast<std::size_t>(data->BufTextLen));
        data->Buf = text->data();
    }
    return 0;
}

} // namespace

bool input_text_multiline(const char* label, std::string* text, float width, float height)
{
    return ImGui::InputTextMultiline(label, text->data(), text->capacity() + 1, ImVec2(width, height),
                                     ImGuiInputTextFlags_CallbackResize, resize_callback, text);
}

bool input_text(const char* label, std::string* text, bool enter_returns_true)
{
    ImGuiInputTextFlags flags = ImGuiInputTextFlags_CallbackResize;
    if (enter_returns_true)
        flags |= ImGuiInputTextFlags_EnterReturnsTrue;
    return ImGui::InputText(label, text->data(), text->capacity() + 1, flags, resize_callback, text);
}

void item_tooltip(const char* text)
{
    if (ImGui::IsItemHovered())
    {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
        ImGui::TextUnformatted(text);
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
}

Color32 head_color(int j)
{
    // Okabe & Ito (2008): orange, sky blue, bluish green, yellow, blue, vermillion, reddish purple, grey.
    static constexpr std::array<Color32, 8> kPalette = {
        pack_rgba(230, 159, 0), pack_rgba(86, 180, 233), pack_rgba(0, 158, 115),   pack_rgba(240, 228, 66),
        pack_rgba(0, 114, 178), pack_rgba(213, 94, 0),   pack_rgba(204, 121, 167), pack_rgba(170, 170, 170),
    };
    return kPalette[static_cast<std::size_t>(((j % 8) + 8) % 8)];
}

ImVec4 head_text_color(int j)
{
    ImVec4 c = ImGui::ColorConvertU32ToFloat4(head_color(j));
    const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    if (bg.x + bg.y + bg.z >= 1.5f)
        c = ImVec4(c.x * 0.55f, c.y * 0.55f, c.z * 0.55f, 1.0f);
    return c;
}

ImVec4 error_color()
{
    // A light red on dark backgrounds, a dark red on light ones.
    const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    const bool dark = bg.x + bg.y + bg.z < 1.5f;
    return dark ? ImVec4(1.0f, 0.45f, 0.38f, 1.0f) : ImVec4(0.72f, 0.05f, 0.0f, 1.0f);
}

void error_text(const std::string& text)
{
    ImGui::PushStyleColor(ImGuiCol_Text, error_color());
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

} // namespace attnlab
