// The panels: one free function each (ui/panels/<name>_panel.cpp), and the table that builds the View menu.
#pragma once

#include "ui/model/app_state.h"

#include <array>

namespace attnlab
{

void draw_input_panel(AppState& state);
void draw_model_panel(AppState& state);
void draw_pipeline_panel(AppState& state);
void draw_heads_panel(AppState& state);
void draw_inspector_panel(AppState& state);
void draw_comparisons_panel(AppState& state);
void draw_lesson_panel(AppState& state);
void draw_training_panel(AppState& state);

// The trained model's probe field (the Training panel's), for the Input panel while the trained model shows.
void draw_trained_probe_input(AppState& state);
// A line at the top of a main panel: which model it shows, with a button to switch. Draws nothing when the
// session shows and there is no trained model.
void trained_view_banner(AppState& state);

struct PanelInfo
{
    PanelId id;
    const char* name;     // window title
    const char* shortcut; // shown in the View menu ("Alt+1"), handled in ui/app_ui.cpp
    void (*draw)(AppState&);
};

// In PanelId order.
const std::array<PanelInfo, kPanelCount>& panel_table();

} // namespace attnlab
