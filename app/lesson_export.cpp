// Lesson export (attnlab lesson ID --export-dir DIR): every step (or one) drawn in the window and written to
// a hidden folder in DIR as PNG or SVG files or one PDF, then moved into place, so an error leaves nothing
// half-written.
#include "frames.h"

#include "core/status.h"
#include "ui/model/app_state.h"
#include "ui/model/lessons.h"
#include "ui/picture/export.h"
#include "ui/picture/slides.h"
#include "ui/picture/vector_out.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace attnlab
{

int export_lesson(Frames& frames, AppState& state, const std::string& export_dir, int step, int width,
                  int height, PictureFormat format)
{
    namespace fs = std::filesystem;
    const Lesson* lesson = current_lesson(state);
    if (lesson == nullptr)
    {
        std::fprintf(stderr, "attnlab lesson: no lesson to export\n");
        return 1;
    }
    if (state.presenter && format != PictureFormat::Png)
    {
        std::fprintf(stderr,
                     "attnlab lesson: --presenter captures the window's pixels, so it writes PNG only; drop "
                     "--presenter for %s slides\n",
                     picture_format_name(format));
        return 1;
    }
    const int n = static_cast<int>(lesson->steps.size());
    const int first = step > 0 ? step - 1 : 0;
    const int last = step > 0 ? step - 1 : n - 1;
    const fs::path dir(export_dir);
    const fs::path temp = dir / (".attnlab-export-" + lesson->id);
    std::error_code ec;
    fs::remove_all(temp, ec);
    fs::create_directories(temp, ec);
    if (ec)
    {
        std::fprintf(stderr, "attnlab lesson: cannot write to %s: %s\n", dir.string().c_str(),
                     ec.message().c_str());
        return 1;
    }
    const std::string ext = std::string(".") + picture_format_name(format);
    std::vector<std::string> names;
    std::vector<Image> pages; // the PDF's, written at the end
    for (int k = first; k <= last; ++k)
    {
        go_to_step(state, k);
        char name[64];
        std::snprintf(name, sizeof(name), "-%02d", k + 1);
        if (format != PictureFormat::Pdf)
            names.push_back(lesson->id + name + ext);
        else if (names.empty())
            names.push_back(lesson->id + (first == last ? std::string(name) : std::string()) + ext);
        // New windows and scrolling settle over the first frames (a training step's run and probe are brought
        // up to the step by them too); the fourth is captured in presenter mode, else the step is drawn as a
        // slide (ui/slides.h).
        for (int i = 0; i < 3; ++i)
        {
            state.finish_recompute(); // every picture shows its step's trace, never one still computing
            frames.draw(state, std::string(), nullptr);
        }
        state.finish_recompute();
        FrameResult result;
        const std::string path = (temp / names.back()).string();
        if (state.presenter)
            frames.draw(state, path, &result);
        else
        {
            frames.draw(state, std::string(), nullptr);
            std::string note;
            Image slide = render_lesson_slide(state, width, height, state.prefs.dark_theme, &note);
            Status s;
            if (format == PictureFormat::Pdf)
            {
                slide.pixels = std::vector<std::uint32_t>(); // the pages need only their commands
                pages.push_back(std::move(slide));
                if (k == last)
                {
                    std::vector<const Image*> all;
                    for (const Image& page : pages)
                        all.push_back(&page);
                    s = write_pdf(all, path);
                }
            }
            else
                s = write_picture(slide, path, format);
            if (!s.is_ok())
                result.capture_error = s.message();
            else if (!note.empty() && k == first)
                std::fprintf(stderr, "attnlab lesson: %s\n", note.c_str());
        }
        if (!result.capture_error.empty() || !state.status.is_ok())
        {
            std::fprintf(
                stderr, "attnlab lesson: step %d: %s\n", k + 1,
                (result.capture_error.empty() ? state.status.message() : result.capture_error).c_str());
            fs::remove_all(temp, ec);
            return 1;
        }
    }
    for (const std::string& name : names)
    {
        fs::rename(temp / name, dir / name, ec);
        if (ec)
        {
            std::fprintf(stderr, "attnlab lesson: cannot write %s: %s\n", (dir / name).string().c_str(),
                         ec.message().c_str());
            fs::remove_all(temp, ec);
            return 1;
        }
        std::printf("%s\n", (dir / name).string().c_str());
    }
    fs::remove_all(temp, ec);
    return 0;
}

} // namespace attnlab
