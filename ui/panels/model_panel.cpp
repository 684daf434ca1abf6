// Model panel: d_model, h, d_k, d_v, d_ff, layers, mask, positional encoding, τ and seed, each explained.
#include "ui/model/lessons.h"
#include "ui/panels/panels.h"
#include "ui/shell/widgets.h"

#include "core/io/json_io.h"
#include "core/io/session_file.h"

#include <imgui.h>

#include <algorithm>

namespace attnlab
{

namespace
{

// The one-line explanation under a setting, smaller and dimmed (the tooltip has the longer one).
void explain(const char* line)
{
    ImGui::SetWindowFontScale(0.82f);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextWrapped("%s", line); // a narrow panel (1280x720) wraps it rather than cutting it
    ImGui::PopStyleColor();
    ImGui::SetWindowFontScale(1.0f);
}

// The setting an invalid model's message is about (a key of end_setting; "weights": the Weights section; "":
// none that can be told, the message goes above the settings). It is written right under that setting, so
// nothing above it moves while its - and + buttons are held down.
std::string error_setting(const AppState& state)
{
    if (state.status.is_ok() || status_error_panel(state) != PanelId::Model)
        return std::string();
    const std::string& m = state.status.message();
    const auto starts = [&](const char* prefix) { return m.rfind(prefix, 0) == 0; };
    if (starts("d_model (") || starts("h (heads)")) // "d_model (16) is not divisible by h (5)"
        return "heads";
    if (starts("d_k, d_v and d_ff"))
        return "d_ff";
    for (const char* key : {"d_model", "d_k", "d_v", "d_ff", "layers"})
        if (starts((std::string(key) + " must").c_str()))
            return key;
    if (starts("temperature"))
        return "temperature";
    if (starts("unknown mask"))
        return "mask";
    if (starts("unknown positional"))
        return "positional";
    if (starts("the imported weights") || m.find("NaN") != std::string::npos)
        return "weights";
    return std::string();
}

void model_error_text(const AppState& state)
{
    error_text(state.status.message() + (state.has_trace() ? "  (showing the last valid result)" : ""));
}

// A setting and its explanation in one group. When the lesson's step asks to change it, the group is framed
// in the highlight colour and scrolled into view (over the step's first frames, while the layout settles).
void begin_setting()
{
    ImGui::BeginGroup();
}

void end_setting(AppState& state, const char* key)
{
    ImGui::EndGroup();
    if (error_setting(state) == key)
        model_error_text(state);
    if (!lesson_highlights_setting(state, key))
        return;
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    ImGui::GetWindowDrawList()->AddRect(ImVec2(a.x - 3.0f, a.y - 3.0f), ImVec2(b.x + 3.0f, b.y + 3.0f),
                                        lesson_highlight_color(), 0.0f, 0, 3.0f);
    if (state.lesson.setting_scroll_request > 0)
    {
        ImGui::SetScrollHereY(0.5f);
        --state.lesson.setting_scroll_request;
    }
}

// An integer field (`key`: its name in a session file); 0 may mean "the paper's default" (shown beside it).
// Returns true when edited.
bool int_field(AppState& state, const char* key, const char* label, int* value, const char* line,
               const char* tooltip, int resolved = -1)
{
    begin_setting();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
    const bool changed = ImGui::InputInt(label, value, 1, 8);
    item_tooltip(tooltip);
    if (resolved >= 0 && *value == 0)
    {
        ImGui::SameLine();
        ImGui::TextDisabled("= %d", resolved);
    }
    explain(line);
    end_setting(state, key);
    return changed;
}

// The next h the - or + button gives: while d_k or d_v is the default d_model / h only the h that divide
// d_model are valid (16: 1, 2, 4, 8, 16), so the buttons skip the others; with both set any h is.
int stepped_head_count(const Config& c, int direction)
{
    if (c.d_k == 0 || c.d_v == 0)
        return next_head_count(c.d_model, c.n_heads, direction);
    return std::clamp(c.n_heads + direction, 1, Limits::max_heads);
}

// h: a field and its own - and + buttons (ImGui's would step through every integer). A typed h is kept as
// typed; the message under the settings says why an h is refused.
bool heads_field(AppState& state, Config& c)
{
    begin_setting();
    ImGui::PushID("heads");
    const float button = ImGui::GetFrameHeight();
    const float gap = ImGui::GetStyle().ItemInnerSpacing.x;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f - 2.0f * (button + gap));
    bool changed = ImGui::InputInt("##h", &c.n_heads, 0, 0);
    const char* tooltip =
        "Number of attention heads. Each head j has its own W_j^Q, W_j^K, W_j^V and its own "
        "T×T attention map. The - and + buttons step through the h that divide d_model.";
    item_tooltip(tooltip);
    ImGui::PushButtonRepeat(true);
    for (const int direction : {-1, +1})
    {
        ImGui::SameLine(0.0f, gap);
        if (ImGui::Button(direction < 0 ? "-" : "+", ImVec2(button, button)))
        {
            const int next = stepped_head_count(c, direction);
            changed = changed || next != c.n_heads;
            c.n_heads = next;
        }
        item_tooltip(tooltip);
    }
    ImGui::PopButtonRepeat();
    ImGui::SameLine(0.0f, gap);
    ImGui::TextUnformatted("h (heads)");
    ImGui::PopID();
    explain("heads, each with its own W^Q, W^K, W^V and map");
    end_setting(state, "heads");
    return changed;
}

} // namespace

void draw_model_panel(AppState& state)
{
    trained_view_banner(state);
    if (state.showing_trained())
    {
        // The trained model's shape is the Training panel's: editing the session's here would change nothing
        // that shows.
        ImGui::TextWrapped("Model: %s.", state.training.view.config.label().c_str());
        ImGui::TextWrapped("d_k = d_v = d_model / h = %d. Its shape and training settings are set in the "
                           "Training panel (Alt+8); the session's settings wait until you show the session.",
                           state.trace().d_k);
        return;
    }
    // A message about no setting in particular goes above them all.
    if (!state.status.is_ok() && status_error_panel(state) == PanelId::Model && error_setting(state).empty())
    {
        model_error_text(state);
        ImGui::Separator();
    }
    Config& c = state.session.config;
    bool edited = false;
    // d_model / h shown as the default d_k and d_v only when it is a whole number (else the error says why).
    const bool whole = c.n_heads > 0 && c.d_model % c.n_heads == 0;
    edited |=
        int_field(state, "d_model", "d_model", &c.d_model, "width of every token vector: X and each output",
                  "Width of every token vector: the embedding, X, and the output of each sub-layer.");
    edited |= heads_field(state, c);
    edited |=
        int_field(state, "d_k", "d_k", &c.d_k, "query and key width per head: scores ÷ √d_k",
                  "Size of a query and a key per head (0: d_model / h). Scores are divided by √d_k, the "
                  "key dimension, not the sequence length.",
                  whole ? c.resolved_d_k() : -1);
    edited |= int_field(state, "d_v", "d_v", &c.d_v, "value width per head: head_out is T×d_v",
                        "Size of a value per head (0: d_model / h); head_out is T×d_v.",
                        whole ? c.resolved_d_v() : -1);
    edited |= int_field(state, "d_ff", "d_ff", &c.d_ff, "hidden width of the feed-forward network",
                        "Hidden width of the feed-forward network (0: 4·d_model).", c.resolved_d_ff());
    edited |=
        int_field(state, "layers", "layers (N)", &c.n_layers, "encoder layers; each reads the previous norm2",
                  "Encoder layers stacked: each takes the previous layer's norm2 as its X.");

    begin_setting();
    const char* masks[] = {"none", "causal"};
    int mask = c.mask == MaskKind::Causal ? 1 : 0;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
    if (ImGui::Combo("mask", &mask, masks, 2))
    {
        c.mask = mask == 1 ? MaskKind::Causal : MaskKind::None;
        edited = true;
    }
    item_tooltip("causal: query i may attend to keys 0..i only (the decoder's look-ahead mask), so the "
                 "masked scores above the diagonal are −∞. <pad> keys are always masked.");
    explain("causal: query i sees keys 0..i only");
    end_setting(state, "mask");

    begin_setting();
    const char* positionals[] = {"sinusoidal", "none"};
    int positional = c.positional == PositionalKind::None ? 1 : 0;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
    if (ImGui::Combo("positional", &positional, positionals, 2))
    {
        c.positional = positional == 1 ? PositionalKind::None : PositionalKind::Sinusoidal;
        edited = true;
    }
    item_tooltip("sinusoidal: X = embedding + PE(pos), the paper's sin/cos encoding. none: X is the "
                 "embedding alone, and attention cannot tell word order apart.");
    explain("word order, added to the embeddings");
    end_setting(state, "positional");

    begin_setting();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
    if (ImGui::SliderFloat("τ (temperature)", &c.temperature, Limits::min_temperature, 10.0f, "%.2f",
                           ImGuiSliderFlags_Logarithmic))
        edited = true;
    item_tooltip("weights = softmax(masked / τ). τ < 1 sharpens each row towards its largest score, τ > 1 "
                 "flattens it towards uniform; the paper uses τ = 1.");
    explain("softmax(x / τ): below 1 sharper, above 1 flatter");
    end_setting(state, "temperature");

    begin_setting();
    if (ImGui::Checkbox("scale by √d_k", &c.scale))
        edited = true;
    item_tooltip("scaled = scores / √d_k, as in the paper. Switch it off to feed raw dot products to the "
                 "softmax: with a large d_k the rows saturate towards one key (watch the entropy).");
    explain("as in the paper; off: the softmax saturates");
    end_setting(state, "scale");

    begin_setting();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
    if (ImGui::InputScalar("seed", ImGuiDataType_U64, &c.seed))
        edited = true;
    item_tooltip("Seeds the embeddings and the Xavier-initialised weights: the same seed gives the same "
                 "numbers on every machine.");
    explain("same seed, same embeddings and weights");
    end_setting(state, "seed");

    if (edited)
        state.edit();

    ImGui::Separator();
    if (state.status.is_ok() && state.has_trace())
        ImGui::TextDisabled("recomputed in %.1f ms", state.recompute_ms);

    // [SECTION] Imported weights
    ImGui::Spacing();
    ImGui::TextUnformatted("Weights");
    ImGui::SameLine();
    ImGui::TextDisabled(state.engine.has_imported_weights() ? "(imported)" : "(seeded Xavier)");
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 7.5f);
    input_text("##weights_path", &state.session.weights_path);
    item_tooltip("A JSON weights file: an attnlab trace or weights export, or a PyTorch state dict "
                 "(transposed into the paper's X W orientation on import).");
    ImGui::SameLine();
    if (ImGui::Button("Load"))
    {
        ModelWeights w;
        const Status s = load_any_weights_file(state.session.weights_path, c, &w);
        if (s.is_ok())
        {
            state.session.weights_path = absolute_weights_path(std::string(), state.session.weights_path);
            state.engine.set_imported_weights(std::move(w));
            state.edit();
            state.set_message("Loaded weights from " + state.session.weights_path, false);
        }
        else
            state.set_message(s.message(), true);
    }
    ImGui::SameLine();
    if (ImGui::Button("Seeded"))
    {
        state.engine.clear_imported_weights();
        state.session.weights_path.clear();
        state.edit();
    }
    item_tooltip("Go back to the seeded weights.");
    if (error_setting(state) == "weights")
        model_error_text(state);
}

} // namespace attnlab
