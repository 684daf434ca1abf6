// Training panel: pick a task, train a small transformer on a worker thread, watch the loss fall and the
// attention maps of a probe sequence take shape, scrub back through the run, and look at the output stages
// and the gradient of the loss with respect to each head's attention.
//
// Index of this file:
// [SECTION] Controls: task, model, Play / Pause, Step, Reset, pace, stop conditions, progress
// [SECTION] Timeline and probe
// [SECTION] Keys
// [SECTION] The panel, and the trained model's banner and probe field for the other panels
//
// The views beside the controls have files of their own: training_panel_curves.cpp (the plots),
// training_panel_maps.cpp (the probe's maps) and training_panel_stages.cpp ("every stage").
#include "core/io/model_file.h"
#include "core/session.h"
#include "core/train/model_trace.h"
#include "core/train/token_text.h"
#include "ui/model/lessons.h"
#include "ui/model/training/training_controller.h"
#include "ui/model/training/training_curves.h"
#include "ui/panels/panels.h"
#include "ui/panels/training_panel_views.h"
#include "ui/picture/colormap.h"
#include "ui/shell/file_actions.h"
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
    ImGui::Checkbox("residual (x + sublayer)", &ts.edit.residual);
    item_tooltip("Each sub-layer adds its output to its input: A = X + MHA(LN1(X)). Off: it replaces it, A = "
                 "MHA(LN1(X)) (post-LN: LN1(MHA(X))), so a token's own vector survives a layer only if "
                 "attention copies it back. Why add the input back? Retrain with it off and compare the "
                 "curves.");
    using train::PositionKind;
    const char* positions[] = {train::to_string(PositionKind::Learned),
                               train::to_string(PositionKind::Sinusoidal),
                               train::to_string(PositionKind::None)}; // in the enum's order
    int position = static_cast<int>(ts.edit.positions);
    ImGui::SetNextItemWidth(w);
    if (ImGui::Combo("positions", &position, positions, IM_ARRAYSIZE(positions)))
        ts.edit.positions = static_cast<train::PositionKind>(position);
    item_tooltip("X = E[tokens] + P. learned: P is a trained table (the presets'); sinusoidal: the paper's "
                 "fixed sinusoids; none: X = E[tokens] alone, and only the causal mask tells positions "
                 "apart.");
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

// The Text task's own fields: which text (a built-in book or a file of the user's), a token per character or
// per word, and the repeat share.
void text_fields(AppState& state)
{
    TrainingPanelState& ts = state.training;
    const train::BuiltinCorpus* builtin = train::find_builtin_corpus(ts.edit.corpus);
    const std::size_t slash = ts.edit.corpus.find_last_of('/');
    const std::string file = slash == std::string::npos ? ts.edit.corpus : ts.edit.corpus.substr(slash + 1);
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 4.0f);
    if (ImGui::BeginCombo("text", builtin != nullptr ? builtin->title : file.c_str()))
    {
        for (const train::BuiltinCorpus& c : train::builtin_corpora())
            if (ImGui::Selectable(c.title, builtin == &c))
                ts.edit.corpus = c.key;
        if (ImGui::Selectable("A text file of yours…"))
            open_file_dialog(state, FileAction::TrainTextFile);
        ImGui::EndCombo();
    }
    item_tooltip(builtin != nullptr ? "A public-domain book that comes with Attention Lab (assets/corpora)."
                                    : ts.edit.corpus.c_str());
    int level = static_cast<int>(ts.edit.level);
    ImGui::TextUnformatted("tokens");
    ImGui::SameLine();
    ImGui::RadioButton("characters", &level, static_cast<int>(train::TextLevel::Char));
    item_tooltip(
        "A token per character (about 75 of them in a book): the model learns spelling first, and its "
        "heads' maps read letter by letter. The previous-token, induction and word-start heads all "
        "form within a couple of thousand steps.");
    ImGui::SameLine();
    ImGui::RadioButton("words", &level, static_cast<int>(train::TextLevel::Word));
    item_tooltip("A token per word or punctuation mark: the 1,999 commonest words seen 3 times or more, the "
                 "rest one unknown token (U+FFFD). Each map row is a whole word, so a sentence fits the "
                 "screen, but each step costs more (2,000 logits a position) and heads form more slowly; "
                 "there is no word-start score, every token starting a word.");
    ts.edit.level = static_cast<train::TextLevel>(level);
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 4.0f);
    ImGui::SliderFloat("repeat", &ts.edit.repeat, 0.0f, 1.0f, "%.2f");
    item_tooltip(
        "The share of training sequences in which a snippet of 8-24 characters is repeated over and over "
        "to the end of the window (\"the cat sat the cat sat the cat…\"). Plain English rarely repeats "
        "itself within 64 characters, so a bigram guess is all it teaches; in a repeated tail about half the "
        "window's characters can only be predicted by finding the same character earlier and copying what "
        "followed it, which is what an induction head does (a previous-token head in layer 1, a head in "
        "layer 2 matching against it), so the loss rewards exactly that circuit and it forms. The held-out "
        "text never repeats.");
}

// The task, its description and preset, and the model's fields.
void draw_task(AppState& state)
{
    TrainingPanelState& ts = state.training;
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
    if (ts.edit.task == train::TaskKind::Text)
        text_fields(state);
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
}

// Play / Pause, Step, Step N, Reset and New seed, with the message under them. changed: the fields differ
// from the model on screen.
void draw_run_buttons(AppState& state, bool changed)
{
    TrainingPanelState& ts = state.training;
    TrainingRun& run = state.training_run;
    const float big = ImGui::GetFontSize() * 5.0f;
    if (ImGui::Button(run.running() ? "Pause" : "Play", ImVec2(big, 0.0f)))
        training_play_pause(state);
    item_tooltip("Space (outside lessons): train on a worker thread until the target step (the window stays "
                 "responsive).");
    // Each button goes on the line while it fits: at 1280x720 "New seed" starts the next line.
    same_line_if_fits(button_width("Step"));
    if (ImGui::Button("Step"))
        training_step(state, 1);
    item_tooltip("Right arrow (outside lessons): one training step (one batch).");
    char label[32];
    std::snprintf(label, sizeof label, "Step %d", ts.step_count);
    same_line_if_fits(button_width(label));
    if (ImGui::Button(label))
        training_step(state, ts.step_count);
    item_tooltip("Train this many steps at once (set the number below).");
    same_line_if_fits(button_width("Reset"));
    if (ImGui::Button("Reset"))
        training_reset(state);
    item_tooltip("Back to step 0 with the same initial weights: the same seed gives the same run again. The "
                 "run so far stays in the curves, to compare.");
    same_line_if_fits(button_width("New seed"));
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
}

// Steps per Step N, the target, the pace and the stop at a held-out accuracy.
void draw_run_limits(AppState& state)
{
    TrainingPanelState& ts = state.training;
    TrainingRun& run = state.training_run;
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
}

// The progress bar, why the run stopped, and the latest held-out and training accuracy.
void draw_progress(AppState& state)
{
    TrainingPanelState& ts = state.training;
    const TrainingRun& run = state.training_run;
    const TrainingSnapshot& v = ts.view;
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
        text_wrappedf("%s", ts.notice.c_str());
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
}

// Save the model, the curves as CSV or as a picture.
void draw_file_buttons(AppState& state)
{
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

void draw_controls(AppState& state)
{
    TrainingPanelState& ts = state.training;
    const TrainingSnapshot& v = ts.view;
    draw_task(state);
    const bool changed = !same_model(ts.edit, v.config);
    // A message about fields the user has since changed is stale.
    if (!ts.error.empty() && ts.edit != ts.error_for)
        ts.error.clear();
    draw_run_buttons(state, changed);
    draw_run_limits(state);
    draw_progress(state);
    draw_file_buttons(state);
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
        // Wrapped: the run's label alone is wider than the column at 1280x720.
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_PlotHistogram]);
        text_wrappedf("Training a run to compare with (%s); %s", v.config.label().c_str(), next.c_str());
        ImGui::PopStyleColor();
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
    const bool text = ts.view.config.task == train::TaskKind::Text;
    if (text)
    {
        // Characters of English with its line feeds: a single-line field would stop at the first one. Two
        // lines, wrapped, keep the maps their room.
        const float w = ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 6.0f;
        if (input_text_wrapped("##probe", &ts.probe_text, &ts.probe_field, w,
                               ImGui::GetTextLineHeight() * 2.0f + ImGui::GetStyle().FramePadding.y * 2.0f))
            ts.probe_dirty = true;
    }
    else
    {
        ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 6.0f);
        if (input_text("##probe", &ts.probe_text))
            ts.probe_dirty = true;
    }
    item_tooltip(text ? "The text the maps and the loss strip show, read as characters (spaces included). "
                        "Each character predicts the next. Type any sentence, at any step of the timeline."
                      : "The sequence the maps show, in the task's vocabulary, tokens separated by spaces. "
                        "Each position predicts the next token. Edit it at any step of the timeline.");
    ImGui::SameLine();
    if (ImGui::Button("Default"))
    {
        ts.probe_text = ts.view.probe_text;
        ts.probe_dirty = true;
    }
    item_tooltip(
        "The task's default probe: a held-out sequence (never trained on) whose copies are unambiguous.");
    if (!ts.probe_error.empty())
        error_text(ts.probe_error + " (the maps show the last good probe)");
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

// [SECTION] The panel, and the trained model's banner and probe field for the other panels

void draw_trained_probe_input(AppState& state)
{
    draw_probe_field(state);
}

void trained_view_banner(AppState& state)
{
    if (lesson_active(state))
        return;
    const bool trained = state.showing_trained();
    ImGui::PushID("trained_view");
    if (trained)
    {
        // Wrapped: a long run label ("Induction heads, 2 layers × 2 heads, step 600") in a narrow panel.
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_PlotHistogram]);
        text_wrappedf("Trained model: %s (%s)", state.trained_view.label.c_str(),
                      shown_model_label(state).c_str());
        ImGui::PopStyleColor();
        item_tooltip(
            "The Training panel's model at the step its timeline shows, run on its probe sequence "
            "(edit the probe there). The session's own text and settings wait until you switch back.");
        same_line_if_fits(button_width("show the session"));
        if (ImGui::SmallButton("show the session"))
            set_trained_view(state, false);
    }
    else if (state.showing_opened())
    {
        // An opened model folder (ui/model/opened_model.h): the sentence box's text runs through it. One line
        // with its button where it fits (the folder goes first, then "pretrained"), so every panel keeps its
        // room at 1280x720; the whole label is in the tooltip.
        const std::string full = "Model: " + shown_model_label(state);
        const std::string label = state.opened.model->label();
        const std::string candidates[] = {full, "Model: " + label + ", pretrained", label};
        const float button_w = ImGui::CalcTextSize("close model").x +
                               ImGui::GetStyle().FramePadding.x * 2.0f + ImGui::GetStyle().ItemSpacing.x;
        const float avail = ImGui::GetContentRegionAvail().x;
        const std::string* shown = &candidates[2];
        for (const std::string& c : candidates)
            if (ImGui::CalcTextSize(c.c_str()).x + button_w <= avail)
            {
                shown = &c;
                break;
            }
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_PlotHistogram]);
        text_wrappedf("%s", shown->c_str());
        ImGui::PopStyleColor();
        if (ImGui::IsItemHovered() && !state.mouse_ignored)
            ImGui::SetTooltip(
                "%s\nThe sentence box's text, split by the model's own tokenizer and run through "
                "its weights. File > Close model shows the session's seeded model again.",
                full.c_str());
        same_line_if_fits(button_width("close model"));
        if (ImGui::SmallButton("close model"))
            close_model(state);
    }
    else if (!state.training_run.configured())
        text_disabled_wrapped("Model: " + shown_model_label(state));
    else
    {
        // Wrapped: "Model: seeded random weights, untrained." is wider than the Input panel at 1280x720.
        text_disabled_wrapped("Model: " + shown_model_label(state) + ", untrained.");
        same_line_if_fits(button_width("show the trained model"));
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
    // Scrolls sideways when the maps need more than the panel's width (each map keeps a readable size: with
    // the gradient beside every head, 8 pairs of maps are wider than the panel at 1280x720).
    ImGui::BeginChild("views", ImVec2(0.0f, 0.0f), false, ImGuiWindowFlags_HorizontalScrollbar);
    draw_training_curves(state, cursor);
    draw_timeline(state);
    draw_probe_field(state);
    if (ts.view.config.task == train::TaskKind::Text && f != nullptr)
    {
        draw_loss_strip(state);
        draw_text_samples(state);
    }
    ImGui::Separator();
    draw_training_maps(state);
    ImGui::EndChild();
}

} // namespace attnlab
