// attnlab: opens the window (default), or runs export / bench / screenshot from the command line.
#include "cli/commands.h"
#include "window.h"

#include <CLI/CLI.hpp>

#include <iostream>

namespace
{

struct WindowArgs
{
    attnlab::SessionOptions session;
    std::string lesson_id;
    std::string screenshot_path;
    int width = 1600, height = 1000;
    int bench_frames = 0;
};

void add_window_options(CLI::App& app, WindowArgs& args)
{
    attnlab::add_session_options(app, args.session);
    app.add_option("--lesson", args.lesson_id, "Open this lesson");
    app.add_option("--width", args.width, "Window width in pixels")->check(CLI::Range(320, 16384));
    app.add_option("--height", args.height, "Window height in pixels")->check(CLI::Range(240, 16384));
}

// The window's options from the command line; false (after one line on stderr) when the session is invalid.
bool window_options(const WindowArgs& args, attnlab::WindowOptions* options)
{
    std::string session_path;
    attnlab::Status status = attnlab::build_session(args.session, &options->session, &session_path);
    if (!status)
    {
        attnlab::print_error(std::cerr, args.screenshot_path.empty() ? "" : "screenshot", status.message());
        return false;
    }
    options->session_path = session_path;
    options->session_from_command_line = attnlab::any_session_option_given(args.session);
    options->lesson_id = args.lesson_id;
    options->width = args.width;
    options->height = args.height;
    options->screenshot_path = args.screenshot_path;
    options->bench_frames = args.bench_frames;
    return true;
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

    int exit_code = 0;
    if (!attnlab::parse_command_line(app, argc, argv, std::cout, std::cerr, &exit_code))
        return exit_code;
    const int headless = attnlab::run_headless_command(commands, std::cout, std::cerr);
    if (headless >= 0)
        return headless;

    attnlab::WindowOptions options;
    if (!window_options(screenshot->parsed() ? shot : window, &options))
        return 1;
    return attnlab::run_window(options);
}
