// JsonReader: the one reader of every JSON file format (sessions, lessons, weights, models): typed getters
// for required and optional members, each message in one style: FILE: "KEY" must be RULE, got WHAT.
#pragma once

#include "core/matrix.h"
#include "core/status.h"

#include <nlohmann/json.hpp>

#include <climits>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnlab
{

// Whether a member must be there. An optional member that is absent leaves the output as it was.
enum class Need
{
    Required,
    Optional,
};

// The values an integer member may take, from lo to hi (both included), and what a special value means
// ("0: d_model / h"), said after the range in messages.
struct IntRange
{
    long long lo = INT_MIN;
    long long hi = INT_MAX;
    const char* note = nullptr;
};

// The values a real member may take; an open end is not included ("greater than 0").
struct RealRange
{
    double lo = 0.0;
    double hi = 0.0;
    bool lo_open = false;
    bool hi_open = false;
    bool any = true; // any finite float (lo and hi unused)
};

// A value as messages quote what was found: a scalar as written ("2.5", "\"8\"", "true", "null"), a list by
// its length or shape ("a list of 3 values", "8x3"), or "an object".
std::string describe_json(const nlohmann::json& value);

// "config.d_model", or "step" when object_field is empty (a member of the root).
std::string json_field(const std::string& object_field, const std::string& key);

// Reads the members of one parsed document. source names the file (and the part of it, e.g. "lessons/x.json,
// step 3") at the start of every message; a long path is cut in its middle so the reason stays readable.
// Every getter leaves its output unchanged on error. object_field names the object a member is read from
// ("config", "weights.layers[0]"; "" for the root) so a message names the member by its whole path.
class JsonReader
{
public:
    explicit JsonReader(const std::string& source);

    const std::string& source() const { return source_; }

    // [SECTION] Messages
    Status error(const std::string& what) const;                           // SOURCE: what
    Status error(const std::string& field, const std::string& what) const; // SOURCE: "field" what
    // SOURCE: "field" must be RULE, got WHAT (describe_json).
    Status expected(const std::string& field, const std::string& rule, const nlohmann::json& got) const;

    // [SECTION] The document
    // Parses text with parse_json_text (linear, bounded, members named by skip_top_level_key dropped), its
    // message prefixed with the source.
    Status parse(std::string_view text, nlohmann::json* out,
                 bool (*skip_top_level_key)(const std::string& key) = nullptr) const;
    // The root's "format" must be one of formats; hint is said when it is another string (what the file may
    // be instead, how to make a right one).
    Status format(const nlohmann::json& root, std::initializer_list<const char*> formats,
                  const std::string& hint = "") const;
    // The root's "version": an integer from 1 to newest (a newer one asks to update Attention Lab).
    Status version(const nlohmann::json& root, int newest, int* out) const;
    // The first member of obj not in known is an error (a misspelt key is not silently ignored).
    Status unknown_keys(const nlohmann::json& obj, const std::string& object_field,
                        const std::vector<const char*>& known) const;

    // [SECTION] Members
    // &obj[key] in *out; nullptr when it is absent and optional. obj must be an object.
    Status member(const nlohmann::json& obj, const std::string& object_field, const char* key, Need need,
                  const nlohmann::json** out) const;
    // A member that must not be there for this file (why says so, e.g. "the model is attention-only").
    Status absent(const nlohmann::json& obj, const std::string& object_field, const char* key,
                  const char* why) const;
    Status integer(const nlohmann::json& obj, const std::string& object_field, const char* key,
                   IntRange range, int* out, Need need = Need::Required) const;
    Status uint64(const nlohmann::json& obj, const std::string& object_field, const char* key,
                  std::uint64_t* out, Need need = Need::Required) const;
    Status real(const nlohmann::json& obj, const std::string& object_field, const char* key, RealRange range,
                float* out, Need need = Need::Required) const;
    Status boolean(const nlohmann::json& obj, const std::string& object_field, const char* key, bool* out,
                   Need need = Need::Required) const;
    Status string(const nlohmann::json& obj, const std::string& object_field, const char* key,
                  std::string* out, Need need = Need::Required) const;
    // One of a few names, as its value; the message lists the names.
    template <typename T>
    Status choice(const nlohmann::json& obj, const std::string& object_field, const char* key,
                  std::initializer_list<std::pair<const char*, T>> choices, T* out,
                  Need need = Need::Required) const
    {
        const nlohmann::json* j = nullptr;
        ATTNLAB_TRY(member(obj, object_field, key, need, &j));
        if (j == nullptr)
            return Status::ok();
        std::vector<const char*> names;
        for (const auto& [name, value] : choices)
        {
            if (j->is_string() && j->get_ref<const std::string&>() == name)
            {
                *out = value;
                return Status::ok();
            }
            names.push_back(name);
        }
        return expected(json_field(object_field, key), one_of(names), *j);
    }

    // [SECTION] Values
    // An integer value in range (field names it in the message).
    Status integer_value(const nlohmann::json& value, const std::string& field, IntRange range,
                         long long* out) const;
    // A finite float; null (a NaN or an infinity when it was written) only when allow_null, read as NaN.
    Status number_value(const nlohmann::json& value, const std::string& field, float* out,
                        bool allow_null = false) const;

    // [SECTION] Tensors: shape names the expected shape in the paper's terms ("d_model x d_k").
    // A rows x cols matrix given as a list of rows, into out's columns [col0, col0 + cols); out must already
    // have rows rows and at least col0 + cols columns.
    Status matrix_block(const nlohmann::json& value, const std::string& field, int rows, int cols,
                        const std::string& shape, Mat& out, int col0) const;
    // The same into a matrix resized to rows x cols.
    Status matrix(const nlohmann::json& value, const std::string& field, int rows, int cols,
                  const std::string& shape, Mat& out) const;
    // A list of n numbers into out[0..n).
    Status vector(const nlohmann::json& value, const std::string& field, int n, const std::string& shape,
                  float* out) const;
    Status vector(const nlohmann::json& value, const std::string& field, int n, const std::string& shape,
                  RowVec& out) const;
    // A (1, n) matrix given as a list of n numbers.
    Status vector(const nlohmann::json& value, const std::string& field, int n, const std::string& shape,
                  Mat& out) const;
    // h matrices rows x d: [h][rows][d], as h matrices or packed side by side into one rows x h·d matrix.
    Status heads(const nlohmann::json& value, const std::string& field, int h, int rows, int d,
                 const std::string& shape, std::vector<Mat>& out) const;
    Status heads(const nlohmann::json& value, const std::string& field, int h, int rows, int d,
                 const std::string& shape, Mat& packed) const;

    // The same read from the required member obj[key] ("weights.layers[0].W_Q" in messages).
    template <typename Out>
    Status member_matrix(const nlohmann::json& obj, const std::string& object_field, const char* key,
                         int rows, int cols, const std::string& shape, Out& out) const
    {
        const nlohmann::json* j = nullptr;
        ATTNLAB_TRY(member(obj, object_field, key, Need::Required, &j));
        return matrix(*j, json_field(object_field, key), rows, cols, shape, out);
    }
    template <typename Out>
    Status member_vector(const nlohmann::json& obj, const std::string& object_field, const char* key, int n,
                         const std::string& shape, Out& out) const
    {
        const nlohmann::json* j = nullptr;
        ATTNLAB_TRY(member(obj, object_field, key, Need::Required, &j));
        return vector(*j, json_field(object_field, key), n, shape, out);
    }
    template <typename Out>
    Status member_heads(const nlohmann::json& obj, const std::string& object_field, const char* key, int h,
                        int rows, int d, const std::string& shape, Out& out) const
    {
        const nlohmann::json* j = nullptr;
        ATTNLAB_TRY(member(obj, object_field, key, Need::Required, &j));
        return heads(*j, json_field(object_field, key), h, rows, d, shape, out);
    }

private:
    static std::string one_of(const std::vector<const char*>& names);
    Status heads_list(const nlohmann::json& value, const std::string& field, int h, int rows, int d,
                      const std::string& shape) const;

    std::string source_;
};

} // namespace attnlab
