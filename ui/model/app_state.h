// AppState: the one struct every panel reads and edits (session, engine, selection, view prefs, panels).
// No ImGui types here, so tests and the window build it alike.
#pragma once

#include "core/comparisons.h"
#include "core/engine.h"
#include "core/io/lesson_file.h"
#include "core/session.h"
#include "core/trace.h"
#include "ui/model/glyphs.h"
#include "ui/model/opened_model.h"
#include "ui/model/panel_table.h"
#include "ui/model/recompute_worker.h"
#include "ui/model/text_wrap.h"
#include "ui/model/training/text_readouts.h"
#include "ui/model/training/training_probe.h"
#include "ui/model/training/training_run.h"
#include "ui/picture/heatmap_cache.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace attnlab
{

// [SECTION] Which matrix a heatmap shows

enum class MatrixSource
{
    Layer,      // a stage of encoder layer `layer`
    Cross,      // a stage of the cross-attention block (Stage::X means the target's X_q)
    Comparison, // one of the comparison matrices
    Weight,     // a weight matrix of encoder layer `layer` (the model's, not an intermediate)
};

enum class ComparisonMatrix
{
    Q_packed,       // X W^Q, h column blocks
    Q_two_step,     // (X W^Q) W_h^Q
    Q_collapsed,    // X (W^Q W_h^Q)
    Q_difference,   // (X W^Q) W_h^Q − X (W^Q W_h^Q)
    W_collapsed,    // W^Q W_h^Q
    single_weights, // one T x T map from the packed matrices
    single_out,     // single-head output
    Count
};

// The weight matrices a heatmap can show (MatrixSource::Weight), in the paper's orientation (input x output).
enum class WeightMatrix
{
    W_Q,        // [h] (d_model, d_k)  Q_h = X W_h^Q
    W_K,        // [h] (d_model, d_k)  K_h = X W_h^K
    W_V,        // [h] (d_model, d_v)  V_h = X W_h^V
    W_O,        // (h·d_v, d_model)    MultiHead = Concat(head_1 … head_h) W^O
    W_1,        // (d_model, d_ff)     the FFN's first matrix
    W_2,        // (d_ff, d_model)     the FFN's second matrix
    W_Q_packed, // (d_model, h·d_k)    [W_1^Q | … | W_h^Q], as libraries store it (AppState::packed_W_Q)
    Count
};

// Whether one matrix per head (W_h^Q, W_h^K, W_h^V).
bool weight_per_head(WeightMatrix w);

struct MatrixRef
{
    MatrixSource source = MatrixSource::Layer;
    Stage stage = Stage::weights;
    int layer = 0;
    int b = 0;
    int head = 0;
    ComparisonMatrix comparison = ComparisonMatrix::Q_packed;
    WeightMatrix weight = WeightMatrix::W_Q; // MatrixSource::Weight: which one (of `layer`, `head`)
    // A layer's weights with the first key's column hidden and each row renormalised over the others
    // (train::hide_first_key): the Heads panel's attention-sink switch. Only Stage::weights of a layer.
    bool first_key_hidden = false;

    bool operator==(const MatrixRef& o) const;
    bool operator!=(const MatrixRef& o) const { return !(*this == o); }
};

// A cell of a matrix (hovered or pinned).
struct CellRef
{
    bool valid = false;
    MatrixRef matrix;
    int row = 0, col = 0;

    bool operator==(const CellRef& o) const
    {
        return valid == o.valid && (!valid || (matrix == o.matrix && row == o.row && col == o.col));
    }
};

// Everything a heatmap needs to draw a matrix: resolved from a MatrixRef against the current trace.
struct MatrixView
{
    const Mat* m = nullptr; // nullptr: not available (no trace yet, out of range)
    std::string title;      // "weights  A_h" ...
    std::string equation;   // "softmax(masked / τ)"
    std::string shape;      // "T×T = 6×6"
    const std::vector<std::string>* row_tokens = nullptr; // nullptr: rows are numbered
    const std::vector<std::string>* col_tokens = nullptr; // nullptr: columns are numbered (features)
    bool probability = false;                             // fixed [0, 1] scale
    bool stretch = false;           // probability on [0, max] (ViewPrefs::stretch_weights)
    const Mat* mask = nullptr;      // weights: the masked scores, whose −∞ cells are drawn as masked
    int column_blocks = 0;          // > 0: a separator every this many columns
    std::string row_axis;           // what a row is: "query" (T×T maps), "position", "feature (d_model)"
    std::string col_axis;           // what a column is: "key" (T×T maps), "feature (d_k)", ...
    std::string key;                // the texture cache key
    unsigned long long version = 0; // changes when the matrix may have changed
};

// Whether cell (r, c) of view.m is masked: the value itself is −∞ (masked scores) or view.mask is −∞ there
// (weights, whose masked cells hold 0). A masked cell is drawn hatched and without a number, in the window
// and in exports alike.
bool cell_masked(const MatrixView& view, int r, int c);

// [SECTION] Preferences (saved in the user's config folder)

// A panel the user moved or resized: its rectangle in fractions of the work area (the window under the menu
// bar and above the status bar), so it keeps its proportions at any window size. Not placed: the panel takes
// its default place (ui/layout.h).
struct PanelPlace
{
    bool placed = false;
    float x = 0.0f, y = 0.0f, w = 0.0f, h = 0.0f;

    bool operator==(const PanelPlace& o) const
    {
        return placed == o.placed && (!placed || (x == o.x && y == o.y && w == o.w && h == o.h));
    }
    bool operator!=(const PanelPlace& o) const { return !(*this == o); }
};

inline constexpr float kMinFontSize = 10.0f;
inline constexpr float kMaxFontSize = 40.0f;
inline constexpr float kDefaultFontSize = 17.0f;
inline constexpr float kMinPresenterScale = 0.5f;
inline constexpr float kMaxPresenterScale = 2.0f;

struct ViewPrefs
{
    bool dark_theme = true;
    float font_size = kDefaultFontSize; // pixels at content scale 1
    bool numbers_in_cells = true;
    bool stretch_weights = false; // attention weights coloured on [0, largest weight] instead of [0, 1]
    bool whole_batch = false;     // the Pipeline shows a stage's B sentences stacked along B (B > 1)
    std::array<bool, kPanelCount> open = default_open_panels(); // ui/model/panel_table.h
    std::array<PanelPlace, kPanelCount> places{};               // View > Reset layout forgets them
    // Presenter mode's theme (black, or white for bright lecture halls). Its text size is not kept
    // (AppState::presenter_scale).
    bool presenter_light = false;
    // The Pipeline draws the weight matrices beside the products that use them (X · W_h^Q = Q_h, ...).
    bool pipeline_weights = true;

    bool operator==(const ViewPrefs& o) const;
    bool operator!=(const ViewPrefs& o) const { return !(*this == o); }
};

// [SECTION] Selection and requests

struct Selection
{
    int layer = 0;
    int b = 0;    // sentence of the batch
    int head = 0; // j in 0..h-1
};

enum class ExportFormat
{
    Png,
    Csv,
    Svg, // the PNG's picture as vectors (text as text)
    Pdf, // the same, as a one-page PDF
};

// The export popup: which matrix, where, at which scale. Opened by a heatmap's context menu or Ctrl+E.
struct ExportDialog
{
    bool open_request = false;
    MatrixRef matrix;
    ExportFormat format = ExportFormat::Png;
    std::string path;
    int scale = 0;     // pixels per cell edge in the PNG; 0: default_export_scale() when the popup opens
    std::string error; // the last attempt's message, shown in the popup (which stays open)
    // The whole chain of matrix's head (X, Q, K, V, scores, scaled, masked, weights, head_out) as one slide
    // of slide_width x slide_height, instead of the one matrix.
    bool head_chain = false;
    int slide_width = 1920, slide_height = 1080;
};

class LessonExportWorker; // ui/model/lesson_export_worker.h

// File > Export lesson slides (Ctrl+Shift+E): the open lesson's every step as a slide, the files `attnlab
// lesson ID --export-dir DIR --format F --width W --height H` writes. The dialog's choices, and the export
// under way on its worker thread (the window goes on; the status bar shows its progress and a Cancel button).
struct LessonExportDialog
{
    bool open_request = false;
    std::string dir;                             // the folder ("" : the default, "<lesson id>-slides")
    ExportFormat format = ExportFormat::Png;     // Png, Svg or Pdf (one file, a page per step)
    int slide_width = 1920, slide_height = 1080; // 16:9; 1600x1000 (16:10) is the other choice
    std::string error;                           // the last attempt's message, shown in the dialog
    std::shared_ptr<LessonExportWorker> job; // the export under way (nullptr: none); it stops when it goes
    bool close_request = false;              // the export started: the dialog closes
    // Called on the worker's thread when the export moves on or ends (the window wakes its event loop).
    std::function<void()> wake;
    // Called on the worker's thread before each slide (tests hold it there; nullptr: nothing).
    std::function<void(int steps_done)> before_slide;
};

// The session / trace / window file popup (Ctrl+O, Ctrl+S, File menu).
enum class FileAction
{
    None,
    OpenSession,
    SaveSession,
    ExportTraceJson,
    ExportWindowPng,
    OpenModel,       // an attnlab-model file into the Training panel
    SaveModel,       // the Training panel's model at its current step
    ExportCurvesCsv, // the Training panel's curves
    ExportCurvesPng, // the same as a picture
    OpenModelFolder, // a Hugging Face GPT-2 or BERT folder into the main panels (ui/model/opened_model.h)
    TrainTextFile,   // a UTF-8 text file: the Training panel's Text task on it
};

struct FileDialog
{
    bool open_request = false;
    FileAction action = FileAction::None;
    std::string path;
    std::string error; // the last attempt's message, shown in the popup (which stays open)
};

// A session file waiting to replace the user's session until the question about its unsaved changes is
// answered: Save, Discard or Cancel (ui/session_files.h).
struct UnsavedPrompt
{
    std::string path;          // the file waiting to be opened ("" : nothing waits)
    bool autosave = false;     // an autosave or a kept copy (it opens as an unsaved session)
    bool open_request = false; // open the question's popup on the next frame
    std::string save_path;     // where Save writes the session: its own file, or a name the user types
    std::string error;         // the last Save's message, shown in the popup (which stays open)
};

// The question before a trained model (a file or a built-in one) replaces the Training panel's run while no
// file holds that run (ui/model/session_files.h, request_open_model).
struct ReplaceModelPrompt
{
    std::string path;          // the model file waiting to be opened, or
    std::string builtin_key;   // the built-in model waiting ("" and path "": nothing waits)
    bool open_request = false; // open the question's popup on the next frame
    std::string opening;       // what waits, as the question names it: its path or the built-in model's title
    std::string model_name;    // the run at risk, as the question names it: "Text (words), step 2000"
    std::string save_path;     // where Save writes the run: its own file, or a name the user types
    std::string error;         // the last Save's message, shown in the question (which stays open)
    bool waiting() const { return !path.empty() || !builtin_key.empty(); }
};

// The question before quitting would lose work that no file holds (ui/model/session_files.h, answer_quit).
struct QuitPrompt
{
    bool asking = false;       // the question is on screen
    bool open_request = false; // open the question's popup on the next frame
    bool confirmed = false;    // the user chose to quit without saving: the next quit request closes
    bool session = false;      // the user's session is at risk (Save writes it to save_path)
    bool model = false; // the Training panel's trained model is at risk (Save writes it to model_save_path)
    std::string reason; // why no file holds the session (the autosave's failure), shown in the question
    std::string model_reason;    // why no file holds the model (the model autosave's failure)
    std::string model_name;      // the model at risk, as the question names it: "Induction heads, step 600"
    std::string save_path;       // where Save writes the session: its own file, or a name the user types
    std::string model_save_path; // where Save writes the model: its own file, or a name the user types
    std::string error;           // the last Save's message, shown in the question (which stays open)
    // The trained model a file holds (saved with Save model, or opened from it): its task key and step ("" :
    // none). Kept across questions; a model at this task and step is never at risk.
    std::string model_file_task;
    int model_file_step = -1;
};

// [SECTION] Lessons

// The lesson being followed and what it stands in for. While a lesson is open, AppState::session is the
// current step's; the user's own session waits here and comes back when the lesson is left (ui/lessons.h).
struct LessonState
{
    LessonLibrary library; // loaded at start; a broken file is one message in library.errors
    int lesson = -1;       // index in library.lessons; -1: no lesson open
    int step = 0;          // index in its steps

    Session user_session; // the user's own session, path, selection and imported weights
    std::string user_session_path;
    Selection user_sel;
    ModelWeights user_weights;
    bool user_has_weights = false;
    std::string step_weights_path; // the weights file the lesson's steps have loaded ("" : seeded weights)
    std::array<bool, kPanelCount> opened_panels{}; // panels the lesson opened (closed again when done)
    // The panels the user's Training panel had set aside when the lesson began (TrainingPanelState::
    // hid_panels): set aside again on leaving while it is still open.
    std::array<bool, kPanelCount> user_hid_panels{};
    // The user's folded pipeline stages, given back when the lesson is left (steps fold and unfold them).
    std::array<bool, kStageCount> user_stage_collapsed{};
    std::array<bool, kStageCount> user_cross_stage_collapsed{};

    // Frames left in which the pipeline scrolls its first highlighted stage to the top: a few, because a
    // window's layout settles over its first frames.
    int scroll_request = 0;
    PanelId focus_panel = PanelId::Count; // the panel to bring to the front on the next frame; Count: none
    // A lesson was entered: the Lesson panel shows its stepper from the top, the lesson list folded (it
    // stayed scrolled down to the list the lesson was picked from, the step's text off screen).
    bool panel_top_request = false;
    // Frames left in which the Model panel scrolls the step's setting into view (as scroll_request).
    int setting_scroll_request = 0;
    float pipeline_height = 0.0f; // the Pipeline's visible height last frame: a change scrolls again
    int cells_outlined = 0;       // lesson cells outlined by the heatmaps this frame (for tests)
};

// [SECTION] Training

// The Training panel: its fields and the snapshot it draws (the run itself is AppState::training_run).
struct TrainingPanelState
{
    train::RunSpec edit;   // the panel's fields; Play, Step or Reset builds the run from them when changed
    TrainingSnapshot view; // the latest snapshot copied from the run (TrainingRun::poll)
    std::string error;     // the last configure's message ("" : fine)
    std::string notice;    // what Play did beyond the obvious (it raised the target) ("" : nothing)
    // The status bar's message about the run as it was configured ("Training on notes.txt: 18,877 words and
    // marks, ..."): it goes when the fields configure another run, which it no longer describes.
    std::string run_message;
    // Play at the target raised it (training_controller.cpp, raise_target): from raised_from to raised_to.
    // Reset goes back to raised_from while the target is still raised_to (-1: not raised).
    int raised_from = -1, raised_to = -1;
    std::string model_path; // the model file last opened or saved ("" : none)
    // The open panels show_training_panel closed because the Training panel covers them: open again when it
    // closes (restore_panels_under_training), or as soon as something else opens them.
    std::array<bool, kPanelCount> hid_panels{};

    // The probe: the sequence the maps show, typed in the task's vocabulary.
    std::string probe_text;
    std::vector<std::string> probe_vocabulary; // the vocabulary probe_text was checked against
    bool probe_dirty = true;                   // probe_text changed since it was parsed
    SoftWrapField probe_field; // a text model's probe box, wrapped over two lines (a line feed shows as one)
    std::string probe_error;   // why the text is not a probe ("" : it is)
    train::Batch probe_batch;  // the last good probe (B = 1)
    unsigned long long probe_version = 0; // bumped when probe_batch changes
    TrainingProbe probe;                  // probe_batch through the shown step's weights

    // The timeline: the newest weights, or the frame at or before shown_step.
    bool follow_latest = true;
    int shown_step = 0;

    int map_kind = 0; // 0: A_h; 1: A_h beside ∂L/∂A_h; 2: logits, probabilities and loss; 3: every stage
    // An earlier run's maps beside this run's (attention views): view.past[compare_run] (-1: none), found
    // again by compare_key (its label and step; "": by index, as a lesson's compare[i] is past[i]) when the
    // list shifts; its final parameters on the same probe (training_controller.h, compared_run()).
    int compare_run = -1;
    std::string compare_key;
    TrainingProbe compare_probe;
    // A text model's samples (ui/model/training/text_readouts.h): generated at the shown step from the prompt
    // ("": the probe's first kSamplePromptCharacters characters), at this temperature and seed.
    float sample_temperature = kDefaultSampleTemperature;
    std::uint64_t sample_seed = 1;
    std::string sample_prompt;
    SampleResult sample;                 // the newest finished one (AppState::text_sampler)
    int stage_layer = 0, stage_head = 0; // the layer and head "every stage" shows
    // The head-score curve: a train::HeadScoreKind (core/train/metrics.h); the task's own
    // (train::TaskInfo::score) whenever a task is chosen or a trained model opened, else a lesson step's.
    int score_kind = 0;
    bool fit_curves = true; // the curves' axes fit the current run (earlier runs cut at its right edge)
    float pace = 0.0f;      // at most this many steps a second (0: full speed)
    bool stop_at_accuracy = false;
    float stop_accuracy = 0.99f;
    int step_count = 100;   // Step N's N
    std::string lesson_key; // the lesson runs the panel holds ("" : the user's own run)
    // With lesson_key: the lesson step's timeline position (its show_step), which Play, Step and Reset keep
    // so the maps stay at the step its text describes; -1: the newest step.
    int lesson_step_at = -1;
    train::RunSpec error_for; // the fields `error` is about (the message goes when they change)
    // The user's own run, kept while a lesson trains its runs in the panel, and opened again when the lesson
    // is left (its model at its step; the curves of earlier runs are not kept).
    bool user_run_kept = false;
    TrainedModel user_run;
    // Replaying an opened model's run from its seed to get its timeline back (a run is bit-identical for the
    // same seed and settings): the weights the replay must end on, and the model to fall back to when it
    // does not.
    // A lesson's runs still to train on the worker, one after the other (the compared runs first, then the
    // step's own, which the panel keeps); empty: none waiting.
    std::vector<train::RunSpec> lesson_queue;
    // The lesson runs set aside while a step shows other ones (TrainingRun::set_aside(): a step opening the
    // built-in model keeps the earlier steps' run whole, and going back shows it again): their lesson_key,
    // the runs that were still waiting, and whether the worker was training them (it goes on when shown).
    std::string aside_key;
    std::vector<train::RunSpec> aside_queue;
    bool aside_running = false;
    std::shared_ptr<const train::Params> replay_expect;
    int replay_target = 0;
    TrainedModel replay_model;
};

// The main panels (Pipeline, Heads, Inspector, Comparisons) show the trained model instead of the session:
// the Training panel's probe through the weights at its shown step, in the engine's Trace layout.
struct TrainedView
{
    bool on = false;                      // the user chose to show the trained model (and there is one)
    Trace trace;                          // empty until a model has run the probe
    ModelWeights weights;                 // the model's attention and FFN matrices in core's layout
    unsigned long long probe_version = 0; // TrainingProbe::version() the trace was copied from
    unsigned long long generation = 0;    // bumped at each copy (the heatmaps' version)
    std::string label;                    // "reverse · step 300"
    bool closed_training = false;         // showing it closed the Training panel (switching back reopens it)
};

// [SECTION] The Heads panel

enum class HeadsView
{
    Maps,      // the h maps of the selected layer
    AllLayers, // layers x heads: the shown query's row of weights in every layer and head
    Cross,     // the h maps of the cross-attention block (when the session has a target)
};

// A query token pinned in every head: clicked on a token, a row label or a row, and unpinned by a second
// click or Esc. It keeps its token so that an edit which changes T can find the same word again.
struct QueryPin
{
    int row = -1;      // -1: none
    std::string token; // the token at `row` when pinned (or when last found again)
    int T = 0;         // the number of tokens then

    bool valid() const { return row >= 0; }
};

struct HeadsPanelState
{
    HeadsView view = HeadsView::Maps;
    QueryPin query;                        // a source token: a row of every encoder layer's maps
    QueryPin cross_query;                  // a target token: a row of every cross-attention map
    HeadsView tab_shown = HeadsView::Maps; // the view the tab bar showed last frame
    bool grid_row_labels = false; // the grid named its queries last frame (then no token chips are needed)
    bool hide_first_key = false;  // the maps hide the first key's column (attention sinks), rows renormalised
    MatrixRef menu_map;           // the All layers grid's map whose right-click (export) menu is open
};

// Pins `row` of `tokens`, or unpins when it is the pinned row already (a second click). Out of range: unpins.
void toggle_query_pin(QueryPin& pin, int row, const std::vector<std::string>& tokens);
// Pins `row` of `tokens` (clamped into range); no tokens: unpins.
void set_query_pin(QueryPin& pin, int row, const std::vector<std::string>& tokens);
// After a new trace: with the same T the pin stays on its row (an edited word keeps its place). With another
// T it moves to the occurrence of its token nearest to its old row, or is dropped when the token is gone.
void follow_query_pin(QueryPin& pin, const std::vector<std::string>& tokens);

// [SECTION] Panel layout at run time

// What the frame last did with each panel's window (ui/layout.h).
struct PanelLayoutState
{
    // The rectangle (x, y, w, h in pixels) last given to the window or last seen after the user moved it;
    // w = 0: none yet, so the panel is placed on its next frame.
    std::array<std::array<float, 4>, kPanelCount> applied{};
    std::array<bool, kPanelCount> moving{}; // the user is dragging or resizing it (kept when the mouse is up)
};

// [SECTION] AppState

// Presenter mode's views outside a lesson, in the order of their keys (1-5).
enum class PresenterView
{
    Pipeline,
    Heads,
    Inspector,
    Comparisons,
    Training,
    Count
};
// "Pipeline", "Heads", ...: the title line's name of a view.
const char* presenter_view_name(PresenterView view);

// How long the window's frame waits for a run it has just started when the last one was this quick: a small
// session's edit shows in the same frame; a large one's frames go on with the last picture.
inline constexpr double kRecomputeFrameWaitMs = 10.0;

struct AppState
{
    // What the user chose; every edit calls edit(), and update() recomputes once before the next frame.
    Session session;
    std::string session_path;
    // The user's session as its file holds it (opened or saved), or as this run began when it has no file;
    // empty once its file is gone. Anything else is unsaved (has_unsaved_changes(), ui/session_files.h).
    std::optional<Session> saved_session = Session{};
    UnsavedPrompt unsaved;            // a file that waits for the answer about the unsaved changes
    QuitPrompt quit;                  // the question before a quit that would lose work
    ReplaceModelPrompt replace_model; // a trained model that waits for the answer about the run it replaces
    unsigned long long session_version = 1;
    unsigned long long computed_version = 0;

    Engine engine;
    Status status;             // the last run's result: an error is shown inline, the last good trace stays
    double recompute_ms = 0.0; // wall time of the last engine run
    int recompute_threads = 1; // the threads its products could split over (1 while a training run goes on)
    // The engine runs on this worker (ui/model/recompute_worker.h); `engine` holds the shown trace and the
    // imported weights the next run uses. requested_version: the newest session version handed to it.
    RecomputeWorker recompute;
    unsigned long long requested_version = 0;
    // How long update() waits for a run it has just started: below zero, until it is in (the default: tests
    // and headless commands see the new trace at once); the window waits kRecomputeFrameWaitMs and then
    // draws the last picture, marked "computing…", until the run is in.
    double recompute_wait_ms = -1.0;
    // A view left maps to re-make on the next frames (Heads > All layers re-makes a few a frame): the window
    // keeps drawing. Cleared by begin_frame.
    bool maps_pending = false;

    Selection sel;
    CellRef hovered; // the cell under the mouse last frame (what the inspector shows when nothing is pinned)
    CellRef hovered_next;     // filled while drawing this frame
    CellRef pinned;           // clicked cell (click again or Esc to unpin)
    int heads_hover_row = -1; // query row hovered in the heads grid last frame (highlighted in every head)
    int heads_hover_row_next = -1; // filled while drawing this frame
    // The widest "→ key 0.62" line (and its narrow form) any query row of a presenter heads map would show,
    // per map (its view key), found once per version of the map and font instead of on every frame: T rows of
    // every head, each a row's max and two text measurements (ui/shell/presenter.cpp's top_key_part).
    struct TopKeyRoom
    {
        unsigned long long version = 0; // MatrixView::version of the map it was found for
        const void* font = nullptr;
        float font_size = 0.0f;
        std::string widest, widest_narrow;
    };
    std::unordered_map<std::string, TopKeyRoom> top_key_rooms;
    HeadsPanelState heads_panel;                           // the Heads panel's view and pinned query tokens
    std::array<bool, kStageCount> stage_collapsed{};       // pipeline stages folded by the user
    std::array<bool, kStageCount> cross_stage_collapsed{}; // the same for the cross-attention block
    bool show_cross = true;                 // the pipeline shows the cross-attention block when present
    SoftWrapField text_field, target_field; // the Input panel's sentence and target boxes, wrapped

    ViewPrefs prefs;
    bool reset_layout = false; // place the panels at their default positions on the next frame
    bool show_help = false;    // the keyboard shortcuts window
    bool show_about = false;
    bool show_tour_hint = false; // the first start's pointer to the tour, in the menu bar, until dismissed
    bool mouse_ignored = false;  // screenshot mode: no tooltips, no hover
    float content_scale = 1.0f;  // the monitor's content scale (fonts and sizes are multiplied by it)
    // 1 dark, 0 light, 2 / 3 presenter dark / light, -1 none yet: draw_app applies the theme when it differs.
    int applied_theme = -1;
    std::string font_message; // set when DejaVu Sans is missing (shown in the status bar)
    float frame_ms = 0.0f;    // the window's last frame time, for the status bar
    // Each open panel's rectangle last frame (x, y, w, h). A panel that overlaps no other one is drawn
    // without its background (the window is cleared to the same colour): a software renderer then fills
    // each pixel once instead of twice.
    std::array<std::array<float, 4>, kPanelCount> panel_rects{};
    PanelLayoutState layout;

    HeatmapCache heatmaps;
    // The weights maps with the first key hidden (MatrixRef::first_key_hidden), made when first resolved for
    // the trace of generation sinkless_generation (frame thread only; resolve_matrix fills it).
    mutable std::unordered_map<std::string, Mat> sinkless_maps;
    mutable unsigned long long sinkless_generation = 0;
    std::unordered_map<std::string, std::pair<unsigned long long, float>>
        entropy_cache; // key -> (version, H)
    Comparisons comparisons;
    unsigned long long comparisons_version = 0; // bumped each time they are recomputed
    std::uint64_t comparisons_key = ~std::uint64_t(0);
    // The selected layer's packed W^Q = [W_1^Q | … | W_h^Q] (ensure_packed_weights), for packed_W_Q_layer.
    Mat packed_W_Q;
    int packed_W_Q_layer = -1;
    unsigned long long packed_W_Q_generation = 0;

    ExportDialog export_dialog;
    LessonExportDialog lesson_export;
    FileDialog file_dialog;
    FileAction request_file_action = FileAction::None; // a panel asks for the file dialog (next frame)
    LessonState lesson;
    TrainingPanelState training;
    // The trainer on its worker thread (the worker touches nothing else; the destructor joins it).
    TrainingRun training_run;
    // A text model's samples, generated on their own worker thread (the destructor joins it).
    TextSampler text_sampler;
    TrainedView trained_view;
    // A Hugging Face model folder opened in the main panels (ui/model/opened_model.h), and its loader.
    OpenedModelState opened;
    bool presenter = false; // presenter mode (F5): one large view, the step's text as a caption
    // Presenter mode's text and maps grow with the window's height times this (Ctrl+= / Ctrl+- there), apart
    // from the normal font size. Not saved with the preferences: each launch starts at 1 (100%), so a
    // lecture never opens enlarged by an earlier one without a word on screen.
    float presenter_scale = 1.0f;
    // What presenter mode shows outside a lesson (keys 1-5 there; a lesson step chooses its own view).
    PresenterView presenter_view = PresenterView::Pipeline;
    // The comparison its Comparisons view shows, one at a time as a lesson step would (4 again: the next).
    ComparisonSection presenter_comparison = ComparisonSection::Packed;
    // The group of stages its Pipeline view shows (presenter_pipeline_groups; → / ← step through them).
    int presenter_stage_group = 0;
    // Pages the presenter's view is to scroll on its next frame (Shift+↓ +1, Shift+↑ -1).
    int presenter_scroll_pages = 0;
    // What the presenter's view showed last (step, view, group): another one starts scrolled to its top.
    struct PresenterShown
    {
        const void* lesson = nullptr; // the open lesson (null: none)
        int step = -1, view = -1, group = -1, comparison = -1;
        bool operator==(const PresenterShown& o) const
        {
            return lesson == o.lesson && step == o.step && view == o.view && group == o.group &&
                   comparison == o.comparison;
        }
    };
    PresenterShown presenter_shown;
    // A short note presenter mode shows in its title line (the new text size) until ImGui's clock passes
    // presenter_note_until (seconds).
    std::string presenter_note;
    double presenter_note_until = 0.0;
    std::string presenter_seen_message; // the status message last shown as a note (a new one is shown)
    // The caption's font size and side the last presenter frame chose (choose_caption).
    float presenter_caption_px = 0.0f;
    bool presenter_caption_beside = false;
    // The grid of maps the last presenter frame drew: the cell each number of columns gave (index: columns -
    // 1, the grid with the largest wins) and the number chosen.
    std::vector<float> presenter_grid_cells;
    int presenter_grid_columns = 0;
    // The axis labels' text size in that grid, and per map (in the order given) its cell and the size its
    // cell values were written at (0: left out), in pixels.
    float presenter_label_px = 0.0f;
    std::vector<float> presenter_map_cells, presenter_number_px;
    // The maps' cell as last drawn at 100% text, and which maps on which screen: after Ctrl+= the same maps
    // keep at least that cell (a caption beside them grows wider with the text and took it from them).
    struct UnzoomedCell
    {
        std::vector<MatrixRef> maps;
        float width = 0.0f, height = 0.0f, cell = 0.0f;
    } presenter_unzoomed;
    // The same for the Training view's head maps: their cell as last drawn at 100%, for how many maps of T
    // tokens on which screen.
    struct UnzoomedTrainingCell
    {
        int maps = 0, T = 0;
        float width = 0.0f, height = 0.0f, cell = 0.0f;
    } presenter_training_unzoomed;
    // Presenter mode's edit bar (E opens it, E or Esc closes it): the sentence, h, d_model, mask and τ
    // edited without leaving presenter mode. presenter_text is the sentence being typed (Enter applies it).
    bool presenter_edit = false;
    // Presenter mode's screen blanked (B or ".", a clicker's blank-screen key): black until a key brings the
    // slide back.
    bool presenter_blank = false;
    // When R was pressed in presenter mode's Training view and waits for R again to reset the run (ImGui
    // time; < 0: not waiting).
    double presenter_reset_asked = -1.0;
    bool presenter_edit_cursor_pending = false; // the bar just opened: its field's cursor goes to the end
    std::string presenter_text;
    std::vector<std::string> recent_files; // session files, most recent first (File > Recent)
    std::string recent_files_path;         // where the list is kept ("" : not kept)
    std::string autosave_path;             // the autosave, whose kept copies File > Recent offers too
    std::string config_folder;             // where the autosaves are ("" : no config folder)
    int window_slot = 0;                   // this window's autosave slot (ui/model/window_slot.h); 0: none
    MatrixRef last_heatmap;                // the heatmap hovered most recently: Ctrl+E exports it

    // A one-line message for the status bar (export written, file not writable, ...).
    std::string message;
    bool message_is_error = false;

    // Requests to the window (it owns GLFW and GL).
    bool request_quit = false;
    bool request_fullscreen_toggle = false;
    bool request_font_rebuild = false;
    GlyphSet glyphs; // the characters beyond the fixed ranges that the atlas holds (ui/model/glyphs.h)
    unsigned long long glyphs_version = 0; // the session_version whose text glyphs has seen
    // Non-empty: write a picture of the window to this PNG, on a frame without the file dialog or any other
    // popup (ui/shell/app_ui.h, begin_window_capture).
    std::string request_window_png;
    int window_png_clean_frames = 0;   // frames in a row drawn without any popup since the request
    bool window_png_capturing = false; // the frame being drawn is the one captured (the mouse is off)
    bool window_png_mouse_was_ignored = false;

    // [SECTION] Methods

    // Marks the session changed: the next update() runs the engine once.
    void edit() { ++session_version; }
    // At the start of a frame: hands the session to the worker when it changed since the last request, then
    // takes a finished run (waiting as recompute_wait_ms says), so the whole frame reads one trace; keeps
    // the selection in range. Returns true when a run came in (its trace, or its error in `status`). A run
    // for an older version still comes in (it is newer than the picture) while the newest one computes.
    bool update();
    // Waits until the current session's run is in: a picture, an export or a test that needs the final trace.
    void finish_recompute();
    // An edit is not on screen yet: the last picture shows, marked "computing…".
    bool recompute_pending() const { return session_version != computed_version; }
    // Called at the start of each frame: last frame's hover becomes this frame's.
    void begin_frame();
    // What the main panels show: the trained model when the user chose it, else the session's pass.
    // A lesson's steps show their own sessions, so a lesson hides the trained model.
    bool showing_trained() const
    {
        return trained_view.on && !trained_view.trace.empty() && lesson.lesson < 0;
    }
    // An opened model folder shows in the main panels (the session's text run through it) unless the trained
    // model does or a lesson is open.
    bool showing_opened() const { return opened.model != nullptr && !showing_trained() && lesson.lesson < 0; }
    const Trace& trace() const
    {
        return showing_trained() ? trained_view.trace : showing_opened() ? opened.run.trace : engine.trace();
    }
    // The shown model's matrices in core's layout. An opened model's layers are filled only once read through
    // layer_weights: read a layer with that, not with weights().layers[l].
    const ModelWeights& weights() const
    {
        return showing_trained()  ? trained_view.weights
               : showing_opened() ? opened.weights
                                  : engine.weights();
    }
    // Layer `layer` of weights() (nullptr: no such layer), an opened model's copied from its parameters the
    // first time it is read (opened_layer_weights).
    const LayerWeights* layer_weights(int layer) const;
    bool has_trace() const { return !trace().empty(); }
    // Changes whenever trace() may hold other numbers (the heatmaps' and the comparisons' version).
    unsigned long long trace_generation() const
    {
        return showing_trained()  ? (1ull << 62) + trained_view.generation
               : showing_opened() ? (1ull << 61) + opened.generation
                                  : engine.generation();
    }
    // Changes whenever weights() may hold other numbers (a typed word leaves it alone, so pictures of the
    // weights are not made again).
    unsigned long long weights_generation() const
    {
        return showing_trained()  ? (1ull << 62) + trained_view.generation
               : showing_opened() ? (1ull << 61) + opened.weights_generation
                                  : engine.weights_generation();
    }
    int heads() const;
    void select_head(int j);
    // Keeps the layer, sentence, head and pinned cell inside trace() (after it changed shape).
    void clamp_selection();
    void set_message(std::string text, bool is_error);
    // Adds an error to the error shown (start-up: a bad preferences file and a broken autosave are both said,
    // not the last one alone); replaces a message that is not an error.
    void add_error(const std::string& text);
    // Mean row entropy (nats) of the matrix ref resolves to (meant for weights: 0 one-hot, ln T uniform),
    // cached per matrix and trace generation because it costs O(T²). Negative when it does not resolve.
    float mean_entropy(const MatrixRef& ref);
    // Recomputes the comparisons when the trace, layer, sentence or head changed.
    void ensure_comparisons();
    // Packs layer `layer`'s W_h^Q into packed_W_Q when the weights or the layer changed.
    void ensure_packed_weights(int layer);
    // The tokens of the selected sentence (the queries and keys of the layers' maps), or of its target
    // (the cross-attention maps' queries); nullptr when there are none.
    const std::vector<std::string>* query_tokens(bool cross) const;
    // The query row the Heads panel shows: the hovered one, else the pinned one, else -1 (always in range).
    int shown_query(bool cross) const;
    // Drops both pinned query tokens (Esc).
    void unpin_queries();
};

// View > Reset layout: the panels open on a first start, at their default places (a large view such as
// Training closes, so the main panels show); a lesson's own panels stay open while it is on.
void reset_panels(AppState& state);

// Alt+digit and the View menu on a panel: opens a closed one. An open one is closed, unless a large view
// (Training, Comparisons: PanelColumn::Over) covers it: then the view closes so the panel shows, and the
// status bar says how to get the view back.
void toggle_panel(AppState& state, PanelId id);

// [SECTION] Resolving matrices and cells

MatrixView resolve_matrix(const AppState& state, const MatrixRef& ref);
// The selected layer's and sentence's stage (of `head` when per head), in a layer or the cross-attention
// block; and the selected layer's, sentence's and head's comparison matrix.
MatrixRef selected_stage(const AppState& state, Stage stage, int head, bool cross = false);
MatrixRef selected_comparison(const AppState& state, ComparisonMatrix which);
// The selected layer's weight matrix (of `head` when it is one per head).
MatrixRef selected_weight(const AppState& state, WeightMatrix which, int head);
// Cells above this count are not drawn (the note says so): W_1 at d_model 1024 (1024×4096) is the largest.
inline constexpr long kMaxWeightCells = 1024L * 4096L;
// Token of row / column of a cell (its index when the axis is numbered); max_chars > 0 cuts it to that many
// characters with "…", reading no more of a long token than that.
std::string row_label(const MatrixView& view, int row, int max_chars = 0);
// A token quoted in a tooltip or the Inspector is cut to this many characters.
inline constexpr int kMaxQuotedTokenChars = 40;
std::string col_label(const MatrixView& view, int col, int max_chars = 0);
// "attnlab-weights-layer1-sentence1-head2": a file-name friendly name of a matrix. Layers, sentences and
// heads count from 1, as in the picture's title.
std::string matrix_file_stem(const MatrixRef& ref);
// A default path for an export: "attnlab-weights-layer1-sentence1-head2.png" in the current directory.
std::string default_export_path(const MatrixRef& ref, ExportFormat format);

// The panel whose settings an invalid session's message is about: Model (its shape, its weights) or Input
// (the sentences). The message is written there only; the status bar points to it.
PanelId status_error_panel(const AppState& state);

} // namespace attnlab
