// The desktop window: GLFW + glad + Dear ImGui's GLFW/OpenGL3 backends, and the main loop.
#pragma once

#include "ui/model/startup.h"
#include "ui/picture/vector_out.h"

#include <string>

namespace attnlab
{

struct WindowOptions
{
    // What the app starts on, parsed and loaded once by main(): the session, the lesson, the training task or
    // model, presenter mode and theme (ui/model/startup.h).
    StartupOptions startup;
    int width = 1600, height = 1000;
    // Screenshot mode: render with the mouse ignored, write this PNG and exit (empty: interactive).
    std::string screenshot_path;
    int bench_frames = 0; // > 0: also time this many frames and print median / p95 ms
    // Lesson export (attnlab lesson ID --export-dir DIR): one PNG or SVG per step (only --step when given),
    // DIR/<id>-01.png, ..., or one PDF with a page per step, DIR/<id>.pdf, written all at the end, or none on
    // error. Like a screenshot, the mouse is ignored.
    std::string export_dir;
    PictureFormat export_format = PictureFormat::Png;
};

// Opens the window and runs until it is closed (or the screenshot is written). Returns the process exit code;
// errors (no display, no OpenGL 3.3) are printed to stderr as one clear line.
int run_window(const WindowOptions& options);

} // namespace attnlab
