// Shared by the fuzz targets: a quick look at an input before it goes to a loader.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace attnlab::fuzz
{

// The input as text.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size)
{
    return {reinterpret_cast<const char*>(data), size};
}

// How deeply [ and { nest (outside strings). The loaders are always called; this only decides whether the
// target may parse the input itself first, which must not crash on nesting the loader is meant to refuse.
inline int nesting_depth(std::string_view text)
{
    int depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (const char c : text)
    {
        if (in_string)
        {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"')
            in_string = true;
        else if (c == '[' || c == '{')
            deepest = std::max(deepest, ++depth);
        else if (c == ']' || c == '}')
            --depth;
    }
    return deepest;
}

// Inputs nested deeper than this are handed to the loader without being parsed by the target first.
inline constexpr int kMaxPeekDepth = 200;

// Parses text without exceptions (a discarded value when it is not JSON), or nothing when it nests too deep
// to be parsed safely here.
inline bool peek_json(std::string_view text, nlohmann::json* out)
{
    if (nesting_depth(text) > kMaxPeekDepth)
        return false;
    *out = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    return !out->is_discarded();
}

// Calls visit(key, value) for every member of every object in j, walking with an explicit stack.
template <class Visit> void for_each_member(const nlohmann::json& j, Visit visit)
{
    std::vector<const nlohmann::json*> stack{&j};
    while (!stack.empty())
    {
        const nlohmann::json* node = stack.back();
        stack.pop_back();
        if (node->is_object())
            for (auto it = node->begin(); it != node->end(); ++it)
            {
                visit(it.key(), *it);
                stack.push_back(&*it);
            }
        else if (node->is_array())
            for (const nlohmann::json& element : *node)
                stack.push_back(&element);
    }
}

// Runs the engine's matrix products on one thread (the targets run one input at a time).
inline void single_thread()
{
    setenv("OMP_NUM_THREADS", "1", 1);
}

} // namespace attnlab::fuzz
