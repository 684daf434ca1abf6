// JsonReader: typed getters over a parsed document, with messages in one style (see json_reader.h).
#include "json_reader.h"

#include "atomic_file.h"
#include "json_parse.h"

#include <cmath>
#include <limits>

namespace attnlab
{

using json = nlohmann::json;

namespace
{

std::string dims(long long rows, long long cols)
{
    return std::to_string(rows) + "x" + std::to_string(cols);
}

// "a positive integer", "an integer between 1 and 4096 (0: ...)": what an integer in range is.
std::string int_rule(const IntRange& r, bool above_type)
{
    std::string rule;
    if (r.hi == INT_MAX || r.hi == LLONG_MAX)
    {
        if (r.lo == 1)
            rule = "a positive integer";
        else if (r.lo == 0)
            rule = "a non-negative integer";
        else if (r.lo == INT_MIN || r.lo == LLONG_MIN)
            rule = "an integer";
        else
            rule = "an integer of at least " + std::to_string(r.lo);
        if (above_type) // the value is an integer, just too large for the field
            rule += " no larger than " + std::to_string(r.hi);
    }
    else
    {
        rule = "an integer between " + std::to_string(r.lo) + " and " + std::to_string(r.hi);
    }
    if (r.note != nullptr)
        rule += std::string(" (") + r.note + ")";
    return rule;
}

std::string real_rule(const RealRange& r)
{
    if (r.any)
        return "a number";
    if (r.lo_open && r.hi_open)
        return "a number greater than " + format_number(r.lo) + " and less than " + format_number(r.hi);
    return "a number between " + format_number(r.lo) + " and " + format_number(r.hi);
}

} // namespace

std::string describe_json(const json& value)
{
    if (value.is_array())
    {
        if (!value.empty() && value[0].is_array())
            return dims(static_cast<long long>(value.size()), static_cast<long long>(value[0].size()));
        return "a list of " + std::to_string(value.size()) + (value.size() == 1 ? " value" : " values");
    }
    if (value.is_object())
        return value.empty() ? "an empty object" : "an object";
    return json_excerpt(value);
}

std::string json_field(const std::string& object_field, const std::string& key)
{
    return object_field.empty() ? key : object_field + "." + key;
}

JsonReader::JsonReader(const std::string& source) : source_(path_for_message(source)) {}

// [SECTION] Messages

Status JsonReader::error(const std::string& what) const
{
    return Status::error(source_ + ": " + what);
}

Status JsonReader::error(const std::string& field, const std::string& what) const
{
    return Status::error(source_ + ": \"" + field + "\" " + what);
}

Status JsonReader::expected(const std::string& field, const std::string& rule, const json& got) const
{
    return error(field, "must be " + rule + ", got " + describe_json(got));
}

std::string JsonReader::one_of(const std::vector<const char*>& names)
{
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i)
    {
        if (i > 0)
            list += names.size() == 2 ? " or " : ", ";
        list += std::string("\"") + names[i] + "\"";
    }
    return names.size() <= 2 ? list : "one of " + list;
}

// [SECTION] The document

Status JsonReader::parse(std::string_view text, json* out,
                         bool (*skip_top_level_key)(const std::string&)) const
{
    if (Status parsed = parse_json_text(text, out, skip_top_level_key); !parsed)
        return error(parsed.message());
    return Status::ok();
}

Status JsonReader::format(const json& root, std::initializer_list<const char*> formats,
                          const std::string& hint) const
{
    std::vector<const char*> names(formats);
    const std::string suffix = hint.empty() ? "" : " (" + hint + ")";
    const auto it = root.find("format");
    if (it == root.end())
        return error("\"format\" is missing; expected " + one_of(names) + suffix);
    for (const char* name : names)
        if (it->is_string() && it->get_ref<const std::string&>() == name)
            return Status::ok();
    return error("\"format\" is " + describe_json(*it) + ", expected " + one_of(names) + suffix);
}

Status JsonReader::version(const json& root, int newest, int* out) const
{
    const auto it = root.find("version");
    if (it == root.end())
        return error("\"version\" is missing; expected a positive integer (this program reads up to " +
                     std::to_string(newest) + ")");
    const bool positive = it->is_number_unsigned() ? it->get<unsigned long long>() >= 1
                                                   : it->is_number_integer() && it->get<long long>() >= 1;
    if (!positive)
        return expected("version", "a positive integer", *it);
    const unsigned long long v = it->is_number_unsigned()
                                     ? it->get<unsigned long long>()
                                     : static_cast<unsigned long long>(it->get<long long>());
    if (v > static_cast<unsigned long long>(newest))
        return error("version " + json_excerpt(*it) + " is newer than this program reads (" +
                     std::to_string(newest) +
                     "): the file was written by a newer Attention Lab; update Attention Lab to open it");
    *out = static_cast<int>(v);
    return Status::ok();
}

Status JsonReader::unknown_keys(const json& obj, const std::string& object_field,
                                const std::vector<const char*>& known) const
{
    for (auto it = obj.begin(); it != obj.end(); ++it)
    {
        bool found = false;
        for (const char* k : known)
            found = found || it.key() == k;
        if (!found)
            return error("unknown key \"" + it.key() + "\"" +
                         (object_field.empty() ? std::string() : " in \"" + object_field + "\""));
    }
    return Status::ok();
}

// [SECTION] Members

Status JsonReader::member(const json& obj, const std::string& object_field, const char* key, Need need,
                          const json** out) const
{
    if (!obj.is_object())
        return object_field.empty() ? error("expected a JSON object, got " + describe_json(obj))
                                    : expected(object_field, "an object", obj);
    const auto it = obj.find(key);
    if (it == obj.end())
    {
        if (need == Need::Required)
            return error(json_field(object_field, key), "is missing");
        *out = nullptr;
        return Status::ok();
    }
    *out = &*it;
    return Status::ok();
}

Status JsonReader::absent(const json& obj, const std::string& object_field, const char* key,
                          const char* why) const
{
    if (obj.is_object() && obj.contains(key))
        return error(json_field(object_field, key), std::string("must not be there: ") + why);
    return Status::ok();
}

Status JsonReader::integer(const json& obj, const std::string& object_field, const char* key, IntRange range,
                           int* out, Need need) const
{
    const json* j = nullptr;
    ATTNLAB_TRY(member(obj, object_field, key, need, &j));
    if (j == nullptr)
        return Status::ok();
    range.lo = std::max<long long>(range.lo, INT_MIN);
    range.hi = std::min<long long>(range.hi, INT_MAX);
    long long value = 0;
    ATTNLAB_TRY(integer_value(*j, json_field(object_field, key), range, &value));
    *out = static_cast<int>(value);
    return Status::ok();
}

Status JsonReader::uint64(const json& obj, const std::string& object_field, const char* key,
                          std::uint64_t* out, Need need) const
{
    const json* j = nullptr;
    ATTNLAB_TRY(member(obj, object_field, key, need, &j));
    if (j == nullptr)
        return Status::ok();
    if (!j->is_number_unsigned())
        return expected(json_field(object_field, key), "a non-negative integer (at most 2^64 - 1)", *j);
    *out = j->get<std::uint64_t>();
    return Status::ok();
}

Status JsonReader::real(const json& obj, const std::string& object_field, const char* key, RealRange range,
                        float* out, Need need) const
{
    const json* j = nullptr;
    ATTNLAB_TRY(member(obj, object_field, key, need, &j));
    if (j == nullptr)
        return Status::ok();
    const std::string field = json_field(object_field, key);
    float value = 0.0f;
    if (range.any)
        ATTNLAB_TRY(number_value(*j, field, &value));
    else
    {
        const double v = j->is_number() ? j->get<double>() : std::nan("");
        const bool low_ok = range.lo_open ? v > range.lo : v >= range.lo;
        const bool high_ok = range.hi_open ? v < range.hi : v <= range.hi;
        if (!j->is_number() || !low_ok || !high_ok)
            return expected(field, real_rule(range), *j);
        value = static_cast<float>(v);
    }
    *out = value;
    return Status::ok();
}

Status JsonReader::boolean(const json& obj, const std::string& object_field, const char* key, bool* out,
                           Need need) const
{
    const json* j = nullptr;
    ATTNLAB_TRY(member(obj, object_field, key, need, &j));
    if (j == nullptr)
        return Status::ok();
    if (!j->is_boolean())
        return expected(json_field(object_field, key), "true or false", *j);
    *out = j->get<bool>();
    return Status::ok();
}

Status JsonReader::string(const json& obj, const std::string& object_field, const char* key, std::string* out,
                          Need need) const
{
    const json* j = nullptr;
    ATTNLAB_TRY(member(obj, object_field, key, need, &j));
    if (j == nullptr)
        return Status::ok();
    if (!j->is_string())
        return expected(json_field(object_field, key), "a string", *j);
    *out = j->get<std::string>();
    return Status::ok();
}

// [SECTION] Values

Status JsonReader::integer_value(const json& value, const std::string& field, IntRange range,
                                 long long* out) const
{
    if (!value.is_number_integer())
        return expected(field, int_rule(range, false), value);
    const bool huge = value.is_number_unsigned() && value.get<unsigned long long>() > LLONG_MAX;
    const long long v = huge ? LLONG_MAX : value.get<long long>();
    if (huge || v < range.lo || v > range.hi)
        return expected(field, int_rule(range, huge || v > range.hi), value);
    *out = v;
    return Status::ok();
}

Status JsonReader::number_value(const json& value, const std::string& field, float* out,
                                bool allow_null) const
{
    if (allow_null && value.is_null())
    {
        *out = std::numeric_limits<float>::quiet_NaN();
        return Status::ok();
    }
    if (!value.is_number())
        return expected(field, allow_null ? "a number or null" : "a number", value);
    const double v = value.get<double>();
    if (!std::isfinite(v) || std::fabs(v) > std::numeric_limits<float>::max())
        return error(field, "is out of the float range (at most about 3.4e38), got " + json_excerpt(value));
    *out = static_cast<float>(v);
    return Status::ok();
}

// [SECTION] Tensors

Status JsonReader::matrix_block(const json& value, const std::string& field, int rows, int cols,
                                const std::string& shape, Mat& out, int col0) const
{
    const std::string rule = "should be " + shape + " = " + dims(rows, cols);
    if (!value.is_array() || static_cast<long long>(value.size()) != rows ||
        (rows > 0 && !value[0].is_array()))
        return error(field, rule + ", got " + describe_json(value));
    for (int r = 0; r < rows; ++r)
    {
        const json& row = value[static_cast<std::size_t>(r)];
        if (!row.is_array() || static_cast<long long>(row.size()) != cols)
            return error(field, rule + ", but row " + std::to_string(r) + " is " +
                                    (row.is_array() ? std::to_string(row.size()) + " numbers long"
                                                    : describe_json(row)));
        for (int c = 0; c < cols; ++c)
            ATTNLAB_TRY(number_value(row[static_cast<std::size_t>(c)],
                                     field + "[" + std::to_string(r) + "][" + std::to_string(c) + "]",
                                     &out(r, col0 + c)));
    }
    return Status::ok();
}

Status JsonReader::matrix(const json& value, const std::string& field, int rows, int cols,
                          const std::string& shape, Mat& out) const
{
    Mat m(rows, cols);
    ATTNLAB_TRY(matrix_block(value, field, rows, cols, shape, m, 0));
    out = std::move(m);
    return Status::ok();
}

Status JsonReader::vector(const json& value, const std::string& field, int n, const std::string& shape,
                          float* out) const
{
    if (!value.is_array() || static_cast<long long>(value.size()) != n || (n > 0 && value[0].is_array()))
        return error(field, "should be a list of " + shape + " = " + std::to_string(n) + " numbers, got " +
                                describe_json(value));
    for (int i = 0; i < n; ++i)
        ATTNLAB_TRY(
            number_value(value[static_cast<std::size_t>(i)], field + "[" + std::to_string(i) + "]", out + i));
    return Status::ok();
}

Status JsonReader::vector(const json& value, const std::string& field, int n, const std::string& shape,
                          RowVec& out) const
{
    RowVec v(n);
    ATTNLAB_TRY(vector(value, field, n, shape, v.data()));
    out = std::move(v);
    return Status::ok();
}

Status JsonReader::vector(const json& value, const std::string& field, int n, const std::string& shape,
                          Mat& out) const
{
    Mat v(1, n);
    ATTNLAB_TRY(vector(value, field, n, shape, v.data()));
    out = std::move(v);
    return Status::ok();
}

Status JsonReader::heads_list(const json& value, const std::string& field, int h, int rows, int d,
                              const std::string& shape) const
{
    if (!value.is_array() || static_cast<int>(value.size()) != h)
        return error(field, "should hold h = " + std::to_string(h) + " matrices of " + shape + " = " +
                                dims(rows, d) + ", got " +
                                (value.is_array() ? std::to_string(value.size()) : describe_json(value)));
    return Status::ok();
}

Status JsonReader::heads(const json& value, const std::string& field, int h, int rows, int d,
                         const std::string& shape, std::vector<Mat>& out) const
{
    ATTNLAB_TRY(heads_list(value, field, h, rows, d, shape));
    std::vector<Mat> result(static_cast<std::size_t>(h));
    for (int i = 0; i < h; ++i)
        ATTNLAB_TRY(matrix(value[static_cast<std::size_t>(i)], field + "[" + std::to_string(i) + "]", rows, d,
                           shape, result[static_cast<std::size_t>(i)]));
    out = std::move(result);
    return Status::ok();
}

Status JsonReader::heads(const json& value, const std::string& field, int h, int rows, int d,
                         const std::string& shape, Mat& packed) const
{
    ATTNLAB_TRY(heads_list(value, field, h, rows, d, shape));
    Mat m(rows, static_cast<Eigen::Index>(h) * d);
    for (int i = 0; i < h; ++i)
        ATTNLAB_TRY(matrix_block(value[static_cast<std::size_t>(i)], field + "[" + std::to_string(i) + "]",
                                 rows, d, shape, m, i * d));
    packed = std::move(m);
    return Status::ok();
}

} // namespace attnlab
