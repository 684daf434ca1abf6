// Lessons in the app, headless: every step of every built-in lesson drawn with its counter, text, selection,
// view and highlights; the keys; presenter mode; leaving gives the user's session back; broken files named.
#include "core/io/json_io.h"
#include "core/io/session_file.h"
#include "ui/model/key_taps.h"
#include "ui/model/lessons.h"
#include "ui/model/training/training_controller.h"
#include "ui/panels/panels.h"
#include "ui/picture/heatmap_math.h"
#include "ui/shell/app_ui.h"
#include "ui/shell/fonts.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>
#include <imgui_internal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;
using test::HeadlessUi;
using test::panel_only;

// Wrapped text comes back with a line break where a space was: compare with every run of white space as one
// space.
std::string flatten(const std::string& text)
{
    std::string out;
    for (char c : text)
    {
        const char d = (c == '\n' || c == '\t') ? ' ' : c;
        if (d == ' ' && !out.empty() && out.back() == ' ')
            continue;
        out += d;
    }
    return out;
}

bool drawn(const test::FrameOutput& out, const std::string& text)
{
    return flatten(out.text).find(flatten(text)) != std::string::npos;
}

// The first words of a text, up to about n characters (whole words, so wrapping cannot split one).
std::string first_words(const std::string& text, std::size_t n)
{
    const std::size_t cut = text.find(' ', n);
    return cut == std::string::npos ? text : text.substr(0, cut);
}

MatrixRef step_ref(const AppState& state, const LessonStep& step, Stage stage)
{
    MatrixRef ref;
    ref.source = step.cross ? MatrixSource::Cross : MatrixSource::Layer;
    ref.stage = stage;
    ref.layer = state.sel.layer;
    ref.b = state.sel.b;
    ref.head = state.sel.head;
    return ref;
}

// Next, once the lesson's run has reached the step the next text is about (Next waits for training: a
// caption never runs ahead of the maps).
void next_step_when_trained(HeadlessUi& ui, AppState& state)
{
    for (int i = 0; i < 60000 && next_step_waits_for(state) > 0; ++i)
    {
        ui.frames(state, 1);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    next_step(state);
}

class LessonTest : public ::testing::Test
{
protected:
    void SetUp() override { load_lesson_library(*state, default_lessons_dir()); }

    HeadlessUi ui;
    std::unique_ptr<AppState> state = std::make_unique<AppState>();
};

TEST_F(LessonTest, EveryBuiltInLessonLoads)
{
    const LessonLibrary& library = state->lesson.library;
    for (const std::string& e : library.errors)
        ADD_FAILURE() << e;
    ASSERT_EQ(library.lessons.size(), 12u);
    for (const Lesson& lesson : library.lessons)
        EXPECT_GE(lesson.steps.size(), 2u) << lesson.id;
}

// [SECTION] Every step of every lesson, in the normal layout and in presenter mode

TEST_F(LessonTest, EveryStepRendersWithItsHighlights)
{
    const auto& lessons = state->lesson.library.lessons;
    int steps = 0;
    for (int i = 0; i < static_cast<int>(lessons.size()); ++i)
    {
        const Lesson& lesson = lessons[static_cast<std::size_t>(i)];
        const int n = static_cast<int>(lesson.steps.size());
        for (int k = 0; k < n; ++k)
        {
            SCOPED_TRACE(lesson.id + " step " + std::to_string(k + 1));
            const LessonStep& step = lesson.steps[static_cast<std::size_t>(k)];
            if (k == 0)
                enter_lesson(*state, i, 0);
            else
                next_step_when_trained(ui, *state);
            ASSERT_EQ(state->lesson.step, k);
            const test::FrameOutput out = ui.frames(*state, 4);
            ASSERT_TRUE(state->status.is_ok()) << state->status.message();
            ++steps;

            // The stepper: counter, title and the start of the text, in the Lesson panel.
            const std::string counter = std::to_string(k + 1) + " / " + std::to_string(n);
            EXPECT_EQ(step_counter(*state), counter);
            EXPECT_TRUE(drawn(out, counter)) << out.text;
            EXPECT_TRUE(drawn(out, step.title)) << out.text;
            // A training step's text waits for its run: until the run reaches the step the text describes,
            // the line saying so stands in its place.
            const bool text_or_wait = drawn(out, first_words(step.text, 30)) ||
                                      (step.training.on && drawn(out, "appears when the run gets there"));
            EXPECT_TRUE(text_or_wait) << first_words(step.text, 30) << "\n" << out.text;
            EXPECT_TRUE(state->prefs.open[static_cast<std::size_t>(PanelId::Lesson)]);

            // The step's selection.
            EXPECT_EQ(state->sel.layer, step.layer);
            EXPECT_EQ(state->sel.b, step.sentence);
            EXPECT_EQ(state->sel.head, step.head);

            // Its view is open.
            if (step.view == LessonView::Heads)
            {
                EXPECT_TRUE(state->prefs.open[static_cast<std::size_t>(PanelId::Heads)]);
                EXPECT_TRUE(drawn(out, "weights A_h of layer")) << out.text;
            }
            else if (step.view == LessonView::Comparisons)
            {
                EXPECT_TRUE(state->prefs.open[static_cast<std::size_t>(PanelId::Comparisons)]);
                // The comparison the step is about is on screen with its numbers, and only that one.
                const char* packed = "Packed X W^Q is h heads";
                const char* two_step = "Two steps (X W^Q) W_h^Q";
                const char* single = "Single-head vs multi-head";
                const ComparisonSection c = step.comparison;
                const bool all = c == ComparisonSection::All;
                EXPECT_EQ(drawn(out, packed), all || c == ComparisonSection::Packed) << out.text;
                EXPECT_EQ(drawn(out, two_step), all || c == ComparisonSection::TwoStep) << out.text;
                EXPECT_EQ(drawn(out, single), all || c == ComparisonSection::SingleHead) << out.text;
                if (c == ComparisonSection::TwoStep)
                {
                    EXPECT_TRUE(drawn(out, "Largest difference: " +
                                               format_value(state->comparisons.two_step_max_diff)))
                        << out.text;
                }
                if (c == ComparisonSection::SingleHead)
                {
                    EXPECT_TRUE(drawn(out, format_value_long(state->comparisons.single_vs_multi_max_diff)))
                        << out.text;
                }
            }
            else
                EXPECT_FALSE(state->prefs.open[static_cast<std::size_t>(PanelId::Comparisons)]);

            // The first highlighted stage is scrolled into the Pipeline, its header marked with an arrow, and
            // the cells of that stage outlined.
            if (!step.stages.empty())
            {
                const Stage first = step.stages.front();
                EXPECT_TRUE(lesson_highlights_stage(*state, first, step.cross));
                EXPECT_FALSE(lesson_highlights_stage(*state, first, !step.cross));
                const MatrixView view = resolve_matrix(*state, step_ref(*state, step, first));
                ASSERT_NE(view.m, nullptr);
                EXPECT_TRUE(drawn(out, "→ " + view.title)) << view.title << "\n" << out.text;
                EXPECT_EQ(state->lesson.scroll_request, 0);
                int cells_in_first = 0;
                for (const LessonCell& c : step.cells)
                    cells_in_first += c.stage == first ? 1 : 0;
                if (cells_in_first > 0)
                {
                    EXPECT_GE(state->lesson.cells_outlined, cells_in_first);
                }
            }

            // Presenter mode: no editing chrome, the caption, the counter and the stage (or view) itself.
            state->presenter = true;
            const test::FrameOutput shown = ui.frames(*state, 3);
            EXPECT_FALSE(drawn(shown, "Sentences (one per line")) << shown.text;
            EXPECT_TRUE(drawn(shown, counter)) << shown.text;
            EXPECT_TRUE(drawn(shown, step.title)) << shown.text;
            EXPECT_TRUE(drawn(shown, first_words(step.text, 30)) ||
                        (step.training.on && drawn(shown, "appears when the run gets there")))
                << shown.text;
            if (step.view == LessonView::Heads)
            {
                EXPECT_TRUE(drawn(shown, "weights A_h of layer")) << shown.text;
                EXPECT_FALSE(drawn(shown, "stretch colours"))
                    << shown.text; // a control, not for the audience
            }
            if (step.view == LessonView::Pipeline && !step.stages.empty())
            {
                for (Stage stage : step.stages)
                {
                    const MatrixView view = resolve_matrix(*state, step_ref(*state, step, stage));
                    EXPECT_TRUE(drawn(shown, view.title)) << view.title << "\n" << shown.text;
                }
                if (!step.cells.empty())
                {
                    EXPECT_GE(state->lesson.cells_outlined, 1);
                }
            }
            state->presenter = false;
        }
    }
    EXPECT_GT(steps, 40);
}

// [SECTION] Keys

TEST_F(LessonTest, ArrowsAndSpaceStepOnlyWhenNoTextFieldHasFocus)
{
    enter_lesson(*state, 0, 0);
    ui.frames(*state, 2);
    ui.press_key(*state, keys::Right);
    EXPECT_EQ(state->lesson.step, 1);
    ui.press_key(*state, keys::Space);
    EXPECT_EQ(state->lesson.step, 2);
    ui.press_key(*state, keys::Left);
    EXPECT_EQ(state->lesson.step, 1);
    ui.press_key(*state, keys::Left);
    ui.press_key(*state, keys::Left); // stays at the first step
    EXPECT_EQ(state->lesson.step, 0);

    // A focused text field takes the keys for itself.
    std::string typed;
    auto with_text_field = [&typed](AppState& s)
    {
        ImGui::SetNextWindowPos(ImVec2(400, 400));
        ImGui::Begin("typing");
        ImGui::SetKeyboardFocusHere();
        ImGui::InputText("##field", typed.data(), typed.capacity() + 1);
        ImGui::End();
        draw_app(s);
    };
    ui.frames(*state, 3, with_text_field);
    ASSERT_TRUE(ImGui::GetIO().WantTextInput);
    ImGuiIO& io = ImGui::GetIO();
    io.KeysDown[keys::Right] = true;
    ui.frame(*state, with_text_field);
    io.KeysDown[keys::Right] = false;
    ui.frame(*state, with_text_field);
    EXPECT_EQ(state->lesson.step, 0);
}

// A lecturer clicks into the sentence, then presses the clicker: Page Down and Page Up still step the lesson
// (they leave the field), while the keys that edit text (Right, Space) stay the field's. The sentence is not
// changed by the clicker.
TEST_F(LessonTest, AClickersPageKeysStepEvenFromTheSentenceField)
{
    enter_lesson(*state, test::lesson_index(*state, "tour"), 2);
    ui.frames(*state, 2);
    const std::string text = state->session.text;
    ASSERT_GE(text.size(), 4u);
    const ImVec2 at = test::text_position(text.substr(0, 4));
    ASSERT_GE(at.x, 0.0f) << "the sentence field";
    ui.click(*state, at.x + 2.0f, at.y + 4.0f);
    ui.frames(*state, 2);
    ASSERT_TRUE(ImGui::GetIO().WantTextInput) << "the field has the keyboard";
    ui.press_key(*state, keys::Right);
    EXPECT_EQ(state->lesson.step, 2) << "Right moves the field's cursor";
    ui.press_key(*state, keys::PageDown);
    EXPECT_EQ(state->lesson.step, 3);
    ui.frames(*state, 2);
    EXPECT_FALSE(ImGui::GetIO().WantTextInput) << "the field let go";
    ui.press_key(*state, keys::PageDown);
    EXPECT_EQ(state->lesson.step, 4);
    ui.press_key(*state, keys::PageUp);
    EXPECT_EQ(state->lesson.step, 3);
    EXPECT_EQ(state->session.text, text) << "the clicker typed nothing";
    leave_lesson(*state);
}

// Home and End go to a lesson's first and last step, as in a slide deck (they did nothing).
TEST_F(LessonTest, HomeAndEndGoToTheFirstAndLastStep)
{
    const int index = test::lesson_index(*state, "tour");
    enter_lesson(*state, index, 3);
    ui.frames(*state, 2);
    const int last =
        static_cast<int>(state->lesson.library.lessons[static_cast<std::size_t>(index)].steps.size()) - 1;
    ASSERT_GT(last, 3);
    ui.press_key(*state, keys::End);
    EXPECT_EQ(state->lesson.step, last);
    ui.press_key(*state, keys::Home);
    EXPECT_EQ(state->lesson.step, 0);
    state->presenter = true;
    ui.press_key(*state, keys::End);
    EXPECT_EQ(state->lesson.step, last) << "in presenter mode too";
    state->presenter = false;
    leave_lesson(*state);
}

TEST_F(LessonTest, AClickersTapBetweenTwoFramesStepsExactlyOnce)
{
    enter_lesson(*state, 0, 0);
    ui.frames(*state, 2);
    ImGuiIO& io = ImGui::GetIO();
    // Down and up before the next frame, as a presentation clicker sends it: ImGui 1.86 alone never sees it.
    io.KeysDown[keys::PageDown] = true;
    io.KeysDown[keys::PageDown] = false;
    ui.frame(*state);
    ASSERT_EQ(state->lesson.step, 0);

    // With KeyTaps in front, as the window's callbacks have it: the release waits for one frame, and what
    // was kept is passed on between frames (after Render), as the window does.
    KeyTaps taps;
    constexpr int kLeftCtrl = 341; // GLFW_KEY_LEFT_CONTROL
    auto apply = [&](const KeyTaps::Event& e)
    {
        if (e.is_char)
            io.AddInputCharacter(e.codepoint);
        else
            io.KeysDown[e.key] = e.action != KeyTaps::Release;
        io.KeyCtrl = io.KeysDown[kLeftCtrl];
    };
    auto send = [&](int key, int action)
    {
        if (taps.key(key, 0, action, 0))
            apply(KeyTaps::Event{false, key, 0, action, 0, 0});
    };
    auto frame = [&]()
    {
        ui.frame(*state);
        for (const KeyTaps::Event& e : taps.take_ready())
            apply(e);
    };
    auto tap = [&](int key)
    {
        send(key, KeyTaps::Press);
        send(key, KeyTaps::Release);
    };
    tap(keys::PageDown);
    frame();
    EXPECT_EQ(state->lesson.step, 1);
    EXPECT_FALSE(io.KeysDown[keys::PageDown]); // released once the frame had seen it
    for (int i = 0; i < 3; ++i)
        frame();
    EXPECT_EQ(state->lesson.step, 1); // one tap, one step
    tap(keys::PageDown);
    frame();
    tap(keys::Right);
    frame();
    EXPECT_EQ(state->lesson.step, 3);
    tap(keys::PageUp);
    frame();
    EXPECT_EQ(state->lesson.step, 2);
    // Two taps of one key before a frame: two steps (down, up, down, up over four frames).
    tap(keys::Right);
    tap(keys::Right);
    frame();
    EXPECT_EQ(state->lesson.step, 3);
    for (int i = 0; i < 3; ++i)
        frame();
    EXPECT_EQ(state->lesson.step, 4);
    EXPECT_EQ(taps.pending(), 0u);
    go_to_step(*state, 1);

    // A chord typed fast: Ctrl went down a frame earlier, and its release comes right after Q's press and
    // release. The frame after must still see Ctrl down with Q.
    send(kLeftCtrl, KeyTaps::Press);
    frame();
    send(keys::Q, KeyTaps::Press);
    send(keys::Q, KeyTaps::Release);
    send(kLeftCtrl, KeyTaps::Release); // waits behind Q's
    EXPECT_EQ(taps.pending(), 2u);
    frame();
    EXPECT_TRUE(state->request_quit);
    EXPECT_EQ(taps.pending(), 0u); // both were passed on after that frame
    EXPECT_FALSE(io.KeysDown[kLeftCtrl]);
    state->request_quit = false;

    // Ctrl+A tapped, then letters, all before one frame: the letters must not arrive while Ctrl still looks
    // down (Ctrl+O would open a file dialog, and ImGui drops typed characters while Ctrl is down).
    send(kLeftCtrl, KeyTaps::Press);
    send('A', KeyTaps::Press);
    send('A', KeyTaps::Release);
    send(kLeftCtrl, KeyTaps::Release);
    send(keys::O, KeyTaps::Press);
    EXPECT_FALSE(taps.character('o'));
    send(keys::O, KeyTaps::Release);
    int frames_with_ctrl_and_o = 0;
    for (int i = 0; i < 4; ++i)
    {
        if (io.KeyCtrl && io.KeysDown[keys::O])
            ++frames_with_ctrl_and_o;
        frame();
    }
    EXPECT_EQ(frames_with_ctrl_and_o, 0);
    EXPECT_EQ(taps.pending(), 0u);
    EXPECT_EQ(state->file_dialog.action, FileAction::None);

    // A key held over several frames is released at once when it comes up.
    send(keys::Left, KeyTaps::Press);
    frame();
    frame();
    EXPECT_TRUE(taps.key(keys::Left, 0, KeyTaps::Release, 0));
    io.KeysDown[keys::Left] = false;
    frame();
    EXPECT_EQ(state->lesson.step, 0);
}

TEST_F(LessonTest, F5SwitchesPresenterMode)
{
    enter_lesson(*state, 0, 2);
    auto out = ui.frames(*state, 2);
    EXPECT_TRUE(drawn(out, "Sentences (one per line"));
    ui.press_key(*state, keys::F5);
    EXPECT_TRUE(state->presenter);
    EXPECT_TRUE(state->request_font_rebuild);
    out = ui.frames(*state, 2);
    EXPECT_FALSE(drawn(out, "Sentences (one per line"));
    EXPECT_TRUE(drawn(out, "3 / 11")) << out.text;
    ui.press_key(*state, keys::F5);
    EXPECT_FALSE(state->presenter);
    // The shortcut is listed in Help.
    int n = 0;
    const ShortcutInfo* table = shortcut_table(&n);
    bool listed = false;
    for (int i = 0; i < n; ++i)
        listed = listed || std::string(table[i].keys) == "F5";
    EXPECT_TRUE(listed);
    // The presenter's font follows the window's height, within limits.
    state->presenter = true;
    EXPECT_NEAR(ui_font_size(*state, 1080.0f), 33.75f, 0.01f);
    EXPECT_NEAR(ui_font_size(*state, 720.0f), 22.5f, 0.01f);
    state->presenter = false;
    EXPECT_EQ(ui_font_size(*state, 1080.0f), state->prefs.font_size);
}

// [SECTION] Leaving, and the user's session

TEST_F(LessonTest, LeavingTheLessonGivesTheUsersSessionBack)
{
    state->session.text = "the cat sat on the mat";
    state->session.config.d_model = 32;
    state->session.config.n_heads = 2;
    state->session_path = "/tmp/mine.json";
    ui.frames(*state, 2);
    state->sel.head = 1;
    const Session mine = state->session;
    const bool comparisons_open = state->prefs.open[static_cast<std::size_t>(PanelId::Comparisons)];

    // The lesson on "why multi-head" opens the Comparisons view at some step.
    const auto& lessons = state->lesson.library.lessons;
    int index = -1;
    for (int i = 0; i < static_cast<int>(lessons.size()); ++i)
        if (lessons[static_cast<std::size_t>(i)].id == "multi_head")
            index = i;
    ASSERT_GE(index, 0);
    enter_lesson(*state, index, 0);
    for (int k = 0; k < 20; ++k)
        next_step(*state);
    ui.frames(*state, 2);
    EXPECT_NE(state->session, mine);
    EXPECT_TRUE(state->session_path.empty()); // Ctrl+S asks rather than overwriting the user's file
    EXPECT_EQ(user_session(*state), mine);    // what the autosave writes

    leave_lesson(*state);
    ui.frames(*state, 2);
    EXPECT_FALSE(lesson_active(*state));
    EXPECT_EQ(state->session, mine);
    EXPECT_EQ(state->session_path, "/tmp/mine.json");
    EXPECT_EQ(state->sel.head, 1);
    EXPECT_EQ(state->trace().config.d_model, 32);
    EXPECT_EQ(state->prefs.open[static_cast<std::size_t>(PanelId::Comparisons)], comparisons_open);
}

// Whatever a lesson's steps open, close or cover (a training step shows the Training panel, which closes the
// Pipeline, Heads and Inspector under it; a step may show Comparisons), leaving it gives back the panels the
// user had open, and no others.
TEST_F(LessonTest, LeavingEveryLessonGivesThePanelsBack)
{
    ui.frames(*state, 2);
    const auto before = state->prefs.open;
    const auto& lessons = state->lesson.library.lessons;
    for (int i = 0; i < static_cast<int>(lessons.size()); ++i)
    {
        for (std::size_t k = 0; k < lessons[static_cast<std::size_t>(i)].steps.size(); ++k)
        {
            enter_lesson(*state, i, static_cast<int>(k));
            ui.frames(*state, 2);
            leave_lesson(*state);
            ui.frames(*state, 2);
            for (std::size_t p = 0; p < before.size(); ++p)
                EXPECT_EQ(state->prefs.open[p], before[p])
                    << lessons[static_cast<std::size_t>(i)].id << " step " << k + 1 << ": panel "
                    << panel_facts(static_cast<PanelId>(p)).title;
        }
    }
}

// The Training panel hides the panels under its place when it shows (a built-in model, a restart with it
// open); closing it gives them back, also after a lesson that stepped on meanwhile. They used to stay closed
// until View > Reset layout, so Alt+8 left an empty window.
TEST_F(LessonTest, ThePanelsTheTrainingPanelHidComeBackWhenItCloses)
{
    const auto idx = [](PanelId id) { return static_cast<std::size_t>(id); };
    ui.frames(*state, 2);
    const auto before = state->prefs.open;
    ASSERT_TRUE(before[idx(PanelId::Heads)] && before[idx(PanelId::Inspector)] &&
                before[idx(PanelId::Pipeline)]);
    ASSERT_FALSE(before[idx(PanelId::Training)]);

    // Alone: shown, then closed (its close button or Alt+8 clear its flag).
    show_training_panel(*state);
    ui.frames(*state, 2);
    EXPECT_FALSE(state->prefs.open[idx(PanelId::Heads)]) << "hidden under the Training panel";
    state->prefs.open[idx(PanelId::Training)] = false;
    ui.frames(*state, 2);
    EXPECT_EQ(state->prefs.open, before);

    // In a lesson: shown on the tour's first step, the lesson steps on (opening the Pipeline the Training
    // panel had hidden) and is left, then the Training panel is closed.
    enter_lesson(*state, test::lesson_index(*state, "tour"), 0);
    ui.frames(*state, 2);
    show_training_panel(*state);
    ui.frames(*state, 2);
    next_step(*state);
    ui.frames(*state, 2);
    leave_lesson(*state);
    ui.frames(*state, 2);
    EXPECT_TRUE(state->prefs.open[idx(PanelId::Training)]) << "the user's Training panel stays";
    state->prefs.open[idx(PanelId::Training)] = false;
    ui.frames(*state, 2);
    for (std::size_t p = 0; p < before.size(); ++p)
        EXPECT_EQ(state->prefs.open[p], before[p]) << panel_facts(static_cast<PanelId>(p)).title;

    // A panel the user closed before is not opened by this.
    state->prefs.open[idx(PanelId::Inspector)] = false;
    show_training_panel(*state);
    ui.frames(*state, 2);
    state->prefs.open[idx(PanelId::Training)] = false;
    ui.frames(*state, 2);
    EXPECT_FALSE(state->prefs.open[idx(PanelId::Inspector)]);
    EXPECT_TRUE(state->prefs.open[idx(PanelId::Heads)]);
}

// The user's own Training panel, open before a lesson, covered the Pipeline, Heads and Inspector; the
// lesson's steps open them. Leaving gives the window back as it was: the Training panel alone in front (they
// stayed open under it, and it hid the Inspector), and they come back when it closes.
TEST_F(LessonTest, LeavingALessonPutsBackWhatTheUsersTrainingPanelCovered)
{
    const auto idx = [](PanelId id) { return static_cast<std::size_t>(id); };
    ui.frames(*state, 2);
    const auto start = state->prefs.open;
    show_training_panel(*state);
    ui.frames(*state, 2);
    const auto before = state->prefs.open;
    ASSERT_TRUE(before[idx(PanelId::Training)]);
    ASSERT_FALSE(before[idx(PanelId::Inspector)] || before[idx(PanelId::Pipeline)] ||
                 before[idx(PanelId::Heads)]);
    for (const char* id : {"tour", "watch_attention_learn"})
    {
        enter_lesson(*state, test::lesson_index(*state, id), 0);
        ui.frames(*state, 2);
        next_step(*state);
        ui.frames(*state, 2);
        leave_lesson(*state);
        ui.frames(*state, 2);
        for (std::size_t p = 0; p < before.size(); ++p)
            EXPECT_EQ(state->prefs.open[p], before[p])
                << id << ": " << panel_facts(static_cast<PanelId>(p)).title;
    }
    state->prefs.open[idx(PanelId::Training)] = false;
    ui.frames(*state, 2);
    for (std::size_t p = 0; p < start.size(); ++p)
        EXPECT_EQ(state->prefs.open[p], start[p]) << "closed: " << panel_facts(static_cast<PanelId>(p)).title;
}

// A lesson picked from the "All lessons" list at the bottom of the Lesson panel shows from the top, the list
// folded: the step's text and buttons, not the list scrolled to (they were off screen at 1280x720).
TEST_F(LessonTest, ALessonPickedFromTheListShowsFromTheTop)
{
    ui.resize(1280.0f, 720.0f);
    enter_lesson(*state, test::lesson_index(*state, "tour"), 0);
    ui.frames(*state, 3);
    const char* title = panel_facts(PanelId::Lesson).title;
    ImGuiWindow* window = ImGui::FindWindowByName(title);
    ASSERT_NE(window, nullptr);
    // The list unfolded and scrolled to its end, as a student picking the next lesson leaves it.
    const ImVec2 header = test::text_position("All lessons");
    ASSERT_GE(header.x, 0.0f);
    ui.click(*state, header.x + 4.0f, header.y + 4.0f);
    ui.frames(*state, 2);
    ImGui::SetScrollY(window, window->ScrollMax.y);
    ui.frames(*state, 2);
    ASSERT_GT(window->Scroll.y, 0.0f) << "the list makes the panel scroll";
    enter_lesson(*state, test::lesson_index(*state, "multi_head"), 0);
    ui.frames(*state, 3);
    EXPECT_EQ(window->Scroll.y, 0.0f);
    EXPECT_TRUE(test::contains(test::window_text(title), "Next")) << test::window_text(title);
    EXPECT_FALSE(test::contains(test::window_text(title), "[typo]")) << "the list is folded";
}

// While Next waits for the lesson's run, "training: step N of M" is beside it when it fits, else under it:
// never cut at the panel's edge (at 1280x720 it read "training:").
TEST_F(LessonTest, TheTrainingProgressBesideNextIsNeverCut)
{
    ui.resize(1280.0f, 720.0f);
    const int index = test::lesson_index(*state, "watch_attention_learn");
    bool seen = false;
    for (int step = 0; step < 4 && !seen; ++step)
    {
        enter_lesson(*state, index, step);
        ui.frames(*state, 2);
        if (next_step_waits_for(*state) == 0)
            continue;
        const ImVec2 at = test::text_position("training: step");
        ASSERT_GE(at.x, 0.0f) << test::window_text(panel_facts(PanelId::Lesson).title);
        const ImGuiWindow* window = ImGui::FindWindowByName(panel_facts(PanelId::Lesson).title);
        ASSERT_NE(window, nullptr);
        const float width = ImGui::CalcTextSize("training: step 0000 of 0000").x;
        EXPECT_LE(at.x + width, window->InnerRect.Max.x + 1.0f) << "step " << step + 1;
        seen = true;
    }
    EXPECT_TRUE(seen) << "a step of watch_attention_learn waits for its run";
    leave_lesson(*state);
}

// watch_attention_learn step 3 says each head's anti-diagonal score "is in its title": in the window a
// 1280x720 screen leaves (1264x640 of it), its 2 layers x 2 heads go in one row, so each map keeps the size
// its score line needs (as a 2 x 2 grid the maps were 70 px and the lines were left out).
TEST_F(LessonTest, TheMapsScoreALessonPointsAtFitsAtTheSmallestScreen)
{
    ui.resize(1264.0f, 640.0f);
    ASSERT_TRUE(load_fonts(ui_font_size(*state, 640.0f), nullptr)); // the window's font, not the tests' 15 px
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    state->mouse_ignored = true; // the lesson's runs are trained before the frame
    const int index = test::lesson_index(*state, "watch_attention_learn");
    ASSERT_GE(index, 0);
    const Lesson& lesson = state->lesson.library.lessons[static_cast<std::size_t>(index)];
    ASSERT_GE(lesson.steps.size(), 3u);
    ASSERT_TRUE(test::contains(lesson.steps[2].text, "is in its title")) << lesson.steps[2].text;
    enter_lesson(*state, index, 2);
    const std::string shown = ui.frames(*state, 3).text;
    int scores = 0;
    for (std::size_t at = shown.find("anti-diag 0."); at != std::string::npos;
         at = shown.find("anti-diag 0.", at + 1))
        ++scores;
    EXPECT_EQ(scores, 4) << shown;
    for (const char* title : {"layer 1, head 1", "layer 1, head 2", "layer 2, head 1", "layer 2, head 2"})
        EXPECT_TRUE(test::contains(shown, title)) << title << "\n" << shown;
    leave_lesson(*state);
}

TEST_F(LessonTest, SteppingRecomputesOnlyWhenTheSessionChanges)
{
    enter_lesson(*state, 0, 0);
    ui.frames(*state, 2);
    const auto generation = state->engine.generation();
    next_step(*state); // the tour keeps one session for all its steps
    ui.frames(*state, 2);
    EXPECT_EQ(state->engine.generation(), generation);
}

// [SECTION] A broken lesson file

TEST_F(LessonTest, ABrokenLessonFileIsNamedInThePanelAndTheOthersLoad)
{
    const fs::path dir = fs::path(ATTNLAB_BINARY_DIR) / "tests" / "ui" / "lessons_broken";
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(fs::path(default_lessons_dir()) / "02_typo.json", dir / "01_typo.json");
    std::ofstream(dir / "02_oops.json") << "{ \"format\": \"attnlab-lesson\", \"version\": 1, \"steps\": [ }";
    load_lesson_library(*state, dir.string());
    ASSERT_EQ(state->lesson.library.lessons.size(), 1u);
    ASSERT_EQ(state->lesson.library.errors.size(), 1u);
    const auto out = ui.frames(*state, 2, panel_only(draw_lesson_panel));
    EXPECT_TRUE(drawn(out, "02_oops.json")) << out.text;
    EXPECT_TRUE(drawn(out, state->lesson.library.lessons[0].title)) << out.text;
    fs::remove_all(dir);
}

} // namespace
} // namespace attnlab

namespace attnlab
{
namespace
{

// A lesson whose session names a weights file (relative to the lesson) shows those weights, not seeded ones;
// a missing file is reported when the lessons load; leaving gives the user's seeded weights back.
TEST(LessonWeights, AStepsWeightsFileIsUsedAndAMissingOneIsReported)
{
    const fs::path dir = fs::path(ATTNLAB_BINARY_DIR) / "tests" / "ui" / "lesson_weights";
    fs::remove_all(dir);
    fs::create_directories(dir / "models");
    Config config;
    config.d_model = 8;
    config.n_heads = 2;
    Config other = config;
    other.seed = 99;
    const ModelWeights trained = init_weights(other);
    ASSERT_TRUE(write_weights_json(trained, config, (dir / "models" / "w.json").string()));
    const std::string lesson = R"({"format": "attnlab-lesson", "version": 1, "title": "With weights",
        "session": {"text": "a b c", "weights": "models/w.json", "config": {"d_model": 8, "heads": 2}},
        "steps": [{"text": "trained"}, {"text": "seeded", "session": {"weights": ""}}]})";
    std::ofstream(dir / "01_weights.json") << lesson;
    std::ofstream(dir / "02_missing.json")
        << R"({"format": "attnlab-lesson", "version": 1, "title": "Missing",
        "session": {"text": "a b c", "weights": "models/gone.json", "config": {"d_model": 8, "heads": 2}},
        "steps": [{"text": "x"}]})";

    auto state = std::make_unique<AppState>();
    load_lesson_library(*state, dir.string());
    ASSERT_EQ(state->lesson.library.lessons.size(), 1u);
    ASSERT_EQ(state->lesson.library.errors.size(), 1u);
    EXPECT_NE(state->lesson.library.errors[0].find("gone.json is missing"), std::string::npos)
        << state->lesson.library.errors[0];

    state->update();
    const Mat seeded_W_Q = state->engine.weights().layers[0].attn.W_Q[0];
    enter_lesson(*state, 0, 0);
    state->update();
    EXPECT_EQ(state->engine.weights().layers[0].attn.W_Q[0], trained.layers[0].attn.W_Q[0]);
    EXPECT_NE(state->engine.weights().layers[0].attn.W_Q[0], init_weights(config).layers[0].attn.W_Q[0]);
    next_step(*state);
    state->update();
    EXPECT_EQ(state->engine.weights().layers[0].attn.W_Q[0], init_weights(config).layers[0].attn.W_Q[0]);
    previous_step(*state);
    state->update();
    EXPECT_EQ(state->engine.weights().layers[0].attn.W_Q[0], trained.layers[0].attn.W_Q[0]);
    leave_lesson(*state);
    state->update();
    EXPECT_EQ(state->engine.weights().layers[0].attn.W_Q[0], seeded_W_Q);
    fs::remove_all(dir);
}

} // namespace
} // namespace attnlab
