// The actions behind the File menu and its shortcuts: the file and export dialogs opened with a default path,
// saving the session, and running the action the file dialog was opened for. They draw nothing.
#pragma once

#include "ui/model/app_state.h"

#include <string>

namespace attnlab
{

// Opens the file dialog (ui/shell/popups.h) for `action` on the next frame, with a default path: the
// session's file, the training task's model or curves file, or a fixed name.
void open_file_dialog(AppState& state, FileAction action);
// Opens the export popup for matrix `ref` on the next frame, with its default path in the chosen format.
void open_export_dialog(AppState& state, const MatrixRef& ref);
// Ctrl+S: saves the session to its file, or opens the file dialog when it has none yet. A failed save is
// reported in the status bar.
void save_session_or_ask(AppState& state);
// Runs state.file_dialog's action on its path; returns the error message ("" on success).
std::string run_file_action(AppState& state);

} // namespace attnlab
