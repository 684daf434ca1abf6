// The curve plot as geometry (picture/curve_plot.h), which the PNG export and the Training panel paint:
// ticks and their texts, thinning, left-out and clamped points, the band, the cursor and the pointer's
// values.
#include "ui/picture/curve_plot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace attnlab
{
namespace
{

const PlotRect kAxes{100.0f, 50.0f, 300.0f, 250.0f}; // 200 x 200 pixels

// Steps 0..100, one plot of accuracy-like values and one loss with a drop.
TrainingCurves curves()
{
    TrainingCurves c;
    c.x_min = 0;
    c.x_max = 100;
    c.accuracy.title = "accuracy";
    c.accuracy.percent = true;
    c.accuracy.fixed_y = true;
    c.accuracy.y_min = 0.0f;
    c.accuracy.y_max = 1.0f;
    CurveSeries a;
    a.label = "held-out";
    a.color = pack_rgba(1, 2, 3);
    a.points = {{0.0f, 0.0f}, {50.0f, 0.5f}, {100.0f, 1.0f}};
    c.accuracy.series.push_back(a);
    c.loss.title = "loss";
    c.loss.log_y = true;
    CurveSeries l;
    l.label = "training";
    l.points = {{0.0f, 10.0f}, {100.0f, 0.01f}};
    c.loss.series.push_back(l);
    c.has_drop = true;
    c.drop.from_step = 25;
    c.drop.to_step = 75;
    return c;
}

TEST(CurvePlot, ValuesAreWrittenAsTheAxesAndTooltipsWriteThem)
{
    EXPECT_EQ(curve_value_text(0.5f, true, 1), "50.0 %");
    EXPECT_EQ(curve_value_text(1.0f, true, 0), "100 %");
    EXPECT_EQ(curve_value_text(2.5f, false, 1), "2.5");
    EXPECT_EQ(curve_value_text(5.7e-5f, false, 1), "5.7e-05");
    EXPECT_EQ(curve_value_text(std::numeric_limits<float>::quiet_NaN(), false, 1), "not finite (diverged)");
}

TEST(CurvePlot, TheEndsAreTickedAndTheLineRunsCornerToCorner)
{
    const TrainingCurves c = curves();
    const CurvePlotPicture p = layout_curve_plot(c.accuracy, c, kAxes, -1, CurvePlotStyle{});
    ASSERT_EQ(p.y_ticks.size(), 2u);
    EXPECT_FLOAT_EQ(p.y_ticks[0].y, kAxes.y1); // 0 at the bottom
    EXPECT_EQ(p.y_ticks[0].text, "0.0 %");
    EXPECT_FLOAT_EQ(p.y_ticks[1].y, kAxes.y0); // 1 at the top
    EXPECT_EQ(p.y_ticks[1].text, "100.0 %");
    EXPECT_EQ(p.x_first, "0");
    EXPECT_EQ(p.x_last, "step 100");
    ASSERT_EQ(p.lines.size(), 1u);
    ASSERT_EQ(p.lines[0].points.size(), 3u);
    EXPECT_FLOAT_EQ(p.lines[0].points[0].x, kAxes.x0);
    EXPECT_FLOAT_EQ(p.lines[0].points[1].x, 200.0f);
    EXPECT_FLOAT_EQ(p.lines[0].points[1].y, 150.0f);
    EXPECT_FLOAT_EQ(p.lines[0].points[2].x, kAxes.x1);
    EXPECT_EQ(p.lines[0].color, pack_rgba(1, 2, 3));
    EXPECT_FALSE(p.has_band); // the band is the loss plot's
    EXPECT_FALSE(p.has_cursor);
}

TEST(CurvePlot, ALogAxisTicksTheDecadesThatDoNotCrowd)
{
    const TrainingCurves c = curves();
    CurvePlotStyle style;
    style.tick_gap = 10.0f;
    // 0.01 .. 10: three decades over 200 px, 0.1 and 1 between the ends.
    const CurvePlotPicture p = layout_curve_plot(c.loss, c, kAxes, -1, style);
    ASSERT_EQ(p.y_ticks.size(), 4u);
    EXPECT_EQ(p.y_ticks[2].text, "0.10"); // no value under 0.001: plain decimals
    EXPECT_EQ(p.y_ticks[3].text, "1.0");
    EXPECT_NEAR(p.y_ticks[2].y, kAxes.y1 - 200.0f / 3.0f, 0.01f);
    style.tick_gap = 70.0f; // farther than a decade: only the ends
    EXPECT_EQ(layout_curve_plot(c.loss, c, kAxes, -1, style).y_ticks.size(), 2u);
}

// One number format per log axis: the loss axis wrote "0.1", "7.6e-03" and "0.0174" on one axis.
TEST(CurvePlot, ALogAxisWritesEveryTickInOneFormat)
{
    // From 0.001 up: plain decimals, two significant digits each, over more than three decades too.
    EXPECT_EQ(log_axis_tick_texts({2.41f, 0.1f, 0.0076f, 0.0174f}),
              (std::vector<std::string>{"2.4", "0.10", "0.0076", "0.017"}));
    EXPECT_EQ(log_axis_tick_texts({4.3f, 0.1f, 0.0012f}),
              (std::vector<std::string>{"4.3", "0.10", "0.0012"}));
    // A value under 0.001 (or from 10^4 up): every tick as a power of ten, the same digits.
    EXPECT_EQ(log_axis_tick_texts({2.41f, 2.9e-6f, 1e-3f, 0.1f}),
              (std::vector<std::string>{"2.4e0", "2.9e-6", "1.0e-3", "1.0e-1"}));
    EXPECT_EQ(log_axis_tick_texts({2.41f, 0.00098f}), (std::vector<std::string>{"2.4e0", "9.8e-4"}));
    EXPECT_EQ(log_axis_tick_texts({12000.0f, 2.0f}), (std::vector<std::string>{"1.2e4", "2.0e0"}));
    // More digits, for every tick alike, where two would write different values alike.
    EXPECT_EQ(log_axis_tick_texts({1.09f, 1.06f}), (std::vector<std::string>{"1.09", "1.06"}));
    EXPECT_EQ(log_axis_tick_texts({9.96f, 0.5f}), (std::vector<std::string>{"10", "0.50"}));

    // The laid-out loss axes of the window, the presenter and the pictures (their styles) follow the rule:
    // a loss from 2.41 down to 0.0076 and one down to 2.9e-6.
    for (const float lowest : {0.0076f, 2.9e-6f})
    {
        TrainingCurves c = curves();
        c.loss.series[0].points = {{0.0f, 2.41f}, {50.0f, 0.0174f}, {100.0f, lowest}};
        CurvePlotStyle picture;
        picture.tick_gap = 12.0f;
        picture.linear_ticks = true;
        for (const CurvePlotStyle& style : {CurvePlotStyle{}, picture})
        {
            const CurvePlotPicture p = layout_curve_plot(c.loss, c, kAxes, -1, style);
            ASSERT_GE(p.y_ticks.size(), 2u);
            const bool powers = lowest < 1e-3f;
            for (const PlotTick& t : p.y_ticks)
            {
                EXPECT_EQ(t.text.find('e') != std::string::npos, powers) << t.text << " down to " << lowest;
                // Two significant digits: "2.4", "0.10", "0.0076" or "2.4e0", "1.0e-3".
                std::string digits;
                for (const char ch : t.text.substr(0, t.text.find('e')))
                    if (ch >= '0' && ch <= '9' && !(digits.empty() && ch == '0'))
                        digits += ch;
                EXPECT_EQ(digits.size(), 2u) << t.text;
                EXPECT_NEAR(std::stod(t.text), t.value, t.value * 0.06) << t.text;
            }
        }
    }
}

TEST(CurvePlot, TheLossPlotMarksTheSteepestDropAndTheCursorStaysInTheSteps)
{
    const TrainingCurves c = curves();
    const CurvePlotPicture p = layout_curve_plot(c.loss, c, kAxes, 50, CurvePlotStyle{});
    ASSERT_TRUE(p.has_band);
    EXPECT_FLOAT_EQ(p.band_x0, 150.0f);
    EXPECT_FLOAT_EQ(p.band_x1, 250.0f);
    ASSERT_TRUE(p.has_cursor);
    EXPECT_FLOAT_EQ(p.cursor_x, 200.0f);
    EXPECT_FALSE(layout_curve_plot(c.loss, c, kAxes, 101, CurvePlotStyle{}).has_cursor);
    EXPECT_FALSE(layout_curve_plot(c.loss, c, kAxes, -1, CurvePlotStyle{}).has_cursor);
}

TEST(CurvePlot, ThinningKeepsOnePointPerPixelColumnAndSkipsNaN)
{
    TrainingCurves c = curves();
    c.x_max = 1000;
    CurveSeries& s = c.accuracy.series[0];
    s.points.clear();
    for (int i = 0; i < 1000; ++i)
        s.points.emplace_back(static_cast<float>(i), i % 2 == 0 ? 0.25f : 0.75f);
    s.points[10].second = std::numeric_limits<float>::quiet_NaN();
    CurvePlotStyle style;
    const CurvePlotPicture thin = layout_curve_plot(c.accuracy, c, kAxes, -1, style);
    ASSERT_EQ(thin.lines[0].points.size(), 200u); // 5 steps a column
    for (const PlotPoint& q : thin.lines[0].points)
    {
        EXPECT_TRUE(std::isfinite(q.y));
        EXPECT_GT(q.y, 50.0f + 200.0f * 0.25f - 10.0f); // means of 0.25 and 0.75 lie near the middle
        EXPECT_LT(q.y, 250.0f - 200.0f * 0.25f + 10.0f);
    }
    style.thin = false;
    EXPECT_EQ(layout_curve_plot(c.accuracy, c, kAxes, -1, style).lines[0].points.size(),
              999u); // NaN left out
}

TEST(CurvePlot, ClampingPutsPointsOnTheEdgesAndDropsNonPositiveOnALogAxis)
{
    TrainingCurves c = curves();
    c.accuracy.series[0].points = {{0.0f, -0.5f}, {50.0f, 1.5f}};
    CurvePlotStyle style;
    const CurvePlotPicture loose = layout_curve_plot(c.accuracy, c, kAxes, -1, style);
    EXPECT_GT(loose.lines[0].points[0].y, kAxes.y1); // below the axes, for the painter to clip
    style.clamp = true;
    const CurvePlotPicture clamped = layout_curve_plot(c.accuracy, c, kAxes, -1, style);
    EXPECT_FLOAT_EQ(clamped.lines[0].points[0].y, kAxes.y1);
    EXPECT_FLOAT_EQ(clamped.lines[0].points[1].y, kAxes.y0);
    c.loss.series[0].points.emplace_back(100.0f, 0.0f);
    EXPECT_EQ(layout_curve_plot(c.loss, c, kAxes, -1, style).lines[0].points.size(), 2u);
    style.clamp = false;
    EXPECT_EQ(layout_curve_plot(c.loss, c, kAxes, -1, style).lines[0].points.size(), 3u);
}

TEST(CurvePlot, ThePointerReadsTheStepAndEachSeriesValueThere)
{
    const TrainingCurves c = curves();
    const CurvePlotPicture p = layout_curve_plot(c.accuracy, c, kAxes, -1, CurvePlotStyle{});
    EXPECT_EQ(curve_step_at(p, 200.0f), 50);
    EXPECT_EQ(curve_step_at(p, kAxes.x0 - 40.0f), 0); // clamped to the steps
    EXPECT_EQ(curve_step_at(p, kAxes.x1 + 40.0f), 100);
    EXPECT_EQ(curve_hover_text(c.accuracy, 40, 1), "step 40\nheld-out: 50.0 % (step 50)");
    EXPECT_EQ(curve_hover_text(c.accuracy, 100, 0), "step 100\nheld-out: 100 % (step 100)");
}

// An earlier run of 400 steps whose loss fell to 1e-6..1e-5 (reverse), and a current run at step 150 of a
// 3000-step target whose loss is still 1..3 (induction on its plateau).
TrainingSnapshot fitted_runs()
{
    TrainingSnapshot v;
    PastRun past;
    past.label = "reverse";
    for (int k = 0; k < 400; ++k)
        past.loss.push_back(1e-5f - 9e-6f * static_cast<float>(k) / 399.0f);
    for (int step = 25; step <= 400; step += 25)
        past.evals.push_back(TrainingEval{step, 2e-6f, 2e-6f, 1.0f, {}});
    v.past.push_back(past);
    v.step = 150;
    for (int k = 0; k < 150; ++k)
        v.loss.push_back(3.0f - 2.0f * static_cast<float>(k) / 149.0f);
    for (int step = 0; step <= 150; step += 25)
        v.evals.push_back(TrainingEval{step, 2.0f, 2.0f, 0.3f, {}});
    return v;
}

TEST(CurvePlot, TheLossAxisFitsTheCurrentRunNotAnEarlierOneFarBelow)
{
    const TrainingCurves c = training_curves(fitted_runs(), 3000, 0);
    float lo = 0.0f, hi = 0.0f;
    plot_y_range(c.loss, &lo, &hi);
    EXPECT_GE(lo, 0.5f) << "the earlier run's 1e-6 must not squash the current run at the top";
    EXPECT_LE(lo, 1.0f);
    EXPECT_GE(hi, 3.0f);
    const CurvePlotPicture p = layout_curve_plot(c.loss, c, kAxes, -1, CurvePlotStyle{});
    for (const PlotTick& t : p.y_ticks)
        EXPECT_GE(t.value, 0.5f) << t.text;
    // The current run's training loss spans the plot's height rather than lying along its top edge.
    ASSERT_FALSE(p.lines.empty());
    const PlotLine& training = p.lines.back(); // drawn last, over the held-out line
    ASSERT_FALSE(training.points.empty());
    const auto [top, bottom] = std::minmax_element(training.points.begin(), training.points.end(),
                                                   [](PlotPoint a, PlotPoint b) { return a.y < b.y; });
    EXPECT_NEAR(top->y, kAxes.y0, 1.0f);    // 3 at the top
    EXPECT_NEAR(bottom->y, kAxes.y1, 1.0f); // 1 at the bottom
}

TEST(CurvePlot, TheStepAxisEndsNearTheCurrentRunsStepAndCutsEarlierRuns)
{
    const TrainingCurves c = training_curves(fitted_runs(), 3000, 0);
    EXPECT_GE(c.x_max, 150);
    EXPECT_LE(c.x_max, 300) << "step 150 of a 3000-step target takes most of the width";
    for (const CurvePlot* plot : {&c.loss, &c.accuracy})
        for (const CurveSeries& s : plot->series)
            for (const auto& [step, value] : s.points)
                EXPECT_LE(step, static_cast<float>(c.x_max)) << plot->title << ": " << s.label;
    // The earlier run reaches the right edge, not only its last point before it.
    ASSERT_FALSE(c.accuracy.series.front().points.empty());
    EXPECT_FLOAT_EQ(c.accuracy.series.front().points.back().first, static_cast<float>(c.x_max));
}

TEST(CurvePlot, EarlierRunsAreDrawnDimmerThanTheCurrentOne)
{
    const TrainingSnapshot v = fitted_runs();
    const TrainingCurves c = training_curves(v, 3000, 0);
    const auto alpha = [](Color32 color) { return static_cast<int>(color >> 24); };
    for (const CurvePlot* plot : {&c.loss, &c.accuracy})
    {
        const std::size_t n_past = v.past.size();
        ASSERT_GT(plot->series.size(), n_past);
        int current = 255;
        for (std::size_t i = n_past; i < plot->series.size(); ++i)
            current = std::min(current, alpha(plot->series[i].color));
        for (std::size_t i = 0; i < n_past; ++i)
            EXPECT_LT(alpha(plot->series[i].color), current) << plot->title;
    }
}

TEST(CurvePlot, TheFullViewCoversEveryRunUpToTheTarget)
{
    const TrainingCurves c = training_curves(fitted_runs(), 3000, 0, false);
    EXPECT_EQ(c.x_max, 3000);
    float lo = 0.0f, hi = 0.0f;
    plot_y_range(c.loss, &lo, &hi);
    EXPECT_LE(lo, 1e-6f * 1.01f);
    // Nothing of the current run yet: the earlier runs set the axes even when fitting.
    TrainingSnapshot fresh = fitted_runs();
    fresh.step = 0;
    fresh.loss.clear();
    fresh.evals.clear();
    EXPECT_EQ(training_curves(fresh, 100, 0).x_max, 400);
}

// A lesson step shows its maps at step 100 of a run now at 150 whose loss drops at steps 110..150: every
// curve of the current run ends at the shown step (within one held-out interval), the steepest drop after it
// is not marked, and the axes are the whole run's (3000 steps, the y range of every point), for the curves to
// grow into; the earlier run stays whole.
TEST(CurvePlot, CutAtTheShownStepTheCurrentRunsCurvesEndThereOnTheWholeRunsAxes)
{
    TrainingSnapshot v = fitted_runs();
    for (int k = 0; k < 150; ++k)
        v.loss[static_cast<std::size_t>(k)] = k < 110 ? 3.0f - 0.001f * static_cast<float>(k) : 0.5f;
    v.model.n_layers = 1;
    v.model.n_heads = 2;
    for (TrainingEval& e : v.evals)
        e.heads = {train::HeadScores{0.1, 0.2, 0, 0, 0}, train::HeadScores{0.3, 0.4, 0, 0, 0}};
    const TrainingCurves whole = training_curves(v, 3000, 0, false);
    ASSERT_TRUE(whole.has_drop);
    ASSERT_GT(whole.drop.to_step, 100);
    const int shown = 100;
    const TrainingCurves c = training_curves(v, 3000, 0, true, shown);
    EXPECT_EQ(c.x_max, 3000) << "the whole run's step axis";
    EXPECT_FALSE(c.has_drop && c.drop.to_step > shown) << "a drop after the shown step is marked";
    for (const auto& [plot, full] : {std::pair{&c.loss, &whole.loss}, std::pair{&c.accuracy, &whole.accuracy},
                                     std::pair{&c.heads, &whole.heads}})
    {
        SCOPED_TRACE(plot->title);
        float lo = 0, hi = 0, full_lo = 0, full_hi = 0;
        plot_y_range(*plot, &lo, &hi);
        plot_y_range(*full, &full_lo, &full_hi);
        EXPECT_FLOAT_EQ(lo, full_lo);
        EXPECT_FLOAT_EQ(hi, full_hi);
        const std::size_t past = plot == &c.heads ? 0 : v.past.size();
        ASSERT_EQ(plot->series.size(), full->series.size());
        ASSERT_GT(plot->series.size(), past);
        for (std::size_t i = 0; i < past; ++i)
            EXPECT_EQ(plot->series[i].points.size(), full->series[i].points.size())
                << "the earlier run whole";
        // The plotted points: none right of the cursor, the last within one held-out interval of it.
        const CurvePlotPicture p = layout_curve_plot(*plot, c, kAxes, shown, CurvePlotStyle{});
        ASSERT_TRUE(p.has_cursor);
        const float interval = (kAxes.x1 - kAxes.x0) * 25.0f / 3000.0f;
        for (std::size_t i = past; i < p.lines.size(); ++i)
        {
            SCOPED_TRACE(plot->series[i].label);
            ASSERT_FALSE(p.lines[i].points.empty());
            for (const PlotPoint& q : p.lines[i].points)
                EXPECT_LE(q.x, p.cursor_x + 0.01f);
            EXPECT_GE(p.lines[i].points.back().x, p.cursor_x - interval - 0.01f);
        }
    }
}

// The training loss is drawn after (over) the held-out loss, opaque and much thinner, so neither hides the
// other: translucent over it, the two read as one brown line early in a Reverse run, where they coincide.
TEST(CurvePlot, TheTrainingLossIsDrawnThinOverTheHeldOutLoss)
{
    const TrainingCurves c = training_curves(fitted_runs(), 3000, 0);
    std::size_t training = 0, held = 0;
    for (std::size_t i = 0; i < c.loss.series.size(); ++i)
    {
        training = c.loss.series[i].label == "training loss" ? i : training;
        held = c.loss.series[i].label == "held-out loss" ? i : held;
    }
    ASSERT_NE(training, held);
    EXPECT_GT(training, held) << "drawn later: on top";
    // Where the two coincide (early in a run, at every step) the held-out line's edges show on each side of
    // the opaque training line: a vermilion casing around a blue core, neither hidden nor mixed to brown.
    EXPECT_GE(c.loss.series[held].width - c.loss.series[training].width, 1.5f);
    EXPECT_EQ(c.loss.series[training].color >> 24, 255u);
    EXPECT_EQ(c.loss.series[held].color >> 24, 255u);
    // Larger text widens the held-out line more than the training loss (its noise would cover the held-out).
    EXPECT_TRUE(c.loss.series[training].thin);
    EXPECT_FALSE(c.loss.series[held].thin);
    EXPECT_TRUE(layout_curve_plot(c.loss, c, kAxes, -1, CurvePlotStyle{}).lines[training].thin);
}

// The step axis of the panel's plots: round steps between its ends ("0 100 200 step 400"), no two labels
// closer than the space asked, the right end always labelled, without its word only where a plot is too
// narrow for both ends.
TEST(CurvePlot, TheStepAxisLabelsRoundStepsBetweenItsEndsAndNoneOverlap)
{
    const auto width = [](const std::string& t) { return 8.0f * static_cast<float>(t.size()); };
    const float space = 8.0f;
    TrainingCurves c = curves();
    c.x_max = 400;
    const auto labels_at = [&](float w, int x_max)
    {
        c.x_max = x_max;
        CurvePlotStyle style;
        style.x_tick_gap = width(std::to_string(x_max)) + 16.0f;
        const CurvePlotPicture p =
            layout_curve_plot(c.accuracy, c, PlotRect{100.0f, 50.0f, 100.0f + w, 250.0f}, -1, style);
        const std::vector<PlotXLabel> labels = x_axis_labels(p, width, space);
        for (std::size_t i = 1; i < labels.size(); ++i)
            EXPECT_GE(labels[i].x, labels[i - 1].x + width(labels[i - 1].text) + space - 0.01f)
                << labels[i - 1].text << " and " << labels[i].text << " at " << w;
        for (const PlotXLabel& l : labels)
        {
            EXPECT_GE(l.x, 100.0f);
            EXPECT_LE(l.x + width(l.text), 100.0f + w + 0.01f);
        }
        std::string all;
        for (const PlotXLabel& l : labels)
            all += (all.empty() ? "" : " ") + l.text;
        return all;
    };
    EXPECT_EQ(labels_at(400.0f, 400), "0 50 100 150 200 250 300 step 400"); // 350 would crowd the end
    EXPECT_EQ(labels_at(300.0f, 400), "0 100 200 step 400");
    EXPECT_EQ(labels_at(260.0f, 1000), "0 200 400 600 step 1000");
    EXPECT_EQ(labels_at(60.0f, 1000), "0 1000");
    for (const float w : {80.0f, 120.0f, 200.0f, 333.0f, 517.0f, 900.0f})
        for (const int x_max : {20, 120, 150, 250, 600, 1000, 3000})
        {
            const std::string all = labels_at(w, x_max);
            EXPECT_EQ(all.substr(all.rfind(' ') + 1), std::to_string(x_max)) << all << " at " << w;
        }
}

TEST(CurvePlot, TheFittedStepAxisEndsOnARoundNumberWithinTheTarget)
{
    EXPECT_EQ(fit_x_max(0, 150, 3000), 200); // 165 rounded up
    EXPECT_EQ(fit_x_max(0, 100, 3000), 120); // 110 rounded up
    EXPECT_EQ(fit_x_max(0, 0, 3000), kMinFitSteps);
    EXPECT_EQ(fit_x_max(0, 600, 600), 600);    // a finished run: no room past its end
    EXPECT_EQ(fit_x_max(100, 250, 3000), 300); // from a model's first step: 165 more rounded up
    EXPECT_EQ(fit_x_max(0, 5, 10), 10);        // never past the target
}

TEST(CurvePlot, TheStepAxisIsTickedAtRoundStepsAndALinearAxisBetweenItsEnds)
{
    const TrainingCurves c = curves();
    CurvePlotStyle style;
    style.x_tick_gap = 40.0f; // 200 px: at most five intervals
    style.tick_gap = 34.0f;
    style.linear_ticks = true;
    const CurvePlotPicture p = layout_curve_plot(c.accuracy, c, kAxes, -1, style);
    ASSERT_GE(p.x_ticks.size(), 3u); // more than the two ends
    EXPECT_EQ(p.x_ticks.front().step, 0);
    EXPECT_FLOAT_EQ(p.x_ticks.front().x, kAxes.x0);
    for (std::size_t i = 0; i < p.x_ticks.size(); ++i)
    {
        const PlotXTick& t = p.x_ticks[i];
        EXPECT_EQ(t.text, std::to_string(t.step));
        EXPECT_EQ(t.step % 20, 0) << "a round step: " << t.step;
        EXPECT_NEAR(t.x, kAxes.x0 + static_cast<float>(t.step) * 2.0f, 0.01f);
        if (i > 0)
        {
            EXPECT_GE(t.x - p.x_ticks[i - 1].x, style.x_tick_gap);
        }
    }
    // 0 % and 100 % at the ends, round values between, none crowding another.
    ASSERT_GE(p.y_ticks.size(), 4u);
    std::vector<float> ys;
    for (const PlotTick& t : p.y_ticks)
        ys.push_back(t.y);
    std::sort(ys.begin(), ys.end());
    for (std::size_t i = 1; i < ys.size(); ++i)
        EXPECT_GE(ys[i] - ys[i - 1], style.tick_gap - 0.01f);
    // The panel's style asks for neither.
    const CurvePlotPicture panel = layout_curve_plot(c.accuracy, c, kAxes, -1, CurvePlotStyle{});
    EXPECT_TRUE(panel.x_ticks.empty());
    EXPECT_EQ(panel.y_ticks.size(), 2u);
    EXPECT_EQ(round_tick_step(100.0, 5), 20.0);
    EXPECT_EQ(round_tick_step(800.0, 6), 200.0);
    EXPECT_EQ(round_tick_step(1.0, 4), 0.5);
}

// True when a point of the segment a-b (sampled every 0.1 px) lies inside r.
bool sampled_inside(const PlotPoint& a, const PlotPoint& b, const PlotRect& r)
{
    const float len = std::hypot(b.x - a.x, b.y - a.y);
    const int n = std::max(1, static_cast<int>(len * 10.0f));
    for (int i = 0; i <= n; ++i)
    {
        const float t = static_cast<float>(i) / static_cast<float>(n);
        const float x = a.x + (b.x - a.x) * t, y = a.y + (b.y - a.y) * t;
        if (x >= r.x0 && x <= r.x1 && y >= r.y0 && y <= r.y1)
            return true;
    }
    return false;
}

TEST(CurvePlot, TheSteepestDropLabelNeverCrossesALine)
{
    TrainingCurves c = curves();
    // A loss that falls through the band's top right, where the label used to go, then flattens.
    c.loss.series[0].points = {{0.0f, 10.0f}, {24.0f, 9.0f}, {30.0f, 8.0f}, {60.0f, 0.05f}, {100.0f, 0.01f}};
    const CurvePlotPicture p = layout_curve_plot(c.loss, c, kAxes, 90, CurvePlotStyle{});
    ASSERT_TRUE(p.has_band);
    for (const float w : {20.0f, 60.0f, 90.0f})
    {
        PlotRect r;
        ASSERT_TRUE(place_band_label(p, w, 14.0f, &r)) << w;
        EXPECT_NEAR(r.x1 - r.x0, w, 0.01f);
        EXPECT_GE(r.x0, kAxes.x0);
        EXPECT_LE(r.x1, kAxes.x1);
        EXPECT_GE(r.y0, kAxes.y0);
        EXPECT_LE(r.y1, kAxes.y1);
        for (const PlotLine& line : p.lines)
            for (std::size_t i = 1; i < line.points.size(); ++i)
                EXPECT_FALSE(sampled_inside(line.points[i - 1], line.points[i], r)) << w << " segment " << i;
    }
    // A zigzag over the whole plot leaves no room: the label is left out rather than drawn over a line.
    TrainingCurves z = curves();
    z.loss.series[0].points.clear();
    for (int k = 0; k <= 100; ++k)
        z.loss.series[0].points.emplace_back(static_cast<float>(k), k % 2 == 0 ? 10.0f : 0.01f);
    PlotRect r;
    EXPECT_FALSE(
        place_band_label(layout_curve_plot(z.loss, z, kAxes, -1, CurvePlotStyle{}), 30.0f, 14.0f, &r));
}

} // namespace
} // namespace attnlab
