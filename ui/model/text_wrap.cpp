// Soft wrapping for multi-line text fields: wrap, unwrap, offsets and edits between the two.
#include "ui/model/text_wrap.h"

#include <algorithm>
#include <vector>

namespace attnlab
{

namespace
{

// The length of the UTF-8 sequence that starts with byte c (1 for a stray continuation byte).
int utf8_step(unsigned char c)
{
    return c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

// Whether byte i of a field's text belongs to a soft break: every '\r', and a '\n' right after one at or
// after `from` (a '\n' typed just after a soft break's '\r' is the user's own).
bool is_soft(std::string_view s, std::size_t i, std::size_t from = 0)
{
    return s[i] == '\r' || (s[i] == '\n' && i > from && s[i - 1] == '\r');
}

// Appends one line (no '\n' in it) with soft breaks.
void wrap_line(std::string_view line, float width, const TextWidth& text_width, std::string& out)
{
    std::size_t start = 0;
    while (start < line.size())
    {
        // The longest run of whole characters from `start` that fits, and the last space in it.
        float used = 0.0f;
        std::size_t end = start, after_space = 0;
        while (end < line.size())
        {
            const std::size_t n =
                std::min<std::size_t>(utf8_step(static_cast<unsigned char>(line[end])), line.size() - end);
            const float w = text_width(line.substr(end, n));
            if (end > start && used + w > width)
                break;
            used += w;
            end += n;
            if (line[end - 1] == ' ')
                after_space = end;
        }
        if (end == line.size())
        {
            out.append(line.substr(start));
            return;
        }
        const std::size_t cut = after_space > start ? after_space : end; // a long word is cut where it must
        out.append(line.substr(start, cut - start));
        out += "\r\n";
        start = cut;
    }
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD"; // U+FFFD in UTF-8

// A character above U+FFFF (four bytes) starts at s[i].
bool wide_at(std::string_view s, std::size_t i)
{
    return i + 4 <= s.size() && static_cast<unsigned char>(s[i]) >= 0xF0;
}

} // namespace

std::string narrow_to_bmp(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();)
        if (wide_at(text, i))
        {
            out.append(kReplacement);
            i += 4;
        }
        else
            out += text[i++];
    return out;
}

std::string restore_wide_characters(std::string_view before, std::string_view after, int* cursor)
{
    const auto at = static_cast<std::size_t>(std::clamp(*cursor, 0, static_cast<int>(after.size())));
    // The common start, a wide character of `before` matching a U+FFFD of `after`.
    std::size_t b = 0, a = 0, cursor_b = 0;
    while (b < before.size() && a < after.size())
    {
        if (a == at)
            cursor_b = b;
        if (before[b] == after[a])
            ++b, ++a;
        else if (wide_at(before, b) && after.substr(a, 3) == kReplacement)
            b += 4, a += 3;
        else
            break;
    }
    // The common end, up to the cursor (what was typed ends there) and never into the common start.
    const std::size_t floor = std::max(a, at);
    std::size_t be = before.size(), ae = after.size();
    while (be > b && ae > floor)
    {
        if (before[be - 1] == after[ae - 1])
            --be, --ae;
        else if (be >= b + 4 && wide_at(before, be - 4) && ae >= floor + 3 &&
                 after.substr(ae - 3, 3) == kReplacement)
            be -= 4, ae -= 3;
        else
            break;
    }
    std::string restored;
    restored.reserve(b + (ae - a) + (before.size() - be));
    restored.append(before.substr(0, b)).append(after.substr(a, ae - a)).append(before.substr(be));
    *cursor = static_cast<int>(at >= a ? b + (at - a) : cursor_b);
    return restored;
}

std::string wrap_soft(std::string_view text, float width, const TextWidth& text_width)
{
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    std::size_t start = 0;
    while (start <= text.size())
    {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        std::string line;
        for (const char c : text.substr(start, end - start))
            if (c != '\r')
                line += c;
        wrap_line(line, width, text_width, out);
        if (end == text.size())
            break;
        out += '\n';
        start = end + 1;
    }
    return out;
}

std::string wrap_lines(std::string_view text, float width, const TextWidth& text_width)
{
    std::string out;
    out.reserve(text.size() + text.size() / 16);
    for (std::size_t start = 0; start <= text.size();)
    {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        const std::string_view paragraph = text.substr(start, end - start);
        std::string line;
        bool started = false; // the line has its first word
        for (std::size_t at = 0; at <= paragraph.size();)
        {
            std::size_t space = std::min(paragraph.find(' ', at), paragraph.size());
            // A percent sign after a space stays with its number ("88 %" never ends one line at "88"), a lone
            // minus or plus with both its operands ("i − 1" is never split), and a lone equals sign with both
            // sides, so that a setting reads whole ("h = 8", "τ = 1.00", never "h =" over "8").
            const auto lone_operator = [](std::string_view t)
            { return t == "−" || t == "+" || t == "-" || t == "="; };
            for (std::size_t token = at; space < paragraph.size();)
            {
                const std::size_t next_end = std::min(paragraph.find(' ', space + 1), paragraph.size());
                const std::string_view last = paragraph.substr(token, space - token);
                const std::string_view next = paragraph.substr(space + 1, next_end - space - 1);
                if (!((!next.empty() && next.front() == '%') || lone_operator(next) || lone_operator(last)))
                    break;
                token = space + 1;
                space = next_end;
            }
            std::string_view word = paragraph.substr(at, space - at);
            at = space + 1;
            if (started)
            {
                // After the line's first word: the word joins the line when the line with it still fits.
                if (text_width(line + " " + std::string(word)) <= width)
                {
                    line += " ";
                    line += word;
                    continue;
                }
                out += line;
                out += '\n';
                line.clear();
            }
            // The line's first word; cut between characters while it is wider than a line.
            while (text_width(word) > width)
            {
                std::size_t cut = 0;
                while (cut < word.size())
                {
                    const std::size_t n = std::min<std::size_t>(
                        utf8_step(static_cast<unsigned char>(word[cut])), word.size() - cut);
                    if (cut > 0 && text_width(word.substr(0, cut + n)) > width)
                        break;
                    cut += n;
                }
                out.append(word.substr(0, cut));
                out += '\n';
                word.remove_prefix(cut);
            }
            line = std::string(word);
            started = true;
        }
        out += line;
        if (end == text.size())
            break;
        out += '\n';
        start = end + 1;
    }
    return out;
}

std::string unwrap_soft(std::string_view shown)
{
    std::string out;
    out.reserve(shown.size());
    for (std::size_t i = 0; i < shown.size(); ++i)
        if (!is_soft(shown, i))
            out += shown[i];
    return out;
}

int unwrapped_offset(std::string_view shown, int at)
{
    int n = 0;
    const auto end = std::min<std::size_t>(static_cast<std::size_t>(std::max(0, at)), shown.size());
    for (std::size_t i = 0; i < end; ++i)
        n += is_soft(shown, i) ? 0 : 1;
    return n;
}

int wrapped_offset(std::string_view shown, int at)
{
    int n = 0;
    std::size_t i = 0;
    for (; i < shown.size(); ++i)
    {
        if (is_soft(shown, i))
            continue;
        if (n == at)
            break;
        ++n;
    }
    // On a soft break: the next line's start.
    while (i < shown.size() && is_soft(shown, i))
        ++i;
    return static_cast<int>(i);
}

SoftEdit apply_soft_edit(std::string_view before, std::string_view after, int cursor_after, bool backspace)
{
    // The edit is one change between a common start and a common end. What was typed ends at the cursor, so
    // the common end is taken first, up to the cursor: typing "a" into "aa" is then placed where it was
    // typed.
    const std::size_t cursor =
        std::min<std::size_t>(static_cast<std::size_t>(std::max(0, cursor_after)), after.size());
    std::size_t suffix = 0;
    while (suffix < before.size() && suffix < after.size() - cursor &&
           before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix])
        ++suffix;
    std::size_t prefix = 0;
    while (prefix < before.size() - suffix && prefix < after.size() - suffix &&
           before[prefix] == after[prefix])
        ++prefix;
    const std::string text = unwrap_soft(before);
    const int from = unwrapped_offset(before, static_cast<int>(prefix));
    const int to = unwrapped_offset(before, static_cast<int>(before.size() - suffix));
    std::string inserted;
    for (std::size_t i = prefix; i < after.size() - suffix; ++i)
        if (!is_soft(after, i, prefix))
            inserted += after[i];

    SoftEdit edit;
    if (before.size() - suffix > prefix && from == to && inserted.empty())
    {
        // Only a soft break was removed (Backspace or Delete beside one): the character before or after it
        // goes instead, as if the break were not there.
        auto at = static_cast<std::size_t>(from);
        std::size_t n = 0;
        if (backspace && at > 0)
        {
            do
                --at;
            while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80);
            n = static_cast<std::size_t>(from) - at;
        }
        else if (!backspace && at < text.size())
            n = std::min<std::size_t>(utf8_step(static_cast<unsigned char>(text[at])), text.size() - at);
        edit.text = text.substr(0, at) + text.substr(at + n);
        edit.cursor = static_cast<int>(at);
        return edit;
    }
    edit.text =
        text.substr(0, static_cast<std::size_t>(from)) + inserted + text.substr(static_cast<std::size_t>(to));
    edit.cursor = from + static_cast<int>(inserted.size());
    return edit;
}

} // namespace attnlab
