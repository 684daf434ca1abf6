// Presenter mode's Training view: the run's state and keys on one line, the loss and head-score plots with a
// legend per head on the left, the probe's head maps as large as the height allows on the right, and for a
// text model the loss strip and a sample under the plots (the strip across the view when the step talks about
// it). Its layout is computed in
// picture/presenter_layout.h (layout_training_presenter).
#include "ui/model/lessons.h"
#include "ui/model/training/training_controller.h"
#include "ui/model/training/training_curves.h"
#include "ui/panels/panels.h"
#include "ui/panels/training_panel_views.h"
#include "ui/picture/presenter_layout.h"
#include "ui/picture/step_maps.h"
#include "ui/shell/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace attnlab
{

namespace
{

constexpr ImGuiWindowFlags kPart =
    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoBackground;

// The status line: the step shown and the run's, whether it trains, and the keys.
void status_line(AppState& state, const TrainingFrame* f)
{
    const TrainingPanelState& ts = state.training;
    const TrainingSnapshot& v = ts.view;
    const bool running = state.training_run.running();
    char left[160];
    // The target Play stops at (raised when Play goes on from it), not the steps the run was made with.
    const int target = std::max(1, ts.edit.steps > 0 ? ts.edit.steps : v.config.steps);
    if (f != nullptr && f->step != v.step)
        std::snprintf(left, sizeof left, "step %d of %d (showing step %d)   %s", v.step, target, f->step,
                      running ? "training" : "paused");
    else
        std::snprintf(left, sizeof left, "step %d of %d   %s", v.step, target,
                      running            ? "training"
                      : v.step >= target ? "done"
                      : v.step == 0      ? "not started"
                                         : "paused");
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_PlotHistogram]);
    ImGui::TextUnformatted(left);
    ImGui::PopStyleColor();
    const std::string label = v.config.label();
    const char* keys = "P: play / pause   S: step   R R: reset";
    const float keys_w = ImGui::CalcTextSize(keys).x;
    const float right = ImGui::GetWindowContentRegionMax().x;
    // The held-out accuracy at the step shown (the view has no accuracy plot; the lessons' texts name it).
    const int at = f != nullptr ? f->step : v.step;
    const auto after = std::upper_bound(v.evals.begin(), v.evals.end(), at,
                                        [](int step, const TrainingEval& e) { return step < e.step; });
    if (after != v.evals.begin())
    {
        char accuracy[64];
        std::snprintf(accuracy, sizeof accuracy, "held-out accuracy %.0f %%",
                      100.0 * static_cast<double>((after - 1)->accuracy));
        const float x = ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x + ImGui::GetFontSize();
        if (x + ImGui::CalcTextSize(accuracy).x + ImGui::GetFontSize() < right - keys_w)
        {
            ImGui::SameLine(x);
            ImGui::TextUnformatted(accuracy);
        }
    }
    ImGui::SameLine();
    const float label_x = ImGui::GetCursorPosX() + ImGui::GetFontSize();
    // The run's label between them where it fits, else left out (the legend's tooltip is not shown here).
    if (label_x + ImGui::CalcTextSize(label.c_str()).x + ImGui::GetFontSize() < right - keys_w)
    {
        ImGui::SameLine(label_x);
        ImGui::TextDisabled("%s", label.c_str());
        ImGui::SameLine();
    }
    ImGui::SameLine(std::max(ImGui::GetCursorPosX(), right - keys_w));
    ImGui::TextDisabled("%s", keys);
}

// A table: a line of head names in their colours, then a line per layer with each head's curve as it is
// drawn (thin: layer 1, thick: later layers) and its score at the step shown.
void head_legend(const AppState& state, int step, float width)
{
    const TrainingSnapshot& v = state.training.view;
    const int h = v.model.n_heads, L = v.model.n_layers;
    if (h <= 0 || L <= 0)
        return;
    const float fs = ImGui::GetFontSize();
    const float label_w = fs * 1.6f;
    const train::HeadScoreKind kind = train::head_score_kind(state.training.score_kind);
    const float entry_w = (width - label_w) / static_cast<float>(h);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const Color32 bg = plot_background();
    const auto at_column = [&](float x0, int j)
    {
        ImGui::SameLine(0.0f, 0.0f);
        ImGui::SetCursorScreenPos(
            ImVec2(x0 + label_w + entry_w * static_cast<float>(j), ImGui::GetCursorScreenPos().y));
    };
    float x0 = ImGui::GetCursorScreenPos().x;
    ImGui::Dummy(ImVec2(label_w * 0.5f, ImGui::GetTextLineHeight()));
    for (int j = 0; j < h; ++j)
    {
        at_column(x0, j);
        ImGui::PushStyleColor(ImGuiCol_Text, head_text_color(j));
        ImGui::Text("H%d", j + 1);
        ImGui::PopStyleColor();
    }
    for (int l = 0; l < L; ++l)
    {
        x0 = ImGui::GetCursorScreenPos().x;
        ImGui::TextDisabled("L%d", l + 1);
        for (int j = 0; j < h; ++j)
        {
            at_column(x0, j);
            const ImVec2 p = ImGui::GetCursorScreenPos();
            const float mid = p.y + ImGui::GetTextLineHeight() * 0.5f;
            const float thick = (l == 0 ? 1.2f : 2.4f) * std::max(1.0f, fs / 15.0f);
            dl->AddLine(ImVec2(p.x, mid), ImVec2(p.x + fs * 0.9f, mid), curve_color_on(head_color(j), bg),
                        thick);
            ImGui::Dummy(ImVec2(fs * 1.1f, ImGui::GetTextLineHeight()));
            const train::HeadScores* s = held_out_scores_at(v, step, l * h + j);
            if (s == nullptr)
                continue;
            // ".59": the columns are narrow; the map titles say the same.
            char value[16];
            std::snprintf(value, sizeof value, "%.2f", train::head_score(*s, kind));
            const char* shown = value[0] == '0' ? value + 1 : value;
            if (ImGui::CalcTextSize(shown).x <= entry_w - fs * 1.2f)
            {
                ImGui::SameLine(0.0f, 0.0f);
                ImGui::TextUnformatted(shown);
            }
        }
    }
}

// The head legend's width: the layer labels, then per head its line and a score (".82").
float head_legend_width(const TrainingSnapshot& v)
{
    const float fs = ImGui::GetFontSize();
    return fs * 1.6f + static_cast<float>(std::max(1, v.model.n_heads)) *
                           (fs * 1.1f + ImGui::CalcTextSize(".00").x + fs * 0.5f);
}

// The plot column's layout (picture/presenter_layout.h: the plots' least heights) at this size, with text k
// times the current font (k = 1 / zoom: as at 100%).
TrainingCurvesColumn curves_layout(const TrainingSnapshot& v, ImVec2 size, float k = 1.0f)
{
    return layout_training_curves(size.x, size.y, ImGui::GetFontSize() * k,
                                  ImGui::GetTextLineHeightWithSpacing() * k, ImGui::GetStyle().ItemSpacing.y,
                                  v.model.n_layers, head_legend_width(v) * k);
}

// The plots side by side in a band under the maps (TrainingPresenterLayout::plots_below): the loss plot on
// the left half, the head-score plot and its legend on the right. Returns the step clicked (-1: none).
int curves_band(AppState& state, const TrainingCurves& c, int cursor, ImVec2 size)
{
    const float fs = ImGui::GetFontSize();
    const float half = (size.x - fs) * 0.5f;
    const float plot_h =
        std::max(fs * 2.5f, size.y - ImGui::GetTextLineHeightWithSpacing() - ImGui::GetStyle().ItemSpacing.y);
    ImGui::BeginGroup();
    int clicked = draw_curve_plot(state, c.loss, c, cursor, ImVec2(half, plot_h));
    ImGui::EndGroup();
    const float legend_w = head_legend_width(state.training.view);
    ImGui::SameLine(0.0f, fs);
    const float heads_x = ImGui::GetCursorPosX();
    ImGui::BeginGroup();
    if (const int k = draw_curve_plot(state, c.heads, c, cursor, ImVec2(half - legend_w - fs, plot_h));
        k >= 0)
        clicked = k;
    ImGui::EndGroup();
    ImGui::SameLine(heads_x + half - legend_w);
    ImGui::BeginGroup();
    ImGui::Dummy(ImVec2(1.0f, ImGui::GetTextLineHeightWithSpacing()));
    head_legend(state, cursor, legend_w);
    ImGui::EndGroup();
    return clicked;
}

// The plots: loss above, head scores below with their legend beside or under them, in the column's size;
// `band`: side by side, under the maps.
void curves_column(AppState& state, const TrainingFrame* f, ImVec2 size, bool band)
{
    TrainingPanelState& ts = state.training;
    const TrainingSnapshot& v = ts.view;
    const int cursor = f == nullptr ? -1 : f->step;
    // In a lesson the axes are the whole run's, the curves growing into them step by step.
    const TrainingCurves c = shown_training_curves(ts, cursor, !ts.lesson_key.empty());
    if (band)
    {
        if (const int k = curves_band(state, c, cursor, size); k >= 0 && !v.timeline.empty())
        {
            ts.follow_latest = false;
            ts.shown_step = k;
        }
        return;
    }
    const TrainingCurvesColumn column = curves_layout(v, size);
    int clicked = draw_curve_plot(state, c.loss, c, cursor, ImVec2(size.x, column.loss_h));
    ImGui::BeginGroup();
    if (const int k = draw_curve_plot(state, c.heads, c, cursor, ImVec2(column.heads_w, column.heads_h));
        k >= 0)
        clicked = k;
    ImGui::EndGroup();
    if (column.legend_beside)
    {
        // Level with the plot's axes (under its title line, which may run wider than the plot).
        const float fs = ImGui::GetFontSize();
        ImGui::SameLine(column.heads_w + fs);
        ImGui::BeginGroup();
        ImGui::Dummy(ImVec2(1.0f, ImGui::GetTextLineHeightWithSpacing()));
        head_legend(state, cursor, size.x - column.heads_w - fs);
        ImGui::EndGroup();
    }
    else if (ImGui::GetCursorPosY() - ImGui::GetCursorStartPos().y +
                 ImGui::GetTextLineHeightWithSpacing() *
                     static_cast<float>(1 + std::max(1, v.model.n_layers)) <=
             size.y + 1.0f)
        head_legend(state, cursor, size.x);
    // else no room under the plots at their least height (a text step's strip took it): the legend is left
    // out rather than cut, and the maps' titles, in the heads' colours, name the curves.
    if (clicked >= 0 && !v.timeline.empty())
    {
        ts.follow_latest = false;
        ts.shown_step = clicked;
    }
}

// A text model's readouts in `size`: the loss strip with its legend when the sample keeps its heading and a
// line under it, then the sample at the step shown with as many lines as are left.
void text_column(AppState& state, const TrainingFrame* f, ImVec2 size)
{
    if (f == nullptr)
        return;
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const std::vector<LossCell> cells = training_loss_cells(state);
    const float strip_h = cells.empty() ? 0.0f : loss_strip_height(cells, size.x) + line * 2.0f;
    if (strip_h > 0.0f && strip_h + line * 2.0f <= size.y)
    {
        draw_loss_strip_cells(cells, size.x);
        draw_loss_strip_legend(cells);
    }
    const float left = size.y - (ImGui::GetCursorPosY() - ImGui::GetCursorStartPos().y);
    const int lines = static_cast<int>(left / line) - 1;
    if (lines < 1)
        return;
    const TrainingPanelState& ts = state.training;
    // Short: the column is narrow at 720 lines.
    ImGui::TextDisabled("sample at step %d, τ = %.2f", f->step, static_cast<double>(ts.sample_temperature));
    std::size_t prompt_bytes = 0;
    std::string error;
    const std::string text = training_sample_text(state, &prompt_bytes, &error);
    if (!error.empty())
        error_text(error);
    else if (text.empty())
        ImGui::TextDisabled("Writing…");
    else
        draw_sample_text(text, prompt_bytes, size.x, lines);
}

} // namespace

void draw_training_presenter_view(AppState& state)
{
    TrainingPanelState& ts = state.training;
    if (!state.training_run.configured())
    {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        text_wrapped("No model yet: press P to train the Training panel's task (its preset), or open a "
                     "training lesson (F5 leaves presenter mode, whose menus are hidden: then the Lessons "
                     "menu).");
        ImGui::PopStyleColor();
        return;
    }
    state.training_run.poll(ts.view);
    sync_probe(ts);
    const TrainingFrame* f = shown_frame(ts);
    status_line(state, f);

    const float fs = ImGui::GetFontSize();
    const float gap = fs * 0.8f;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const bool text = ts.view.config.task == train::TaskKind::Text && f != nullptr;
    const bool maps = training_maps_ready(state);
    // The run's own heads alone fill the grid; an earlier run to compare, gradients or the output take the
    // panel's own map views in the same rectangle.
    const bool own_grid = maps && ts.map_kind == 0 && training_compared_maps(state) == nullptr;
    std::vector<MapBox> boxes;
    int per_layer = 1;
    if (maps)
    {
        const int T = ts.probe.T();
        per_layer = std::max(1, ts.probe.n_heads());
        MapBox b;
        b.rows = T;
        b.cols = T;
        boxes.assign(static_cast<std::size_t>(ts.probe.n_layers() * ts.probe.n_heads()), b);
    }
    // A step whose caption talks about the loss strip shows the whole strip across the view's width under
    // the plots and maps (one row of cells where the screen allows), its legend under it; the sample is left
    // out then. Otherwise a text model's readouts get three lines at least under the plots.
    const LessonStep* step = current_step(state);
    const bool strip_first = text && step_shows_loss_strip(step);
    const float line = ImGui::GetTextLineHeightWithSpacing();
    std::vector<LossCell> strip_cells;
    if (strip_first)
        strip_cells = training_loss_cells(state);
    const float strip_h = strip_cells.empty() ? 0.0f : loss_strip_height(strip_cells, avail.x) + line * 2.0f;
    const float area_h = strip_h > 0.0f ? std::max(0.0f, avail.y - strip_h - gap) : avail.y;
    const float min_text_h = text && strip_h <= 0.0f ? line * 3.0f : 0.0f;
    // Short labels (every task's but a word model's) stay, every k-th, on small cells: their gutter.
    const bool short_labels = maps && training_labels_short(training_probe_tokens(ts));
    // The layout in area_w x h with every size that follows the text at k times the current font (k = 1 /
    // zoom: the view as it was at 100%), the maps' cells at least min_cell.
    const auto plan_at = [&](float k, float area_w, float h, float min_cell)
    {
        const float fs_k = fs * k, gap_k = gap * k, line_k = line * k;
        const float min_left = std::max(fs_k * 14.0f, area_w * 0.28f);
        const auto plan = [&](float gutter)
        {
            for (MapBox& b : boxes)
            {
                b.left = gutter;
                b.top = training_head_title_height() * k + gutter;
            }
            // The plots' least height at the column's narrowest, then at the width the maps leave it (wider,
            // the legend may go beside the plot, and the sample keeps the lines it would take).
            const float min_curves_h = curves_layout(ts.view, ImVec2(min_left, 0.0f), k).min_height;
            // Side by side under the maps: a title line (two with earlier runs in the loss key), the loss
            // axes at their least and the step axis; the head legend's rows beside the head-score plot.
            const float key_h = line_k * (ts.view.past.empty() ? 1.0f : 2.0f);
            const float min_below_h =
                own_grid && !text
                    ? std::max(key_h + fs_k * (kLossAxesMinEm + kPlotChromeEm),
                               line_k * static_cast<float>(2 + std::max(1, ts.view.model.n_layers)))
                    : 0.0f;
            const TrainingPresenterLayout l =
                layout_training_presenter(area_w, h, boxes, per_layer, gap_k, fs_k * 6.0f, min_left,
                                          min_curves_h, min_text_h * k, min_below_h, min_cell);
            const float at_width = curves_layout(ts.view, ImVec2(l.curves.w, 0.0f), k).min_height;
            if (l.plots_below || at_width >= min_curves_h || !own_grid) // the panel's own views keep the
                return l;                                               // narrowest column
            return layout_training_presenter(area_w, h, boxes, per_layer, gap_k, fs_k * 6.0f, min_left,
                                             at_width, min_text_h * k, min_below_h, min_cell);
        };
        // The gutter for a cell in the current font's terms (a cell of c at k times the font is one of c /
        // k).
        const auto gutter = [&](float cell)
        { return training_head_label_gutter(cell / k, short_labels) * k; };
        TrainingPresenterLayout l = plan(gutter(fs_k));
        if (!boxes.empty() && l.grid.cell < fs_k * 0.7f)
            l = plan(gutter(l.grid.cell));
        return l;
    };
    // After Ctrl+= the maps keep at least the cells they had at 100%, when the title line, caption and status
    // line were smaller by the zoom and left the parts that much more height: larger text makes the view
    // taller than the window (it scrolls) rather than the maps smaller.
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const float zoom = presenter_zoom(state, display.y);
    float min_cell = 0.0f;
    if (zoom > 1.0f && own_grid && !boxes.empty())
    {
        const float base_h = area_h + std::max(0.0f, display.y - area_h) * (1.0f - 1.0f / zoom);
        // (A scroll bar the zoomed view got took its width from the view at 100%.)
        const float base_w =
            avail.x + (ImGui::GetScrollMaxY() > 0.0f ? ImGui::GetStyle().ScrollbarSize : 0.0f);
        // As drawn at 100% when these maps were (the usual way: a launch starts there), else as estimated.
        const AppState::UnzoomedTrainingCell& drawn = state.presenter_training_unzoomed;
        const bool seen = drawn.maps == static_cast<int>(boxes.size()) && drawn.T == boxes.front().rows &&
                          drawn.width == display.x && drawn.height == display.y;
        min_cell = seen ? drawn.cell : plan_at(1.0f / zoom, base_w, base_h, 0.0f).grid.cell;
        // Cells that had room for every label at 100% (0.7 em: probe_label_gutter) keep it at the larger
        // text, rather than thin their labels to every other one.
        if (min_cell >= fs / zoom * 0.7f)
            min_cell = std::max(min_cell, fs * 0.7f + 0.5f); // 0.5: rounding, or every other label
        // And a head whose line of scores ("anti-diag 0.93   prev 0.24") was whole over its map then keeps
        // it whole: the map as wide as the line, less the half gap it may run into (draw_head_group).
        const float T = static_cast<float>(boxes.front().cols);
        const float scores_w = training_head_scores_width(state);
        const auto gutter_at = [&](float cell) { return training_head_label_gutter(cell, short_labels); };
        const float side_100 = (gutter_at(min_cell * zoom) + T * min_cell * zoom + gap * 0.5f) / zoom;
        if (scores_w > 0.0f && scores_w / zoom <= side_100 + 0.5f)
            min_cell =
                std::max(min_cell, (scores_w + 2.0f - gap * 0.5f - gutter_at(min_cell)) / T); // 2: rounding
    }
    TrainingPresenterLayout layout = plan_at(1.0f, avail.x, area_h, min_cell);
    if (!(zoom > 1.0f) && own_grid && !boxes.empty())
        state.presenter_training_unzoomed = {static_cast<int>(boxes.size()), boxes.front().rows, display.x,
                                             display.y, layout.grid.cell};
    const float min_left = std::max(fs * 14.0f, avail.x * 0.28f);
    if (!maps || !own_grid)
    {
        // The panel's views lay themselves out: give them the rectangle right of the plots.
        layout.curves.w = std::min(layout.curves.w, min_left);
        layout.text.w = layout.curves.w;
        layout.maps = LayoutRect{layout.curves.w + gap, 0.0f, avail.x - layout.curves.w - gap, area_h};
    }

    ImGui::SetCursorScreenPos(ImVec2(origin.x + layout.curves.x, origin.y + layout.curves.y));
    ImGui::BeginChild("presenter_curves", ImVec2(layout.curves.w, layout.curves.h), false, kPart);
    curves_column(state, f, ImGui::GetContentRegionAvail(), layout.plots_below);
    ImGui::EndChild();
    if (text && layout.text.h > 0.0f)
    {
        ImGui::SetCursorScreenPos(ImVec2(origin.x + layout.text.x, origin.y + layout.text.y));
        ImGui::BeginChild("presenter_text", ImVec2(layout.text.w, layout.text.h), false, kPart);
        text_column(state, f, ImGui::GetContentRegionAvail());
        ImGui::EndChild();
    }
    ImGui::SetCursorScreenPos(ImVec2(origin.x + layout.maps.x, origin.y + layout.maps.y));
    ImGui::BeginChild("presenter_maps", ImVec2(layout.maps.w, layout.maps.h), false, kPart);
    if (own_grid && !layout.grid.maps.empty())
    {
        const MapBox& b = boxes.front();
        const float side = b.left + layout.grid.cell * static_cast<float>(b.cols);
        // The grid's first image row sets where its titles start (the grid is centred down the view).
        const float top = std::max(0.0f, layout.grid.maps.front().image.y - b.top);
        ImGui::SetCursorPos(ImVec2(ImGui::GetCursorPosX(), ImGui::GetCursorPosY() + top));
        draw_training_heads(state, side, gap, layout.grid.columns > per_layer);
    }
    else
        draw_training_maps(state);
    ImGui::EndChild();
    const float parts_h = std::max(area_h, layout.height);
    if (strip_h > 0.0f)
    {
        ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + parts_h + gap));
        ImGui::BeginChild("presenter_strip", ImVec2(avail.x, strip_h), false, kPart);
        draw_loss_strip_cells(strip_cells, avail.x);
        draw_loss_strip_legend(strip_cells);
        ImGui::EndChild();
    }
    // Parts taller than the view (text enlarged with Ctrl+=): the view scrolls down to their end.
    if (parts_h > area_h + 0.5f)
    {
        ImGui::SetCursorScreenPos(origin);
        ImGui::Dummy(ImVec2(avail.x, parts_h + (strip_h > 0.0f ? strip_h + gap : 0.0f)));
    }
}

} // namespace attnlab
