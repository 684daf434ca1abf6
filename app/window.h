// The desktop window: GLFW + glad + Dear ImGui's GLFW/OpenGL3 backends, and the main loop.
#pragma once

#include "core/session.h"

#include <string>

namespace attnlab
{

struct WindowOptions
{
    Session session;          // the session to open (built-in default, --session FILE or options)
    std::string session_path; // the file it came from, if any (shown in the title, used by Save)
    bool session_from_command_line = false; // true: do not restore the autosaved session over it
    std::string lesson_id;                  // --lesson ID (empty: none); main() checks that it exists
    int lesson_step = 0;                    // --step N: 1-based step of the lesson to open at (0: the first)
    bool presenter = false;                 // --presenter: start in presenter mode
    std::string theme;                      // --theme dark|light; "" keeps the saved preference
    int width = 1600, height = 1000;
    // Screenshot mode: render with the mouse ignored, write this PNG and exit (empty: interactive).
    std::string screenshot_path;
    int bench_frames = 0; // > 0: also time this many frames and print median / p95 ms
    // screenshot --train TASK --steps N: the Training panel open on TASK's preset, trained for N steps on
    // this thread before the first frame (train_task empty: no training).
    std::string train_task;
    int train_steps = 0;
    // --model FILE: a trained model opened in the Training panel (main() checked that it loads).
    std::string model_path;
    // --trained-view: with --model or --train, the main panels show the trained model (the Training panel
    // closed so they have the room).
    bool trained_view = false;
    // Lesson export (attnlab lesson ID --export-dir DIR): one PNG per step (only --step when given),
    // DIR/<id>-01.png, ... written all at the end, or none on error. Like a screenshot, the mouse is ignored.
    std::string export_dir;
};

// Opens the window and runs until it is closed (or the screenshot is written). Returns the process exit code;
// errors (no display, no OpenGL 3.3) are printed to stderr as one clear line.
int run_window(const WindowOptions& options);

} // namespace attnlab
