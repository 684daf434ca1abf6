// Panel layout: each panel's place in fractions of the work area (the window under the menu bar and above the
// status bar), so one layout fits a laptop and a projector alike and follows every resize. Pure maths (no
// ImGui); ui/shell/panel_places.h applies it to the windows.
#pragma once

#include "ui/model/app_state.h"

#include <array>

namespace attnlab
{

// A rectangle: in pixels, or in fractions of the work area (then 0..1 on both axes).
struct LayoutRect
{
    float x = 0.0f, y = 0.0f, w = 0.0f, h = 0.0f;

    bool operator==(const LayoutRect& o) const { return x == o.x && y == o.y && w == o.w && h == o.h; }
    bool operator!=(const LayoutRect& o) const { return !(*this == o); }
};

// The default place of every panel, in fractions of the work area, for this set of open panels. Three
// columns, each panel's column, row and weight from the panel table (ui/model/panel_table.h): Lesson, Input
// and Model stacked on the left; the Pipeline in the centre; Heads over the Inspector on the right. A column
// shares its height among its open panels, and a column with none gives its width to its neighbour, so
// closing a panel gives its room to the others. `focus` (a lesson step's view) gets twice its share of its
// column. Comparisons and Training cover the centre and right columns. A closed panel gets an empty
// rectangle.
std::array<LayoutRect, kPanelCount> default_layout(const std::array<bool, kPanelCount>& open,
                                                   PanelId focus = PanelId::Count);

// The work area of a display: under the menu bar (menu_h) and above the status bar (status_h).
LayoutRect work_area(float display_w, float display_h, float menu_h, float status_h);

// A place in fractions -> whole pixels of `area`. Edges are rounded, so two panels that share an edge in
// fractions share it in pixels; the result lies inside the area (moved in, and shrunk when larger).
LayoutRect place_in_area(const LayoutRect& fraction, const LayoutRect& area);
// Pixels -> fractions of `area` (the inverse of place_in_area for a rectangle inside the area).
LayoutRect fraction_of_area(const LayoutRect& pixels, const LayoutRect& area);

// Where panel `id` goes: the user's place when they moved or resized it, else its default place.
LayoutRect panel_fraction(const ViewPrefs& prefs, const std::array<LayoutRect, kPanelCount>& defaults,
                          PanelId id);

} // namespace attnlab
