// Status: a user error as a value (a message saying what is wrong and how to fix it), never an exception.
#pragma once

#include <string>
#include <utility>

namespace attnlab
{

class Status
{
public:
    Status() = default; // OK

    static Status ok() { return {}; }
    static Status error(std::string message)
    {
        Status s;
        s.message_ = std::move(message);
        if (s.message_.empty())
            s.message_ = "unknown error";
        return s;
    }

    bool is_ok() const { return message_.empty(); }
    explicit operator bool() const { return is_ok(); }
    // Empty when OK; otherwise one sentence (or two) meant for the user.
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
