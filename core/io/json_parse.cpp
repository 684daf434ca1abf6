// Bounded JSON parsing for every file Attention Lab reads (see json_parse.h).
#include "json_parse.h"

#include "atomic_file.h"

#include "core/tokenizer.h"

#include <algorithm>
#include <stdexcept>

namespace attnlab
{

namespace detail
{

Status json_nul_status(std::size_t offset, std::string_view text)
{
    if (looks_utf16(text))
        return Status::error(
            "the file is UTF-16 text (a Windows editor's \"Unicode\"), but JSON files are read "
            "as UTF-8: save it as UTF-8 (Save as, Encoding: UTF-8)");
    return Status::error("byte " + std::to_string(offset) +
                         " is a NUL byte: a JSON file is text (is this the right file?)");
}

Status json_too_deep_status()
{
    return Status::error("arrays and objects are nested more than " + std::to_string(kMaxJsonDepth) +
                         " levels deep; no Attention Lab file is (is this the right file?)");
}

Status json_too_big_status(std::size_t values, std::size_t max_bytes)
{
    return Status::error("the file holds too many values: after " + std::to_string(values) +
                         " of them its JSON would take more than " +
                         format_bytes(static_cast<double>(max_bytes)) +
                         " of memory, more than any Attention Lab file needs (is this the right file?)");
}

namespace
{

// The parser's own words, without its "[json.exception.parse_error.101] parse error at line 1, column 2: "
// prefix (we say where ourselves) and cut to a readable length.
std::string parser_reason(const std::string& what)
{
    std::string reason = what;
    if (const std::size_t bracket = reason.find("] ");
        reason.rfind("[json.exception", 0) == 0 && bracket != std::string::npos)
        reason = reason.substr(bracket + 2);
    if (reason.rfind("parse error", 0) == 0)
        if (const std::size_t colon = reason.find(": "); colon != std::string::npos)
            reason = reason.substr(colon + 2);
    // "syntax error while parsing value - unexpected ..." : the part after the dash says what was wrong.
    if (reason.rfind("syntax error while parsing", 0) == 0)
        if (const std::size_t dash = reason.find(" - "); dash != std::string::npos)
            reason = reason.substr(dash + 3);
    // The parser quotes what it last read, which may be a whole line of the file: keep its start.
    constexpr std::size_t kMaxParserMessage = 240;
    if (reason.size() > kMaxParserMessage)
        reason = std::string(utf8_prefix(reason, kMaxParserMessage)) + "…";
    return reason;
}

// "line 3, column 7" of the byte at offset (both counted from 1, columns in bytes as the parser counts).
std::string line_column(std::string_view text, std::size_t offset)
{
    offset = std::min(offset, text.size());
    std::size_t line = 1, line_start = 0;
    for (std::size_t i = 0; i < offset; ++i)
        if (text[i] == '\n')
        {
            ++line;
            line_start = i + 1;
        }
    return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1);
}

std::size_t trimmed_size(std::string_view text)
{
    std::size_t n = text.size();
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == '\t'))
        --n;
    return n;
}

} // namespace

Status json_error_status(const nlohmann::json::exception& e, std::string_view text)
{
    const std::string reason = parser_reason(e.what());
    const auto* parse = dynamic_cast<const nlohmann::json::parse_error*>(&e);
    if (parse == nullptr)
        return Status::error("not valid JSON: " + reason);
    const std::size_t end = trimmed_size(text);
    if (end == 0)
        return Status::error("the file is empty (no JSON in it); it may have been cut off while it was being "
                             "saved: open an earlier copy, or save it again");
    // parse->byte counts from 1 and is the last byte read; one past the end when the parser wanted more text
    // than there is: the document stops early (a file cut off while it was written).
    const bool stops_early = parse->byte > text.size();
    const std::size_t last = parse->byte > 0 ? parse->byte - 1 : 0;
    if (stops_early)
        return Status::error(
            "the file is incomplete: its JSON stops at " + line_column(text, end - 1) +
            " before it is closed; it may have been cut off while it was being saved (a full "
            "disk, or the program stopped): open an earlier copy, or save it again");
    return Status::error("not valid JSON at " + line_column(text, last) + ": " + reason);
}

} // namespace detail

namespace
{

template <typename Json> std::string excerpt(const Json& value, std::size_t max_chars)
{
    std::string s = value.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (s.size() <= max_chars)
        return s;
    s.resize(utf8_prefix(s, max_chars).size());
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
