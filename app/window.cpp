// The desktop window: GLFW + glad + Dear ImGui's GLFW/OpenGL3 backends, the main loop, screenshot and bench.
#include "window.h"

#include "cli/session_options.h"
#include "core/io/atomic_file.h"
#include "core/io/lesson_file.h"
#include "core/io/session_file.h"
#include "ui/gl/framebuffer_png.h"
#include "ui/gl/gl_textures.h"
#include "ui/model/app_state.h"
#include "ui/model/config_files.h"
#include "ui/model/key_taps.h"
#include "ui/model/lessons.h"
#include "ui/model/prefs.h"
#include "ui/model/session_files.h"
#include "ui/model/training/training_controller.h"
#include "ui/panels/panels.h"
#include "ui/picture/export.h"
#include "ui/picture/slides.h"
#include "ui/shell/app_ui.h"
#include "ui/shell/fonts.h"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace attnlab
{

static_assert(keys::O == GLFW_KEY_O && keys::S == GLFW_KEY_S && keys::E == GLFW_KEY_E &&
              keys::Q == GLFW_KEY_Q);
static_assert(keys::LeftBracket == GLFW_KEY_LEFT_BRACKET && keys::RightBracket == GLFW_KEY_RIGHT_BRACKET);
static_assert(keys::Equal == GLFW_KEY_EQUAL && keys::Minus == GLFW_KEY_MINUS && keys::F11 == GLFW_KEY_F11);
static_assert(keys::Digit1 == GLFW_KEY_1);
static_assert(keys::F5 == GLFW_KEY_F5 && keys::Space == GLFW_KEY_SPACE && keys::Right == GLFW_KEY_RIGHT &&
              keys::Left == GLFW_KEY_LEFT);
static_assert(keys::PageUp == GLFW_KEY_PAGE_UP && keys::PageDown == GLFW_KEY_PAGE_DOWN);

namespace
{

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// [SECTION] GLFW errors: remembered, so a failure prints one line with the reason.

std::string g_glfw_error; // written by GLFW's C callback, which cannot carry a context pointer

void on_glfw_error(int code, const char* description)
{
    g_glfw_error = "GLFW error " + std::to_string(code) + ": " + (description ? description : "");
}

// [SECTION] Quick taps and fast typing (ui/key_taps.h): our key and character callbacks sit in front of the
// ImGui backend's and keep events in order until a frame has seen them. GLFW's callbacks are plain C
// functions, hence globals.

KeyTaps g_taps;
GLFWkeyfun g_backend_key_callback = nullptr;
GLFWcharfun g_backend_char_callback = nullptr;
static_assert(KeyTaps::Release == GLFW_RELEASE && KeyTaps::Press == GLFW_PRESS &&
                  KeyTaps::Repeat == GLFW_REPEAT,
              "KeyTaps takes GLFW's actions as they are");

// [SECTION] Idle: after a while without input the loop waits for events instead of drawing flat out, so an
// open window costs next to no CPU (a laptop on battery in a lecture). Any input wakes it at once.

Clock::time_point g_last_input = Clock::now();
// Full frame rate this long after the last input (tooltips, scrolling), then at least two frames a second.
constexpr double kIdleAfterMs = 2000.0;
constexpr double kIdleWaitS = 0.5;

void note_input()
{
    g_last_input = Clock::now();
}

void on_key(GLFWwindow* window, int key, int scancode, int action, int mods)
{
    note_input();
    if (g_taps.key(key, scancode, action, mods) && g_backend_key_callback != nullptr)
        g_backend_key_callback(window, key, scancode, action, mods);
}

void on_char(GLFWwindow* window, unsigned int codepoint)
{
    note_input();
    if (g_taps.character(codepoint) && g_backend_char_callback != nullptr)
        g_backend_char_callback(window, codepoint);
}

// Between frames only (see KeyTaps::take_ready).
void pass_held_events(GLFWwindow* window)
{
    for (const KeyTaps::Event& e : g_taps.take_ready())
    {
        if (e.is_char && g_backend_char_callback != nullptr)
            g_backend_char_callback(window, e.codepoint);
        else if (!e.is_char && g_backend_key_callback != nullptr)
            g_backend_key_callback(window, e.key, e.scancode, e.action, e.mods);
    }
    if (g_taps.pending() > 0)
        note_input(); // keep drawing frames until every kept event has gone through
}

// Median and 95th percentile of a list of durations.
void percentiles(std::vector<double> v, double* median, double* p95)
{
    std::sort(v.begin(), v.end());
    if (v.empty())
    {
        *median = *p95 = 0.0;
        return;
    }
    *median = v[v.size() / 2];
    *p95 = v[std::min(v.size() - 1, static_cast<std::size_t>(0.95 * static_cast<double>(v.size())))];
}

// [SECTION] The window and its ImGui context

class Window
{
public:
    ~Window()
    {
        if (imgui_gl_)
            ImGui_ImplOpenGL3_Shutdown();
        if (imgui_glfw_)
            ImGui_ImplGlfw_Shutdown();
        if (ImGui::GetCurrentContext() != nullptr)
            ImGui::DestroyContext();
        if (window_ != nullptr)
            glfwDestroyWindow(window_);
        if (glfw_)
            glfwTerminate();
    }

    // Returns "" or the one-line reason the window could not open.
    std::string open(const WindowOptions& options, bool visible)
    {
        glfwSetErrorCallback(on_glfw_error);
        if (!glfwInit())
            return "cannot open a window: " +
                   (g_glfw_error.empty() ? std::string("glfwInit failed") : g_glfw_error) + no_display_hint();
        glfw_ = true;
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
        glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
        glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
        glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
        glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
        window_ = glfwCreateWindow(options.width, options.height, "Attention Lab", nullptr, nullptr);
        if (window_ == nullptr)
            return "cannot open an OpenGL 3.3 window: " + g_glfw_error;
        glfwMakeContextCurrent(window_);
        if (gladLoadGL(glfwGetProcAddress) == 0)
            return "cannot load OpenGL 3.3 functions (glad)";
        float xs = 1.0f, ys = 1.0f;
        glfwGetWindowContentScale(window_, &xs, &ys);
        content_scale_ = std::clamp(std::max(xs, ys), 1.0f, 4.0f);

        IMGUI_CHECKVERSION();
        ImGui::CreateContext();
        return std::string();
    }

    bool init_backends()
    {
        // Every kind of input marks the window busy. Set before the ImGui backend, which chains to them.
        glfwSetCursorPosCallback(window_, [](GLFWwindow*, double, double) { note_input(); });
        glfwSetWindowSizeCallback(window_, [](GLFWwindow*, int, int) { note_input(); });
        glfwSetWindowRefreshCallback(window_, [](GLFWwindow*) { note_input(); });
        glfwSetWindowFocusCallback(window_, [](GLFWwindow*, int) { note_input(); });
        glfwSetCursorEnterCallback(window_, [](GLFWwindow*, int) { note_input(); });
        glfwSetMouseButtonCallback(window_, [](GLFWwindow*, int, int, int) { note_input(); });
        glfwSetScrollCallback(window_, [](GLFWwindow*, double, double) { note_input(); });
        glfwSetCharCallback(window_, [](GLFWwindow*, unsigned int) { note_input(); });
        imgui_glfw_ = ImGui_ImplGlfw_InitForOpenGL(window_, true);
        if (imgui_glfw_)
        {
            g_backend_key_callback = glfwSetKeyCallback(window_, on_key);
            g_backend_char_callback = glfwSetCharCallback(window_, on_char);
        }
        imgui_gl_ = ImGui_ImplOpenGL3_Init("#version 330 core");
        return imgui_glfw_ && imgui_gl_;
    }

    GLFWwindow* get() const { return window_; }
    float content_scale() const { return content_scale_; }
    // The window's height in unscaled pixels (what the presenter's font size follows).
    float logical_height() const
    {
        int w = 0, h = 0;
        glfwGetWindowSize(window_, &w, &h);
        return static_cast<float>(h) / content_scale_;
    }
    float font_px = 0.0f; // the size the font atlas was built at (unscaled)

    void toggle_fullscreen()
    {
        GLFWmonitor* monitor = glfwGetWindowMonitor(window_);
        if (monitor != nullptr)
        {
            glfwSetWindowMonitor(window_, nullptr, saved_x_, saved_y_, saved_w_, saved_h_, 0);
            return;
        }
        monitor = glfwGetPrimaryMonitor();
        if (monitor == nullptr)
            return;
        glfwGetWindowPos(window_, &saved_x_, &saved_y_);
        glfwGetWindowSize(window_, &saved_w_, &saved_h_);
        const GLFWvidmode* mode = glfwGetVideoMode(monitor);
        glfwSetWindowMonitor(window_, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    }

private:
    static std::string no_display_hint()
    {
        const char* display = std::getenv("DISPLAY");
        const char* wayland = std::getenv("WAYLAND_DISPLAY");
        if ((display == nullptr || display[0] == '\0') && (wayland == nullptr || wayland[0] == '\0'))
            return " (no display: DISPLAY is not set; run it under xvfb-run, or use attnlab-headless)";
        return std::string();
    }

    GLFWwindow* window_ = nullptr;
    bool glfw_ = false;
    bool imgui_glfw_ = false;
    bool imgui_gl_ = false;
    float content_scale_ = 1.0f;
    int saved_x_ = 0, saved_y_ = 0, saved_w_ = 1600, saved_h_ = 1000;
};

void rebuild_fonts(AppState& state, Window& window)
{
    std::string message;
    window.font_px = ui_font_size(state, window.logical_height());
    load_fonts(window.font_px * window.content_scale(), &message);
    state.font_message = message;
}

// [SECTION] One frame: recompute if edited, draw, render; optionally capture before the swap.

struct FrameResult
{
    std::string capture_error; // non-empty when a requested capture failed
    double ui_ms = 0.0;        // recompute + building the ImGui frame (CPU)
    double gl_ms = 0.0;        // texture uploads happen in ui_ms; this is rendering the draw data + glFinish
    double swap_ms = 0.0;
};

void render_frame(Window& window, AppState& state, const std::string& capture_path, FrameResult* result)
{
    // Presenter mode's font follows the window's height, so a resize may need a new atlas too.
    if (state.request_font_rebuild || ui_font_size(state, window.logical_height()) != window.font_px)
    {
        rebuild_fonts(state, window);
        ImGui_ImplOpenGL3_DestroyFontsTexture();
        ImGui_ImplOpenGL3_CreateFontsTexture();
        state.request_font_rebuild = false;
    }
    if (state.request_fullscreen_toggle)
    {
        window.toggle_fullscreen();
        state.request_fullscreen_toggle = false;
    }
    const auto t0 = Clock::now();
    state.update();
    // File > Export window as PNG: a frame without the dialog, drawn with the mouse off (ui/app_ui.h).
    const bool capture_window = capture_path.empty() && begin_window_capture(state);

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    state.begin_frame();
    draw_app(state);
    ImGui::Render();
    // This frame has seen the taps down; the next one sees them up. Only between frames: ImGui reads the
    // modifier keys once in NewFrame and asserts at EndFrame that they did not change in between, so a
    // Shift or Ctrl release passed on mid-frame (fast typing, a macro tool) would abort the app.
    pass_held_events(window.get());
    const auto t1 = Clock::now();

    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window.get(), &fb_w, &fb_h);
    glViewport(0, 0, fb_w, fb_h);
    const ImVec4 bg =
        state.prefs.dark_theme ? ImVec4(0.06f, 0.06f, 0.07f, 1.0f) : ImVec4(0.85f, 0.85f, 0.86f, 1.0f);
    glClearColor(bg.x, bg.y, bg.z, bg.w);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    state.heatmaps.end_frame();
    if (result != nullptr)
    {
        glFinish();
        result->ui_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
        result->gl_ms = ms_since(t1);
    }

    const std::string path = !capture_path.empty() ? capture_path
                             : capture_window      ? state.request_window_png
                                                   : std::string();
    if (!path.empty())
    {
        const Status s = write_framebuffer_png(fb_w, fb_h, path);
        if (capture_window)
            end_window_capture(state, s);
        else if (result != nullptr && !s.is_ok())
            result->capture_error = s.message();
    }
    const auto t2 = Clock::now();
    glfwSwapBuffers(window.get());
    if (result != nullptr)
        result->swap_ms = ms_since(t2);
}

// [SECTION] Bench: frame times, edit latency, start-up

// screenshot --train TASK --bench-frames N: the frames while the worker trains (the window's other core),
// and the probe's edit-to-picture latency (a token changed: parse, forward and backward pass, upload, draw).
void bench_training(Window& window, AppState& state, int frames)
{
    TrainingPanelState& ts = state.training;
    const int start = ts.view.step;
    state.training_run.set_target_steps(1000000);
    state.training_run.play();
    std::vector<double> frame_ms;
    const auto t_start = Clock::now();
    for (int i = 0; i < frames; ++i)
    {
        const auto t0 = Clock::now();
        glfwPollEvents();
        render_frame(window, state, std::string(), nullptr);
        glFinish();
        frame_ms.push_back(ms_since(t0));
    }
    const double seconds = ms_since(t_start) / 1000.0;
    state.training_run.pause();
    state.training_run.poll(ts.view);
    const int steps = ts.view.step - start;
    std::vector<double> probe_ms;
    const std::string probe = ts.probe_text;
    const std::size_t first_space = probe.find(' ');
    for (int i = 0; i < 9 && first_space != std::string::npos; ++i)
    {
        // The first token replaced by the i-th vocabulary entry: a different probe each time.
        const std::vector<std::string>& vocabulary = ts.view.vocabulary;
        ts.probe_text =
            vocabulary[static_cast<std::size_t>(i) % vocabulary.size()] + probe.substr(first_space);
        ts.probe_dirty = true;
        const auto t0 = Clock::now();
        glfwPollEvents();
        render_frame(window, state, std::string(), nullptr);
        glFinish();
        probe_ms.push_back(ms_since(t0));
    }
    ts.probe_text = probe;
    ts.probe_dirty = true;
    double median = 0, p95 = 0, probe_median = 0, probe_p95 = 0;
    percentiles(frame_ms, &median, &p95);
    percentiles(probe_ms, &probe_median, &probe_p95);
    std::printf("frame while training %s: median %.2f ms, p95 %.2f ms over %d frames; %d steps in %.2f s "
                "(%.0f steps/s) on the worker\n",
                train::task_info(ts.view.config.task).key, median, p95, frames, steps, seconds,
                seconds > 0 ? steps / seconds : 0.0);
    std::printf("probe edit to picture (a token changed): median %.2f ms, p95 %.2f ms\n", probe_median,
                probe_p95);
}

void run_bench(Window& window, AppState& state, int frames, double startup_ms)
{
    std::vector<double> frame_ms, ui_ms, gl_ms, swap_ms;
    frame_ms.reserve(static_cast<std::size_t>(frames));
    for (int i = 0; i < frames; ++i)
    {
        const auto t0 = Clock::now();
        glfwPollEvents();
        FrameResult r;
        render_frame(window, state, std::string(), &r);
        glFinish();
        frame_ms.push_back(ms_since(t0));
        ui_ms.push_back(r.ui_ms);
        gl_ms.push_back(r.gl_ms);
        swap_ms.push_back(r.swap_ms);
        state.frame_ms = static_cast<float>(frame_ms.back());
    }
    // Edit latency: from the edit to the end of the frame that shows it (recompute + upload + draw). Two
    // kinds: a word of the first sentence changed (what typing does) and a new seed (new weights: the worst
    // case).
    std::vector<double> edit_ms, recompute_ms, seed_ms;
    auto timed_edit = [&](std::vector<double>& out)
    {
        state.edit();
        const auto t0 = Clock::now();
        glfwPollEvents();
        render_frame(window, state, std::string(), nullptr);
        glFinish();
        out.push_back(ms_since(t0));
    };
    const std::string text = state.session.text;
    const std::size_t word_end = std::min(text.find_first_of(" \n"), text.size());
    for (int i = 0; i < 9; ++i)
    {
        state.session.text = text.substr(0, word_end) + "x" + std::to_string(i) + text.substr(word_end);
        timed_edit(edit_ms);
        recompute_ms.push_back(state.recompute_ms);
    }
    state.session.text = text;
    const std::uint64_t seed = state.session.config.seed;
    for (int i = 0; i < 7; ++i)
    {
        state.session.config.seed = seed + 1 + static_cast<std::uint64_t>(i);
        timed_edit(seed_ms);
    }
    state.session.config.seed = seed;
    state.edit();
    double seed_median = 0, seed_p95 = 0;
    percentiles(seed_ms, &seed_median, &seed_p95);
    double median = 0, p95 = 0, edit_median = 0, edit_p95 = 0, rec_median = 0, rec_p95 = 0;
    percentiles(frame_ms, &median, &p95);
    percentiles(edit_ms, &edit_median, &edit_p95);
    percentiles(recompute_ms, &rec_median, &rec_p95);
    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window.get(), &fb_w, &fb_h);
    const Trace& t = state.trace();
    std::printf("bench: %dx%d, B=%d T=%d d_model=%d h=%d layers=%d\n", fb_w, fb_h, t.batch_size(), t.T(),
                t.config.d_model, state.heads(), static_cast<int>(t.layers.size()));
    std::printf("frame: median %.2f ms, p95 %.2f ms over %d frames\n", median, p95, frames);
    double ui_med = 0, gl_med = 0, swap_med = 0, unused = 0;
    percentiles(ui_ms, &ui_med, &unused);
    percentiles(gl_ms, &gl_med, &unused);
    percentiles(swap_ms, &swap_med, &unused);
    std::printf("  of which (medians): ui %.2f ms, render %.2f ms, swap %.2f ms\n", ui_med, gl_med, swap_med);
    int commands = 0;
    for (int i = 0; i < ImGui::GetDrawData()->CmdListsCount; ++i)
        commands += ImGui::GetDrawData()->CmdLists[i]->CmdBuffer.Size;
    std::printf("  last frame: %d vertices, %d indices, %d draw commands, %zu heatmap textures\n",
                ImGui::GetIO().MetricsRenderVertices, ImGui::GetIO().MetricsRenderIndices, commands,
                state.heatmaps.size());
    std::printf("edit to picture (a word changed): median %.2f ms, p95 %.2f ms (recompute median %.2f ms)\n",
                edit_median, edit_p95, rec_median);
    std::printf("edit to picture (new seed, new weights): median %.2f ms, p95 %.2f ms\n", seed_median,
                seed_p95);
    std::printf("start-up to first frame: %.1f ms\n", startup_ms);
    if (state.training_run.configured())
        bench_training(window, state, frames);
    std::fflush(stdout);
}

std::string prefs_path()
{
    return config_dir().empty() ? std::string() : config_dir() + "/prefs.ini";
}
std::string autosave_path()
{
    return config_dir().empty() ? std::string() : config_dir() + "/last_session.json";
}
std::string model_autosave_path()
{
    return config_dir().empty() ? std::string() : config_dir() + "/last_model.json";
}
std::string recent_files_path()
{
    return config_dir().empty() ? std::string() : config_dir() + "/recent_sessions.txt";
}

// [SECTION] Lesson export: every step (or one) rendered and written to a hidden folder in dir, then moved
// into place, so an error leaves nothing half-written.

int export_lesson(Window& window, AppState& state, const WindowOptions& options)
{
    namespace fs = std::filesystem;
    const Lesson* lesson = current_lesson(state);
    if (lesson == nullptr)
    {
        std::fprintf(stderr, "attnlab lesson: no lesson to export\n");
        return 1;
    }
    const int n = static_cast<int>(lesson->steps.size());
    const int first = options.lesson_step > 0 ? options.lesson_step - 1 : 0;
    const int last = options.lesson_step > 0 ? options.lesson_step - 1 : n - 1;
    const fs::path dir(options.export_dir);
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
    std::vector<std::string> names;
    for (int k = first; k <= last; ++k)
    {
        go_to_step(state, k);
        char name[64];
        std::snprintf(name, sizeof(name), "-%02d.png", k + 1);
        names.push_back(lesson->id + name);
        // New windows and scrolling settle over the first frames (a training step's run and probe are brought
        // up to the step by them too); the fourth is captured in presenter mode, else the step is drawn as a
        // slide (ui/slides.h).
        for (int i = 0; i < 3; ++i)
        {
            glfwPollEvents();
            render_frame(window, state, std::string(), nullptr);
        }
        FrameResult result;
        const std::string path = (temp / names.back()).string();
        if (state.presenter)
            render_frame(window, state, path, &result);
        else
        {
            render_frame(window, state, std::string(), nullptr);
            std::string note;
            const Image slide =
                render_lesson_slide(state, options.width, options.height, state.prefs.dark_theme, &note);
            if (const Status s = write_png(slide, path); !s.is_ok())
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

} // namespace

// [SECTION] run_window

int run_window(const WindowOptions& options)
{
    const auto t_start = Clock::now();
    const bool screenshot = !options.screenshot_path.empty() || !options.export_dir.empty();
    // ImGui's layout (imgui.ini): read and written here, never by ImGui (io.IniFilename stays null), so the
    // file gets the checks and the atomic, link-replacing write of the app's other files.
    std::string ini_path;
    Window window;
    if (const std::string error = window.open(options, true); !error.empty())
    {
        std::fprintf(stderr, "attnlab: %s\n", error.c_str());
        return 1;
    }

    // State, preferences and the session (the autosaved one unless the command line chose one).
    auto state = std::make_unique<AppState>();
    state->content_scale = window.content_scale();
    state->session = options.session;
    state->saved_session = options.session; // what the run begins with is not an unsaved change
    state->session_path = options.session_path;
    Autosave autosave;
    ModelAutosave model_autosave;
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    if (screenshot)
    {
        io.ConfigFlags |= ImGuiConfigFlags_NoMouse;
        state->mouse_ignored = true;
    }
    else if (!config_dir().empty())
    {
        std::error_code ec;
        std::filesystem::create_directories(config_dir(), ec);
        // No preferences yet: the very first start, which points to the tour.
        state->show_tour_hint = !std::filesystem::exists(prefs_path(), ec);
        if (Status s = load_prefs(prefs_path(), state->prefs); !s)
            state->set_message(s.message(), true);
        if (state->show_tour_hint) // written now, so even a run that is killed shows the hint only once
            save_prefs(prefs_path(), state->prefs);
        ini_path = config_dir() + "/imgui.ini";
        std::string ini; // loaded even when empty: ImGui then never opens the file itself
        if (Status s = read_config_file(ini_path, &ini, "window layout file", "the default layout is used");
            !s)
            state->set_message(s.message(), true);
        ImGui::LoadIniSettingsFromMemory(ini.c_str(), ini.size());
        state->recent_files_path = recent_files_path();
        load_recent_files_into(*state);
        if (!state->session_path.empty())
        {
            push_recent_file(state->recent_files, state->session_path);
            save_recent_files(state->recent_files_path, state->recent_files);
        }
        autosave.path = autosave_path();
        state->autosave_path = autosave.path;
        // A copy of the last run's autosave first: this run may start on another session and autosave it.
        if (Status s = rotate_autosaves(autosave.path); !s.is_ok())
            state->set_message(s.message(), true);
        if (!options.session_from_command_line)
            if (Status s = restore_autosave(*state, autosave); !s.is_ok())
                state->set_message(s.message() + " (the built-in session is shown)", true);
        model_autosave.path = model_autosave_path();
        // The model trained last time comes back in the Training panel (unless a model or task was asked
        // for).
        const bool show = state->prefs.open[static_cast<std::size_t>(PanelId::Training)];
        if (options.model_path.empty() && options.train_task.empty())
            if (Status s = restore_model_autosave(*state, model_autosave, show); !s.is_ok())
                state->set_message(s.message(), true);
    }
    {
        ModelWeights weights;
        bool loaded = false;
        const Status s = load_session_weights(state->session, &weights, &loaded);
        if (!s.is_ok())
            state->set_message(s.message(), true);
        else if (loaded)
            state->engine.set_imported_weights(std::move(weights));
    }

    // Lessons: the built-in ones, and the one asked for on the command line (with the user's session kept
    // aside, so leaving the lesson gives it back).
    load_lesson_library(*state, default_lessons_dir());
    if (!options.lesson_id.empty())
    {
        const auto& lessons = state->lesson.library.lessons;
        for (std::size_t i = 0; i < lessons.size(); ++i)
            if (lessons[i].id == options.lesson_id)
                enter_lesson(*state, static_cast<int>(i), std::max(0, options.lesson_step - 1));
    }
    if (!options.train_task.empty())
    {
        train::TaskKind kind{};
        if (train::parse_task(options.train_task, &kind).is_ok())
            open_training(*state, kind, options.train_steps);
    }
    if (!options.model_path.empty())
        if (const Status s = open_model_file(*state, options.model_path); !s)
            state->set_message(s.message(), true);
    if (options.trained_view && state->training_run.configured())
    {
        set_trained_view(*state, true);
        state->prefs.open[static_cast<std::size_t>(PanelId::Training)] = false;
    }
    state->presenter = options.presenter;
    if (!options.theme.empty())
    {
        state->prefs.dark_theme = options.theme == "dark";
        state->prefs.presenter_light = options.theme == "light"; // presenter mode's theme follows it
    }
    else if (!options.export_dir.empty() && !prefs_path().empty())
    {
        // Lesson slides follow the themes chosen in the window (View > Dark theme, View > Light presenter
        // theme), unless --theme says.
        ViewPrefs saved;
        load_prefs(prefs_path(), saved);
        state->prefs.dark_theme = saved.dark_theme;
        state->prefs.presenter_light = saved.presenter_light;
    }

    rebuild_fonts(*state, window);
    if (!state->font_message.empty())
        std::fprintf(stderr, "attnlab: %s\n", state->font_message.c_str());
    if (!window.init_backends())
    {
        std::fprintf(stderr, "attnlab: cannot start the ImGui OpenGL 3 backend (is OpenGL 3.3 available?)\n");
        return 1;
    }
    GlTextureProvider textures;
    state->heatmaps.set_provider(&textures);
    glfwSwapInterval(screenshot ? 0 : 1);

    int exit_code = 0;
    if (!options.export_dir.empty())
        exit_code = export_lesson(window, *state, options);
    else if (screenshot)
    {
        // A new window is laid out over its first frames; render a few before measuring or capturing.
        for (int i = 0; i < 3; ++i)
        {
            glfwPollEvents();
            render_frame(window, *state, std::string(), nullptr);
        }
        glFinish();
        const double startup_ms = ms_since(t_start);
        if (options.bench_frames > 0)
            run_bench(window, *state, options.bench_frames, startup_ms);
        for (int i = 0; i < 2; ++i)
        {
            glfwPollEvents();
            render_frame(window, *state, std::string(), nullptr);
        }
        FrameResult result;
        render_frame(window, *state, options.screenshot_path, &result);
        if (!result.capture_error.empty())
        {
            std::fprintf(stderr, "attnlab screenshot: %s\n", result.capture_error.c_str());
            exit_code = 1;
        }
        else
            std::printf("%s\n", options.screenshot_path.c_str());
        // What the pictured Training panel shows, for scripts and tests: the run's held-out figures.
        const TrainingSnapshot& v = state->training.view;
        if (state->training_run.configured() && !v.evals.empty())
            std::printf("training: %s at step %d, held-out loss %.4f, accuracy %.4f\n",
                        train::task_info(v.config.task).key, v.step, static_cast<double>(v.evals.back().loss),
                        static_cast<double>(v.evals.back().accuracy));
        if (!state->status.is_ok())
            std::fprintf(stderr, "attnlab screenshot: the session is invalid: %s\n",
                         state->status.message().c_str());
    }
    else
    {
        auto last = Clock::now();
        const auto t0 = Clock::now();
        ViewPrefs saved_prefs = state->prefs;
        while (!glfwWindowShouldClose(window.get()) && !state->request_quit)
        {
            const auto wait_start = Clock::now();
            // Work still pending (an edit to compute, a lesson's scroll settling) keeps the full rate.
            const bool pending = state->session_version != state->computed_version ||
                                 state->lesson.scroll_request > 0 || !state->request_window_png.empty() ||
                                 state->training_run.running();
            if (!pending && ms_since(g_last_input) > kIdleAfterMs)
                glfwWaitEventsTimeout(kIdleWaitS);
            else
                glfwPollEvents();
            const double waited_ms = ms_since(wait_start);
            render_frame(window, *state, std::string(), nullptr);
            // Preferences are saved as soon as they change, so a killed app keeps them too (panels a lesson
            // opened for its steps are not the user's choice and are left out).
            ViewPrefs persistent = state->prefs;
            for (std::size_t i = 0; i < persistent.open.size(); ++i)
                persistent.open[i] = persistent.open[i] && !state->lesson.opened_panels[i];
            if (persistent != saved_prefs && !prefs_path().empty())
            {
                save_prefs(prefs_path(), persistent);
                saved_prefs = persistent;
            }
            // The user's session is written at most once a second while it changes, and at exit.
            autosave_tick(*state, autosave, ms_since(t0) / 1000.0, false);
            model_autosave_tick(*state, model_autosave, false);
            if (io.WantSaveIniSettings && !ini_path.empty())
                write_file_atomically(ini_path, ImGui::SaveIniSettingsToMemory(), OutputKind::OwnFile);
            state->frame_ms = static_cast<float>(ms_since(last) - waited_ms); // the work, not the idle wait
            last = Clock::now();
        }
        if (!prefs_path().empty())
            save_prefs(prefs_path(), saved_prefs);
        autosave_tick(*state, autosave, ms_since(t0) / 1000.0, true);
        model_autosave_tick(*state, model_autosave, true);
        if (!ini_path.empty())
            write_file_atomically(ini_path, ImGui::SaveIniSettingsToMemory(), OutputKind::OwnFile);
    }
    state->heatmaps.clear();
    state->heatmaps.set_provider(nullptr);
    return exit_code;
}

} // namespace attnlab
