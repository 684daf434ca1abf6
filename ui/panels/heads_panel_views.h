// The Heads panel's views in files of their own (private to the panel): the layers x heads overview
// (heads_panel_overview.cpp), and the helpers it shares with heads_panel.cpp.
#pragma once

#include "ui/model/app_state.h"

#include <imgui.h>

#include <string>
#include <vector>

namespace attnlab::heads_view
{

inline constexpr int kMaxLabelChars = 10; // as the heatmap widget's labels
// The ink of a line of DejaVu Sans is about 0.85 of the font size tall: labels that far apart do not touch.
inline constexpr float kLabelPitch = 0.85f;

// The pinned query of the self- or the cross-attention maps.
QueryPin& pin_of(AppState& state, bool cross);
// Pins query `row` (again: unpins it).
void toggle_pin(AppState& state, bool cross, int row);
// A token cut to kMaxLabelChars characters.
std::string short_token(const std::string& token);
// Key labels drawn upwards under a map column, every stride-th key. Thinned labels (stride > 1) carry their
// index as a key position, "j=5 it", so "every fifth key" reads as such. count >= 0: only keys [0, count)
// (the room a column has).
void key_labels(const std::vector<std::string>& keys, ImVec2 top_left, float cell, int stride,
                int count = -1);
// The width of the widest short token.
float widest_label(const std::vector<std::string>& tokens);

// Every layer's heads at once: the shown query's row of each map as a strip, or the whole maps without a
// query.
void draw_overview(AppState& state);

} // namespace attnlab::heads_view
