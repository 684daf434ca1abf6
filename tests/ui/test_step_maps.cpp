// Which maps a lesson step shows: one decision (picture/step_maps.h) that the presenter, the lesson slides
// and the Comparisons panel read. Every step of every built-in lesson, drawn by all three.
#include "core/io/lesson_file.h"
#include "ui/model/app_state.h"
#include "ui/model/lessons.h"
#include "ui/model/training/text_readouts.h"
#include "ui/panels/panels.h"
#include "ui/picture/export.h"
#include "ui/picture/slides.h"
#include "ui/picture/step_maps.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

namespace attnlab
{
namespace
{

using test::HeadlessUi;

bool has_text(const std::vector<std::string>& texts, const std::string& s)
{
    return std::find(texts.begin(), texts.end(), s) != texts.end();
}

StepMapsKind expected_kind(const LessonStep& step)
{
    switch (step.view)
    {
    case LessonView::Training:
        return StepMapsKind::Training;
    case LessonView::Heads:
        return StepMapsKind::Heads;
    case LessonView::Comparisons:
        return StepMapsKind::Comparisons;
    default:
        return step.stages.empty() ? StepMapsKind::Session : StepMapsKind::Stages;
    }
}

TEST(StepMaps, EveryLessonStepShowsTheSameMapsInThePresenterTheSlideAndTheComparisonsPanel)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    load_lesson_library(*state, default_lessons_dir());
    const auto& lessons = state->lesson.library.lessons;
    ASSERT_FALSE(lessons.empty());
    int checked = 0;
    for (int i = 0; i < static_cast<int>(lessons.size()); ++i)
        for (int k = 0; k < static_cast<int>(lessons[static_cast<std::size_t>(i)].steps.size()); ++k)
        {
            const LessonStep& step = lessons[static_cast<std::size_t>(i)].steps[static_cast<std::size_t>(k)];
            SCOPED_TRACE(lessons[static_cast<std::size_t>(i)].id + " step " + std::to_string(k + 1));
            enter_lesson(*state, i, k);
            ui.frames(*state, 2);
            const StepMaps shown = step_maps(*state, current_step(*state));
            ASSERT_EQ(shown.kind, expected_kind(step));
            if (shown.kind == StepMapsKind::Training)
            {
                EXPECT_TRUE(shown.maps.empty());
                continue; // the probe's maps come from a training run, not from these refs
            }
            ASSERT_TRUE(state->has_trace()) << state->status.message();
            state->ensure_comparisons();
            std::vector<MatrixRef> drawable;
            for (const MatrixRef& ref : shown.maps)
                if (resolve_matrix(*state, ref).m != nullptr)
                    drawable.push_back(ref);
            ASSERT_FALSE(drawable.empty());
            if (shown.kind == StepMapsKind::Stages)
            {
                EXPECT_EQ(shown.maps.size(), step.stages.size());
            }
            if (shown.kind == StepMapsKind::Heads)
            {
                EXPECT_EQ(static_cast<int>(shown.maps.size()), state->heads());
            }

            // The slide: every map, by name, and no other.
            std::vector<std::string> texts;
            render_lesson_slide(*state, 1600, 900, false, nullptr, &texts);
            for (const MatrixRef& ref : drawable)
            {
                EXPECT_TRUE(has_text(texts, matrix_name(*state, ref))) << matrix_name(*state, ref);
            }

            // The presenter: one heatmap texture per map (the single-head comparison may leave out the two
            // outputs when they would shrink the weights; every comparison at once is the panel's own view).
            state->presenter = true;
            const test::FrameOutput presented = ui.frames(*state, 3);
            state->presenter = false;
            const std::size_t n = drawable.size();
            if (shown.kind == StepMapsKind::Comparisons && shown.comparison == ComparisonSection::SingleHead)
            {
                EXPECT_TRUE(presented.textures.size() == n || presented.textures.size() == 2)
                    << presented.textures.size();
            }
            else if (shown.kind != StepMapsKind::Session &&
                     !(shown.kind == StepMapsKind::Comparisons && shown.comparison == ComparisonSection::All))
            {
                EXPECT_EQ(presented.textures.size(), n);
            }

            // The Comparisons panel: the step's section(s), one texture per map.
            if (shown.kind == StepMapsKind::Comparisons)
            {
                const test::FrameOutput panel =
                    ui.frames(*state, 3, test::panel_only(draw_comparisons_panel));
                EXPECT_EQ(panel.textures.size(), n);
            }
            ++checked;
        }
    EXPECT_GT(checked, 20);
}

// A text model's step whose text talks about the loss strip shows it in presenter mode and on its slide (the
// slide drew none before): every character of the probe in a cell of its surprise colour, the legend and the
// mean, between the maps and the caption. Another step of the same run shows no strip on either.
// The softmax-axis step's slide adds up each row of the weights in a Σ column beside them (the same step
// without row_sums has none) and names both axes.
TEST(StepMaps, TheSoftmaxAxisStepsSlideAddsUpEachRow)
{
    HeadlessUi ui;
    auto state = std::make_unique<AppState>();
    load_lesson_library(*state, default_lessons_dir());
    const int lesson = test::lesson_index(*state, "shapes_masks");
    LessonStep& step = state->lesson.library.lessons[static_cast<std::size_t>(lesson)].steps[4];
    ASSERT_TRUE(step.row_sums);
    const auto slide_texts = [&](bool sums)
    {
        step.row_sums = sums;
        enter_lesson(*state, lesson, 4);
        ui.frames(*state, 2);
        EXPECT_TRUE(state->has_trace());
        std::vector<std::string> texts;
        render_lesson_slide(*state, 1920, 1080, false, nullptr, &texts);
        return texts;
    };
    const std::vector<std::string> plain = slide_texts(false), with = slide_texts(true);
    const auto ones = [](const std::vector<std::string>& texts)
    { return std::count(texts.begin(), texts.end(), std::string("1.00")); };
    ASSERT_EQ(state->trace().T(), 3);
    EXPECT_EQ(ones(with), ones(plain) + 3);
    EXPECT_TRUE(has_text(with, "Σ"));
    EXPECT_FALSE(has_text(plain, "Σ"));
    EXPECT_TRUE(has_text(with, "query"));
    EXPECT_TRUE(has_text(with, "key"));
}

TEST(StepMaps, AStepAboutTheLossStripShowsItOnItsSlide)
{
    const char* text = R"({"format": "attnlab-lesson", "version": 1, "title": "t",
        "training": {"task": "text", "corpus": "austen", "steps": 20},
        "steps": [{"text": "In the loss strip the second copy is paler.",
                   "training": {"probe": "Mr. Darcy bowed. Mr. Darcy bowed."}},
                  {"text": "What it writes."}]})";
    Lesson lesson;
    ASSERT_TRUE(parse_lesson(text, "t.json", &lesson).is_ok());
    auto state = std::make_unique<AppState>();
    state->mouse_ignored = true; // a picture: the run is trained before the step shows
    state->lesson.library.lessons.push_back(lesson);
    enter_lesson(*state, 0, 0);
    ASSERT_TRUE(state->training.error.empty()) << state->training.error;
    ASSERT_TRUE(step_shows_loss_strip(current_step(*state)));
    for (const bool dark : {false, true})
    {
        SCOPED_TRACE(dark ? "dark" : "light");
        std::vector<std::string> texts;
        const Image img = render_lesson_slide(*state, 1920, 1080, dark, nullptr, &texts);
        EXPECT_TRUE(has_text(texts, "surprise, −ln p in nats:  0"));
        const auto mean = std::find_if(texts.begin(), texts.end(),
                                       [](const std::string& t) { return t.rfind("mean ", 0) == 0; });
        ASSERT_NE(mean, texts.end());
        // The strip's characters, each in a cell of the colour of the model's surprise at it.
        const TrainingPanelState& ts = state->training;
        const std::vector<LossCell> cells = loss_strip(ts.probe_batch, ts.probe.acts(), ts.view.vocabulary);
        ASSERT_EQ(cells.size(), std::string("Mr. Darcy bowed. Mr. Darcy bowed.").size());
        const Color32 paper = picture_palette(dark).paper;
        double sum = 0.0;
        int n = 0, coloured = 0, y_strip = -1;
        for (const LossCell& c : cells)
        {
            if (!std::isfinite(c.loss))
                continue;
            sum += static_cast<double>(c.loss);
            ++n;
            const Color32 fill = surprise_color(c.loss, kSurpriseMaxNats, paper);
            for (const DrawCommand& cmd : img.commands)
                if (cmd.kind == DrawKind::Rect && cmd.color == fill && cmd.x1 - cmd.x0 >= 12.0f &&
                    cmd.x1 - cmd.x0 < 60.0f && cmd.y1 - cmd.y0 >= 26.0f)
                {
                    ++coloured;
                    y_strip = static_cast<int>(cmd.y0);
                    break;
                }
        }
        EXPECT_EQ(coloured, n) << "a cell of its surprise colour for every character after the first";
        char line[64];
        std::snprintf(line, sizeof line, "mean %.2f nats", sum / n);
        EXPECT_EQ(mean->rfind(line, 0), 0u) << *mean << " vs " << line;
        // Between the maps and the caption: under every map's cells, above the caption's first line.
        float maps_bottom = 0.0f, caption_top = 1e9f;
        for (const DrawCommand& cmd : img.commands)
        {
            if (cmd.kind == DrawKind::Hatch)
                maps_bottom = std::max(maps_bottom, cmd.y1);
            if (cmd.kind == DrawKind::Text && cmd.text.rfind("In the loss strip", 0) == 0)
                caption_top = cmd.y0;
        }
        EXPECT_GT(static_cast<float>(y_strip), maps_bottom);
        EXPECT_LT(static_cast<float>(y_strip), caption_top);
    }
    go_to_step(*state, 1);
    EXPECT_FALSE(step_shows_loss_strip(current_step(*state)));
    std::vector<std::string> texts;
    render_lesson_slide(*state, 1920, 1080, false, nullptr, &texts);
    EXPECT_FALSE(has_text(texts, "surprise, −ln p in nats:  0"));
}

TEST(StepMaps, ComparisonSectionsAreTheUnionOfTheirParts)
{
    AppState state;
    state.update();
    ASSERT_TRUE(state.has_trace());
    const std::vector<MatrixRef> all = comparison_maps(state, ComparisonSection::All);
    std::vector<MatrixRef> parts;
    for (const ComparisonSection s :
         {ComparisonSection::Packed, ComparisonSection::TwoStep, ComparisonSection::SingleHead})
    {
        EXPECT_TRUE(shows_comparison(ComparisonSection::All, s));
        EXPECT_TRUE(shows_comparison(s, s));
        const std::vector<MatrixRef> part = comparison_maps(state, s);
        parts.insert(parts.end(), part.begin(), part.end());
    }
    EXPECT_FALSE(shows_comparison(ComparisonSection::Packed, ComparisonSection::TwoStep));
    EXPECT_EQ(all, parts);
    // Packed: X W^Q, then every head's Q_h.
    const std::vector<MatrixRef> packed = comparison_maps(state, ComparisonSection::Packed);
    ASSERT_EQ(static_cast<int>(packed.size()), 1 + state.heads());
    EXPECT_EQ(packed[0].source, MatrixSource::Comparison);
    for (int j = 0; j < state.heads(); ++j)
    {
        EXPECT_EQ(packed[static_cast<std::size_t>(1 + j)].stage, Stage::Q);
        EXPECT_EQ(packed[static_cast<std::size_t>(1 + j)].head, j);
    }
    // Outside a lesson: the selected head's weights.
    const StepMaps none = step_maps(state, nullptr);
    EXPECT_EQ(none.kind, StepMapsKind::Session);
    ASSERT_EQ(none.maps.size(), 1u);
    EXPECT_EQ(none.maps[0], selected_stage(state, Stage::weights, state.sel.head));
}

} // namespace
} // namespace attnlab
