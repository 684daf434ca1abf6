// Session and Config: equality and validation (walking the settings table), mask and encoding names.
#include "session.h"

#include "settings.h"

#include <algorithm>

#include <cmath>
#include <string>

namespace attnlab
{

bool Config::operator==(const Config& o) const
{
    for (const SettingInfo& info : setting_table())
        if (!same_setting(info, *this, o))
            return false;
    return true;
}

bool Session::operator==(const Session& o) const
{
    return text == o.text && target == o.target && config == o.config && weights_path == o.weights_path &&
           model_path == o.model_path && model_folder == o.model_folder;
}

Status validate_config(const Config& c, Setting* setting)
{
    const auto about = [&](Setting which, Status status)
    {
        if (setting != nullptr)
            *setting = which;
        return status;
    };
    for (const SettingInfo& info : setting_table())
        if (Status s = check_setting(info, c); !s)
            return about(info.id, s);
    // The rules between settings: the default d_k = d_v = d_model / h must be whole, and every size 0 stands
    // for must be within its setting's limits.
    if ((c.d_k == 0 || c.d_v == 0) && c.d_model % c.n_heads != 0)
        return about(Setting::heads,
                     Status::error("d_model (" + std::to_string(c.d_model) + ") is not divisible by h (" +
                                   std::to_string(c.n_heads) +
                                   "): choose h that divides d_model, or set d_k and d_v explicitly"));
    for (const SettingInfo& info : setting_table())
        if (info.kind == SettingKind::Int && info.min == 0 && c.*info.int_member == 0)
        {
            const int resolved = info.default_value(c);
            if (resolved < 1 || resolved > info.max)
                return about(info.id, Status::error(std::string(info.name) + " (0: " + info.note + " = " +
                                                    std::to_string(resolved) + ") must be between 1 and " +
                                                    std::to_string(static_cast<int>(info.max))));
        }
    return Status::ok();
}

int next_head_count(int d_model, int h, int direction)
{
    const int top = std::min(d_model, Limits::max_heads);
    for (int n = h + (direction > 0 ? 1 : -1); n >= 1 && n <= top; n += direction > 0 ? 1 : -1)
        if (d_model % n == 0)
            return n;
    return h;
}

const char* to_string(MaskKind mask)
{
    Config c;
    c.mask = mask;
    return choice_name(setting_info(Setting::mask), c);
}

const char* to_string(PositionalKind positional)
{
    Config c;
    c.positional = positional;
    return choice_name(setting_info(Setting::positional), c);
}

Status parse_mask(std::string_view name, MaskKind* out)
{
    Config c;
    ATTNLAB_TRY(set_choice_by_name(setting_info(Setting::mask), name, &c));
    *out = c.mask;
    return Status::ok();
}

Status parse_positional(std::string_view name, PositionalKind* out)
{
    Config c;
    ATTNLAB_TRY(set_choice_by_name(setting_info(Setting::positional), name, &c));
    *out = c.positional;
    return Status::ok();
}

} // namespace attnlab
