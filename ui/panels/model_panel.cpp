// Model panel: one field per model setting (d_model, h, d_k, ..., seed), each explained, from the settings
// table.
#include "ui/model/lessons.h"
#include "ui/panels/panels.h"
#include "ui/shell/widgets.h"

#include "core/io/json_io.h"
#include "core/io/session_file.h"
#include "core/settings.h"

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
    text_wrappedf("%s", line); // a narrow panel (1280x720) wraps it rather than cutting it
    ImGui::PopStyleColor();
    ImGui::SetWindowFontScale(1.0f);
}

// The setting an invalid model's message is about (a key of end_setting: a settings table key, which
// validate_config names; "weights": the Weights section; "": none that can be told, the message goes above
// the settings). It is written right under that setting, so nothing above it moves while its - and + buttons
// are held down.
std::string error_setting(const AppState& state)
{
    if (state.status.is_ok() || status_error_panel(state) != PanelId::Model)
        return std::string();
    Setting setting = Setting::Count;
    if (!validate_config(state.session.config, &setting))
        return setting_info(setting).key;
    const std::string& m = state.status.message();
    if (m.rfind("the imported weights", 0) == 0 || m.find("NaN") != std::string::npos)
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

// An integer field. A setting whose 0 stands for the paper's default (its row's default_value) has an "auto"
// box: ticked, the field shows the value used, greyed; unticked, the field is the student's own, starting
// from that value. Returns true when edited.
bool int_field(const SettingInfo& info, Config& c)
{
    const float width = ImGui::GetFontSize() * 7.0f;
    int* value = &(c.*info.int_member);
    if (info.default_value == nullptr)
    {
        ImGui::SetNextItemWidth(width);
        const bool changed = ImGui::InputInt(info.label, value, 1, 8);
        item_tooltip(info.tooltip);
        return changed;
    }
    ImGui::PushID(info.key);
    bool changed = false;
    bool automatic = *value == 0;
    const int resolved = info.default_value(c); // < 0: the default is not whole (d_model / h)
    if (automatic)
    {
        ImGui::BeginDisabled();
        if (resolved >= 0)
        {
            int shown = resolved;
            ImGui::SetNextItemWidth(width);
            ImGui::InputInt(info.label, &shown, 1, 8);
        }
        else
        {
            ImGui::TextUnformatted(info.label);
        }
        ImGui::EndDisabled();
    }
    else
    {
        ImGui::SetNextItemWidth(width);
        changed = ImGui::InputInt(info.label, value, 1, 8);
    }
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", info.tooltip);
    ImGui::SameLine();
    if (ImGui::Checkbox("auto", &automatic))
    {
        *value = automatic ? 0 : std::max(resolved, 1);
        changed = true;
    }
    if (ImGui::IsItemHovered())
    {
        const char* what = info.note != nullptr ? info.note : "the default";
        if (resolved >= 0)
            ImGui::SetTooltip("Ticked: the paper's default, %s = %d here. Untick to set your own.", what,
                              resolved);
        else
            ImGui::SetTooltip("Ticked: the paper's default, %s, which is not whole here. Untick to set your "
                              "own, or change d_model or h.",
                              what);
    }
    ImGui::PopID();
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
bool heads_field(const SettingInfo& info, Config& c)
{
    ImGui::PushID(info.key);
    const float button = ImGui::GetFrameHeight();
    const float gap = ImGui::GetStyle().ItemInnerSpacing.x;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f - 2.0f * (button + gap));
    bool changed = ImGui::InputInt("##h", &c.n_heads, 0, 0);
    item_tooltip(info.tooltip);
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
        item_tooltip(info.tooltip);
    }
    ImGui::PopButtonRepeat();
    ImGui::SameLine(0.0f, gap);
    ImGui::TextUnformatted(info.label);
    ImGui::PopID();
    return changed;
}

// One setting as its row's kind says (h gets its own - and + buttons), with its tooltip, its line and, when
// the model is invalid because of it, the message. Returns true when edited.
bool setting_field(AppState& state, const SettingInfo& info, Config& c)
{
    begin_setting();
    bool changed = false;
    switch (info.kind)
    {
    case SettingKind::Int:
        changed = info.id == Setting::heads ? heads_field(info, c) : int_field(info, c);
        break;
    case SettingKind::Choice:
    {
        int value = info.get_choice(c);
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
        if (ImGui::Combo(info.label, &value, info.choices.data(), choice_count(info)))
        {
            info.set_choice(c, value);
            changed = true;
        }
        item_tooltip(info.tooltip);
        break;
    }
    case SettingKind::Float:
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
        changed =
            ImGui::SliderFloat(info.label, &(c.*info.float_member), static_cast<float>(info.min),
                               static_cast<float>(info.panel_max), "%.2f", ImGuiSliderFlags_Logarithmic);
        item_tooltip(info.tooltip);
        break;
    case SettingKind::Bool:
        changed = ImGui::Checkbox(info.label, &(c.*info.bool_member));
        item_tooltip(info.tooltip);
        break;
    case SettingKind::Seed:
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
        changed = ImGui::InputScalar(info.label, ImGuiDataType_U64, &(c.*info.seed_member));
        item_tooltip(info.tooltip);
        break;
    }
    explain(info.line);
    end_setting(state, info.key);
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
        text_wrappedf("Model: %s.", state.training.view.config.label().c_str());
        text_wrappedf("d_k = d_v = d_model / h = %d. Its shape and training settings are set in the "
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
    // An opened model folder sets its own shape: the session's settings wait, greyed, until it is closed.
    const bool opened = state.showing_opened();
    if (opened)
    {
        const train::ModelConfig& m = state.opened.model->config;
        text_wrappedf("Its config.json sets d_model = %d, h = %d, d_k = d_v = %d, d_ff = %d, %d layers, "
                      "context %d. The session's settings below wait until File > Close model.",
                      m.d_model, m.n_heads, m.d_k(), m.resolved_d_ff(), m.n_layers, m.T_max);
        ImGui::BeginDisabled();
    }
    for (const SettingInfo& info : setting_table())
    {
        edited |= setting_field(state, info, c);
        if (opened && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip(
                "Set by the opened model (%s, d_model = %d, h = %d): its config.json and weights "
                "decide it. File > Close model to use the session's settings again.",
                state.opened.model->label().c_str(), state.opened.model->config.d_model,
                state.opened.model->config.n_heads);
    }
    if (opened)
        ImGui::EndDisabled();

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
