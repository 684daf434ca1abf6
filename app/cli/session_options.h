// The options every command shares (--text, --session, --d-model, ...) and how they become a Session.
#pragma once

#include "core/session.h"
#include "core/status.h"
#include "core/weights.h"

#include <array>
#include <string>
#include <vector>

namespace CLI
{
class App;
class Option;
} // namespace CLI

namespace attnlab
{

// One model setting's option (a row of the settings table, core/settings.h): the value as given, in the
// field of the setting's kind (Int: int_value, Float: float_value, Bool: flag, Choice and Seed: text, parsed
// when the session is built).
struct SettingOption
{
    int int_value = 0;
    float float_value = 0.0f;
    bool flag = false;
    std::string text;
    CLI::Option* option = nullptr; // set by add_session_options
};

// Values of the shared options; an option not given on the command line keeps the session's value.
struct SessionOptions
{
    std::string text, session_path, target, weights_path;
    std::array<SettingOption, kSettingCount> settings; // in setting_table() order

    // Set by add_session_options: which options were given (CLI::Option::count() > 0).
    CLI::Option* text_option = nullptr;
    CLI::Option* session_option = nullptr;
    CLI::Option* target_option = nullptr;
    CLI::Option* weights_option = nullptr;
};

// Adds --text --session --target, one option per model setting (its row's flag: --d-model --heads --d-k --d-v
// --d-ff --layers --mask --positional --temperature --no-scale --seed), and --weights to app, storing into
// options (which must outlive the parse).
void add_session_options(CLI::App& app, SessionOptions& options);

// The shared options given on the command line, in the order add_session_options adds them.
std::vector<const CLI::Option*> given_session_options(const SessionOptions& options);

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
