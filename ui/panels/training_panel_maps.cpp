// The Training panel's maps of the probe: every head's attention (beside it the gradient of the loss), the
// output stages (logits, probabilities, predictions and losses), and the switch between them and "every
// stage".
#include "core/train/model_trace.h"
#include "ui/heatmap/heatmap.h"
#include "ui/model/lessons.h"
#include "ui/model/training/training_controller.h"
#include "ui/model/training/training_curves.h"
#include "ui/model/training/training_probe.h"
#include "ui/panels/training_panel_views.h"
#include "ui/picture/colormap.h"
#include "ui/shell/widgets.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

namespace attnlab
{

namespace
{

// One run's heads on the probe, in layers x heads: the current run's, or an earlier run's beside them.
struct HeadGroup
{
    const TrainingProbe* probe = nullptr;
    const std::vector<TrainingEval>* evals = nullptr; // the run's held-out points
    int step = 0;         // the titles' scores are the last evaluation's at or before this step
    bool past = false;    // an earlier run (its scores are those of its last evaluation)
    std::string title;    // "" : no group title (nothing compared)
    Color32 color = 0;    // the run's colour in the legend
    std::string about;    // the title's tooltip
    const char* key = ""; // the heatmaps' key prefix
};

// The run's colour as text that reads on the panel.
ImVec4 run_text_color(Color32 c)
{
    ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    bg.w = 1.0f;
    return ImGui::ColorConvertU32ToFloat4(readable_on(c | 0xFF000000u, ImGui::ColorConvertFloat4ToU32(bg)));
}

// `flat`: every layer's heads in one row (L1 H1 … L2 H4), else a row per layer.
void draw_head_group(AppState& state, const HeadGroup& g, bool with_gradient, float side, float gap, int rows,
                     bool flat)
{
    const TrainingPanelState& ts = state.training;
    const TrainingProbe& pr = *g.probe;
    const int h = pr.n_heads(), L = pr.n_layers();
    const int per_head = with_gradient ? 2 : 1;
    const std::vector<std::string> tokens = training_probe_tokens(ts);
    const float fs = ImGui::GetFontSize();
    ImGui::BeginGroup();
    if (!g.title.empty())
    {
        // The legend's swatch and words for the run, so the group reads as the curve it belongs to.
        ImDrawList* dl = ImGui::GetWindowDrawList();
        const ImVec2 p = ImGui::GetCursorScreenPos();
        dl->AddRectFilled(ImVec2(p.x, p.y + fs * 0.3f), ImVec2(p.x + fs * 1.2f, p.y + fs * 0.7f),
                          g.color | 0xFF000000u);
        ImGui::Dummy(ImVec2(fs * 1.3f, fs));
        ImGui::SameLine();
        ImGui::PushStyleColor(ImGuiCol_Text, run_text_color(g.color));
        ImGui::TextUnformatted(g.title.c_str());
        ImGui::PopStyleColor();
        item_tooltip(g.about.c_str());
    }
    // Screen x of the grid's left edge: SameLine's own offsets count from the innermost group, which this is.
    const float grid_x = ImGui::GetCursorScreenPos().x;
    for (int l = 0; l < L; ++l)
        for (int j = 0; j < h; ++j)
        {
            const int k = l * h + j;
            const int column = flat ? k : j;
            if (column != 0)
                ImGui::SameLine(0.0f, grid_x + static_cast<float>(column * per_head) * (side + gap) -
                                          ImGui::GetItemRectMax().x);
            ImGui::PushID(g.key);
            ImGui::PushID(k);
            ImGui::BeginGroup();
            // The held-out scores of the last evaluation up to the shown step (an earlier run: its last one):
            // the curve's number there.
            int eval_step = 0;
            const train::HeadScores* held_out = held_out_scores_at(*g.evals, g.step, k, &eval_step);
            const train::HeadScores* title_scores = held_out != nullptr ? held_out
                                                    : k < static_cast<int>(pr.scores().size())
                                                        ? &pr.scores()[static_cast<std::size_t>(k)]
                                                        : nullptr;
            ImGui::PushStyleColor(ImGuiCol_Text, head_text_color(j));
            // The short form when the long one would run into the next head's title (narrow maps). A text
            // head's title names what it does (its best score of previous token, induction and word start).
            const float title_w = side * static_cast<float>(per_head) + gap * 0.5f;
            const bool text_task = ts.view.config.task == train::TaskKind::Text;
            const bool text = text_task && title_scores != nullptr;
            // The probe's own scores (no evaluation yet) are weighed against what even weights score on it.
            const train::HeadScores* chance = held_out != nullptr ? nullptr : &pr.even_scores();
            const HeadRole role = text ? text_head_role(*title_scores, chance) : HeadRole{};
            char title[96];
            std::snprintf(title, sizeof title, "layer %d, head %d%s%s", l + 1, j + 1, text ? ": " : "",
                          text ? head_role_text(role).c_str() : "");
            if (ImGui::CalcTextSize(title).x > title_w)
                std::snprintf(title, sizeof title, "L%d H%d%s%s", l + 1, j + 1, text ? ": " : "",
                              text ? head_role_text(role).c_str() : "");
            if (ImGui::CalcTextSize(title).x > title_w)
                std::snprintf(title, sizeof title, "L%d H%d%s%s", l + 1, j + 1, text ? " " : "",
                              text ? head_role_text(role, true).c_str() : "");
            // The role in the title: the line below gives the other scores (else all of them, and the role
            // first when they do not fit).
            bool role_in_title = text;
            if (ImGui::CalcTextSize(title).x > title_w)
            {
                std::snprintf(title, sizeof title, "L%d H%d", l + 1, j + 1);
                role_in_title = false;
            }
            ImGui::TextUnformatted(title);
            ImGui::PopStyleColor();
            if (text && ImGui::IsItemHovered() && !state.mouse_ignored)
            {
                // On the probe the chance level is named: a short probe's is far above the held-out text's.
                const std::string bar = chance == nullptr
                                            ? std::string()
                                            : ", nor under " +
                                                  std::to_string(static_cast<int>(kHeadRoleOverChance)) +
                                                  " times what evenly spread weights score on this probe (" +
                                                  text_scores_text(*chance) + ")";
                ImGui::SetTooltip("What this head does, by its largest score (%s): previous token (weight on "
                                  "the character just before), induction (on the character after an earlier "
                                  "copy of this one) or word start (on the last space). A role's score is "
                                  "not below %.2f%s. None such: no clear role yet.",
                                  held_out != nullptr ? "held out" : "on the probe", kHeadRoleMin,
                                  bar.c_str());
            }
            // Else (no evaluation yet, so no point on the curves either) the probe's, marked so.
            const std::string scores =
                text
                    ? text_scores_text(*title_scores, role_in_title ? role.kind : train::HeadScoreKind::Count,
                                       ts.view.config.level) +
                          (held_out != nullptr ? "" : " (probe)")
                : held_out != nullptr ? map_scores_text(ts.view.config.task, *held_out)
                : k < static_cast<int>(pr.scores().size())
                    ? map_scores_text(ts.view.config.task, pr.scores()[static_cast<std::size_t>(k)]) +
                          " (probe)"
                    : std::string();
            char line[128];
            std::snprintf(line, sizeof line, "%s%s", with_gradient ? "A_h | ∂L/∂A_h   " : "", scores.c_str());
            // Only what fits above the map, up to half the gap as the title (at 1280x720 the full line
            // would run into the next head): the scores alone, else the first (a text head whose title has
            // no room for its role: the role).
            if (ImGui::CalcTextSize(line).x > title_w)
                std::snprintf(line, sizeof line, "%s", scores.c_str());
            if (ImGui::CalcTextSize(line).x > title_w)
                std::snprintf(line, sizeof line, "%s",
                              text && !role_in_title ? head_role_text(role, true).c_str()
                                                     : scores.substr(0, scores.find("  ")).c_str());
            if (ImGui::CalcTextSize(line).x <= title_w)
                ImGui::TextDisabled("%s", line);
            else
                ImGui::TextDisabled(" ");
            if (held_out != nullptr && ImGui::IsItemHovered())
            {
                const std::string probe_scores =
                    k < static_cast<int>(pr.scores().size())
                        ? map_scores_text(ts.view.config.task, pr.scores()[static_cast<std::size_t>(k)])
                        : std::string("-");
                ImGui::SetTooltip("The held-out mean at step %d, %s: the numbers the head-score curves show "
                                  "there.\nOn this probe alone: %s",
                                  eval_step,
                                  g.past ? "the earlier run's last evaluation"
                                         : "the last evaluation up to the step shown",
                                  probe_scores.c_str());
            }
            else if (text && ImGui::IsItemHovered() && !state.mouse_ignored)
                ImGui::SetTooltip("On this probe alone: no held-out evaluation up to this step yet.\nEvenly "
                                  "spread weights score %s on it (chance).",
                                  text_scores_text(*chance).c_str());
            char key[64];
            std::snprintf(key, sizeof key, "%s/L%d/h%d", g.key, l, j);
            const auto [r, c] =
                draw_probe_map(state, key, pr.version(), pr.weights(k), true, &pr.mask(), ImVec2(side, side),
                               {&tokens, &tokens, true}, curve_color_on(head_color(j), plot_background()));
            if (r >= 0 && text_task)
            {
                // Characters alone are hard to place: each with the text around it.
                const std::vector<std::string> symbols = training_probe_symbols(ts);
                ImGui::SetTooltip(
                    "query i = %d: %s\nkey j = %d: %s\nA = %.3f%s", r, character_context(symbols, r).c_str(),
                    c, character_context(symbols, c).c_str(), static_cast<double>(pr.weights(k)(r, c)),
                    pr.mask()(r, c) < 0 ? " (masked: the key is in the future)" : "");
            }
            else if (r >= 0)
                ImGui::SetTooltip("query i = %d \"%s\" -> key j = %d \"%s\": A = %.3f%s", r,
                                  tokens[static_cast<std::size_t>(r)].c_str(), c,
                                  tokens[static_cast<std::size_t>(c)].c_str(),
                                  static_cast<double>(pr.weights(k)(r, c)),
                                  pr.mask()(r, c) < 0 ? " (masked: the key is in the future)" : "");
            if (with_gradient)
            {
                ImGui::SameLine();
                std::snprintf(key, sizeof key, "%s/L%d/h%d/grad", g.key, l, j);
                const auto [gr, gc] = draw_probe_map(state, key, pr.version(), pr.dweights(k), false,
                                                     &pr.mask(), ImVec2(side, side), {&tokens, &tokens, true},
                                                     curve_color_on(head_color(j), plot_background()));
                if (gr >= 0)
                    ImGui::SetTooltip(
                        "∂L/∂A_h at query i = %d, key j = %d: %.3g\nNegative (blue): more weight here "
                        "would lower the loss.",
                        gr, gc, static_cast<double>(pr.dweights(k)(gr, gc)));
            }
            ImGui::EndGroup();
            ImGui::PopID();
            ImGui::PopID();
        }
    // A run with fewer layers keeps the rows of the other's height, so both groups end level.
    if (L < rows)
        ImGui::Dummy(ImVec2(side, static_cast<float>(rows - L) *
                                      (side + ImGui::GetTextLineHeightWithSpacing() * 2.0f + gap)));
    ImGui::EndGroup();
}

void draw_attention(AppState& state, bool with_gradient, const PastRun* compared)
{
    TrainingPanelState& ts = state.training;
    const TrainingSnapshot& v = ts.view;
    const TrainingFrame* frame = shown_frame(ts);
    HeadGroup current;
    current.probe = &ts.probe;
    current.evals = &v.evals;
    current.step = frame != nullptr ? frame->step : v.step;
    current.key = "train";
    std::vector<HeadGroup> groups;
    if (compared != nullptr)
    {
        // The earlier run first (it was trained first, as in the legend's order of time), then this run; each
        // titled with what the legend says of it that the other's label does not.
        const std::size_t i = static_cast<std::size_t>(compared - v.past.data());
        const std::string own = v.config.label();
        HeadGroup past;
        past.probe = &ts.compare_probe;
        past.evals = &compared->evals;
        past.step = compared->step;
        past.past = true;
        const std::string differs = label_difference(compared->label, own);
        past.title = "earlier: " + (differs.empty() ? compared->label : differs) + " · step " +
                     std::to_string(compared->step);
        past.color = past_run_color(i);
        past.about = "The earlier run's weights at its last step (" + std::to_string(compared->step) +
                     ") on the same probe, in the same colour scale; its head scores are its last held-out "
                     "evaluation. Its curves are the " +
                     past_run_color_name(i) + " ones: " + compared->label + ".";
        past.key = "train/past";
        groups.push_back(std::move(past));
        const std::string differs_own = label_difference(own, compared->label);
        current.title = "this run: " + (differs_own.empty() ? own : differs_own) + " · step " +
                        std::to_string(current.step);
        current.color = kThisRunColor;
        current.about = "This run's weights at the step the timeline shows: " + own + ".";
    }
    groups.push_back(current);

    const float fs = ImGui::GetFontSize();
    const float gap = fs * 0.8f;
    const float group_gap = fs * 2.0f;
    const float title_h = ImGui::GetTextLineHeightWithSpacing() * 2.0f;
    const float group_title_h = compared != nullptr ? ImGui::GetTextLineHeightWithSpacing() : 0.0f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const int per_head = with_gradient ? 2 : 1;
    int cols = 0, rows = 1;
    for (const HeadGroup& g : groups)
    {
        cols += g.probe->n_heads() * per_head;
        rows = std::max(rows, g.probe->n_layers());
    }
    const float gaps_w = static_cast<float>(cols) * gap + static_cast<float>(groups.size() - 1) * group_gap;
    const float side_w = (avail.x - gaps_w) / static_cast<float>(std::max(1, cols));
    const float side_h =
        (avail.y - group_title_h - static_cast<float>(rows) * (title_h + gap)) / static_cast<float>(rows);
    float side = std::max(fs * 4.0f, std::min(side_w, side_h));
    // The maps need their size (a text model's T = 64, a character each; a map's score in its title, which
    // a lesson's text may point at): in a wide, short panel all the layers go in one row when every map then
    // keeps at least the grid's size and the grid's second layer would be below the fold (or the row makes
    // them larger). Never smaller: a narrower map loses its role or score in the title.
    bool flat = false;
    if (rows > 1)
    {
        int flat_cols = 0;
        for (const HeadGroup& g : groups)
            flat_cols += g.probe->n_layers() * g.probe->n_heads() * per_head;
        // Each map's row labels (a character each) and their spacing take about two font sizes beside it.
        const float flat_w = (avail.x - static_cast<float>(flat_cols) * (gap + fs * 2.0f) -
                              static_cast<float>(groups.size() - 1) * group_gap) /
                             static_cast<float>(flat_cols);
        const float flat_h = avail.y - group_title_h - title_h - gap;
        const float flat_side = std::min(flat_w, std::max(fs * 4.0f, flat_h));
        const bool grid_cut = side_h < side; // the grid's last row would be below the fold
        if (flat_side >= fs * 4.0f && (flat_side > side || grid_cut))
        {
            flat = true;
            side = flat_side;
            rows = 1;
        }
    }
    for (std::size_t g = 0; g < groups.size(); ++g)
    {
        if (g != 0)
            ImGui::SameLine(0.0f, group_gap);
        draw_head_group(state, groups[g], with_gradient, side, gap, rows, flat);
    }
}

void draw_output(AppState& state)
{
    TrainingPanelState& ts = state.training;
    const TrainingProbe& pr = ts.probe;
    const TrainingSnapshot& v = ts.view;
    const std::vector<std::string> tokens = training_probe_tokens(ts);
    const int T = pr.T();
    const train::Batch& batch = ts.probe_batch;
    const auto scored = [&](int t)
    { return t < batch.T && batch.loss_mask[static_cast<std::size_t>(t)] != 0; };
    int n_scored = 0;
    for (int t = 0; t < T; ++t)
        n_scored += scored(t);
    ImGui::PushTextWrapPos(0.0f);
    if (n_scored > 0)
        ImGui::TextDisabled("logits = Z W_U + b_U and probs = softmax(logits) per position (T×V = %d×"
                            "%d). The task scores "
                            "%d of the %d positions%s: loss at t = −log probs[t, target t]; mean %.3f over "
                            "them, the loss that "
                            "was trained.",
                            T, static_cast<int>(v.vocabulary.size()), n_scored, T,
                            n_scored < T ? " (the others are greyed: training never scores them)" : "",
                            static_cast<double>(pr.mean_loss()));
    else
        ImGui::TextColored(error_color(),
                           "The task scores no position of this sequence (it is not in the task's form: see "
                           "the task's description), so there is no loss to show.");
    // In presenter mode the table of every position (a scrolled list at 720 lines) is said in one line: how
    // many positions are right, and which are wrong; the maps take its width.
    const bool table = !state.presenter;
    if (!table && n_scored > 0)
    {
        int right = 0;
        std::string wrong;
        const auto miss = [&](int k)
        {
            const std::size_t i = static_cast<std::size_t>(k);
            return scored(k) && pr.predicted()[i] != batch.targets[i];
        };
        for (int t = 0; t < T;)
        {
            if (!miss(t))
            {
                right += scored(t);
                ++t;
                continue;
            }
            int end = t;
            while (end + 1 < T && miss(end + 1))
                ++end;
            wrong += (wrong.empty() ? "" : ", ") + std::to_string(t) +
                     (end > t ? (end == t + 1 ? ", " : "–") + std::to_string(end) : "");
            t = end + 1;
        }
        ImGui::TextWrapped("predicted: the target at %d of the %d scored positions%s%s", right, n_scored,
                           wrong.empty() ? "" : "; wrong at t = ", wrong.c_str());
    }
    ImGui::PopTextWrapPos();
    const float fs = ImGui::GetFontSize();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float table_w = table ? fs * 17.0f : 0.0f;
    const float map_w = (avail.x - table_w - fs * (table ? 2.0f : 1.0f)) / 2.0f;
    const ImVec2 area(map_w, avail.y - fs * 2.0f);
    // In presenter mode the maps say what their axes and colours are, as every other map there does: every
    // k-th token and vocabulary entry (the tooltip is for the lecturer), and a colour bar each, in the width
    // the square maps leave.
    const MapLabels labels{&tokens, &v.vocabulary, state.presenter};
    const bool bars = state.presenter;

    ImGui::BeginGroup();
    ImGui::TextUnformatted("logits (T×V)");
    const auto [r, c] = draw_probe_map(state, "train/logits", pr.version(), pr.logits(), false, nullptr, area,
                                       labels, ImGui::GetColorU32(ImGuiCol_Border), bars);
    if (r >= 0)
        ImGui::SetTooltip("after \"%s\" (position t = %d): logit of \"%s\" = %.3f",
                          tokens[static_cast<std::size_t>(r)].c_str(), r,
                          v.vocabulary[static_cast<std::size_t>(c)].c_str(),
                          static_cast<double>(pr.logits()(r, c)));
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextUnformatted("probabilities (T×V)");
    const auto [pr_r, pr_c] = draw_probe_map(state, "train/probs", pr.version(), pr.probs(), true, nullptr,
                                             area, labels, ImGui::GetColorU32(ImGuiCol_Border), bars);
    if (pr_r >= 0)
        ImGui::SetTooltip("after \"%s\" (position t = %d): p(\"%s\") = %.3f",
                          tokens[static_cast<std::size_t>(pr_r)].c_str(), pr_r,
                          v.vocabulary[static_cast<std::size_t>(pr_c)].c_str(),
                          static_cast<double>(pr.probs()(pr_r, pr_c)));
    ImGui::EndGroup();
    if (!table)
        return;
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextUnformatted("predicted, target, loss");
    if (ImGui::BeginTable("predictions", 5,
                          ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY,
                          ImVec2(table_w, area.y)))
    {
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn("t");
        ImGui::TableSetupColumn("token");
        ImGui::TableSetupColumn("predicted");
        ImGui::TableSetupColumn("target");
        ImGui::TableSetupColumn("loss");
        ImGui::TableHeadersRow();
        for (int t = 0; t < T; ++t)
        {
            const std::size_t i = static_cast<std::size_t>(t);
            const int pred = pr.predicted()[i];
            const char* predicted = v.vocabulary[static_cast<std::size_t>(pred)].c_str();
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            if (!scored(t))
            {
                ImGui::TextDisabled("%d", t);
                ImGui::TableNextColumn();
                ImGui::TextDisabled("%s", tokens[i].c_str());
                ImGui::TableNextColumn();
                ImGui::TextDisabled("%s", predicted);
                ImGui::TableNextColumn();
                ImGui::TextDisabled("not scored");
                ImGui::TableNextColumn();
                continue;
            }
            const int target = batch.targets[i];
            ImGui::Text("%d", t);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(tokens[i].c_str());
            ImGui::TableNextColumn();
            if (pred == target)
                ImGui::Text("%s", predicted);
            else
                ImGui::TextColored(error_color(), "%s", predicted);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(v.vocabulary[static_cast<std::size_t>(target)].c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%.2f", static_cast<double>(pr.loss()[i]));
        }
        ImGui::EndTable();
    }
    ImGui::EndGroup();
}

// The compare selector (attention views, when there are earlier runs): which earlier run's maps to draw
// beside this run's.
void draw_compare_selector(TrainingPanelState& ts)
{
    const std::vector<PastRun>& past = ts.view.past;
    if (past.empty())
        return;
    const std::string own = ts.view.config.label();
    const auto name = [&](std::size_t i)
    {
        const std::string differs = label_difference(past[i].label, own);
        return "earlier: " + (differs.empty() ? past[i].label : differs);
    };
    const PastRun* chosen = compared_run(ts);
    const std::string preview =
        chosen != nullptr ? name(static_cast<std::size_t>(chosen - past.data())) : std::string("nothing");
    ImGui::SameLine();
    ImGui::TextUnformatted("compare with:");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(std::min(ImGui::GetFontSize() * 16.0f,
                                     ImGui::CalcTextSize(preview.c_str()).x + ImGui::GetFontSize() * 2.5f));
    if (ImGui::BeginCombo("##compare_maps", preview.c_str()))
    {
        if (ImGui::Selectable("nothing", chosen == nullptr))
            choose_compared_run(ts, -1);
        for (std::size_t i = past.size(); i-- > 0;)
        {
            ImGui::PushID(static_cast<int>(i));
            const bool fits = can_compare_maps(ts, past[i]);
            const std::string item = name(i) + (fits ? "" : " (another task: not on this probe)");
            ImGui::PushStyleColor(ImGuiCol_Text, run_text_color(past_run_color(i)));
            if (ImGui::Selectable(item.c_str(), chosen == &past[i],
                                  fits ? ImGuiSelectableFlags_None : ImGuiSelectableFlags_Disabled))
                choose_compared_run(ts, static_cast<int>(i));
            ImGui::PopStyleColor();
            ImGui::PopID();
        }
        ImGui::EndCombo();
    }
    item_tooltip("An earlier run's trained maps beside this run's: its weights at its last step on the same "
                 "probe, in the same colour scale, each group titled as the legend names its run.");
}

// True when every map the probe feeds (attention weights, their gradients, logits and probabilities) is
// finite.
bool probe_is_finite(const TrainingProbe& pr)
{
    if (!pr.logits().allFinite() || !pr.probs().allFinite())
        return false;
    for (int k = 0; k < pr.n_layers() * pr.n_heads(); ++k)
        if (!pr.weights(k).allFinite() || !pr.dweights(k).allFinite())
            return false;
    return true;
}

// The radio buttons of the maps shown.
void draw_map_kind_choice(TrainingPanelState& ts)
{
    ImGui::RadioButton("attention A_h", &ts.map_kind, 0);
    item_tooltip("Each head's weights on the probe: row = query position, column = key position; hatched "
                 "cells are masked (a key in the future).");
    // Each choice goes on the line while it fits, so none runs off a narrow panel's edge.
    same_line_if_fits(checkbox_width("A_h and ∂L/∂A_h"));
    ImGui::RadioButton("A_h and ∂L/∂A_h", &ts.map_kind, 1);
    item_tooltip("Beside each head, the gradient of the probe's loss with respect to its weights: where more "
                 "attention would lower (blue) or raise (red) the loss.");
    same_line_if_fits(checkbox_width("output and loss"));
    ImGui::RadioButton("output and loss", &ts.map_kind, 2);
    item_tooltip("The probe's logits, their softmax probabilities and the loss at each position: what the "
                 "model predicts and how wrong it is.");
    same_line_if_fits(checkbox_width("every stage"));
    ImGui::RadioButton("every stage", &ts.map_kind, 3);
    item_tooltip(
        "Every intermediate of one layer and head on the probe, from X to the probabilities, with its "
        "equation and shape: what the trained model computes, step by step.");
}

// The earlier run to draw beside this one, its maps run on the probe (nullptr: none chosen, or its weights
// are not finite).
const PastRun* compared_maps(AppState& state)
{
    TrainingPanelState& ts = state.training;
    const PastRun* run = compared_run(ts);
    if (run == nullptr)
        return nullptr;
    ts.compare_probe.update(run->model, run->params, ts.probe_batch, ts.probe_version);
    return !ts.compare_probe.empty() && probe_is_finite(ts.compare_probe) ? run : nullptr;
}

} // namespace

// [SECTION] The heads for presenter mode

float training_head_title_height()
{
    return ImGui::GetTextLineHeightWithSpacing() * 2.0f;
}

bool training_labels_short(const std::vector<std::string>& labels)
{
    const float fs = ImGui::GetFontSize();
    for (const std::string& t : labels)
        if (ImGui::CalcTextSize(t.c_str()).x > fs * 2.0f)
            return false;
    return true;
}

ProbeLabelGutter probe_label_gutter(float cell, bool sparse, bool rows_short, bool cols_short)
{
    const float fs = ImGui::GetFontSize();
    const bool fits = cell >= fs * 0.7f;
    if (!fits && sparse && rows_short)
        return {fs * 1.1f, true}; // one-character labels every k-th need a narrower gutter
    if (!fits || !(rows_short || cols_short))
        return {fs * 0.2f, false};
    return {fs * 2.2f, false};
}

float training_head_label_gutter(float cell, bool short_labels)
{
    // The head maps' labels: the probe's tokens on both axes, sparse where they are short
    // (draw_training_heads).
    return probe_label_gutter(cell, true, short_labels, short_labels).gutter;
}

bool training_maps_ready(AppState& state)
{
    TrainingPanelState& ts = state.training;
    const TrainingFrame* f = shown_frame(ts);
    if (f == nullptr || ts.probe_batch.T == 0)
        return false;
    ts.probe.update(ts.view.model, f->params, ts.probe_batch, ts.probe_version);
    return !ts.probe.empty() && probe_is_finite(ts.probe);
}

const PastRun* training_compared_maps(AppState& state)
{
    return compared_maps(state);
}

void draw_training_heads(AppState& state, float side, float gap, bool flat)
{
    TrainingPanelState& ts = state.training;
    const TrainingFrame* frame = shown_frame(ts);
    HeadGroup current;
    current.probe = &ts.probe;
    current.evals = &ts.view.evals;
    current.step = frame != nullptr ? frame->step : ts.view.step;
    current.key = "train";
    draw_head_group(state, current, false, side, gap, flat ? 1 : ts.probe.n_layers(), flat);
}

float training_head_scores_width(AppState& state)
{
    TrainingPanelState& ts = state.training;
    if (ts.view.config.task == train::TaskKind::Text)
        return 0.0f;
    const TrainingFrame* frame = shown_frame(ts);
    const int step = frame != nullptr ? frame->step : ts.view.step;
    const TrainingProbe& pr = ts.probe;
    float widest = 0.0f;
    for (int k = 0; k < pr.n_layers() * pr.n_heads(); ++k)
    {
        // The line draw_head_group writes in full under a head's title.
        const train::HeadScores* held_out = held_out_scores_at(ts.view.evals, step, k);
        const std::string scores =
            held_out != nullptr ? map_scores_text(ts.view.config.task, *held_out)
            : k < static_cast<int>(pr.scores().size())
                ? map_scores_text(ts.view.config.task, pr.scores()[static_cast<std::size_t>(k)]) + " (probe)"
                : std::string();
        widest = std::max(widest, ImGui::CalcTextSize(scores.c_str()).x);
    }
    return widest;
}

// [SECTION] A probe map

float probe_colorbar_width()
{
    const float fs = ImGui::GetFontSize();
    return fs * 0.6f + std::max(10.0f, fs * 0.8f) +
           std::max(ImGui::CalcTextSize("-0.00e+00").x * 0.75f, ImGui::CalcTextSize("min -0.00").x) + 8.0f;
}

std::pair<int, int> draw_probe_map(AppState& state, const char* key, unsigned long long version, const Mat& m,
                                   bool probability, const Mat* mask, ImVec2 area, const MapLabels& labels,
                                   ImU32 frame_color, bool colorbar)
{
    const float fs = ImGui::GetFontSize();
    const int R = static_cast<int>(m.rows()), C = static_cast<int>(m.cols());
    const float bar_room = colorbar ? probe_colorbar_width() : 0.0f;
    area.x = std::max(1.0f, area.x - bar_room);
    // Room for labels only where they fit: a cell at least 0.7 em high, every label within 2 em.
    const auto cell_for = [&](float label_space)
    {
        const float cw = (area.x - label_space) / static_cast<float>(std::max(1, C));
        const float ch = (area.y - label_space) / static_cast<float>(std::max(1, R));
        return std::max(1.0f, std::min(cw, ch));
    };
    const auto short_labels = [&](const std::vector<std::string>* l)
    { return l != nullptr && training_labels_short(*l); };
    const ProbeLabelGutter gutter = probe_label_gutter(cell_for(fs * 2.2f), labels.sparse,
                                                       short_labels(labels.rows), short_labels(labels.cols));
    const float label_w = gutter.gutter;
    const bool sparse = gutter.sparse;
    const float cell = cell_for(label_w);
    const HeatmapEntry& e = state.heatmaps.get(key, version, m, probability, mask);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 img0(p.x + label_w, p.y + label_w);
    const ImVec2 img1(img0.x + cell * static_cast<float>(C), img0.y + cell * static_cast<float>(R));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    if (e.texture != 0)
        dl->AddImage(reinterpret_cast<ImTextureID>(e.texture), img0, img1);
    dl->AddRect(ImVec2(img0.x - 1, img0.y - 1), ImVec2(img1.x + 1, img1.y + 1), frame_color);
    const ImU32 col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const auto fits = [&](const std::vector<std::string>* l)
    { return label_w > fs && cell >= fs * 0.7f && short_labels(l); };
    // Every label where each fits its cell; else every k-th (an axis never gets both: they overprinted).
    const bool all_rows = fits(labels.rows);
    const bool all_cols = fits(labels.cols) && cell >= ImGui::CalcTextSize("00").x * 0.6f;
    if (sparse)
    {
        const float size = fs * 0.8f;
        const int k = sparse_label_step(cell, size * 1.1f);
        ImFont* font = ImGui::GetFont();
        for (int i = 0; i < std::max(R, C); i += k)
        {
            const float mid = (static_cast<float>(i) + 0.5f) * cell;
            if (!all_rows && i < R && i < static_cast<int>(labels.rows->size()))
            {
                const char* t = (*labels.rows)[static_cast<std::size_t>(i)].c_str();
                const ImVec2 sz = font->CalcTextSizeA(size, FLT_MAX, 0.0f, t);
                dl->AddText(font, size, ImVec2(img0.x - sz.x - fs * 0.35f, img0.y + mid - sz.y * 0.5f), col,
                            t);
                dl->AddLine(ImVec2(img0.x - fs * 0.25f, img0.y + mid), ImVec2(img0.x - 1.0f, img0.y + mid),
                            col);
            }
            if (!all_cols && labels.cols != nullptr && i < C && i < static_cast<int>(labels.cols->size()))
            {
                const char* t = (*labels.cols)[static_cast<std::size_t>(i)].c_str();
                const ImVec2 sz = font->CalcTextSizeA(size, FLT_MAX, 0.0f, t);
                dl->AddText(font, size, ImVec2(img0.x + mid - sz.x * 0.5f, img0.y - sz.y - fs * 0.3f), col,
                            t);
                dl->AddLine(ImVec2(img0.x + mid, img0.y - fs * 0.25f), ImVec2(img0.x + mid, img0.y - 1.0f),
                            col);
            }
        }
    }
    if (all_rows)
        for (int r = 0; r < R && r < static_cast<int>(labels.rows->size()); ++r)
        {
            const char* t = (*labels.rows)[static_cast<std::size_t>(r)].c_str();
            const ImVec2 sz = ImGui::CalcTextSize(t);
            dl->AddText(ImVec2(img0.x - sz.x - fs * 0.2f,
                               img0.y + (static_cast<float>(r) + 0.5f) * cell - sz.y * 0.5f),
                        col, t);
        }
    if (all_cols)
        for (int c = 0; c < C && c < static_cast<int>(labels.cols->size()); ++c)
        {
            const char* t = (*labels.cols)[static_cast<std::size_t>(c)].c_str();
            const ImVec2 sz = ImGui::CalcTextSize(t);
            if (sz.x > cell * 1.05f)
                continue;
            dl->AddText(ImVec2(img0.x + (static_cast<float>(c) + 0.5f) * cell - sz.x * 0.5f,
                               img0.y - sz.y - fs * 0.1f),
                        col, t);
        }
    if (colorbar)
        draw_colorbar(e.scale, e.range, img1.x + fs * 0.6f, img0.y, std::max(10.0f, fs * 0.8f),
                      std::max(img1.y - img0.y, 3.0f * fs));
    ImGui::Dummy(
        ImVec2(label_w + cell * static_cast<float>(C) + bar_room, label_w + cell * static_cast<float>(R)));
    if (!ImGui::IsItemHovered() || state.mouse_ignored)
        return {-1, -1};
    const ImVec2 mp = ImGui::GetIO().MousePos;
    const int r = static_cast<int>(std::floor((mp.y - img0.y) / cell));
    const int c = static_cast<int>(std::floor((mp.x - img0.x) / cell));
    if (r < 0 || r >= R || c < 0 || c >= C)
        return {-1, -1};
    return {r, c};
}

int sparse_label_step(float cell, float label)
{
    int k = 1;
    while (static_cast<float>(k) * cell < label && k < (1 << 20))
        k *= 2;
    return k;
}

std::vector<std::string> training_probe_symbols(const TrainingPanelState& ts)
{
    std::vector<std::string> out;
    for (const int id : ts.probe_batch.tokens)
        out.push_back(id >= 0 && id < static_cast<int>(ts.view.vocabulary.size())
                          ? ts.view.vocabulary[static_cast<std::size_t>(id)]
                          : "?");
    return out;
}

std::vector<std::string> training_probe_tokens(const TrainingPanelState& ts)
{
    std::vector<std::string> out;
    const bool text = ts.view.config.task == train::TaskKind::Text;
    for (const int id : ts.probe_batch.tokens)
    {
        const std::string symbol = id >= 0 && id < static_cast<int>(ts.view.vocabulary.size())
                                       ? ts.view.vocabulary[static_cast<std::size_t>(id)]
                                       : "?";
        out.push_back(text ? visible_character(symbol) : symbol);
    }
    return out;
}

// [SECTION] Which maps

void draw_training_maps(AppState& state)
{
    TrainingPanelState& ts = state.training;
    const TrainingSnapshot& v = ts.view;
    const TrainingFrame* f = shown_frame(ts);
    if (f == nullptr || ts.probe_batch.T == 0)
    {
        ImGui::TextDisabled("No model yet.");
        if (state.presenter)
            ImGui::TextDisabled(
                "Nothing is training: leave presenter mode (F5), open the Training panel (Alt+8), "
                "pick a task and press Train; its curves and maps show here as it runs. Or open "
                "a training lesson (Lessons menu).");
        return;
    }
    ts.probe.update(v.model, f->params, ts.probe_batch, ts.probe_version);
    if (ts.probe.empty())
        return;
    if (!probe_is_finite(ts.probe))
    {
        // NaN weights would paint every map one flat colour and every number "NaN": say why instead.
        error_text(
            "The maps at step " + std::to_string(f->step) +
            " are not drawn: the model's weights there are NaN or infinite (the run diverged). Move the "
            "timeline to an earlier step to see the last maps before it did.");
        return;
    }
    // In presenter mode the step chose the maps: the line of choices would take the maps' room.
    if (!state.presenter)
        draw_map_kind_choice(ts);
    ImGui::TextDisabled("weights at step %d%s", f->step, f->step == 0 ? ": random, untrained" : "");
    if (!lesson_active(state))
    {
        ImGui::SameLine();
        bool on = state.trained_view.on;
        if (ImGui::Checkbox("in the main panels (Ctrl+T)", &on))
            set_trained_view(state, on);
        item_tooltip("Pipeline, Heads, Inspector and Comparisons show this model on the probe, every stage "
                     "with its numbers, at the step the timeline shows.");
    }
    // In presenter mode a form field would stand on the slide: the step (or the window before F5) chose.
    if (ts.map_kind <= 1 && !state.presenter)
        draw_compare_selector(ts);
    if (ts.map_kind == 2)
        draw_output(state);
    else if (ts.map_kind == 3)
        draw_training_stages(state);
    else
        draw_attention(state, ts.map_kind == 1, compared_maps(state));
}
} // namespace attnlab
