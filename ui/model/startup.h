// Start-up without a window: the AppState the app begins on, built from what main parsed (the session, the
// lesson, the training task, the loaded model) and from the config folder (preferences, recent files, the
// autosaved session and model). No ImGui, GLFW or GL: app/window.cpp opens the window around it.
#pragma once

#include "core/io/lesson_file.h"
#include "core/io/model_file.h"
#include "core/session.h"
#include "core/train/tasks.h"
#include "ui/model/session_files.h"
#include "ui/model/window_slot.h"

#include <memory>
#include <optional>
#include <string>

namespace attnlab
{

struct AppState;

// What the command line asked for, parsed and loaded once by main() and handed over as values.
struct StartupOptions
{
    Session session;                           // the built-in default, --session FILE or the session options
    std::string session_path;                  // the file it came from, if any (the title, Save)
    bool session_from_command_line = false;    // true: the autosaved session does not replace it
    LessonLibrary lessons;                     // the built-in lessons, loaded once
    int lesson = -1;                           // --lesson: its index in lessons (-1: none)
    int lesson_step = 0;                       // --step N: 1-based (0: the first step)
    std::optional<train::TaskKind> train_task; // screenshot --train TASK
    int train_steps = 0;                       // --steps: trained on this thread before the first frame
    std::optional<TrainedModel> model;         // --model FILE, loaded
    std::string model_path;                    // that FILE (the Training panel's file, File > Recent)
    bool trained_view = false;                 // --trained-view: the main panels show the trained model
    std::string model_folder;                  // --model DIR: a Hugging Face folder for the main panels
    bool presenter = false;                    // --presenter
    bool whole_batch = false;                  // --whole-batch: the Pipeline's "whole batch" box ticked
    std::string theme;                         // --theme dark|light; "" : the saved preference
    // A picture (screenshot or lesson export): the mouse is ignored and the config folder is neither read
    // nor written, so a picture is the same on every machine.
    bool picture = false;
    // attnlab lesson --export-dir: the slides take the window's saved themes and stretched weight colours.
    bool lesson_export = false;
};

// The files the window goes on writing after start-up, and the lock that makes the autosaves this window's.
struct StartupFiles
{
    WindowSlot slot;              // held while the window runs (ui/model/window_slot.h)
    std::string imgui_ini;        // ImGui's layout file ("" : none)
    Autosave autosave;            // the session's
    ModelAutosave model_autosave; // the Training panel's model
};

// The files of the config folder ("" when there is no config folder: no HOME nor XDG_CONFIG_HOME). The
// autosaves are the first window's; a window started beside it writes its own (window_slot_file).
std::string prefs_path();
std::string autosave_path();
std::string model_autosave_path();
std::string recent_files_path();
std::string recent_models_path();

// The state the app starts on. Outside pictures: the preferences (written at once on the very first start, so
// the tour hint shows once), the recent files, this window's slot claimed (files->slot: the first window owns
// last_session.json; a window started while another runs gets its own autosave and the status bar says
// where), the slot's autosave rotated and restored (unless the command line chose the session; a further
// window without an autosave of its own starts on the first window's, read only), the model trained last time
// (unless a model or task was asked for). A session another window left in its own autosave that is newer
// than this window's is named in the status bar (File > Recent opens it). Then the session's
// weights, the lesson at its step, the training task or the model, the trained view, the model folder
// (--model DIR, else the session's own: loaded on its thread in a window, at once for a picture), presenter
// mode and the theme. A file that cannot be read is a message in the status bar, never a failed start.
std::unique_ptr<AppState> start_app(const StartupOptions& options, float content_scale, StartupFiles* files);

} // namespace attnlab
