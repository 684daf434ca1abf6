// Lesson export (attnlab lesson ID --export-dir DIR): the shared job (ui/model/lesson_export.h) driven by the
// window's frames, one step after a few of them.
#include "frames.h"

#include "ui/model/lesson_export.h"

#include <iostream>
#include <string>

namespace attnlab
{

int export_lesson(Frames& frames, AppState& state, const std::string& export_dir, int step, int width,
                  int height, PictureFormat format)
{
    LessonExportSpec spec;
    spec.dir = export_dir;
    spec.format = format;
    spec.width = width;
    spec.height = height;
    spec.step = step;
    const auto draw = [&](const std::string& capture_path)
    {
        FrameResult result;
        frames.draw(state, capture_path, capture_path.empty() ? nullptr : &result);
        return result.capture_error.empty() ? Status::ok() : Status::error(result.capture_error);
    };
    return run_lesson_export(state, spec, state.presenter, draw, std::cout, std::cerr);
}

} // namespace attnlab
