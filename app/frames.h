// The open window as the frame bench and the lesson export use it: draw a frame (and capture it), wait for
// the GPU, read the framebuffer's size. app/window.cpp implements it over GLFW and OpenGL.
#pragma once

#include "ui/picture/vector_out.h"

#include <chrono>
#include <string>

namespace attnlab
{

struct AppState;

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct FrameResult
{
    std::string capture_error; // non-empty when a requested capture failed
    double ui_ms = 0.0;        // recompute + building the ImGui frame (CPU)
    double gl_ms = 0.0;        // texture uploads happen in ui_ms; this is rendering the draw data + glFinish
    double swap_ms = 0.0;
};

class Frames
{
public:
    virtual ~Frames() = default;
    // Takes the window's events, then draws one frame of state; writes it to capture_path as a PNG when that
    // is not empty (a failure goes to result->capture_error). result (nullptr: not wanted) gets its timings.
    virtual void draw(AppState& state, const std::string& capture_path, FrameResult* result) = 0;
    // Waits until the GPU has drawn everything asked so far (glFinish), so a time includes it.
    virtual void finish() = 0;
    virtual void framebuffer_size(int* width, int* height) const = 0;
};

// attnlab screenshot --bench-frames N (app/frame_bench.cpp): prints the frame times, the edit-to-picture
// latency, the start-up time and, over N more frames with a character typed every few frames in Heads > All
// layers, the line "frame while recomputing: median X ms, max Y ms"; with a training run, the frames while
// it trains and the probe's latency.
void run_frame_bench(Frames& frames, AppState& state, int n, double startup_ms);

// attnlab lesson ID --export-dir DIR [--format png|svg|pdf] (app/lesson_export.cpp, the job of
// ui/model/lesson_export.h that File > Export lesson slides runs too): every step of the current lesson (or
// only `step`, 1-based; 0: all) drawn and written to DIR/<id>-01.png (or .svg), ..., or as the pages of one
// DIR/<id>.pdf (<id>-03.pdf for one step): all of them or, on an error, none (one line on stderr). SVG and
// PDF are clean slides only (presenter mode captures the window's pixels). Returns the exit code.
int export_lesson(Frames& frames, AppState& state, const std::string& dir, int step, int width, int height,
                  PictureFormat format = PictureFormat::Png);

} // namespace attnlab
