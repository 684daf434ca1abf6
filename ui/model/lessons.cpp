// Lessons in the app: entering a step (its session, selection, view and highlights), stepping, leaving.
#include "ui/model/lessons.h"

#include "core/io/json_io.h"
#include "core/settings.h"
#include "ui/model/training/training_controller.h"
#include "ui/model/training/training_curves.h"
#include "ui/picture/presenter_layout.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iterator>

namespace attnlab
{

namespace
{

PanelId view_panel(LessonView view)
{
    switch (view)
    {
    case LessonView::Heads:
        return PanelId::Heads;
    case LessonView::Comparisons:
        return PanelId::Comparisons;
    case LessonView::Training:
        return PanelId::Training;
    case LessonView::Pipeline:
        break;
    }
    return PanelId::Pipeline;
}

// Opens a panel for the lesson, remembering that the lesson (not the user) opened it.
void open_panel(AppState& state, PanelId id)
{
    const auto i = static_cast<std::size_t>(id);
    if (!state.prefs.open[i])
    {
        state.prefs.open[i] = true;
        // One the Training panel set aside was the user's: theirs again, not the lesson's to close.
        if (state.training.hid_panels[i])
            state.training.hid_panels[i] = false;
        else
            state.lesson.opened_panels[i] = true;
    }
}

// Closes the panels the lesson opened, except those in `keep` (and the Lesson panel itself while a lesson is
// open).
void close_opened_panels(AppState& state, const std::array<bool, kPanelCount>& keep)
{
    for (std::size_t i = 0; i < state.lesson.opened_panels.size(); ++i)
        if (state.lesson.opened_panels[i] && !keep[i] &&
            !(lesson_active(state) && i == static_cast<std::size_t>(PanelId::Lesson)))
        {
            state.prefs.open[i] = false;
            state.lesson.opened_panels[i] = false;
        }
}

// Unfolds the step's stages and folds the others between them, so the highlighted heatmaps follow each other
// in the Pipeline (Q, K and scores without V in between) and fit on screen together.
void fold_for_step(AppState& state, const LessonStep& step)
{
    if (step.stages.empty())
        return;
    auto& collapsed = step.cross ? state.cross_stage_collapsed : state.stage_collapsed;
    const auto [first, last] = std::minmax_element(step.stages.begin(), step.stages.end());
    for (int s = static_cast<int>(*first); s <= static_cast<int>(*last); ++s)
        collapsed[static_cast<std::size_t>(s)] = true;
    for (Stage stage : step.stages)
        collapsed[static_cast<std::size_t>(stage)] = false;
}

} // namespace

void load_lesson_library(AppState& state, const std::string& dir)
{
    if (lesson_active(state))
        leave_lesson(state);
    state.lesson.library = load_lessons(dir);
}

const Lesson* current_lesson(const AppState& state)
{
    const LessonState& l = state.lesson;
    if (l.lesson < 0 || l.lesson >= static_cast<int>(l.library.lessons.size()))
        return nullptr;
    return &l.library.lessons[static_cast<std::size_t>(l.lesson)];
}

const LessonStep* current_step(const AppState& state)
{
    const Lesson* lesson = current_lesson(state);
    if (lesson == nullptr || lesson->steps.empty())
        return nullptr;
    const int k = std::clamp(state.lesson.step, 0, static_cast<int>(lesson->steps.size()) - 1);
    return &lesson->steps[static_cast<std::size_t>(k)];
}

bool lesson_active(const AppState& state)
{
    return current_lesson(state) != nullptr;
}

void enter_lesson(AppState& state, int index, int step)
{
    LessonState& l = state.lesson;
    if (index < 0 || index >= static_cast<int>(l.library.lessons.size()) ||
        l.library.lessons[static_cast<std::size_t>(index)].steps.empty())
        return;
    if (!lesson_active(state))
    {
        l.user_session = state.session;
        l.user_session_path = state.session_path;
        l.user_sel = state.sel;
        l.user_has_weights = state.engine.has_imported_weights();
        l.user_weights = l.user_has_weights ? state.engine.imported_weights() : ModelWeights{};
        l.user_stage_collapsed = state.stage_collapsed;
        l.user_cross_stage_collapsed = state.cross_stage_collapsed;
        l.user_hid_panels = state.training.hid_panels;
        state.engine.clear_imported_weights();
        // Ctrl+S while a lesson is open asks where to save, rather than overwriting the user's file.
        state.session_path.clear();
    }
    l.lesson = index;
    l.panel_top_request = true;
    open_panel(state, PanelId::Lesson);
    go_to_step(state, step);
    state.set_message("Lesson: " + current_lesson(state)->title + "  (← → or Space to step)", false);
    // For the status bar: presenter mode's title line already shows the lesson, its counter and the keys.
    state.presenter_seen_message = state.message;
}

void go_to_step(AppState& state, int step)
{
    const Lesson* lesson = current_lesson(state);
    if (lesson == nullptr)
        return;
    LessonState& l = state.lesson;
    l.step = std::clamp(step, 0, static_cast<int>(lesson->steps.size()) - 1);
    const LessonStep& s = lesson->steps[static_cast<std::size_t>(l.step)];
    if (state.session != s.session)
    {
        state.session = s.session;
        state.edit();
    }
    // The step's weights: read when the step is shown (and kept while the next steps name the same file).
    if (s.session.weights_path != l.step_weights_path)
    {
        l.step_weights_path = s.session.weights_path;
        state.engine.clear_imported_weights();
        if (!s.session.weights_path.empty())
        {
            ModelWeights weights;
            if (Status loaded = load_any_weights_file(s.session.weights_path, s.session.config, &weights);
                loaded)
                state.engine.set_imported_weights(std::move(weights));
            else
            {
                l.step_weights_path.clear();
                state.set_message(
                    "This step's weights did not load (seeded weights are shown): " + loaded.message(), true);
            }
        }
        state.edit();
    }
    state.sel.layer = s.layer;
    state.sel.b = s.sentence;
    state.sel.head = s.head;
    state.pinned = CellRef{};
    state.unpin_queries();
    state.heads_panel.view = HeadsView::Maps; // the maps the step's text is about
    if (s.cross)
        state.show_cross = true;
    fold_for_step(state, s);
    // The step's view, and the Model panel when the text asks to change a setting; the panels earlier steps
    // opened close.
    const PanelId view = view_panel(s.view);
    std::array<bool, kPanelCount> keep{};
    keep[static_cast<std::size_t>(view)] = true;
    keep[static_cast<std::size_t>(PanelId::Model)] = !s.setting.empty();
    close_opened_panels(state, keep);
    open_panel(state, view);
    if (!s.setting.empty())
        open_panel(state, PanelId::Model);
    if (s.training.on)
        show_lesson_training(state, s.training);
    l.focus_panel = view;
    l.scroll_request = s.stages.empty() ? 0 : 3;
    l.setting_scroll_request = s.setting.empty() ? 0 : 3;
}

void next_step(AppState& state)
{
    if (!lesson_active(state))
        return;
    // A step's text about a trained run waits for the run to get there: it never runs ahead of the maps.
    if (const int wait = next_step_waits_for(state); wait > 0)
    {
        state.set_message("The next step is about step " + std::to_string(wait) +
                              " of the run: it opens when "
                              "training gets there (now at step " +
                              std::to_string(state.training.view.step) + ")",
                          false);
        return;
    }
    go_to_step(state, state.lesson.step + 1);
}

int next_step_waits_for(const AppState& state)
{
    const Lesson* lesson = current_lesson(state);
    const int next = state.lesson.step + 1;
    if (lesson == nullptr || next >= static_cast<int>(lesson->steps.size()))
        return 0;
    return lesson_step_waits_for(state, lesson->steps[static_cast<std::size_t>(next)].training);
}

void previous_step(AppState& state)
{
    if (lesson_active(state))
        go_to_step(state, state.lesson.step - 1);
}

void leave_lesson(AppState& state)
{
    if (!lesson_active(state))
        return;
    LessonState& l = state.lesson;
    l.lesson = -1;
    l.step = 0;
    l.scroll_request = 0;
    l.setting_scroll_request = 0;
    l.focus_panel = PanelId::Count;
    close_opened_panels(state, {});
    state.stage_collapsed = l.user_stage_collapsed;
    state.cross_stage_collapsed = l.user_cross_stage_collapsed;
    state.session = l.user_session;
    state.session_path = l.user_session_path;
    state.sel = l.user_sel;
    state.pinned = CellRef{};
    l.step_weights_path.clear();
    state.engine.clear_imported_weights();
    if (l.user_has_weights)
        state.engine.set_imported_weights(std::move(l.user_weights));
    l.user_weights = ModelWeights{};
    l.user_has_weights = false;
    state.edit();
    state.set_message("Left the lesson: your own session is back", false);
    restore_user_training(state);
    // The panels the user's Training panel covered before the lesson (its steps opened them): under it again
    // while it stays open, as the student left them, and back when it closes (restore_panels_under_training).
    if (state.prefs.open[static_cast<std::size_t>(PanelId::Training)])
        for (std::size_t i = 0; i < l.user_hid_panels.size(); ++i)
            if (l.user_hid_panels[i] && state.prefs.open[i])
            {
                state.prefs.open[i] = false;
                state.training.hid_panels[i] = true;
            }
    l.user_hid_panels = {};
}

const Session& user_session(const AppState& state)
{
    return lesson_active(state) ? state.lesson.user_session : state.session;
}

std::string step_counter(const AppState& state)
{
    const Lesson* lesson = current_lesson(state);
    if (lesson == nullptr)
        return std::string();
    return std::to_string(state.lesson.step + 1) + " / " + std::to_string(lesson->steps.size());
}

bool lesson_highlights_stage(const AppState& state, Stage stage, bool cross)
{
    const LessonStep* s = current_step(state);
    if (s == nullptr || s->cross != cross)
        return false;
    return std::find(s->stages.begin(), s->stages.end(), stage) != s->stages.end();
}

PanelId lesson_view_panel(const AppState& state)
{
    const LessonStep* s = current_step(state);
    return s == nullptr ? PanelId::Count : view_panel(s->view);
}

bool lesson_highlights_setting(const AppState& state, const char* key)
{
    const LessonStep* s = current_step(state);
    return s != nullptr && s->setting == key;
}

std::vector<LessonCell> lesson_cells(const AppState& state, const MatrixRef& ref)
{
    std::vector<LessonCell> cells;
    const LessonStep* s = current_step(state);
    if (s == nullptr || s->cells.empty() || ref.source == MatrixSource::Comparison ||
        ref.source == MatrixSource::Weight)
        return cells;
    const bool cross = ref.source == MatrixSource::Cross;
    if (cross != s->cross || (!cross && ref.layer != s->layer) || ref.b != s->sentence)
        return cells;
    for (const LessonCell& c : s->cells)
        if (c.stage == ref.stage && (!stage_info(c.stage).per_head || ref.head == s->head))
            cells.push_back(c);
    return cells;
}

Color32 lesson_highlight_color()
{
    return pack_rgba(0, 200, 255);
}

// [SECTION] Captions that follow the session and the run

namespace
{

std::string setting_value(const SettingInfo& info, const Config& c)
{
    char text[48];
    switch (info.kind)
    {
    case SettingKind::Int:
        return std::to_string(c.*info.int_member);
    case SettingKind::Float:
        std::snprintf(text, sizeof text, "%g", static_cast<double>(c.*info.float_member));
        return text;
    case SettingKind::Choice:
        return choice_name(info, c);
    case SettingKind::Bool:
        return c.*info.bool_member ? "on" : "off";
    case SettingKind::Seed:
        return std::to_string(c.*info.seed_member);
    }
    return "";
}

bool same_run(const train::RunSpec& a, const train::RunSpec& b)
{
    return a.label() == b.label() && a.steps == b.steps;
}

} // namespace

std::string lesson_settings_drift(const Session& step_session, const Session& live)
{
    std::string out;
    auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
    for (const SettingInfo& info : setting_table())
        if (!same_setting(info, step_session.config, live.config))
            add(std::string(info.key == std::string("heads") ? "h" : info.key) + " = " +
                setting_value(info, step_session.config) + " (now " + setting_value(info, live.config) + ")");
    if (step_session.text != live.text)
        add("the sentence");
    return out;
}

namespace
{

// Whether text names `noun n` as a whole number ("head 1" but not "head 12" or "head 1's" with n = 12).
bool text_names(const std::string& text, const std::string& noun, int n)
{
    const std::string word = noun + " " + std::to_string(n);
    for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1))
    {
        const std::size_t end = at + word.size();
        const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
        const bool ends = end == text.size() || !std::isdigit(static_cast<unsigned char>(text[end]));
        if (starts && ends)
            return true;
    }
    return false;
}

// "the second sentence" as a text says it (sentences count from 1 on screen).
bool text_names_sentence(const std::string& text, int b)
{
    static const char* const ordinals[] = {"first", "second", "third", "fourth", "fifth"};
    if (text_names(text, "sentence", b + 1))
        return true;
    return b < static_cast<int>(std::size(ordinals)) &&
           text.find(std::string(ordinals[b]) + " sentence") != std::string::npos;
}

} // namespace

std::string lesson_selection_drift(const LessonStep& step, const Selection& live)
{
    std::string out;
    auto add = [&](const char* noun, int was, int now)
    {
        out += (out.empty() ? "" : ", ") + std::string(noun) + " " + std::to_string(was + 1) + " (now " +
               std::to_string(now + 1) + ")";
    };
    if (live.layer != step.layer && text_names(step.text, "layer", step.layer + 1))
        add("layer", step.layer, live.layer);
    if (live.b != step.sentence && text_names_sentence(step.text, step.sentence))
        add("sentence", step.sentence, live.b);
    if (live.head != step.head && text_names(step.text, "head", step.head + 1))
        add("head", step.head, live.head);
    return out;
}

int lesson_text_waits_for(const LessonTraining& training, const train::RunSpec& shown, int shown_step)
{
    if (!training.on || !training.model.empty()) // a built-in model opens trained: nothing to wait for
        return -1;
    const int target = training.show_step >= 0 ? training.show_step : training.run.steps;
    if (same_run(training.run, shown) && shown_step >= target)
        return -1;
    return target;
}

bool lesson_text_reads_before_its_run(const LessonStep& step)
{
    const LessonTraining& t = step.training;
    if (!t.on || t.show_step != 0)
        return false;
    for (std::size_t i = 0; i < t.compare.size(); ++i)
        if (step.text.find(std::string(past_run_color_name(i)) + " curve") != std::string::npos)
            return false;
    return step.text.find("earlier:") == std::string::npos;
}

std::string lesson_caption_note(const AppState& state, const LessonStep& step, bool* text_waits)
{
    *text_waits = false;
    const TrainingSnapshot& view = state.training.view;
    const int waits = lesson_text_waits_for(step.training, view.config, view.step);
    const bool own = same_run(step.training.run, view.config);
    // A run reset (or paused) mid-lesson gets there only when played again: the line says how.
    const bool paused = !state.training_run.running() && state.training.lesson_queue.empty();
    const std::string how = !paused           ? ""
                            : state.presenter ? ", paused: P plays it"
                                              : ", paused: Play in the Training panel trains it";
    if (waits >= 0 && !own && lesson_text_reads_before_its_run(step))
    {
        // The text is about the untrained model: it is read now, and the line says what trains meanwhile.
        const std::string which = label_difference(view.config.label(), step.training.run.label());
        return "Training the run this lesson compares with first" +
               (which.empty() ? "" : " (" + which + ")") + ": step " + std::to_string(view.step) + " of " +
               std::to_string(view.config.steps) + how + "; this step's run trains after it.";
    }
    if (waits >= 0)
    {
        *text_waits = true;
        return "Training " + (own ? std::string("this step's run") : "a run it compares first") + ": step " +
               std::to_string(view.step) + " of " + std::to_string(view.config.steps) + how +
               ". This step's text is about step " + std::to_string(waits) +
               " of its run and appears when the run gets there.";
    }
    if (step.training.on)
        return "";
    std::string drift = lesson_settings_drift(step.session, state.session);
    if (const std::string selection = lesson_selection_drift(step, state.sel); !selection.empty())
        drift += (drift.empty() ? "" : ", ") + selection;
    if (drift.empty())
        return "";
    return "The text describes this step's own settings; changed since: " + drift +
           ". Going to another step and back restores them.";
}

float ui_font_size(const AppState& state, float window_height)
{
    if (!state.presenter)
        return state.prefs.font_size;
    return presenter_font_size(window_height, state.presenter_scale);
}

float presenter_zoom(const AppState& state, float window_height)
{
    return presenter_font_size(window_height, state.presenter_scale) /
           presenter_font_size(window_height, 1.0f);
}

float ui_caption_font_size(const AppState& state, float window_height)
{
    return state.presenter ? presenter_caption_font_size(window_height, state.presenter_scale) : 0.0f;
}

} // namespace attnlab
