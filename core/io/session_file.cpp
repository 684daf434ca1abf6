// Session files: read and written with nlohmann::ordered_json so the key order (and bytes) are stable.
#include "session_file.h"

#include "atomic_file.h"
#include "json_parse.h"

#include "core/settings.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <set>

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

class Reader
{
public:
    explicit Reader(const std::string& source) : source_(source) {}

    Status error(const std::string& what) const { return Status::error(source_ + ": " + what); }
    Status field_error(const char* key, const std::string& what, const json& got) const
    {
        return error("\"" + std::string(key) + "\" " + what + ", got " + json_excerpt(got));
    }

    // Integer fields: min is the smallest valid value (1: positive, 0: non-negative).
    Status integer(const json& object, const char* key, int min, const std::string& rule, int* out) const
    {
        const auto it = object.find(key);
        if (it == object.end())
            return Status::ok();
        if (!it->is_number_integer() || it->get<long long>() < min ||
            it->get<long long>() > std::numeric_limits<int>::max())
            return field_error(key, "must be " + rule, *it);
        *out = static_cast<int>(it->get<long long>());
        return Status::ok();
    }

    Status text(const json& object, const char* key, std::string* out) const
    {
        const auto it = object.find(key);
        if (it == object.end())
            return Status::ok();
        if (it->is_string())
        {
            *out = it->get<std::string>();
            return Status::ok();
        }
        if (it->is_array())
        {
            std::string joined;
            for (size_t i = 0; i < it->size(); ++i)
            {
                if (!(*it)[i].is_string())
                    return field_error(key, "must be a string or a list of strings (one per line)", *it);
                if (i > 0)
                    joined += '\n';
                joined += (*it)[i].get<std::string>();
            }
            *out = std::move(joined);
            return Status::ok();
        }
        return field_error(key, "must be a string or a list of strings (one per line)", *it);
    }

private:
    const std::string& source_;
};

Status unknown_keys(const Reader& reader, const json& object, const std::set<std::string>& known,
                    const char* where)
{
    for (const auto& item : object.items())
        if (known.count(item.key()) == 0)
            return reader.error(std::string("unknown key \"") + item.key() + "\"" + where);
    return Status::ok();
}

// One setting from "config" (absent: *out keeps its value), as its row's kind says.
Status read_setting(const Reader& reader, const json& c, const SettingInfo& info, Config* out)
{
    const auto it = c.find(info.key);
    if (it == c.end())
        return Status::ok();
    switch (info.kind)
    {
    case SettingKind::Int:
        return reader.integer(c, info.key, static_cast<int>(info.min),
                              info.min > 0 ? std::string("a positive integer")
                                           : std::string("a non-negative integer (0: ") + info.note + ")",
                              &(out->*info.int_member));
    case SettingKind::Choice:
    {
        if (!it->is_string())
            return reader.field_error(info.key, "must be " + choice_list(info, true), *it);
        Status parsed = set_choice_by_name(info, it->get<std::string>(), out);
        if (!parsed)
            return reader.error("\"" + std::string(info.key) + "\": " + parsed.message());
        return Status::ok();
    }
    case SettingKind::Float:
        if (!it->is_number() || !(it->get<double>() >= info.min) || !(it->get<double>() <= info.max))
            return reader.field_error(info.key,
                                      "must be a number from " +
                                          json(float_for_json(static_cast<float>(info.min))).dump() + " to " +
                                          json(float_for_json(static_cast<float>(info.max))).dump(),
                                      *it);
        out->*info.float_member = static_cast<float>(it->get<double>());
        return Status::ok();
    case SettingKind::Bool:
        if (!it->is_boolean())
            return reader.field_error(info.key, "must be true (" + std::string(info.note) + ") or false",
                                      *it);
        out->*info.bool_member = it->get<bool>();
        return Status::ok();
    case SettingKind::Seed:
        if (!it->is_number_unsigned())
            return reader.field_error(info.key, "must be a non-negative integer", *it);
        out->*info.seed_member = it->get<std::uint64_t>();
        return Status::ok();
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

Status read_config(const Reader& reader, const json& c, Config* out)
{
    if (!c.is_object())
        return reader.error("\"config\" must be an object, got " + json_excerpt(c));
    std::set<std::string> known = {"resolved"}; // written by trace and weights exports, read as a note
    for (const SettingInfo& info : setting_table())
        known.insert(info.key);
    ATTNLAB_TRY(unknown_keys(reader, c, known, " in \"config\""));
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
    // Text that is not UTF-8 (the engine refuses it, but the autosave keeps what was typed) is written with
    // U+FFFD in place of the bad bytes rather than throwing.
    return root.dump(4, ' ', false, json::error_handler_t::replace) + "\n";
}

Status session_from_json(std::string_view text, const std::string& source, Session* out)
{
    const Reader reader(source);
    json root;
    if (Status parsed = parse_json_text(text, &root); !parsed)
        return reader.error(parsed.message());
    if (!root.is_object())
        return reader.error("expected a JSON object with \"format\": \"attnlab-session\"");
    const auto format = root.find("format");
    if (format == root.end())
        return reader.error("\"format\" is missing; expected \"attnlab-session\"");
    if (!format->is_string() || *format != kSessionFormat)
        return reader.error("\"format\" is " + json_excerpt(*format) + ", expected \"attnlab-session\"" +
                            (format->is_string() && *format == "attnlab-trace"
                                 ? " (a trace export is not a session file)"
                                 : ""));
    const auto version = root.find("version");
    if (version == root.end() || !version->is_number_integer() || version->get<long long>() < 1)
        return reader.error("\"version\" must be a positive integer" +
                            (version == root.end() ? std::string() : ", got " + json_excerpt(*version)));
    if (version->get<long long>() > kSessionVersion)
        return reader.error("version " + json_excerpt(*version) + " is newer than this program reads (" +
                            std::to_string(kSessionVersion) + "); update Attention Lab");
    ATTNLAB_TRY(unknown_keys(reader, root,
                             {"format", "version", "text", "target", "config", "weights", "model"}, ""));

    Session session;
    ATTNLAB_TRY(reader.text(root, "text", &session.text));
    ATTNLAB_TRY(reader.text(root, "target", &session.target));
    if (const auto it = root.find("weights"); it != root.end())
    {
        if (it->is_null())
            session.weights_path.clear();
        else if (it->is_string())
            session.weights_path = it->get<std::string>();
        else
            return reader.field_error("weights", "must be a file path (a string) or \"\" for seeded weights",
                                      *it);
    }
    if (const auto it = root.find("model"); it != root.end())
    {
        if (!it->is_string())
            return reader.field_error("model", "must be the path of a trained model file (a string)", *it);
        session.model_path = it->get<std::string>();
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
