// Panel layout: the default places tile the window and give a closed panel's room to the others, every panel
// follows a resize, a layout saved at one window size (ours in fractions, or ImGui's old one in pixels) fits
// inside another, and every lesson step shows what it talks about beside the Lesson panel.
#include "core/settings.h"
#include "ui/model/layout.h"
#include "ui/model/lessons.h"
#include "ui/model/prefs.h"
#include "ui/panels/panels.h"
#include "ui/shell/app_ui.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

namespace attnlab
{
namespace
{

using test::HeadlessUi;

std::size_t idx(PanelId id)
{
    return static_cast<std::size_t>(id);
}

LayoutRect rect_of(const AppState& state, PanelId id)
{
    const auto& r = state.panel_rects[idx(id)];
    return {r[0], r[1], r[2], r[3]};
}

// Overlap of more than `eps` on both axes (panels that share an edge do not overlap).
bool overlap(const LayoutRect& a, const LayoutRect& b, float eps)
{
    return a.x + eps < b.x + b.w && b.x + eps < a.x + a.w && a.y + eps < b.y + b.h && b.y + eps < a.y + a.h;
}

std::string describe(const LayoutRect& r)
{
    return "(" + std::to_string(r.x) + ", " + std::to_string(r.y) + ", " + std::to_string(r.w) + " x " +
           std::to_string(r.h) + ")";
}

// Every open panel lies inside the display, under the menu bar and above the status bar.
void expect_every_panel_inside(const AppState& state, float width, float height)
{
    const float menu_h = ImGui::GetFrameHeight();
    const float status_h = ImGui::GetFrameHeight() + ImGui::GetStyle().WindowPadding.y * 2.0f;
    for (const PanelFacts& p : kPanelTable)
    {
        if (!state.prefs.open[idx(p.id)])
            continue;
        const LayoutRect r = rect_of(state, p.id);
        SCOPED_TRACE(std::string(p.title) + " " + describe(r));
        EXPECT_GT(r.w, 100.0f);
        EXPECT_GT(r.h, 60.0f);
        EXPECT_GE(r.x, 0.0f);
        EXPECT_GE(r.y, menu_h - 0.5f);
        EXPECT_LE(r.x + r.w, width + 0.5f);
        EXPECT_LE(r.y + r.h, height - status_h + 0.5f);
    }
}

void expect_no_overlap(const AppState& state, std::initializer_list<PanelId> ids)
{
    for (PanelId a : ids)
        for (PanelId b : ids)
            if (a < b)
            {
                EXPECT_FALSE(overlap(rect_of(state, a), rect_of(state, b), 1.0f))
                    << panel_facts(a).title << " " << describe(rect_of(state, a)) << " and "
                    << panel_facts(b).title << " " << describe(rect_of(state, b));
            }
}

const std::initializer_list<PanelId> kUsualPanels = {PanelId::Input, PanelId::Model, PanelId::Pipeline,
                                                     PanelId::Heads, PanelId::Inspector};

// [SECTION] Default places (no ImGui)

TEST(DefaultLayout, TheUsualPanelsTileTheWholeArea)
{
    const ViewPrefs prefs;
    const auto r = default_layout(prefs.open);
    float area = 0.0f;
    for (PanelId a : kUsualPanels)
    {
        area += r[idx(a)].w * r[idx(a)].h;
        EXPECT_GE(r[idx(a)].x, 0.0f);
        EXPECT_LE(r[idx(a)].x + r[idx(a)].w, 1.0f + 1e-6f);
        for (PanelId b : kUsualPanels)
            if (a < b)
            {
                EXPECT_FALSE(overlap(r[idx(a)], r[idx(b)], 1e-6f));
            }
    }
    EXPECT_NEAR(area, 1.0f, 1e-5f);
}

TEST(DefaultLayout, TheLessonHasItsOwnPlaceAndAClosedPanelGivesItsRoomAway)
{
    std::array<bool, kPanelCount> open = ViewPrefs{}.open;
    open[idx(PanelId::Lesson)] = true;
    auto r = default_layout(open);
    // Lesson, Input and Model share the left column, the lesson on top with the largest share.
    const LayoutRect lesson = r[idx(PanelId::Lesson)];
    EXPECT_EQ(lesson.y, 0.0f);
    EXPECT_GT(lesson.h, 0.5f);
    for (PanelId other : kUsualPanels)
        EXPECT_FALSE(overlap(lesson, r[idx(other)], 1e-6f)) << panel_facts(other).title;
    EXPECT_NEAR(r[idx(PanelId::Model)].y + r[idx(PanelId::Model)].h, 1.0f, 1e-6f);

    // A lesson step's view gets twice its share of its column.
    EXPECT_GT(default_layout(open, PanelId::Heads)[idx(PanelId::Heads)].h, 0.7f);
    // Without the Inspector, Heads takes the whole right column.
    open[idx(PanelId::Inspector)] = false;
    r = default_layout(open);
    EXPECT_NEAR(r[idx(PanelId::Heads)].h, 1.0f, 1e-6f);
    // Without the right column, the Pipeline reaches the right edge; without the left one, the left edge.
    open[idx(PanelId::Heads)] = false;
    r = default_layout(open);
    EXPECT_NEAR(r[idx(PanelId::Pipeline)].x + r[idx(PanelId::Pipeline)].w, 1.0f, 1e-6f);
    for (PanelId id : {PanelId::Lesson, PanelId::Input, PanelId::Model})
        open[idx(id)] = false;
    r = default_layout(open);
    EXPECT_EQ(r[idx(PanelId::Pipeline)].x, 0.0f);
    EXPECT_NEAR(r[idx(PanelId::Pipeline)].w, 1.0f, 1e-6f);

    // The Lesson panel beside Comparisons and Training, which cover the centre and the right.
    for (PanelId over : {PanelId::Comparisons, PanelId::Training})
    {
        std::array<bool, kPanelCount> with = open;
        with[idx(PanelId::Lesson)] = true;
        with[idx(over)] = true;
        const auto placed = default_layout(with, over);
        EXPECT_FALSE(overlap(placed[idx(PanelId::Lesson)], placed[idx(over)], 1e-6f));
        EXPECT_NEAR(placed[idx(over)].x + placed[idx(over)].w, 1.0f, 1e-6f);
    }

    // Training alone beside the left column (the panels under it closed) still has its place.
    open = ViewPrefs{}.open;
    for (PanelId id : {PanelId::Pipeline, PanelId::Heads, PanelId::Inspector})
        open[idx(id)] = false;
    open[idx(PanelId::Training)] = true;
    r = default_layout(open);
    EXPECT_NEAR(r[idx(PanelId::Training)].x, r[idx(PanelId::Input)].w, 1e-6f);
    EXPECT_NEAR(r[idx(PanelId::Training)].x + r[idx(PanelId::Training)].w, 1.0f, 1e-6f);
}

TEST(PlaceInArea, NeighboursShareTheirEdgeAndEverythingStaysInside)
{
    const LayoutRect area{0.0f, 23.0f, 1283.0f, 661.0f};
    const LayoutRect a = place_in_area({0.0f, 0.0f, 0.24f, 0.4f}, area);
    const LayoutRect b = place_in_area({0.24f, 0.0f, 0.4f, 1.0f}, area);
    const LayoutRect c = place_in_area({0.0f, 0.4f, 0.24f, 0.6f}, area);
    EXPECT_EQ(a.x + a.w, b.x);
    EXPECT_EQ(a.y + a.h, c.y);
    EXPECT_EQ(c.y + c.h, area.y + area.h);
    // Too far right and too large: moved and shrunk into the area.
    const LayoutRect d = place_in_area({0.9f, 0.9f, 0.5f, 1.5f}, area);
    EXPECT_EQ(d.x + d.w, area.x + area.w);
    EXPECT_EQ(d.y, area.y);
    EXPECT_EQ(d.h, area.h);
    // Pixels back to fractions.
    const LayoutRect f = fraction_of_area(b, area);
    EXPECT_NEAR(f.x, 0.24f, 0.5f / area.w);
    EXPECT_NEAR(f.w, 0.4f, 1.0f / area.w);
}

TEST(Prefs, PanelPlacesRoundTripAndBadOnesAreIgnored)
{
    ViewPrefs p;
    p.places[idx(PanelId::Heads)] = {true, 0.5f, 0.125f, 0.25f, 0.5f};
    ViewPrefs q;
    prefs_from_text(prefs_to_text(p), q);
    EXPECT_EQ(p, q);
    for (const char* bad : {"place.heads = 0.5 0.5 0.9 0.9\n", "place.heads = a b c d\n",
                            "place.heads = 0.1 0.1 0.5\n", "place.heads = -0.1 0 0.5 0.5\n",
                            "place.heads = 0.1 0.1 0.5 0.5 0.5\n", "place.heads = 0.1 0.1 0 0.5\n"})
    {
        ViewPrefs r;
        prefs_from_text(bad, r);
        EXPECT_EQ(r, ViewPrefs{}) << bad;
    }
}

// [SECTION] In frames

TEST(LayoutFrames, EveryPanelFollowsTheWindowSize)
{
    HeadlessUi ui(1600.0f, 1000.0f);
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 3);
    expect_every_panel_inside(*state, 1600.0f, 1000.0f);
    const float heads_at = rect_of(*state, PanelId::Heads).x / 1600.0f;
    for (auto [w, h] :
         {std::pair{1280.0f, 720.0f}, {1920.0f, 1080.0f}, {1280.0f, 800.0f}, {2560.0f, 1440.0f}})
    {
        SCOPED_TRACE(std::to_string(w) + " x " + std::to_string(h));
        ui.resize(w, h);
        ui.frames(*state, 2);
        expect_every_panel_inside(*state, w, h);
        expect_no_overlap(*state, kUsualPanels);
        // The same proportions, and the right column still reaches the right edge.
        EXPECT_NEAR(rect_of(*state, PanelId::Heads).x / w, heads_at, 1.0f / w);
        EXPECT_NEAR(rect_of(*state, PanelId::Heads).x + rect_of(*state, PanelId::Heads).w, w, 0.5f);
    }
}

TEST(LayoutFrames, AMovedPanelIsSavedInFractionsAndFitsAnotherWindowSize)
{
    std::string saved;
    LayoutRect moved_fraction;
    {
        HeadlessUi ui(1920.0f, 1080.0f);
        auto state = std::make_unique<AppState>();
        ui.frames(*state, 3);
        const LayoutRect before = rect_of(*state, PanelId::Heads);
        // Drag the Heads panel by its title bar, 600 px left and 200 px down.
        ui.drag(*state, before.x + 80.0f, before.y + 8.0f, before.x - 520.0f, before.y + 208.0f);
        ui.frames(*state, 2);
        const LayoutRect after = rect_of(*state, PanelId::Heads);
        EXPECT_NEAR(after.x, before.x - 600.0f, 1.0f);
        EXPECT_NEAR(after.y, before.y + 200.0f, 1.0f);
        const PanelPlace& place = state->prefs.places[idx(PanelId::Heads)];
        ASSERT_TRUE(place.placed);
        moved_fraction = {place.x, place.y, place.w, place.h};
        // The other panels keep their default places.
        EXPECT_FALSE(state->prefs.places[idx(PanelId::Pipeline)].placed);
        saved = prefs_to_text(state->prefs);
    }
    // A new start on a smaller screen with that preferences file.
    HeadlessUi ui(1280.0f, 720.0f);
    auto state = std::make_unique<AppState>();
    prefs_from_text(saved, state->prefs);
    ui.frames(*state, 3);
    expect_every_panel_inside(*state, 1280.0f, 720.0f);
    const LayoutRect area = work_area(1280.0f, 720.0f, ImGui::GetFrameHeight(),
                                      ImGui::GetFrameHeight() + ImGui::GetStyle().WindowPadding.y * 2.0f);
    const LayoutRect heads = fraction_of_area(rect_of(*state, PanelId::Heads), area);
    EXPECT_NEAR(heads.x, moved_fraction.x, 1.0f / area.w);
    EXPECT_NEAR(heads.y, moved_fraction.y, 1.0f / area.h);
    EXPECT_NEAR(heads.w, moved_fraction.w, 1.0f / area.w);
    EXPECT_NEAR(heads.h, moved_fraction.h, 1.0f / area.h);

    // View > Reset layout forgets the move.
    state->reset_layout = true;
    ui.frames(*state, 2);
    EXPECT_FALSE(state->prefs.places[idx(PanelId::Heads)].placed);
    expect_no_overlap(*state, kUsualPanels);
    EXPECT_NEAR(rect_of(*state, PanelId::Heads).x + rect_of(*state, PanelId::Heads).w, 1280.0f, 0.5f);
}

// View > Reset layout after the Training panel covered the main panels and the Inspector was closed: the
// panels of a first start come back (Training, a large view, closes), so the reset is seen to do something.
TEST(LayoutFrames, ResetLayoutReopensTheFirstStartsPanels)
{
    HeadlessUi ui(1280.0f, 720.0f);
    auto state = std::make_unique<AppState>();
    state->prefs.open[idx(PanelId::Training)] = true;
    state->prefs.open[idx(PanelId::Inspector)] = false;
    ui.frames(*state, 2);
    state->reset_layout = true;
    ui.frames(*state, 2);
    for (const PanelFacts& p : kPanelTable)
        EXPECT_EQ(state->prefs.open[idx(p.id)], p.open) << p.title;
    expect_no_overlap(*state, kUsualPanels);
}

TEST(LayoutFrames, ImGuisPixelLayoutFromALargerWindowIsBroughtInside)
{
    // What ImGui wrote to imgui.ini after a run at 1600x1000, read at the start of a run at 1280x720.
    HeadlessUi ui(1280.0f, 720.0f);
    const char* ini = "[Window][Input]\nPos=0,23\nSize=384,375\nCollapsed=0\n\n"
                      "[Window][Model]\nPos=0,398\nSize=384,562\nCollapsed=0\n\n"
                      "[Window][Heads]\nPos=1024,23\nSize=576,525\nCollapsed=0\n\n"
                      "[Window][Inspector]\nPos=1024,548\nSize=576,412\nCollapsed=0\n\n"
                      "[Window][Pipeline]\nPos=384,23\nSize=640,938\nCollapsed=0\n\n";
    ImGui::LoadIniSettingsFromMemory(ini);
    auto state = std::make_unique<AppState>();
    ui.frames(*state, 3);
    expect_every_panel_inside(*state, 1280.0f, 720.0f);
    expect_no_overlap(*state, kUsualPanels);
}

TEST(LayoutFrames, TheHeadsGridAt1280x720ShowsMapsNotDots)
{
    // Five tokens: the maps are just large enough for row labels by height, but "September" takes most of a
    // map's width.
    HeadlessUi ui(1280.0f, 720.0f);
    auto state = std::make_unique<AppState>();
    state->session.text = "Jane visits Africa in September";
    state->edit();
    const test::FrameOutput out = ui.frames(*state, 3);
    for (int j = 0; j < state->heads(); ++j)
    {
        MatrixRef ref;
        ref.stage = Stage::weights;
        ref.head = j;
        const HeatmapEntry* e = state->heatmaps.find(resolve_matrix(*state, ref).key);
        ASSERT_NE(e, nullptr);
        ASSERT_EQ(out.texture_rects.count(e->texture), 1u);
        const ImVec4 r = out.texture_rects.at(e->texture);
        EXPECT_GE(std::min(r.z - r.x, r.w - r.y), 64.0f) << "head " << j + 1;
    }
}

// [SECTION] Lessons: the Lesson panel beside what each step refers to

LayoutRect quad(const ImVec4& r)
{
    return {r.x, r.y, r.z - r.x, r.w - r.y};
}

bool contains(const LayoutRect& outer, const LayoutRect& inner)
{
    return inner.x >= outer.x - 0.5f && inner.y >= outer.y - 0.5f &&
           inner.x + inner.w <= outer.x + outer.w + 0.5f && inner.y + inner.h <= outer.y + outer.h + 0.5f;
}

// Where a heatmap of the last frame was drawn (nullopt: it was not drawn).
std::optional<LayoutRect> drawn_rect(const AppState& state, const test::FrameOutput& out,
                                     const MatrixRef& ref)
{
    const HeatmapEntry* e = state.heatmaps.find(resolve_matrix(state, ref).key);
    if (e == nullptr || out.texture_rects.count(e->texture) == 0)
        return std::nullopt;
    return quad(out.texture_rects.at(e->texture));
}

MatrixRef stage_ref(const AppState& state, const LessonStep& step, Stage stage, int head)
{
    MatrixRef ref;
    ref.source = step.cross ? MatrixSource::Cross : MatrixSource::Layer;
    ref.stage = stage;
    ref.layer = state.sel.layer;
    ref.b = state.sel.b;
    ref.head = head;
    return ref;
}

// Every step of every built-in lesson at this window size, from the default layout: the Lesson panel does not
// cover the step's view (or the Model panel when the step names a setting), the highlighted stages are all
// inside the Pipeline together, the heads are maps rather than dots, and the setting is on screen.
void check_every_step(float width, float height)
{
    HeadlessUi ui(width, height);
    auto state = std::make_unique<AppState>();
    load_lesson_library(*state, default_lessons_dir());
    const auto& lessons = state->lesson.library.lessons;
    ASSERT_FALSE(lessons.empty());
    for (int i = 0; i < static_cast<int>(lessons.size()); ++i)
    {
        // Lessons that train models are the Training panel's (tests/ui/test_training_panel.cpp); its place
        // beside the lesson is checked in DefaultLayout.
        const auto& steps = lessons[static_cast<std::size_t>(i)].steps;
        if (std::any_of(steps.begin(), steps.end(), [](const LessonStep& s) { return s.training.on; }))
            continue;
        for (int k = 0; k < static_cast<int>(steps.size()); ++k)
        {
            const LessonStep& step = lessons[static_cast<std::size_t>(i)].steps[static_cast<std::size_t>(k)];
            SCOPED_TRACE(lessons[static_cast<std::size_t>(i)].id + " step " + std::to_string(k + 1) + " at " +
                         std::to_string(width) + " x " + std::to_string(height));
            if (k == 0)
                enter_lesson(*state, i, 0);
            else
                next_step(*state);
            const test::FrameOutput out = ui.frames(*state, 4);
            expect_every_panel_inside(*state, width, height);
            const PanelId view = step.view == LessonView::Heads         ? PanelId::Heads
                                 : step.view == LessonView::Comparisons ? PanelId::Comparisons
                                                                        : PanelId::Pipeline;
            ASSERT_TRUE(state->prefs.open[idx(view)]);
            expect_no_overlap(*state, {PanelId::Lesson, view});
            if (!step.setting.empty())
            {
                ASSERT_TRUE(state->prefs.open[idx(PanelId::Model)]);
                expect_no_overlap(*state, {PanelId::Lesson, view, PanelId::Model});
                EXPECT_EQ(state->lesson.setting_scroll_request, 0)
                    << "the Model panel never reached the setting";
                if (step.setting == "scale")
                {
                    EXPECT_NE(out.text.find("scale by √d_k"), std::string::npos) << out.text;
                }
            }
            const LayoutRect pipeline = rect_of(*state, PanelId::Pipeline);
            if (step.view == LessonView::Pipeline)
                for (Stage stage : step.stages)
                {
                    const auto r = drawn_rect(*state, out, stage_ref(*state, step, stage, step.head));
                    ASSERT_TRUE(r.has_value()) << stage_info(stage).key << " was not drawn";
                    EXPECT_TRUE(contains(pipeline, *r)) << stage_info(stage).key << " " << describe(*r)
                                                        << " outside the Pipeline " << describe(pipeline);
                }
            if (step.view == LessonView::Heads)
                for (int j = 0; j < state->heads(); ++j)
                {
                    const auto r = drawn_rect(*state, out, stage_ref(*state, step, Stage::weights, j));
                    ASSERT_TRUE(r.has_value()) << "head " << j + 1;
                    EXPECT_TRUE(contains(rect_of(*state, PanelId::Heads), *r)) << "head " << j + 1;
                    EXPECT_GE(std::min(r->w, r->h), 64.0f) << "head " << j + 1 << " " << describe(*r);
                }
        }
    }
}

TEST(LessonLayout, EveryStepShowsItsSubjectBesideTheLessonAt1280x720)
{
    check_every_step(1280.0f, 720.0f);
}

TEST(LessonLayout, EveryStepShowsItsSubjectBesideTheLessonAt1920x1080)
{
    check_every_step(1920.0f, 1080.0f);
}

TEST(LessonLayout, ModelOpenedDuringALessonAndInputAndModelAfterItAreNotCovered)
{
    HeadlessUi ui(1280.0f, 720.0f);
    auto state = std::make_unique<AppState>();
    load_lesson_library(*state, default_lessons_dir());
    // The user opened the Lesson panel (View > Lesson) and closed Model, then picks a lesson.
    state->prefs.open[idx(PanelId::Lesson)] = true;
    state->prefs.open[idx(PanelId::Model)] = false;
    enter_lesson(*state, 0, 0);
    ui.frames(*state, 3);
    // View > Model: in a place of its own, not under the lesson.
    state->prefs.open[idx(PanelId::Model)] = true;
    ui.frames(*state, 2);
    expect_no_overlap(*state, {PanelId::Lesson, PanelId::Input, PanelId::Model, PanelId::Pipeline});
    expect_every_panel_inside(*state, 1280.0f, 720.0f);
    // Leaving the lesson keeps the user's Lesson panel, and Input and Model stay uncovered.
    leave_lesson(*state);
    ui.frames(*state, 2);
    ASSERT_TRUE(state->prefs.open[idx(PanelId::Lesson)]);
    expect_no_overlap(*state, {PanelId::Lesson, PanelId::Input, PanelId::Model, PanelId::Pipeline});
}

TEST(LessonLayout, AStepsStagesAreScrolledBackAfterTheWindowIsResized)
{
    HeadlessUi ui(1600.0f, 1000.0f);
    auto state = std::make_unique<AppState>();
    load_lesson_library(*state, default_lessons_dir());
    enter_lesson(*state, 0, 7); // the tour's "Concatenate, then W^O"
    const LessonStep& step = *current_step(*state);
    ASSERT_EQ(step.stages.size(), 2u);
    ui.frames(*state, 4);
    for (auto [w, h] : {std::pair{1280.0f, 720.0f}, {1920.0f, 1080.0f}})
    {
        ui.resize(w, h);
        const test::FrameOutput out = ui.frames(*state, 4);
        for (Stage stage : step.stages)
        {
            const auto r = drawn_rect(*state, out, stage_ref(*state, step, stage, step.head));
            ASSERT_TRUE(r.has_value()) << stage_info(stage).key;
            EXPECT_TRUE(contains(rect_of(*state, PanelId::Pipeline), *r)) << stage_info(stage).key;
        }
    }
}

TEST(LessonLayout, TheModelPanelKnowsEverySettingAStepMayName)
{
    HeadlessUi ui(1280.0f, 720.0f);
    auto state = std::make_unique<AppState>();
    load_lesson_library(*state, default_lessons_dir());
    Lesson& lesson = state->lesson.library.lessons.front();
    for (const SettingInfo& info : setting_table())
    {
        const char* key = info.key;
        lesson.steps.front().setting = key;
        enter_lesson(*state, 0, 0);
        EXPECT_GT(state->lesson.setting_scroll_request, 0);
        ui.frames(*state, 4);
        EXPECT_EQ(state->lesson.setting_scroll_request, 0) << key;
        EXPECT_TRUE(state->prefs.open[idx(PanelId::Model)]) << key;
    }
    // Leaving closes the Model panel the lesson opened; the user had it open, so it stays.
    leave_lesson(*state);
    EXPECT_TRUE(state->prefs.open[idx(PanelId::Model)]);
}

} // namespace
} // namespace attnlab
