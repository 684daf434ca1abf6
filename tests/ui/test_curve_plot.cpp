// The curve plot as geometry (picture/curve_plot.h), which the PNG export and the Training panel paint:
// ticks and their texts, thinning, left-out and clamped points, the band, the cursor and the pointer's
// values.
#include "ui/picture/curve_plot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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
    EXPECT_EQ(p.y_ticks[2].text, "0.1");
    EXPECT_EQ(p.y_ticks[3].text, "1");
    EXPECT_NEAR(p.y_ticks[2].y, kAxes.y1 - 200.0f / 3.0f, 0.01f);
    style.tick_gap = 70.0f; // farther than a decade: only the ends
    EXPECT_EQ(layout_curve_plot(c.loss, c, kAxes, -1, style).y_ticks.size(), 2u);
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

} // namespace
} // namespace attnlab
