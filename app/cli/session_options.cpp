// The shared session options (CLI11) and their translation into a Session.
#include "session_options.h"

#include "core/io/json_io.h"
#include "core/io/session_file.h"
#include "core/settings.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <limits>

namespace attnlab
{

void add_session_options(CLI::App& app, SessionOptions& o)
{
    o.text_option = app.add_option("--text", o.text, "Source text, one sentence per line (a batch)");
    o.session_option = app.add_option("--session", o.session_path,
                                      "Session file to start from (options given here override it)");
    o.target_option = app.add_option("--target", o.target, "Target text for cross-attention");
    for (const SettingInfo& info : setting_table())
    {
        SettingOption& option = o.settings[static_cast<std::size_t>(info.id)];
        switch (info.kind)
        {
        case SettingKind::Int:
            option.option = app.add_option(info.flag, option.int_value, info.help);
            break;
        case SettingKind::Float:
            option.option = app.add_option(info.flag, option.float_value, info.help);
            break;
        case SettingKind::Bool:
            option.option = app.add_flag(info.flag, option.flag, info.help);
            break;
        case SettingKind::Choice:
        case SettingKind::Seed: // parsed here rather than by CLI11, which wraps "-5" around to 2^64 - 5
            option.option = app.add_option(info.flag, option.text, info.help);
            break;
        }
    }
    o.weights_option =
        app.add_option("--weights", o.weights_path,
                       "Weights file: an attnlab trace/weights JSON or a PyTorch state dict JSON");
}

namespace
{

bool given(const CLI::Option* option)
{
    return option != nullptr && option->count() > 0;
}

// Puts one given setting option into the config, as its row's kind says.
Status apply_setting(const SettingInfo& info, const SettingOption& option, Config& c)
{
    switch (info.kind)
    {
    case SettingKind::Int:
        c.*info.int_member = option.int_value;
        return Status::ok();
    case SettingKind::Float:
        c.*info.float_member = option.float_value;
        return Status::ok();
    case SettingKind::Bool: // the flag says "not the default" (--no-scale)
        c.*info.bool_member = !(Config{}.*info.bool_member);
        return Status::ok();
    case SettingKind::Choice:
    {
        Status parsed = set_choice_by_name(info, option.text, &c);
        if (!parsed)
            return Status::error(std::string(info.flag) + ": " + parsed.message());
        return Status::ok();
    }
    case SettingKind::Seed:
    {
        const std::string& t = option.text;
        const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), c.*info.seed_member);
        if (t.empty() || ec != std::errc() || end != t.data() + t.size())
            return Status::error(std::string(info.flag) + ": \"" + t + "\" is not a whole number from 0 to " +
                                 std::to_string(std::numeric_limits<std::uint64_t>::max()));
        return Status::ok();
    }
    }
    return Status::ok();
}

} // namespace

std::vector<const CLI::Option*> given_session_options(const SessionOptions& o)
{
    std::vector<const CLI::Option*> options = {o.text_option, o.session_option, o.target_option};
    for (const SettingOption& setting : o.settings)
        options.push_back(setting.option);
    options.push_back(o.weights_option);
    std::vector<const CLI::Option*> given_options;
    for (const CLI::Option* option : options)
        if (given(option))
            given_options.push_back(option);
    return given_options;
}

bool any_session_option_given(const SessionOptions& o)
{
    return !given_session_options(o).empty();
}

Status build_session(const SessionOptions& o, Session* out, std::string* session_path)
{
    Session session;
    if (given(o.session_option))
    {
        Status loaded = load_session_file(o.session_path, &session);
        if (!loaded)
            return loaded;
    }
    if (given(o.text_option))
        session.text = o.text;
    if (given(o.target_option))
        session.target = o.target;
    for (const SettingInfo& info : setting_table())
    {
        const SettingOption& option = o.settings[static_cast<std::size_t>(info.id)];
        if (given(option.option))
            ATTNLAB_TRY(apply_setting(info, option, session.config));
    }
    std::string from = given(o.session_option) ? o.session_path : std::string();
    if (given(o.weights_option))
    {
        if (o.weights_path.empty())
            return Status::error(
                "--weights: the file path is empty; give a weights file, or leave the option "
                "out for seeded weights");
        // A path given on the command line is relative to the working directory, not to the session file.
        session.weights_path = absolute_weights_path(std::string(), o.weights_path);
    }
    else if (!from.empty())
    {
        session.weights_path = absolute_weights_path(from, session.weights_path);
    }
    // The session's model file and model folder are relative to the session file too, as File > Open reads
    // them (from another working folder they were not found).
    if (!from.empty())
    {
        session.model_path = absolute_weights_path(from, session.model_path);
        session.model_folder = absolute_weights_path(from, session.model_folder);
    }
    Status valid = validate_config(session.config);
    if (!valid)
        return valid;
    *out = std::move(session);
    if (session_path)
        *session_path = from;
    return Status::ok();
}

Status load_session_weights(const Session& session, ModelWeights* weights, bool* loaded)
{
    *loaded = false;
    if (session.weights_path.empty())
        return Status::ok();
    Status status = load_any_weights_file(session.weights_path, session.config, weights);
    if (status)
        *loaded = true;
    return status;
}

} // namespace attnlab
