// The Pipeline's logit lens: what the residual stream after each layer of an opened model would predict if
// the model stopped there (its output head applied to it), as a layers x positions table of tokens coloured
// by their probability.
#include "ui/panels/pipeline_panel_views.h"
#include "ui/picture/colormap.h"
#include "ui/picture/heatmap_math.h"
#include "ui/shell/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace attnlab
{

namespace
{

// A token cut to fit `width` pixels (an ellipsis at the end when cut).
std::string fit_token(const std::string& token, float width)
{
    // The longest cut of whole characters (truncate_utf8 adds the ellipsis) that fits.
    for (int n = utf8_length(token); n > 0; --n)
    {
        std::string cut = truncate_utf8(token, n);
        if (ImGui::CalcTextSize(cut.c_str()).x <= width)
            return cut;
    }
    return "";
}

// How many GFLOP one lens costs: layers + 1 output heads of T rows through d_model x V.
double lens_gflop(const Trace& t, int layers)
{
    const double T = static_cast<double>(t.T());
    const double d = static_cast<double>(t.config.d_model);
    const double V = static_cast<double>(t.vocabulary.size());
    return 2.0 * static_cast<double>(layers + 1) * T * d * V * 1e-9;
}

void lens_table(AppState& state, const Trace& t, const train::LogitLens& lens)
{
    const std::vector<std::string>& tokens = t.tokens.tokens[0];
    const bool causal = t.config.mask == MaskKind::Causal;
    const float fs = ImGui::GetFontSize();
    const float row_h = ImGui::GetTextLineHeightWithSpacing() + 2.0f;
    const float label_w = ImGui::CalcTextSize("after layer 12 ").x + fs;
    const float cell_w = fs * 5.5f;
    const int T = lens.T;
    const float table_w = label_w + cell_w * static_cast<float>(T);
    const float table_h = row_h * static_cast<float>(lens.n_layers + 2);
    const float child_h = table_h + ImGui::GetStyle().ScrollbarSize + 4.0f;
    if (!ImGui::BeginChild("##lens", ImVec2(0.0f, child_h), false, ImGuiWindowFlags_HorizontalScrollbar))
    {
        ImGui::EndChild();
        return;
    }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##lens_cells", ImVec2(table_w, table_h));
    const bool over = ImGui::IsItemHovered() && !state.mouse_ignored;
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    // The input tokens across the top.
    for (int c = 0; c < T; ++c)
    {
        const std::string tok = fit_token(tokens[static_cast<std::size_t>(c)], cell_w - 6.0f);
        dl->AddText(ImVec2(origin.x + label_w + static_cast<float>(c) * cell_w + 3.0f, origin.y), text,
                    tok.c_str());
    }
    ColorScale scale;
    scale.kind = ScaleKind::Probability;
    scale.lo = 0.0f;
    scale.hi = 1.0f;
    int hover_row = -1, hover_col = -1;
    for (int r = 0; r <= lens.n_layers; ++r)
    {
        const float y = origin.y + row_h * static_cast<float>(r + 1);
        char label[48];
        if (r == 0)
            std::snprintf(label, sizeof label, "embeddings");
        else
            std::snprintf(label, sizeof label, "after layer %d", r);
        dl->AddText(ImVec2(origin.x, y + 1.0f), r == lens.n_layers ? text : dim, label);
        for (int c = 0; c < T; ++c)
        {
            const train::TokenProb& tp = lens.at(r, c);
            const ImVec2 p0(origin.x + label_w + static_cast<float>(c) * cell_w, y);
            const ImVec2 p1(p0.x + cell_w - 2.0f, y + row_h - 2.0f);
            const Color32 fill = value_to_color(std::isfinite(tp.p) ? tp.p : 0.0f, scale);
            dl->AddRectFilled(p0, p1, fill);
            const bool known = tp.id >= 0 && tp.id < static_cast<int>(t.vocabulary.size());
            const std::string tok =
                fit_token(known ? t.vocabulary[static_cast<std::size_t>(tp.id)] : "?", cell_w - 8.0f);
            dl->AddText(ImVec2(p0.x + 3.0f, p0.y + 1.0f), text_color_on(fill), tok.c_str());
            if (over && ImGui::IsMouseHoveringRect(p0, p1))
            {
                hover_row = r;
                hover_col = c;
                dl->AddRect(p0, p1, IM_COL32(255, 255, 255, 255), 0.0f, 0, 2.0f);
            }
        }
    }
    // The model's own prediction: a line above the last row.
    const float last_y = origin.y + row_h * static_cast<float>(lens.n_layers + 1) - 1.0f;
    dl->AddLine(ImVec2(origin.x, last_y), ImVec2(origin.x + table_w, last_y), text, 1.0f);
    if (hover_row >= 0)
    {
        const train::TokenProb& tp = lens.at(hover_row, hover_col);
        const bool known = tp.id >= 0 && tp.id < static_cast<int>(t.vocabulary.size());
        ImGui::BeginTooltip();
        if (hover_row == 0)
            ImGui::TextUnformatted("the embeddings (before layer 1) through the output head");
        else
            ImGui::Text("the residual stream after layer %d through the output head%s", hover_row,
                        hover_row == lens.n_layers ? ": the model's own prediction" : "");
        ImGui::Text("position i = %d “%s”: %s “%s” with p = %s", hover_col,
                    tokens[static_cast<std::size_t>(hover_col)].c_str(), causal ? "next token" : "token",
                    known ? t.vocabulary[static_cast<std::size_t>(tp.id)].c_str() : "?",
                    format_probability(tp.p).c_str());
        ImGui::EndTooltip();
    }
    ImGui::EndChild();
}

} // namespace

void draw_logit_lens(AppState& state, const Trace& t)
{
    if (!state.showing_opened() || t.vocabulary.empty() || t.batch_size() < 1)
        return;
    const int layers = static_cast<int>(t.layers.size());
    ImGui::Spacing();
    // The header follows the request, so a session or a test that asks for the lens finds it open.
    ImGui::SetNextItemOpen(state.opened.lens_wanted, ImGuiCond_Always);
    const bool open = ImGui::CollapsingHeader("Logit lens: what each layer would predict");
    if (ImGui::IsItemHovered() && !state.mouse_ignored)
        ImGui::SetTooltip(
            "The output head (%s) applied to the residual stream after every layer, as if the model "
            "stopped there. Costs about %.0f GFLOP a run, so it is computed only while this is open.",
            t.embed_norm.empty() ? "final LayerNorm and unembedding" : "the masked-LM head",
            lens_gflop(t, layers));
    want_logit_lens(state, open);
    state.opened.lens_drawn = true;
    state.opened.lens_hidden = false;
    if (!open)
        return;
    const OpenedRun& run = state.opened.run;
    if (!run.has_lens || run.lens.T != t.T() || run.lens.n_layers != layers)
    {
        // Shown again after runs that skipped it while hidden: ask for a run that computes it.
        if (!state.opened.lens_requested)
            state.edit();
        ImGui::TextDisabled("computing: the output head on %d layers, about %.0f GFLOP…", layers + 1,
                            lens_gflop(t, layers));
        return;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    text_wrappedf("Rows: the residual stream after each layer through the output head. Cells: its top %s, "
                  "coloured by its probability (0 … 1). The last row is the model's own prediction: read a "
                  "column downwards to see when the model settles on it.",
                  t.config.mask == MaskKind::Causal ? "next token" : "token");
    ImGui::PopStyleColor();
    lens_table(state, t, run.lens);
}

} // namespace attnlab
