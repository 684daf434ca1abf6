// The Training panel's "every stage" view: every intermediate of one layer and head of the trained model on
// the probe, from X to the next-token probabilities, each with its equation and shape.
#include "core/train/model_trace.h"
#include "ui/panels/training_panel_views.h"
#include "ui/shell/widgets.h"

#include <algorithm>
#include <cstdio>

namespace attnlab
{

namespace
{

// One matrix of the pass with what it is.
struct StageView
{
    std::string name, equation;
    Mat m;
    bool probability = false;
    bool masked = false; // T x T with the causal mask's hatching
};

std::vector<StageView> stage_views(const TrainingPanelState& ts, int l, int j)
{
    const TrainingProbe& pr = ts.probe;
    const train::ModelConfig& c = ts.view.model;
    const train::Activations& a = pr.acts();
    const train::LayerActsT<float>& la = a.layers[static_cast<std::size_t>(l)];
    const int h = c.n_heads, T = pr.T(), d_k = c.d_k();
    const bool pre = c.norm == train::NormPlacement::Pre;
    const std::string L = std::to_string(l + 1), H = std::to_string(j + 1);
    std::vector<StageView> out;
    const auto add = [&](std::string name, std::string eq, const Mat& m, bool prob = false,
                         bool masked = false) {
        out.push_back({std::move(name), std::move(eq), m, prob, masked});
    };
    add("X (layer " + L + " input)",
        l == 0 ? (c.positions == train::PositionKind::None ? "X = E[tokens]  (no positional encoding)"
                                                           : "X = E[tokens] + P[0..T)")
               : "X = output of layer " + std::to_string(l),
        la.X);
    if (pre)
        add("LN1(X)", "LayerNorm of each row: (x − mean) / √(var + ε) · γ + β", la.ln1);
    const std::string in = pre ? "LN1(X)" : "X";
    add("Q_" + H, "Q_h = " + in + " W_h^Q", train::head_cols(la.Q, j, d_k));
    add("K_" + H, "K_h = " + in + " W_h^K", train::head_cols(la.K, j, d_k));
    add("V_" + H, "V_h = " + in + " W_h^V", train::head_cols(la.V, j, d_k));
    add("scores", "Q_h K_hᵀ", train::attention_block(la.scores, 0, j, h, T));
    add("scaled", "Q_h K_hᵀ / √d_k, d_k = " + std::to_string(d_k),
        train::attention_block(la.scaled, 0, j, h, T));
    if (c.causal)
        add("masked", "scaled + M (M = −∞ where the key is after the query)",
            train::attention_block(la.masked, 0, j, h, T), false, true);
    add("A_" + H, "softmax along each row", pr.weights(l * h + j), true, c.causal);
    add("∂L/∂A_" + H, "how the probe's loss changes with each weight", pr.dweights(l * h + j), false,
        c.causal);
    add("head_" + H, "A_h V_h", train::head_cols(la.concat, j, d_k));
    add("concat", "[head_1 … head_" + std::to_string(h) + "]", la.concat);
    add("mha", "concat W_O", la.mha);
    if (c.residual)
        add(pre ? "A = X + mha" : "X + mha", "the residual: the layer adds to its input", la.residual);
    else
        add(pre ? "A = mha" : "mha (no residual)", "residual off: X is not added back", la.residual);
    if (!pre)
        add(c.residual ? "LN1(X + mha)" : "LN1(mha)", "LayerNorm of each row", la.ln1);
    if (c.has_ffn())
    {
        if (pre)
            add("LN2(A)", "LayerNorm of each row", la.ln2);
        add("max(0, x W_1 + b_1)", "the FFN's hidden layer, d_ff = " + std::to_string(c.resolved_d_ff()),
            la.ffn_hidden);
        add("FFN", "max(0, x W_1 + b_1) W_2 + b_2", la.ffn);
        if (c.residual)
            add(pre ? "A + FFN" : "residual + FFN", "the second residual", la.residual2);
        else
            add("FFN (no residual)", "residual off: nothing is added back", la.residual2);
        if (!pre)
            add("LN2(...)", "LayerNorm of each row: the layer's output", la.ln2);
    }
    if (l + 1 == c.n_layers)
    {
        if (c.has_final_norm())
            add("LN_f", "the final LayerNorm", a.lnf);
        add("logits", "Z W_U + b_U", pr.logits());
        add("probs", "softmax(logits) along each row: the next token", pr.probs(), true);
    }
    return out;
}

} // namespace

void draw_training_stages(AppState& state)
{
    TrainingPanelState& ts = state.training;
    const TrainingProbe& pr = ts.probe;
    const float fs = ImGui::GetFontSize();
    ImGui::SetNextItemWidth(fs * 6.0f);
    ts.stage_layer = std::clamp(ts.stage_layer, 0, pr.n_layers() - 1);
    ts.stage_head = std::clamp(ts.stage_head, 0, pr.n_heads() - 1);
    int layer = ts.stage_layer + 1, head = ts.stage_head + 1;
    if (ImGui::SliderInt("layer", &layer, 1, pr.n_layers()))
        ts.stage_layer = layer - 1;
    ImGui::SameLine();
    ImGui::SetNextItemWidth(fs * 6.0f);
    if (ImGui::SliderInt("head", &head, 1, pr.n_heads()))
        ts.stage_head = head - 1;
    // Beside the sliders where it fits, else under them, wrapped: never cut at the panel's edge.
    const char* about = "every intermediate of the probe, in order (rows: positions)";
    same_line_if_fits(ImGui::CalcTextSize(about).x);
    text_disabled_wrapped(about);
    const std::vector<std::string> tokens = training_probe_tokens(ts);
    ImGui::BeginChild("stages");
    const std::vector<StageView> views = stage_views(ts, ts.stage_layer, ts.stage_head);
    const float avail = ImGui::GetContentRegionAvail().x;
    for (std::size_t i = 0; i < views.size(); ++i)
    {
        const StageView& s = views[i];
        ImGui::PushID(static_cast<int>(i));
        ImGui::Text("%s", s.name.c_str());
        ImGui::SameLine();
        ImGui::TextDisabled("= %s   [%d x %d]", s.equation.c_str(), static_cast<int>(s.m.rows()),
                            static_cast<int>(s.m.cols()));
        // Cells about a line high, narrower when the matrix is wide.
        const float cell = std::min(fs * 1.1f, (avail - fs * 3.0f) /
                                                   static_cast<float>(std::max<Eigen::Index>(1, s.m.cols())));
        const ImVec2 area(fs * 2.2f + cell * static_cast<float>(s.m.cols()),
                          fs * 2.2f + cell * static_cast<float>(s.m.rows()));
        char key[64];
        std::snprintf(key, sizeof key, "train/stage/%zu", i);
        const Mat* mask = s.masked ? &pr.mask() : nullptr;
        const std::vector<std::string>* cols = s.m.cols() == pr.T() ? &tokens : nullptr;
        const auto [r, c] = draw_probe_map(
            state, key,
            pr.version() * 64 + static_cast<unsigned long long>(ts.stage_layer * 8 + ts.stage_head), s.m,
            s.probability, mask, area, {&tokens, cols}, ImGui::GetColorU32(ImGuiCol_Border));
        if (r >= 0)
            ImGui::SetTooltip("%s[%d, %d] = %.4g", s.name.c_str(), r, c, static_cast<double>(s.m(r, c)));
        ImGui::PopID();
    }
    ImGui::EndChild();
}

} // namespace attnlab
