// The options every command shares (--text, --session, --d-model, ...) and how they become a Session.
#pragma once

#include "core/session.h"
#include "core/status.h"
#include "core/weights.h"

#include <cstdint>
#include <string>

namespace CLI
{
class App;
class Option;
} // namespace CLI

namespace attnlab
{

// Values of the shared options; an option not given on the command line keeps the session's value.
struct SessionOptions
{
    std::string text, session_path, target, mask, positional, weights_path;
    int d_model = 0, heads = 0, d_k = 0, d_v = 0, d_ff = 0, layers = 0;
    float temperature = 1.0f;
    bool no_scale = false;
    std::string seed; // checked when the session is built: 0 to 2^64 - 1

    // Set by add_session_options: which options were given (CLI::Option::count() > 0).
    CLI::Option* text_option = nullptr;
    CLI::Option* session_option = nullptr;
    CLI::Option* target_option = nullptr;
    CLI::Option* d_model_option = nullptr;
    CLI::Option* heads_option = nullptr;
    CLI::Option* d_k_option = nullptr;
    CLI::Option* d_v_option = nullptr;
    CLI::Option* d_ff_option = nullptr;
    CLI::Option* layers_option = nullptr;
    CLI::Option* mask_option = nullptr;
    CLI::Option* positional_option = nullptr;
    CLI::Option* temperature_option = nullptr;
    CLI::Option* seed_option = nullptr;
    CLI::Option* no_scale_option = nullptr;
    CLI::Option* weights_option = nullptr;
};

// Adds --text --session --target --d-model --heads --d-k --d-v --d-ff --layers --mask --positional
// --temperature --no-scale --seed --weights to app, storing into options (which must outlive the parse).
void add_session_options(CLI::App& app, SessionOptions& options);

// The session the options describe: the --session file (or the built-in default session), then every option
// given on the command line on top. *session_path is the --session file ("" when none). A weights path is
// made absolute: one from the session file against that file's folder, one from --weights against the working
// directory (absolute_weights_path). On error (unreadable or invalid session file, unknown mask name, invalid
// config) *out is unchanged.
Status build_session(const SessionOptions& options, Session* out, std::string* session_path = nullptr);

// True when at least one of the shared options was given on the command line.
bool any_session_option_given(const SessionOptions& options);

// Loads the session's weights file (attnlab or PyTorch layout, see load_any_weights_file) into *weights.
// Returns OK with *loaded = false when the session uses seeded weights.
Status load_session_weights(const Session& session, ModelWeights* weights, bool* loaded);

} // namespace attnlab
