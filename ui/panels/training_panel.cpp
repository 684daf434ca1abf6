// Training panel: pick a task, train a small transformer on a worker thread, watch the loss fall and the
// attention maps of a probe sequence take shape, scrub back through the run, and look at the output stages
// and the gradient of the loss with respect to each head's attention.
#include "core/io/model_file.h"
#include "core/session.h"
#include "core/train/model_trace.h"
#include "core/train/token_text.h"
#include "ui/model/lessons.h"
#include "ui/model/training/training_controller.h"
#include "ui/model/training/training_curves.h"
#include "ui/panels/panels.h"
#include "ui/picture/colormap.h"
#include "ui/shell/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace attnlab
{

namespace
{

// [SECTION] Controls: task, model, Play / Pause, Step, Reset, pace, stop conditions, progress

// An integer field of the run spec, kept within its limits (core/train/run_spec.h); h's and d_model's also
// within each other's.
void clamp_field(int* value, train::RunField field, int max = 1 << 30)
{
    const train::RunFieldInfo& f = train::run_field(field);
    *value = std::clamp(*value, static_cast<int>(f.min), std::min(max, static_cast<int>(f.max)));
}

// A field's tooltip with its limits: "... (1 to 24)."
void field_tooltip(train::RunField field, const char* text)
{
    const train::RunFieldInfo& f = train::run_field(field);
    char line[256];
    std::snprintf(line, sizeof line, "%s (%g to %g).", text, f.min, f.max);
    item_tooltip(line);
}

void model_fields(TrainingPanelState& ts)
{
    using train::RunField;
    const auto label = [](RunField f) { return train::run_field(f).label; };
    const float w = ImGui::GetFontSize() * 7.0f;
    ImGui::SetNextItemWidth(w);
    ImGui::InputInt(label(RunField::Layers), &ts.edit.n_layers);
    field_tooltip(RunField::Layers,
                  "N: transformer layers stacked. Induction needs 2: one layer cannot do it");
    ImGui::SetNextItemWidth(w);
    int h = ts.edit.n_heads;
    if (ImGui::InputInt(label(RunField::Heads), &h))
    {
        // The - and + buttons step through the h that divide d_model; a typed h is kept as typed.
        const int d = h - ts.edit.n_heads;
        ts.edit.n_heads = d == 1 || d == -1 ? next_head_count(ts.edit.d_model, ts.edit.n_heads, d) : h;
    }
    field_tooltip(RunField::Heads,
                  "Heads per layer; d_k = d_model / h, so h steps through the divisors of d_model");
    ImGui::SetNextItemWidth(w);
    ImGui::InputInt(label(RunField::DModel), &ts.edit.d_model, 8, 32);
    field_tooltip(RunField::DModel, "The width of every token's vector");
    ImGui::Checkbox("attention-only (no FFN)", &ts.edit.attention_only);
    item_tooltip("Leave out the feed-forward sub-layers: only attention moves information (the induction "
                 "preset's choice, as in Olsson et al.).");
    bool post = ts.edit.norm == train::NormPlacement::Post;
    if (ImGui::Checkbox("post-LN (the paper's layer)", &post))
        ts.edit.norm = post ? train::NormPlacement::Post : train::NormPlacement::Pre;
    item_tooltip("Off: pre-LN, A = X + MHA(LN1(X)) (GPT-2, trains more steadily). On: A = LN1(X + MHA(X)).");
    ImGui::SetNextItemWidth(w);
    ImGui::InputFloat(label(RunField::LearningRate), &ts.edit.lr, 0.0f, 0.0f, "%.1e");
    item_tooltip("AdamW's step size after warm-up. 1e-3 suits most tasks here; 1e-2 and up often diverges.");
    ImGui::SetNextItemWidth(w);
    ImGui::InputInt(label(RunField::Batch), &ts.edit.batch_size, 8, 32);
    field_tooltip(RunField::Batch, "Sequences per training step");
    ImGui::SetNextItemWidth(w);
    ImGui::InputScalar("seed", ImGuiDataType_U64, &ts.edit.seed);
    item_tooltip("Seeds the initial weights and the training batches: the same seed gives the same run.");
    clamp_field(&ts.edit.n_layers, RunField::Layers);
    clamp_field(&ts.edit.d_model, RunField::DModel);
    clamp_field(&ts.edit.n_heads, RunField::Heads, ts.edit.d_model);
    clamp_field(&ts.edit.batch_size, RunField::Batch);
}

// ImGui's progress bar draws its text in the theme's text colour wherever it falls: once the bar is full that
// is white on the dark theme's yellow fill (contrast 1.5:1). Here the bar is drawn without text, then the
// text twice, clipped: over the fill in a colour that reads on the fill (4.5:1 at least), over the empty
// frame in the theme's text colour. The text sits where ImGui 1.86 puts it: right of the fill, kept inside
// the bar.
void progress_bar(float fraction, const char* overlay)
{
    ImGui::ProgressBar(fraction, ImVec2(-1, 0), "");
    const ImGuiStyle& style = ImGui::GetStyle();
    const float border = style.FrameBorderSize;
    const ImVec2 lo(ImGui::GetItemRectMin().x + border, ImGui::GetItemRectMin().y + border);
    const ImVec2 hi(ImGui::GetItemRectMax().x - border, ImGui::GetItemRectMax().y - border);
    const float fill_x = lo.x + (hi.x - lo.x) * std::clamp(fraction, 0.0f, 1.0f);
    const ImVec2 size = ImGui::CalcTextSize(overlay);
    const float x =
        std::max(lo.x, std::min(fill_x + style.ItemSpacing.x, hi.x - size.x - style.ItemInnerSpacing.x));
    const ImVec2 at(x, lo.y + (hi.y - lo.y - size.y) * 0.5f);
    const ImU32 fill = ImGui::GetColorU32(ImGuiCol_PlotHistogram);
    const ImU32 on_fill = readable_on(chip_text_color(fill), fill);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec4 fill_clip(lo.x, lo.y, fill_x, hi.y), frame_clip(fill_x, lo.y, hi.x, hi.y);
    dl->AddText(nullptr, 0.0f, at, on_fill, overlay, nullptr, 0.0f, &fill_clip);
    dl->AddText(nullptr, 0.0f, at, ImGui::GetColorU32(ImGuiCol_Text), overlay, nullptr, 0.0f, &frame_clip);
}

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
                ts.edit = train::RunSpec(kind);
                apply_training_fields(state);
            }
        }
        ImGui::EndCombo();
    }
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", info.description);
    const train::RunSpec preset(ts.edit.task);
    ImGui::TextDisabled("preset: %d layer%s, h = %d, d_model = %d%s, %d steps", preset.n_layers,
                        preset.n_layers == 1 ? "" : "s", preset.n_heads, preset.d_model,
                        preset.attention_only ? ", attention-only" : ", with FFN", preset.steps);
    ImGui::PopTextWrapPos();

    if (ImGui::TreeNodeEx("Model and training", ImGuiTreeNodeFlags_DefaultOpen))
    {
        model_fields(ts);
        if (ImGui::Button("Preset"))
        {
            const std::uint64_t seed = ts.edit.seed;
            ts.edit = train::RunSpec(ts.edit.task);
            ts.edit.seed = seed;
        }
        item_tooltip("Put the task's preset shape and settings back in the fields (the seed stays).");
        ImGui::TreePop();
    }
    const bool changed = !same_model(ts.edit, v.config);
    // A message about fields the user has since changed is stale.
    if (!ts.error.empty() && ts.edit != ts.error_for)
        ts.error.clear();

    // [SECTION] Buttons
    const float big = ImGui::GetFontSize() * 5.0f;
    if (ImGui::Button(run.running() ? "Pause" : "Play", ImVec2(big, 0.0f)))
        training_play_pause(state);
    item_tooltip("Space (outside lessons): train on a worker thread until the target step (the window stays "
                 "responsive).");
    ImGui::SameLine();
    if (ImGui::Button("Step"))
        training_step(state, 1);
    item_tooltip("Right arrow (outside lessons): one training step (one batch).");
    ImGui::SameLine();
    char label[32];
    std::snprintf(label, sizeof label, "Step %d", ts.step_count);
    if (ImGui::Button(label))
        training_step(state, ts.step_count);
    item_tooltip("Train this many steps at once (set the number below).");
    ImGui::SameLine();
    if (ImGui::Button("Reset"))
    {
        if (changed)
            apply_training_fields(state);
        else
            run.reset();
        ts.notice.clear();
        ts.follow_latest = ts.error.empty() || ts.follow_latest;
    }
    item_tooltip("Back to step 0 with the same initial weights: the same seed gives the same run again. The "
                 "run so far stays in the curves, to compare.");
    ImGui::SameLine();
    if (ImGui::Button("New seed"))
    {
        ts.edit.seed = ts.edit.seed + 1;
        apply_training_fields(state);
    }
    item_tooltip("Step 0 again with other initial weights and batches (seed + 1).");
    // Messages under the buttons, so that the buttons do not move when one appears.
    if (!ts.error.empty())
        error_text(ts.error + " (the run on screen is unchanged)");
    else if (changed)
        error_text("Changed: Play, Step or Reset starts the new model.");

    const float w = ImGui::GetFontSize() * 7.0f;
    ImGui::SetNextItemWidth(w);
    if (ImGui::InputInt("steps per Step N", &ts.step_count, 10, 100))
        ts.step_count = std::clamp(ts.step_count, 1, 100000);
    ImGui::SetNextItemWidth(w);
    if (ImGui::InputInt(train::run_field(train::RunField::Steps).label, &ts.edit.steps, 100, 1000))
    {
        clamp_field(&ts.edit.steps, train::RunField::Steps);
        run.set_target_steps(ts.edit.steps);
        ts.notice.clear();
    }
    item_tooltip("Play stops here.");
    ImGui::SetNextItemWidth(w);
    const char* pace_format = ts.pace <= 0.0f ? "full speed" : "%.0f steps/s";
    if (ImGui::SliderFloat("pace", &ts.pace, 0.0f, 60.0f, pace_format, ImGuiSliderFlags_AlwaysClamp))
        run.set_max_steps_per_s(ts.pace);
    item_tooltip("Slow motion: at most this many steps a second, to watch a pattern form (0: as fast as the "
                 "machine goes). Reverse learns in under a second at full speed.");
    if (ImGui::Checkbox("stop at held-out accuracy", &ts.stop_at_accuracy))
        run.set_stop_accuracy(ts.stop_at_accuracy ? ts.stop_accuracy : 0.0f);
    if (ts.stop_at_accuracy)
    {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.0f);
        float percent = ts.stop_accuracy * 100.0f;
        if (ImGui::SliderFloat("##stop", &percent, 10.0f, 100.0f, "%.0f %%", ImGuiSliderFlags_AlwaysClamp))
        {
            ts.stop_accuracy = percent / 100.0f;
            run.set_stop_accuracy(ts.stop_accuracy);
        }
    }

    const int target = std::max(1, ts.edit.steps);
    char overlay[128];
    // Screenshots leave the rate out: it is the machine's, and the picture should not change from run to run.
    if (state.mouse_ignored || v.steps_per_s <= 0.0)
        std::snprintf(overlay, sizeof overlay, "step %d / %d", v.step, target);
    else if (run.running() && v.step < target)
        std::snprintf(overlay, sizeof overlay, "step %d / %d   %.0f steps/s   %.0f s left", v.step, target,
                      v.steps_per_s, (target - v.step) / v.steps_per_s);
    else
        std::snprintf(overlay, sizeof overlay, "step %d / %d   %.0f steps/s", v.step, target, v.steps_per_s);
    progress_bar(std::min(1.0f, static_cast<float>(v.step) / static_cast<float>(target)), overlay);
    if (v.diverged_at >= 0)
        error_text("The run diverged at step " + std::to_string(v.diverged_at) +
                   ": its loss became NaN or infinite, so it cannot train on. Lower the learning rate "
                   "(1e-3 suits most tasks) and press Reset, or Reset to start again.");
    else if (!v.stopped_because.empty() && !run.running())
        ImGui::TextDisabled("Stopped: %s.", v.stopped_because.c_str());
    if (!ts.notice.empty())
    {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s", ts.notice.c_str());
        ImGui::PopStyleColor();
    }
    if (!v.evals.empty())
    {
        const TrainingEval& e = v.evals.back();
        if (std::isfinite(e.loss))
            ImGui::Text("held-out: loss %.3f, accuracy %.1f %% (step %d)", static_cast<double>(e.loss),
                        100.0 * static_cast<double>(e.accuracy), e.step);
        else
            ImGui::Text("held-out: loss not finite (step %d)", e.step);
    }
    if (!v.loss.empty())
    {
        ImGui::Text("training batches: accuracy %.1f %%", 100.0 * static_cast<double>(v.accuracy));
        item_tooltip("The mean of the last 20 steps' batches, before each update.");
    }
    if (ImGui::Button("Save model…"))
        state.request_file_action = FileAction::SaveModel;
    item_tooltip("Write the model at this step, its settings and curves to an attnlab-model file.");
    ImGui::SameLine();
    if (ImGui::Button("Curves as CSV…"))
        state.request_file_action = FileAction::ExportCurvesCsv;
    item_tooltip("One row per held-out point: step, losses, accuracy and every head's scores.");
    ImGui::SameLine();
    if (ImGui::Button("PNG…"))
        state.request_file_action = FileAction::ExportCurvesPng;
    item_tooltip("The three plots as a picture for slides: white background, title, legend.");
}

// [SECTION] Curves

// One line of a plot: points (step, value).
struct Series
{
    std::vector<ImVec2> points;
    ImU32 color = 0;
    std::string label;
    float thickness = 1.5f;
};

struct PlotSpec
{
    const char* title = "";
    bool log_y = false;
    bool percent = false;       // values in [0, 1] shown as %
    float y_min = 0, y_max = 1; // the y range shown
    int x_min = 0, x_max = 1;
    int cursor = -1;                // a vertical line at this step (-1: none)
    const LossDrop* drop = nullptr; // the steepest drop, marked
};

constexpr ImU32 kThisRun = kThisRunColor;

// At most one point per pixel column: the mean of the points that fall in it.
std::vector<ImVec2> thin(const std::vector<ImVec2>& pts, int x_min, int x_max, float width_px)
{
    if (pts.size() <= static_cast<std::size_t>(width_px) || width_px < 2.0f)
        return pts;
    std::vector<ImVec2> out;
    const float per = static_cast<float>(std::max(1, x_max - x_min)) / width_px;
    std::size_t i = 0;
    while (i < pts.size())
    {
        const int column = static_cast<int>((pts[i].x - static_cast<float>(x_min)) / per);
        double sx = 0, sy = 0;
        int n = 0;
        while (i < pts.size() && static_cast<int>((pts[i].x - static_cast<float>(x_min)) / per) == column)
        {
            if (std::isfinite(pts[i].y)) // a diverged step's NaN would make the whole column NaN
            {
                sx += pts[i].x;
                sy += pts[i].y;
                ++n;
            }
            ++i;
        }
        if (n > 0)
            out.push_back(ImVec2(static_cast<float>(sx / n), static_cast<float>(sy / n)));
    }
    return out;
}

std::string value_text(float v, const PlotSpec& spec)
{
    char s[32];
    if (!std::isfinite(v))
        return "not finite (diverged)";
    if (spec.percent)
        std::snprintf(s, sizeof s, "%.1f %%", 100.0 * static_cast<double>(v));
    else if (v != 0.0f && std::fabs(v) < 0.01f)
        std::snprintf(s, sizeof s, "%.1e", static_cast<double>(v)); // short enough for the axis
    else
        std::snprintf(s, sizeof s, "%.3g", static_cast<double>(v));
    return s;
}

// Draws a plot with a y axis, step labels, a legend line, a cursor and hover values. Returns the step under
// the mouse when the plot is clicked (-1 otherwise): clicking moves the timeline there.
int draw_plot(const AppState& state, const PlotSpec& spec, const std::vector<Series>& series, ImVec2 size)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float fs = ImGui::GetFontSize();
    const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Border);
    ImGui::TextUnformatted(spec.title);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float axis_w = fs * 3.9f; // "5.7e-05" and "100.0 %" fit
    const ImVec2 a(p.x + axis_w, p.y + fs * 0.3f);
    const ImVec2 b(p.x + size.x - fs * 0.5f, p.y + size.y - fs * 1.4f);
    ImGui::InvisibleButton(spec.title, size);
    const bool hovered = ImGui::IsItemHovered() && !state.mouse_ignored;
    const bool clicked = ImGui::IsItemClicked();

    const float lo = spec.y_min, hi = spec.y_max; // the curve data's range (plot_y_range)
    const auto fy = [&](float v) { return spec.log_y ? std::log10(std::max(v, 1e-12f)) : v; };
    float ylo = fy(lo), yhi = fy(hi);
    if (yhi - ylo < 1e-6f)
    {
        ylo -= 0.5f;
        yhi += 0.5f;
    }
    const float xspan = static_cast<float>(std::max(1, spec.x_max - spec.x_min));
    const auto to_screen = [&](ImVec2 q)
    {
        return ImVec2(a.x + (q.x - static_cast<float>(spec.x_min)) / xspan * (b.x - a.x),
                      b.y - (fy(q.y) - ylo) / (yhi - ylo) * (b.y - a.y));
    };

    dl->AddRect(a, b, grid);
    // Y labels: the ends, and the decades between on a log axis.
    const auto y_label = [&](float v)
    {
        const float y = b.y - (fy(v) - ylo) / (yhi - ylo) * (b.y - a.y);
        const std::string t = value_text(v, spec);
        const ImVec2 sz = ImGui::CalcTextSize(t.c_str());
        dl->AddText(ImVec2(a.x - sz.x - fs * 0.25f, y - sz.y * 0.5f), faint, t.c_str());
        dl->AddLine(ImVec2(a.x, y), ImVec2(b.x, y), (grid & 0x00FFFFFFu) | 0x50000000u);
    };
    y_label(lo);
    y_label(hi);
    // The decades between, where they do not crowd the ends or each other.
    float last_y = b.y;
    if (spec.log_y)
        for (float d = std::ceil(ylo); d < yhi; d += 1.0f)
        {
            const float y = b.y - (d - ylo) / (yhi - ylo) * (b.y - a.y);
            if (y < b.y - fs * 1.1f && y > a.y + fs * 1.1f && y < last_y - fs * 1.1f)
            {
                y_label(std::pow(10.0f, d));
                last_y = y;
            }
        }
    // X labels: first and last step.
    char xs[32];
    std::snprintf(xs, sizeof xs, "%d", spec.x_min);
    dl->AddText(ImVec2(a.x, b.y + fs * 0.1f), faint, xs);
    std::snprintf(xs, sizeof xs, "step %d", spec.x_max);
    dl->AddText(ImVec2(b.x - ImGui::CalcTextSize(xs).x, b.y + fs * 0.1f), faint, xs);

    dl->PushClipRect(a, b, true);
    if (spec.drop != nullptr)
    {
        const float x0 = to_screen(ImVec2(static_cast<float>(spec.drop->from_step), lo)).x;
        const float x1 = to_screen(ImVec2(static_cast<float>(spec.drop->to_step), lo)).x;
        dl->AddRectFilled(ImVec2(x0, a.y), ImVec2(std::max(x1, x0 + 2.0f), b.y), IM_COL32(230, 159, 0, 50));
        dl->AddText(ImVec2(x0 + fs * 0.2f, a.y + fs * 0.1f), IM_COL32(230, 159, 0, 255), "steepest drop");
    }
    for (const Series& s : series)
    {
        const std::vector<ImVec2> pts = thin(s.points, spec.x_min, spec.x_max, b.x - a.x);
        std::vector<ImVec2> screen;
        screen.reserve(pts.size());
        for (const ImVec2& q : pts)
            if (std::isfinite(q.y))
                screen.push_back(to_screen(q));
        if (screen.size() == 1)
            dl->AddCircleFilled(screen[0], s.thickness * 1.5f, s.color);
        else if (screen.size() > 1)
            dl->AddPolyline(screen.data(), static_cast<int>(screen.size()), s.color, 0, s.thickness);
    }
    if (spec.cursor >= spec.x_min)
    {
        const float x = to_screen(ImVec2(static_cast<float>(spec.cursor), lo)).x;
        dl->AddLine(ImVec2(x, a.y), ImVec2(x, b.y), ink, 1.0f);
    }
    dl->PopClipRect();

    if (!hovered)
        return -1;
    const float mx = ImGui::GetIO().MousePos.x;
    const int step = spec.x_min + static_cast<int>(std::lround((mx - a.x) / (b.x - a.x) * xspan));
    dl->AddLine(ImVec2(mx, a.y), ImVec2(mx, b.y), faint);
    std::string tip = "step " + std::to_string(std::clamp(step, spec.x_min, spec.x_max));
    for (const Series& s : series)
    {
        if (s.points.empty())
            continue;
        // The point nearest the mouse's step.
        const auto it = std::lower_bound(s.points.begin(), s.points.end(), static_cast<float>(step),
                                         [](const ImVec2& q, float x) { return q.x < x; });
        const ImVec2 q = it == s.points.end() ? s.points.back() : *it;
        tip += "\n" + s.label + ": " + value_text(q.y, spec) + " (step " +
               std::to_string(static_cast<int>(q.x)) + ")";
    }
    ImGui::SetTooltip("%s", tip.c_str());
    return clicked ? std::clamp(step, spec.x_min, spec.x_max) : -1;
}

// The legend of the runs: the current one, then the kept ones.
void draw_legend(const TrainingSnapshot& v)
{
    const float fs = ImGui::GetFontSize();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const auto swatch = [&](ImU32 c)
    {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        dl->AddRectFilled(ImVec2(p.x, p.y + fs * 0.35f), ImVec2(p.x + fs * 1.2f, p.y + fs * 0.65f), c);
        ImGui::Dummy(ImVec2(fs * 1.3f, fs));
        ImGui::SameLine();
    };
    swatch(kThisRun);
    ImGui::TextDisabled("this run: %s", v.config.label().c_str());
    for (std::size_t i = v.past.size(); i-- > 0;)
    {
        swatch(past_run_color(i));
        ImGui::TextDisabled("earlier: %s (%d steps)", v.past[i].label.c_str(),
                            static_cast<int>(v.past[i].loss.size()));
    }
}

// The shared curve data as the plot's series.
std::vector<Series> to_series(const CurvePlot& plot)
{
    std::vector<Series> out;
    for (const CurveSeries& c : plot.series)
    {
        Series s{{}, c.color, c.label, c.width};
        s.points.reserve(c.points.size());
        for (const auto& [x, y] : c.points)
            s.points.push_back(ImVec2(x, y));
        out.push_back(std::move(s));
    }
    return out;
}

PlotSpec to_spec(const CurvePlot& plot, const TrainingCurves& c, int cursor)
{
    PlotSpec spec;
    spec.title = plot.title.c_str();
    spec.log_y = plot.log_y;
    spec.percent = plot.percent;
    plot_y_range(plot, &spec.y_min, &spec.y_max);
    spec.x_min = c.x_min;
    spec.x_max = c.x_max;
    spec.cursor = cursor;
    return spec;
}

void draw_curves(AppState& state, int cursor)
{
    TrainingPanelState& ts = state.training;
    const TrainingSnapshot& v = ts.view;
    const float fs = ImGui::GetFontSize();
    const TrainingCurves c = training_curves(v, ts.edit.steps, ts.score_kind);
    const float w = ImGui::GetContentRegionAvail().x;
    const float plot_w = (w - fs) / 3.0f;
    const float plot_h = fs * 8.0f;

    ImGui::BeginGroup();
    PlotSpec ls = to_spec(c.loss, c, cursor);
    ls.drop = c.has_drop ? &c.drop : nullptr;
    int clicked = draw_plot(state, ls, to_series(c.loss), ImVec2(plot_w, plot_h));
    ImGui::EndGroup();
    if (ls.drop != nullptr)
        item_tooltip("The shaded band is where the training loss falls fastest: the phase change.");

    ImGui::SameLine();
    ImGui::BeginGroup();
    if (const int k =
            draw_plot(state, to_spec(c.accuracy, c, cursor), to_series(c.accuracy), ImVec2(plot_w, plot_h));
        k >= 0)
        clicked = k;
    ImGui::EndGroup();

    ImGui::SameLine();
    ImGui::BeginGroup();
    if (const int k = draw_plot(state, to_spec(c.heads, c, cursor), to_series(c.heads),
                                ImVec2(plot_w, plot_h - fs * 1.6f));
        k >= 0)
        clicked = k;
    ImGui::SetNextItemWidth(plot_w * 0.6f);
    const auto score_key = [](void*, int i, const char** out)
    {
        *out = train::head_score_info(train::head_score_kind(i)).key;
        return true;
    };
    ImGui::Combo("##score", &ts.score_kind, score_key, nullptr, train::kHeadScoreCount);
    item_tooltip(
        "Per head, on the held-out set: previous-token = mean weight on key i − 1; induction = weight "
        "on keys whose previous token equals the query's token (Olsson et al.); diagonal = on key i; "
        "anti-diagonal = on the mirrored key T − 1 − i. Thin lines: layer 1; thick: later layers.");
    ImGui::EndGroup();
    draw_legend(v);

    if (clicked >= 0 && !v.timeline.empty())
    {
        ts.follow_latest = false;
        ts.shown_step = clicked;
    }
}

// [SECTION] Timeline and probe

void draw_timeline(AppState& state)
{
    TrainingPanelState& ts = state.training;
    const TrainingSnapshot& v = ts.view;
    if (v.timeline.empty())
        return;
    const int last = static_cast<int>(v.timeline.size()) - 1;
    const TrainingFrame* f = shown_frame(ts);
    int index = static_cast<int>(f - v.timeline.data());
    char format[64];
    std::snprintf(format, sizeof format, "step %d", f->step);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 12.0f);
    if (ImGui::SliderInt("##timeline", &index, 0, last, format, ImGuiSliderFlags_AlwaysClamp))
    {
        ts.follow_latest = index == last && !state.training_run.running() ? true : false;
        ts.shown_step = v.timeline[static_cast<std::size_t>(index)].step;
    }
    item_tooltip(
        "The timeline: the weights as they were every few steps. Drag back to see every map as it was "
        "at that step (the probe stays editable); click a curve to jump to its step.");
    ImGui::SameLine();
    if (ImGui::Checkbox("latest", &ts.follow_latest) && !ts.follow_latest)
        ts.shown_step = f->step;
    item_tooltip("Follow the newest weights while training.");
    ImGui::SameLine();
    ImGui::TextDisabled("%d frame%s", last + 1, last == 0 ? "" : "s");
    if (!ts.lesson_queue.empty())
    {
        const int more = static_cast<int>(ts.lesson_queue.size()) - 1;
        const std::string next = more == 0 ? "the lesson's own run comes next"
                                           : std::to_string(more) + " more to compare, then the lesson's own";
        ImGui::TextColored(ImGui::GetStyle().Colors[ImGuiCol_PlotHistogram],
                           "Training a run to compare with (%s); %s", v.config.label().c_str(), next.c_str());
    }
    if (ts.replay_expect != nullptr)
        ImGui::TextColored(ImGui::GetStyle().Colors[ImGuiCol_PlotHistogram],
                           "Rebuilding the timeline: replaying the run from its seed, step %d of %d", v.step,
                           ts.replay_target);
    else if (v.first_step > 0 && last == 0 && !state.training_run.running())
    {
        // An opened model has its last step only; the same seed and settings replay the whole run.
        if (ImGui::SmallButton("Rebuild the timeline"))
            if (const Status s = replay_timeline(state); !s)
                state.set_message(s.message(), true);
        item_tooltip(
            "Trains the same model again from its seed to this step (the same seed and settings give "
            "the same run, bit for bit) and checks the result against the saved weights.");
    }
}

void draw_probe_field(AppState& state)
{
    TrainingPanelState& ts = state.training;
    ImGui::TextUnformatted("probe");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 6.0f);
    if (input_text("##probe", &ts.probe_text))
        ts.probe_dirty = true;
    item_tooltip("The sequence the maps show, in the task's vocabulary, tokens separated by spaces. Each "
                 "position predicts the next token. Edit it at any step of the timeline.");
    ImGui::SameLine();
    if (ImGui::Button("Default"))
    {
        ts.probe_text = ts.view.probe_text;
        ts.probe_dirty = true;
    }
    item_tooltip("The task's first held-out sequence (never trained on).");
    if (!ts.probe_error.empty())
        error_text(ts.probe_error + " (the maps show the last good probe)");
}

// [SECTION] Maps

struct MapLabels
{
    const std::vector<std::string>* rows = nullptr;
    const std::vector<std::string>* cols = nullptr;
};

// Draws one heatmap of size (w, h) cells area with row labels left and column labels on top when they fit.
// Returns the hovered cell (row, col) or (-1, -1).
std::pair<int, int> draw_map(AppState& state, const char* key, unsigned long long version, const Mat& m,
                             bool probability, const Mat* mask, ImVec2 area, const MapLabels& labels,
                             ImU32 frame_color)
{
    const float fs = ImGui::GetFontSize();
    const int R = static_cast<int>(m.rows()), C = static_cast<int>(m.cols());
    // Room for labels only where they fit: a cell at least 0.7 em high, every label within 2 em.
    const auto cell_for = [&](float label_space)
    {
        const float cw = (area.x - label_space) / static_cast<float>(std::max(1, C));
        const float ch = (area.y - label_space) / static_cast<float>(std::max(1, R));
        return std::max(1.0f, std::min(cw, ch));
    };
    const auto short_labels = [&](const std::vector<std::string>* l)
    {
        if (l == nullptr)
            return false;
        for (const std::string& t : *l)
            if (ImGui::CalcTextSize(t.c_str()).x > fs * 2.0f)
                return false;
        return true;
    };
    float label_w = fs * 2.2f;
    if (cell_for(label_w) < fs * 0.7f || !(short_labels(labels.rows) || short_labels(labels.cols)))
        label_w = fs * 0.2f;
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
    if (fits(labels.rows))
        for (int r = 0; r < R && r < static_cast<int>(labels.rows->size()); ++r)
        {
            const char* t = (*labels.rows)[static_cast<std::size_t>(r)].c_str();
            const ImVec2 sz = ImGui::CalcTextSize(t);
            dl->AddText(ImVec2(img0.x - sz.x - fs * 0.2f,
                               img0.y + (static_cast<float>(r) + 0.5f) * cell - sz.y * 0.5f),
                        col, t);
        }
    if (fits(labels.cols) && cell >= ImGui::CalcTextSize("00").x * 0.6f)
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
    ImGui::Dummy(ImVec2(label_w + cell * static_cast<float>(C), label_w + cell * static_cast<float>(R)));
    if (!ImGui::IsItemHovered() || state.mouse_ignored)
        return {-1, -1};
    const ImVec2 mp = ImGui::GetIO().MousePos;
    const int r = static_cast<int>(std::floor((mp.y - img0.y) / cell));
    const int c = static_cast<int>(std::floor((mp.x - img0.x) / cell));
    if (r < 0 || r >= R || c < 0 || c >= C)
        return {-1, -1};
    return {r, c};
}

std::vector<std::string> probe_tokens(const TrainingPanelState& ts)
{
    std::vector<std::string> out;
    for (const int id : ts.probe_batch.tokens)
        out.push_back(id >= 0 && id < static_cast<int>(ts.view.vocabulary.size())
                          ? ts.view.vocabulary[static_cast<std::size_t>(id)]
                          : "?");
    return out;
}

void draw_attention(AppState& state, bool with_gradient)
{
    TrainingPanelState& ts = state.training;
    const TrainingProbe& pr = ts.probe;
    const int h = pr.n_heads(), L = pr.n_layers();
    const std::vector<std::string> tokens = probe_tokens(ts);
    const float fs = ImGui::GetFontSize();
    const float gap = fs * 0.8f;
    const float title_h = ImGui::GetTextLineHeightWithSpacing() * 2.0f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const int per_head = with_gradient ? 2 : 1;
    const int cols = h * per_head;
    const float side_w = (avail.x - static_cast<float>(cols) * gap) / static_cast<float>(cols);
    const float side_h = (avail.y - static_cast<float>(L) * (title_h + gap)) / static_cast<float>(L);
    const float side = std::max(fs * 4.0f, std::min(side_w, side_h));
    const float grid_x = ImGui::GetCursorPosX();
    for (int l = 0; l < L; ++l)
        for (int j = 0; j < h; ++j)
        {
            const int k = l * h + j;
            if (j != 0)
                ImGui::SameLine(grid_x + static_cast<float>(j * per_head) * (side + gap));
            ImGui::PushID(k);
            ImGui::BeginGroup();
            ImGui::PushStyleColor(ImGuiCol_Text, head_text_color(j));
            ImGui::Text("layer %d, head %d", l + 1, j + 1);
            ImGui::PopStyleColor();
            const std::string scores =
                k < static_cast<int>(pr.scores().size())
                    ? map_scores_text(ts.view.config.task, pr.scores()[static_cast<std::size_t>(k)])
                    : std::string();
            char line[128];
            std::snprintf(line, sizeof line, "%s%s", with_gradient ? "A_h | ∂L/∂A_h   " : "", scores.c_str());
            // Only what fits above the map (at 1280x720 the full line would run into the next head).
            if (ImGui::CalcTextSize(line).x > side * static_cast<float>(per_head))
                std::snprintf(line, sizeof line, "%s", scores.c_str());
            if (ImGui::CalcTextSize(line).x <= side * static_cast<float>(per_head))
                ImGui::TextDisabled("%s", line);
            else
                ImGui::TextDisabled(" ");
            char key[48];
            std::snprintf(key, sizeof key, "train/L%d/h%d", l, j);
            const auto [r, c] = draw_map(state, key, pr.version(), pr.weights(k), true, &pr.mask(),
                                         ImVec2(side, side), {&tokens, &tokens}, head_color(j));
            if (r >= 0)
                ImGui::SetTooltip("query %d \"%s\" -> key %d \"%s\": A = %.3f%s", r,
                                  tokens[static_cast<std::size_t>(r)].c_str(), c,
                                  tokens[static_cast<std::size_t>(c)].c_str(),
                                  static_cast<double>(pr.weights(k)(r, c)),
                                  pr.mask()(r, c) < 0 ? " (masked: the key is in the future)" : "");
            if (with_gradient)
            {
                ImGui::SameLine();
                std::snprintf(key, sizeof key, "train/L%d/h%d/grad", l, j);
                const auto [gr, gc] = draw_map(state, key, pr.version(), pr.dweights(k), false, &pr.mask(),
                                               ImVec2(side, side), {&tokens, &tokens}, head_color(j));
                if (gr >= 0)
                    ImGui::SetTooltip("∂L/∂A_h at query %d, key %d: %.3g\nNegative (blue): more weight here "
                                      "would lower the loss.",
                                      gr, gc, static_cast<double>(pr.dweights(k)(gr, gc)));
            }
            ImGui::EndGroup();
            ImGui::PopID();
        }
}

void draw_output(AppState& state)
{
    TrainingPanelState& ts = state.training;
    const TrainingProbe& pr = ts.probe;
    const TrainingSnapshot& v = ts.view;
    const std::vector<std::string> tokens = probe_tokens(ts);
    const int T = pr.T();
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled(
        "logits = Z W_U + b_U and probs = softmax(logits) per position (T x V = %d x %d): row t "
        "predicts token t + 1. Loss at t = −log probs[t, token t + 1]; mean %.3f.",
        T, static_cast<int>(v.vocabulary.size()), static_cast<double>(pr.mean_loss()));
    ImGui::PopTextWrapPos();
    const float fs = ImGui::GetFontSize();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float table_w = fs * 12.0f;
    const float map_w = (avail.x - table_w - fs * 2.0f) / 2.0f;
    const ImVec2 area(map_w, avail.y - fs * 2.0f);

    ImGui::BeginGroup();
    ImGui::TextUnformatted("logits (T x V)");
    const auto [r, c] = draw_map(state, "train/logits", pr.version(), pr.logits(), false, nullptr, area,
                                 {&tokens, &v.vocabulary}, ImGui::GetColorU32(ImGuiCol_Border));
    if (r >= 0)
        ImGui::SetTooltip(
            "after \"%s\" (position %d): logit of \"%s\" = %.3f", tokens[static_cast<std::size_t>(r)].c_str(),
            r, v.vocabulary[static_cast<std::size_t>(c)].c_str(), static_cast<double>(pr.logits()(r, c)));
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextUnformatted("next-token probabilities (T x V)");
    const auto [pr_r, pr_c] = draw_map(state, "train/probs", pr.version(), pr.probs(), true, nullptr, area,
                                       {&tokens, &v.vocabulary}, ImGui::GetColorU32(ImGuiCol_Border));
    if (pr_r >= 0)
        ImGui::SetTooltip("after \"%s\" (position %d): p(\"%s\") = %.3f",
                          tokens[static_cast<std::size_t>(pr_r)].c_str(), pr_r,
                          v.vocabulary[static_cast<std::size_t>(pr_c)].c_str(),
                          static_cast<double>(pr.probs()(pr_r, pr_c)));
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextUnformatted("predicted, loss");
    if (ImGui::BeginTable("predictions", 4,
                          ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY,
                          ImVec2(table_w, area.y)))
    {
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn("t");
        ImGui::TableSetupColumn("token");
        ImGui::TableSetupColumn("next?");
        ImGui::TableSetupColumn("loss");
        ImGui::TableHeadersRow();
        for (int t = 0; t < T; ++t)
        {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%d", t);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(tokens[static_cast<std::size_t>(t)].c_str());
            ImGui::TableNextColumn();
            const int pred = pr.predicted()[static_cast<std::size_t>(t)];
            const bool has_next = t + 1 < T;
            const bool right = has_next && ts.probe_batch.tokens[static_cast<std::size_t>(t + 1)] == pred;
            const char* word = v.vocabulary[static_cast<std::size_t>(pred)].c_str();
            if (!has_next)
                ImGui::TextDisabled("%s", word);
            else if (right)
                ImGui::Text("%s", word);
            else
                ImGui::TextColored(error_color(), "%s", word);
            ImGui::TableNextColumn();
            if (has_next)
                ImGui::Text("%.2f", static_cast<double>(pr.loss()[static_cast<std::size_t>(t)]));
        }
        ImGui::EndTable();
    }
    ImGui::EndGroup();
}

// [SECTION] Every stage of one layer and head, in order

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
        l == 0 ? "X = E[tokens] + P[0..T)" : "X = output of layer " + std::to_string(l), la.X);
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
    add(pre ? "A = X + mha" : "X + mha", "the residual: the layer adds to its input", la.residual);
    if (!pre)
        add("LN1(X + mha)", "LayerNorm of each row", la.ln1);
    if (c.has_ffn())
    {
        if (pre)
            add("LN2(A)", "LayerNorm of each row", la.ln2);
        add("max(0, x W_1 + b_1)", "the FFN's hidden layer, d_ff = " + std::to_string(c.resolved_d_ff()),
            la.ffn_hidden);
        add("FFN", "max(0, x W_1 + b_1) W_2 + b_2", la.ffn);
        add(pre ? "A + FFN" : "residual + FFN", "the second residual", la.residual2);
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

void draw_stages(AppState& state)
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
    ImGui::SameLine();
    ImGui::TextDisabled("every intermediate of the probe, in order (rows: positions)");
    const std::vector<std::string> tokens = probe_tokens(ts);
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
        const auto [r, c] =
            draw_map(state, key,
                     pr.version() * 64 + static_cast<unsigned long long>(ts.stage_layer * 8 + ts.stage_head),
                     s.m, s.probability, mask, area, {&tokens, cols}, ImGui::GetColorU32(ImGuiCol_Border));
        if (r >= 0)
            ImGui::SetTooltip("%s[%d, %d] = %.4g", s.name.c_str(), r, c, static_cast<double>(s.m(r, c)));
        ImGui::PopID();
    }
    ImGui::EndChild();
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

void draw_maps(AppState& state)
{
    TrainingPanelState& ts = state.training;
    const TrainingSnapshot& v = ts.view;
    const TrainingFrame* f = shown_frame(ts);
    if (f == nullptr || ts.probe_batch.T == 0)
    {
        ImGui::TextDisabled("No model yet.");
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
    ImGui::RadioButton("attention A_h", &ts.map_kind, 0);
    item_tooltip("Each head's weights on the probe: row = query position, column = key position; hatched "
                 "cells are masked (a key in the future).");
    ImGui::SameLine();
    ImGui::RadioButton("A_h and ∂L/∂A_h", &ts.map_kind, 1);
    item_tooltip("Beside each head, the gradient of the probe's loss with respect to its weights: where more "
                 "attention would lower (blue) or raise (red) the loss.");
    ImGui::SameLine();
    ImGui::RadioButton("output: logits, probabilities, loss", &ts.map_kind, 2);
    ImGui::SameLine();
    ImGui::RadioButton("every stage", &ts.map_kind, 3);
    item_tooltip(
        "Every intermediate of one layer and head on the probe, from X to the probabilities, with its "
        "equation and shape: what the trained model computes, step by step.");
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
    if (ts.map_kind == 2)
        draw_output(state);
    else if (ts.map_kind == 3)
        draw_stages(state);
    else
        draw_attention(state, ts.map_kind == 1);
}

// [SECTION] Keys

void handle_keys(AppState& state)
{
    // During a lesson Space and the arrows step the lesson.
    if (!ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) || ImGui::GetIO().WantTextInput ||
        lesson_active(state))
        return;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space), false))
        training_play_pause(state);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow), true))
        training_step(state, 1);
}

} // namespace

void draw_trained_probe_input(AppState& state)
{
    draw_probe_field(state);
}

void trained_view_banner(AppState& state)
{
    if (lesson_active(state))
        return;
    const bool trained = state.showing_trained();
    if (!trained && !state.training_run.configured())
        return;
    ImGui::PushID("trained_view");
    const auto button_fits = [](const char* label)
    {
        return ImGui::GetContentRegionAvail().x >
               ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2.0f + ImGui::GetFontSize();
    };
    if (trained)
    {
        ImGui::TextColored(ImGui::GetStyle().Colors[ImGuiCol_PlotHistogram], "Trained model: %s",
                           state.trained_view.label.c_str());
        item_tooltip(
            "The Training panel's model at the step its timeline shows, run on its probe sequence "
            "(edit the probe there). The session's own text and settings wait until you switch back.");
        ImGui::SameLine();
        if (!button_fits("show the session"))
            ImGui::NewLine();
        if (ImGui::SmallButton("show the session"))
            set_trained_view(state, false);
    }
    else
    {
        ImGui::TextDisabled("Seeded random weights: untrained.");
        ImGui::SameLine();
        if (!button_fits("show the trained model"))
            ImGui::NewLine();
        if (ImGui::SmallButton("show the trained model"))
            set_trained_view(state, true);
        item_tooltip("Show the Training panel's model here: every stage of its pass on the probe.");
    }
    ImGui::PopID();
}

void draw_training_panel(AppState& state)
{
    TrainingPanelState& ts = state.training;
    if (!state.training_run.configured() && ts.error.empty())
    {
        ts.edit = train::RunSpec(ts.edit.task);
        apply_training_fields(state);
    }
    state.training_run.poll(ts.view);
    sync_probe(ts);
    handle_keys(state);

    const TrainingFrame* f = shown_frame(ts);
    const int cursor = f == nullptr ? -1 : f->step;
    const float left_w = std::min(ImGui::GetFontSize() * 22.0f, ImGui::GetContentRegionAvail().x * 0.32f);
    ImGui::BeginChild("controls", ImVec2(left_w, 0.0f));
    draw_controls(state);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("views", ImVec2(0.0f, 0.0f));
    draw_curves(state, cursor);
    draw_timeline(state);
    draw_probe_field(state);
    ImGui::Separator();
    draw_maps(state);
    ImGui::EndChild();
}

} // namespace attnlab
