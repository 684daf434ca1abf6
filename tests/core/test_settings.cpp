// The settings table: one row per Config field, walked by equality and validation; keys, flags and labels
// unique, every row's member its own, every invalid value named by its setting's key.
#include "../support/settings_support.h"
#include "core/settings.h"

#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <set>
#include <string>

namespace attnlab
{
namespace
{

using test::with_other_value;

TEST(Settings, KeysFlagsAndLabelsAreUnique)
{
    std::set<std::string> keys, flags, labels;
    for (const SettingInfo& info : setting_table())
    {
        EXPECT_TRUE(keys.insert(info.key).second) << info.key;
        EXPECT_TRUE(flags.insert(info.flag).second) << info.flag;
        EXPECT_TRUE(labels.insert(info.label).second) << info.label; // the Model panel's ImGui ids
        EXPECT_EQ(setting_from_key(info.key), &info);
        EXPECT_EQ(&setting_info(info.id), &info);
    }
    EXPECT_EQ(keys.size(), static_cast<std::size_t>(kSettingCount));
    EXPECT_EQ(setting_from_key("no_such_setting"), nullptr);
    EXPECT_EQ(setting_from_key(""), nullptr);
}

// What the compile-time guard on Config relies on: the field counter counts the fields of an aggregate.
struct ThreeFields
{
    int a = 0;
    float b = 0.0f;
    MaskKind c = MaskKind::None;
};

TEST(Settings, TheFieldCounterCountsAnAggregatesFields)
{
    EXPECT_EQ(detail::field_count<ThreeFields>(), 3u);
    EXPECT_EQ(detail::field_count<Config>(), static_cast<std::size_t>(kSettingCount));
}

TEST(Settings, EqualityNoticesAChangeInEveryRowAndOnlyThatRowChanges)
{
    const Config base;
    ASSERT_TRUE(validate_config(base).is_ok());
    for (const SettingInfo& info : setting_table())
    {
        SCOPED_TRACE(info.key);
        const Config changed = with_other_value(info, base);
        EXPECT_NE(changed, base);
        EXPECT_FALSE(changed == base);
        EXPECT_FALSE(same_setting(info, changed, base));
        // Each row has a field of its own: changing it leaves every other row's value as it was.
        for (const SettingInfo& other : setting_table())
        {
            if (other.id != info.id)
            {
                EXPECT_TRUE(same_setting(other, changed, base)) << other.key;
            }
        }
        EXPECT_TRUE(validate_config(changed).is_ok()) << validate_config(changed).message();
    }
}

TEST(Settings, NaNTemperatureIsNotEqualToItself)
{
    Config a;
    a.temperature = std::numeric_limits<float>::quiet_NaN();
    EXPECT_NE(a, a);
}

// A value out of the row's own limits, when the kind has one.
bool make_invalid(const SettingInfo& info, Config& c)
{
    switch (info.kind)
    {
    case SettingKind::Int:
        c.*info.int_member = static_cast<int>(info.max) + 1;
        return true;
    case SettingKind::Choice:
        info.set_choice(c, choice_count(info));
        return true;
    case SettingKind::Float:
        c.*info.float_member = static_cast<float>(info.max) * 2.0f;
        return true;
    case SettingKind::Bool:
    case SettingKind::Seed:
        return false;
    }
    return false;
}

TEST(Settings, AValidationErrorNamesItsSettingByKey)
{
    int checked = 0, any_value = 0;
    for (const SettingInfo& info : setting_table())
    {
        SCOPED_TRACE(info.key);
        any_value += info.kind == SettingKind::Bool || info.kind == SettingKind::Seed;
        Config c;
        if (!make_invalid(info, c))
            continue;
        Setting which = Setting::Count;
        const Status status = validate_config(c, &which);
        ASSERT_FALSE(status.is_ok());
        EXPECT_EQ(setting_info(which).key, std::string(info.key)) << status.message();
        EXPECT_NE(status.message().find(info.name), std::string::npos) << status.message();
        EXPECT_FALSE(check_setting(info, c).is_ok());
        ++checked;
    }
    EXPECT_GE(checked,
              kSettingCount - any_value); // every row but the bools and the seed has an invalid value
    EXPECT_EQ(any_value, 3);              // scale, residual, seed
}

TEST(Settings, RulesBetweenSettingsNameTheSettingToChange)
{
    Setting which = Setting::Count;
    Config c;
    c.n_heads = 5; // 16 is not divisible by 5
    EXPECT_FALSE(validate_config(c, &which).is_ok());
    EXPECT_EQ(which, Setting::heads);
    c = Config{};
    c.d_v = -1;
    const Status negative = validate_config(c, &which);
    EXPECT_EQ(which, Setting::d_v);
    EXPECT_NE(negative.message().find("d_v must be positive, or 0 for the paper's default"),
              std::string::npos)
        << negative.message();
    c = Config{};
    c.n_layers = 0;
    EXPECT_EQ(validate_config(c, &which).message(), "layers must be between 1 and 12, got 0");
    EXPECT_EQ(which, Setting::layers);
    which = Setting::Count;
    EXPECT_TRUE(validate_config(Config{}, &which).is_ok());
    EXPECT_EQ(which, Setting::Count); // untouched when valid
}

TEST(Settings, EveryChoiceNameRoundTripsAndAnUnknownOneListsThemAll)
{
    for (const SettingInfo& info : setting_table())
    {
        if (info.kind != SettingKind::Choice)
            continue;
        SCOPED_TRACE(info.key);
        ASSERT_GE(choice_count(info), 2);
        for (int i = 0; i < choice_count(info); ++i)
        {
            Config c;
            ASSERT_TRUE(set_choice_by_name(info, info.choices[static_cast<std::size_t>(i)], &c).is_ok());
            EXPECT_EQ(info.get_choice(c), i);
            EXPECT_STREQ(choice_name(info, c), info.choices[static_cast<std::size_t>(i)]);
        }
        Config c = with_other_value(info, Config{});
        const Status bad = set_choice_by_name(info, "no-such-name", &c);
        EXPECT_FALSE(bad.is_ok());
        EXPECT_EQ(c, with_other_value(info, Config{})); // unchanged
        for (int i = 0; i < choice_count(info); ++i)
            EXPECT_NE(bad.message().find(info.choices[static_cast<std::size_t>(i)]), std::string::npos)
                << bad.message();
    }
    EXPECT_STREQ(to_string(MaskKind::Causal), "causal");
    EXPECT_STREQ(to_string(PositionalKind::Sinusoidal), "sinusoidal");
}

// The "resolved" sizes of trace and weights files come from the table: for every valid config they are the
// sizes the engine uses (Config::resolved_d_k, resolved_d_v, resolved_d_ff), given or left at 0.
TEST(Settings, ResolvedSizesAreTheOnesTheEngineUses)
{
    int rows = 0;
    for (const SettingInfo& info : setting_table())
        rows += info.kind == SettingKind::Int && info.default_value != nullptr;
    EXPECT_EQ(rows, 3); // d_k, d_v, d_ff: a new one needs its resolved size below
    // d_model, h, d_k, d_v, d_ff
    const std::array<int Config::*, 5> fields = {&Config::d_model, &Config::n_heads, &Config::d_k,
                                                 &Config::d_v, &Config::d_ff};
    for (const auto& sizes : {std::array{16, 4, 0, 0, 0}, std::array{16, 4, 5, 3, 20},
                              std::array{12, 3, 0, 7, 0}, std::array{8, 1, 2, 0, 9}})
    {
        Config c;
        for (std::size_t i = 0; i < fields.size(); ++i)
            c.*fields[i] = sizes[i];
        ASSERT_TRUE(validate_config(c).is_ok());
        EXPECT_EQ(resolved_setting(setting_info(Setting::d_k), c), c.resolved_d_k());
        EXPECT_EQ(resolved_setting(setting_info(Setting::d_v), c), c.resolved_d_v());
        EXPECT_EQ(resolved_setting(setting_info(Setting::d_ff), c), c.resolved_d_ff());
    }
}

} // namespace
} // namespace attnlab

// The table's compile-time check run at run time too: the sanitizer build cannot evaluate it while compiling
// (core/settings.h says why), so this is where a broken row shows there.
TEST(SettingsTable, EveryRowIsCompleteAndInOrderAtRunTime)
{
    EXPECT_TRUE(attnlab::setting_table_is_consistent());
}
