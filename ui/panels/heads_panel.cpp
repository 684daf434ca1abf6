// Heads panel: all h attention maps of the selected layer as small multiples; click one to select the head,
// hover a query row to see that row in every head.
#include "ui/heatmap.h"
#include "ui/panels/panels.h"
#include "ui/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace attnlab
{

namespace
{

// The grid (columns) that makes square maps of h heads largest inside w x avail_h, with title rows.
int best_columns(int h, float w, float avail_h, float title_h, float gap)
{
    int best = 1;
    float best_side = 0.0f;
    for (int ncols = 1; ncols <= h; ++ncols)
    {
        const int nrows = (h + ncols - 1) / ncols;
        const float side_w = (w - gap * (ncols - 1)) / ncols;
        const float side_h = (avail_h - nrows * (title_h + gap)) / nrows;
        const float side = std::min(side_w, side_h);
        if (side > best_side + 0.5f)
        {
            best_side = side;
            best = ncols;
        }
    }
    return best;
}

} // namespace

void draw_heads_panel(AppState& state)
{
    if (!state.has_trace())
    {
        ImGui::TextDisabled("No result yet.");
        return;
    }
    const Trace& t = state.trace();
    const int h = state.heads();
    const int T = t.T();
    const std::vector<std::string>& tokens = t.tokens.tokens[static_cast<std::size_t>(state.sel.b)];

    ImGui::Text("weights A_h of layer %d, sentence b = %d: one T×T map per head (T = %d)",
                state.sel.layer + 1, state.sel.b, T);
    trained_view_banner(state);
    // Honesty: seeded weights have learned nothing, so no pattern here is a head's "job".
    if (!state.showing_trained() && !state.engine.has_imported_weights())
        ImGui::TextWrapped(
            "random weights (seed %llu), untrained: no head has learned anything yet. The Training "
            "panel (Alt+8) trains a model and shows heads that have.",
            static_cast<unsigned long long>(t.config.seed));

    // [SECTION] Query tokens: hovering one highlights its row in every head.
    if (T <= 48)
    {
        ImGui::TextDisabled("query");
        for (int i = 0; i < T; ++i)
        {
            ImGui::SameLine(0.0f, 3.0f);
            if (ImGui::GetContentRegionAvail().x <
                ImGui::CalcTextSize(tokens[static_cast<std::size_t>(i)].c_str()).x + 12.0f)
                ImGui::NewLine();
            ImGui::PushID(i);
            const bool lit = i == state.heads_hover_row;
            if (lit)
                ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyle().Colors[ImGuiCol_ButtonActive]);
            ImGui::SmallButton(tokens[static_cast<std::size_t>(i)].c_str());
            if (lit)
                ImGui::PopStyleColor();
            if (ImGui::IsItemHovered() && !state.mouse_ignored)
                state.heads_hover_row_next = i;
            ImGui::PopID();
        }
    }

    // [SECTION] Shared colour bar, then the grid
    const float fs = ImGui::GetFontSize();
    const bool stretch = state.prefs.stretch_weights;
    ImGui::TextDisabled(stretch ? "colour: weight, stretched" : "colour: weight in [0, 1]");
    ImGui::SameLine();
    {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        ImDrawList* dl = ImGui::GetWindowDrawList();
        const auto& table = colormap_table(Colormap::Sequential);
        const float bw = fs * 10.0f;
        for (int s = 0; s < 32; ++s)
        {
            const ImU32 a = table[static_cast<std::size_t>(s * 255 / 31)];
            const ImU32 b = table[static_cast<std::size_t>(std::min(255, (s + 1) * 255 / 31))];
            dl->AddRectFilledMultiColor(ImVec2(p.x + bw * s / 32, p.y + 2),
                                        ImVec2(p.x + bw * (s + 1) / 32, p.y + fs - 2), a, b, b, a);
        }
        ImGui::Dummy(ImVec2(bw, fs));
        ImGui::SameLine();
        ImGui::TextDisabled(stretch ? "0 … p95   (grey: masked)" : "0 … 1   (grey: masked)");
        // Presenter mode shows the maps, not the controls: the choice made before the lecture stays.
        if (!state.presenter)
        {
            ImGui::Checkbox("stretch colours", &state.prefs.stretch_weights);
            if (!stretch && T >= 32)
            {
                ImGui::SameLine();
                ImGui::TextDisabled("(T = %d: weights average 1/T, stretching shows them)", T);
            }
        }
        item_tooltip(
            "Colour each map from 0 to its 95th percentile instead of 0 to 1 (larger weights saturate). "
            "With many tokens the "
            "weights are near 1/T and a [0, 1] scale shows them all dark. H is each head's mean row "
            "entropy in nats (0: one-hot rows, ln T: uniform).");
    }

    const float gap = fs * 0.6f;
    const float title_h = ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const int ncols = best_columns(h, avail.x, avail.y, title_h, gap);
    // The maps fit the panel's height as well as its width: a grid taller than the panel would bring a
    // scrollbar, which narrows the panel, which shrinks the grid, which removes the scrollbar, frame after
    // frame.
    const int nrows = (h + ncols - 1) / ncols;
    const float side_h = (avail.y - static_cast<float>(nrows) * (title_h + gap)) / static_cast<float>(nrows);
    // `side` is a grid cell's width (labels and map); the map's square image is at most side_h tall.
    const float side = std::max(48.0f, (avail.x - gap * (ncols - 1)) / ncols);
    const float image_max = std::max(32.0f, std::min(side, side_h));
    // Row (query) labels when the map beside them keeps cells of 1.2 font sizes (labels take the map's width:
    // "September" left 8 px maps in a 100 px column); keys are named in the tooltip and the Inspector.
    float label_w = 0.0f;
    if (T <= 24)
        for (const std::string& token : tokens)
            label_w = std::max(label_w, ImGui::CalcTextSize(token.c_str()).x + 6.0f);
    const bool labels = T <= 24 && std::min(side - label_w, image_max) / std::max(1, T) >= fs * 1.2f;

    MatrixRef ref;
    ref.source = MatrixSource::Layer;
    ref.stage = Stage::weights;
    ref.layer = state.sel.layer;
    ref.b = state.sel.b;
    // Columns at fixed positions, so a title wider than its map cannot push the grid apart.
    const float grid_x = ImGui::GetCursorPosX();
    for (int j = 0; j < h; ++j)
    {
        if (j % ncols != 0)
            ImGui::SameLine(grid_x + static_cast<float>(j % ncols) * (side + gap));
        ImGui::PushID(j);
        ImGui::BeginGroup();
        const Color32 c = head_color(j);
        const bool selected = j == state.sel.head;
        ImGui::PushStyleColor(ImGuiCol_Text, head_text_color(j));
        ref.head = j;
        // The title must not be wider than the map, or the grid's columns drift apart.
        char title[64];
        const double H = static_cast<double>(state.mean_entropy(ref));
        std::snprintf(title, sizeof title, "head %d%s  H = %.2f", j + 1, selected ? " (selected)" : "", H);
        if (ImGui::CalcTextSize(title).x > side)
            std::snprintf(title, sizeof title, "head %d  H = %.2f", j + 1, H);
        if (ImGui::CalcTextSize(title).x > side)
            std::snprintf(title, sizeof title, "%d: %.2f", j + 1, H);
        ImGui::TextUnformatted(title);
        ImGui::PopStyleColor();
        HeatmapOptions options;
        options.width = side;
        options.labels = labels;
        options.col_labels = false;
        options.colorbar = false;
        options.frame_color = c;
        options.frame_thickness = selected ? 4.0f : 1.5f;
        options.highlight_row = state.heads_hover_row;
        options.pin_on_click = false;
        options.max_cell_px = image_max / static_cast<float>(std::max(1, T)); // square cells
        options.max_height = image_max;
        const HeatmapResult r = draw_heatmap(state, ref, options);
        if (r.hovered)
            state.heads_hover_row_next = r.row;
        if (r.clicked)
            state.sel.head = j;
        ImGui::EndGroup();
        ImGui::PopID();
    }
}

} // namespace attnlab
