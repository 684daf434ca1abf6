// The frame's popups and small windows: file dialog, unsaved changes, the question before quitting, heatmap
// export, Keyboard shortcuts, About.
#include "ui/shell/popups.h"

#include "ui/model/lesson_export.h"
#include "ui/model/lessons.h"
#include "ui/model/session_files.h"
#include "ui/picture/export.h"
#include "ui/shell/app_ui.h"
#include "ui/shell/file_actions.h"
#include "ui/shell/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

namespace attnlab
{

namespace
{

// The three answers of a question about work no file holds: save, go on without saving, or cancel (Esc).
enum class Choice
{
    None,
    Save,
    Discard,
    Cancel,
};
Choice save_discard_or_cancel(const char* save, const char* discard)
{
    Choice choice = Choice::None;
    if (ImGui::Button(save))
        choice = Choice::Save;
    ImGui::SameLine();
    if (ImGui::Button(discard))
        choice = Choice::Discard;
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
        choice = Choice::Cancel;
    return choice;
}

void file_popup(AppState& state)
{
    FileDialog& d = state.file_dialog;
    const char* title = "File###file_dialog";
    if (d.open_request)
    {
        ImGui::OpenPopup(title);
        d.open_request = false;
    }
    if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize))
        return;
    const char* what =
        d.action == FileAction::OpenSession       ? "Open session from"
        : d.action == FileAction::SaveSession     ? "Save session to"
        : d.action == FileAction::ExportTraceJson ? "Export the whole trace (JSON) to"
        : d.action == FileAction::OpenModel       ? "Open a trained model (attnlab-model JSON) from"
        : d.action == FileAction::SaveModel       ? "Save the trained model (attnlab-model JSON) to"
        : d.action == FileAction::ExportCurvesCsv ? "Export the training curves (CSV) to"
        : d.action == FileAction::ExportCurvesPng
            ? "Save a picture of the training curves (.png, .svg or .pdf) to"
        : d.action == FileAction::TrainTextFile
            ? "Train on a UTF-8 text file (tens of thousands of characters train best; at most 16 MiB)"
        : d.action == FileAction::OpenModelFolder
            ? "Open a Hugging Face GPT-2 or BERT model folder (config.json, model.safetensors, "
              "tokenizer files)"
            : "Save a picture of the window (PNG) to";
    ImGui::TextUnformatted(what);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30.0f);
    if (ImGui::IsWindowAppearing())
        ImGui::SetKeyboardFocusHere();
    const bool enter = input_text("##path", &d.path, true);
    if (!d.error.empty())
        error_text(d.error);
    if (ImGui::Button("OK") || enter)
    {
        d.error = run_file_action(state);
        if (d.error.empty())
            ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
        ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
}

// Opens a question's modal popup when asked and begins it. False when it is not showing, or when its question
// was answered elsewhere (waiting false: it closes); true: draw its body, then ImGui::EndPopup.
bool begin_question(const char* title, bool& open_request, bool waiting)
{
    if (open_request)
    {
        ImGui::OpenPopup(title);
        open_request = false;
    }
    if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize))
        return false;
    if (waiting)
        return true;
    ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
    return false;
}

// The question before a file replaces a session with unsaved changes: Save (to its file, or a path typed
// here), Discard or Cancel. Esc cancels.
void unsaved_popup(AppState& state)
{
    UnsavedPrompt& u = state.unsaved;
    if (!begin_question("Unsaved changes###unsaved_changes", u.open_request, !u.path.empty()))
        return;
    ImGui::TextUnformatted("The session on screen has changes that are in no file.");
    ImGui::Text("Opening %s replaces it.", u.path.c_str());
    ImGui::Spacing();
    ImGui::TextUnformatted("Save the session to");
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30.0f);
    input_text("##save_path", &u.save_path);
    if (!u.error.empty())
        error_text(u.error);
    const Choice choice = save_discard_or_cancel("Save, then open", "Discard changes and open");
    if (choice == Choice::Save)
    {
        if (answer_unsaved_changes(state, UnsavedAnswer::Save).is_ok() || u.path.empty())
            ImGui::CloseCurrentPopup();
    }
    else if (choice != Choice::None)
    {
        answer_unsaved_changes(state,
                               choice == Choice::Discard ? UnsavedAnswer::Discard : UnsavedAnswer::Cancel);
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

// The question before a trained model replaces a run no file holds: Save the run (to its file, or a path
// typed here), Discard or Cancel. Esc cancels.
void replace_model_popup(AppState& state)
{
    ReplaceModelPrompt& r = state.replace_model;
    if (!begin_question("Unsaved trained model###replace_model", r.open_request, r.waiting()))
        return;
    const float width = ImGui::GetFontSize() * 30.0f;
    text_wrapped("The Training panel's model (" + r.model_name + ") is in no file. Opening " + r.opening +
                     " replaces it: its curves stay as the earlier run, its weights are lost.",
                 width);
    ImGui::Spacing();
    ImGui::TextUnformatted("Save the model to");
    ImGui::SetNextItemWidth(width);
    if (ImGui::IsWindowAppearing())
        ImGui::SetKeyboardFocusHere();
    input_text("##replace_model_save_path", &r.save_path);
    if (!r.error.empty())
        error_text(r.error);
    const Choice choice = save_discard_or_cancel("Save model, then open", "Discard model and open");
    if (choice == Choice::Save)
    {
        if (answer_replace_model(state, UnsavedAnswer::Save).is_ok() || !r.waiting())
            ImGui::CloseCurrentPopup();
    }
    else if (choice != Choice::None)
    {
        answer_replace_model(state,
                             choice == Choice::Discard ? UnsavedAnswer::Discard : UnsavedAnswer::Cancel);
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

// The question before a quit that would lose work no file holds (an autosave failed): the session, the
// Training panel's model or both. Save (each to its file, or a path typed here), Quit without saving, or
// Cancel. Esc cancels.
void quit_popup(AppState& state)
{
    QuitPrompt& q = state.quit;
    if (!begin_question("Quit with unsaved work?###quit_question", q.open_request, q.asking))
        return;
    // A reason names a path, which may be long: wrapped, so the question stays inside a small window.
    const float width = ImGui::GetFontSize() * 30.0f;
    if (q.session)
    {
        ImGui::TextUnformatted(
            "The session on screen has changes that are in no file: quitting now loses them.");
        text_wrapped(q.reason + ".", width);
    }
    if (q.model)
    {
        if (q.session)
            ImGui::Spacing();
        ImGui::Text("The trained model (%s) is in no file: quitting now loses it.", q.model_name.c_str());
        text_wrapped(q.model_reason + ".", width);
    }
    bool focused = false;
    if (q.session)
    {
        ImGui::Spacing();
        ImGui::TextUnformatted("Save the session to");
        ImGui::SetNextItemWidth(width);
        if (ImGui::IsWindowAppearing())
            ImGui::SetKeyboardFocusHere();
        focused = true;
        input_text("##quit_save_path", &q.save_path);
    }
    if (q.model)
    {
        ImGui::Spacing();
        ImGui::TextUnformatted("Save the model to");
        ImGui::SetNextItemWidth(width);
        if (!focused && ImGui::IsWindowAppearing())
            ImGui::SetKeyboardFocusHere();
        input_text("##quit_model_save_path", &q.model_save_path);
    }
    if (!q.error.empty())
        error_text(q.error);
    const char* save_label = q.session && q.model ? "Save both, then quit"
                             : q.model            ? "Save model, then quit"
                                                  : "Save, then quit";
    const Choice choice = save_discard_or_cancel(save_label, "Quit without saving");
    if (choice == Choice::Save)
    {
        if (answer_quit(state, QuitAnswer::Save).is_ok())
            ImGui::CloseCurrentPopup();
    }
    else if (choice != Choice::None)
    {
        answer_quit(state, choice == Choice::Discard ? QuitAnswer::Quit : QuitAnswer::Cancel);
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

void export_popup(AppState& state)
{
    ExportDialog& d = state.export_dialog;
    const char* title =
        d.head_chain ? "Export a head's chain###export_dialog" : "Export heatmap###export_dialog";
    const MatrixView view = resolve_matrix(state, d.matrix);
    if (d.open_request)
    {
        ImGui::OpenPopup(title);
        d.open_request = false;
        if (view.m != nullptr)
            d.scale =
                default_export_scale(static_cast<int>(view.m->rows()), static_cast<int>(view.m->cols()));
    }
    if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize))
        return;
    // The picture's own title, so the dialog names exactly what the file will say.
    if (d.head_chain)
    {
        ImGui::Text("Head %d: X, Q, K, V, scores, scaled, masked, weights, head_out on one slide",
                    d.matrix.head + 1);
        ImGui::TextDisabled("%s", matrix_context(state, d.matrix).c_str());
    }
    else
    {
        ImGui::TextUnformatted(heatmap_picture(state, d.matrix).title.c_str());
        ImGui::TextDisabled("%s   [%s]", view.equation.c_str(), view.shape.c_str());
    }
    // The radio buttons' order; the picture formats share one layout, so they look the same.
    constexpr ExportFormat kFormats[] = {ExportFormat::Png, ExportFormat::Svg, ExportFormat::Pdf,
                                         ExportFormat::Csv};
    int format = 0;
    for (int i = 0; i < 4; ++i)
        format = kFormats[i] == d.format ? i : format;
    if (ImGui::RadioButton("PNG picture (for slides)", &format, 0) |
        ImGui::RadioButton("SVG (vectors)", &format, 1) | ImGui::RadioButton("PDF (vectors)", &format, 2) |
        (!d.head_chain && ImGui::RadioButton("CSV numbers", &format, 3)))
    {
        d.format = kFormats[format];
        d.path = d.head_chain ? head_chain_export_path(d.matrix, d.format)
                              : default_export_path(d.matrix, d.format);
    }
    if (d.head_chain)
    {
        int wide = d.slide_width == 1920 ? 0 : 1;
        if (ImGui::RadioButton("1920x1080 (16:9)", &wide, 0) |
            ImGui::RadioButton("1600x1000 (16:10)", &wide, 1))
        {
            d.slide_width = wide == 0 ? 1920 : 1600;
            d.slide_height = wide == 0 ? 1080 : 1000;
        }
    }
    else if (d.format != ExportFormat::Csv)
    {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12.0f);
        ImGui::SliderInt("pixels per cell", &d.scale, 1, 96);
        if (view.m != nullptr)
            ImGui::TextDisabled("the matrix will be %d×%d pixels, plus title, labels and colour bar",
                                static_cast<int>(view.m->cols()) * d.scale,
                                static_cast<int>(view.m->rows()) * d.scale);
    }
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30.0f);
    const bool enter = input_text("file", &d.path, true);
    if (!d.error.empty())
        error_text(d.error);
    if (ImGui::Button("Export") || enter)
    {
        run_export_dialog(state);
        if (state.message_is_error)
            d.error = state.message;
        else
        {
            d.error.clear();
            ImGui::CloseCurrentPopup();
        }
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
        ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
}

// File > Export lesson slides (Ctrl+Shift+E): the folder, the format and the slide size. Export starts the
// export on its worker and closes the dialog: the window goes on while the slides are written, the status bar
// showing the progress with Cancel. Opened again while the export runs, the dialog shows its progress. A
// folder that will not do is said here and the dialog stays open; the files appear only when every step is
// written.
void lesson_export_popup(AppState& state)
{
    LessonExportDialog& d = state.lesson_export;
    const char* title = "Export lesson slides###lesson_export";
    if (d.open_request)
    {
        ImGui::OpenPopup(title);
        d.open_request = false;
    }
    if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize))
    {
        d.close_request = false;
        return;
    }
    const Lesson* lesson = current_lesson(state);
    const float width = ImGui::GetFontSize() * 30.0f;
    if (d.close_request || (lesson == nullptr && d.job == nullptr))
    {
        d.close_request = false;
        ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
        return;
    }
    if (d.job != nullptr)
    {
        const std::string text = lesson_export_progress_text(state);
        ImGui::TextUnformatted(text.c_str());
        ImGui::ProgressBar(lesson_export_fraction(state), ImVec2(width, 0.0f));
        if (ImGui::Button("Cancel export"))
            cancel_lesson_export(state);
        item_tooltip("Stops the export: no slide of it is left in the folder.");
        ImGui::SameLine();
        if (ImGui::Button("Close") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
            ImGui::CloseCurrentPopup();
        item_tooltip("The export goes on; the status bar shows its progress.");
        ImGui::EndPopup();
        return;
    }
    const int n = static_cast<int>(lesson->steps.size());
    ImGui::TextUnformatted(lesson->title.c_str());
    ImGui::Text("%d steps, a slide each", n);
    ImGui::TextDisabled(
        "each step's maps with its text as the caption, as attnlab lesson %s --export-dir writes",
        lesson->id.c_str());
    ImGui::SetNextItemWidth(width);
    if (ImGui::IsWindowAppearing())
        ImGui::SetKeyboardFocusHere();
    const bool enter = input_text("folder", &d.dir, true);
    constexpr ExportFormat kFormats[] = {ExportFormat::Png, ExportFormat::Svg, ExportFormat::Pdf};
    int format = 0;
    for (int i = 0; i < 3; ++i)
        format = kFormats[i] == d.format ? i : format;
    if (ImGui::RadioButton("PNG (a picture per step)", &format, 0) |
        ImGui::RadioButton("SVG (vectors, a file per step)", &format, 1) |
        ImGui::RadioButton("PDF (one file, a page per step)", &format, 2))
        d.format = kFormats[format];
    int wide = d.slide_width == 1920 ? 0 : 1;
    if (ImGui::RadioButton("1920x1080 (16:9)", &wide, 0) | ImGui::RadioButton("1600x1000 (16:10)", &wide, 1))
    {
        d.slide_width = wide == 0 ? 1920 : 1600;
        d.slide_height = wide == 0 ? 1080 : 1000;
    }
    const std::string ext = d.format == ExportFormat::Svg   ? ".svg"
                            : d.format == ExportFormat::Pdf ? ".pdf"
                                                            : ".png";
    // The files it writes, as the command line names them.
    char last[16];
    std::snprintf(last, sizeof last, "-%02d", n);
    // The folder is named in full (a relative one is the working folder's, which a window opened from a menu
    // never says) on lines of its own, so that its wrapping never splits a file's name.
    std::error_code ec;
    const std::filesystem::path full = std::filesystem::absolute(d.dir, ec);
    const std::string folder = (ec ? std::filesystem::path(d.dir) : full.lexically_normal()).string();
    ImGui::PushTextWrapPos(width);
    ImGui::TextDisabled("in %s", folder.c_str());
    ImGui::PopTextWrapPos();
    const std::string files = d.format == ExportFormat::Pdf
                                  ? lesson->id + ext
                                  : lesson->id + "-01" + ext + " … " + lesson->id + last + ext;
    ImGui::TextDisabled("%s", files.c_str());
    if (std::any_of(lesson->steps.begin(), lesson->steps.end(),
                    [](const LessonStep& step) { return step.training.on && step.training.model.empty(); }))
        ImGui::TextDisabled("Its steps that train a run wait until the run has finished training.");
    if (!d.error.empty())
    {
        ImGui::PushTextWrapPos(width);
        error_text(d.error);
        ImGui::PopTextWrapPos();
    }
    if (ImGui::Button("Export") || enter)
        start_lesson_export(state);
    item_tooltip("Writes the slides in the background (keep working; the status bar shows the progress) to a "
                 "hidden folder inside this one, and moves them into place when all are written: an error or "
                 "Cancel leaves none.");
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
        ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
}

void help_windows(AppState& state)
{
    // A modal sized to the screen: it stays in front until closed (a plain window went behind the panels on
    // a click elsewhere and showed through them), the actions wrap instead of running off a 1280-pixel
    // screen, the list scrolls when it is taller than the screen, and Esc, Close or its × close it.
    const char* help_title = "Keyboard shortcuts###help";
    if (state.show_help && !ImGui::IsPopupOpen(help_title))
        ImGui::OpenPopup(help_title);
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const float fs = ImGui::GetFontSize();
    const float help_w = std::min(display.x * 0.92f, fs * 58.0f);
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.5f), ImGuiCond_Appearing,
                            ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(help_w, 0.0f), ImGuiCond_Always);
    bool help_open = true;
    if (ImGui::BeginPopupModal(help_title, &help_open, ImGuiWindowFlags_NoSavedSettings))
    {
        int n = 0;
        const ShortcutInfo* table = shortcut_table(&n);
        const float list_h = std::min(display.y * 0.88f - ImGui::GetFrameHeightWithSpacing() * 3.0f,
                                      ImGui::GetTextLineHeightWithSpacing() * (static_cast<float>(n) * 1.4f));
        const ImGuiTableFlags flags =
            ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY;
        if (ImGui::BeginTable("##keys", 2, flags, ImVec2(0.0f, list_h)))
        {
            ImGui::TableSetupColumn("keys", ImGuiTableColumnFlags_WidthFixed, fs * 13.0f);
            ImGui::TableSetupColumn("action", ImGuiTableColumnFlags_WidthStretch);
            for (int i = 0; i < n; ++i)
            {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                text_wrapped(table[i].keys);
                ImGui::TableNextColumn();
                text_wrapped(table[i].action);
            }
            ImGui::EndTable();
        }
        if (ImGui::Button("Close") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)) || !help_open)
        {
            state.show_help = false;
            ImGui::CloseCurrentPopup();
        }
        ImGui::EndPopup();
    }
    else
        state.show_help = false; // closed by its ×
    if (state.show_about)
    {
        if (ImGui::Begin("About Attention Lab", &state.show_about, ImGuiWindowFlags_AlwaysAutoResize))
        {
            ImGui::TextUnformatted("Attention Lab: every intermediate of multi-head attention, live.");
            ImGui::TextUnformatted(
                "Notation of “Attention Is All You Need” (Vaswani et al., 2017): row vectors, "
                "Q_h = X W_h^Q, A_h = softmax(Q_h K_hᵀ / √d_k + M).");
            ImGui::TextDisabled("Dear ImGui %s", IMGUI_VERSION);
        }
        ImGui::End();
    }
}

// A model folder loading: its progress and Cancel; then the text's first run through it ("running the
// model"), or, when it failed, the message until OK (the status bar says it too). The frames go on meanwhile:
// the model loads on its own thread and runs on the recompute worker.
void model_load_popup(AppState& state)
{
    OpenedModelState& o = state.opened;
    const char* title = "Opening a model folder###model_load";
    if (o.popup_request)
    {
        ImGui::OpenPopup(title);
        o.popup_request = false;
    }
    if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize))
        return;
    if (o.loader.busy())
    {
        ImGui::Text("Reading %s", o.loader.folder().c_str());
        const float fraction = static_cast<float>(o.loader.progress());
        const std::string percent = std::to_string(static_cast<int>(fraction * 100.0f + 0.5f)) + " %";
        ImGui::ProgressBar(fraction, ImVec2(ImGui::GetFontSize() * 24.0f, 0.0f), percent.c_str());
        if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
            cancel_model_load(state);
        item_tooltip("Stops reading the folder: the panels keep what they show.");
    }
    else if (!o.load_error.empty())
    {
        ImGui::TextUnformatted("The model folder did not open:");
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 34.0f);
        error_text(o.load_error);
        ImGui::PopTextWrapPos();
        if (ImGui::Button("OK") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)) ||
            ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter)))
        {
            o.load_error.clear();
            ImGui::CloseCurrentPopup();
        }
    }
    else if (state.showing_opened() && !state.has_trace() && state.recompute_pending())
    {
        // Read: the text's first run through it (seconds for GPT-2 small) is the last stage, said as such
        // rather than a bar left at 100 %.
        ImGui::Text("Running the model on the text: %s", o.model->label().c_str());
        ImGui::ProgressBar(1.0f, ImVec2(ImGui::GetFontSize() * 24.0f, 0.0f), "running the model…");
    }
    else
        ImGui::CloseCurrentPopup(); // opened and run: the panels show it
    ImGui::EndPopup();
}

} // namespace

void draw_popups(AppState& state)
{
    help_windows(state);
    file_popup(state);
    model_load_popup(state);
    unsaved_popup(state);
    replace_model_popup(state);
    quit_popup(state);
    export_popup(state);
    lesson_export_popup(state);
}

} // namespace attnlab
