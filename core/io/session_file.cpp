// Session files: read and written with nlohmann::ordered_json so the key order (and bytes) are stable.
#include "session_file.h"

#include "atomic_file.h"
#include "json_parse.h"
#include "json_reader.h"

#include "core/settings.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <limits>

namespace attnlab
{

namespace
{

using json = nlohmann::ordered_json;

// The float's shortest decimal text read back as a double, so 0.7f is written "0.7", not 0.699999988.
double float_for_json(float value)
{
    char text[32];
    const auto result = std::to_chars(text, text + sizeof text, value);
    *result.ptr = '\0';
    return std::strtod(text, nullptr);
}

// "a\nb" -> ["a", "b"]; "" -> [] (joining with '\n' gives the text back exactly).
std::vector<std::string> split_lines(const std::string& text)
{
    std::vector<std::string> lines;
    if (text.empty())
        return lines;
    size_t start = 0;
    while (true)
    {
        const size_t end = text.find('\n', start);
        if (end == std::string::npos)
        {
            lines.push_back(text.substr(start));
            return lines;
        }
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
}

// Sessions are read with the common JsonReader (written with ordered_json above, for stable bytes).
using Reader = JsonReader;
using read_json = nlohmann::json;

// A text field: a string, or a list of strings (one per line).
Status read_text(const Reader& reader, const read_json& object, const char* key, std::string* out)
{
    const read_json* it = nullptr;
    ATTNLAB_TRY(reader.member(object, "", key, Need::Optional, &it));
    if (it == nullptr)
        return Status::ok();
    if (it->is_string())
    {
        *out = it->get<std::string>();
        return Status::ok();
    }
    if (it->is_array() &&
        std::all_of(it->begin(), it->end(), [](const read_json& s) { return s.is_string(); }))
    {
        std::string joined;
        for (std::size_t i = 0; i < it->size(); ++i)
            joined += (i > 0 ? "\n" : "") + (*it)[i].get<std::string>();
        *out = std::move(joined);
        return Status::ok();
    }
    return reader.expected(key, "a string or a list of strings (one per line)", *it);
}

// One setting from "config" (absent: *out keeps its value), as its row's kind says.
Status read_setting(const Reader& reader, const read_json& c, const SettingInfo& info, Config* out)
{
    constexpr Need optional = Need::Optional;
    const read_json* it = nullptr;
    ATTNLAB_TRY(reader.member(c, "config", info.key, optional, &it));
    if (it == nullptr)
        return Status::ok();
    switch (info.kind)
    {
    case SettingKind::Int:
    {
        const std::string zero = info.note != nullptr ? std::string("0: ") + info.note : std::string();
        return reader.integer(
            c, "", info.key,
            {static_cast<long long>(info.min), INT_MAX, zero.empty() ? nullptr : zero.c_str()},
            &(out->*info.int_member), optional);
    }
    case SettingKind::Choice:
    {
        if (!it->is_string())
            return reader.expected(info.key, choice_list(info, true), *it);
        Status parsed = set_choice_by_name(info, it->get<std::string>(), out);
        if (!parsed)
            return reader.error("\"" + std::string(info.key) + "\": " + parsed.message());
        return Status::ok();
    }
    case SettingKind::Float:
        return reader.real(c, "", info.key,
                           RealRange{float_for_json(static_cast<float>(info.min)),
                                     float_for_json(static_cast<float>(info.max)), false, false, false},
                           &(out->*info.float_member), optional);
    case SettingKind::Bool:
        if (!it->is_boolean())
            return reader.expected(info.key, "true (" + std::string(info.note) + ") or false", *it);
        return reader.boolean(c, "", info.key, &(out->*info.bool_member), optional);
    case SettingKind::Seed:
        return reader.uint64(c, "", info.key, &(out->*info.seed_member), optional);
    }
    return Status::ok();
}

// One setting's value for "config", as its row's kind says.
json setting_to_json(const SettingInfo& info, const Config& c)
{
    switch (info.kind)
    {
    case SettingKind::Int:
        return c.*info.int_member;
    case SettingKind::Choice:
        return choice_name(info, c);
    case SettingKind::Float:
        return float_for_json(c.*info.float_member);
    case SettingKind::Bool:
        return c.*info.bool_member;
    case SettingKind::Seed:
        return c.*info.seed_member;
    }
    return nullptr;
}

Status read_config(const Reader& reader, const read_json& c, Config* out)
{
    if (!c.is_object())
        return reader.expected("config", "an object", c);
    std::vector<const char*> known = {"resolved"}; // written by trace and weights exports, read as a note
    for (const SettingInfo& info : setting_table())
        known.push_back(info.key);
    ATTNLAB_TRY(reader.unknown_keys(c, "config", known));
    Config config;
    for (const SettingInfo& info : setting_table())
        ATTNLAB_TRY(read_setting(reader, c, info, &config));
    Status valid = validate_config(config);
    if (!valid)
        return reader.error(valid.message());
    *out = config;
    return Status::ok();
}

} // namespace

std::string session_to_json(const Session& session)
{
    json config = json::object();
    for (const SettingInfo& info : setting_table())
        config[info.key] = setting_to_json(info, session.config);
    json root = {
        {"format", kSessionFormat},          {"version", kSessionVersion},
        {"text", split_lines(session.text)}, {"target", split_lines(session.target)},
        {"config", std::move(config)},       {"weights", session.weights_path},
    };
    if (!session.model_path.empty()) // only then: a session without a model reads as it always did
        root["model"] = session.model_path;
    if (!session.model_folder.empty()) // likewise: older versions read a session without a model folder
        root["model_folder"] = session.model_folder;
    // Text that is not UTF-8 (the engine refuses it, but the autosave keeps what was typed) is written with
    // U+FFFD in place of the bad bytes rather than throwing.
    return root.dump(4, ' ', false, json::error_handler_t::replace) + "\n";
}

Status session_from_json(std::string_view text, const std::string& source, Session* out)
{
    const Reader reader(source);
    read_json root;
    ATTNLAB_TRY(reader.parse(text, &root));
    if (!root.is_object())
        return reader.error("expected a JSON object with \"format\": \"attnlab-session\"");
    const auto format = root.find("format");
    const bool trace = format != root.end() && *format == "attnlab-trace";
    ATTNLAB_TRY(reader.format(root, {kSessionFormat}, trace ? "a trace export is not a session file" : ""));
    int version = 0;
    ATTNLAB_TRY(reader.version(root, kSessionVersion, &version));
    ATTNLAB_TRY(reader.unknown_keys(
        root, "", {"format", "version", "text", "target", "config", "weights", "model", "model_folder"}));

    Session session;
    ATTNLAB_TRY(read_text(reader, root, "text", &session.text));
    ATTNLAB_TRY(read_text(reader, root, "target", &session.target));
    if (const auto it = root.find("weights"); it != root.end())
    {
        if (it->is_null())
            session.weights_path.clear();
        else if (it->is_string())
            session.weights_path = it->get<std::string>();
        else
            return reader.expected("weights", "a file path (a string) or \"\" for seeded weights", *it);
    }
    if (const auto it = root.find("model"); it != root.end())
    {
        if (!it->is_string())
            return reader.expected("model", "the path of a trained model file (a string)", *it);
        session.model_path = it->get<std::string>();
    }
    if (const auto it = root.find("model_folder"); it != root.end())
    {
        if (!it->is_string())
            return reader.expected("model_folder", "the path of a Hugging Face model folder (a string)", *it);
        session.model_folder = it->get<std::string>();
    }
    if (const auto it = root.find("config"); it != root.end())
        ATTNLAB_TRY(read_config(reader, *it, &session.config));
    *out = std::move(session);
    return Status::ok();
}

Status save_session_file(const Session& session, const std::string& path)
{
    return write_file_atomically(path, session_to_json(session));
}

Status load_session_file(const std::string& path, Session* out)
{
    std::string text;
    ATTNLAB_TRY(read_file(path, &text, kMaxSessionFileBytes, "session file"));
    return session_from_json(text, path, out);
}

std::string resolve_weights_path(const std::string& session_path, const std::string& weights_path)
{
    if (weights_path.empty() || weights_path[0] == '/' || session_path.empty())
        return weights_path;
    const size_t slash = session_path.find_last_of('/');
    if (slash == std::string::npos)
        return weights_path;
    return session_path.substr(0, slash + 1) + weights_path;
}

std::string absolute_weights_path(const std::string& session_path, const std::string& weights_path)
{
    if (weights_path.empty())
        return weights_path;
    std::error_code ec;
    const std::filesystem::path absolute =
        std::filesystem::absolute(resolve_weights_path(session_path, weights_path), ec);
    return ec ? resolve_weights_path(session_path, weights_path) : absolute.lexically_normal().string();
}

std::string portable_weights_path(const std::string& session_path, const std::string& weights_path)
{
    if (weights_path.empty() || weights_path[0] != '/' || session_path.empty())
        return weights_path;
    std::error_code ec;
    const std::filesystem::path folder = std::filesystem::absolute(session_path, ec).parent_path();
    if (ec)
        return weights_path;
    const std::filesystem::path relative =
        std::filesystem::path(weights_path).lexically_normal().lexically_relative(folder.lexically_normal());
    if (relative.empty() || *relative.begin() == "..")
        return weights_path;
    return relative.string();
}

} // namespace attnlab
