// Panel layout: each panel's default place in fractions of the work area, and the maths between fractions
// and pixels.
#include "ui/model/layout.h"

#include <algorithm>
#include <cmath>

namespace attnlab
{

namespace
{

// [SECTION] The default columns

struct Member
{
    PanelId id;
    float weight; // share of the column's height among its open panels
};

// The lesson's text needs most of the left column while it is open; Input and Model keep their 2 : 3.
constexpr Member kLeft[] = {{PanelId::Lesson, 1.8f}, {PanelId::Input, 0.4f}, {PanelId::Model, 0.6f}};
constexpr Member kCentre[] = {{PanelId::Pipeline, 1.0f}};
constexpr Member kRight[] = {{PanelId::Heads, 0.56f}, {PanelId::Inspector, 0.44f}};
// Large views that cover the centre and right columns while they are open.
constexpr PanelId kOver[] = {PanelId::Comparisons, PanelId::Training};
constexpr float kLeftWidth = 0.24f, kCentreWidth = 0.40f, kRightWidth = 0.36f;

bool is_open(const std::array<bool, kPanelCount>& open, PanelId id)
{
    return open[static_cast<std::size_t>(id)];
}

template <std::size_t N> bool any_open(const Member (&column)[N], const std::array<bool, kPanelCount>& open)
{
    return std::any_of(std::begin(column), std::end(column),
                       [&](const Member& m) { return is_open(open, m.id); });
}

// Stacks the column's open panels from top to bottom, each as tall as its share of the weights.
// The focused panel counts twice.
template <std::size_t N>
void stack(const Member (&column)[N], const std::array<bool, kPanelCount>& open, PanelId focus, float x,
           float w, std::array<LayoutRect, kPanelCount>& out)
{
    const auto weight = [&](const Member& m) { return m.id == focus ? 2.0f * m.weight : m.weight; };
    float total = 0.0f;
    for (const Member& m : column)
        total += is_open(open, m.id) ? weight(m) : 0.0f;
    float y = 0.0f;
    for (const Member& m : column)
    {
        if (!is_open(open, m.id))
            continue;
        const float h = weight(m) / total;
        out[static_cast<std::size_t>(m.id)] = {x, y, w, h};
        y += h;
    }
}

} // namespace

std::array<LayoutRect, kPanelCount> default_layout(const std::array<bool, kPanelCount>& open, PanelId focus)
{
    std::array<LayoutRect, kPanelCount> out{};
    const float left_w = any_open(kLeft, open) ? kLeftWidth : 0.0f;
    const float rest = 1.0f - left_w;
    const bool centre = any_open(kCentre, open);
    const bool right = any_open(kRight, open);
    // The centre and the right column share what the left column leaves, in their usual proportion.
    const float centre_w = !centre ? 0.0f : right ? rest * kCentreWidth / (kCentreWidth + kRightWidth) : rest;
    stack(kLeft, open, focus, 0.0f, left_w, out);
    stack(kCentre, open, focus, left_w, centre_w, out);
    stack(kRight, open, focus, left_w + centre_w, rest - centre_w, out);
    for (const PanelId id : kOver)
        if (is_open(open, id))
            out[static_cast<std::size_t>(id)] = {left_w, 0.0f, rest, 1.0f};
    return out;
}

LayoutRect work_area(float display_w, float display_h, float menu_h, float status_h)
{
    return {0.0f, menu_h, display_w, std::max(1.0f, display_h - menu_h - status_h)};
}

LayoutRect place_in_area(const LayoutRect& f, const LayoutRect& area)
{
    // Both edges rounded: neighbours in fractions stay neighbours in pixels, without a gap or an overlap.
    const float x0 = std::round(f.x * area.w), x1 = std::round((f.x + f.w) * area.w);
    const float y0 = std::round(f.y * area.h), y1 = std::round((f.y + f.h) * area.h);
    const float w = std::clamp(x1 - x0, 1.0f, area.w);
    const float h = std::clamp(y1 - y0, 1.0f, area.h);
    return {area.x + std::clamp(x0, 0.0f, area.w - w), area.y + std::clamp(y0, 0.0f, area.h - h), w, h};
}

LayoutRect fraction_of_area(const LayoutRect& p, const LayoutRect& area)
{
    return {(p.x - area.x) / area.w, (p.y - area.y) / area.h, p.w / area.w, p.h / area.h};
}

LayoutRect panel_fraction(const ViewPrefs& prefs, const std::array<LayoutRect, kPanelCount>& defaults,
                          PanelId id)
{
    const PanelPlace& p = prefs.places[static_cast<std::size_t>(id)];
    return p.placed ? LayoutRect{p.x, p.y, p.w, p.h} : defaults[static_cast<std::size_t>(id)];
}

} // namespace attnlab
