// The panel table read by everyone: saved preferences keep their keys, every panel has a default place, the
// Alt keys, the View menu's titles and the Help list follow the table.
#include "ui/model/layout.h"
#include "ui/model/panel_table.h"
#include "ui/model/prefs.h"
#include "ui/panels/panels.h"
#include "ui/shell/app_ui.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace attnlab
{
namespace
{

std::size_t idx(PanelId id)
{
    return static_cast<std::size_t>(id);
}

using test::contains;

// [SECTION] Preferences

// The keys preferences files have been written with since panels were saved: a file from before the table
// must load into the same panels.
TEST(PanelTable, SavedPreferencesKeepLoadingIntoTheSamePanels)
{
    const std::pair<PanelId, const char*> saved[] = {
        {PanelId::Input, "input"},   {PanelId::Model, "model"},         {PanelId::Pipeline, "pipeline"},
        {PanelId::Heads, "heads"},   {PanelId::Inspector, "inspector"}, {PanelId::Comparisons, "comparisons"},
        {PanelId::Lesson, "lesson"}, {PanelId::Training, "training"},
    };
    ASSERT_EQ(std::size(saved), static_cast<std::size_t>(kPanelCount));
    for (const auto& [id, key] : saved)
    {
        SCOPED_TRACE(key);
        ViewPrefs prefs;
        const bool was_open = prefs.open[idx(id)];
        prefs_from_text(std::string("panel.") + key + " = " + (was_open ? "0" : "1") + "\nplace." + key +
                            " = 0.1 0.2 0.3 0.4\n",
                        prefs);
        for (const PanelFacts& p : kPanelTable)
        {
            EXPECT_EQ(prefs.open[idx(p.id)], p.id == id ? !was_open : ViewPrefs().open[idx(p.id)]) << p.title;
            EXPECT_EQ(prefs.places[idx(p.id)].placed, p.id == id) << p.title;
        }
        EXPECT_FLOAT_EQ(prefs.places[idx(id)].w, 0.3f);
        // And it is written back under the same key.
        const std::string text = prefs_to_text(prefs);
        EXPECT_TRUE(contains(text, std::string("\npanel.") + key + " = " + (was_open ? "0" : "1") + "\n"))
            << text;
        EXPECT_TRUE(contains(text, std::string("\nplace.") + key + " = 0.1 0.2 0.3 0.4\n")) << text;
    }
}

TEST(PanelTable, TheFirstStartOpensTheUsualPanels)
{
    const ViewPrefs prefs;
    for (const PanelFacts& p : kPanelTable)
        EXPECT_EQ(prefs.open[idx(p.id)], p.id == PanelId::Input || p.id == PanelId::Model ||
                                             p.id == PanelId::Pipeline || p.id == PanelId::Heads ||
                                             p.id == PanelId::Inspector)
            << p.title;
}

// [SECTION] Layout

// A panel the layout forgot would get an empty rectangle (a 1x1 window once in pixels).
TEST(PanelTable, EveryPanelHasADefaultPlaceAloneAndWithAllTheOthers)
{
    std::array<bool, kPanelCount> all{};
    all.fill(true);
    const auto together = default_layout(all);
    for (const PanelFacts& p : kPanelTable)
    {
        SCOPED_TRACE(p.title);
        std::array<bool, kPanelCount> alone{};
        alone[idx(p.id)] = true;
        const LayoutRect r = default_layout(alone)[idx(p.id)];
        EXPECT_GT(r.w, 0.2f);
        EXPECT_GT(r.h, 0.2f);
        EXPECT_GT(together[idx(p.id)].w, 0.1f);
        EXPECT_GT(together[idx(p.id)].h, 0.1f);
        EXPECT_LE(together[idx(p.id)].x + together[idx(p.id)].w, 1.0f + 1e-6f);
        EXPECT_LE(together[idx(p.id)].y + together[idx(p.id)].h, 1.0f + 1e-6f);
    }
}

// [SECTION] Keys, menus and Help

class PanelTableUi : public ::testing::Test
{
protected:
    test::HeadlessUi ui;
    std::unique_ptr<AppState> state = std::make_unique<AppState>();
};

TEST_F(PanelTableUi, EachAltDigitShowsAndHidesItsPanelAlone)
{
    ui.frames(*state, 2);
    for (const PanelFacts& p : kPanelTable)
    {
        SCOPED_TRACE(p.title);
        const auto before = state->prefs.open;
        ui.press_key(*state, keys::Digit0 + p.alt_digit, false, true);
        for (const PanelFacts& q : kPanelTable)
            EXPECT_EQ(state->prefs.open[idx(q.id)], q.id == p.id ? !before[idx(q.id)] : before[idx(q.id)])
                << q.title;
    }
}

TEST_F(PanelTableUi, EveryOpenPanelIsAWindowWithItsTitle)
{
    state->prefs.open.fill(true);
    const auto out = ui.frames(*state, 3);
    for (const PanelFacts& p : kPanelTable)
    {
        EXPECT_TRUE(contains(out.text, p.title)) << p.title;
        EXPECT_GT(state->panel_rects[idx(p.id)][2], 100.0f) << p.title;
        EXPECT_GT(state->panel_rects[idx(p.id)][3], 60.0f) << p.title;
    }
}

TEST_F(PanelTableUi, HelpListsEveryPanelsKeyAndTheTrainedModelsKey)
{
    int n = 0;
    const ShortcutInfo* table = shortcut_table(&n);
    std::string keys, actions;
    for (int i = 0; i < n; ++i)
    {
        keys += table[i].keys + "\n";
        actions += table[i].action + "\n";
    }
    EXPECT_TRUE(contains(keys, "Ctrl+T\n")) << keys;
    EXPECT_TRUE(contains(keys, "Alt+1 … Alt+8\n")) << keys;
    for (const PanelFacts& p : kPanelTable)
        EXPECT_TRUE(contains(actions, p.title)) << p.title;
    // And the Help window shows them.
    state->show_help = true;
    auto out = ui.frames(*state, 2);
    EXPECT_TRUE(contains(out.text, "Ctrl+T")) << out.text;
    EXPECT_TRUE(contains(out.text, "Training)")) << out.text;
    // It is a modal that stays in front until closed, and Esc closes it: nothing of it is left behind.
    ui.press_key(*state, ImGui::GetKeyIndex(ImGuiKey_Escape));
    out = ui.frames(*state, 2);
    EXPECT_FALSE(state->show_help);
    EXPECT_FALSE(contains(out.text, "Pin it in the Inspector")) << out.text;
}

} // namespace
} // namespace attnlab
