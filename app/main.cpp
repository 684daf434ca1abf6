// attnlab: opens the window (default), or runs export / bench / screenshot from the command line.
#include "cli/commands.h"
#include "core/io/lesson_file.h"
#include "core/io/model_file.h"
#include "core/train/tasks.h"
#include "window.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace
{

struct WindowArgs
{
    attnlab::SessionOptions session;
    std::string lesson_id;
    int lesson_step = 0;
    bool presenter = false;
    bool whole_batch = false;
    std::string theme; // "" (the saved preference), "dark" or "light"
    std::string screenshot_path;
    std::string export_dir;
    std::string export_format = "png"; // lesson --format: png, svg or pdf
    int width = 1600, height = 1000;
    int bench_frames = 0;
    std::string train_task; // screenshot --train TASK
    int train_steps = 100;
    std::string model_path; // --model FILE
    bool trained_view = false;
};

void add_window_options(CLI::App& app, WindowArgs& args)
{
    attnlab::add_session_options(app, args.session);
    app.add_option("--lesson", args.lesson_id, "Open this lesson (list them with: attnlab lessons)");
    app.add_option("--step", args.lesson_step, "With --lesson: open at this step (1 = the first)")
        ->check(CLI::Range(1, attnlab::kMaxStepsInLesson));
    app.add_flag("--presenter", args.presenter, "Start in presenter mode (F5 switches it)");
    app.add_flag("--whole-batch", args.whole_batch, "The Pipeline shows each stage's B sentences stacked");
    app.add_option("--theme", args.theme, "Colour theme: dark or light (default: the saved preference, dark)")
        ->check(CLI::IsMember({"dark", "light"}));
    app.add_option("--width", args.width, "Window width in pixels")->check(CLI::Range(320, 16384));
    app.add_option("--height", args.height, "Window height in pixels")->check(CLI::Range(240, 16384));
    app.add_option("--model", args.model_path,
                   "Open a trained model (an attnlab-model file, e.g. from attnlab train) in the Training "
                   "panel, or a Hugging Face GPT-2 or BERT folder (config.json, model.safetensors and the "
                   "tokenizer files) in the main panels");
    app.add_flag("--trained-view", args.trained_view,
                 "With --model (or screenshot --train): show the trained model in the main panels");
}

// The window's options from the command line, each parsed or loaded once here and handed to the window as a
// value; false (after one line on stderr) when one is refused.
bool window_options(const WindowArgs& args, attnlab::WindowOptions* options)
{
    const std::string what = args.screenshot_path.empty() ? "" : "screenshot";
    attnlab::StartupOptions& start = options->startup;
    std::string session_path;
    attnlab::Status status = attnlab::build_session(args.session, &start.session, &session_path);
    if (!status)
    {
        attnlab::print_error(std::cerr, what, status.message());
        return false;
    }
    start.session_path = session_path;
    start.session_from_command_line = attnlab::any_session_option_given(args.session);
    start.lesson_step = args.lesson_step;
    start.presenter = args.presenter;
    start.whole_batch = args.whole_batch;
    start.theme = args.theme;
    start.picture = !args.screenshot_path.empty() || !args.export_dir.empty();
    start.lesson_export = !args.export_dir.empty();
    options->export_dir = args.export_dir;
    attnlab::parse_picture_format(args.export_format, &options->export_format); // checked by CLI11
    options->width = args.width;
    options->height = args.height;
    options->screenshot_path = args.screenshot_path;
    options->bench_frames = args.bench_frames;
    if (!args.train_task.empty())
    {
        attnlab::train::TaskKind kind{};
        if (attnlab::Status s = attnlab::train::parse_task(args.train_task, &kind); !s)
        {
            attnlab::print_error(std::cerr, "screenshot", s.message());
            return false;
        }
        start.train_task = kind;
        start.train_steps = args.train_steps;
    }
    std::error_code ec;
    const bool model_folder = !args.model_path.empty() && std::filesystem::is_directory(args.model_path, ec);
    if (model_folder)
    {
        // A model folder: the window loads it on a thread of its own with a progress bar (a picture waits).
        if (args.trained_view)
        {
            attnlab::print_error(std::cerr, what,
                                 "--trained-view needs a trained model file; " + args.model_path +
                                     " is a model folder, which the main panels show anyway");
            return false;
        }
        start.model_folder = args.model_path;
    }
    else if (!args.model_path.empty())
    {
        // Loaded here, so a broken file is one line before any window opens, and the window opens this copy.
        attnlab::TrainedModel model;
        if (attnlab::Status s = attnlab::load_model_file(args.model_path, &model); !s)
        {
            attnlab::print_error(std::cerr, what, s.message());
            return false;
        }
        if (!args.train_task.empty())
        {
            attnlab::print_error(std::cerr, "screenshot", "--model and --train do not go together: pick one");
            return false;
        }
        start.model = std::move(model);
        start.model_path = args.model_path;
    }
    if (args.trained_view && args.model_path.empty() && args.train_task.empty())
    {
        attnlab::print_error(std::cerr, what,
                             "--trained-view needs a trained model: add --model FILE (or --train TASK)");
        return false;
    }
    start.trained_view = args.trained_view;
    return true;
}

// The built-in lessons, loaded once, and --lesson and --step checked against them. Returns 0, or 2 after one
// line on stderr that lists the valid ids (or the step range).
int find_lesson(const WindowArgs& args, const char* what, attnlab::StartupOptions* start)
{
    start->lessons = attnlab::load_lessons(attnlab::default_lessons_dir());
    if (args.lesson_id.empty())
    {
        if (args.lesson_step > 0)
        {
            attnlab::print_error(std::cerr, what, "--step needs --lesson ID");
            return 2;
        }
        return 0;
    }
    const std::vector<attnlab::Lesson>& lessons = start->lessons.lessons;
    const auto it = std::find_if(lessons.begin(), lessons.end(),
                                 [&](const attnlab::Lesson& l) { return l.id == args.lesson_id; });
    if (it == lessons.end())
    {
        std::string ids;
        for (const attnlab::Lesson& l : lessons)
            ids += (ids.empty() ? "" : ", ") + l.id;
        // A file of that id that did not load says why (02_typo.json is lesson "typo").
        std::string refused;
        for (const std::string& error : start->lessons.errors)
            if (error.find("_" + args.lesson_id + ".json") != std::string::npos ||
                error.find("/" + args.lesson_id + ".json") != std::string::npos)
                refused += "; it did not load: " + error;
        attnlab::print_error(std::cerr, what,
                             "unknown lesson \"" + args.lesson_id + "\"" + refused +
                                 "; valid ids: " + (ids.empty() ? std::string("(none found)") : ids));
        return 2;
    }
    const int n = static_cast<int>(it->steps.size());
    if (args.lesson_step > n)
    {
        attnlab::print_error(std::cerr, what,
                             "lesson " + it->id + " has " + std::to_string(n) + " steps; --step must be 1.." +
                                 std::to_string(n));
        return 2;
    }
    if (const auto given = attnlab::given_session_options(args.session); !given.empty())
    {
        // A lesson's steps set their own sentences and settings: an option that would be dropped is refused.
        std::string names;
        // By its long name: get_name() is "" for an option hidden from --help (the lesson command's).
        for (const CLI::Option* o : given)
            names += std::string(names.empty() ? "" : ", ") + "--" + o->get_lnames().front();
        attnlab::print_error(
            std::cerr, what,
            "a lesson sets the text and the model of each of its steps, so " + names +
                " would not be used; drop " + (given.size() == 1 ? "it" : "them") +
                ", or start with your own session and open the lesson from the Lessons menu");
        return 2;
    }
    start->lesson = static_cast<int>(it - lessons.begin());
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"Attention Lab: see multi-head attention, every intermediate, live", "attnlab"};
    WindowArgs window;
    add_window_options(app, window);
    attnlab::HeadlessCommands commands;
    attnlab::add_headless_commands(app, commands);

    WindowArgs shot;
    CLI::App* screenshot = app.add_subcommand("screenshot", "Render the window once and write a PNG");
    add_window_options(*screenshot, shot);
    screenshot->add_option("-o,--output", shot.screenshot_path, "Output PNG file")->required();
    screenshot->add_option("--bench-frames", shot.bench_frames, "Also time this many frames (median, p95)")
        ->check(CLI::Range(0, 100000));
    screenshot->add_option("--train", shot.train_task,
                           "Open the Training panel on this task (list them with: attnlab tasks)");
    screenshot->add_option("--steps", shot.train_steps, "With --train: steps to train before the picture")
        ->check(CLI::Range(0, 1000000));

    WindowArgs lesson;
    // Slides are 16:9 by default, a presentation program's page; --width 1600 --height 1000 gives 16:10.
    lesson.width = 1920;
    lesson.height = 1080;
    CLI::App* lesson_command = app.add_subcommand(
        "lesson", "Render each step of a lesson as a slide and write one PNG or SVG per step, or one PDF");
    lesson_command->add_option("id", lesson.lesson_id, "The lesson (list them with: attnlab lessons)")
        ->required();
    lesson_command
        ->add_option("--export-dir", lesson.export_dir,
                     "Write DIR/<id>-01.png, -02.png, ... (or .svg), or DIR/<id>.pdf with one page per step")
        ->required();
    lesson_command
        ->add_option("--format", lesson.export_format,
                     "png (default), svg (vectors, text as text) or pdf (one file, a page per step)")
        ->check(CLI::IsMember({"png", "svg", "pdf"}));
    lesson_command->add_option("--width", lesson.width, "Picture width in pixels (default 1920)")
        ->check(CLI::Range(320, 16384));
    lesson_command->add_option("--height", lesson.height, "Picture height in pixels (default 1080)")
        ->check(CLI::Range(240, 16384));
    lesson_command->add_option("--step", lesson.lesson_step, "Only this step (1 = the first)")
        ->check(CLI::Range(1, attnlab::kMaxStepsInLesson));
    lesson_command->add_flag(
        "--presenter", lesson.presenter,
        "Capture the window in presenter mode (default: clean slides, the step's maps and "
        "its text as caption)");
    lesson_command
        ->add_option("--theme", lesson.theme, "Slide colours: dark or light (default: the saved preference)")
        ->check(CLI::IsMember({"dark", "light"}));
    // The session options are parsed here only to be refused by name (find_lesson): each step sets its own
    // text and model. Left out of --help, which lists what the command takes.
    attnlab::add_session_options(*lesson_command, lesson.session);
    for (CLI::Option* o : {lesson.session.text_option, lesson.session.session_option,
                           lesson.session.target_option, lesson.session.weights_option})
        o->group("");
    for (const attnlab::SettingOption& setting : lesson.session.settings)
        setting.option->group("");

    int exit_code = 0;
    if (!attnlab::parse_command_line(app, argc, argv, std::cout, std::cerr, &exit_code))
        return exit_code;
    const int headless = attnlab::run_headless_command(commands, std::cout, std::cerr);
    if (headless >= 0)
        return headless;

    const WindowArgs& args = lesson_command->parsed() ? lesson : screenshot->parsed() ? shot : window;
    const char* what = lesson_command->parsed() ? "lesson" : screenshot->parsed() ? "screenshot" : "";
    // Window options before `screenshot` or `lesson` are the window's, which the subcommand does not open:
    // refused, saying where they go, rather than silently rendering something else.
    if (*what != '\0')
        for (const CLI::Option* option : app.get_options())
            if (option->count() > 0 && option->get_name() != "--help" && option->get_name() != "--version")
            {
                attnlab::print_error(std::cerr, what,
                                     option->get_name() + " goes after the subcommand: attnlab " + what +
                                         " " + option->get_name() + " ... (before it, it is the window's)");
                return 2;
            }
    attnlab::WindowOptions options;
    if (const int code = find_lesson(args, what, &options.startup); code != 0)
        return code;
    if (args.presenter && args.export_format != "png")
    {
        attnlab::print_error(
            std::cerr, what,
            "--presenter captures the window's pixels, so it writes PNG only; drop --presenter "
            "for " +
                args.export_format + " slides (clean slides drawn from the same layout)");
        return 2;
    }
    if (!args.export_dir.empty())
    {
        // The folder must exist (or be creatable) and be writable before any window opens.
        std::error_code ec;
        std::filesystem::create_directories(args.export_dir, ec);
        const std::filesystem::path probe = std::filesystem::path(args.export_dir) / ".attnlab-write-test";
        std::FILE* f = ec ? nullptr : std::fopen(probe.string().c_str(), "wb");
        if (f == nullptr)
        {
            attnlab::print_error(std::cerr, what,
                                 "cannot write to " + args.export_dir + ": " +
                                     (ec ? ec.message() : std::string(std::strerror(errno))));
            return 1;
        }
        std::fclose(f);
        std::filesystem::remove(probe, ec);
    }
    if (!window_options(args, &options))
        return 1;
    return attnlab::run_window(options);
}
