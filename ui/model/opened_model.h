// A Hugging Face model folder opened in the app: loaded on a thread of its own (progress, cancel), then shown
// in the main panels instead of the session's seeded weights; File > Open model folder, Recent models, Close.
#pragma once

#include "core/io/hf_model.h"
#include "core/status.h"
#include "core/trace.h"
#include "core/weights.h"
#include "ui/model/recompute_worker.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace attnlab
{

struct AppState;

// What a finished load gives the frame.
struct ModelFolderLoad
{
    std::string folder;
    Status status; // an error (or the cancel) leaves everything as it was
    std::shared_ptr<const HfLoadedModel> model;
};

// One load at a time on its own thread (the window keeps drawing frames while busy(), so the progress bar
// moves and the result is taken at once). Threads: the frame thread calls start(), cancel(), take() and the
// readers; the loader writes only progress_ and, under mutex_, done_.
class ModelFolderLoader
{
public:
    ModelFolderLoader() = default;
    // Cancels a load going on and joins its thread.
    ~ModelFolderLoader();
    ModelFolderLoader(const ModelFolderLoader&) = delete;
    ModelFolderLoader& operator=(const ModelFolderLoader&) = delete;

    // Starts loading folder; a load going on is cancelled first (and its result dropped). before_load, when
    // set, runs on the loader thread before anything is read (tests hold the load there to cancel it).
    void start(const std::string& folder, std::function<void()> before_load = {});
    // Asks the load going on to stop: it finishes soon with an error that says it was cancelled.
    void cancel() { cancel_ = true; }
    // A load started and not taken yet.
    bool busy() const { return thread_.joinable(); }
    // The folder being loaded ("" : none).
    const std::string& folder() const { return folder_; }
    // The fraction read so far, 0 to 1.
    double progress() const { return progress_.load(); }
    // Waits up to `wait_ms` (negative: as long as it takes) for the load to finish; then hands its result
    // over and returns true. False while it goes on, or when nothing was started.
    bool take(ModelFolderLoad* out, double wait_ms = 0.0);

private:
    std::string folder_;
    std::atomic<double> progress_{0.0};
    std::atomic<bool> cancel_{false};
    std::mutex mutex_;
    std::condition_variable finished_;
    std::optional<ModelFolderLoad> done_; // under mutex_
    std::thread thread_;
};

// The opened model in AppState: what the main panels show while it is open (AppState::showing_opened).
struct OpenedModelState
{
    std::shared_ptr<const HfLoadedModel> model; // nullptr: none open
    std::string folder;                         // the folder it came from, as the user gave it
    OpenedRun run; // the session's text through it: its trace (empty until the first run) and read-outs
    // The heads switched off (n_layers·h entries, 1: off; empty: none): Heads panel, right-click a map.
    train::HeadMask heads_off;
    bool lens_wanted = false; // the Pipeline's logit-lens header is open: runs compute the lens
    // The header was drawn this frame / the last frame did not draw it (the Pipeline is hidden or another tab
    // is in front): while hidden, runs skip the lens even when wanted, since nobody sees it.
    bool lens_drawn = false;
    bool lens_hidden = false;
    bool lens_requested = false; // the last run handed to the worker computes the lens
    // Its matrices in core's layout, one LayerWeights per layer, each copied from the model's parameters the
    // first time it is read (opened_layer_weights): a layer not looked at holds nothing, so GPT-2 small's
    // 340 MB of attention and FFN matrices are not held twice. A cache, hence mutable (frame thread only).
    mutable ModelWeights weights;
    // The frame each layer of weights was last read in (release_unread_layers frees the others) and the
    // frame count (AppState::begin_frame).
    mutable std::vector<unsigned long long> weights_read;
    unsigned long long frame = 0;
    unsigned long long generation = 0;         // bumped at each new trace (the heatmaps' version)
    unsigned long long weights_generation = 0; // bumped at each model opened
    unsigned long long glyphs_generation = 0;  // the generation whose token pieces the font atlas has seen

    ModelFolderLoader loader;
    bool popup_request = false; // open the progress popup on the next frame (ui/shell/popups.cpp)
    std::string load_error;     // the last load's failure, shown in the popup until dismissed ("" : none)
    double load_wait_ms = -1.0; // how long poll_model_load waits (negative: until the load is in; the window
                                // sets 0 so frames go on with the progress bar)

    std::vector<std::string> recent; // model folders, most recent first (File > Recent models)
    std::string recent_path;         // where the list is kept ("" : not kept)
};

// Starts opening folder on the loader thread (the progress popup shows on the next frame). Refuses at once,
// with the message and nothing changed, a path that is not a folder. The model replaces the session's
// weights in the main panels when the load comes in (poll_model_load).
Status open_model_folder(AppState& state, const std::string& folder);
// Once a frame (and in tests): takes a finished load. A model: it shows in the main panels (the trained view
// is switched off), the session refers to its folder, it goes first in the recent models, the text is run
// through it. An error or a cancel: the message in the status bar (and the popup), everything else as it was.
// Returns true when a load came in.
bool poll_model_load(AppState& state);
// Waits for the load going on and takes it (tests, screenshots).
void finish_model_load(AppState& state);
// Cancel in the progress popup.
void cancel_model_load(AppState& state);
// File > Close model: the main panels show the session's own weights again.
void close_model(AppState& state);

// Head ablation: switches head `head` of layer `layer` of the opened model off (or on again) and reruns the
// text. Nothing happens without an opened model or outside its shape.
void toggle_head_off(AppState& state, int layer, int head);
// Every head on again.
void all_heads_on(AppState& state);
// Whether that head is off.
bool head_is_off(const AppState& state, int layer, int head);
// How many heads are off.
int heads_off_count(const AppState& state);
// Asks for the logit lens (on) or stops computing it (off); on reruns the text.
void want_logit_lens(AppState& state, bool on);
// The folder of the session that was just opened or restored (Session::model_folder): opened again. A folder
// that no longer exists is a message naming it; the session's other settings stay loaded.
void reopen_session_model(AppState& state, const std::string& opened_message);

// Layer `layer` of the opened model in core's layout, copied into o.weights the first time it is asked for
// (nullptr: no model open or no such layer). The reference stays valid until the model is closed or another
// is opened, or until release_unread_layers frees it (between frames: a reference lasts the frame).
const LayerWeights* opened_layer_weights(const OpenedModelState& o, int layer);
// How long a layer's copy is kept unread: about 2 s at 60 frames a second, so moving between two layers
// does not copy them again and again.
inline constexpr int kKeepUnreadLayerFrames = 120;
// Frees the copies of the layers no panel read in the last keep_frames frames (a copy of GPT-2 small's layer
// is 28 MB; a layer read again is copied again). Returns how many it freed. Called at each frame's start.
int release_unread_layers(OpenedModelState& o, int keep_frames);

// What the main panels show, in the words each panel's header uses: "GPT-2 (124M parameters), pretrained,
// from FOLDER", "trained in Attention Lab", "weights imported from FILE" or "seeded random weights".
std::string shown_model_label(const AppState& state);

// The recent model folders: a text file of the config folder, one per line (as the recent session files).
void load_recent_models_into(AppState& state);
// File > Recent models: opens it, or drops a folder that no longer exists with a message.
Status open_recent_model(AppState& state, const std::string& folder);

} // namespace attnlab
