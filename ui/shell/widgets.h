// Small ImGui helpers shared by the panels: std::string text fields, tooltips, head colours.
#pragma once

#include "ui/model/text_wrap.h"
#include "ui/picture/colormap.h"

#include <imgui.h>

#include <string>

namespace attnlab
{

// A multi-line text field that wraps long lines at spaces, as text on screen does (ImGui's does not): `field`
// keeps the wrapped copy between frames; *text never holds its soft breaks. Returns true when *text changed.
bool input_text_wrapped(const char* label, std::string* text, SoftWrapField* field, float width,
                        float height);
// A one-line text field editing a std::string; returns true when the text changed.
bool input_text(const char* label, std::string* text, bool enter_returns_true = false);
// The same, showing hint (greyed) while the text is empty.
bool input_text_with_hint(const char* label, const char* hint, std::string* text);
// The sequential colour map as a strip from (x, top) to (x + width, bottom), low on the left, in 32 steps:
// the legend of the attention maps.
void colormap_strip(ImDrawList* dl, float x, float top, float width, float bottom);
// A tooltip with a wrapped sentence on the last item, when hovered.
void item_tooltip(const char* text);
// head_color(j) for text on the current theme's panels: lightened on a dark one and darkened on a light one,
// just enough for a contrast ratio of 4.5 (blue on near-black and yellow on white cannot be read as they
// are).
ImVec4 head_text_color(int j);
// A head's chip: a small button filled with the head's colour, labelled in black or white (whichever reads
// better on it), ringed in the text colour when selected. label nullptr: the head's number j + 1. Returns
// true when clicked.
bool head_chip(int j, bool selected, const char* label = nullptr);
// A small button showing text exactly as it is. ImGui hides whatever follows "##" in a label (the ID part),
// which would leave BERT's "##ing" pieces blank; the ID here is the stack's (push one per button). Returns
// true when clicked.
bool literal_small_button(const std::string& text);
// A head switched off (head ablation) drawn over its map in [p0, p1]: the map dimmed, crossed out and
// marked "off", so what it would do stays faintly visible.
void head_off_overlay(ImDrawList* dl, ImVec2 p0, ImVec2 p1);
// The theme's error colour (light red on dark, dark red on light).
ImVec4 error_color();
// Text in the theme's error colour, wrapped.
void error_text(const std::string& text);
// Text wrapped to the content region at spaces only (wrap_lines): ImGui::TextWrapped may break after a full
// stop inside a number, leaving "4." at the end of a line and "76837e-07" on the next.
// width > 0: at most that many pixels wide instead.
void text_wrapped(const std::string& text, float width = 0.0f);
// The same from a printf format.
void text_wrappedf(const char* fmt, ...) IM_FMTARGS(1);
// text_wrapped in the theme's disabled (greyed) text colour.
void text_disabled_wrapped(const std::string& text);

// The width of a Button or SmallButton labelled label (without a size of its own).
float button_width(const char* label);
// The width of a Checkbox or RadioButton labelled label.
float checkbox_width(const char* label);
// SameLine when an item next_width wide still fits on the last item's line, else nothing, so the next item
// starts a line of its own: a row of buttons wraps in a narrow panel instead of running off its edge.
void same_line_if_fits(float next_width);

} // namespace attnlab
