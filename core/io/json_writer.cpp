// JsonWriter: streaming JSON text with shortest round-trip floats (std::to_chars).
#include "json_writer.h"

#include <charconv>
#include <cmath>

namespace attnlab
{
namespace
{

// The shortest text that reads back to the same float. Negative zero is "-0.0": a JSON reader takes "-0" for
// the integer 0 and would lose the sign, so a model with a -0 weight would not load back bit-identical.
void append_float(std::string* out, float value)
{
    if (!std::isfinite(value))
    {
        out->append("null");
        return;
    }
    if (value == 0.0f && std::signbit(value))
    {
        out->append("-0.0");
        return;
    }
    char text[32];
    const auto result = std::to_chars(text, text + sizeof text, value);
    out->append(text, result.ptr);
}

} // namespace

void JsonWriter::newline_indent()
{
    buffer_.push_back('\n');
    buffer_.append(2 * stack_.size(), ' ');
}

void JsonWriter::before_value()
{
    if (after_key_)
    {
        after_key_ = false;
        return;
    }
    if (stack_.empty())
        return;
    Level& level = stack_.back();
    if (!level.first)
        buffer_.push_back(',');
    level.first = false;
    if (level.multiline)
        newline_indent();
}

void JsonWriter::begin_object()
{
    before_value();
    buffer_.push_back('{');
    stack_.push_back({true, true});
}

void JsonWriter::end_object()
{
    const bool empty = stack_.back().first;
    stack_.pop_back();
    if (!empty)
        newline_indent();
    buffer_.push_back('}');
    if (stack_.empty())
        buffer_.push_back('\n');
    maybe_flush();
}

void JsonWriter::begin_array(bool multiline)
{
    before_value();
    buffer_.push_back('[');
    stack_.push_back({true, multiline});
}

void JsonWriter::end_array()
{
    const Level level = stack_.back();
    stack_.pop_back();
    if (level.multiline && !level.first)
        newline_indent();
    buffer_.push_back(']');
    maybe_flush();
}

void JsonWriter::key(std::string_view name)
{
    before_value();
    write_string(name);
    buffer_.append(": ");
    after_key_ = true;
}

void JsonWriter::string(std::string_view text)
{
    before_value();
    write_string(text);
}

void JsonWriter::write_string(std::string_view text)
{
    static const char* hex = "0123456789abcdef";
    buffer_.push_back('"');
    for (const char c : text)
    {
        const auto u = static_cast<unsigned char>(c);
        switch (c)
        {
        case '"':
            buffer_.append("\\\"");
            break;
        case '\\':
            buffer_.append("\\\\");
            break;
        case '\n':
            buffer_.append("\\n");
            break;
        case '\r':
            buffer_.append("\\r");
            break;
        case '\t':
            buffer_.append("\\t");
            break;
        default:
            if (u < 0x20)
            {
                buffer_.append("\\u00");
                buffer_.push_back(hex[u >> 4]);
                buffer_.push_back(hex[u & 15]);
            }
            else
            {
                buffer_.push_back(c);
            }
        }
    }
    buffer_.push_back('"');
}

void JsonWriter::number(long long value)
{
    before_value();
    char text[32];
    const auto result = std::to_chars(text, text + sizeof text, value);
    buffer_.append(text, result.ptr);
}

void JsonWriter::number(unsigned long long value)
{
    before_value();
    char text[32];
    const auto result = std::to_chars(text, text + sizeof text, value);
    buffer_.append(text, result.ptr);
}

void JsonWriter::number(float value)
{
    before_value();
    append_float(&buffer_, value);
}

void JsonWriter::boolean(bool value)
{
    before_value();
    buffer_.append(value ? "true" : "false");
}

void JsonWriter::null()
{
    before_value();
    buffer_.append("null");
}

void JsonWriter::row(const float* values, int n)
{
    before_value();
    buffer_.push_back('[');
    for (int i = 0; i < n; ++i)
    {
        if (i > 0)
            buffer_.push_back(',');
        append_float(&buffer_, values[i]);
    }
    buffer_.push_back(']');
    maybe_flush();
}

void JsonWriter::matrix(const Mat& m)
{
    begin_array(true);
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        row(m.data() + r * m.cols(), static_cast<int>(m.cols()));
    end_array();
}

void JsonWriter::matrices(const std::vector<const Mat*>& stack)
{
    begin_array(true);
    for (const Mat* m : stack)
        matrix(*m);
    end_array();
}

void JsonWriter::flush()
{
    if (!file_)
        return;
    file_->write(buffer_);
    buffer_.clear();
}

} // namespace attnlab
