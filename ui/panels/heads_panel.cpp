// Heads panel: the h attention maps of a layer as small multiples, a query token pinned across every head,
// the layers x heads overview of that query's weights, and the cross-attention maps.
//
// Index of this file:
// [SECTION] Shared with the overview (heads_panel_views.h)
// [SECTION] Text that fits
// [SECTION] The pinned query
// [SECTION] Shared lines: colour bar and what H means
// [SECTION] The grid of maps (one layer's heads, or the cross-attention block's)
// [SECTION] Attention sinks and head ablation
// [SECTION] Views
//
// The layers x heads overview is in heads_panel_overview.cpp.
#include "ui/heatmap/heatmap.h"
#include "ui/panels/heads_panel_views.h"
#include "ui/panels/panels.h"
#include "ui/picture/heads_layout.h"
#include "ui/picture/heatmap_math.h"
#include "ui/shell/app_ui.h"
#include "ui/shell/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

namespace attnlab
{

// [SECTION] Shared with the overview (heads_panel_views.h)

namespace heads_view
{

QueryPin& pin_of(AppState& state, bool cross)
{
    return cross ? state.heads_panel.cross_query : state.heads_panel.query;
}

void toggle_pin(AppState& state, bool cross, int row)
{
    if (const std::vector<std::string>* tokens = state.query_tokens(cross))
        toggle_query_pin(pin_of(state, cross), row, *tokens);
}

std::string short_token(const std::string& token)
{
    return truncate_utf8(token, kMaxLabelChars);
}

void key_labels(const std::vector<std::string>& keys, ImVec2 top_left, float cell, int stride, int count)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float fs = ImGui::GetFontSize();
    const int n = count < 0 ? static_cast<int>(keys.size()) : std::min(count, static_cast<int>(keys.size()));
    // Every label lying flat when each fits its cell (turned to read upwards, a lone "I" reads as a dash).
    bool flat = stride <= 1;
    for (int c = 0; c < n && flat; ++c)
        flat = ImGui::CalcTextSize(short_token(keys[static_cast<std::size_t>(c)]).c_str()).x + 6.0f <= cell;
    for (int c = 0; c < n; c += std::max(1, stride))
    {
        const std::string token = short_token(keys[static_cast<std::size_t>(c)]);
        const std::string text = stride > 1 ? "j=" + std::to_string(c) + " " + token : token;
        const float w = ImGui::CalcTextSize(text.c_str()).x;
        const ImU32 color = ImGui::GetColorU32(token == "<pad>" ? ImGuiCol_TextDisabled : ImGuiCol_Text);
        if (flat)
        {
            dl->AddText(
                ImVec2(top_left.x + (static_cast<float>(c) + 0.5f) * cell - w * 0.5f, top_left.y + 4.0f),
                color, text.c_str());
            continue;
        }
        const float x = top_left.x + (static_cast<float>(c) + 0.5f) * cell - fs * 0.5f;
        draw_text_upwards(dl, ImVec2(x, top_left.y + 4.0f + w), color, text.c_str());
    }
}

float widest_label(const std::vector<std::string>& tokens)
{
    float w = 0.0f;
    for (const std::string& token : tokens)
        w = std::max(w, ImGui::CalcTextSize(short_token(token).c_str()).x);
    return w;
}

} // namespace heads_view

namespace
{

using heads_view::key_labels;
using heads_view::kLabelPitch;
using heads_view::kMaxLabelChars;
using heads_view::pin_of;
using heads_view::short_token;
using heads_view::toggle_pin;
using heads_view::widest_label;

constexpr int kMaxChips = 48; // query tokens as chips up to this T; a slider beyond

// [SECTION] Text that fits

// One line of text: `full` when it fits the panel's width, else `brief` (wrapped if even that is too wide),
// and `more` (when given) as its tooltip.
void fitted_line(const std::string& full, const std::string& brief, bool disabled, const char* more = nullptr)
{
    const bool fits = ImGui::CalcTextSize(full.c_str()).x <= ImGui::GetContentRegionAvail().x;
    const std::string& text = fits ? full : brief;
    if (disabled)
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    if (disabled)
        ImGui::PopStyleColor();
    if (more != nullptr)
        item_tooltip(more);
}

// printf into a std::string (the panel's lines are short: 255 bytes at most).
std::string strprintf(const char* fmt, ...) IM_FMTARGS(1);
std::string strprintf(const char* fmt, ...)
{
    char text[256];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    return text;
}

// [SECTION] The pinned query

// ↑ / ↓ move the pinned query (from none: the first or the last token); V shows the next view. Only while the
// panel has the keyboard focus and no text field takes the keys.
void handle_keys(AppState& state, bool cross)
{
    const ImGuiIO& io = ImGui::GetIO();
    if (!ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) || io.WantTextInput || io.KeyCtrl ||
        io.KeyAlt)
        return;
    if (ImGui::IsKeyPressed(keys::V, false))
    {
        const bool has_cross = state.trace().has_cross;
        HeadsView& v = state.heads_panel.view;
        v = v == HeadsView::Maps                     ? HeadsView::AllLayers
            : v == HeadsView::AllLayers && has_cross ? HeadsView::Cross
                                                     : HeadsView::Maps;
    }
    const std::vector<std::string>* tokens = state.query_tokens(cross);
    if (tokens == nullptr || tokens->empty())
        return;
    const int step = ImGui::IsKeyPressed(keys::Down) ? 1 : ImGui::IsKeyPressed(keys::Up) ? -1 : 0;
    if (step == 0)
        return;
    QueryPin& pin = pin_of(state, cross);
    const int T = static_cast<int>(tokens->size());
    const int row = pin.valid() ? std::clamp(pin.row + step, 0, T - 1) : (step > 0 ? 0 : T - 1);
    set_query_pin(pin, row, *tokens);
}

// The query tokens as chips (T <= kMaxChips) or a slider: hovering one previews it in every head, a click
// pins it, a second click unpins it. Without chips, one line says what is pinned and how to pin.
void query_picker(AppState& state, bool cross, bool chips)
{
    const std::vector<std::string>& tokens = *state.query_tokens(cross);
    const int T = static_cast<int>(tokens.size());
    QueryPin& pin = pin_of(state, cross);
    const int hovered = state.heads_hover_row;
    const char* what = cross ? "target query" : "query";
    if (chips && T <= kMaxChips)
    {
        ImGui::TextDisabled("%s", what);
        for (int i = 0; i < T; ++i)
        {
            const std::string& token = tokens[static_cast<std::size_t>(i)];
            ImGui::SameLine(0.0f, 3.0f);
            if (ImGui::GetContentRegionAvail().x <
                ImGui::CalcTextSize(token.c_str(), nullptr, false).x + 12.0f)
                ImGui::NewLine();
            ImGui::PushID(i);
            const bool pinned = i == pin.row;
            int colours = 0;
            if (pinned)
            {
                const ImVec4 fill = ImGui::ColorConvertU32ToFloat4(pinned_color());
                ImGui::PushStyleColor(ImGuiCol_Button, fill);
                ImGui::PushStyleColor(ImGuiCol_ButtonHovered, fill);
                ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0, 0, 0, 1));
                colours = 3;
            }
            else if (i == hovered)
            {
                ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyle().Colors[ImGuiCol_ButtonActive]);
                colours = 1;
            }
            if (literal_small_button(token))
                toggle_pin(state, cross, i);
            ImGui::PopStyleColor(colours);
            if (ImGui::IsItemHovered() && !state.mouse_ignored)
            {
                state.heads_hover_row_next = i;
                ImGui::SetTooltip(pinned ? "i = %d: pinned in every head (click again or Esc: unpin)"
                                         : "i = %d: click to pin it in every head (↑ ↓ move it)",
                                  i);
            }
            ImGui::PopID();
        }
        return;
    }
    if (T > kMaxChips)
    {
        // Too many tokens for chips: a slider over the positions.
        ImGui::TextDisabled("%s", what);
        ImGui::SameLine();
        int row = pin.valid() ? pin.row : 0;
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9.0f);
        if (ImGui::SliderInt("##query", &row, 0, T - 1, pin.valid() ? "i = %d" : "none"))
            set_query_pin(pin, row, tokens);
        ImGui::SameLine();
    }
    const std::string token = short_token(pin.token);
    if (pin.valid())
        fitted_line(strprintf("“%s” (i = %d) pinned in every head: click it again or Esc to unpin",
                              token.c_str(), pin.row),
                    strprintf("“%s” (i = %d) pinned; Esc unpins", token.c_str(), pin.row), true);
    else if (!state.presenter) // how to use it is for the person at the keyboard, not the audience
        fitted_line(strprintf("click a %s (a row label or a row) to pin it in every head",
                              cross ? "target token" : "token"),
                    "click a row to pin it", true, "↑ ↓ pin the first or last token and move the pin");
}

// [SECTION] Shared lines: colour bar and what H means

// The colour bar with its range and, outside presenter mode, the stretch box, on one line where they fit:
// the bar gives way first, then the note on masked cells, then the label's words; the box wraps last.
void colour_line(AppState& state, int T)
{
    const float fs = ImGui::GetFontSize();
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const bool stretch = state.prefs.stretch_weights;
    const char* range = stretch ? "0 … p95" : "0 … 1";
    const char* masked = "(grey: masked)";
    const char* box = "stretch colours";
    const float avail = ImGui::GetContentRegionAvail().x;
    const float box_w =
        state.presenter ? 0.0f : ImGui::GetFrameHeight() + ImGui::CalcTextSize(box).x + 2.0f * spacing;
    const float masked_w = ImGui::CalcTextSize(masked).x + spacing;
    const float min_bar = 2.0f * fs;
    const char* label = stretch ? "colour: weight, stretched" : "colour: weight in [0, 1]";
    auto fixed = [&](const char* l)
    { return ImGui::CalcTextSize(l).x + ImGui::CalcTextSize(range).x + 3.0f * spacing + box_w; };
    if (avail - fixed(label) < min_bar)
        label = "weight";
    const bool show_masked = avail - fixed(label) - masked_w >= min_bar;
    const float bw = std::clamp(avail - fixed(label) - (show_masked ? masked_w : 0.0f), min_bar, 8.0f * fs);
    ImGui::TextDisabled("%s", label);
    ImGui::SameLine();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    colormap_strip(ImGui::GetWindowDrawList(), p.x, p.y + 2, bw, p.y + fs - 2);
    ImGui::Dummy(ImVec2(bw, fs));
    if (ImGui::IsItemHovered() && !state.mouse_ignored)
        ImGui::SetTooltip(
            "a weight's colour; masked keys (weight 0 because they may not be looked at) are grey");
    ImGui::SameLine();
    ImGui::TextDisabled("%s", range);
    if (show_masked)
    {
        ImGui::SameLine();
        ImGui::TextDisabled("%s", masked);
    }
    // Presenter mode shows the maps, not the controls: the choice made before the lecture stays.
    if (state.presenter)
        return;
    ImGui::SameLine(0.0f, 2.0f * spacing);
    if (ImGui::GetContentRegionAvail().x < box_w - 2.0f * spacing)
        ImGui::NewLine();
    ImGui::Checkbox(box, &state.prefs.stretch_weights);
    item_tooltip("Colour each map from 0 to its 95th percentile instead of 0 to 1 (larger weights saturate). "
                 "With many tokens the weights are near 1/T and a [0, 1] scale shows them all dark.");
    if (!stretch && T >= 32)
    {
        // A hint where there is room for it, in the box's tooltip otherwise.
        const std::string hint = strprintf("(T = %d: weights average 1/T, stretching shows them)", T);
        ImGui::SameLine();
        if (ImGui::GetContentRegionAvail().x >= ImGui::CalcTextSize(hint.c_str()).x)
            ImGui::TextDisabled("%s", hint.c_str());
        else
            ImGui::NewLine();
    }
}

// The H legend for the maps shown: with the first key hidden each row spreads over the other keys - 1 keys,
// so uniform is ln(keys - 1), and the legend says so.
void entropy_line(int keys, bool first_key_hidden)
{
    const int shown = first_key_hidden ? std::max(1, keys - 1) : keys;
    const double uniform = std::log(static_cast<double>(std::max(1, shown)));
    const char* without = first_key_hidden ? ", first key left out" : "";
    fitted_line(
        strprintf("H = mean row entropy, nats: 0 = one key per query, ln %d = %.2f = uniform%s", shown,
                  uniform, without),
        strprintf("H: row entropy, 0 (one key) … %.2f (uniform%s)", uniform,
                  first_key_hidden ? ", key 0 out" : ""),
        true,
        first_key_hidden
            ? "H = −Σ_j A[i, j] ln A[i, j] in nats over the keys shown (key 0 hidden and the rest "
              "renormalised), averaged over the query rows i: 0 when each query puts all its weight on one "
              "key, ln (T − 1) when it spreads it evenly over the T − 1 keys left. A causal mask leaves "
              "query "
              "i only i keys after key 0, so its rows cannot reach ln (T − 1)."
            : "H = −Σ_j A[i, j] ln A[i, j] in nats, averaged over the query rows i: 0 when each query puts "
              "all "
              "its weight on one key, ln T when it spreads it evenly over all T keys. Low: the head picks a "
              "few keys for each query; high: it averages over many. A causal mask leaves query i only i + 1 "
              "keys, so its rows cannot reach ln T.");
}

// [SECTION] The grid of maps (one layer's heads, or the cross-attention block's)

// The title above a map: the head's chip, then H, or the key the shown query looks at most.
void map_title(AppState& state, const MatrixRef& ref, const Mat& weights, int query, float width,
               const std::vector<std::string>* keys)
{
    const int j = ref.head;
    if (head_chip(j, j == state.sel.head))
        state.sel.head = j;
    const bool off = ref.source == MatrixSource::Layer && head_is_off(state, ref.layer, j);
    if (ImGui::IsItemHovered() && !state.mouse_ignored)
    {
        if (state.showing_opened() && ref.source == MatrixSource::Layer)
            ImGui::SetTooltip("head %d: click to select it (the Pipeline and the Inspector show it)\n"
                              "right-click: switch it %s",
                              j + 1, off ? "on again" : "off (its output zeroed) and see what changes");
        else
            ImGui::SetTooltip("head %d: click to select it (the Pipeline and the Inspector show it)", j + 1);
    }
    if (ImGui::IsItemClicked(ImGuiMouseButton_Right) && ref.source == MatrixSource::Layer)
        toggle_head_off(state, ref.layer, j);
    ImGui::SameLine(0.0f, 4.0f);
    const float room = width - (ImGui::GetItemRectSize().x + 4.0f);
    char text[96];
    const TopKey top = top_key(weights, query);
    if (top.col >= 0 && keys != nullptr && top.col < static_cast<int>(keys->size()))
    {
        // What the shown query looks at most in this head: the answer to "what does it attend to?".
        const std::string key = short_token((*keys)[static_cast<std::size_t>(top.col)]);
        std::snprintf(text, sizeof text, "→ %s %.2f", key.c_str(), static_cast<double>(top.weight));
        if (ImGui::CalcTextSize(text).x > room)
            std::snprintf(text, sizeof text, "→ %s", key.c_str());
        // A wide chip ("11") leaves less room: the key cut with "…" rather than a blank title.
        for (int n = utf8_length(key) - 1; n >= 1 && ImGui::CalcTextSize(text).x > room; --n)
            std::snprintf(text, sizeof text, "→ %s", truncate_utf8(key, n).c_str());
    }
    else
    {
        const double H = static_cast<double>(state.mean_entropy(ref));
        std::snprintf(text, sizeof text, "H = %.2f", H);
        if (ImGui::CalcTextSize(text).x > room)
            std::snprintf(text, sizeof text, "%.2f", H);
    }
    if (ImGui::CalcTextSize(text).x <= room)
    {
        ImGui::TextUnformatted(text);
        if (ImGui::IsItemHovered() && !state.mouse_ignored)
            ImGui::SetTooltip(top.col >= 0 ? "the key this head's query row weighs most, and its weight"
                                           : "H: this head's mean row entropy in nats (0: one key per query, "
                                             "ln T: uniform)");
    }
    else
        ImGui::NewLine();
}

// The query labels at the left of one grid row: each is a button-like strip (hover previews, click pins).
void row_labels(AppState& state, bool cross, const std::vector<std::string>& tokens, ImVec2 p0, float width,
                float cell, int grid_row)
{
    const int T = static_cast<int>(tokens.size());
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const int pinned = pin_of(state, cross).row;
    const int hovered = state.heads_hover_row;
    ImGui::SetCursorScreenPos(p0);
    ImGui::PushID(1000 + grid_row);
    ImGui::InvisibleButton("##row_labels", ImVec2(std::max(1.0f, width), std::max(1.0f, cell * T)));
    ImGui::PopID();
    int under_mouse = -1;
    if (ImGui::IsItemHovered() && !state.mouse_ignored)
    {
        under_mouse = std::clamp(static_cast<int>((ImGui::GetIO().MousePos.y - p0.y) / cell), 0, T - 1);
        state.heads_hover_row_next = under_mouse;
        ImGui::SetTooltip("query i = %d “%s”: click to %s it in every head", under_mouse,
                          tokens[static_cast<std::size_t>(under_mouse)].c_str(),
                          under_mouse == pinned ? "unpin" : "pin");
        if (ImGui::IsItemClicked(ImGuiMouseButton_Left))
            toggle_pin(state, cross, under_mouse);
    }
    for (int r = 0; r < T; ++r)
    {
        const std::string text = short_token(tokens[static_cast<std::size_t>(r)]);
        const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
        const ImVec2 at(p0.x + width - ts.x - 6.0f,
                        p0.y + (static_cast<float>(r) + 0.5f) * cell - ts.y * 0.5f);
        ImU32 colour = ImGui::GetColorU32(text == "<pad>" ? ImGuiCol_TextDisabled : ImGuiCol_Text);
        if (r == pinned)
        {
            dl->AddRectFilled(ImVec2(at.x - 3.0f, at.y), ImVec2(at.x + ts.x + 3.0f, at.y + ts.y),
                              pinned_color(), 3.0f);
            colour = IM_COL32(0, 0, 0, 255);
        }
        else if (r == hovered || r == under_mouse)
            dl->AddRectFilled(ImVec2(at.x - 3.0f, at.y), ImVec2(at.x + ts.x + 3.0f, at.y + ts.y),
                              ImGui::GetColorU32(ImGuiCol_ButtonHovered), 3.0f);
        dl->AddText(at, colour, text.c_str());
    }
}

void draw_map_grid(AppState& state, bool cross)
{
    const int h = state.heads();
    MatrixRef ref;
    ref.source = cross ? MatrixSource::Cross : MatrixSource::Layer;
    ref.stage = Stage::weights;
    ref.layer = state.sel.layer;
    ref.b = state.sel.b;
    ref.first_key_hidden = !cross && state.heads_panel.hide_first_key;
    const MatrixView first = resolve_matrix(state, ref);
    if (first.m == nullptr || first.row_tokens == nullptr || first.col_tokens == nullptr)
    {
        ImGui::TextDisabled("(not available)");
        return;
    }
    const std::vector<std::string>& queries = *first.row_tokens;
    const std::vector<std::string>& keys = *first.col_tokens;
    const int rows = static_cast<int>(first.m->rows());
    const int cols = static_cast<int>(first.m->cols());

    const float fs = ImGui::GetFontSize();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    HeadsGridRequest request;
    request.heads = h;
    request.rows = rows;
    request.cols = cols;
    request.width = avail.x;
    request.height = avail.y;
    request.font_px = fs * kLabelPitch;
    request.title_h = ImGui::GetTextLineHeightWithSpacing() + 2.0f;
    request.gap = fs * 0.6f;
    // Labels are measured only when they could fit at all (T labels of a line each), so T = 512 costs
    // nothing.
    if (static_cast<float>(rows) * request.font_px <= avail.y)
        request.row_label_w = widest_label(queries) + 12.0f;
    if (static_cast<float>(cols) * request.font_px <= avail.x)
        request.key_label_h = widest_label(keys) + 8.0f;
    if (request.row_label_w == 0.0f)
        request.row_label_w = avail.x; // cannot fit: rules row labels out
    if (request.key_label_h == 0.0f)
        request.key_label_h = avail.y;
    const HeadsGridLayout grid = layout_heads_grid(request);
    state.heads_panel.grid_row_labels = grid.row_labels;

    const int query = state.shown_query(cross);
    const int pinned = pin_of(state, cross).row;
    const int hovered = state.heads_hover_row;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float label_w = grid.row_labels ? request.row_label_w : 0.0f;
    const float row_step = request.title_h + grid.map_h + request.gap;
    for (int j = 0; j < h; ++j)
    {
        const int gr = j / grid.columns;
        const int gc = j % grid.columns;
        const ImVec2 at(origin.x + label_w + static_cast<float>(gc) * (grid.map_w + request.gap),
                        origin.y + static_cast<float>(gr) * row_step);
        ref.head = j;
        const MatrixView view = resolve_matrix(state, ref);
        if (view.m == nullptr)
            continue;
        ImGui::PushID(j);
        ImGui::SetCursorScreenPos(at);
        map_title(state, ref, *view.m, query, grid.map_w, &keys);
        ImGui::SetCursorScreenPos(ImVec2(at.x, at.y + request.title_h));
        HeatmapOptions options;
        options.width = grid.map_w;
        options.labels = false;
        options.colorbar = false;
        options.frame_color = head_color(j);
        options.frame_thickness = j == state.sel.head ? 4.0f : 1.5f;
        options.highlight_row = hovered;
        options.pinned_row = pinned;
        options.dim_other_rows = true;
        options.pin_on_click = false;
        options.click_hint = "click: pin this query in every head (again: unpin) and select the head";
        const bool ablation = !cross && state.showing_opened();
        if (ablation)
        {
            // An opened model's right click switches the head off or on (File > Export heatmap, Ctrl+E,
            // exports).
            options.export_menu = false;
            options.click_hint = head_is_off(state, ref.layer, j)
                                     ? "click: pin this query · right click: switch this head on again"
                                     : "click: pin this query · right click: switch this head off";
        }
        options.max_cell_px = grid.cell_px;
        options.max_height = grid.map_h;
        const HeatmapResult r = draw_heatmap(state, ref, options);
        if (ablation && r.right_clicked)
            toggle_head_off(state, ref.layer, j);
        if (!cross && head_is_off(state, ref.layer, j))
        {
            // The image's rectangle: the map is drawn at the top left of its slot, labels off.
            const ImVec2 p0(at.x, at.y + request.title_h);
            const ImVec2 size = ImGui::GetItemRectMax();
            head_off_overlay(
                ImGui::GetWindowDrawList(), p0,
                ImVec2(std::min(size.x, at.x + grid.map_w), std::min(size.y, p0.y + grid.map_h)));
        }
        if (r.hovered)
            state.heads_hover_row_next = r.row;
        if (r.clicked)
        {
            state.sel.head = j;
            toggle_pin(state, cross, r.row);
        }
        ImGui::PopID();
    }
    if (grid.row_labels)
        for (int gr = 0; gr < grid.grid_rows; ++gr)
            row_labels(state, cross, queries,
                       ImVec2(origin.x, origin.y + static_cast<float>(gr) * row_step + request.title_h),
                       label_w, grid.cell_px, gr);
    const float grid_h = static_cast<float>(grid.grid_rows) * row_step - request.gap;
    if (grid.key_labels)
        for (int gc = 0; gc < std::min(grid.columns, h); ++gc)
            key_labels(keys,
                       ImVec2(origin.x + label_w + static_cast<float>(gc) * (grid.map_w + request.gap),
                              origin.y + grid_h),
                       grid.cell_px, 1);
    // The whole grid as one item, so the window knows its size.
    ImGui::SetCursorScreenPos(origin);
    ImGui::Dummy(ImVec2(label_w + static_cast<float>(grid.columns) * (grid.map_w + request.gap) - request.gap,
                        grid_h + (grid.key_labels ? request.key_label_h : 0.0f)));
}

// [SECTION] Attention sinks and head ablation

// The switch that hides the first key (with why so much weight goes there), and for an opened model the
// heads switched off. Outside presenter mode: the choices are made at the keyboard.
void sinks_and_ablation_line(AppState& state)
{
    HeadsPanelState& panel = state.heads_panel;
    if (!state.presenter)
    {
        ImGui::Checkbox("hide the first key", &panel.hide_first_key);
        item_tooltip(
            "Attention sinks: many heads of trained models put most of their weight on the first token "
            "whenever nothing else matches, because the softmax must spend a whole unit of weight "
            "somewhere. Hiding it (column 0 set to 0, each row divided by the rest of its sum) shows "
            "where the remaining weight goes. The Inspector still shows the model's own weights.");
        if (state.showing_opened())
        {
            ImGui::SameLine(0.0f, ImGui::GetFontSize() * 1.5f);
            const int off = heads_off_count(state);
            const char* hint = "right-click a map to switch its head off";
            if (off == 0 && ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(hint).x)
                hint = "right-click: head off";
            if (off == 0 && ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(hint).x)
                ImGui::NewLine();
            if (off == 0)
            {
                ImGui::TextDisabled("%s", hint);
                item_tooltip("Head ablation: a right-click on a map (or on a head's chip) zeroes that head's "
                             "output. Every later layer and the predictions run again; the Pipeline lists "
                             "the top 5 now and with every head on.");
            }
            else
            {
                char text[32];
                std::snprintf(text, sizeof text, "%d head%s off", off, off == 1 ? "" : "s");
                if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(text).x)
                    ImGui::NewLine();
                ImGui::TextUnformatted(text);
                ImGui::SameLine();
                if (ImGui::GetContentRegionAvail().x <
                    ImGui::CalcTextSize("all heads on").x + ImGui::GetStyle().FramePadding.x * 2.0f)
                    ImGui::NewLine();
                if (ImGui::SmallButton("all heads on"))
                    all_heads_on(state);
                item_tooltip("Switch every head on again. The Pipeline's predictions show the change: now, "
                             "and in grey with every head on.");
            }
        }
    }
    if (panel.hide_first_key)
        fitted_line("first key hidden: each row renormalised over keys 1… (the weight parked on the first "
                    "token, an attention sink, is left out)",
                    "first key hidden, rows renormalised", true,
                    "A head with nothing to look at parks its weight on the first token (a sink): hiding "
                    "that column shows where the rest goes.");
}

// [SECTION] Views

// The tabs: the layer's maps, all layers, and the cross-attention maps when there are any. The view asked
// for (by a key, a lesson, or a test) is selected on the tab bar; a click on a tab changes it.
void view_tabs(AppState& state)
{
    HeadsPanelState& panel = state.heads_panel;
    const bool has_cross = state.trace().has_cross;
    if (panel.view == HeadsView::Cross && !has_cross)
        panel.view = HeadsView::Maps;
    if (!ImGui::BeginTabBar("##heads_views"))
        return;
    const HeadsView asked = panel.view;
    const bool ask = asked != panel.tab_shown;
    HeadsView shown = panel.tab_shown;
    char maps_name[48];
    std::snprintf(maps_name, sizeof maps_name, "Heads of layer %d###maps", state.sel.layer + 1);
    const struct
    {
        HeadsView view;
        const char* name;
        const char* tip;
    } tabs[] = {
        {HeadsView::Maps, maps_name, "the h maps of the selected layer (V: next view)"},
        {HeadsView::AllLayers, "All layers###all",
         "layers x heads: one query's row of weights in every layer and head (V: next view)"},
        {HeadsView::Cross, "Cross-attention###cross",
         "the h cross-attention maps: target queries, source keys (V: next view)"},
    };
    for (const auto& tab : tabs)
    {
        if (tab.view == HeadsView::Cross && !has_cross)
            continue;
        const ImGuiTabItemFlags flags = ask && tab.view == asked ? ImGuiTabItemFlags_SetSelected : 0;
        const bool open = ImGui::BeginTabItem(tab.name, nullptr, flags);
        if (ImGui::IsItemHovered() && !state.mouse_ignored)
            ImGui::SetTooltip("%s", tab.tip);
        if (open)
        {
            shown = tab.view;
            ImGui::EndTabItem();
        }
    }
    ImGui::EndTabBar();
    // A tab bar selects an asked-for tab one frame later: until then the asked view stands.
    if (!ask || shown == asked)
        panel.view = shown;
    if (shown != panel.tab_shown)
        state.heads_hover_row = -1; // a row of another view
    panel.tab_shown = shown;
}

} // namespace

void draw_heads_panel(AppState& state)
{
    if (!state.has_trace())
    {
        no_result_yet(state);
        return;
    }
    const Trace& t = state.trace();
    const bool cross_view = state.heads_panel.view == HeadsView::Cross && t.has_cross;
    handle_keys(state, cross_view);
    view_tabs(state);
    const HeadsView view = state.heads_panel.view;
    const bool cross = view == HeadsView::Cross;
    const int T = t.T();

    const int T_q = cross ? static_cast<int>(state.query_tokens(true)->size()) : T;
    const int sentence = state.sel.b + 1; // counted from 1 like layers and heads; positions i, j from 0
    if (view == HeadsView::Cross)
        fitted_line(
            strprintf(
                "cross-attention weights, sentence %d: rows = %d target queries, columns = %d source keys",
                sentence, T_q, T),
            strprintf("cross-attention, sentence %d: %d target queries × %d source keys", sentence, T_q, T),
            false);
    else if (view == HeadsView::AllLayers)
    {
        const int query = state.shown_query(false);
        const std::vector<std::string>& tokens = *state.query_tokens(false);
        if (query >= 0)
        {
            const std::string token = short_token(tokens[static_cast<std::size_t>(query)]);
            fitted_line(
                strprintf("row i = %d (“%s”) of A_h in every layer (down) and head (across), sentence %d, "
                          "T = %d",
                          query, token.c_str(), sentence, T),
                strprintf("row i = %d (“%s”) of every layer and head", query, token.c_str()), false,
                "each strip is the query's row of weights over the T keys, named below; under it, the key "
                "it weighs most. Click a strip to select that layer and head.");
        }
        else
            fitted_line(
                strprintf("A_h of every layer (down) and head (across), sentence %d, T = %d: pick a query to "
                          "see its row",
                          sentence, T),
                "every layer and head: pick a query", false,
                "click a token above, or a row of a map, or press ↓: each map becomes that query's row");
    }
    else if (view == HeadsView::Maps)
        fitted_line(
            strprintf("weights A_h of layer %d, sentence %d, T = %d: row = query, column = key",
                      state.sel.layer + 1, sentence, T),
            strprintf("weights A_h of layer %d, sentence %d, T = %d", state.sel.layer + 1, sentence, T),
            false,
            "each map's row i is query i, its column j is key j: the weight query i gives key j "
            "(positions i and j count from 0, as the matrix rows and columns do)");
    trained_view_banner(state);
    // Honesty: seeded weights have learned nothing, so no pattern here is a head's "job".
    if (!state.showing_trained() && !state.showing_opened() && !state.engine.has_imported_weights())
        fitted_line(
            strprintf("random weights (seed %llu), untrained: no head has learned anything yet",
                      static_cast<unsigned long long>(t.config.seed)),
            strprintf("random, untrained weights (seed %llu)",
                      static_cast<unsigned long long>(t.config.seed)),
            true,
            "Seeded weights have learned nothing, so no pattern here is a head's job. The Training panel "
            "(Alt+8) trains a model and shows heads that have.");
    // The grid's own labels name the queries when they fit; chips do it otherwise (and always for the
    // overview).
    const bool chips = view == HeadsView::AllLayers || !state.heads_panel.grid_row_labels;
    query_picker(state, cross, chips);
    colour_line(state, T);
    if (!cross)
        sinks_and_ablation_line(state);
    if (view != HeadsView::AllLayers) // the overview shows no H
        entropy_line(T, !cross && state.heads_panel.hide_first_key);
    if (view == HeadsView::AllLayers)
        heads_view::draw_overview(state);
    else
        draw_map_grid(state, cross);
}

} // namespace attnlab
