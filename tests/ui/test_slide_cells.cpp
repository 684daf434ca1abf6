// The cells of every map on every lesson slide are large enough to see when projected: no slide draws a map
// with cells under kMinCellPx on a 1080-line slide (scaled with the slide's height, as kSlideMinTextPx is).
#include "ui/model/app_state.h"
#include "ui/model/lessons.h"
#include "ui/model/training/training_controller.h"
#include "ui/picture/slides.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>

namespace attnlab
{
namespace
{

// The floor: 4 px on 1080 lines (1/270 of the height), the size the slide layout keeps before it shrinks the
// text (slides.cpp, fit_grid); a stripe of 4 px cells still shows from the back of a room. Lesson 12's maps
// of 64 characters were 2 px.
constexpr float kMinCellPx = 4.0f;

// The side of a slide's map cells: the most frequent side of the filled and hatched squares (every map of a
// slide has one cell size; colour-bar legends and swatches are a few squares at most). 0: no map.
int cell_side(const Image& img)
{
    std::map<int, int> squares;
    for (const DrawCommand& c : img.commands)
        if ((c.kind == DrawKind::Rect || c.kind == DrawKind::Hatch) && c.x1 - c.x0 == c.y1 - c.y0 &&
            c.x1 > c.x0 && c.x1 - c.x0 < 0.5f * static_cast<float>(img.height))
            ++squares[static_cast<int>(c.x1 - c.x0)];
    int side = 0, most = 0;
    for (const auto& [s, n] : squares)
        if (n > most)
        {
            most = n;
            side = s;
        }
    return most >= 9 ? side : 0; // a map has at least 3 x 3 cells
}

} // namespace

TEST(SlideCells, NoMapOnAnyLessonSlideHasCellsUnderTheFloor)
{
    auto state = std::make_unique<AppState>();
    load_lesson_library(*state, default_lessons_dir());
    const auto& lessons = state->lesson.library.lessons;
    ASSERT_FALSE(lessons.empty());
    for (const auto& [w, h] : {std::pair<int, int>{1920, 1080}, std::pair<int, int>{1600, 1000}})
    {
        const float floor_px = kMinCellPx * static_cast<float>(h) / 1080.0f;
        int maps = 0, smallest = 1 << 30;
        std::string where;
        for (std::size_t i = 0; i < lessons.size(); ++i)
            for (std::size_t k = 0; k < lessons[i].steps.size(); ++k)
            {
                enter_lesson(*state, static_cast<int>(i), static_cast<int>(k));
                state->update();
                state->finish_recompute();
                sync_probe(state->training); // as the Training panel's frame does: the step's probe parsed
                const Image img = render_lesson_slide(*state, w, h, false);
                const int side = cell_side(img);
                if (side == 0)
                    continue;
                ++maps;
                if (side < smallest)
                {
                    smallest = side;
                    where = lessons[i].id + " step " + std::to_string(k + 1);
                }
                EXPECT_GE(static_cast<float>(side), floor_px)
                    << lessons[i].id << " step " << k + 1 << " at " << w << "x" << h;
            }
        EXPECT_GT(maps, 20);
        std::printf("%dx%d: smallest cells %d px (%s), floor %.1f px\n", w, h, smallest, where.c_str(),
                    static_cast<double>(floor_px));
    }
    leave_lesson(*state);
}

} // namespace attnlab
