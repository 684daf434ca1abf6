// Reading JSON documents from untrusted files: bounded nesting, no NUL bytes, short quotes in messages.
#pragma once

#include "core/status.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace attnlab
{

// Deepest nesting of arrays and objects a file of ours may have. The deepest real one is a trace export's
// [B][T][T] stage inside "layers" / "heads" (about 8 levels); nlohmann's dump() and copies recurse once per
// level, so a bound keeps a hostile file from overflowing the stack.
inline constexpr int kMaxJsonDepth = 64;

namespace detail
{
// Thrown from the parser callback to stop at the first level too deep (nlohmann offers no other way out).
struct JsonTooDeep
{
};
// The parser's error as a message for the user: where (line:column), and whether the text just stops (a file
// cut off while it was saved) or is not JSON there.
Status json_error_status(const nlohmann::json::exception& e, std::string_view text);
Status json_too_deep_status();
Status json_nul_status(std::size_t offset);
} // namespace detail

// Parses text into out (nlohmann::json or ordered_json). Refuses, with a message that says where: a NUL byte
// (a JSON file is text), nesting deeper than kMaxJsonDepth, an empty or cut-off text ("the file is
// incomplete", with where it stops) and malformed JSON ("not valid JSON at line 3, column 7: ..."). When
// skip_top_level_key is given, members of the root object for which it returns true are dropped while parsing
// (large parts a reader does not need are never built). On error out is unchanged.
template <typename Json>
Status parse_json_text(std::string_view text, Json* out,
                       bool (*skip_top_level_key)(const std::string& key) = nullptr)
{
    if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
        return detail::json_nul_status(nul);
    try
    {
        Json parsed =
            Json::parse(text.begin(), text.end(),
                        [skip_top_level_key](int depth, typename Json::parse_event_t event, Json& value)
                        {
                            if ((event == Json::parse_event_t::object_start ||
                                 event == Json::parse_event_t::array_start) &&
                                depth >= kMaxJsonDepth)
                                throw detail::JsonTooDeep{};
                            if (skip_top_level_key != nullptr && depth == 1 &&
                                event == Json::parse_event_t::key && value.is_string())
                                return !skip_top_level_key(value.template get_ref<const std::string&>());
                            return true;
                        });
        *out = std::move(parsed);
    }
    catch (const detail::JsonTooDeep&)
    {
        return detail::json_too_deep_status();
    }
    catch (const nlohmann::json::exception& e)
    {
        return detail::json_error_status(e, text);
    }
    return Status::ok();
}

// A value as it is written in JSON, cut to about max_chars with "…" (for messages quoting a file's content).
std::string json_excerpt(const nlohmann::json& value, std::size_t max_chars = 60);
std::string json_excerpt(const nlohmann::ordered_json& value, std::size_t max_chars = 60);

} // namespace attnlab
