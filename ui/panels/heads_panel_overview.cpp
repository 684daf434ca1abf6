// The Heads panel's layers x heads overview: every layer's heads at once, the shown query's row of each map
// as a strip (its top key written under it), or the whole maps when no query is shown; a click selects the
// head.
#include "ui/heatmap/heatmap.h"
#include "ui/panels/heads_panel_views.h"
#include "ui/picture/heads_layout.h"
#include "ui/picture/heatmap_math.h"
#include "ui/shell/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnlab::heads_view
{

namespace
{

// One strip: the query's row of a weights map, from its cached texture when each key gets a pixel column,
// else each pixel column coloured by the largest weight of the keys it covers (so no strong key is lost).
// An entry whose texture is not of this matrix yet (see overview_cells) is not used: the strip is drawn from
// the matrix.
void draw_strip(const HeatmapEntry& entry, bool texture_current, const Mat& weights, const Mat* mask,
                int query, ImVec2 p0, ImVec2 p1)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const int T = static_cast<int>(weights.cols());
    const int pixels = static_cast<int>(p1.x - p0.x);
    if (pixels >= T && entry.texture != 0 && texture_current)
    {
        const float v0 = static_cast<float>(query) / static_cast<float>(entry.rows);
        const float v1 = static_cast<float>(query + 1) / static_cast<float>(entry.rows);
        dl->AddImage(reinterpret_cast<ImTextureID>(entry.texture), p0, p1, ImVec2(0.0f, v0),
                     ImVec2(1.0f, v1));
        return;
    }
    const float px = (p1.x - p0.x) / static_cast<float>(std::max(1, pixels));
    for (int p = 0; p < pixels; ++p)
    {
        int first = 0, last = 0;
        keys_of_pixel(T, pixels, p, &first, &last);
        float best = 0.0f;
        bool any = false;
        for (int c = first; c < last; ++c)
            if (mask == nullptr || !std::isinf((*mask)(query, c)))
            {
                best = any ? std::max(best, weights(query, c)) : weights(query, c);
                any = true;
            }
        const Color32 colour = any ? value_to_color(best, entry.scale) : kNegInfColor;
        dl->AddRectFilled(ImVec2(p0.x + static_cast<float>(p) * px, p0.y),
                          ImVec2(p0.x + static_cast<float>(p + 1) * px, p1.y), colour);
    }
}

// Where the overview's cells go.
struct OverviewGrid
{
    OverviewRequest request;
    OverviewLayout o;
    bool strips = false; // a query's strips, or the whole maps when there is none
    float image_h = 0.0f, row_h = 0.0f;
    ImVec2 origin;
    float grid_x = 0.0f, grid_y = 0.0f, grid_w = 0.0f, grid_h = 0.0f;

    // The top left of layer l's head j.
    ImVec2 cell(int l, int j) const
    {
        return ImVec2(grid_x + static_cast<float>(j) * (o.cell_w + request.gap),
                      grid_y + static_cast<float>(l) * row_h);
    }
};

OverviewGrid overview_grid(const AppState& state, const std::vector<std::string>& tokens, int query)
{
    const int layers = static_cast<int>(state.trace().layers.size());
    const int T = static_cast<int>(tokens.size());
    const float fs = ImGui::GetFontSize();
    const float line_h = ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    OverviewGrid g;
    OverviewRequest& request = g.request;
    request.layers = layers;
    request.heads = state.heads();
    request.keys = T;
    request.width = avail.x;
    request.height = avail.y;
    request.font_px = fs * kLabelPitch;
    request.line_h = line_h;
    request.gap = fs * 0.5f;
    request.layer_label_w = ImGui::CalcTextSize(("layer " + std::to_string(layers)).c_str()).x + fs * 0.6f;
    request.key_label_h = widest_label(tokens) + 8.0f;
    request.whole_maps = query < 0;
    g.o = layout_overview(request);
    if (g.o.key_stride > 1)
    {
        // Thinned labels carry their index: room for it too (with square maps the room taken narrows the
        // columns, which thins the labels more, never less).
        request.key_label_h += ImGui::CalcTextSize(("j=" + std::to_string(T) + " ").c_str()).x;
        g.o = layout_overview(request);
    }
    g.strips = query >= 0;
    g.image_h = g.strips ? g.o.strip_h : g.o.map_h;
    g.row_h = g.strips ? g.o.strip_row_h : g.o.map_row_h;
    g.origin = ImGui::GetCursorScreenPos();
    g.grid_x = g.origin.x + request.layer_label_w;
    g.grid_y = g.origin.y + line_h;
    g.grid_w = static_cast<float>(request.heads) * (g.o.cell_w + request.gap) - request.gap;
    g.grid_h = static_cast<float>(layers) * g.row_h - request.gap;
    return g;
}

// How the head chips fit over their columns: "head 12" when the widest does, else the number alone, and when
// even the numbers would run into each other, a chip every `stride` heads.
struct ChipLabels
{
    bool long_form = true;
    int stride = 1;
};

ChipLabels chip_labels(int heads, float column_w)
{
    const float pad = ImGui::GetStyle().FramePadding.x * 2.0f + ImGui::GetStyle().ItemSpacing.x * 0.5f;
    ChipLabels c;
    const std::string widest = std::to_string(heads);
    if (ImGui::CalcTextSize(("head " + widest).c_str()).x + pad <= column_w)
        return c;
    c.long_form = false;
    const float short_w = ImGui::CalcTextSize(widest.c_str()).x + pad;
    c.stride = std::max(1, static_cast<int>(std::ceil(short_w / std::max(1.0f, column_w))));
    return c;
}

// Head chips across the top (click: select the head), one per column unless they would collide.
void head_chips(AppState& state, const OverviewGrid& g)
{
    const ChipLabels labels = chip_labels(g.request.heads, g.o.cell_w + g.request.gap);
    for (int j = 0; j < g.request.heads; j += labels.stride)
    {
        ImGui::SetCursorScreenPos(ImVec2(g.cell(0, j).x, g.origin.y));
        ImGui::PushID(j);
        const std::string text = labels.long_form ? "head " + std::to_string(j + 1) : std::to_string(j + 1);
        if (head_chip(j, j == state.sel.head, text.c_str()))
            state.sel.head = j;
        ImGui::PopID();
    }
}

// The cell under the mouse: its layer and head, and the key (column) and query (row) under it.
struct OverviewHover
{
    int layer = -1, head = -1, key = -1, row = -1;
    bool clicked = false;
    bool right_clicked = false; // an opened model's head switched off or on (head ablation)
};

// One item over the whole grid: the cells are hit-tested, not widgets (T and h x layers can be large).
OverviewHover overview_hover(const AppState& state, const OverviewGrid& g)
{
    const int T = g.request.keys;
    ImGui::SetCursorScreenPos(ImVec2(g.grid_x, g.grid_y));
    ImGui::InvisibleButton("##overview", ImVec2(std::max(1.0f, g.grid_w), std::max(1.0f, g.grid_h)));
    const bool over = ImGui::IsItemHovered() && !state.mouse_ignored;
    OverviewHover hover;
    hover.clicked = over && ImGui::IsItemClicked(ImGuiMouseButton_Left);
    hover.right_clicked = over && ImGui::IsItemClicked(ImGuiMouseButton_Right);
    if (!over)
        return hover;
    const ImVec2 m = ImGui::GetIO().MousePos;
    const int j = static_cast<int>((m.x - g.grid_x) / (g.o.cell_w + g.request.gap));
    const int l = static_cast<int>((m.y - g.grid_y) / g.row_h);
    const float cx = m.x - g.grid_x - static_cast<float>(j) * (g.o.cell_w + g.request.gap);
    const float cy = m.y - g.grid_y - static_cast<float>(l) * g.row_h;
    if (j >= 0 && j < g.request.heads && l >= 0 && l < g.request.layers && cx < g.o.cell_w && cy < g.image_h)
    {
        hover.layer = l;
        hover.head = j;
        hover.key = std::clamp(static_cast<int>(cx / g.o.cell_w * static_cast<float>(T)), 0, T - 1);
        hover.row = std::clamp(static_cast<int>(cy / g.image_h * static_cast<float>(T)), 0, T - 1);
    }
    return hover;
}

// Head j's strip (entry: its map's texture, maybe of the last trace while texture_current is false; nullptr:
// none yet): the query's row, its frame, the query's own key ticked, the top key under it and the
// hovered key outlined.
void strip_cell(const OverviewGrid& g, const HeatmapEntry* entry, bool texture_current,
                const MatrixView& view, const std::vector<std::string>& tokens, int query,
                const OverviewHover& hover, ImVec2 p0, int j, bool selected)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const int T = g.request.keys;
    const float cell_w = g.o.cell_w;
    const ImVec2 p1(p0.x + cell_w, p0.y + g.image_h);
    if (entry != nullptr) // none yet: the strip comes on a next frame
        draw_strip(*entry, texture_current, *view.m, view.mask, query, p0, p1);
    dl->AddRect(ImVec2(p0.x - 1, p0.y - 1), ImVec2(p1.x + 1, p1.y + 1), head_color(j), 0.0f, 0,
                selected ? 3.0f : 1.0f);
    // The query's own position, as a key: a tick above and below the strip.
    const float qx = p0.x + (static_cast<float>(query) + 0.5f) * cell_w / static_cast<float>(T);
    dl->AddLine(ImVec2(qx, p0.y - 4.0f), ImVec2(qx, p0.y), ImGui::GetColorU32(ImGuiCol_Text), 2.0f);
    const TopKey top = top_key(*view.m, query);
    if (top.col >= 0)
    {
        char text[96];
        std::snprintf(text, sizeof text, "%s %.2f",
                      short_token(tokens[static_cast<std::size_t>(top.col)]).c_str(),
                      static_cast<double>(top.weight));
        if (ImGui::CalcTextSize(text).x > cell_w)
            std::snprintf(text, sizeof text, "%s",
                          short_token(tokens[static_cast<std::size_t>(top.col)]).c_str());
        if (ImGui::CalcTextSize(text).x <= cell_w)
            dl->AddText(ImVec2(p0.x, p1.y + 2.0f), ImGui::GetColorU32(ImGuiCol_Text), text);
    }
    if (hover.key >= 0)
    {
        // The hovered key in every strip.
        const float kx0 = p0.x + static_cast<float>(hover.key) * cell_w / static_cast<float>(T);
        const float kx1 =
            std::max(kx0 + 2.0f, p0.x + static_cast<float>(hover.key + 1) * cell_w / static_cast<float>(T));
        dl->AddRect(ImVec2(kx0 - 1, p0.y - 1), ImVec2(kx1 + 1, p1.y + 1), IM_COL32(255, 255, 255, 255), 0.0f,
                    0, 1.5f);
    }
}

// Head j's whole map (texture: its texture, maybe still the last trace's; 0: none yet), its frame and the
// hovered query's row outlined.
void map_cell(const OverviewGrid& g, TextureHandle texture, const OverviewHover& hover, ImVec2 p0, int j,
              bool selected)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const int T = g.request.keys;
    const ImVec2 p1(p0.x + g.o.cell_w, p0.y + g.image_h);
    if (texture != 0)
        dl->AddImage(reinterpret_cast<ImTextureID>(texture), p0, p1);
    dl->AddRect(ImVec2(p0.x - 1, p0.y - 1), ImVec2(p1.x + 1, p1.y + 1), head_color(j), 0.0f, 0,
                selected ? 3.0f : 1.0f);
    if (hover.row >= 0)
    {
        const float ry = p0.y + static_cast<float>(hover.row) * g.image_h / static_cast<float>(T);
        dl->AddRect(ImVec2(p0.x - 1, ry - 1),
                    ImVec2(p1.x + 1, std::max(ry + 2.0f, ry + g.image_h / static_cast<float>(T)) + 1),
                    IM_COL32(255, 255, 255, 255), 0.0f, 0, 1.5f);
    }
}

// Whether the cache holds view's texture as HeatmapCache::get would give it, without re-making it.
bool texture_current(const HeatmapCache& cache, const HeatmapEntry* e, const MatrixView& view)
{
    return e != nullptr && e->version == view.version && e->rows == view.m->rows() &&
           e->cols == view.m->cols() && e->probability == view.probability && e->stretch == view.stretch &&
           (e->texture != 0 || cache.provider() == nullptr);
}

// The layer labels and every cell. A new trace re-makes every map's texture (layers x heads of T x T, up to
// 2 x 2 texels a cell): a frame re-makes at most kOverviewTexelsPerFrame of them (and at least one map), the
// others keep their last texture (a strip is drawn from the matrix then) until a later frame's turn, so a
// frame at 12 layers x 8 heads x T = 200 stays short.
constexpr long long kOverviewTexelsPerFrame = 400000;

void overview_cells(AppState& state, const OverviewGrid& g, const std::vector<std::string>& tokens, int query,
                    const OverviewHover& hover)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float fs = ImGui::GetFontSize();
    MatrixRef ref;
    ref.stage = Stage::weights;
    ref.b = state.sel.b;
    ref.first_key_hidden = state.heads_panel.hide_first_key;
    long long texels = 0; // re-made this frame
    for (int l = 0; l < g.request.layers; ++l)
    {
        const float y = g.cell(l, 0).y;
        char label[32];
        std::snprintf(label, sizeof label, "layer %d", l + 1);
        dl->AddText(ImVec2(g.origin.x, y + (g.image_h - fs) * 0.5f),
                    ImGui::GetColorU32(l == state.sel.layer ? ImGuiCol_Text : ImGuiCol_TextDisabled), label);
        for (int j = 0; j < g.request.heads; ++j)
        {
            ref.layer = l;
            ref.head = j;
            const MatrixView view = resolve_matrix(state, ref);
            if (view.m == nullptr)
                continue;
            const HeatmapEntry* entry = state.heatmaps.find(view.key);
            bool current = texture_current(state.heatmaps, entry, view);
            const long long k =
                texels_per_cell(static_cast<int>(view.m->rows()), static_cast<int>(view.m->cols()));
            const long long cost = static_cast<long long>(view.m->size()) * k * k;
            if (current || texels == 0 || texels + cost <= kOverviewTexelsPerFrame)
            {
                texels += current ? 0 : cost;
                entry = &state.heatmaps.get(view.key, view.version, *view.m, view.probability, view.mask,
                                            view.stretch);
                current = true;
            }
            else
                state.maps_pending = true; // its turn comes on a next frame
            const bool selected = l == state.sel.layer && j == state.sel.head;
            if (g.strips)
                strip_cell(g, entry, current, view, tokens, query, hover, g.cell(l, j), j, selected);
            else
                map_cell(g, entry != nullptr ? entry->texture : 0, hover, g.cell(l, j), j, selected);
            if (head_is_off(state, l, j))
            {
                const ImVec2 p0 = g.cell(l, j);
                head_off_overlay(dl, p0, ImVec2(p0.x + g.o.cell_w, p0.y + g.image_h));
            }
        }
    }
}

void overview_tooltip(AppState& state, const OverviewGrid& g, const std::vector<std::string>& tokens,
                      int query, const OverviewHover& hover)
{
    MatrixRef ref;
    ref.stage = Stage::weights;
    ref.b = state.sel.b;
    ref.first_key_hidden = state.heads_panel.hide_first_key;
    ref.layer = hover.layer;
    ref.head = hover.head;
    const MatrixView view = resolve_matrix(state, ref);
    ImGui::BeginTooltip();
    if (query >= 0 && view.m != nullptr)
    {
        ImGui::Text("layer %d, head %d: query “%s” (i = %d)", hover.layer + 1, hover.head + 1,
                    tokens[static_cast<std::size_t>(query)].c_str(), query);
        ImGui::Text("key “%s” (j = %d): weight %s", tokens[static_cast<std::size_t>(hover.key)].c_str(),
                    hover.key, format_value_long((*view.m)(query, hover.key)).c_str());
        if (g.o.key_px < 1.0f)
            ImGui::TextDisabled("%d keys share a pixel column here: each shows the largest of their weights",
                                static_cast<int>(std::ceil(1.0f / g.o.key_px)));
        ImGui::TextDisabled("click: select layer %d head %d%s", hover.layer + 1, hover.head + 1,
                            state.showing_opened() ? "" : " · right click: export");
    }
    else
    {
        ImGui::Text("layer %d, head %d: query “%s” (i = %d)", hover.layer + 1, hover.head + 1,
                    tokens[static_cast<std::size_t>(hover.row)].c_str(), hover.row);
        ImGui::TextDisabled("click: pin this query (its row in every layer and head) and select the head%s",
                            state.showing_opened() ? "" : " · right click: export");
    }
    if (head_is_off(state, hover.layer, hover.head))
        ImGui::TextColored(ImVec4(0.92f, 0.35f, 0.3f, 1.0f),
                           "switched off: its output is zeroed (the map shows where it would look)");
    if (state.showing_opened())
        ImGui::TextDisabled(
            head_is_off(state, hover.layer, hover.head)
                ? "right-click: switch this head on again"
                : "right-click: switch this head off (its output zeroed) and see what changes");
    ImGui::EndTooltip();
}

} // namespace

void draw_overview(AppState& state)
{
    const std::vector<std::string>& tokens = *state.query_tokens(false);
    const int query = state.shown_query(false);
    const OverviewGrid g = overview_grid(state, tokens, query);
    head_chips(state, g);
    const OverviewHover hover = overview_hover(state, g);
    overview_cells(state, g, tokens, query, hover);
    // Key labels under the last layer, in every head's column (thinned when the keys are narrower than a
    // line). A column's last labels stop a label's pitch before the next column's first one.
    const float pitch = ImGui::GetFontSize() * kLabelPitch;
    const float column = g.o.cell_w + g.request.gap;
    const int fitting = std::clamp(
        static_cast<int>(std::floor((column - pitch) / std::max(1e-3f, g.o.key_px))) + 1, 1, g.request.keys);
    for (int j = 0; j < g.request.heads; ++j)
        key_labels(tokens, ImVec2(g.cell(0, j).x, g.grid_y + g.grid_h), g.o.key_px, g.o.key_stride,
                   j + 1 < g.request.heads ? fitting : -1);
    if (hover.layer >= 0)
        overview_tooltip(state, g, tokens, query, hover);
    // Right click: an opened model's head off or on (head ablation); otherwise the map's export menu, as on
    // every other map (it did nothing here).
    if (hover.right_clicked && hover.layer >= 0 && state.showing_opened())
        toggle_head_off(state, hover.layer, hover.head);
    else if (hover.right_clicked && hover.layer >= 0)
    {
        MatrixRef& map = state.heads_panel.menu_map;
        map = MatrixRef{};
        map.stage = Stage::weights;
        map.b = state.sel.b;
        map.first_key_hidden = state.heads_panel.hide_first_key;
        map.layer = hover.layer;
        map.head = hover.head;
        ImGui::OpenPopup("##overview_menu");
    }
    if (ImGui::BeginPopup("##overview_menu"))
    {
        const MatrixRef& map = state.heads_panel.menu_map;
        heatmap_export_menu_items(state, map,
                                  "attention weights, layer " + std::to_string(map.layer + 1) + ", head " +
                                      std::to_string(map.head + 1));
        ImGui::EndPopup();
    }
    if (hover.clicked)
    {
        state.sel.layer = hover.layer;
        state.sel.head = hover.head;
        if (query < 0)
            toggle_pin(state, false, hover.row);
    }
    ImGui::SetCursorScreenPos(g.origin);
    ImGui::Dummy(
        ImVec2(g.request.layer_label_w + g.grid_w, g.request.line_h + g.grid_h + g.request.key_label_h));
}

} // namespace attnlab::heads_view
