// Comparisons panel: packed X W^Q vs per-head Q_h, two-step vs collapsed projection, single vs multi-head.
#include "ui/heatmap/heatmap.h"
#include "ui/model/lessons.h"
#include "ui/panels/panels.h"
#include "ui/picture/heatmap_math.h"
#include "ui/picture/step_maps.h"
#include "ui/shell/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <string>

namespace attnlab
{

namespace
{

// Heatmaps side by side, each with its header, at most max_height tall.
void side_by_side(AppState& state, const std::vector<MatrixRef>& refs, float max_height)
{
    const float n = static_cast<float>(refs.size());
    const float w = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x * (n - 1.0f)) / n;
    HeatmapOptions options;
    options.width = w;
    options.max_height = max_height;
    options.max_cell_px = std::max(48.0f, ImGui::GetFontSize() * 3.0f);
    for (std::size_t k = 0; k < refs.size(); ++k)
    {
        if (k > 0)
            ImGui::SameLine();
        ImGui::PushID(static_cast<int>(k));
        ImGui::BeginGroup();
        const MatrixView view = resolve_matrix(state, refs[k]);
        text_wrapped(view.title, w);
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w);
        ImGui::TextDisabled("%s  [%s]", view.equation.c_str(), view.shape.c_str());
        ImGui::PopTextWrapPos();
        draw_heatmap(state, refs[k], options);
        ImGui::EndGroup();
        ImGui::PopID();
    }
}

void side_by_side(AppState& state, const MatrixRef& left, const MatrixRef& right, float max_height)
{
    side_by_side(state, std::vector<MatrixRef>{left, right}, max_height);
}

// A section's heading: a collapsing header when every section is shown, an accent title when a lesson step
// shows only this one (nothing to fold, and the caption reads it out).
bool section_header(const char* title, bool alone)
{
    if (!alone)
        return ImGui::CollapsingHeader(title, ImGuiTreeNodeFlags_DefaultOpen);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_PlotHistogram]);
    ImGui::TextUnformatted(title);
    ImGui::PopStyleColor();
    return true;
}

// Height left for a section's maps: when a section is shown alone it fills the panel.
// label_rows: the column labels' height in font sizes (2 for numbers, about 5 for tokens written upwards).
float maps_height(bool alone, float rows_of_maps, float default_rows, float label_rows)
{
    const float fs = ImGui::GetFontSize();
    if (!alone)
        return fs * default_rows;
    // Per row of maps: the title and equation lines (which may wrap) and the column labels under the map.
    const float per_map_chrome = ImGui::GetTextLineHeightWithSpacing() * 3.0f + fs * label_rows;
    return std::max(fs * 4.0f, ImGui::GetContentRegionAvail().y / rows_of_maps - per_map_chrome);
}

// A largest difference between two ways of computing the same numbers: 0 is the same bits; anything else
// is float rounding (the products add their terms in another order), which the text says instead of leaving
// "exactly" beside 2.4e-07.
std::string rounding_said(float diff)
{
    if (diff == 0.0f)
        return "0, the same bits";
    return format_value(diff) + ", float rounding only (the two add their terms in a different order)";
}

// [SECTION] (a) One big matmul is h heads
void packed_section(AppState& state, bool alone)
{
    if (!section_header("Packed X W^Q is h heads side by side", alone))
        return;
    const Comparisons& c = state.comparisons;
    const int h = state.heads();
    text_wrappedf(
        "Implementations compute one T×d_model · d_model×(h·d_k) product. Its columns come in h "
        "blocks (white lines); block h is Q_h of head h (heads counted from 1), and each block makes "
        "its own T×T attention map. Largest difference between a block and its Q_h: %s",
        rounding_said(c.packed_max_diff).c_str());
    const float height = maps_height(alone, 2.0f, 14.0f, 2.0f);
    HeatmapOptions options;
    options.max_height = height;
    const std::vector<MatrixRef> maps =
        comparison_maps(state, ComparisonSection::Packed); // packed, Q_1 … Q_h
    ImGui::PushID("packed");
    draw_heatmap(state, maps[0], options);
    ImGui::PopID();
    ImGui::TextDisabled("the per-head Q_h (each on its own colour scale):");
    const float w = std::max(60.0f, (ImGui::GetContentRegionAvail().x - 8.0f * (h - 1)) / std::max(1, h));
    for (int j = 0; j < h; ++j)
    {
        if (j > 0)
            ImGui::SameLine(0.0f, 8.0f);
        ImGui::PushID(j);
        ImGui::BeginGroup();
        ImGui::PushStyleColor(ImGuiCol_Text, head_text_color(j));
        ImGui::Text("Q_%d", j + 1);
        ImGui::PopStyleColor();
        HeatmapOptions small;
        small.width = w;
        small.labels = false;
        small.colorbar = false;
        small.frame_color = head_color(j);
        small.max_height = alone ? height : ImGui::GetFontSize() * 10.0f;
        draw_heatmap(state, maps[static_cast<std::size_t>(1 + j)], small);
        ImGui::EndGroup();
        ImGui::PopID();
    }
}

// [SECTION] (b) Two linear maps in a row are one
void two_step_section(AppState& state, bool alone)
{
    if (!section_header("Two steps (X W^Q) W_h^Q = one matrix X (W^Q W_h^Q)", alone))
        return;
    const int j = state.sel.head + 1;
    text_wrappedf("Some slides project twice: q = x W^Q, then q W_h^Q. Two linear maps in a row collapse "
                  "into one, W^Q W_h^Q, so the paper has only one per head. Largest difference: %s. The "
                  "extra W^Q (d_model×d_model) is made up for the question: these are X (W^Q "
                  "W_%d^Q), not the model's Q_%d = X W_%d^Q of the Pipeline.",
                  rounding_said(state.comparisons.two_step_max_diff).c_str(), j, j, j);
    const std::vector<MatrixRef> maps = comparison_maps(state, ComparisonSection::TwoStep);
    ImGui::PushID("collapse");
    side_by_side(state, maps, maps_height(alone, 1.0f, 13.0f, 2.0f));
    ImGui::PopID();
}

// [SECTION] (c) Single-head is a different function
void single_head_section(AppState& state, bool alone)
{
    if (!section_header("Single-head vs multi-head", alone))
        return;
    const float diff = state.comparisons.single_vs_multi_max_diff;
    if (state.heads() == 1)
        text_wrappedf("With h = 1 and d_k = d_model the one head IS single-head attention: the outputs "
                      "differ by %s, float rounding only.",
                      format_value_long(diff).c_str());
    else
        text_wrappedf("One head over the packed matrices has ONE T×T map; multi-head has h of them, each "
                      "from its own column block, and the softmax sits between. Across the softmax "
                      "nothing collapses: the outputs differ by up to %s (not rounding).",
                      format_value_long(diff).c_str());
    const float height = maps_height(alone, 2.0f, 16.0f, 5.0f);
    // The single head's weights beside the selected head's, then the two outputs.
    const std::vector<MatrixRef> maps = comparison_maps(state, ComparisonSection::SingleHead);
    ImGui::PushID("single");
    side_by_side(state, maps[0], maps[1], height);
    side_by_side(state, maps[2], maps[3], height);
    ImGui::PopID();
}

} // namespace

void draw_comparisons_panel(AppState& state)
{
    if (!state.has_trace())
    {
        no_result_yet(state);
        return;
    }
    trained_view_banner(state);
    state.ensure_comparisons();
    const StepMaps step = step_maps(state, current_step(state));
    const ComparisonSection only =
        step.kind == StepMapsKind::Comparisons ? step.comparison : ComparisonSection::All;
    if (!state.presenter)
        ImGui::TextDisabled(
            "layer %d, sentence %d, head %d (change them in the Pipeline; [ and ] switch heads)",
            state.sel.layer + 1, state.sel.b + 1, state.sel.head + 1);
    const bool all = only == ComparisonSection::All;
    if (shows_comparison(only, ComparisonSection::Packed))
        packed_section(state, !all);
    if (shows_comparison(only, ComparisonSection::TwoStep))
        two_step_section(state, !all);
    if (shows_comparison(only, ComparisonSection::SingleHead))
        single_head_section(state, !all);
}

} // namespace attnlab
