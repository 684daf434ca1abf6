// Test helpers for the settings table: a valid config that differs in one setting, and that value as text.
#pragma once

#include "core/settings.h"

#include <cstdint>
#include <initializer_list>
#include <string>

namespace attnlab::test
{

// base with this setting alone changed to another value that validate_config accepts (base must be valid).
inline Config with_other_value(const SettingInfo& info, Config base)
{
    Config c = base;
    switch (info.kind)
    {
    case SettingKind::Int:
        for (const int v :
             {base.*info.int_member * 2, base.*info.int_member + 1, base.*info.int_member - 1, 1, 2, 3, 8})
        {
            c.*info.int_member = v;
            if (v != base.*info.int_member && validate_config(c).is_ok())
                return c;
        }
        break;
    case SettingKind::Choice:
        info.set_choice(c, (info.get_choice(base) + 1) % choice_count(info));
        return c;
    case SettingKind::Float:
        for (const float v : {base.*info.float_member * 2.0f, base.*info.float_member * 0.5f})
        {
            c.*info.float_member = v;
            if (v != base.*info.float_member && validate_config(c).is_ok())
                return c;
        }
        break;
    case SettingKind::Bool:
        c.*info.bool_member = !(base.*info.bool_member);
        return c;
    case SettingKind::Seed:
        c.*info.seed_member = base.*info.seed_member + (std::uint64_t{1} << 63) + 5;
        return c;
    }
    return base; // no valid other value found: the caller's EXPECT_NE fails
}

// The setting's value in c as a command-line argument ("" for a Bool, whose flag takes none).
inline std::string value_argument(const SettingInfo& info, const Config& c)
{
    switch (info.kind)
    {
    case SettingKind::Int:
        return std::to_string(c.*info.int_member);
    case SettingKind::Choice:
        return choice_name(info, c);
    case SettingKind::Float:
        return std::to_string(c.*info.float_member);
    case SettingKind::Bool:
        return "";
    case SettingKind::Seed:
        return std::to_string(c.*info.seed_member);
    }
    return "";
}

} // namespace attnlab::test
