// Status messages: escaping and cutting (see status.h).
#include "status.h"

#include "tokenizer.h"

#include <cstdio>

namespace attnlab
{

std::string printable_message(std::string_view text)
{
    std::string out;
    out.reserve(text.size() < kMaxMessageBytes ? text.size() : kMaxMessageBytes);
    std::size_t i = 0;
    for (; i < text.size() && out.size() < kMaxMessageBytes; ++i)
    {
        const auto c = static_cast<unsigned char>(text[i]);
        const bool c1 = c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                        static_cast<unsigned char>(text[i + 1]) <= 0x9F; // U+0080..U+009F, e.g. CSI
        const std::size_t length = utf8_character_length(text, i);
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F || c1 || length == 0)
        {
            // A control character, or a byte of no UTF-8 character (a message quoting a file's bytes).
            const unsigned code = c1 ? static_cast<unsigned char>(text[++i]) : c;
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, c1 ? "\\u%04x" : "\\x%02x", code);
            out += escaped;
        }
        else
        {
            out.append(text.substr(i, length));
            i += length - 1;
        }
    }
    if (i < text.size() || out.size() > kMaxMessageBytes)
    {
        // Room for the note, so that the result is within the limit and a second pass leaves it alone.
        std::size_t cut = kMaxMessageBytes - 48;
        while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) // inside a UTF-8 sequence
            --cut;
        const std::size_t left_out =
            (text.size() - i) + (out.size() - cut); // roughly, escapes counted as written
        out.resize(cut);
        out += "… (" + std::to_string(left_out) + " more bytes)";
    }
    return out;
}

std::string format_number(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

} // namespace attnlab
