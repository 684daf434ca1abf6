// The opened model folder: the loader thread, taking its result into AppState, closing, the recent folders.
#include "ui/model/opened_model.h"

#include "core/io/atomic_file.h"
#include "core/io/session_file.h"
#include "core/train/model_trace.h"
#include "ui/model/app_state.h"
#include "ui/model/session_files.h"
#include "ui/model/training/training_controller.h"

#include <chrono>
#include <filesystem>

namespace attnlab
{

// [SECTION] The loader thread

ModelFolderLoader::~ModelFolderLoader()
{
    cancel_ = true;
    if (thread_.joinable())
        thread_.join();
}

void ModelFolderLoader::start(const std::string& folder, std::function<void()> before_load)
{
    if (thread_.joinable())
    {
        cancel_ = true;
        thread_.join();
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        done_.reset();
    }
    folder_ = folder;
    progress_ = 0.0;
    cancel_ = false;
    thread_ = std::thread(
        [this, folder, before_load = std::move(before_load)]
        {
            if (before_load)
                before_load();
            ModelFolderLoad result;
            result.folder = folder;
            auto model = std::make_shared<HfLoadedModel>();
            result.status = load_hf_model(folder, model.get(),
                                          [this](double fraction)
                                          {
                                              progress_ = fraction;
                                              return !cancel_.load();
                                          });
            if (result.status.is_ok())
                result.model = std::move(model);
            {
                std::lock_guard<std::mutex> lock(mutex_);
                done_ = std::move(result);
            }
            finished_.notify_all();
        });
}

bool ModelFolderLoader::take(ModelFolderLoad* out, double wait_ms)
{
    if (!thread_.joinable())
        return false;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        const auto ready = [this] { return done_.has_value(); };
        if (wait_ms < 0.0)
            finished_.wait(lock, ready);
        else if (wait_ms > 0.0)
            finished_.wait_for(lock, std::chrono::duration<double, std::milli>(wait_ms), ready);
        if (!done_)
            return false;
        *out = std::move(*done_);
        done_.reset();
    }
    thread_.join();
    folder_.clear();
    return true;
}

// [SECTION] Recent model folders

namespace
{

void remember_model(AppState& state, const std::string& folder)
{
    std::vector<std::string>& recent = state.opened.recent;
    push_recent_file(recent, folder);
    if (!state.opened.recent_path.empty())
        save_recent_files(state.opened.recent_path, recent);
}

// The model's folder as a session keeps it in memory: absolute, so the autosave finds it from anywhere.
std::string absolute_folder(const std::string& folder)
{
    return absolute_weights_path("", folder);
}

} // namespace

void load_recent_models_into(AppState& state)
{
    if (state.opened.recent_path.empty())
        return;
    Status status;
    state.opened.recent = load_recent_files(state.opened.recent_path, &status);
    if (!status.is_ok())
        state.add_error(status.message());
    if (!drop_missing_files(state.opened.recent, true).empty())
        save_recent_files(state.opened.recent_path, state.opened.recent);
}

Status open_recent_model(AppState& state, const std::string& folder)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(folder, ec))
    {
        drop_missing_files(state.opened.recent, true);
        if (!state.opened.recent_path.empty())
            save_recent_files(state.opened.recent_path, state.opened.recent);
        const Status s = Status::error(folder + " no longer exists: removed from the recent models; the "
                                                "panels show what they showed");
        state.set_message(s.message(), true);
        return s;
    }
    return open_model_folder(state, folder);
}

// [SECTION] Opening and closing

Status open_model_folder(AppState& state, const std::string& folder)
{
    std::error_code ec;
    if (folder.empty())
        return Status::error("Type the folder of a Hugging Face GPT-2 or BERT model (it holds config.json).");
    if (!std::filesystem::is_directory(folder, ec))
        return Status::error(folder + (path_present(folder) ? " is not a folder" : " does not exist") +
                             ": give the folder of a Hugging Face GPT-2 or BERT model (it holds config.json "
                             "and model.safetensors).");
    OpenedModelState& o = state.opened;
    o.load_error.clear();
    o.loader.start(folder);
    o.popup_request = o.load_wait_ms >= 0.0; // the window shows the progress; a test waits for it
    if (o.load_wait_ms < 0.0)
        finish_model_load(state);
    return Status::ok();
}

bool poll_model_load(AppState& state)
{
    OpenedModelState& o = state.opened;
    ModelFolderLoad load;
    if (!o.loader.take(&load, o.load_wait_ms))
        return false;
    if (!load.status.is_ok())
    {
        o.load_error = load.status.message();
        state.set_message("The model folder did not open: " + load.status.message() +
                              (o.model ? " (the opened model stays)" : " (the panels show what they showed)"),
                          true);
        return true;
    }
    o.model = std::move(load.model);
    o.folder = load.folder;
    o.weights = ModelWeights{};
    o.weights.layers.resize(static_cast<std::size_t>(o.model->config.n_layers)); // filled when read
    o.run = OpenedRun{};
    o.heads_off.clear();
    ++o.generation;
    ++o.weights_generation;
    o.load_error.clear();
    if (state.trained_view.on)
        set_trained_view(state, false);
    state.session.model_folder = absolute_folder(load.folder);
    state.pinned.valid = false;
    remember_model(state, load.folder);
    state.edit();
    state.set_message("Opened " + o.model->source() +
                          ". Type in the Input panel to run it; File > Close "
                          "model shows the session again.",
                      false);
    return true;
}

void finish_model_load(AppState& state)
{
    const double wait = state.opened.load_wait_ms;
    state.opened.load_wait_ms = -1.0;
    poll_model_load(state);
    state.opened.load_wait_ms = wait;
}

void cancel_model_load(AppState& state)
{
    state.opened.loader.cancel();
}

void close_model(AppState& state)
{
    OpenedModelState& o = state.opened;
    if (!o.model)
        return;
    const std::string label = o.model->label();
    o.model.reset();
    o.run = OpenedRun{};
    o.heads_off.clear();
    o.lens_wanted = false;
    o.weights = ModelWeights{};
    o.folder.clear();
    ++o.generation;
    ++o.weights_generation;
    state.session.model_folder.clear();
    state.pinned.valid = false;
    state.edit();
    state.set_message("Closed " + label + ": the panels show the session again", false);
}

void reopen_session_model(AppState& state, const std::string& opened_message)
{
    const std::string folder = state.session.model_folder;
    if (folder.empty())
    {
        close_model(state);
        return;
    }
    if (state.opened.model && absolute_folder(state.opened.folder) == folder)
        return;                         // open already
    state.session.model_folder.clear(); // set again when the folder opens
    if (Status s = open_model_folder(state, folder); !s.is_ok())
    {
        close_model(state);
        state.set_message(opened_message + ", but its model folder " + folder +
                              " did not open: " + s.message() + " The session's other settings are loaded.",
                          true);
    }
}

// [SECTION] Head ablation and the logit lens

void toggle_head_off(AppState& state, int layer, int head)
{
    OpenedModelState& o = state.opened;
    if (!o.model)
        return;
    const int layers = o.model->config.n_layers, h = o.model->config.n_heads;
    if (layer < 0 || layer >= layers || head < 0 || head >= h)
        return;
    if (o.heads_off.size() != static_cast<std::size_t>(layers * h))
        o.heads_off.assign(static_cast<std::size_t>(layers * h), 0);
    std::uint8_t& off = o.heads_off[static_cast<std::size_t>(layer * h + head)];
    off = off != 0 ? 0 : 1;
    if (heads_off_count(state) == 0)
        o.heads_off.clear();
    state.edit();
}

void all_heads_on(AppState& state)
{
    if (state.opened.heads_off.empty())
        return;
    state.opened.heads_off.clear();
    state.edit();
}

bool head_is_off(const AppState& state, int layer, int head)
{
    const OpenedModelState& o = state.opened;
    if (!o.model)
        return false;
    const std::size_t i = static_cast<std::size_t>(layer * o.model->config.n_heads + head);
    return layer >= 0 && head >= 0 && head < o.model->config.n_heads && i < o.heads_off.size() &&
           o.heads_off[i] != 0;
}

int heads_off_count(const AppState& state)
{
    int n = 0;
    for (const std::uint8_t off : state.opened.heads_off)
        n += off != 0 ? 1 : 0;
    return n;
}

void want_logit_lens(AppState& state, bool on)
{
    if (state.opened.lens_wanted == on)
        return;
    state.opened.lens_wanted = on;
    if (on && state.opened.model)
        state.edit();
}

// [SECTION] What the panels show

const LayerWeights* opened_layer_weights(const OpenedModelState& o, int layer)
{
    if (!o.model || layer < 0 || layer >= static_cast<int>(o.weights.layers.size()))
        return nullptr;
    LayerWeights& w = o.weights.layers[static_cast<std::size_t>(layer)];
    if (w.attn.W_Q.empty()) // not read yet, or freed (every model has at least one head)
        train::to_layer_weights(o.model->config, *o.model->params, layer, w);
    o.weights_read.resize(o.weights.layers.size(), 0);
    o.weights_read[static_cast<std::size_t>(layer)] = o.frame;
    return &w;
}

int release_unread_layers(OpenedModelState& o, int keep_frames)
{
    int freed = 0;
    for (std::size_t l = 0; l < o.weights.layers.size() && l < o.weights_read.size(); ++l)
    {
        LayerWeights& w = o.weights.layers[l];
        if (w.attn.W_Q.empty() || o.weights_read[l] + static_cast<unsigned long long>(keep_frames) > o.frame)
            continue;
        w = LayerWeights{};
        ++freed;
    }
    return freed;
}

std::string shown_model_label(const AppState& state)
{
    if (state.showing_trained())
        return "trained in Attention Lab";
    if (state.showing_opened())
        return state.opened.model->source();
    if (state.engine.has_imported_weights() && !state.session.weights_path.empty())
        return "weights imported from " + state.session.weights_path;
    return "seeded random weights";
}

} // namespace attnlab
