// Model settings: one row per Config field (file key, flag, label, tooltip, limits, names), walked by
// equality, session files, the trace export, the command line, the Model panel and lesson validation.
#pragma once

#include "session.h"
#include "status.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace attnlab
{

// How a setting's value is stored, and so how it is read, written, edited and compared.
enum class SettingKind
{
    Int,    // an int in min .. max; with min = 0, 0 stands for the paper's default (default_value)
    Choice, // an enum class whose values are 0, 1, ..., named by choices
    Float,  // a float in min .. max
    Bool,   // a bool; its command-line flag sets the opposite of Config{}'s value ("--no-scale")
    Seed,   // a std::uint64_t, any value
};

// Every fact about a setting, in one row: a new setting is its Config field and Setting entry (session.h),
// its row here, and its meaning in the engine.
struct SettingInfo
{
    Setting id;
    // "heads": its key in the "config" of session, trace and weights files, and a lesson step's "setting"
    const char* key;
    const char* flag;    // "--heads": its command-line option
    const char* help;    // the option's line in --help (ASCII)
    const char* name;    // "h (heads)": how validation messages call it
    const char* label;   // "h (heads)": the Model panel's label (UTF-8)
    const char* line;    // the Model panel's one line under it
    const char* tooltip; // the Model panel's tooltip
    // Added to messages, or nullptr: what 0 stands for (Int with min 0, "d_model / h"), what true means
    // (Bool), what the range is about (Float), a hint after an unknown name (Choice).
    const char* note;
    SettingKind kind;
    // Where the value lives: exactly the place of its kind is set (checked at compile time below).
    int Config::*int_member;
    float Config::*float_member;
    bool Config::*bool_member;
    std::uint64_t Config::*seed_member;
    int (*get_choice)(const Config&);   // Choice: the enum's value as an int
    void (*set_choice)(Config&, int);   // Choice: sets it from 0 .. choice_count - 1
    std::array<const char*, 4> choices; // Choice: the names of the values 0, 1, ... (then nullptr)
    // Int and Float: the valid range. Float: panel_max ends the Model panel's (logarithmic) slider.
    double min, max, panel_max;
    // Int with min 0: the size 0 stands for in this config, or -1 when there is none (d_model / h not whole).
    int (*default_value)(const Config&);
};

// [SECTION] Accessors the rows point to

template <auto Member> constexpr int enum_setting(const Config& c)
{
    return static_cast<int>(c.*Member);
}

template <auto Member> constexpr void set_enum_setting(Config& c, int value)
{
    c.*Member = static_cast<std::remove_reference_t<decltype(c.*Member)>>(value);
}

// d_model / h when it is whole (the default d_k and d_v), else -1.
constexpr int default_head_size(const Config& c)
{
    return c.n_heads > 0 && c.d_model % c.n_heads == 0 ? c.d_model / c.n_heads : -1;
}

// 4 d_model: the paper's d_ff.
constexpr int default_d_ff(const Config& c)
{
    return 4 * c.d_model;
}

// [SECTION] The table

// The texts of a row, in SettingInfo's order (key, flag, help, name, label, line, tooltip, note).
struct SettingText
{
    const char *key, *flag, *help, *name, *label, *line, *tooltip, *note;
};

// A row with its texts and kind, and nothing else set.
constexpr SettingInfo setting_row(Setting id, SettingText t, SettingKind kind)
{
    SettingInfo s{};
    s.id = id;
    s.key = t.key;
    s.flag = t.flag;
    s.help = t.help;
    s.name = t.name;
    s.label = t.label;
    s.line = t.line;
    s.tooltip = t.tooltip;
    s.note = t.note;
    s.kind = kind;
    return s;
}

// One builder per kind, so a row sets the place of its kind and no other.
constexpr SettingInfo int_setting(Setting id, SettingText t, int Config::*member, int min, int max,
                                  int (*default_value)(const Config&) = nullptr)
{
    SettingInfo s = setting_row(id, t, SettingKind::Int);
    s.int_member = member;
    s.min = min;
    s.max = max;
    s.default_value = default_value;
    return s;
}

constexpr SettingInfo choice_setting(Setting id, SettingText t, int (*get)(const Config&),
                                     void (*set)(Config&, int), std::array<const char*, 4> names)
{
    SettingInfo s = setting_row(id, t, SettingKind::Choice);
    s.get_choice = get;
    s.set_choice = set;
    s.choices = names;
    return s;
}

constexpr SettingInfo float_setting(Setting id, SettingText t, float Config::*member, float min, float max,
                                    float panel_max)
{
    SettingInfo s = setting_row(id, t, SettingKind::Float);
    s.float_member = member;
    s.min = min;
    s.max = max;
    s.panel_max = panel_max;
    return s;
}

constexpr SettingInfo bool_setting(Setting id, SettingText t, bool Config::*member)
{
    SettingInfo s = setting_row(id, t, SettingKind::Bool);
    s.bool_member = member;
    return s;
}

constexpr SettingInfo seed_setting(Setting id, SettingText t, std::uint64_t Config::*member)
{
    SettingInfo s = setting_row(id, t, SettingKind::Seed);
    s.seed_member = member;
    return s;
}

// clang-format off
inline constexpr std::array<SettingInfo, kSettingCount> kSettingTable = {{
    int_setting(Setting::d_model,
        {"d_model", "--d-model", "Model width d_model", "d_model", "d_model",
         "width of every token vector: X and each output",
         "Width of every token vector: the embedding, X, and the output of each sub-layer.",
         nullptr},
        &Config::d_model, 1, Limits::max_d_model),
    int_setting(Setting::heads,
        {"heads", "--heads", "Number of heads h", "h (heads)", "h (heads)",
         "heads, each with its own W^Q, W^K, W^V and map",
         "Number of attention heads. Each head h has its own W_h^Q, W_h^K, W_h^V and its own "
         "T×T attention map. The - and + buttons step through the h that divide d_model.",
         nullptr},
        &Config::n_heads, 1, Limits::max_heads),
    int_setting(Setting::d_k,
        {"d_k", "--d-k", "Query/key size per head d_k (0: d_model / h)", "d_k", "d_k",
         "query and key width per head: scores ÷ √d_k",
         "Size of a query and a key per head (0: d_model / h). Scores are divided by √d_k, the "
         "key dimension, not the sequence length.",
         "d_model / h"},
        &Config::d_k, 0, Limits::max_head_dim, &default_head_size),
    int_setting(Setting::d_v,
        {"d_v", "--d-v", "Value size per head d_v (0: d_model / h)", "d_v", "d_v",
         "value width per head: head_out is T×d_v",
         "Size of a value per head (0: d_model / h); head_out is T×d_v.",
         "d_model / h"},
        &Config::d_v, 0, Limits::max_head_dim, &default_head_size),
    int_setting(Setting::d_ff,
        {"d_ff", "--d-ff", "Feed-forward width d_ff (0: 4 d_model)", "d_ff", "d_ff",
         "hidden width of the feed-forward network",
         "Hidden width of the feed-forward network (0: 4·d_model).",
         "4 d_model"},
        &Config::d_ff, 0, Limits::max_d_ff, &default_d_ff),
    int_setting(Setting::layers,
        {"layers", "--layers", "Number of encoder layers N", "layers", "layers (N)",
         "encoder layers; each reads the previous norm2",
         "Encoder layers stacked: each takes the previous layer's norm2 as its X.",
         nullptr},
        &Config::n_layers, 1, Limits::max_layers),
    choice_setting(Setting::mask,
        {"mask", "--mask", "Attention mask: none or causal", "mask", "mask",
         "causal: query i sees keys 0..i only",
         "causal: query i may attend to keys 0..i only (the decoder's look-ahead mask), so the "
         "masked scores above the diagonal are −∞. <pad> keys are always masked.",
         "padding is masked automatically"},
        &enum_setting<&Config::mask>, &set_enum_setting<&Config::mask>, {"none", "causal"}),
    choice_setting(Setting::positional,
        {"positional", "--positional", "Positional encoding: sinusoidal or none", "positional encoding",
         "positional",
         "word order, added to the embeddings",
         "sinusoidal: X = embedding + PE(pos), the paper's sin/cos encoding. none: X is the "
         "embedding alone, and attention cannot tell word order apart.",
         nullptr},
        &enum_setting<&Config::positional>, &set_enum_setting<&Config::positional>, {"sinusoidal", "none"}),
    bool_setting(Setting::residual,
        {"residual", "--no-residual", "Add & Norm without the residual: LayerNorm(sublayer(x))", "residual",
         "residual (x + sublayer)",
         "Add & Norm adds the input back; off: LayerNorm(sublayer)",
         "Add & Norm = LayerNorm(x + sublayer(x)): each sub-layer only adds a change to its input, so "
         "the token's own vector (and its position) goes through every layer. Why add the input back? "
         "Switch it off to see: Add & Norm becomes LayerNorm(sublayer(x)), the attention output alone, "
         "and each row becomes a mix of the other tokens. Retrain with it off (Training panel) to see "
         "what it does to learning.",
         "add the input back, as in the paper"},
        &Config::residual),
    float_setting(Setting::temperature,
        {"temperature", "--temperature", "Softmax temperature tau", "temperature τ", "τ (temperature)",
         "softmax(x / τ): below 1 sharper, above 1 flatter",
         "weights = softmax(masked / τ). τ < 1 sharpens each row towards its largest score, τ > 1 "
         "flattens it towards uniform; the paper uses τ = 1.",
         "1 is the paper's softmax"},
        &Config::temperature, Limits::min_temperature, Limits::max_temperature, 10.0f),
    bool_setting(Setting::scale,
        {"scale", "--no-scale", "Do not divide the scores by sqrt(d_k)", "scale", "scale by √d_k",
         "as in the paper; off: the softmax saturates",
         "scaled = scores / √d_k, as in the paper. Switch it off to feed raw dot products to the "
         "softmax: with a large d_k the rows saturate towards one key (watch the entropy).",
         "divide the scores by √d_k"},
        &Config::scale),
    seed_setting(Setting::seed,
        {"seed", "--seed", "Seed of the embeddings and weights", "seed", "seed",
         "same seed, same embeddings and weights",
         "Seeds the embeddings and the Xavier-initialised weights: the same seed gives the same "
         "numbers on every machine.",
         nullptr},
        &Config::seed),
}};
// clang-format on

// [SECTION] Compile-time checks

namespace detail
{

constexpr bool same_text(const char* a, const char* b)
{
    while (*a != '\0' && *a == *b)
        ++a, ++b;
    return *a == *b;
}

// Converts to any field type, so that Config{AnyField{}, ...} compiles with as many of them as it has fields.
struct AnyField
{
    template <typename T> constexpr operator T() const { return T{}; }
};

template <typename T, typename... Args>
constexpr auto brace_initializable(int) -> decltype(T{std::declval<Args>()...}, true)
{
    return true;
}
template <typename T, typename... Args> constexpr bool brace_initializable(...)
{
    return false;
}

template <typename T, std::size_t... I> constexpr bool initializable_with(std::index_sequence<I...>)
{
    return brace_initializable<T, decltype((void)I, AnyField{})...>(0);
}

// The number of fields of an aggregate of scalars (the most initializers T{...} accepts).
template <typename T, std::size_t N = 0> constexpr std::size_t field_count()
{
    if constexpr (initializable_with<T>(std::make_index_sequence<N + 1>{}))
        return field_count<T, N + 1>();
    else
        return N;
}

} // namespace detail

// The table's promises: a row per Setting in the enum's order, every text given, exactly one place for the
// value and it is the place of the row's kind, sensible limits, and no key or flag twice.
constexpr bool setting_table_is_consistent()
{
    for (int i = 0; i < kSettingCount; ++i)
    {
        const SettingInfo& s = kSettingTable[static_cast<std::size_t>(i)];
        const int places = (s.int_member != nullptr) + (s.float_member != nullptr) +
                           (s.bool_member != nullptr) + (s.seed_member != nullptr) +
                           (s.get_choice != nullptr);
        if (static_cast<int>(s.id) != i || places != 1 || s.key == nullptr || s.flag == nullptr ||
            s.help == nullptr || s.name == nullptr || s.label == nullptr || s.line == nullptr ||
            s.tooltip == nullptr || s.flag[0] != '-' || s.flag[1] != '-')
            return false;
        bool fits = false;
        switch (s.kind)
        {
        case SettingKind::Int:
            fits = s.int_member != nullptr && s.min >= 0 && s.min <= s.max &&
                   (s.min == 0) == (s.default_value != nullptr) && (s.min > 0 || s.note != nullptr);
            break;
        case SettingKind::Choice:
            fits = s.set_choice != nullptr && s.choices[0] != nullptr && s.choices[1] != nullptr;
            break;
        case SettingKind::Float:
            fits = s.float_member != nullptr && s.min < s.max && s.min < s.panel_max && s.panel_max <= s.max;
            break;
        case SettingKind::Bool:
            fits = s.bool_member != nullptr && s.note != nullptr;
            break;
        case SettingKind::Seed:
            fits = s.seed_member != nullptr;
            break;
        }
        if (!fits)
            return false;
        for (int j = 0; j < i; ++j)
        {
            const SettingInfo& t = kSettingTable[static_cast<std::size_t>(j)];
            if (detail::same_text(s.key, t.key) || detail::same_text(s.flag, t.flag))
                return false;
        }
    }
    return true;
}
// GCC cannot compare a function's address with null in a constant expression under -fsanitize=undefined: the
// sanitizer build (CMakePresets.json, ATTNLAB_SANITIZER_BUILD) checks the rows at run time instead.
#ifndef ATTNLAB_SANITIZER_BUILD
static_assert(setting_table_is_consistent(),
              "kSettingTable: one complete row per Setting, in the enum's order, with unique keys and flags");
#endif
static_assert(std::is_aggregate_v<Config>, "Config must stay an aggregate of plain settings");
static_assert(detail::field_count<Config>() == static_cast<std::size_t>(kSettingCount),
              "Config's field count differs from Setting::Count: a new Config field needs its Setting entry "
              "(session.h) and its row in kSettingTable (settings.h), in the fields' order");

// [SECTION] Functions that walk the table

// The table, in Config's field order.
const std::array<SettingInfo, kSettingCount>& setting_table();
const SettingInfo& setting_info(Setting setting);
// The row whose key is `key` ("heads"), or nullptr.
const SettingInfo* setting_from_key(std::string_view key);
// Every key, in table order, joined with ", " (for messages that list the valid ones).
std::string setting_keys();

// Whether a and b hold the same value of this setting (floats compare as floats: NaN differs from itself).
bool same_setting(const SettingInfo& info, const Config& a, const Config& b);

// Choice rows: how many names, the name of the config's value, and the names joined as "none or causal"
// (quoted: "\"none\" or \"causal\"").
int choice_count(const SettingInfo& info);
const char* choice_name(const SettingInfo& info, const Config& config);
std::string choice_list(const SettingInfo& info, bool quoted);
// Sets the setting to the value called `name`; an unknown name is an error listing the valid ones
// ("unknown mask \"x\": use none or causal (padding is masked automatically)"), *config unchanged.
Status set_choice_by_name(const SettingInfo& info, std::string_view name, Config* config);

// Int rows whose 0 stands for a default size (d_k, d_v, d_ff: default_value set): the size a valid config
// uses, its value or, for 0, the size 0 stands for. The "resolved" sizes of trace and weights files.
int resolved_setting(const SettingInfo& info, const Config& config);

// The setting's own limits (not the rules between settings, which validate_config adds): a message naming
// it by its name, e.g. "layers must be between 1 and 12, got 99".
Status check_setting(const SettingInfo& info, const Config& config);

} // namespace attnlab
