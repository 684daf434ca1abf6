// The actions behind the File menu and its shortcuts: default paths, saving the session, running a file
// action.
#include "ui/shell/file_actions.h"

#include "core/io/hf_model.h"
#include "core/io/json_io.h"
#include "ui/model/session_files.h"
#include "ui/model/training/training_controller.h"
#include "ui/picture/export.h"

namespace attnlab
{

void open_file_dialog(AppState& state, FileAction action)
{
    FileDialog& d = state.file_dialog;
    d.open_request = true;
    d.action = action;
    d.error.clear();
    switch (action)
    {
    case FileAction::OpenSession:
    case FileAction::SaveSession:
        d.path = state.session_path.empty() ? "session.json" : state.session_path;
        break;
    case FileAction::ExportTraceJson:
        d.path = "attnlab-trace.json";
        break;
    case FileAction::ExportWindowPng:
        d.path = "attnlab-window.png";
        break;
    case FileAction::OpenModel:
    case FileAction::SaveModel:
        d.path = state.training.model_path.empty()
                     ? std::string(train::task_info(state.training.view.config.task).key) + "-model.json"
                     : state.training.model_path;
        break;
    case FileAction::ExportCurvesCsv:
        d.path = std::string(train::task_info(state.training.view.config.task).key) + "-curves.csv";
        break;
    case FileAction::ExportCurvesPng:
        d.path = std::string(train::task_info(state.training.view.config.task).key) + "-curves.png";
        break;
    case FileAction::TrainTextFile:
        d.path = state.training.edit.task == train::TaskKind::Text &&
                         train::find_builtin_corpus(state.training.edit.corpus) == nullptr
                     ? state.training.edit.corpus
                     : std::string();
        break;
    case FileAction::OpenModelFolder:
        d.path = !state.opened.folder.empty()   ? state.opened.folder
                 : !state.opened.recent.empty() ? state.opened.recent.front()
                                                : std::string();
        break;
    case FileAction::None:
        break;
    }
}

void open_export_dialog(AppState& state, const MatrixRef& ref)
{
    ExportDialog& d = state.export_dialog;
    d.open_request = true;
    d.matrix = ref;
    d.head_chain = false;
    d.path = default_export_path(ref, d.format);
    d.error.clear();
}

void save_session_or_ask(AppState& state)
{
    if (state.session_path.empty())
    {
        open_file_dialog(state, FileAction::SaveSession);
        return;
    }
    const Status s = save_session_as(state, state.session_path);
    if (!s.is_ok())
        state.set_message("Save failed: " + s.message(), true);
}

std::string run_file_action(AppState& state)
{
    const FileDialog& d = state.file_dialog;
    switch (d.action)
    {
    case FileAction::OpenSession:
        // With unsaved changes the file waits for the question (unsaved_popup) and this dialog closes.
        return request_open_session(state, d.path).message();
    case FileAction::SaveSession:
        return save_session_as(state, d.path).message();
    case FileAction::ExportTraceJson:
    {
        if (!state.has_trace())
            return "nothing to export yet";
        Status s;
        if (state.showing_opened())
        {
            // The opened model's pass on the shown text, in the format `attnlab export --model DIR` writes.
            HfRun run;
            s = run_hf_text(*state.opened.model, state.session.text, &run);
            if (s.is_ok())
                s = write_hf_run_json(*state.opened.model, run, d.path);
        }
        else // the session's pass (a trained model's is written by `attnlab export --model FILE`)
            s = write_trace_json(state.engine.trace(), state.engine.weights(), d.path,
                                 state.session.weights_path);
        if (!s.is_ok())
            return s.message();
        state.set_message("Exported the trace to " + d.path, false);
        return std::string();
    }
    case FileAction::ExportWindowPng:
        // The window writes it after the next frame is drawn and reports the result in the status bar.
        state.request_window_png = d.path;
        return std::string();
    case FileAction::OpenModel:
        return request_open_model(state, d.path).message(); // a run in no file is asked about first
    case FileAction::SaveModel:
        return save_model_file(state, d.path).message();
    case FileAction::ExportCurvesCsv:
    {
        const Status s = write_curves_csv(state.training.view, d.path);
        if (s.is_ok())
            state.set_message("Exported the training curves to " + d.path, false);
        return s.message();
    }
    case FileAction::ExportCurvesPng:
    {
        const Status s = export_curves_picture(state.training.view, state.training.edit.steps, d.path,
                                               state.training.fit_curves);
        if (s.is_ok())
            state.set_message("Exported a picture of the training curves to " + d.path, false);
        return s.message();
    }
    case FileAction::OpenModelFolder:
        // Refused at once when it is no folder; otherwise it loads on its thread (the progress popup).
        return open_model_folder(state, d.path).message();
    case FileAction::TrainTextFile:
    {
        // The Text task on the file, with the panel's other fields as they are; a bad file is a message here
        // and the run on screen stays.
        train::RunSpec spec = state.training.edit;
        if (spec.task != train::TaskKind::Text)
            spec = train::RunSpec(train::TaskKind::Text);
        spec.corpus = d.path;
        train::Task task(train::TaskKind::Reverse);
        if (Status s = train::run_task(spec, &task); !s)
            return s.message();
        state.training.edit = spec;
        apply_training_fields(state);
        state.prefs.open[static_cast<std::size_t>(PanelId::Training)] = true;
        if (!state.training.error.empty())
            return state.training.error;
        state.set_message("Training on " + d.path + ": " + task.corpus()->summary() + ". Press Play.", false);
        state.training.run_message = state.message;
        return std::string();
    }
    case FileAction::None:
        break;
    }
    return std::string();
}

} // namespace attnlab
