// Model settings: look-ups, comparison, choice names and each setting's own limits, all from kSettingTable.
#include "settings.h"

#include <cmath>

namespace attnlab
{

const std::array<SettingInfo, kSettingCount>& setting_table()
{
    return kSettingTable;
}

const SettingInfo& setting_info(Setting setting)
{
    return kSettingTable[static_cast<std::size_t>(setting)];
}

const SettingInfo* setting_from_key(std::string_view key)
{
    for (const SettingInfo& info : kSettingTable)
        if (key == info.key)
            return &info;
    return nullptr;
}

std::string setting_keys()
{
    std::string keys;
    for (const SettingInfo& info : kSettingTable)
        keys += (keys.empty() ? "" : ", ") + std::string(info.key);
    return keys;
}

int resolved_setting(const SettingInfo& info, const Config& config)
{
    const int value = config.*info.int_member;
    return value > 0 ? value : info.default_value(config);
}

bool same_setting(const SettingInfo& info, const Config& a, const Config& b)
{
    switch (info.kind)
    {
    case SettingKind::Int:
        return a.*info.int_member == b.*info.int_member;
    case SettingKind::Choice:
        return info.get_choice(a) == info.get_choice(b);
    case SettingKind::Float:
        return a.*info.float_member == b.*info.float_member;
    case SettingKind::Bool:
        return a.*info.bool_member == b.*info.bool_member;
    case SettingKind::Seed:
        return a.*info.seed_member == b.*info.seed_member;
    }
    return false;
}

int choice_count(const SettingInfo& info)
{
    int n = 0;
    while (n < static_cast<int>(info.choices.size()) && info.choices[static_cast<std::size_t>(n)] != nullptr)
        ++n;
    return n;
}

const char* choice_name(const SettingInfo& info, const Config& config)
{
    const int value = info.get_choice(config);
    return value >= 0 && value < choice_count(info) ? info.choices[static_cast<std::size_t>(value)] : "?";
}

std::string choice_list(const SettingInfo& info, bool quoted)
{
    const int n = choice_count(info);
    const std::string quote = quoted ? "\"" : "";
    std::string list;
    for (int i = 0; i < n; ++i)
        list += (i == 0       ? ""
                 : i + 1 == n ? " or "
                              : ", ") +
                quote + info.choices[static_cast<std::size_t>(i)] + quote;
    return list;
}

Status set_choice_by_name(const SettingInfo& info, std::string_view name, Config* config)
{
    const int n = choice_count(info);
    for (int i = 0; i < n; ++i)
        if (name == info.choices[static_cast<std::size_t>(i)])
        {
            info.set_choice(*config, i);
            return Status::ok();
        }
    return Status::error("unknown " + std::string(info.name) + " \"" + std::string(name) + "\": use " +
                         choice_list(info, false) +
                         (info.note != nullptr ? " (" + std::string(info.note) + ")" : std::string()));
}

namespace
{

Status check_range(const SettingInfo& info, int value, int lo, int hi)
{
    if (value < lo || value > hi)
        return Status::error(std::string(info.name) + " must be between " + std::to_string(lo) + " and " +
                             std::to_string(hi) + ", got " + std::to_string(value));
    return Status::ok();
}

} // namespace

Status check_setting(const SettingInfo& info, const Config& config)
{
    switch (info.kind)
    {
    case SettingKind::Int:
    {
        const int value = config.*info.int_member;
        const int hi = static_cast<int>(info.max);
        if (info.min > 0)
            return check_range(info, value, static_cast<int>(info.min), hi);
        if (value < 0) // min 0: 0 stands for the paper's default
            return Status::error(std::string(info.name) +
                                 " must be positive, or 0 for the paper's default (" + info.note + ")");
        return value == 0 ? Status::ok() : check_range(info, value, 1, hi);
    }
    case SettingKind::Choice:
    {
        const int value = info.get_choice(config);
        if (value < 0 || value >= choice_count(info))
            return Status::error("unknown " + std::string(info.name) + ": use " + choice_list(info, false));
        return Status::ok();
    }
    case SettingKind::Float:
    {
        const float value = config.*info.float_member;
        if (!std::isfinite(value) || value < info.min || value > info.max)
            return Status::error(
                std::string(info.name) + " must be between " + format_number(info.min) + " and " +
                format_number(info.max) +
                (info.note != nullptr ? " (" + std::string(info.note) + ")" : std::string()) + ", got " +
                format_number(value));
        return Status::ok();
    }
    case SettingKind::Bool:
    case SettingKind::Seed:
        return Status::ok(); // every value is valid
    }
    return Status::ok();
}

} // namespace attnlab
