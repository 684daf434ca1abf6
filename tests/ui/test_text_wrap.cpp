// Soft wrapping of text fields: where lines break, and edits of the wrapped text as edits of the user's text
// (typing, Backspace and Delete beside a soft break, a typed new line).
#include "ui/model/text_wrap.h"

#include <gtest/gtest.h>

#include <string>

namespace attnlab
{
namespace
{

// Every character 1 pixel wide: a width is a number of characters.
float one_per_char(std::string_view s)
{
    return static_cast<float>(s.size());
}

// What a field holding `text` shows at `width` characters.
std::string shown(const std::string& text, float width)
{
    return wrap_soft(text, width, one_per_char);
}

TEST(TextWrap, BreaksAfterTheLastSpaceThatFits)
{
    EXPECT_EQ(shown("the cat sat on the mat", 10), "the cat \r\nsat on \r\nthe mat");
    EXPECT_EQ(shown("short", 10), "short");
    // A word longer than a line is cut where it must be; a real new line stays.
    EXPECT_EQ(shown("abcdefghijkl xyz\nz", 5), "abcde\r\nfghij\r\nkl \r\nxyz\nz");
    // The user's own "\r\n" line ends become "\n" (the tokenizer reads both alike).
    EXPECT_EQ(shown("one\r\ntwo", 10), "one\ntwo");
    EXPECT_EQ(unwrap_soft(shown("the cat sat on the mat", 10)), "the cat sat on the mat");
}

// Lines to draw (a caption) break at spaces only, so closing punctuation stays with its word: `"role".` is
// never split into `"role"` and a lone ".".
TEST(TextWrap, LinesBreakOnlyAtSpacesSoPunctuationStaysWithItsWord)
{
    const auto lines = [](const std::string& text, float width)
    { return wrap_lines(text, width, one_per_char); };
    EXPECT_EQ(lines("the cat sat on the mat", 10), "the cat\nsat on the\nmat");
    // 'say "no clear role"' is 19 characters: the "." after the quote does not fit, so its word moves down.
    EXPECT_EQ(lines("say \"no clear role\". Then more", 19), "say \"no clear\nrole\". Then more");
    EXPECT_EQ(lines("(after \"t\", often \"h\").", 22), "(after \"t\", often\n\"h\").");
    // "88 %" is one word: the sign never starts a line.
    EXPECT_EQ(lines("accuracy near 88 % at step", 16), "accuracy near\n88 % at step");
    EXPECT_EQ(lines("near 88 %), then", 7), "near\n88 %),\nthen");
    // A lone minus or plus goes down with what it takes: "i − 1" never ends a line at "i −".
    EXPECT_EQ(lines("weight on i \xE2\x88\x92 1 and", 13), "weight on\ni \xE2\x88\x92 1 and");
    // A setting is never split at its equals sign: "h =" never ends a line with "8" on the next (the session
    // caption beside the maps, "d_model = 16, h = 8, mask: none").
    EXPECT_EQ(lines("d_model = 16, h = 8, mask: none", 17), "d_model = 16,\nh = 8, mask: none");
    EXPECT_EQ(lines("d_model = 16, h = 8, mask: none", 14), "d_model = 16,\nh = 8, mask:\nnone");
    EXPECT_EQ(lines("at \xCF\x84 = 1.00 here", 10), "at\n\xCF\x84 = 1.00\nhere");
    // A word wider than a line is cut between whole characters (ü is two bytes); line feeds stay.
    EXPECT_EQ(lines("abcdefghijkl xyz\nz", 5), "abcde\nfghij\nkl\nxyz\nz");
    EXPECT_EQ(lines("\xC3\xBC\xC3\xBC\xC3\xBC", 4), "\xC3\xBC\xC3\xBC\n\xC3\xBC");
    EXPECT_EQ(lines("", 10), "");
    EXPECT_EQ(lines("one\n\ntwo", 10), "one\n\ntwo");

    // A real caption at every width: no line starts with closing punctuation, none is wider than the width
    // (no word here is), and the lines joined by spaces are the text again.
    const std::string caption =
        "The other heads still say \"no clear role\". Knowing how far into a word it is, the model can tell "
        "a "
        "likely first letter from a likely fifth one (after \"q\" comes \"u\"; after \"t\", often \"h\").";
    for (int width = 14; width <= 120; ++width)
    {
        SCOPED_TRACE(width);
        const std::string out = lines(caption, static_cast<float>(width));
        std::string joined;
        for (std::size_t start = 0; start <= out.size();)
        {
            const std::size_t end = std::min(out.find('\n', start), out.size());
            const std::string line = out.substr(start, end - start);
            ASSERT_FALSE(line.empty());
            EXPECT_EQ(std::string(".,;:!?)").find(line[0]), std::string::npos) << "a line starts: " << line;
            EXPECT_LE(line.size(), static_cast<std::size_t>(width)) << line;
            joined += (joined.empty() ? "" : " ") + line;
            start = end + 1;
        }
        EXPECT_EQ(joined, caption);
    }
}

TEST(TextWrap, OffsetsSkipSoftBreaks)
{
    const std::string s = shown("the cat sat", 8); // "the cat \r\nsat"
    ASSERT_EQ(s, "the cat \r\nsat");
    EXPECT_EQ(unwrapped_offset(s, 8), 8);
    EXPECT_EQ(unwrapped_offset(s, 10), 8);
    EXPECT_EQ(unwrapped_offset(s, 11), 9);
    EXPECT_EQ(wrapped_offset(s, 8), 10); // on the break: the next line's start
    EXPECT_EQ(wrapped_offset(s, 9), 11);
    EXPECT_EQ(wrapped_offset(s, 3), 3);
}

// The field's edit: `after` typed into `before` with the cursor at `cursor`.
SoftEdit typed(const std::string& before, const std::string& after, int cursor, bool backspace = false)
{
    return apply_soft_edit(before, after, cursor, backspace);
}

TEST(TextWrap, TypingIsAnEditOfTheUsersText)
{
    const std::string before = "the cat \r\nsat";
    SoftEdit e = typed(before, "the cat \r\nsaty", 14);
    EXPECT_EQ(e.text, "the cat saty");
    EXPECT_EQ(e.cursor, 12);
    // A letter typed beside equal letters lands where it was typed.
    e = typed("aa", "aaa", 1);
    EXPECT_EQ(e.text, "aaa");
    EXPECT_EQ(e.cursor, 1);
    // Enter right after a soft break's '\r' (End on a wrapped line, then Enter) is a new sentence.
    e = typed(before, "the cat \r\n\nsat", 10);
    EXPECT_EQ(e.text, "the cat \nsat");
    // A selection across a soft break replaced by one letter.
    e = typed(before, "the cxat", 6);
    EXPECT_EQ(e.text, "the cxat");
    EXPECT_EQ(e.cursor, 6);
}

TEST(TextWrap, BackspaceAndDeleteBesideASoftBreakRemoveACharacter)
{
    const std::string before = "abc \r\ndef";
    // Backspace at the start of the second line removes the '\n': the space before the break goes instead.
    SoftEdit e = typed(before, "abc \rdef", 5, true);
    EXPECT_EQ(e.text, "abcdef");
    EXPECT_EQ(e.cursor, 3);
    // Delete at the end of the first line (after the '\r'): the next line's first letter goes.
    e = typed(before, "abc \rdef", 5, false);
    EXPECT_EQ(e.text, "abc ef");
    EXPECT_EQ(e.cursor, 4);
    // Delete before the '\r' leaves a lone '\n', which must not become a new sentence.
    e = typed(before, "abc \ndef", 4, false);
    EXPECT_EQ(e.text, "abc ef");
    // A multi-byte letter before the break goes whole.
    e = typed("ab\xC3\xA9\r\ncd", "ab\xC3\xA9\rcd", 5, true);
    EXPECT_EQ(e.text, "abcd");
    EXPECT_EQ(e.cursor, 2);
}

TEST(TextWrap, EveryEditRewrappedKeepsTheTextOneLinePerSentence)
{
    // Type a long sentence one letter at a time into a narrow field, re-wrapping after each as the field
    // does: the user's text is exactly what was typed and never gains a line.
    const std::string sentence = "Jane visits Africa in September and writes home every week";
    std::string text, field;
    for (const char c : sentence)
    {
        const int cursor = wrapped_offset(field, static_cast<int>(text.size()));
        const std::string after = field.substr(0, static_cast<std::size_t>(cursor)) + c +
                                  field.substr(static_cast<std::size_t>(cursor));
        const SoftEdit e = typed(field, after, cursor + 1);
        text = e.text;
        field = shown(text, 12);
        ASSERT_EQ(e.cursor, static_cast<int>(text.size()));
    }
    EXPECT_EQ(text, sentence);
    EXPECT_GE(std::count(field.begin(), field.end(), '\r'), 4);
    for (std::size_t start = 0, end = 0; start < field.size(); start = end + 2)
    {
        end = field.find("\r\n", start);
        if (end == std::string::npos)
            end = field.size();
        EXPECT_LE(end - start, 12u) << field;
    }
}

// ImGui's 16-bit build hands back every emoji as U+FFFD after an edit anywhere in the field.
const std::string kSmile = "\xF0\x9F\x98\x80"; // U+1F600
const std::string kCat = "\xF0\x9F\x90\x88";   // U+1F408
const std::string kFffd = "\xEF\xBF\xBD";

TEST(TextWrap, EmojiOutsideAnEditAreKept)
{
    const std::string before = "a " + kSmile + " b " + kCat + " c";
    // "x" typed after "b": the field gives both emoji back as U+FFFD.
    const std::string after = "a " + kFffd + " bx " + kFffd + " c";
    const int typed_end = static_cast<int>(("a " + kFffd + " bx").size());
    EXPECT_EQ(narrow_to_bmp(before), "a " + kFffd + " b " + kFffd + " c");
    int cursor = typed_end;
    EXPECT_EQ(restore_wide_characters(before, after, &cursor), "a " + kSmile + " bx " + kCat + " c");
    EXPECT_EQ(cursor, static_cast<int>(("a " + kSmile + " bx").size()));
}

TEST(TextWrap, EmojiAtTheEdgesAndBesideTheCursorAreKept)
{
    // Backspace right after an emoji removes the "z" that follows it, not the emoji.
    {
        const std::string before = kSmile + "z" + kCat;
        const SoftEdit e = apply_soft_edit(narrow_to_bmp(before), kFffd + kFffd, 3, true);
        int cursor = e.cursor;
        EXPECT_EQ(restore_wide_characters(before, e.text, &cursor), kSmile + kCat);
        EXPECT_EQ(cursor, 4);
    }
    // Typing at the start; the emoji is at the very end.
    {
        int cursor = 1;
        EXPECT_EQ(restore_wide_characters("ab" + kSmile, "xab" + kFffd, &cursor), "xab" + kSmile);
        EXPECT_EQ(cursor, 1);
    }
    // A typed "a" before "a…": the cursor lies inside the common start and still lands after what was typed.
    {
        int cursor = 1;
        EXPECT_EQ(restore_wide_characters("a" + kSmile, "aa" + kFffd, &cursor), "aa" + kSmile);
        EXPECT_EQ(cursor, 1);
    }
}

TEST(TextWrap, ARealReplacementCharacterAndPlainTextAreLeftAlone)
{
    int cursor = 3;
    // No wide character before: a U+FFFD the user had stays one.
    EXPECT_EQ(restore_wide_characters(kFffd, kFffd + "q", &cursor), kFffd + "q");
    EXPECT_EQ(cursor, 3);
    cursor = 2;
    EXPECT_EQ(restore_wide_characters("abc", "abXc", &cursor), "abXc");
    EXPECT_EQ(cursor, 2);
}

} // namespace
} // namespace attnlab
