// The desktop window: GLFW + glad + Dear ImGui's GLFW/OpenGL3 backends, the frame, the main loop and the
// screenshot. Start-up is ui/model/startup.h; the frame bench and the lesson export are app/frame_bench.cpp
// and app/lesson_export.cpp.
#include "window.h"

#include "frames.h"

#include "core/io/atomic_file.h"
#include "ui/gl/framebuffer_png.h"
#include "ui/gl/gl_textures.h"
#include "ui/model/app_state.h"
#include "ui/model/config_files.h"
#include "ui/model/heap_policy.h"
#include "ui/model/key_taps.h"
#include "ui/model/lessons.h"
#include "ui/model/prefs.h"
#include "ui/model/session_files.h"
#include "ui/model/startup.h"
#include "ui/model/text_wrap.h"
#include "ui/shell/app_ui.h"
#include "ui/shell/fonts.h"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

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
static_assert(keys::Home == GLFW_KEY_HOME && keys::End == GLFW_KEY_END);
static_assert(keys::B == GLFW_KEY_B && keys::Period == GLFW_KEY_PERIOD);

namespace
{

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
void (*g_backend_set_clipboard)(void* user_data, const char* text) = nullptr;
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
        int width = options.width, height = options.height;
        if (!options.startup.picture)
            fit_work_area(&width, &height);
        window_ = glfwCreateWindow(width, height, "Attention Lab", nullptr, nullptr);
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
            // Text copied from a soft-wrapped field (ui/model/text_wrap.h) leaves its soft breaks behind.
            ImGuiIO& io = ImGui::GetIO();
            g_backend_set_clipboard = io.SetClipboardTextFn;
            io.SetClipboardTextFn = [](void* user_data, const char* text)
            {
                const std::string plain = unwrap_soft(text != nullptr ? text : "");
                if (g_backend_set_clipboard != nullptr)
                    g_backend_set_clipboard(user_data, plain.c_str());
            };
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
    float font_px = 0.0f;    // the size the font atlas was built at (unscaled)
    float caption_px = 0.0f; // the same for presenter mode's caption font (0: none)

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

    bool fullscreen() const { return glfwGetWindowMonitor(window_) != nullptr; }

    // Presenter mode fills the screen: F5 goes full screen (unless it is already), and leaving presenter mode
    // gives back the window it had, unless F11 was pressed meanwhile (then the user's choice stands).
    void follow_presenter(AppState& state)
    {
        if (state.request_fullscreen_toggle)
            presenter_fullscreen_ = false; // F11: the user's own choice from now on
        if (state.presenter == presenter_seen_)
            return;
        presenter_seen_ = state.presenter;
        if (state.presenter && !fullscreen())
        {
            toggle_fullscreen();
            presenter_fullscreen_ = fullscreen();
        }
        else if (!state.presenter && presenter_fullscreen_)
        {
            if (fullscreen())
                toggle_fullscreen();
            presenter_fullscreen_ = false;
        }
    }

    // In presenter mode a pointer that rests for kPointerRestMs hides, and with it every hover and tooltip,
    // so nothing covers the data on the projector; any move or click brings it back. Call after the platform
    // backend's NewFrame, before ImGui::NewFrame.
    void rest_pointer(const AppState& state)
    {
        double x = 0.0, y = 0.0;
        glfwGetCursorPos(window_, &x, &y);
        bool pressed = false;
        for (int b = GLFW_MOUSE_BUTTON_1; b <= GLFW_MOUSE_BUTTON_LAST; ++b)
            pressed = pressed || glfwGetMouseButton(window_, b) == GLFW_PRESS;
        const auto now = Clock::now();
        if (pressed || x != pointer_x_ || y != pointer_y_ || !state.presenter)
        {
            pointer_x_ = x;
            pointer_y_ = y;
            pointer_moved_ = now;
        }
        const bool rest =
            state.presenter &&
            std::chrono::duration<double, std::milli>(now - pointer_moved_).count() > kPointerRestMs;
        if (rest != pointer_hidden_)
        {
            glfwSetInputMode(window_, GLFW_CURSOR, rest ? GLFW_CURSOR_HIDDEN : GLFW_CURSOR_NORMAL);
            pointer_hidden_ = rest;
            // The backend sets the pointer's shape, and with it GLFW_CURSOR_NORMAL, in every NewFrame: while
            // the pointer rests it must leave it alone, or the pointer shows again from the next frame on.
            ImGuiIO& io = ImGui::GetIO();
            if (rest)
                io.ConfigFlags |= ImGuiConfigFlags_NoMouseCursorChange;
            else
                io.ConfigFlags &= ~ImGuiConfigFlags_NoMouseCursorChange;
        }
        if (rest)
            ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    }

private:
    static constexpr double kPointerRestMs = 2000.0;

    // A window no larger than the primary monitor's work area (a 1280x720 projector gets a window it can
    // show whole, title bar included); the asked size where there is no monitor to ask.
    static void fit_work_area(int* width, int* height)
    {
        GLFWmonitor* monitor = glfwGetPrimaryMonitor();
        if (monitor == nullptr)
            return;
        int x = 0, y = 0, w = 0, h = 0;
        glfwGetMonitorWorkarea(monitor, &x, &y, &w, &h);
        if (w <= 0 || h <= 0)
            return;
        // Room for the window manager's frame and title bar.
        *width = std::clamp(*width, 320, std::max(320, w - 16));
        *height = std::clamp(*height, 240, std::max(240, h - 48));
    }

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
    bool presenter_seen_ = false;       // presenter mode as the last frame saw it
    bool presenter_fullscreen_ = false; // full screen because presenter mode asked for it
    double pointer_x_ = 0.0, pointer_y_ = 0.0;
    Clock::time_point pointer_moved_ = Clock::now();
    bool pointer_hidden_ = false;
};

void rebuild_fonts(AppState& state, Window& window)
{
    std::string message;
    window.font_px = ui_font_size(state, window.logical_height());
    window.caption_px = ui_caption_font_size(state, window.logical_height());
    load_fonts(window.font_px * window.content_scale(), &message, state.glyphs.extra,
               window.caption_px * window.content_scale());
    state.glyphs.missing = characters_without_glyph(state.glyphs.extra);
    state.font_message = message;
}

// [SECTION] One frame: recompute if edited, draw, render; optionally capture before the swap.

void render_frame(Window& window, AppState& state, const std::string& capture_path, FrameResult* result)
{
    // Presenter mode's font follows the window's height, so a resize may need a new atlas too.
    if (state.request_font_rebuild || ui_font_size(state, window.logical_height()) != window.font_px ||
        ui_caption_font_size(state, window.logical_height()) != window.caption_px)
    {
        rebuild_fonts(state, window);
        ImGui_ImplOpenGL3_DestroyFontsTexture();
        ImGui_ImplOpenGL3_CreateFontsTexture();
        state.request_font_rebuild = false;
    }
    if (!state.mouse_ignored) // a picture keeps the size it was asked for
        window.follow_presenter(state);
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
    if (!state.mouse_ignored)
        window.rest_pointer(state);
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

// [SECTION] Frames for the bench and the lesson export (app/frames.h)

class WindowFrames : public Frames
{
public:
    explicit WindowFrames(Window& window) : window_(window) {}
    void draw(AppState& state, const std::string& capture_path, FrameResult* result) override
    {
        glfwPollEvents();
        render_frame(window_, state, capture_path, result);
    }
    void finish() override { glFinish(); }
    void framebuffer_size(int* width, int* height) const override
    {
        glfwGetFramebufferSize(window_.get(), width, height);
    }

private:
    Window& window_;
};

// [SECTION] Screenshot: a few frames to settle, the bench when asked, then the picture.

int run_screenshot(Window& window, AppState& state, const WindowOptions& options, Clock::time_point t_start)
{
    WindowFrames frames(window);
    // A new window is laid out over its first frames; render a few before measuring or capturing, all of them
    // with the session's trace (the picture never shows a run still computing).
    state.finish_recompute();
    for (int i = 0; i < 3; ++i)
        frames.draw(state, std::string(), nullptr);
    frames.finish();
    if (options.bench_frames > 0)
        run_frame_bench(frames, state, options.bench_frames, ms_since(t_start));
    state.finish_recompute();
    for (int i = 0; i < 2; ++i)
        frames.draw(state, std::string(), nullptr);
    if (!state.status.is_ok())
    {
        // A text the model cannot read (longer than its context, say) is found only once the model runs: the
        // picture would show "No result yet", so it is not written, as for any other bad input.
        std::fprintf(stderr, "attnlab screenshot: the session does not run, so no picture was written: %s\n",
                     state.status.message().c_str());
        return 1;
    }
    FrameResult result;
    frames.draw(state, options.screenshot_path, &result);
    int exit_code = 0;
    // The folder --model names or the session refers to: a picture without it is not the picture asked for.
    const std::string& folder = !options.startup.model_folder.empty() ? options.startup.model_folder
                                                                      : options.startup.session.model_folder;
    if (!folder.empty() && !state.opened.model)
    {
        // The loader's reason, or the status bar's message, which names the folder already.
        if (!state.opened.load_error.empty())
            std::fprintf(stderr, "attnlab screenshot: the model folder %s did not open: %s\n", folder.c_str(),
                         state.opened.load_error.c_str());
        else
            std::fprintf(stderr, "attnlab screenshot: %s\n", state.message.c_str());
        exit_code = 1;
    }
    // Likewise the trained model the session names (--model FILE, given too, replaces it).
    const std::string& session_model = options.startup.session.model_path;
    if (!options.startup.model && !options.startup.train_task && !session_model.empty() &&
        state.training.model_path != session_model)
    {
        std::fprintf(stderr, "attnlab screenshot: %s\n", state.message.c_str());
        exit_code = 1;
    }
    if (!result.capture_error.empty())
    {
        std::fprintf(stderr, "attnlab screenshot: %s\n", result.capture_error.c_str());
        exit_code = 1;
    }
    else
        std::printf("%s\n", options.screenshot_path.c_str());
    // What the pictured Training panel shows, for scripts and tests: the run's held-out figures.
    const TrainingSnapshot& v = state.training.view;
    if (state.training_run.configured() && !v.evals.empty())
        std::printf("training: %s at step %d, held-out loss %.4f, accuracy %.4f\n",
                    train::task_info(v.config.task).key, v.step, static_cast<double>(v.evals.back().loss),
                    static_cast<double>(v.evals.back().accuracy));
    return exit_code;
}

// [SECTION] The main loop: frames until the window closes, saving preferences and autosaves as they change.

void run_loop(Window& window, AppState& state, StartupFiles& files)
{
    auto last = Clock::now();
    const auto t0 = Clock::now();
    ViewPrefs saved_prefs = state.prefs;
    for (;;)
    {
        // Ctrl+Q, File > Quit or the window's close button: the autosaves are written first, and a quit that
        // would lose work no file holds (the session or the trained model: an autosave failed) asks instead
        // (ui/model/session_files.h).
        if (glfwWindowShouldClose(window.get()) || state.request_quit)
        {
            glfwSetWindowShouldClose(window.get(), GLFW_FALSE);
            state.request_quit = false;
            if (quit_now_or_ask(state, files.autosave, files.model_autosave, ms_since(t0) / 1000.0))
                break;
            note_input(); // draw the question at once
        }
        const auto wait_start = Clock::now();
        // Work still pending (an edit to compute or to autosave, a lesson's scroll settling) keeps the full
        // rate; a run going on on the worker wakes the loop when it finishes. Maps left to re-make on the
        // next frames keep it too, and so does a model folder loading (its progress bar moves). A lesson's
        // slides being exported on their worker wake the loop as each one is written.
        const bool pending = (state.recompute_pending() && !state.recompute.running()) ||
                             files.autosave.pending || state.lesson.scroll_request > 0 ||
                             !state.request_window_png.empty() || state.training_run.running() ||
                             state.maps_pending || state.opened.loader.busy();
        if (!pending && ms_since(g_last_input) > kIdleAfterMs)
            glfwWaitEventsTimeout(kIdleWaitS);
        else
            glfwPollEvents();
        const double waited_ms = ms_since(wait_start);
        // An autosave that waited for its interval is written before this frame's recompute, which can take
        // long for a large session.
        autosave_tick(state, files.autosave, ms_since(t0) / 1000.0, false);
        render_frame(window, state, std::string(), nullptr);
        // Preferences are saved as soon as they change, so a killed app keeps them too (panels a lesson
        // opened for its steps are not the user's choice and are left out).
        ViewPrefs persistent = state.prefs;
        for (std::size_t i = 0; i < persistent.open.size(); ++i)
            persistent.open[i] = persistent.open[i] && !state.lesson.opened_panels[i];
        if (persistent != saved_prefs && !prefs_path().empty())
        {
            save_prefs(prefs_path(), persistent);
            saved_prefs = persistent;
        }
        // The user's session is written within Autosave::min_interval_s (0.25 s) of each change (and the
        // frame being drawn then), and at exit.
        autosave_tick(state, files.autosave, ms_since(t0) / 1000.0, false);
        model_autosave_tick(state, files.model_autosave, false);
        if (ImGui::GetIO().WantSaveIniSettings && !files.imgui_ini.empty())
        {
            write_file_atomically(files.imgui_ini, ImGui::SaveIniSettingsToMemory(), OutputKind::OwnFile);
            ImGui::GetIO().WantSaveIniSettings = false;
        }
        state.frame_ms = static_cast<float>(ms_since(last) - waited_ms); // the work, not the idle wait
        last = Clock::now();
    }
    if (!prefs_path().empty())
        save_prefs(prefs_path(), saved_prefs);
    autosave_tick(state, files.autosave, ms_since(t0) / 1000.0, true);
    model_autosave_tick(state, files.model_autosave, true);
    if (!files.imgui_ini.empty())
        write_file_atomically(files.imgui_ini, ImGui::SaveIniSettingsToMemory(), OutputKind::OwnFile);
}

} // namespace

// [SECTION] run_window

int run_window(const WindowOptions& options)
{
    const auto t_start = Clock::now();
    // Before any framebuffer exists: buffers sized to the window go back to the system when it shrinks.
    map_large_blocks_apart();
    const bool picture = options.startup.picture;
    // ImGui's layout (imgui.ini) is read and written here, never by ImGui itself (io.IniFilename stays null),
    // so the file gets the checks and the atomic, link-replacing write of the app's other files.
    StartupFiles files;
    Window window;
    if (const std::string error = window.open(options, true); !error.empty())
    {
        std::fprintf(stderr, "attnlab: %s\n", error.c_str());
        return 1;
    }
    std::unique_ptr<AppState> state = start_app(options.startup, window.content_scale(), &files);
    // A frame waits a little for a run it starts; a longer one finishes on the worker, which wakes the event
    // loop when it is done (the state, and its worker, go before the window does).
    state->recompute_wait_ms = kRecomputeFrameWaitMs;
    state->recompute.set_on_finished([] { glfwPostEmptyEvent(); });
    state->lesson_export.wake = [] { glfwPostEmptyEvent(); };
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    if (!files.imgui_ini.empty())
    {
        std::string ini; // loaded even when empty: ImGui then never opens the file itself
        if (Status s =
                read_config_file(files.imgui_ini, &ini, "window layout file", "the default layout is used");
            !s)
            state->set_message(s.message(), true);
        ImGui::LoadIniSettingsFromMemory(ini.c_str(), ini.size());
    }
    if (picture)
        io.ConfigFlags |= ImGuiConfigFlags_NoMouse;

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
    glfwSwapInterval(picture ? 0 : 1);

    int exit_code = 0;
    if (!options.export_dir.empty())
    {
        WindowFrames frames(window);
        exit_code = export_lesson(frames, *state, options.export_dir, options.startup.lesson_step,
                                  options.width, options.height, options.export_format);
    }
    else if (!options.screenshot_path.empty())
        exit_code = run_screenshot(window, *state, options, t_start);
    else
        run_loop(window, *state, files);
    state->heatmaps.clear();
    state->heatmaps.set_provider(nullptr);
    return exit_code;
}

} // namespace attnlab
