// The panels: one free function each (ui/panels/<name>_panel.cpp), and the draw table the frame walks.
#pragma once

#include "ui/model/app_state.h"

#include <array>

namespace attnlab
{

// [SECTION] One function per panel

void draw_input_panel(AppState& state);
void draw_model_panel(AppState& state);
void draw_pipeline_panel(AppState& state);
void draw_heads_panel(AppState& state);
void draw_inspector_panel(AppState& state);
void draw_comparisons_panel(AppState& state);
void draw_lesson_panel(AppState& state);
void draw_training_panel(AppState& state);
// A lesson's training step in presenter mode: the curves (lower) and the maps, without the controls.
void draw_training_presenter_view(AppState& state);

// The trained model's probe field (the Training panel's), for the Input panel while the trained model shows.
void draw_trained_probe_input(AppState& state);
// A line at the top of a main panel: which model it shows (shown_model_label: seeded, imported, trained in
// Attention Lab or an opened model folder), with a button to switch or close. Nothing during a lesson.
void trained_view_banner(AppState& state);

// What a main panel shows while there is no result: that the model is running, or why the input does not run
// (the session's error, in the error colour: the field it names may be scrolled out of sight in a short
// panel).
void no_result_yet(const AppState& state);

// [SECTION] The draw table

// The half of the panel table that needs ImGui: each panel's draw function by PanelId, beside the facts in
// ui/model/panel_table.h (which ui/model reads without linking the panels). A new panel adds its declaration
// above and its row here.
struct PanelDraw
{
    PanelId id;
    void (*draw)(AppState&);
};

inline constexpr std::array<PanelDraw, kPanelCount> kPanelDraws = {{
    {PanelId::Input, draw_input_panel},
    {PanelId::Model, draw_model_panel},
    {PanelId::Pipeline, draw_pipeline_panel},
    {PanelId::Heads, draw_heads_panel},
    {PanelId::Inspector, draw_inspector_panel},
    {PanelId::Comparisons, draw_comparisons_panel},
    {PanelId::Lesson, draw_lesson_panel},
    {PanelId::Training, draw_training_panel},
}};

constexpr bool panel_draws_are_consistent()
{
    for (int i = 0; i < kPanelCount; ++i)
        if (static_cast<int>(kPanelDraws[static_cast<std::size_t>(i)].id) != i)
            return false;
#ifndef ATTNLAB_SANITIZER_BUILD // GCC's UBSan makes a function's address against null no constant expression
    for (int i = 0; i < kPanelCount; ++i)
        if (kPanelDraws[static_cast<std::size_t>(i)].draw == nullptr)
            return false;
#endif
    return true;
}
static_assert(panel_draws_are_consistent(),
              "kPanelDraws: one draw function per PanelId, in the enum's order");

// Draws panel `id`'s contents (between Begin and End).
inline void draw_panel(AppState& state, PanelId id)
{
    kPanelDraws[static_cast<std::size_t>(id)].draw(state);
}

} // namespace attnlab
