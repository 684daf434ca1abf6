// Panel layout: each panel's default place in fractions of the work area, and the maths between fractions
// and pixels.
#include "ui/model/layout.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attnlab
{

namespace
{

// [SECTION] The default columns

constexpr float kLeftWidth = 0.24f, kCentreWidth = 0.40f, kRightWidth = 0.36f;

bool is_open(const std::array<bool, kPanelCount>& open, PanelId id)
{
    return open[static_cast<std::size_t>(id)];
}

bool any_open(PanelColumn column, const std::array<bool, kPanelCount>& open)
{
    return std::any_of(kPanelTable.begin(), kPanelTable.end(),
                       [&](const PanelFacts& p) { return p.column == column && is_open(open, p.id); });
}

// Stacks the column's open panels from top to bottom (the table's `row`), each as tall as its share of the
// weights. The focused panel counts twice.
void stack(PanelColumn column, const std::array<bool, kPanelCount>& open, PanelId focus, float x, float w,
           std::array<LayoutRect, kPanelCount>& out)
{
    std::vector<const PanelFacts*> shown; // the column's open panels, top first
    for (int row = 0; row < kPanelCount; ++row)
        for (const PanelFacts& p : kPanelTable)
            if (p.column == column && p.row == row && is_open(open, p.id))
                shown.push_back(&p);
    const auto weight = [&](const PanelFacts& p) { return p.id == focus ? 2.0f * p.weight : p.weight; };
    float total = 0.0f;
    for (const PanelFacts* p : shown)
        total += weight(*p);
    float y = 0.0f;
    for (const PanelFacts* p : shown)
    {
        const float h = weight(*p) / total;
        out[static_cast<std::size_t>(p->id)] = {x, y, w, h};
        y += h;
    }
}

} // namespace

std::array<LayoutRect, kPanelCount> default_layout(const std::array<bool, kPanelCount>& open, PanelId focus)
{
    std::array<LayoutRect, kPanelCount> out{};
    const float left_w = any_open(PanelColumn::Left, open) ? kLeftWidth : 0.0f;
    const float rest = 1.0f - left_w;
    const bool centre = any_open(PanelColumn::Centre, open);
    const bool right = any_open(PanelColumn::Right, open);
    // The centre and the right column share what the left column leaves, in their usual proportion.
    const float centre_w = !centre ? 0.0f : right ? rest * kCentreWidth / (kCentreWidth + kRightWidth) : rest;
    stack(PanelColumn::Left, open, focus, 0.0f, left_w, out);
    stack(PanelColumn::Centre, open, focus, left_w, centre_w, out);
    stack(PanelColumn::Right, open, focus, left_w + centre_w, rest - centre_w, out);
    for (const PanelFacts& p : kPanelTable)
        if (p.column == PanelColumn::Over && is_open(open, p.id))
            out[static_cast<std::size_t>(p.id)] = {left_w, 0.0f, rest, 1.0f};
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
