// Status: a user error as a value (a message saying what is wrong and how to fix it), never an exception.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace attnlab
{

// Longest message a Status keeps; longer ones are cut with "…" and the number of bytes left out.
inline constexpr std::size_t kMaxMessageBytes = 2000;

// A message made safe to print: control characters (terminal escape sequences, C1 controls, NUL) from a
// file or an argument, and bytes that are not UTF-8 (a file's bytes quoted by a parser), are written as
// visible \x1b-style escapes, newlines and tabs are kept, and the text is cut to kMaxMessageBytes on a UTF-8
// boundary. The result is valid UTF-8; applying it twice changes nothing more.
std::string printable_message(std::string_view text);

// A number for messages: 6 significant digits, never "0.000000" for 1e-9 ("1e-09", "0.5", "100").
std::string format_number(double value);

class Status
{
public:
    Status() = default; // OK

    static Status ok() { return {}; } // a success; ask a Status is_ok() (this, called on one, is always true)
    static Status error(std::string message)
    {
        Status s;
        s.message_ = printable_message(message);
        if (s.message_.empty())
            s.message_ = "unknown error";
        return s;
    }

    bool is_ok() const { return message_.empty(); }
    explicit operator bool() const { return is_ok(); }
    // Empty when OK; otherwise one sentence (or two) meant for the user, safe to print (printable_message).
    const std::string& message() const { return message_; }

private:
    std::string message_;
};

} // namespace attnlab

// Returns the Status of expr from the enclosing function when it is an error.
#define ATTNLAB_TRY(expr)                                                                                    \
    do                                                                                                       \
    {                                                                                                        \
        ::attnlab::Status attnlab_status_ = (expr);                                                          \
        if (!attnlab_status_)                                                                                \
            return attnlab_status_;                                                                          \
    } while (false)
