// Small ImGui helpers shared by the panels: std::string text fields, tooltips, head colours.
#pragma once

#include "ui/colormap.h"
#include "ui/text_wrap.h"

#include <imgui.h>

#include <string>

namespace attnlab
{

// A multi-line text field editing a std::string; returns true when the text changed.
bool input_text_multiline(const char* label, std::string* text, float width, float height);
// A multi-line text field that wraps long lines at spaces, as text on screen does (ImGui's does not): `field`
// keeps the wrapped copy between frames; *text never holds its soft breaks. Returns true when *text changed.
bool input_text_wrapped(const char* label, std::string* text, SoftWrapField* field, float width,
                        float height);
// A one-line text field editing a std::string; returns true when the text changed.
bool input_text(const char* label, std::string* text, bool enter_returns_true = false);
// A tooltip with a wrapped sentence on the last item, when hovered.
void item_tooltip(const char* text);
// The categorical colour of head j (Okabe–Ito palette, colour-blind safe), cycling after eight.
Color32 head_color(int j);
// head_color(j) for text on the current theme's panels: lightened on a dark one and darkened on a light one,
// just enough for a contrast ratio of 4.5 (blue on near-black and yellow on white cannot be read as they
// are).
ImVec4 head_text_color(int j);
// A head's chip: a small button filled with the head's colour, labelled in black or white (whichever reads
// better on it), ringed in the text colour when selected. label nullptr: the head's number j + 1. Returns
// true when clicked.
bool head_chip(int j, bool selected, const char* label = nullptr);
// The theme's error colour (light red on dark, dark red on light).
ImVec4 error_color();
// Text in the theme's error colour, wrapped.
void error_text(const std::string& text);

} // namespace attnlab
