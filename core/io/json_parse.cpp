// Bounded JSON parsing for every file Attention Lab reads (see json_parse.h).
#include "json_parse.h"

#include <stdexcept>

namespace attnlab
{

namespace detail
{

Status json_nul_status(std::size_t offset)
{
    return Status::error("byte " + std::to_string(offset) +
                         " is a NUL byte: a JSON file is text (is this the right file?)");
}

Status json_too_deep_status()
{
    return Status::error("arrays and objects are nested more than " + std::to_string(kMaxJsonDepth) +
                         " levels deep; no Attention Lab file is (is this the right file?)");
}

Status json_error_status(const nlohmann::json::exception& e)
{
    std::string what = e.what();
    const std::size_t bracket = what.find("] ");
    if (what.rfind("[json.exception", 0) == 0 && bracket != std::string::npos)
        what = what.substr(bracket + 2);
    // The parser quotes what it last read, which may be a whole line of the file: keep its start.
    constexpr std::size_t kMaxParserMessage = 240;
    if (what.size() > kMaxParserMessage)
    {
        std::size_t cut = kMaxParserMessage;
        while (cut > 0 && (static_cast<unsigned char>(what[cut]) & 0xC0) == 0x80)
            --cut;
        what = what.substr(0, cut) + "…";
    }
    return Status::error("malformed JSON: " + what);
}

} // namespace detail

namespace
{

template <typename Json> std::string excerpt(const Json& value, std::size_t max_chars)
{
    std::string s = value.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (s.size() <= max_chars)
        return s;
    std::size_t cut = max_chars;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) // not inside a UTF-8 sequence
        --cut;
    s.resize(cut);
    return s + "…";
}

} // namespace

std::string json_excerpt(const nlohmann::json& value, std::size_t max_chars)
{
    return excerpt(value, max_chars);
}

std::string json_excerpt(const nlohmann::ordered_json& value, std::size_t max_chars)
{
    return excerpt(value, max_chars);
}

} // namespace attnlab
