// Dark and light themes tuned for a projector: high contrast text, clear frames, larger rounding.
#include "ui/shell/theme.h"

#include <imgui.h>

namespace attnlab
{

void apply_theme(bool dark, float scale)
{
    ImGuiStyle style;
    if (dark)
    {
        ImGui::StyleColorsDark(&style);
        ImVec4* c = style.Colors;
        c[ImGuiCol_WindowBg] = ImVec4(0.10f, 0.105f, 0.12f, 1.0f);
        c[ImGuiCol_ChildBg] = ImVec4(0.10f, 0.105f, 0.12f, 0.0f);
        c[ImGuiCol_TitleBg] = ImVec4(0.14f, 0.16f, 0.20f, 1.0f);
        c[ImGuiCol_TitleBgActive] = ImVec4(0.18f, 0.26f, 0.38f, 1.0f);
        c[ImGuiCol_Text] = ImVec4(0.95f, 0.95f, 0.96f, 1.0f);
        c[ImGuiCol_TextDisabled] = ImVec4(0.62f, 0.64f, 0.68f, 1.0f);
        c[ImGuiCol_PlotHistogram] = ImVec4(1.0f, 0.78f, 0.25f, 1.0f); // accent: the current step
    }
    else
    {
        ImGui::StyleColorsLight(&style);
        ImVec4* c = style.Colors;
        c[ImGuiCol_WindowBg] = ImVec4(0.98f, 0.98f, 0.98f, 1.0f);
        c[ImGuiCol_Text] = ImVec4(0.05f, 0.05f, 0.07f, 1.0f);
        c[ImGuiCol_TextDisabled] = ImVec4(0.36f, 0.37f, 0.40f, 1.0f);
        c[ImGuiCol_PlotHistogram] = ImVec4(0.75f, 0.35f, 0.0f, 1.0f);
        style.FrameBorderSize = 1.0f;
    }
    style.WindowRounding = 4.0f;
    style.FrameRounding = 3.0f;
    style.GrabRounding = 3.0f;
    style.WindowPadding = ImVec2(10.0f, 8.0f);
    style.ItemSpacing = ImVec2(8.0f, 5.0f);
    style.ScrollbarSize = 16.0f;
    style.ScaleAllSizes(scale);
    ImGui::GetStyle() = style;
}

void apply_presenter_theme(bool dark, float scale)
{
    ImGuiStyle style;
    ImVec4* c = style.Colors;
    if (dark)
    {
        ImGui::StyleColorsDark(&style);
        c[ImGuiCol_WindowBg] = ImVec4(0.0f, 0.0f, 0.0f, 1.0f);
        c[ImGuiCol_ChildBg] = ImVec4(0.0f, 0.0f, 0.0f, 0.0f);
        c[ImGuiCol_PopupBg] = ImVec4(0.05f, 0.05f, 0.05f, 1.0f);
        c[ImGuiCol_Text] = ImVec4(1.0f, 1.0f, 1.0f, 1.0f);
        c[ImGuiCol_TextDisabled] = ImVec4(0.80f, 0.80f, 0.82f, 1.0f);
        c[ImGuiCol_Border] = ImVec4(0.75f, 0.75f, 0.75f, 1.0f);
        c[ImGuiCol_Separator] = ImVec4(0.75f, 0.75f, 0.75f, 1.0f);
        c[ImGuiCol_FrameBg] = ImVec4(0.16f, 0.16f, 0.18f, 1.0f);
        c[ImGuiCol_Header] = ImVec4(0.20f, 0.20f, 0.24f, 1.0f);
        c[ImGuiCol_PlotHistogram] = ImVec4(1.0f, 0.86f, 0.20f, 1.0f); // accent: titles and the current step
    }
    else
    {
        // A projector in a bright room washes out pale colours: black text, a dark secondary text and an
        // accent dark enough to read on white.
        ImGui::StyleColorsLight(&style);
        c[ImGuiCol_WindowBg] = ImVec4(0.93f, 0.93f, 0.94f, 1.0f);
        c[ImGuiCol_ChildBg] = ImVec4(1.0f, 1.0f, 1.0f, 0.0f);
        c[ImGuiCol_PopupBg] = ImVec4(1.0f, 1.0f, 1.0f, 1.0f);
        c[ImGuiCol_Text] = ImVec4(0.0f, 0.0f, 0.0f, 1.0f);
        c[ImGuiCol_TextDisabled] = ImVec4(0.22f, 0.22f, 0.25f, 1.0f);
        c[ImGuiCol_Border] = ImVec4(0.30f, 0.30f, 0.32f, 1.0f);
        c[ImGuiCol_Separator] = ImVec4(0.30f, 0.30f, 0.32f, 1.0f);
        c[ImGuiCol_FrameBg] = ImVec4(0.86f, 0.86f, 0.88f, 1.0f);
        c[ImGuiCol_Header] = ImVec4(0.80f, 0.80f, 0.84f, 1.0f);
        c[ImGuiCol_PlotHistogram] = ImVec4(0.70f, 0.25f, 0.0f, 1.0f);
    }
    style.WindowRounding = 0.0f;
    style.FrameRounding = 0.0f;
    style.WindowBorderSize = 0.0f;
    style.FrameBorderSize = 1.0f;
    style.WindowPadding = ImVec2(16.0f, 10.0f);
    style.ItemSpacing = ImVec2(10.0f, 6.0f);
    style.ScrollbarSize = 18.0f;
    style.ScaleAllSizes(scale);
    ImGui::GetStyle() = style;
}

void presenter_view_background(bool dark, float rgba[4])
{
    const float shade = dark ? 0.04f : 1.0f;
    rgba[0] = shade;
    rgba[1] = shade;
    rgba[2] = dark ? 0.05f : 1.0f;
    rgba[3] = 1.0f;
}

} // namespace attnlab
