// A lesson's slide set written to a folder: the job the command line and the window share.
#include "ui/model/lesson_export.h"

#include "ui/model/lesson_export_worker.h"
#include "ui/model/lessons.h"
#include "ui/model/training/training_controller.h"
#include "ui/picture/slides.h"

#include <algorithm>
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
// compared runs first: then the one training now, and its last step), as the command line trains it before
// its first picture; a run the student paused plays on. 0 when the step trains nothing, opens a built-in
// model, or shows another run than its own.
int run_waits_for(AppState& state, int* trained, bool* compared)
{
    const LessonStep* step = current_step(state);
    *trained = 0;
    *compared = false;
    if (step == nullptr || !step->training.on || !step->training.model.empty())
        return 0;
    const LessonTraining& t = step->training;
    TrainingPanelState& ts = state.training;
    TrainingRun& run = state.training_run;
    run.poll(ts.view);
    *trained = ts.view.step;
    if (!ts.lesson_queue.empty())
    {
        *compared = true; // the step's own run is the queue's last
        return std::max(1, ts.view.config.steps);
    }
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

Status make_writable_folder(const std::string& dir, bool fresh)
{
    const fs::path path(dir);
    std::error_code ec;
    if (fresh)
        fs::remove_all(path, ec);
    fs::create_directories(path, ec);
    if (!ec && !fs::is_directory(path, ec))
        ec = std::make_error_code(std::errc::not_a_directory);
    if (!ec)
    {
        const fs::path probe = path / ".attnlab-write-test";
        std::FILE* f = std::fopen(probe.string().c_str(), "wb");
        if (f == nullptr)
            ec = std::error_code(errno, std::generic_category());
        else
            std::fclose(f);
        std::error_code ignored;
        fs::remove(probe, ignored);
    }
    if (!ec)
        return Status::ok();
    if (fresh)
    {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
    return Status::error(ec.message());
}

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
    // The folder must exist (or be made) and take a file before anything is drawn.
    const fs::path temp = fs::path(spec.dir) / (".attnlab-export-" + lesson_id_);
    if (const Status s = make_writable_folder(temp.string(), true); !s.is_ok())
        return Status::error("cannot write to " + spec.dir + ": " + s.message());
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
    waits_for_ = run_waits_for(state, &trained_, &compared_);
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
    const Lesson* lesson = current_lesson(state);
    if (lesson == nullptr)
        return Status::error("no lesson to export");
    LessonExportSnapshot snapshot;
    snapshot.lesson = *lesson;
    // A relative folder is the working folder's: named in full, so the message after says where it is.
    std::error_code ec;
    const std::filesystem::path full = std::filesystem::absolute(d.dir, ec);
    snapshot.spec.dir = d.dir.empty() || ec ? d.dir : full.lexically_normal().string();
    snapshot.spec.format = d.format == ExportFormat::Svg   ? PictureFormat::Svg
                           : d.format == ExportFormat::Pdf ? PictureFormat::Pdf
                                                           : PictureFormat::Png;
    snapshot.spec.width = d.slide_width;
    snapshot.spec.height = d.slide_height;
    snapshot.dark_theme = state.prefs.dark_theme;
    snapshot.stretch_weights = state.prefs.stretch_weights;
    // The folder is checked here, so the dialog says at once when it will not do (the worker checks it again
    // when it makes its hidden folder in it).
    Status s = d.dir.empty() ? Status::error("choose a folder for the slides") : make_writable_folder(d.dir);
    if (!s.is_ok() && !d.dir.empty())
        s = Status::error("cannot write to " + d.dir + ": " + s.message() +
                          ". Choose a folder you can write to, or make this one writable.");
    d.error = s.is_ok() ? std::string() : s.message();
    if (!s.is_ok())
        return s;
    auto job = std::make_shared<LessonExportWorker>();
    job->set_on_progress(d.wake);
    if (d.before_slide)
        job->set_before_slide(d.before_slide);
    job->start(std::move(snapshot));
    d.job = std::move(job);
    d.close_request = true; // the export goes on behind the window: the status bar shows its progress
    return Status::ok();
}

void lesson_export_frame(AppState& state)
{
    LessonExportDialog& d = state.lesson_export;
    if (d.job == nullptr || !d.job->finished())
        return;
    d.job->join();
    const LessonExportProgress p = d.job->progress();
    const LessonExportSpec spec = d.job->spec();
    d.job.reset();
    const std::string n = std::to_string(p.steps_total);
    const std::string slides = p.steps_total == 1 ? "1 slide" : n + " slides";
    switch (p.state)
    {
    case LessonExportState::Done:
        d.error.clear();
        state.set_message((spec.format == PictureFormat::Pdf && !p.written.empty()
                               ? slides + " written to " + p.written.front()
                               : slides + " written to " + spec.dir) +
                              (p.note.empty() ? std::string() : " (" + p.note + ")"),
                          false);
        break;
    case LessonExportState::Failed:
        d.error = "Nothing was exported: " + p.error +
                  ". Check that the folder exists, that you can write to it and that the disk has room, then "
                  "export again.";
        state.set_message("Lesson slides: " + d.error, true);
        d.open_request = true; // the dialog again, saying why, to choose another folder
        break;
    case LessonExportState::Cancelled:
        state.set_message("Lesson slides: export cancelled, nothing written", false);
        break;
    case LessonExportState::Running:
        break;
    }
}

void cancel_lesson_export(AppState& state)
{
    LessonExportDialog& d = state.lesson_export;
    if (d.job == nullptr)
        return;
    d.job->cancel();
}

std::string lesson_export_progress_text(const AppState& state)
{
    const LessonExportDialog& d = state.lesson_export;
    if (d.job == nullptr)
        return std::string();
    const LessonExportProgress p = d.job->progress();
    if (p.cancelling)
        return "Cancelling the slide export…";
    const int shown = std::min(p.steps_total, p.steps_done + 1);
    std::string text = "Exporting slides " + std::to_string(shown) + " / " + std::to_string(p.steps_total);
    if (p.waits_for > 0)
        text += std::string(p.compared ? ": training a run it compares first" : ": training its run") +
                ", step " + std::to_string(p.trained) + " / " + std::to_string(p.waits_for);
    return text + " …";
}

float lesson_export_fraction(const AppState& state)
{
    const LessonExportDialog& d = state.lesson_export;
    if (d.job == nullptr)
        return 0.0f;
    const LessonExportProgress p = d.job->progress();
    const float trained =
        p.waits_for > 0 ? static_cast<float>(p.trained) / static_cast<float>(p.waits_for) : 0.0f;
    return (static_cast<float>(p.steps_done) + 0.5f * trained) /
           static_cast<float>(std::max(1, p.steps_total));
}

} // namespace attnlab
