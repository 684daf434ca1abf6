// Dark and light themes tuned for a projector: high contrast text, clear frames, larger rounding.
#include "ui/shell/theme.h"

#include <imgui.h>

#include <initializer_list>

namespace attnlab
{

namespace
{

// A colour slot a theme sets on top of ImGui's dark or light colours: its dark and its light value (kKeep:
// ImGui's).
struct ThemeColor
{
    ImGuiCol slot;
    ImVec4 dark, light;
};
const ImVec4 kKeep(-1.0f, -1.0f, -1.0f, -1.0f);

// A size a theme sets (before scaling), and a spacing; the others keep ImGui's defaults.
struct ThemeSize
{
    float ImGuiStyle::*member;
    float value;
};
struct ThemeSpacing
{
    ImVec2 ImGuiStyle::*member;
    ImVec2 value;
};

// Makes ImGui's dark or light colours with the theme's on top, with `sizes` and `spacings` scaled by `scale`,
// the current style.
void install_theme(bool dark, std::initializer_list<ThemeColor> colors,
                   std::initializer_list<ThemeSize> sizes, std::initializer_list<ThemeSpacing> spacings,
                   float scale)
{
    ImGuiStyle style;
    if (dark)
        ImGui::StyleColorsDark(&style);
    else
        ImGui::StyleColorsLight(&style);
    for (const ThemeColor& c : colors)
    {
        const ImVec4& value = dark ? c.dark : c.light;
        if (value.w >= 0.0f)
            style.Colors[c.slot] = value;
    }
    for (const ThemeSize& size : sizes)
        style.*size.member = size.value;
    for (const ThemeSpacing& spacing : spacings)
        style.*spacing.member = spacing.value;
    style.ScaleAllSizes(scale);
    ImGui::GetStyle() = style;
}

} // namespace

void apply_theme(bool dark, float scale)
{
    // The light theme frames its widgets (ImGui's default frame border is 0): on a pale background they would
    // not stand out.
    install_theme(
        dark,
        {{ImGuiCol_WindowBg, ImVec4(0.10f, 0.105f, 0.12f, 1.0f), ImVec4(0.98f, 0.98f, 0.98f, 1.0f)},
         {ImGuiCol_ChildBg, ImVec4(0.10f, 0.105f, 0.12f, 0.0f), kKeep},
         {ImGuiCol_TitleBg, ImVec4(0.14f, 0.16f, 0.20f, 1.0f), kKeep},
         {ImGuiCol_TitleBgActive, ImVec4(0.18f, 0.26f, 0.38f, 1.0f), kKeep},
         {ImGuiCol_Text, ImVec4(0.95f, 0.95f, 0.96f, 1.0f), ImVec4(0.05f, 0.05f, 0.07f, 1.0f)},
         {ImGuiCol_TextDisabled, ImVec4(0.62f, 0.64f, 0.68f, 1.0f), ImVec4(0.36f, 0.37f, 0.40f, 1.0f)},
         // accent: the current step
         {ImGuiCol_PlotHistogram, ImVec4(1.0f, 0.78f, 0.25f, 1.0f), ImVec4(0.75f, 0.35f, 0.0f, 1.0f)}},
        {{&ImGuiStyle::WindowRounding, 4.0f},
         {&ImGuiStyle::FrameRounding, 3.0f},
         {&ImGuiStyle::GrabRounding, 3.0f},
         {&ImGuiStyle::ScrollbarSize, 16.0f},
         {&ImGuiStyle::FrameBorderSize, dark ? 0.0f : 1.0f}},
        {{&ImGuiStyle::WindowPadding, ImVec2(10.0f, 8.0f)}, {&ImGuiStyle::ItemSpacing, ImVec2(8.0f, 5.0f)}},
        scale);
}

void apply_presenter_theme(bool dark, float scale)
{
    // A projector in a bright room washes out pale colours: in the light theme black text, a dark secondary
    // text and an accent dark enough to read on white.
    install_theme(
        dark,
        {{ImGuiCol_WindowBg, ImVec4(0.0f, 0.0f, 0.0f, 1.0f), ImVec4(0.93f, 0.93f, 0.94f, 1.0f)},
         {ImGuiCol_ChildBg, ImVec4(0.0f, 0.0f, 0.0f, 0.0f), ImVec4(1.0f, 1.0f, 1.0f, 0.0f)},
         {ImGuiCol_PopupBg, ImVec4(0.05f, 0.05f, 0.05f, 1.0f), ImVec4(1.0f, 1.0f, 1.0f, 1.0f)},
         {ImGuiCol_Text, ImVec4(1.0f, 1.0f, 1.0f, 1.0f), ImVec4(0.0f, 0.0f, 0.0f, 1.0f)},
         {ImGuiCol_TextDisabled, ImVec4(0.80f, 0.80f, 0.82f, 1.0f), ImVec4(0.22f, 0.22f, 0.25f, 1.0f)},
         {ImGuiCol_Border, ImVec4(0.75f, 0.75f, 0.75f, 1.0f), ImVec4(0.30f, 0.30f, 0.32f, 1.0f)},
         {ImGuiCol_Separator, ImVec4(0.75f, 0.75f, 0.75f, 1.0f), ImVec4(0.30f, 0.30f, 0.32f, 1.0f)},
         {ImGuiCol_FrameBg, ImVec4(0.16f, 0.16f, 0.18f, 1.0f), ImVec4(0.86f, 0.86f, 0.88f, 1.0f)},
         {ImGuiCol_Header, ImVec4(0.20f, 0.20f, 0.24f, 1.0f), ImVec4(0.80f, 0.80f, 0.84f, 1.0f)},
         // accent: titles and the current step
         {ImGuiCol_PlotHistogram, ImVec4(1.0f, 0.86f, 0.20f, 1.0f), ImVec4(0.70f, 0.25f, 0.0f, 1.0f)}},
        {{&ImGuiStyle::WindowRounding, 0.0f},
         {&ImGuiStyle::FrameRounding, 0.0f},
         {&ImGuiStyle::WindowBorderSize, 0.0f},
         {&ImGuiStyle::FrameBorderSize, 1.0f},
         {&ImGuiStyle::ScrollbarSize, 18.0f}},
        {{&ImGuiStyle::WindowPadding, ImVec2(16.0f, 10.0f)}, {&ImGuiStyle::ItemSpacing, ImVec2(10.0f, 6.0f)}},
        scale);
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
