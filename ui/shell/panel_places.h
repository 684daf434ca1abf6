// Applying the panel layout (ui/model/layout.h) to the ImGui windows, between NewFrame and Render: each
// panel is placed when its place in pixels changes, and a place the user drags is kept as fractions.
#pragma once

#include "ui/model/layout.h"

namespace attnlab
{

// Before Begin(): sets the panel's position and size when its place in pixels changed (window resized, a
// panel opened or closed, the layout reset, a saved layout loaded), unless the user is dragging it.
void place_next_panel(AppState& state, PanelId id, const LayoutRect& target);
// Between Begin() and End(): notices a move or resize by the user and, once the mouse is released, keeps
// it in state.prefs.places as fractions of `area`.
void note_panel_place(AppState& state, PanelId id, const LayoutRect& area);
// A closed panel: placed again when it reopens.
void forget_panel_place(AppState& state, PanelId id);
// True when panel `id` overlapped another open panel last frame (state.panel_rects), or has no rectangle yet:
// then its window keeps its background.
bool overlaps_other_panel(const AppState& state, PanelId id);

} // namespace attnlab
