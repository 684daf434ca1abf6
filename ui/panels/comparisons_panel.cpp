// Comparisons panel: packed X W^Q vs per-head Q_h, two-step vs collapsed projection, single vs multi-head.
#include "ui/heatmap.h"
#include "ui/heatmap_math.h"
#include "ui/panels/panels.h"
#include "ui/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <string>

namespace attnlab
{

namespace
{

MatrixRef comparison_ref(const AppState& state, ComparisonMatrix which)
{
    MatrixRef ref;
    ref.source = MatrixSource::Comparison;
    ref.comparison = which;
    ref.layer = state.sel.layer;
    ref.b = state.sel.b;
    ref.head = state.sel.head;
    return ref;
}

MatrixRef layer_ref(const AppState& state, Stage stage, int head)
{
    MatrixRef ref;
    ref.stage = stage;
    ref.layer = state.sel.layer;
    ref.b = state.sel.b;
    ref.head = head;
    return ref;
}

// Two heatmaps side by side, each with its header.
void side_by_side(AppState& state, const MatrixRef& left, const MatrixRef& right)
{
    const float w = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
    HeatmapOptions options;
    options.width = w;
    options.max_height = ImGui::GetFontSize() * 16.0f;
    for (int k = 0; k < 2; ++k)
    {
        const MatrixRef& ref = k == 0 ? left : right;
        if (k == 1)
            ImGui::SameLine();
        ImGui::PushID(k);
        ImGui::BeginGroup();
        const MatrixView view = resolve_matrix(state, ref);
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w);
        ImGui::TextWrapped("%s", view.title.c_str());
        ImGui::TextDisabled("%s  [%s]", view.equation.c_str(), view.shape.c_str());
        ImGui::PopTextWrapPos();
        draw_heatmap(state, ref, options);
        ImGui::EndGroup();
        ImGui::PopID();
    }
}

} // namespace

void draw_comparisons_panel(AppState& state)
{
    if (!state.has_trace())
    {
        ImGui::TextDisabled("No result yet.");
        return;
    }
    state.ensure_comparisons();
    const Comparisons& c = state.comparisons;
    const int h = state.heads();
    const std::string hj = std::to_string(state.sel.head + 1);
    ImGui::TextDisabled(
        "layer %d, sentence b = %d, head %s (change them in the Pipeline; [ and ] switch heads)",
        state.sel.layer + 1, state.sel.b, hj.c_str());

    // [SECTION] (a) One big matmul is h heads
    if (ImGui::CollapsingHeader("Packed X W^Q is h heads side by side", ImGuiTreeNodeFlags_DefaultOpen))
    {
        ImGui::TextWrapped(
            "Implementations compute one T×d_model · d_model×(h·d_k) product. Its columns come in h "
            "blocks (white lines); block j is exactly Q_j of head j, and each block makes its own "
            "T×T attention map. Largest difference between a block and Q_j: %s",
            format_value_long(c.packed_max_diff).c_str());
        HeatmapOptions options;
        options.max_height = ImGui::GetFontSize() * 14.0f;
        ImGui::PushID("packed");
        draw_heatmap(state, comparison_ref(state, ComparisonMatrix::Q_packed), options);
        ImGui::PopID();
        ImGui::TextDisabled("the per-head Q_j:");
        const float w = std::max(60.0f, (ImGui::GetContentRegionAvail().x - 8.0f * (h - 1)) / std::max(1, h));
        for (int j = 0; j < h; ++j)
        {
            if (j > 0)
                ImGui::SameLine(0.0f, 8.0f);
            ImGui::PushID(j);
            ImGui::BeginGroup();
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(head_color(j)));
            ImGui::Text("Q_%d", j + 1);
            ImGui::PopStyleColor();
            HeatmapOptions small;
            small.width = w;
            small.labels = false;
            small.colorbar = false;
            small.frame_color = head_color(j);
            small.max_height = ImGui::GetFontSize() * 10.0f;
            draw_heatmap(state, layer_ref(state, Stage::Q, j), small);
            ImGui::EndGroup();
            ImGui::PopID();
        }
    }

    // [SECTION] (b) Two linear maps in a row are one
    if (ImGui::CollapsingHeader("Two steps (X W^Q) W_h^Q = one matrix X (W^Q W_h^Q)",
                                ImGuiTreeNodeFlags_DefaultOpen))
    {
        ImGui::TextWrapped(
            "Some slides project twice: q = x W^Q, then q W_h^Q. Two linear maps in a row collapse "
            "into one, W^Q W_h^Q, so the paper has only one per head. Largest difference: %s "
            "(rounding only).",
            format_value_long(c.two_step_max_diff).c_str());
        ImGui::PushID("collapse");
        side_by_side(state, comparison_ref(state, ComparisonMatrix::Q_two_step),
                     comparison_ref(state, ComparisonMatrix::Q_collapsed));
        ImGui::PopID();
    }

    // [SECTION] (c) Single-head is a different function
    if (ImGui::CollapsingHeader("Single-head vs multi-head", ImGuiTreeNodeFlags_DefaultOpen))
    {
        ImGui::TextWrapped(
            "One head over the packed matrices has ONE T×T map; multi-head has h of them, each "
            "from its own column block, and the softmax sits between. Across the softmax nothing "
            "collapses: the outputs differ by up to %s (not rounding).",
            format_value_long(c.single_vs_multi_max_diff).c_str());
        ImGui::PushID("single");
        side_by_side(state, comparison_ref(state, ComparisonMatrix::single_weights),
                     layer_ref(state, Stage::weights, state.sel.head));
        side_by_side(state, comparison_ref(state, ComparisonMatrix::single_out),
                     layer_ref(state, Stage::mha, 0));
        ImGui::PopID();
    }
}

} // namespace attnlab
