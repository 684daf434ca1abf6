// Pipeline panel: every stage of the Trace in order (name, equation, live shape, heatmap), one layer at a
// time.
#include "core/train/readouts.h"
#include "ui/heatmap/heatmap.h"
#include "ui/model/lessons.h"
#include "ui/panels/panels.h"
#include "ui/panels/pipeline_panel_views.h"
#include "ui/panels/pipeline_products.h"
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

// Puts the toolbar's next item (`width` pixels) beside the last one when it fits, else on a new line: with a
// layer slider, a sentence slider, many heads and the cross-attention switch the toolbar is wider than a
// narrow panel.
void toolbar_item(float width, bool& first)
{
    if (!first)
    {
        const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
        const float x = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x;
        if (x + width <= right)
            ImGui::SameLine();
    }
    first = false;
}

float small_button_width(const char* label)
{
    return ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2.0f;
}

// A slider of 8 font sizes and its label.
float slider_width(const char* label)
{
    return ImGui::GetFontSize() * 8.0f + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
}

// The head selector's width on one line: "head" and h buttons.
float head_selector_width(int h)
{
    float w = ImGui::CalcTextSize("head").x;
    for (int j = 0; j < h; ++j)
        w += 3.0f + small_button_width(std::to_string(j + 1).c_str());
    return w;
}

// Head chips 1..h in each head's colour; the selected one is framed. They flow onto the next lines when the
// panel is too narrow (h = 64 needs several).
void head_selector(AppState& state)
{
    const int h = state.heads();
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    const float gap = 3.0f;
    ImGui::TextUnformatted("head");
    for (int j = 0; j < h; ++j)
    {
        const std::string label = std::to_string(j + 1);
        const float w = ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().FramePadding.x * 2.0f;
        if (ImGui::GetItemRectMax().x + gap + w <= right)
            ImGui::SameLine(0.0f, gap); // else the next line (an item ends its line)
        ImGui::PushID(j);
        if (head_chip(j, j == state.sel.head))
            state.sel.head = j;
        ImGui::PopID();
    }
}

// The explanation between a stage's header and its heatmap ("" : none).
std::string stage_note_text(AppState& state, const MatrixRef& ref)
{
    const Trace& t = state.trace();
    char text[256] = "";
    if (ref.stage == Stage::weights)
    {
        const MatrixView view = resolve_matrix(state, ref);
        const int n_keys = view.m != nullptr ? static_cast<int>(view.m->cols()) : 0;
        std::snprintf(text, sizeof text,
                      "each row i is a query; it sums to 1 over the keys j.  Mean row entropy H = %.2f nats "
                      "(one-hot 0, uniform ln %d = %.2f)",
                      static_cast<double>(state.mean_entropy(ref)), n_keys,
                      std::log(static_cast<double>(std::max(1, n_keys))));
    }
    else if (ref.stage == Stage::masked)
        return "−∞ (striped grey) where query i may not look at key j";
    else if (ref.stage == Stage::scaled && !t.config.scale)
        return "scaling is off (Model panel): scaled = scores, not divided by √d_k";
    else if (ref.stage == Stage::scaled)
        std::snprintf(text, sizeof text, "d_k = %d is the key size, so √d_k = %.3g", t.d_k,
                      static_cast<double>(std::sqrt(static_cast<float>(t.d_k))));
    return text;
}

// The note's height when wrapped to the panel's width (0 without a note).
float stage_note_height(const std::string& note)
{
    if (note.empty())
        return 0.0f;
    return ImGui::CalcTextSize(note.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y +
           ImGui::GetStyle().ItemSpacing.y;
}

void stage_note(const std::string& note, const MatrixRef& ref)
{
    if (note.empty())
        return;
    // Wrapped, not cut: "H = 1.93 nats" must be read whole in a narrow panel.
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    text_wrappedf("%s", note.c_str());
    ImGui::PopStyleColor();
    if (ref.stage == Stage::weights)
        item_tooltip(
            "H = −Σ_j A[i,j] ln A[i,j], averaged over the rows: low when each query looks at one key, "
            "high when it spreads its attention. Switch off √d_k scaling in the Model panel to see it "
            "drop.");
}

// "T×d_model = 5×16", or with a batch the whole tensor of the B sentences, "B×T×d_model = 2×5×16" (the
// heatmap shows the selected sentence of it).
std::string header_shape(const Trace& t, const MatrixView& view, Stage stage, bool cross)
{
    const int B = t.batch_size();
    if (B <= 1)
        return view.shape;
    if (stage_info(stage).shared_matrix != nullptr) // one matrix for every sentence (the positional encoding)
        return view.shape + ", every sentence";
    const int T_q = cross ? t.cross.target.T : t.T();
    const StageDims d = stage_dims(t.config, stage, T_q, t.T(), cross);
    return "B×" + d.row_symbol + "×" + d.col_symbol + " = " + std::to_string(B) + "×" +
           std::to_string(d.rows) + "×" + std::to_string(d.cols);
}

// The header's text cut to `width` pixels: the equation goes first (ending in "…"), then the rest.
std::string fit_header(const std::string& head, const std::string& equation, float width)
{
    const std::string full = head + "    " + equation;
    if (ImGui::CalcTextSize(full.c_str()).x <= width)
        return full;
    // The longest cut that fits, found by halving.
    int lo = 0, hi = utf8_length(full);
    while (hi - lo > 1)
    {
        const int mid = (lo + hi) / 2;
        if (ImGui::CalcTextSize(truncate_utf8(full, mid).c_str()).x <= width)
            lo = mid;
        else
            hi = mid;
    }
    return truncate_utf8(full, std::max(lo, 1));
}

// A lesson's highlighted product is drawn with its weight matrix when its maps may be this many lines tall.
constexpr float kMinProductRowLines = 5.5f;

// Whether the pipeline draws this stage with the selected layer: the input stages above layer 1, the output
// stages below the last layer, and of a layer's stages those the trace has (a pre-LN model has LN1 where the
// paper's layer has Add & Norm). In cross-attention: X_q and the attention block.
bool block_has_stage(const AppState& state, Stage stage, bool cross)
{
    const StageInfo& info = stage_info(stage);
    if (cross)
        return (info.attention_block || stage == Stage::X) && info.seeded;
    const int n_layers = static_cast<int>(state.trace().layers.size());
    if (info.scope == StageScope::Input && state.sel.layer != 0)
        return false;
    if (info.scope == StageScope::Output && state.sel.layer != n_layers - 1)
        return false;
    return stage_present(state.trace(), stage, state.sel.layer);
}

// The selected sentence and head's matrix of `stage` in `layer`.
MatrixRef stage_ref(const AppState& state, MatrixSource source, Stage stage, int layer)
{
    MatrixRef ref;
    ref.source = source;
    ref.stage = stage;
    ref.layer = layer;
    ref.b = state.sel.b;
    ref.head = state.sel.head;
    return ref;
}

// The height each heatmap a lesson step highlights in this block may take (labels and colour bar included),
// so that all of them fit in the visible height `visible_h` together with the headers between them (the
// first one is scrolled to the top). 0: no step highlights stages here.
float lesson_heatmap_height(AppState& state, bool cross, float visible_h)
{
    const LessonStep* step = current_step(state);
    if (step == nullptr || step->stages.empty() || step->cross != cross)
        return 0.0f;
    const auto [first, last] = std::minmax_element(step->stages.begin(), step->stages.end());
    const auto& collapsed = cross ? state.cross_stage_collapsed : state.stage_collapsed;
    const ImGuiStyle& style = ImGui::GetStyle();
    float fixed = 0.0f, titles = 0.0f;
    int lit = 0;
    for (int s = static_cast<int>(*first); s <= static_cast<int>(*last); ++s)
    {
        const auto stage = static_cast<Stage>(s);
        if (!block_has_stage(state, stage, cross))
            continue;
        fixed += ImGui::GetFrameHeight() + style.ItemSpacing.y; // the header
        if (!lesson_highlights_stage(state, stage, cross) || collapsed[static_cast<std::size_t>(s)])
            continue;
        ++lit;
        // The note, the spacing after the heatmap and ImGui::Spacing().
        const MatrixRef ref =
            stage_ref(state, cross ? MatrixSource::Cross : MatrixSource::Layer, stage, state.sel.layer);
        fixed += stage_note_height(stage_note_text(state, ref)) + 2.0f * style.ItemSpacing.y;
        // A product drawn with its weight matrix: the names and shapes above its maps.
        if (state.prefs.pipeline_weights && !product_terms(state, ref).empty())
            titles += ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(kProductTitleLines);
    }
    if (lit == 0)
        return 0.0f;
    // Never so small that the maps stop being readable: then the later ones are scrolled to. The products'
    // weight matrices are drawn (their titles above the maps) only when that leaves each map
    // kMinProductRowHeight; else the stages show their own maps alone (stage_block).
    const float fs = ImGui::GetFontSize();
    const float with_titles = (visible_h - fixed - titles) / static_cast<float>(lit);
    if (titles > 0.0f && with_titles >= fs * kMinProductRowLines)
        return with_titles;
    return std::clamp((visible_h - fixed) / static_cast<float>(lit), fs * 5.0f,
                      std::max(fs * 5.0f, fs * kMinProductRowLines - 1.0f));
}

// One stage: a collapsible header "name  equation  [shape]" and the heatmap. `scroll`: scroll to this stage
// if the lesson highlights it (then cleared, so only the first one is). `lesson_height`: > 0, the height of a
// highlighted stage's heatmap (lesson_heatmap_height).
void stage_block(AppState& state, const MatrixRef& ref, const char* id, float max_height, float lesson_height,
                 bool& scroll)
{
    const MatrixView view = resolve_matrix(state, ref);
    const auto s = static_cast<std::size_t>(ref.stage);
    auto& collapsed = ref.source == MatrixSource::Cross ? state.cross_stage_collapsed : state.stage_collapsed;
    // The shape comes before the equation so the live numbers stay visible in a narrow panel.
    // A stage the lesson's step talks about: an arrow, the header in the highlight colour, a frame around
    // the heatmap, and (once per step) scrolled to the top of the panel.
    const bool cross = ref.source == MatrixSource::Cross;
    const bool lit = lesson_highlights_stage(state, ref.stage, cross);
    const std::string head =
        (lit ? "→ " : "") + view.title + "    " + header_shape(state.trace(), view, ref.stage, cross);
    // One line: what does not fit is cut with "…" and the whole header is in its tooltip.
    const ImGuiStyle& style = ImGui::GetStyle();
    const float room = ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() - style.FramePadding.x * 3.0f;
    const std::string shown = fit_header(head, view.equation, room);
    const std::string header = shown + "###" + id;
    if (lit)
    {
        const ImVec4 c = ImGui::ColorConvertU32ToFloat4(lesson_highlight_color());
        ImGui::PushStyleColor(ImGuiCol_Header, ImVec4(c.x, c.y, c.z, 0.45f));
        ImGui::PushStyleColor(ImGuiCol_HeaderHovered, ImVec4(c.x, c.y, c.z, 0.60f));
    }
    ImGui::SetNextItemOpen(!collapsed[s], ImGuiCond_Always);
    const bool open = ImGui::CollapsingHeader(header.c_str());
    if (lit)
        ImGui::PopStyleColor(2);
    if (shown != head + "    " + view.equation)
        item_tooltip(
            (view.title + "\n" + header_shape(state.trace(), view, ref.stage, cross) + "\n" + view.equation)
                .c_str());
    if (lit && scroll)
    {
        // After the header: ImGui scrolls to the last item's line, which is then this header (before it, a
        // folded stage above would be).
        ImGui::SetScrollHereY(0.0f);
        scroll = false;
    }
    collapsed[s] = !open;
    if (!open)
        return;
    stage_note(stage_note_text(state, ref), ref);
    HeatmapOptions options;
    options.max_height = max_height;
    if (lit)
    {
        options.frame_color = lesson_highlight_color();
        options.frame_thickness = 3.0f;
        options.max_total_height = lesson_height;
        // The step is about the softmax's axis: the maps name their axes and the weights add up their rows.
        const LessonStep* step = current_step(state);
        options.axis_titles = step != nullptr && step->row_sums;
        options.row_sums = options.axis_titles && view.probability;
    }
    if (!draw_stage_batch(state, ref, options))
    {
        // With the weights shown, a product of a weight matrix is drawn as the product: X · W_h^Q = Q_h (in a
        // lesson's step, when the step leaves its stages the room: lesson_heatmap_height).
        const bool fits = !lit || lesson_height >= ImGui::GetFontSize() * kMinProductRowLines;
        const std::vector<ProductTerm> terms =
            state.prefs.pipeline_weights && fits ? product_terms(state, ref) : std::vector<ProductTerm>{};
        HeatmapOptions row_options = options;
        // The weights' heights are bounded: W_2 at d_ff = 4096 rows is a strip, not 4096 lines.
        row_options.max_height = std::min(max_height, ImGui::GetFontSize() * 20.0f);
        if (terms.empty() || !draw_product_row(state, terms, row_options))
            draw_heatmap(state, ref, options);
        else
        {
            // The packed W^Q once, under the queries (a lesson's step keeps its maps to the stages it names).
            if (ref.stage == Stage::Q && !lit)
            {
                ImGui::Spacing();
                draw_packed_weights(state, ref, std::min(max_height, ImGui::GetFontSize() * 16.0f));
            }
        }
    }
    ImGui::Spacing();
}

// Selectors: layer, sentence, head, then the switches; each goes on a new line when the panel is too narrow
// for it.
void pipeline_toolbar(AppState& state, const Trace& t)
{
    const int n_layers = static_cast<int>(t.layers.size());
    bool first = true;
    if (n_layers > 1)
    {
        toolbar_item(slider_width("layer"), first);
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
        int layer = state.sel.layer + 1;
        if (ImGui::SliderInt("layer", &layer, 1, n_layers))
            state.sel.layer = std::clamp(layer - 1, 0, n_layers - 1);
    }
    if (t.batch_size() > 1)
    {
        // Counted from 1 like layers and heads (state.sel.b counts from 0).
        toolbar_item(slider_width("sentence"), first);
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
        int sentence = state.sel.b + 1;
        if (ImGui::SliderInt("sentence", &sentence, 1, t.batch_size()))
            state.sel.b = std::clamp(sentence - 1, 0, t.batch_size() - 1);
    }
    toolbar_item(head_selector_width(state.heads()), first);
    head_selector(state);
    if (t.has_cross)
    {
        toolbar_item(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x +
                         ImGui::CalcTextSize("cross-attention").x,
                     first);
        ImGui::Checkbox("cross-attention", &state.show_cross);
    }
    toolbar_item(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x +
                     ImGui::CalcTextSize("show weights").x,
                 first);
    ImGui::Checkbox("show weights", &state.prefs.pipeline_weights);
    item_tooltip("Draw the model's weight matrices beside the products that use them: X · W_h^Q = Q_h (and "
                 "K, V), Concat · W^O = MultiHead, the FFN's W_1 and W_2, and the packed W^Q. The app "
                 "writes row vectors, X W (a row per token), as the paper does; slides with column vectors "
                 "write the same query as q_i = (W_h^Q)ᵀ x_i.");
    for (const bool collapse : {false, true})
    {
        const char* label = collapse ? "collapse all" : "expand all";
        toolbar_item(small_button_width(label), first);
        if (ImGui::SmallButton(label))
        {
            state.stage_collapsed.fill(collapse);
            state.cross_stage_collapsed.fill(collapse);
        }
    }
}

// Stages, in the order of the stage table: the model's input, the selected layer, the model's output, then
// the cross-attention block when it is shown.
// Under the probabilities, what they say in words: at every position the k most probable next tokens (a
// causal model: GPT-2, a model trained here) or tokens (a bidirectional model trained here), or at each
// [MASK] the k most probable fillers (BERT). An opened model's are ranked on the worker with its run (a row
// is 50,000 tokens); with heads switched off, each position also shows them with every head on.
void predictions_table(const AppState& state, const Trace& t)
{
    constexpr int k = 5;
    const int b = std::clamp(state.sel.b, 0, t.batch_size() - 1);
    if (static_cast<std::size_t>(b) >= t.probs.size() || t.vocabulary.empty())
        return;
    const Mat& probs = t.probs[static_cast<std::size_t>(b)];
    const std::vector<std::string>& tokens = t.tokens.tokens[static_cast<std::size_t>(b)];
    const bool causal = t.config.mask == MaskKind::Causal;
    // A model with a masked-LM head (BERT) guesses the [MASK] tokens. A bidirectional model trained here
    // predicts at every position, as a causal one does.
    const bool masked_lm = !causal && !t.mlm_pre.empty();
    const bool opened = state.showing_opened();
    std::vector<train::PositionTop> ranked; // a model trained here: its vocabulary is small
    if (!opened)
        for (int i = 0; i < static_cast<int>(probs.rows()); ++i)
            ranked.push_back({i, train::top_k(probs.row(i), k)});
    const std::vector<train::PositionTop>& rows = opened ? state.opened.run.predictions : ranked;
    const std::vector<train::PositionTop>& before = state.opened.run.before;
    const bool ablated = opened && !before.empty() && before.size() == rows.size();
    ImGui::Spacing();
    if (!ImGui::CollapsingHeader(causal      ? "Predictions: the 5 most probable next tokens at each position"
                                 : masked_lm ? "Predictions: the 5 most probable tokens at each [MASK]"
                                             : "Predictions: the 5 most probable tokens at each position",
                                 ImGuiTreeNodeFlags_DefaultOpen))
        return;
    if (rows.empty())
    {
        text_wrappedf("Type [MASK] in the text: the model fills it in, and its guesses are listed here.");
        return;
    }
    if (ablated)
    {
        const int off = heads_off_count(state);
        text_wrappedf("%d head%s off (Heads panel: right-click a map): each position shows what the model "
                      "predicts now, and under it in grey what it predicted with every head on.",
                      off, off == 1 ? "" : "s");
    }
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
    const float row_h = ImGui::GetTextLineHeightWithSpacing();
    const int lines_per_row = ablated ? 2 : 1;
    const float lines = static_cast<float>(rows.size() * static_cast<std::size_t>(lines_per_row));
    const float height = std::min(row_h * (lines + 1.5f), row_h * 14.0f);
    if (!ImGui::BeginTable("##predictions", 2 + k, flags, ImVec2(0.0f, height)))
        return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("#");
    ImGui::TableSetupColumn(causal ? "after" : "at");
    for (int r = 0; r < k; ++r)
        ImGui::TableSetupColumn(r == 0 ? "most probable (p)" : "");
    ImGui::TableHeadersRow();
    const auto cells = [&](const std::vector<train::TokenProb>& top, bool grey)
    {
        for (const train::TokenProb& tp : top)
        {
            ImGui::TableNextColumn();
            const bool known = tp.id >= 0 && tp.id < static_cast<int>(t.vocabulary.size());
            const char* text = known ? t.vocabulary[static_cast<std::size_t>(tp.id)].c_str() : "?";
            const std::string p = format_probability(tp.p);
            if (grey)
                ImGui::TextDisabled("%s  %s", text, p.c_str());
            else
                ImGui::Text("%s  %s", text, p.c_str());
        }
    };
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(rows.size()), row_h * static_cast<float>(lines_per_row));
    while (clipper.Step())
        for (int n = clipper.DisplayStart; n < clipper.DisplayEnd; ++n)
        {
            const train::PositionTop& row = rows[static_cast<std::size_t>(n)];
            const int i = row.position;
            if (i < 0 || i >= static_cast<int>(tokens.size()))
                continue;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%d", i);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(tokens[static_cast<std::size_t>(i)].c_str());
            cells(row.top, false);
            if (!ablated)
                continue;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TableNextColumn();
            ImGui::TextDisabled("all heads on");
            cells(before[static_cast<std::size_t>(n)].top, true);
        }
    ImGui::EndTable();
}

void pipeline_stages(AppState& state, const Trace& t)
{
    // A lesson step's first stage is scrolled to the top (only the first: the flag is cleared there), again
    // when the panel's height changed (window resized, layout reset).
    const float visible_h = ImGui::GetWindowHeight();
    if (lesson_active(state) && std::fabs(visible_h - state.lesson.pipeline_height) > 0.5f)
        state.lesson.scroll_request = std::max(state.lesson.scroll_request, 3);
    state.lesson.pipeline_height = visible_h;
    bool scroll = state.lesson.scroll_request > 0;
    if (scroll)
        --state.lesson.scroll_request;
    const float max_height = std::max(240.0f, visible_h * 0.75f);
    const float lesson_height = lesson_heatmap_height(state, false, visible_h);
    const float cross_lesson_height = lesson_heatmap_height(state, true, visible_h);
    StageScope scope = StageScope::Input;
    for (const StageInfo& info : stage_table())
    {
        if (!block_has_stage(state, info.id, false))
            continue;
        if (info.scope != scope)
        {
            // A line between the model's input, the layer and the model's output.
            scope = info.scope;
            ImGui::Spacing();
            if (scope == StageScope::Layer)
                ImGui::TextDisabled("Layer %d of %d", state.sel.layer + 1, static_cast<int>(t.layers.size()));
            else
                ImGui::TextDisabled("After the last layer: the model's output");
        }
        ImGui::PushID(static_cast<int>(info.id));
        stage_block(state, stage_ref(state, MatrixSource::Layer, info.id, state.sel.layer), info.key,
                    max_height, lesson_height, scroll);
        if (info.id == Stage::probs)
        {
            predictions_table(state, t);
            draw_logit_lens(state, t);
        }
        ImGui::PopID();
    }
    if (!t.has_cross || !state.show_cross)
        return;
    ImGui::Spacing();
    ImGui::Separator();
    ImGui::TextUnformatted("Cross-attention (decoder): Q from the target, K and V from the encoder output");
    ImGui::PushID("cross");
    for (const StageInfo& info : stage_table())
    {
        if (!block_has_stage(state, info.id, true))
            continue;
        ImGui::PushID(static_cast<int>(info.id));
        stage_block(state, stage_ref(state, MatrixSource::Cross, info.id, 0), info.key, max_height,
                    cross_lesson_height, scroll);
        ImGui::PopID();
    }
    ImGui::PopID();
}

} // namespace

void no_result_yet(const AppState& state)
{
    // An opened model's first run takes seconds: that is said, not an input to fix.
    if (state.recompute_pending())
        ImGui::TextDisabled("Running the model on the text…");
    else if (!state.status.is_ok())
        error_text("No result yet: " + state.status.message());
    else
        ImGui::TextDisabled("No result yet.");
}

void draw_pipeline_panel(AppState& state)
{
    trained_view_banner(state);
    if (!state.has_trace())
    {
        no_result_yet(state);
        return;
    }
    const Trace& t = state.trace();
    pipeline_toolbar(state, t);
    pipeline_batch_toggle(state);
    ImGui::Separator();
    ImGui::BeginChild("##stages");
    pipeline_stages(state, t);
    ImGui::EndChild();
}

} // namespace attnlab
