// Reading JSON documents from untrusted files: bounded nesting, no NUL bytes, short quotes in messages.
#pragma once

#include "core/status.h"
#include "core/tokenizer.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnlab
{

// Deepest nesting of arrays and objects a file of ours may have. The deepest real one is a trace export's
// [B][T][T] stage inside "layers" / "heads" (about 8 levels); nlohmann's dump() and copies recurse once per
// level, so a bound keeps a hostile file from overflowing the stack.
inline constexpr int kMaxJsonDepth = 64;

// Most memory a parsed document may take, as estimated while it is built (kJsonValueBytes a value, plus
// kJsonContainerBytes an array or object, plus a string's length). A file within its size limit can still
// describe a huge document: 256 MB of `{}` is 89 million objects, about 9 GB in memory. A real one, a 256 MB
// model file of full-precision numbers, is about 0.4 GB. Members a reader skips are not built and not
// counted.
inline constexpr std::size_t kMaxJsonDomBytes = std::size_t{1} << 30;
inline constexpr std::size_t kJsonValueBytes = 16;
inline constexpr std::size_t kJsonContainerBytes = 80;

// The first key given twice in one object of a document: the key, and the member of the root object it is
// inside (empty when it is a member of the root itself).
struct JsonRepeatedKey
{
    bool found = false;
    std::string key, root_key;
};

namespace detail
{
// The parser's error as a message for the user: where (line:column), and whether the text just stops (a file
// cut off while it was saved) or is not JSON there.
Status json_error_status(const nlohmann::json::exception& e, std::string_view text);
Status json_too_deep_status();
Status json_nul_status(std::size_t offset, std::string_view text);
Status json_too_big_status(std::size_t values, std::size_t max_bytes);

// Builds the document from nlohmann's SAX events, in time linear in the text (nlohmann's callback parser,
// which parse_json_text used before, rescans a parent for every empty object it closes: quadratic). Stops at
// the first level deeper than kMaxJsonDepth, and drops the root object's members that skip_key names
// without building them.
template <typename Json> class JsonDomBuilder
{
public:
    using string_t = typename Json::string_t;

    JsonDomBuilder(std::string_view text, bool (*skip_key)(const std::string& key),
                   std::size_t max_bytes = kMaxJsonDomBytes, JsonRepeatedKey* repeated = nullptr)
        : text_(text), skip_key_(skip_key), max_bytes_(max_bytes), repeated_(repeated)
    {
    }

    bool null() { return value(Json(nullptr)); }
    bool boolean(bool v) { return value(Json(v)); }
    bool number_integer(typename Json::number_integer_t v) { return value(Json(v)); }
    bool number_unsigned(typename Json::number_unsigned_t v) { return value(Json(v)); }
    bool number_float(typename Json::number_float_t v, const string_t& /*text*/) { return value(Json(v)); }
    bool string(string_t& v)
    {
        if (skipped_depth_ == 0 && !skip_next_)
            dom_bytes_ += v.size();
        return value(Json(std::move(v)));
    }
    bool binary(typename Json::binary_t& v) { return value(Json(std::move(v))); }

    bool start_object(std::size_t /*unknown*/) { return open(Json::value_t::object); }
    bool start_array(std::size_t /*unknown*/) { return open(Json::value_t::array); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(string_t& k)
    {
        if (skipped_depth_ > 0)
            return true;
        // A member of the root object the caller does not want: its value (however large) is not built.
        if (skip_key_ != nullptr && stack_.size() == 1 && skip_key_(k))
        {
            skip_next_ = true;
            return true;
        }
        // A repeated key is refused (nlohmann's parse keeps the last value silently: a session with
        // "version" twice was read as the second and said to be from a newer program), unless the caller
        // names repeats itself (a safetensors header): then the first is recorded and the last value kept.
        if (stack_.size() == 1)
            root_key_ = k;
        auto& members = stack_.back()->template get_ref<typename Json::object_t&>();
        const auto [at, added] = members.emplace(k, Json());
        if (!added && repeated_ == nullptr)
        {
            status_ =
                Status::error("the key \"" + std::string(utf8_prefix(k, 60)) +
                              "\" appears twice in one object, and only one value can count: remove one "
                              "of them");
            return false;
        }
        if (!added && !repeated_->found)
            *repeated_ =
                JsonRepeatedKey{true, k, stack_.size() == 1 ? std::string() : std::string(root_key_)};
        member_ = &at->second;
        return true;
    }

    template <class Exception>
    bool parse_error(std::size_t /*byte*/, const std::string& /*token*/, const Exception& e)
    {
        status_ = json_error_status(e, text_);
        return false;
    }

    Json& root() { return root_; }
    const Status& status() const { return status_; }

private:
    // A scalar (or a new container) in its place: the root, the next element of an array, or the value of
    // the last key. Returns where it now is.
    Json* place(Json&& v)
    {
        if (stack_.empty())
        {
            root_ = std::move(v);
            return &root_;
        }
        Json& parent = *stack_.back();
        if (parent.is_array())
        {
            parent.push_back(std::move(v));
            return &parent.back();
        }
        *member_ = std::move(v);
        return member_;
    }

    // Counts a value (and the container it may be) against kMaxJsonDomBytes; false when over.
    bool count(bool container)
    {
        if (skipped_depth_ > 0 || skip_next_)
            return true;
        ++values_;
        dom_bytes_ += kJsonValueBytes + (container ? kJsonContainerBytes : 0);
        if (dom_bytes_ <= max_bytes_)
            return true;
        status_ = json_too_big_status(values_, max_bytes_);
        return false;
    }

    bool value(Json&& v)
    {
        if (!count(false))
            return false;
        if (skipped_depth_ > 0)
            return true;
        if (skip_next_)
        {
            skip_next_ = false;
            return true;
        }
        place(std::move(v));
        return true;
    }

    bool open(typename Json::value_t type)
    {
        if (++depth_ > kMaxJsonDepth)
        {
            status_ = json_too_deep_status();
            return false;
        }
        if (!count(true))
            return false;
        if (skipped_depth_ > 0 || skip_next_)
        {
            skip_next_ = false;
            ++skipped_depth_;
            return true;
        }
        stack_.push_back(place(Json(type)));
        return true;
    }

    bool close()
    {
        --depth_;
        if (skipped_depth_ > 0)
            --skipped_depth_;
        else
            stack_.pop_back();
        return true;
    }

    std::string_view text_;
    bool (*skip_key_)(const std::string& key);
    std::size_t max_bytes_;
    JsonRepeatedKey* repeated_;
    string_t root_key_; // the root object's member being built
    Json root_;
    std::vector<Json*> stack_; // the open arrays and objects, innermost last
    Json* member_ = nullptr;   // where the value of the last key goes
    int depth_ = 0;            // open arrays and objects, skipped ones included
    int skipped_depth_ = 0;    // > 0: inside a dropped member's value
    bool skip_next_ = false;   // the next value is a dropped member's
    std::size_t values_ = 0;
    std::size_t dom_bytes_ = 0; // estimated memory of what is built
    Status status_;
};
} // namespace detail

// Parses text into out (nlohmann::json or ordered_json), in time and memory linear in the text. Refuses, with
// a message that says where: a NUL byte (a JSON file is text), nesting deeper than kMaxJsonDepth, an empty or
// cut-off text ("the file is incomplete", with where it stops), a document that would take more than
// kMaxJsonDomBytes of memory, and malformed JSON ("not valid JSON at line
// 3, column 7: ..."). When skip_top_level_key is given, members of the root object for which it returns true
// are dropped while parsing (large parts a reader does not need are never built). A key given twice in one
// object is refused, naming it; with `repeated` given, the first such key is recorded there instead and the
// last value kept (for a caller with its own message). On error out is unchanged.
template <typename Json>
Status parse_json_text(std::string_view text, Json* out,
                       bool (*skip_top_level_key)(const std::string& key) = nullptr,
                       JsonRepeatedKey* repeated = nullptr)
{
    if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
        return detail::json_nul_status(nul, text);
    detail::JsonDomBuilder<Json> builder(text, skip_top_level_key, kMaxJsonDomBytes, repeated);
    try
    {
        if (!Json::sax_parse(text.begin(), text.end(), &builder))
            return builder.status().is_ok() ? Status::error("not valid JSON") : builder.status();
    }
    catch (const nlohmann::json::exception& e)
    {
        return detail::json_error_status(e, text);
    }
    *out = std::move(builder.root());
    return Status::ok();
}

// A value as it is written in JSON, cut to about max_chars with "…" (for messages quoting a file's content).
std::string json_excerpt(const nlohmann::json& value, std::size_t max_chars = 60);
std::string json_excerpt(const nlohmann::ordered_json& value, std::size_t max_chars = 60);

} // namespace attnlab
