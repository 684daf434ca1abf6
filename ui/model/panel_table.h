// The panel table: one row of facts per panel (prefs key, title, open by default, place in the default
// layout, Alt shortcut), read by the preferences file, the defaults, the layout, the View menu, the Alt keys
// and Help. The draw functions sit in a second table beside the panels (ui/panels/panels.cpp), so this room
// links no ImGui. Adding a panel: its PanelId and row here, its draw row there, its file in ui/panels/.
#pragma once

#include <array>
#include <cstddef>

namespace attnlab
{

enum class PanelId
{
    Input,
    Model,
    Pipeline,
    Heads,
    Inspector,
    Comparisons,
    Lesson,
    Training,
    Count
};
inline constexpr int kPanelCount = static_cast<int>(PanelId::Count);

// The panel's column in the default layout (ui/model/layout.h). Over: a large view that covers the centre
// and right columns while it is open.
enum class PanelColumn
{
    Left,
    Centre,
    Right,
    Over,
};

struct PanelFacts
{
    PanelId id;
    const char* key;   // in the preferences file: "panel.<key> = 1" (open), "place.<key> = x y w h"; never
                       // rename one, or saved preferences lose it
    const char* title; // the window's title and its View menu entry (also ImGui's window id)
    bool open;         // open on the very first start (ViewPrefs::open)
    PanelColumn column;
    int row;       // its place from the top of its column, 0 first (Over: 0)
    float weight;  // its share of its column's height among the column's open panels (Over: 1)
    int alt_digit; // Alt+<digit> shows or hides it: 1..9, each used once
};

// clang-format off
inline constexpr std::array<PanelFacts, kPanelCount> kPanelTable = {{
    // id                  key            title          open   column                row weight digit
    {PanelId::Input,       "input",       "Input",       true,  PanelColumn::Left,    1,  0.4f,  1},
    {PanelId::Model,       "model",       "Model",       true,  PanelColumn::Left,    2,  0.6f,  2},
    {PanelId::Pipeline,    "pipeline",    "Pipeline",    true,  PanelColumn::Centre,  0,  1.0f,  3},
    {PanelId::Heads,       "heads",       "Heads",       true,  PanelColumn::Right,   0,  0.56f, 4},
    {PanelId::Inspector,   "inspector",   "Inspector",   true,  PanelColumn::Right,   1,  0.44f, 5},
    {PanelId::Comparisons, "comparisons", "Comparisons", false, PanelColumn::Over,    0,  1.0f,  6},
    // The lesson's text needs most of the left column while it is open; Input and Model keep their 2 : 3.
    {PanelId::Lesson,      "lesson",      "Lesson",      false, PanelColumn::Left,    0,  1.8f,  7},
    {PanelId::Training,    "training",    "Training",    false, PanelColumn::Over,    0,  1.0f,  8},
}};
// clang-format on

namespace panel_table_check
{
constexpr bool same_text(const char* a, const char* b)
{
    while (*a != '\0' && *a == *b)
    {
        ++a;
        ++b;
    }
    return *a == *b;
}

constexpr bool is_key_text(const char* s)
{
    if (*s == '\0')
        return false;
    for (; *s != '\0'; ++s)
        if (!((*s >= 'a' && *s <= 'z') || *s == '_'))
            return false;
    return true;
}

// A row's place in its column is unique and the rows of a column count 0, 1, 2 ... from the top.
constexpr bool rows_are_dense(PanelColumn column)
{
    int n = 0;
    for (const PanelFacts& p : kPanelTable)
        n += p.column == column ? 1 : 0;
    for (const PanelFacts& p : kPanelTable)
    {
        if (p.column != column)
            continue;
        if (column == PanelColumn::Over ? p.row != 0 : (p.row < 0 || p.row >= n))
            return false;
        for (const PanelFacts& q : kPanelTable)
            if (&q != &p && q.column == column && column != PanelColumn::Over && q.row == p.row)
                return false;
    }
    return true;
}
} // namespace panel_table_check

// One complete row per PanelId, in the enum's order; keys, titles and Alt digits each used once; every panel
// in a column of the default layout with a share of it.
constexpr bool panel_table_is_consistent()
{
    using namespace panel_table_check;
    for (int i = 0; i < kPanelCount; ++i)
    {
        const PanelFacts& p = kPanelTable[static_cast<std::size_t>(i)];
        if (static_cast<int>(p.id) != i || p.key == nullptr || !is_key_text(p.key) || p.title == nullptr ||
            *p.title == '\0' || !(p.weight > 0.0f) || p.alt_digit < 1 || p.alt_digit > 9)
            return false;
        if (!(p.column == PanelColumn::Left || p.column == PanelColumn::Centre ||
              p.column == PanelColumn::Right || p.column == PanelColumn::Over))
            return false;
        for (int k = 0; k < i; ++k)
        {
            const PanelFacts& q = kPanelTable[static_cast<std::size_t>(k)];
            if (same_text(p.key, q.key) || same_text(p.title, q.title) || p.alt_digit == q.alt_digit)
                return false;
        }
    }
    return rows_are_dense(PanelColumn::Left) && rows_are_dense(PanelColumn::Centre) &&
           rows_are_dense(PanelColumn::Right) && rows_are_dense(PanelColumn::Over);
}
static_assert(panel_table_is_consistent(), "kPanelTable: one complete row per PanelId, in the enum's order");

constexpr const PanelFacts& panel_facts(PanelId id)
{
    return kPanelTable[static_cast<std::size_t>(id)];
}

// Which panels are open on the very first start (the table's `open` column).
constexpr std::array<bool, kPanelCount> default_open_panels()
{
    std::array<bool, kPanelCount> open{};
    for (std::size_t i = 0; i < open.size(); ++i)
        open[i] = kPanelTable[i].open;
    return open;
}

// "Alt+8": the panel's shortcut as the View menu and Help show it.
constexpr const char* panel_shortcut(PanelId id)
{
    constexpr const char* text[] = {"Alt+0", "Alt+1", "Alt+2", "Alt+3", "Alt+4",
                                    "Alt+5", "Alt+6", "Alt+7", "Alt+8", "Alt+9"};
    return text[panel_facts(id).alt_digit];
}

} // namespace attnlab
