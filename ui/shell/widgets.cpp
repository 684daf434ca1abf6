// Small ImGui helpers shared by the panels: std::string text fields, tooltips, head colours.
#include "ui/shell/widgets.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <array>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <string_view>

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

float text_width(std::string_view text)
{
    return ImGui::CalcTextSize(text.data(), text.data() + text.size()).x;
}

// What the wrapped field's callback needs: the field, and the user's text it updates.
struct WrappedEdit
{
    SoftWrapField* field;
    std::string* text;
    bool changed = false;
};

int wrapped_callback(ImGuiInputTextCallbackData* data)
{
    auto* edit = static_cast<WrappedEdit*>(data->UserData);
    SoftWrapField& f = *edit->field;
    if (data->EventFlag == ImGuiInputTextFlags_CallbackResize)
    {
        f.shown.resize(static_cast<std::size_t>(data->BufTextLen));
        data->Buf = f.shown.data();
        return 0;
    }
    if (data->EventFlag != ImGuiInputTextFlags_CallbackEdit)
        return 0;
    // f.shown still holds the text before this edit: ImGui copies its own back after the callback.
    const bool backspace = ImGui::IsKeyDown(ImGui::GetKeyIndex(ImGuiKey_Backspace));
    const SoftEdit e =
        apply_soft_edit(f.shown, std::string_view(data->Buf, static_cast<std::size_t>(data->BufTextLen)),
                        data->CursorPos, backspace);
    const std::string rewrapped = wrap_soft(e.text, f.width, text_width);
    if (rewrapped != std::string_view(data->Buf, static_cast<std::size_t>(data->BufTextLen)))
    {
        data->DeleteChars(0, data->BufTextLen);
        data->InsertChars(0, rewrapped.data(), rewrapped.data() + rewrapped.size());
    }
    data->CursorPos = wrapped_offset(rewrapped, e.cursor);
    data->SelectionStart = data->SelectionEnd = data->CursorPos;
    // The field holds every character beyond U+FFFF as U+FFFD (narrow_to_bmp): the user's text gets its own
    // characters back outside the edited part.
    int cursor = e.cursor;
    std::string user = restore_wide_characters(*edit->text, e.text, &cursor);
    user.erase(std::remove(user.begin(), user.end(), '\0'), user.end()); // never part of a sentence
    f.source = user;
    edit->changed = edit->changed || user != *edit->text;
    *edit->text = std::move(user);
    return 0;
}

} // namespace

bool input_text_wrapped(const char* label, std::string* text, SoftWrapField* field, float width, float height)
{
    const ImGuiStyle& style = ImGui::GetStyle();
    // The field's inner width, less room for its scroll bar and the cursor.
    const float wrap_width =
        std::max(ImGui::GetFontSize(), width - style.FramePadding.x * 2.0f - style.ScrollbarSize - 2.0f);
    // While the field is edited ImGui owns its text; otherwise it follows *text (a lesson, a file opened).
    if (!field->active && (field->source != *text || field->width != wrap_width))
    {
        // ImGui's 16-bit field would turn characters beyond U+FFFF into U+FFFD itself, changing the text's
        // length behind the callback's back: it is given them as U+FFFD from the start.
        field->shown = wrap_soft(narrow_to_bmp(*text), wrap_width, text_width);
        field->source = *text;
        field->width = wrap_width;
    }
    WrappedEdit edit{field, text};
    // No undo: ImGui's undo steps hold offsets into the text before the callback moved its soft breaks.
    ImGui::InputTextMultiline(label, field->shown.data(), field->shown.capacity() + 1, ImVec2(width, height),
                              ImGuiInputTextFlags_CallbackResize | ImGuiInputTextFlags_CallbackEdit |
                                  ImGuiInputTextFlags_NoHorizontalScroll | ImGuiInputTextFlags_NoUndoRedo,
                              wrapped_callback, &edit);
    field->active = ImGui::IsItemActive();
    return edit.changed;
}

bool input_text(const char* label, std::string* text, bool enter_returns_true)
{
    ImGuiInputTextFlags flags = ImGuiInputTextFlags_CallbackResize;
    if (enter_returns_true)
        flags |= ImGuiInputTextFlags_EnterReturnsTrue;
    return ImGui::InputText(label, text->data(), text->capacity() + 1, flags, resize_callback, text);
}

bool input_text_with_hint(const char* label, const char* hint, std::string* text)
{
    return ImGui::InputTextWithHint(label, hint, text->data(), text->capacity() + 1,
                                    ImGuiInputTextFlags_CallbackResize, resize_callback, text);
}

void colormap_strip(ImDrawList* dl, float x, float top, float width, float bottom)
{
    const auto& table = colormap_table(Colormap::Sequential);
    for (int s = 0; s < 32; ++s)
    {
        const ImU32 a = table[static_cast<std::size_t>(s * 255 / 31)];
        const ImU32 b = table[static_cast<std::size_t>(std::min(255, (s + 1) * 255 / 31))];
        dl->AddRectFilledMultiColor(ImVec2(x + width * static_cast<float>(s) / 32.0f, top),
                                    ImVec2(x + width * static_cast<float>(s + 1) / 32.0f, bottom), a, b, b,
                                    a);
    }
}

void item_tooltip(const char* text)
{
    if (ImGui::IsItemHovered())
    {
        ImGui::BeginTooltip();
        // Wrapped at spaces by text_wrapped: Dear ImGui 1.86's own wrapping lost the end of a word too long
        // for the rest of a line ("sin(pos / 10000^(2i/d_model))," showed as "sin(pos / 1000").
        text_wrapped(text, ImGui::GetFontSize() * 28.0f);
        ImGui::EndTooltip();
    }
}

ImVec4 head_text_color(int j)
{
    ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    bg.w = 1.0f;
    return ImGui::ColorConvertU32ToFloat4(readable_on(head_color(j), ImGui::ColorConvertFloat4ToU32(bg)));
}

bool head_chip(int j, bool selected, const char* label)
{
    const ImVec4 fill = ImGui::ColorConvertU32ToFloat4(head_color(j));
    const ImVec4 hovered(std::min(1.0f, fill.x * 1.12f + 0.06f), std::min(1.0f, fill.y * 1.12f + 0.06f),
                         std::min(1.0f, fill.z * 1.12f + 0.06f), 1.0f);
    ImGui::PushStyleColor(ImGuiCol_Button, fill);
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, hovered);
    ImGui::PushStyleColor(ImGuiCol_ButtonActive, fill);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(chip_text_color(head_color(j))));
    ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, 0.0f);
    const std::string text = label != nullptr ? std::string(label) : std::to_string(j + 1);
    const bool clicked = ImGui::SmallButton(text.c_str());
    ImGui::PopStyleVar();
    ImGui::PopStyleColor(4);
    if (selected)
    {
        // A ring in the text colour just outside the chip: the chip keeps the head's own colour.
        const ImVec2 a = ImGui::GetItemRectMin();
        const ImVec2 b = ImGui::GetItemRectMax();
        ImGui::GetWindowDrawList()->AddRect(ImVec2(a.x - 2.0f, a.y - 2.0f), ImVec2(b.x + 2.0f, b.y + 2.0f),
                                            ImGui::GetColorU32(ImGuiCol_Text),
                                            ImGui::GetStyle().FrameRounding + 2.0f, 0, 2.0f);
    }
    return clicked;
}

void head_off_overlay(ImDrawList* dl, ImVec2 p0, ImVec2 p1)
{
    dl->AddRectFilled(p0, p1, IM_COL32(0, 0, 0, 170));
    const ImU32 red = IM_COL32(235, 80, 70, 255);
    const float thick = std::max(1.5f, ImGui::GetFontSize() * 0.12f);
    dl->AddLine(p0, p1, red, thick);
    dl->AddLine(ImVec2(p0.x, p1.y), ImVec2(p1.x, p0.y), red, thick);
    const char* text = "off";
    const ImVec2 ts = ImGui::CalcTextSize(text);
    if (ts.x + 4.0f <= p1.x - p0.x && ts.y <= p1.y - p0.y)
    {
        const ImVec2 at((p0.x + p1.x - ts.x) * 0.5f, (p0.y + p1.y - ts.y) * 0.5f);
        dl->AddRectFilled(ImVec2(at.x - 2.0f, at.y), ImVec2(at.x + ts.x + 2.0f, at.y + ts.y), red, 3.0f);
        dl->AddText(at, IM_COL32(255, 255, 255, 255), text);
    }
}

bool literal_small_button(const std::string& text)
{
    // As SmallButton lays itself out (no vertical padding, on the text baseline), with an empty label and the
    // text drawn on it afterwards, where ImGui reads no "##".
    const ImGuiStyle& style = ImGui::GetStyle();
    const ImVec2 text_size =
        ImGui::CalcTextSize(text.c_str(), nullptr, /*hide_text_after_double_hash=*/false);
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(style.FramePadding.x, 0.0f));
    const bool clicked = ImGui::ButtonEx("##literal", ImVec2(text_size.x + style.FramePadding.x * 2.0f, 0.0f),
                                         ImGuiButtonFlags_AlignTextBaseLine);
    ImGui::PopStyleVar();
    const ImVec2 at = ImGui::GetItemRectMin();
    ImGui::GetWindowDrawList()->AddText(ImVec2(at.x + style.FramePadding.x, at.y),
                                        ImGui::GetColorU32(ImGuiCol_Text), text.c_str());
    return clicked;
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
    text_wrapped(text);
    ImGui::PopStyleColor();
}

void text_wrapped(const std::string& text, float width)
{
    width = std::max(1.0f, width > 0.0f ? width : ImGui::GetContentRegionAvail().x);
    const std::string lines = wrap_lines(
        text, width, [](std::string_view s) { return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x; });
    ImGui::TextUnformatted(lines.c_str(), lines.c_str() + lines.size());
}

void text_wrappedf(const char* fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    va_list copy;
    va_copy(copy, args);
    const int n = std::vsnprintf(nullptr, 0, fmt, copy);
    va_end(copy);
    std::string text(static_cast<std::size_t>(std::max(0, n)), '\0');
    std::vsnprintf(text.data(), text.size() + 1, fmt, args);
    va_end(args);
    text_wrapped(text);
}

void text_disabled_wrapped(const std::string& text)
{
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    text_wrapped(text);
    ImGui::PopStyleColor();
}

float button_width(const char* label)
{
    return ImGui::CalcTextSize(label, nullptr, /*hide_text_after_double_hash=*/true).x +
           ImGui::GetStyle().FramePadding.x * 2.0f;
}

float checkbox_width(const char* label)
{
    return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x +
           ImGui::CalcTextSize(label, nullptr, /*hide_text_after_double_hash=*/true).x;
}

void same_line_if_fits(float next_width)
{
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + next_width <= right)
        ImGui::SameLine();
}

} // namespace attnlab
