// The frame's popups and small windows: the file dialog, the unsaved-changes question, the heatmap export
// dialog, and the Keyboard shortcuts and About windows.
#pragma once

#include "ui/model/app_state.h"

namespace attnlab
{

// Draws the Help windows, then the file, unsaved-changes and export popups, each opened on the frame after
// its request (FileDialog, UnsavedPrompt, ExportDialog ::open_request) and kept open while its last attempt
// failed.
void draw_popups(AppState& state);

} // namespace attnlab
