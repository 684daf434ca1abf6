// Training panel: pick a task, train a small transformer on a worker thread, watch the loss fall and the
// attention maps of a held-out sequence take shape, one per layer and head.
#include "ui/colormap.h"
#include "ui/panels/panels.h"
#include "ui/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>

namespace attnlab
{

namespace
{

// The fields that need a new model (everything but the target step count).
bool same_model(const TrainingConfig& a, const TrainingConfig& b)
{
    TrainingConfig x = a;
    x.target_steps = b.target_steps;
    return x == b;
}

void apply(AppState& state)
{
    TrainingPanelState& ts = state.training;
    const Status s = state.training_run.configure(ts.edit);
    ts.error = s.is_ok() ? std::string() : s.message();
    state.training_run.poll(ts.view);
}

// [SECTION] Controls: task, model, Play / Pause, Step, Reset, progress

void draw_controls(AppState& state)
{
    TrainingPanelState& ts = state.training;
    TrainingRun& run = state.training_run;
    const TrainingSnapshot& v = ts.view;

    const train::TaskInfo& info = train::task_info(ts.edit.task);
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 4.0f);
    if (ImGui::BeginCombo("task", info.title))
    {
        for (int k = 0; k < train::kTaskCount; ++k)
        {
            const auto kind = static_cast<train::TaskKind>(k);
            if (ImGui::Selectable(train::task_info(kind).title, kind == ts.edit.task) && kind != ts.edit.task)
            {
                ts.edit = TrainingConfig::from_preset(kind);
                apply(state);
            }
        }
        ImGui::EndCombo();
    }
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", info.description);
    const TrainingConfig preset = TrainingConfig::from_preset(ts.edit.task);
    ImGui::TextDisabled("preset: %d layer%s, h = %d, d_model = %d%s, %d steps", preset.n_layers,
                        preset.n_layers == 1 ? "" : "s", preset.n_heads, preset.d_model,
                        preset.attention_only ? ", attention-only" : ", with FFN", preset.target_steps);
    ImGui::PopTextWrapPos();

    // Model fields: they build a new model, so they apply on Reset.
    const float w = ImGui::GetFontSize() * 7.0f;
    ImGui::SetNextItemWidth(w);
    ImGui::InputInt("layers", &ts.edit.n_layers);
    ImGui::SetNextItemWidth(w);
    ImGui::InputInt("h (heads)", &ts.edit.n_heads);
    ImGui::SetNextItemWidth(w);
    ImGui::InputInt("d_model", &ts.edit.d_model, 8, 32);
    ImGui::Checkbox("attention-only (no FFN)", &ts.edit.attention_only);
    ImGui::SetNextItemWidth(w);
    ImGui::InputFloat("learning rate", &ts.edit.lr, 0.0f, 0.0f, "%.1e");
    ImGui::SetNextItemWidth(w);
    ImGui::InputScalar("seed", ImGuiDataType_U64, &ts.edit.seed);
    ts.edit.n_layers = std::clamp(ts.edit.n_layers, 1, 8);
    ts.edit.n_heads = std::clamp(ts.edit.n_heads, 1, 16);
    ts.edit.d_model = std::clamp(ts.edit.d_model, 4, 512);
    ImGui::SetNextItemWidth(w);
    if (ImGui::InputInt("target steps", &ts.edit.target_steps, 100, 1000))
    {
        ts.edit.target_steps = std::clamp(ts.edit.target_steps, 1, 1000000);
        run.set_target_steps(ts.edit.target_steps);
    }
    const bool changed = !same_model(ts.edit, v.config);
    if (changed)
        ImGui::TextColored(error_color(), "Changed: Reset builds the new model.");
    if (!ts.error.empty())
        error_text(ts.error);

    // [SECTION] Buttons
    const bool running = run.running();
    if (running)
    {
        if (ImGui::Button("Pause"))
            run.pause();
    }
    else if (ImGui::Button("Play"))
    {
        if (changed)
            apply(state);
        run.play();
    }
    item_tooltip("Train on a worker thread until the target step (the window stays responsive).");
    ImGui::SameLine();
    if (ImGui::Button("Step"))
    {
        if (changed)
            apply(state);
        run.step_now(1);
    }
    item_tooltip("One training step (one batch of the task) on this thread.");
    ImGui::SameLine();
    if (ImGui::Button("Reset"))
    {
        if (changed)
            apply(state);
        else
            run.reset();
    }
    item_tooltip("Back to step 0 with the same initial parameters: the same seed gives the same run.");

    const int target = std::max(1, ts.edit.target_steps);
    char overlay[96];
    // Screenshots leave the rate out: it is the machine's, and the picture should not change from run to run.
    if (state.mouse_ignored)
        std::snprintf(overlay, sizeof overlay, "step %d / %d", v.step, target);
    else
        std::snprintf(overlay, sizeof overlay, "step %d / %d   %.0f steps/s", v.step, target, v.steps_per_s);
    ImGui::ProgressBar(std::min(1.0f, static_cast<float>(v.step) / static_cast<float>(target)), ImVec2(-1, 0),
                       overlay);
}

// [SECTION] Loss curve and accuracy

void draw_curves(AppState& state)
{
    TrainingPanelState& ts = state.training;
    const TrainingSnapshot& v = ts.view;
    ts.log_loss.resize(v.loss.size());
    for (std::size_t i = 0; i < v.loss.size(); ++i)
        ts.log_loss[i] = std::log(std::max(v.loss[i], 1e-8f));
    char overlay[64];
    if (v.loss.empty())
        std::snprintf(overlay, sizeof overlay, "no steps yet");
    else
        std::snprintf(overlay, sizeof overlay, "loss %.4f", static_cast<double>(v.loss.back()));
    ImGui::TextUnformatted("training loss (log scale)");
    ImGui::PlotLines("##loss", ts.log_loss.data(), static_cast<int>(ts.log_loss.size()), 0, overlay, FLT_MAX,
                     FLT_MAX, ImVec2(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 7.0f));
    ImGui::Text("accuracy %.1f %%", 100.0 * static_cast<double>(v.accuracy));
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("on the training batches, mean of the last 20 steps");
    ImGui::PopTextWrapPos();
}

// [SECTION] The probe's attention maps, one per layer x head

// The score that tells this task's heads apart, for the map titles.
void head_score_text(const TrainingSnapshot& v, const train::HeadScores& s, char* out, std::size_t n)
{
    if (v.config.task == train::TaskKind::Reverse)
        std::snprintf(out, n, "anti-diag %.2f  prev %.2f", s.anti_diagonal, s.previous_token);
    else if (v.config.task == train::TaskKind::Copy)
        std::snprintf(out, n, "diag %.2f  prev %.2f", s.diagonal, s.previous_token);
    else
        std::snprintf(out, n, "prev %.2f  ind %.2f", s.previous_token, s.induction);
}

void draw_maps(AppState& state)
{
    const TrainingSnapshot& v = state.training.view;
    const int h = v.config.n_heads;
    const int L = static_cast<int>(v.weights.size()) / std::max(1, h);
    const int T = v.T;
    if (L == 0 || T == 0)
    {
        ImGui::TextDisabled("No model yet.");
        return;
    }
    ImGui::Text("attention weights A_h, trained for %d step%s", v.step, v.step == 1 ? "" : "s");
    std::string text;
    for (const std::string& t : v.tokens)
        text += (text.empty() ? "" : " ") + t;
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("on the first held-out sequence: %s", text.c_str());
    ImGui::PopTextWrapPos();

    const float fs = ImGui::GetFontSize();
    const float gap = fs * 0.8f;
    const float title_h = ImGui::GetTextLineHeightWithSpacing() * 2.0f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // Square maps, as large as fit in h columns and L rows, with room for the labels.
    const float label_w = fs * 1.6f;
    const float side_w = (avail.x - static_cast<float>(h) * (label_w + gap)) / static_cast<float>(h);
    const float side_h =
        (avail.y - static_cast<float>(L) * (title_h + label_w + gap)) / static_cast<float>(L);
    const float side = std::max(fs * 3.0f, std::min(side_w, side_h));
    const float cell = side / static_cast<float>(T);
    std::size_t longest = 0;
    for (const std::string& t : v.tokens)
        longest = std::max(longest, t.size());
    const bool labels = cell >= fs * 0.75f && longest <= 3;

    const float grid_x = ImGui::GetCursorPosX();
    for (int l = 0; l < L; ++l)
        for (int j = 0; j < h; ++j)
        {
            const std::size_t k = static_cast<std::size_t>(l * h + j);
            if (j != 0)
                ImGui::SameLine(grid_x + static_cast<float>(j) * (side + label_w + gap));
            ImGui::PushID(static_cast<int>(k));
            ImGui::BeginGroup();
            ImGui::PushStyleColor(ImGuiCol_Text, head_text_color(j));
            ImGui::Text("layer %d, head %d", l + 1, j + 1);
            ImGui::PopStyleColor();
            char scores[96] = "";
            if (k < v.scores.size())
                head_score_text(v, v.scores[k], scores, sizeof scores);
            ImGui::TextDisabled("%s", scores);

            char key[48];
            std::snprintf(key, sizeof key, "train/L%d/h%d", l, j);
            const HeatmapEntry& e = state.heatmaps.get(key, v.version, v.weights[k], true, &v.mask);
            const ImVec2 p = ImGui::GetCursorScreenPos();
            const ImVec2 img0(p.x + label_w, p.y + label_w);
            const ImVec2 img1(img0.x + side, img0.y + side);
            ImDrawList* dl = ImGui::GetWindowDrawList();
            if (e.texture != 0)
                dl->AddImage(reinterpret_cast<ImTextureID>(e.texture), img0, img1);
            dl->AddRect(ImVec2(img0.x - 1, img0.y - 1), ImVec2(img1.x + 1, img1.y + 1), head_color(j));
            if (labels)
            {
                const ImU32 col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
                for (int t = 0; t < T; ++t)
                {
                    const char* tok = v.tokens[static_cast<std::size_t>(t)].c_str();
                    const ImVec2 sz = ImGui::CalcTextSize(tok);
                    const float c = static_cast<float>(t) * cell + cell * 0.5f;
                    // Queries down the left, keys along the top.
                    dl->AddText(ImVec2(p.x + label_w - sz.x - fs * 0.2f, img0.y + c - sz.y * 0.5f), col, tok);
                    dl->AddText(ImVec2(img0.x + c - sz.x * 0.5f, p.y + label_w - sz.y - fs * 0.1f), col, tok);
                }
            }
            ImGui::Dummy(ImVec2(side + label_w, side + label_w));
            if (ImGui::IsItemHovered() && !state.mouse_ignored)
            {
                const ImVec2 m = ImGui::GetIO().MousePos;
                const int row = static_cast<int>((m.y - img0.y) / cell);
                const int col = static_cast<int>((m.x - img0.x) / cell);
                if (row >= 0 && row < T && col >= 0 && col < T)
                    ImGui::SetTooltip("query %d \"%s\" -> key %d \"%s\": A = %.3f", row,
                                      v.tokens[static_cast<std::size_t>(row)].c_str(), col,
                                      v.tokens[static_cast<std::size_t>(col)].c_str(),
                                      static_cast<double>(v.weights[k](row, col)));
            }
            ImGui::EndGroup();
            ImGui::PopID();
        }
}

} // namespace

void open_training(AppState& state, train::TaskKind task, int steps)
{
    state.training.edit = TrainingConfig::from_preset(task);
    apply(state);
    if (state.training.error.empty() && steps > 0)
        state.training_run.step_now(steps);
    state.training_run.poll(state.training.view);
    state.prefs.open[static_cast<std::size_t>(PanelId::Training)] = true;
    // The panels under the Training panel's default place: hidden anyway, and a software renderer would still
    // fill their pixels (3x the frame time under llvmpipe).
    for (const PanelId id : {PanelId::Pipeline, PanelId::Heads, PanelId::Inspector, PanelId::Comparisons})
        state.prefs.open[static_cast<std::size_t>(id)] = false;
}

void draw_training_panel(AppState& state)
{
    if (!state.training_run.configured() && state.training.error.empty())
    {
        state.training.edit = TrainingConfig::from_preset(state.training.edit.task);
        apply(state);
    }
    state.training_run.poll(state.training.view);

    const float left_w = std::min(ImGui::GetFontSize() * 24.0f, ImGui::GetContentRegionAvail().x * 0.4f);
    ImGui::BeginChild("controls", ImVec2(left_w, 0.0f));
    draw_controls(state);
    ImGui::Separator();
    draw_curves(state);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("maps", ImVec2(0.0f, 0.0f));
    draw_maps(state);
    ImGui::EndChild();
}

} // namespace attnlab
