// A lesson's slide set written to a folder: the job the command line and the window share.
#include "ui/model/lesson_export.h"

#include "ui/model/lessons.h"
#include "ui/model/training/training_controller.h"
#include "ui/picture/slides.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <utility>

namespace attnlab
{

namespace fs = std::filesystem;

namespace
{

// The training step the current lesson step's picture waits for: its run trained to its last step (the
// compared runs first), as the command line trains it before its first picture; a run the student paused
// plays on. 0 when the step trains nothing, opens a built-in model, or shows another run than its own.
int run_waits_for(AppState& state, int* trained)
{
    const LessonStep* step = current_step(state);
    *trained = 0;
    if (step == nullptr || !step->training.on || !step->training.model.empty())
        return 0;
    const LessonTraining& t = step->training;
    TrainingPanelState& ts = state.training;
    TrainingRun& run = state.training_run;
    run.poll(ts.view);
    *trained = ts.view.step;
    if (!ts.lesson_queue.empty())
        return t.run.steps;
    if (!same_model(ts.view.config, t.run) || ts.view.step >= t.run.steps)
        return 0;
    if (!run.running())
    {
        run.set_target_steps(t.run.steps);
        run.play();
    }
    return t.run.steps;
}

} // namespace

LessonSlideExport::~LessonSlideExport()
{
    cancel();
}

Status LessonSlideExport::begin(AppState& state, const LessonExportSpec& spec, LessonFrameFn capture)
{
    const Lesson* lesson = current_lesson(state);
    if (lesson == nullptr)
        return Status::error("no lesson to export");
    if (capture && spec.format != PictureFormat::Png)
        return Status::error(
            std::string("presenter mode captures the window's pixels, so it writes PNG only; "
                        "clean slides are drawn for ") +
            picture_format_name(spec.format));
    if (spec.dir.empty())
        return Status::error("choose a folder for the slides");
    spec_ = spec;
    capture_ = std::move(capture);
    lesson_id_ = lesson->id;
    const int n = static_cast<int>(lesson->steps.size());
    first_ = spec.step > 0 ? spec.step - 1 : 0;
    last_ = spec.step > 0 ? spec.step - 1 : n - 1;
    next_ = first_;
    started_at_ = state.lesson.step;
    // The folder must exist (or be made) and take a file before anything is drawn.
    const fs::path dir(spec.dir);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!ec && !fs::is_directory(dir, ec))
        ec = std::make_error_code(std::errc::not_a_directory);
    const fs::path temp = dir / (".attnlab-export-" + lesson_id_);
    if (!ec)
    {
        fs::remove_all(temp, ec);
        fs::create_directories(temp, ec);
    }
    if (!ec)
    {
        const fs::path probe = temp / ".write-test";
        std::FILE* f = std::fopen(probe.string().c_str(), "wb");
        if (f == nullptr)
            ec = std::error_code(errno, std::generic_category());
        else
            std::fclose(f);
        std::error_code ignored;
        fs::remove(probe, ignored);
    }
    if (ec)
    {
        std::error_code ignored;
        fs::remove_all(temp, ignored);
        return Status::error("cannot write to " + spec.dir + ": " + ec.message());
    }
    temp_ = temp.string();
    return Status::ok();
}

LessonExportTick LessonSlideExport::fail(std::string message)
{
    error_ = std::move(message);
    cancel();
    return LessonExportTick::Failed;
}

void LessonSlideExport::cancel()
{
    if (temp_.empty())
        return;
    std::error_code ec;
    fs::remove_all(temp_, ec);
    temp_.clear();
}

LessonExportTick LessonSlideExport::tick(AppState& state)
{
    if (temp_.empty())
        return error_.empty() ? LessonExportTick::Done : LessonExportTick::Failed;
    const Lesson* lesson = current_lesson(state);
    if (lesson == nullptr || lesson->id != lesson_id_)
        return fail("the lesson was left before its slides were written");
    if (!entered_)
    {
        go_to_step(state, next_);
        entered_ = true;
        frames_ = 0;
        waits_for_ = 0;
        return LessonExportTick::Waiting;
    }
    waits_for_ = run_waits_for(state, &trained_);
    if (waits_for_ > 0 || frames_ < kLessonExportSettleFrames || state.recompute_pending())
        return LessonExportTick::Waiting;
    return write_step(state);
}

LessonExportTick LessonSlideExport::write_step(AppState& state)
{
    const int k = next_;
    const std::string ext = std::string(".") + picture_format_name(spec_.format);
    char number[16];
    std::snprintf(number, sizeof(number), "-%02d", k + 1);
    if (spec_.format != PictureFormat::Pdf)
        names_.push_back(lesson_id_ + number + ext);
    else if (names_.empty())
        names_.push_back(lesson_id_ + (first_ == last_ ? std::string(number) : std::string()) + ext);
    const std::string path = (fs::path(temp_) / names_.back()).string();
    state.finish_recompute(); // every picture shows its step's trace, never one still computing
    Status s;
    if (capture_)
        s = capture_(path);
    else
    {
        std::string note;
        Image slide = render_lesson_slide(state, spec_.width, spec_.height, state.prefs.dark_theme, &note);
        if (k == first_)
            note_ = note;
        if (spec_.format == PictureFormat::Pdf)
        {
            slide.pixels = std::vector<std::uint32_t>(); // the pages need only their commands
            pages_.push_back(std::move(slide));
            if (k == last_)
            {
                std::vector<const Image*> all;
                for (const Image& page : pages_)
                    all.push_back(&page);
                s = write_pdf(all, path);
                pages_.clear();
            }
        }
        else
            s = write_picture(slide, path, spec_.format);
    }
    if (s.is_ok() && !state.status.is_ok())
        s = state.status;
    if (!s.is_ok())
        return fail("step " + std::to_string(k + 1) + ": " + s.message());
    ++next_;
    entered_ = false;
    return k == last_ ? finish() : LessonExportTick::Wrote;
}

LessonExportTick LessonSlideExport::finish()
{
    const fs::path dir(spec_.dir);
    std::vector<fs::path> moved;
    for (const std::string& name : names_)
    {
        std::error_code ec;
        fs::rename(fs::path(temp_) / name, dir / name, ec);
        if (ec)
        {
            // The files already moved would make a set that looks whole: they go too.
            for (const fs::path& p : moved)
                fs::remove(p, ec);
            return fail("cannot write " + (dir / name).string() + ": " + ec.message());
        }
        moved.push_back(dir / name);
        written_.push_back((dir / name).string());
    }
    cancel();
    return LessonExportTick::Done;
}

int run_lesson_export(AppState& state, const LessonExportSpec& spec, bool presenter,
                      const LessonFrameFn& draw_frame, std::ostream& out, std::ostream& err)
{
    LessonSlideExport job;
    LessonFrameFn capture;
    if (presenter)
        capture = [&](const std::string& path) { return draw_frame(path); };
    if (const Status s = job.begin(state, spec, capture); !s.is_ok())
    {
        err << "attnlab lesson: " << s.message() << "\n";
        return 1;
    }
    bool noted = false;
    for (;;)
    {
        state.finish_recompute(); // every frame shows its step's trace, never one still computing
        draw_frame(std::string());
        job.frame_drawn();
        const LessonExportTick t = job.tick(state);
        if (!noted && !job.note().empty())
        {
            err << "attnlab lesson: " << job.note() << "\n";
            noted = true;
        }
        if (t == LessonExportTick::Failed)
        {
            err << "attnlab lesson: " << job.error() << "\n";
            return 1;
        }
        if (t == LessonExportTick::Done)
            break;
    }
    for (const std::string& path : job.written())
        out << path << "\n";
    return 0;
}

// [SECTION] The window's dialog

std::string default_lesson_export_dir(const AppState& state)
{
    const Lesson* lesson = current_lesson(state);
    return (lesson != nullptr ? lesson->id : std::string("lesson")) + "-slides";
}

void open_lesson_export_dialog(AppState& state)
{
    if (current_lesson(state) == nullptr)
        return;
    LessonExportDialog& d = state.lesson_export;
    d.open_request = true;
    d.close_request = false;
    if (d.job == nullptr)
    {
        d.error.clear();
        if (d.dir.empty())
            d.dir = default_lesson_export_dir(state);
    }
}

Status start_lesson_export(AppState& state)
{
    LessonExportDialog& d = state.lesson_export;
    if (d.job != nullptr)
        return Status::error("an export is under way");
    LessonExportSpec spec;
    spec.dir = d.dir;
    spec.format = d.format == ExportFormat::Svg   ? PictureFormat::Svg
                  : d.format == ExportFormat::Pdf ? PictureFormat::Pdf
                                                  : PictureFormat::Png;
    spec.width = d.slide_width;
    spec.height = d.slide_height;
    auto job = std::make_shared<LessonSlideExport>();
    const Status s = job->begin(state, spec);
    d.error = s.is_ok() ? std::string() : s.message();
    if (s.is_ok())
        d.job = std::move(job);
    return s;
}

namespace
{

// The job is over: back to the step the student was on, the job gone.
void end_lesson_export(AppState& state)
{
    LessonExportDialog& d = state.lesson_export;
    const int back = d.job->started_at();
    d.job.reset();
    if (current_lesson(state) != nullptr && state.lesson.step != back)
        go_to_step(state, back);
}

} // namespace

void lesson_export_frame(AppState& state)
{
    LessonExportDialog& d = state.lesson_export;
    if (d.job == nullptr)
        return;
    LessonSlideExport& job = *d.job;
    job.frame_drawn();
    const LessonExportTick t = job.tick(state);
    if (t == LessonExportTick::Done)
    {
        const std::string n = std::to_string(job.steps_total());
        state.set_message(job.format() == PictureFormat::Pdf
                              ? "Exported the lesson's " + n + " slides as " + job.written().front()
                              : "Exported " + n + " slides to " + job.dir(),
                          false);
        d.error.clear();
        d.close_request = true;
        end_lesson_export(state);
    }
    else if (t == LessonExportTick::Failed)
    {
        d.error = "Nothing was exported: " + job.error();
        state.set_message("Lesson slides: " + d.error, true);
        end_lesson_export(state);
    }
}

void cancel_lesson_export(AppState& state)
{
    LessonExportDialog& d = state.lesson_export;
    if (d.job == nullptr)
        return;
    d.job->cancel();
    state.set_message("Lesson slides: export cancelled, nothing written", false);
    end_lesson_export(state);
}

} // namespace attnlab
