// Applies each panel's place to its ImGui window and keeps the place the user drags it to.
#include "ui/shell/panel_places.h"

#include <imgui.h>

#include <cmath>

namespace attnlab
{

namespace
{

bool near(float a, float b)
{
    return std::fabs(a - b) <= 0.5f;
}

LayoutRect applied_rect(const AppState& state, PanelId id)
{
    const auto& a = state.layout.applied[static_cast<std::size_t>(id)];
    return {a[0], a[1], a[2], a[3]};
}

void set_applied(AppState& state, PanelId id, const LayoutRect& r)
{
    state.layout.applied[static_cast<std::size_t>(id)] = {r.x, r.y, r.w, r.h};
}

bool same_pixels(const LayoutRect& a, const LayoutRect& b)
{
    return near(a.x, b.x) && near(a.y, b.y) && near(a.w, b.w) && near(a.h, b.h);
}

} // namespace

void place_next_panel(AppState& state, PanelId id, const LayoutRect& target)
{
    const LayoutRect applied = applied_rect(state, id);
    if (state.layout.moving[static_cast<std::size_t>(id)] ||
        (applied.w > 0.0f && same_pixels(applied, target)))
        return;
    ImGui::SetNextWindowPos(ImVec2(target.x, target.y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(target.w, target.h), ImGuiCond_Always);
    set_applied(state, id, target);
}

void note_panel_place(AppState& state, PanelId id, const LayoutRect& area)
{
    const auto i = static_cast<std::size_t>(id);
    // A collapsed window reports its title bar's size; it keeps its place.
    if (!ImGui::IsWindowCollapsed())
    {
        const ImVec2 pos = ImGui::GetWindowPos();
        const ImVec2 size = ImGui::GetWindowSize();
        const LayoutRect actual{pos.x, pos.y, size.x, size.y};
        // Moved or resized with the mouse: followed, not fought, until the button is released. (Without a
        // button down it was ImGui keeping a window no smaller than its minimum size: not the user's place.)
        if (ImGui::IsAnyMouseDown() && !same_pixels(actual, applied_rect(state, id)))
        {
            state.layout.moving[i] = true;
            set_applied(state, id, actual);
        }
    }
    if (!state.layout.moving[i] || ImGui::IsAnyMouseDown())
        return;
    // Released: kept as fractions of the work area (brought inside it first), saved with the preferences.
    const LayoutRect f =
        fraction_of_area(place_in_area(fraction_of_area(applied_rect(state, id), area), area), area);
    state.prefs.places[i] = {true, f.x, f.y, f.w, f.h};
    state.layout.moving[i] = false;
}

void forget_panel_place(AppState& state, PanelId id)
{
    state.layout.applied[static_cast<std::size_t>(id)] = {0.0f, 0.0f, 0.0f, 0.0f};
    state.layout.moving[static_cast<std::size_t>(id)] = false;
}

bool overlaps_other_panel(const AppState& state, PanelId id)
{
    const auto index = static_cast<std::size_t>(id);
    const auto& a = state.panel_rects[index];
    if (a[2] <= 0.0f || a[3] <= 0.0f)
        return true;
    const float eps = 1.0f; // panels that only touch along an edge do not overlap
    for (std::size_t k = 0; k < state.panel_rects.size(); ++k)
    {
        const auto& b = state.panel_rects[k];
        if (k == index || b[2] <= 0.0f || b[3] <= 0.0f)
            continue;
        if (a[0] + eps < b[0] + b[2] && b[0] + eps < a[0] + a[2] && a[1] + eps < b[1] + b[3] &&
            b[1] + eps < a[1] + a[3])
            return true;
    }
    return false;
}

} // namespace attnlab
