// JsonWriter: a small streaming JSON writer for large float arrays (no DOM), used by the trace export.
#pragma once

#include "atomic_file.h"
#include "core/matrix.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab
{

// Writes JSON text into a string buffer that is handed to an AtomicFile whenever it grows past 1 MB (or
// kept whole when there is no file). Objects and multi-line arrays are indented by 2 spaces; each matrix row
// goes on one line. Floats use the shortest text that reads back to the same float (negative zero as -0.0,
// which keeps its sign through a JSON reader); non-finite ones are null.
class JsonWriter
{
public:
    explicit JsonWriter(AtomicFile* file = nullptr) : file_(file) {}

    void begin_object();
    void end_object();
    // multiline: one element per line (lists of rows, matrices); otherwise all on one line.
    void begin_array(bool multiline);
    void end_array();
    // The key of the next value in the current object.
    void key(std::string_view name);

    void string(std::string_view text);
    void number(long long value);
    void number(unsigned long long value);
    void number(int value) { number(static_cast<long long>(value)); }
    void number(float value);
    void boolean(bool value);
    void null();

    void row(const float* values, int n);                // [v0,v1,...]
    void matrix(const Mat& m);                           // [[row 0],[row 1],...]
    void matrices(const std::vector<const Mat*>& stack); // [[[...]]]: one matrix per element

    // Hands buffered text to the file (if any). Call before AtomicFile::commit().
    void flush();
    // The text written so far (when there is no file).
    std::string& text() { return buffer_; }

private:
    void before_value();
    void write_string(std::string_view text);
    void newline_indent();
    void maybe_flush()
    {
        if (file_ && buffer_.size() >= (1u << 20))
            flush();
    }

    struct Level
    {
        bool first = true;
        bool multiline = true;
    };
    AtomicFile* file_;
    std::string buffer_;
    std::vector<Level> stack_;
    bool after_key_ = false;
};

} // namespace attnlab
