// The Pipeline's "whole batch" view: a stage as the stack of its B sentences' matrices, with the tensor's
// shape written as the forum's thread writes it ([2, 3, 3]).
#include "ui/model/batch_stack.h"
#include "ui/panels/pipeline_panel_views.h"
#include "ui/shell/widgets.h"

#include <imgui.h>

#include <algorithm>

namespace attnlab
{

void pipeline_batch_toggle(AppState& state)
{
    if (!state.has_trace() || state.trace().batch_size() < 2)
        return;
    const char* label = "whole batch";
    const ImGuiStyle& style = ImGui::GetStyle();
    const float width = ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (ImGui::GetItemRectMax().x + style.ItemSpacing.x + width <= right)
        ImGui::SameLine();
    ImGui::Checkbox(label, &state.prefs.whole_batch);
    item_tooltip(
        "Each stage as its whole tensor [B, T, ·]: the matrices of the B sentences one below the "
        "other, b = 0 first, as a batch holds them (Q_h of [2, 3, 4] and K_hᵀ give scores of [2, 3, "
        "3]: one T×T map per sentence, never mixing sentences). Off: the sentence the slider picks.");
}

bool draw_stage_batch(AppState& state, const MatrixRef& ref, const HeatmapOptions& options)
{
    if (!state.prefs.whole_batch)
        return false;
    const BatchStack stack = batch_stack(state, ref);
    if (stack.slices.empty())
        return false;
    const int B = static_cast<int>(stack.slices.size());
    ImGui::TextUnformatted(stack.caption().c_str());
    ImGui::SameLine();
    // Wrapped: in a narrow panel the rest goes under the caption rather than past the edge.
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    text_wrappedf("= %s: %d slices, one per sentence", stack.symbols.c_str(), B);
    ImGui::PopStyleColor();
    // The slices share the height one map would take (two or three fit where one was), never below a few
    // lines each.
    const float fs = ImGui::GetFontSize();
    HeatmapOptions slice = options;
    if (options.max_height > 0.0f)
        slice.max_height = std::max(fs * 4.0f, options.max_height / static_cast<float>(std::min(B, 3)));
    if (options.max_total_height > 0.0f)
        slice.max_total_height = std::max(fs * 6.0f, options.max_total_height / static_cast<float>(B));
    const ImU32 selected_color = ImGui::GetColorU32(ImGuiCol_PlotHistogram);
    const ImU32 card_color = ImGui::GetColorU32(ImGuiCol_Border);
    const float pad = 4.0f;
    ImGui::Indent(pad * 2.0f);
    for (int b = 0; b < B; ++b)
    {
        const BatchSlice& s = stack.slices[static_cast<std::size_t>(b)];
        const bool selected = b == state.sel.b;
        ImGui::PushID(b);
        ImGui::Dummy(ImVec2(0.0f, pad));
        ImGui::BeginGroup();
        if (selected)
            ImGui::TextUnformatted(s.label.c_str());
        else
            ImGui::TextDisabled("%s", s.label.c_str());
        if (ImGui::IsItemClicked())
            state.sel.b = b;
        item_tooltip("Click: make this the selected sentence (the one-sentence view, the Heads panel and the "
                     "Inspector show it).");
        draw_heatmap(state, s.ref, slice);
        ImGui::EndGroup();
        // A card around each slice; the selected sentence's is drawn in the accent colour.
        const ImVec2 a = ImGui::GetItemRectMin(), c = ImGui::GetItemRectMax();
        ImGui::GetWindowDrawList()->AddRect(ImVec2(a.x - pad, a.y - pad), ImVec2(c.x + pad, c.y + pad),
                                            selected ? selected_color : card_color, 3.0f, 0,
                                            selected ? 2.0f : 1.0f);
        ImGui::Dummy(ImVec2(0.0f, pad));
        ImGui::PopID();
    }
    ImGui::Unindent(pad * 2.0f);
    return true;
}

} // namespace attnlab
