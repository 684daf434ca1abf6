// Soft wrapping for multi-line text fields, which Dear ImGui does not wrap: the field shows the user's text
// with a soft break "\r\n" after the last space that fits on each line. ImGui draws '\r' with no width and
// never lets the user type one, so every '\r' in the field is a soft break's. Pure functions.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace attnlab
{

// What a wrapped field keeps between frames (in AppState: ImGui owns the text only while the field is
// edited).
struct SoftWrapField
{
    std::string shown;   // the text with its soft breaks, as the field shows it
    std::string source;  // the user's text `shown` was made from
    float width = -1.0f; // the width `shown` was wrapped to
    bool active = false; // the field had the keyboard last frame (then `shown` is the field's to change)
};

// The width of a piece of text in pixels.
using TextWidth = std::function<float(std::string_view)>;

// `text` (without any '\r' of its own: a "\r\n" line end is a "\n") with soft breaks so that no line is wider
// than `width`: after the last space that fits, or inside a word longer than a whole line.
std::string wrap_soft(std::string_view text, float width, const TextWidth& text_width);
// `text` as lines to draw (a caption), no line wider than `width`: a line feed replaces the last space that
// fits, so a line breaks only at a space and punctuation stays with the word before it (Dear ImGui 1.86's own
// wrapping may break after a quote or a full stop inside a word, leaving the "." of `"no clear role".` alone
// on a line). A lone operator ("−", "+", "=") stays with the words on both sides, so "h = 8" and "i − 1"
// never break inside, and a "%" with its number. A word wider than a whole line is cut between characters;
// the text's own line feeds stay.
std::string wrap_lines(std::string_view text, float width, const TextWidth& text_width);
// The user's text of a field: `shown` without its soft breaks.
std::string unwrap_soft(std::string_view shown);
// The offset in unwrap_soft(shown) of byte `at` of `shown`.
int unwrapped_offset(std::string_view shown, int at);
// The byte of `shown` at offset `at` of its user's text; on a soft break, the start of the next line.
int wrapped_offset(std::string_view shown, int at);

// ImGui's 16-bit build holds every character above U+FFFF (emoji) as U+FFFD. A field is given its text with
// them replaced (narrow_to_bmp), and the user's text gets them back after each edit: restore_wide_characters
// gives `after` (the text after an edit, made from the narrowed one) the wide characters of `before` (the
// user's text before it) outside the edited part; the cursor, an offset in `after`, is moved to the same
// place in the result. What was typed stays as typed.
std::string narrow_to_bmp(std::string_view text);
std::string restore_wide_characters(std::string_view before, std::string_view after, int* cursor);

struct SoftEdit
{
    std::string text; // the user's text after the edit
    int cursor = 0;   // the cursor, as an offset in it
};
// An edit the field made (`before` is what it showed, `after` what it holds now, with the cursor at
// `cursor_after`, where typed text ends), as an edit of the user's text; the cursor ends after what was
// typed. Soft breaks are not characters: when an edit removed only
// a soft break (Backspace or Delete beside one), it removes the character before it (`backspace`) or after
// it instead.
SoftEdit apply_soft_edit(std::string_view before, std::string_view after, int cursor_after, bool backspace);

} // namespace attnlab
