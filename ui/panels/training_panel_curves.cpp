// The Training panel's curves: loss, accuracy and head scores, painted from the shared plot description
// (picture/curve_plot.h) that the PNG export paints too, with the legend of runs and the timeline's cursor.
#include "ui/model/training/training_curves.h"
#include "ui/panels/training_panel_views.h"
#include "ui/picture/curve_plot.h"
#include "ui/picture/heatmap_math.h"
#include "ui/picture/presenter_layout.h"
#include "ui/shell/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace attnlab
{

namespace
{

// The steepest drop's band over the data (Okabe–Ito orange).
constexpr ImU32 kBandColor = IM_COL32(230, 159, 0, 50);
constexpr ImU32 kBandColorLight = IM_COL32(230, 159, 0, 105);

// The loss plot's title line with its key (loss_plot_key, which the exported pictures draw too): "loss (log
// scale):", then a swatch in each loss's colour before
// its name ("training", "held-out"), so the line says which colour is which; with a steepest drop, a patch of
// the band's colour before "steepest drop" (the band's name, kept off the data); in presenter mode, where no
// legend of runs is drawn, each earlier run's line before what sets it apart and its final accuracy
// ("earlier: 1 layer, accuracy 33 %"). Where the whole key is wider than the plot the scale is said shorter
// ("loss (log):"), and entries that still do not fit go on further lines, never broken inside. Returns the
// height it took beyond one line.
float draw_loss_title(const AppState& state, const TrainingCurves& c, float width)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float fs = ImGui::GetFontSize();
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float swatch_w = fs * 0.9f;
    using Mark = LossKeyEntry::Mark;
    // In presenter mode no legend of runs is drawn: the key names the earlier runs.
    std::vector<LossKeyEntry> key = loss_plot_key(c, state.training.view, state.presenter);
    const Color32 bg = plot_background();
    const char* prefix = "loss (log scale):";
    std::vector<float> parts;
    const auto measure = [&]
    {
        parts = {ImGui::CalcTextSize(prefix).x};
        for (const LossKeyEntry& k : key)
            parts.push_back(swatch_w + fs * 0.25f + ImGui::CalcTextSize(k.text.c_str()).x);
        return flow_parts(parts, spacing, width);
    };
    if (measure().back() > 0)
        prefix = "loss (log):";
    if (measure().back() > 1) // over two lines: the earlier runs without their accuracy
        for (LossKeyEntry& k : key)
            if (k.mark == Mark::line && k.text.find(", accuracy ") != std::string::npos)
                k.text.erase(k.text.find(", accuracy "));
    const std::vector<int> line = measure();
    const float y0 = ImGui::GetCursorPosY();
    ImGui::TextUnformatted(prefix);
    for (std::size_t i = 0; i < key.size(); ++i)
    {
        if (line[i + 1] == line[i])
            ImGui::SameLine();
        const LossKeyEntry& k = key[i];
        const ImVec2 p = ImGui::GetCursorScreenPos();
        if (k.mark == Mark::bar)
            dl->AddRectFilled(ImVec2(p.x, p.y + fs * 0.4f), ImVec2(p.x + swatch_w, p.y + fs * 0.7f), k.color);
        else if (k.mark == Mark::band)
            dl->AddRectFilled(ImVec2(p.x + swatch_w * 0.3f, p.y + fs * 0.1f),
                              ImVec2(p.x + swatch_w * 0.7f, p.y + fs), kBandKeyColor);
        else
            dl->AddLine(ImVec2(p.x, p.y + fs * 0.55f), ImVec2(p.x + swatch_w, p.y + fs * 0.55f),
                        curve_color_on(k.color, bg), std::max(1.5f, fs / 10.0f));
        ImGui::Dummy(ImVec2(swatch_w, fs));
        ImGui::SameLine(0.0f, fs * 0.25f);
        if (k.mark == Mark::band)
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(band_label_color_on(bg)));
        ImGui::TextUnformatted(k.text.c_str());
        if (k.mark == Mark::band)
            ImGui::PopStyleColor();
    }
    return std::max(0.0f, ImGui::GetCursorPosY() - y0 - ImGui::GetTextLineHeightWithSpacing());
}

// A plot's title in the room left on its line: whole when it fits, else without its parenthesis ("head
// scores: induction" for "head scores: induction (prefix matching)"), else cut with "…"; shortened, the
// whole title is its tooltip.
void draw_plot_title(const std::string& title)
{
    const float room = ImGui::GetContentRegionAvail().x;
    const auto fits = [&](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x <= room; };
    std::string shown = title;
    if (const std::size_t open = title.rfind(" (");
        !fits(shown) && open != std::string::npos && title.back() == ')')
        shown = title.substr(0, open);
    if (!fits(shown))
    {
        int lo = 1, hi = utf8_length(shown); // a cut to lo characters is shown even if it does not fit
        while (hi - lo > 1)
        {
            const int mid = (lo + hi) / 2;
            if (fits(truncate_utf8(shown, mid)))
                lo = mid;
            else
                hi = mid;
        }
        shown = truncate_utf8(shown, lo); // ends in "…"
    }
    ImGui::TextUnformatted(shown.c_str());
    if (shown != title)
        item_tooltip(title.c_str());
}

} // namespace

Color32 plot_background()
{
    ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    bg.w = 1.0f;
    return ImGui::ColorConvertFloat4ToU32(bg);
}

TrainingCurves shown_training_curves(const TrainingPanelState& ts, int cursor, bool whole_run)
{
    const bool pinned =
        !ts.lesson_key.empty() && ts.lesson_queue.empty() && ts.lesson_step_at >= 0 && cursor >= 0;
    return training_curves(ts.view, ts.edit.steps, ts.score_kind, ts.fit_curves && !whole_run,
                           pinned ? cursor : -1);
}

int draw_curve_plot(const AppState& state, const CurvePlot& plot, const TrainingCurves& c, int cursor,
                    ImVec2 size)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float fs = ImGui::GetFontSize();
    const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Border);
    if (&plot == &c.loss)
        size.y = std::max(fs * 2.5f, size.y - draw_loss_title(state, c, size.x)); // a longer key: lower axes
    else
        draw_plot_title(plot.title);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float axis_w = fs * 3.9f; // "5.7e-05" and "100.0 %" fit
    const ImVec2 a(p.x + axis_w, p.y + fs * 0.3f);
    const ImVec2 b(p.x + size.x - fs * 0.5f, p.y + size.y - fs * 1.4f);
    ImGui::InvisibleButton(plot.title.c_str(), size);
    const bool hovered = ImGui::IsItemHovered() && !state.mouse_ignored;
    const bool clicked = ImGui::IsItemClicked();

    CurvePlotStyle style;
    style.tick_gap = fs * 1.1f;
    // Round steps under the axis, as far apart as the widest one's text and a little more.
    style.x_tick_gap = ImGui::CalcTextSize(std::to_string(c.x_max).c_str()).x + fs * 1.5f;
    const CurvePlotPicture pic = layout_curve_plot(plot, c, PlotRect{a.x, a.y, b.x, b.y}, cursor, style);

    dl->AddRect(a, b, grid);
    for (const PlotTick& t : pic.y_ticks)
    {
        const ImVec2 sz = ImGui::CalcTextSize(t.text.c_str());
        dl->AddText(ImVec2(a.x - sz.x - fs * 0.25f, t.y - sz.y * 0.5f), faint, t.text.c_str());
        dl->AddLine(ImVec2(a.x, t.y), ImVec2(b.x, t.y), (grid & 0x00FFFFFFu) | 0x50000000u);
    }
    // The step axis: its ends and the round steps between that clear them and each other, with a tick each.
    for (const PlotXTick& t : pic.x_ticks)
        if (t.step > pic.x_min && t.step < pic.x_max)
            dl->AddLine(ImVec2(t.x, b.y), ImVec2(t.x, b.y + fs * 0.2f), grid);
    const auto text_w = [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; };
    for (const PlotXLabel& l : x_axis_labels(pic, text_w, fs * 0.6f))
        dl->AddText(ImVec2(l.x, b.y + fs * 0.1f), faint, l.text.c_str());

    dl->PushClipRect(a, b, true);
    const Color32 bg = plot_background();
    // The band stays fainter than the data, but the dark theme's 50/255 all but vanished on white.
    const bool light = chip_text_color(bg | 0xFF000000u) == pack_rgba(0, 0, 0);
    if (pic.has_band)
        dl->AddRectFilled(ImVec2(pic.band_x0, a.y), ImVec2(std::max(pic.band_x1, pic.band_x0 + 2.0f), b.y),
                          light ? kBandColorLight : kBandColor);
    // The series' widths are at the normal font size: larger text (presenter mode, a projector) gets wider
    // lines; the training loss less (by the square root), so it stays thin over the held-out line.
    const float widen = std::max(1.0f, fs / kDefaultFontSize);
    for (const PlotLine& line : pic.lines)
    {
        const ImU32 color = curve_color_on(line.color, bg);
        const float width = line.width * (line.thin ? std::sqrt(widen) : widen);
        std::vector<ImVec2> screen;
        screen.reserve(line.points.size());
        for (const PlotPoint& q : line.points)
            screen.emplace_back(q.x, q.y);
        if (screen.size() == 1)
            dl->AddCircleFilled(screen[0], width * 1.5f, color);
        else if (screen.size() > 1)
            dl->AddPolyline(screen.data(), static_cast<int>(screen.size()), color, 0, width);
    }
    if (pic.has_cursor)
        dl->AddLine(ImVec2(pic.cursor_x, a.y), ImVec2(pic.cursor_x, b.y), ink, 1.0f);
    // No curve to draw (a lesson's step at step 0, before the first evaluation): say so, never bare axes.
    if (std::all_of(pic.lines.begin(), pic.lines.end(), [](const PlotLine& l) { return l.points.empty(); }))
    {
        const std::string note =
            cursor >= 0 ? "no values up to step " + std::to_string(cursor) : "no values yet";
        const ImVec2 sz = ImGui::CalcTextSize(note.c_str());
        if (sz.x <= b.x - a.x - fs * 0.5f)
            dl->AddText(ImVec2((a.x + b.x - sz.x) * 0.5f, (a.y + b.y - sz.y) * 0.5f), faint, note.c_str());
    }
    dl->PopClipRect();

    if (!hovered)
        return -1;
    const float mx = ImGui::GetIO().MousePos.x;
    const int step = curve_step_at(pic, mx);
    dl->AddLine(ImVec2(mx, a.y), ImVec2(mx, b.y), faint);
    ImGui::SetTooltip("%s", curve_hover_text(plot, step, style.percent_decimals).c_str());
    return clicked ? step : -1;
}

namespace
{

// Below this window height (in font sizes) the plots are lower.
constexpr float kShortWindowEm = 50.0f;

// The legend of the runs: the current one, then the kept ones.
void draw_legend(const TrainingSnapshot& v)
{
    const float fs = ImGui::GetFontSize();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const auto swatch = [&](ImU32 c)
    {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        dl->AddRectFilled(ImVec2(p.x, p.y + fs * 0.35f), ImVec2(p.x + fs * 1.2f, p.y + fs * 0.65f), c);
        ImGui::Dummy(ImVec2(fs * 1.3f, fs));
        ImGui::SameLine();
    };
    // Wrapped: a run's label is wider than the room beside "fit the axes" at 1280x720.
    swatch(kThisRunColor);
    text_disabled_wrapped("this run: " + v.config.label());
    for (std::size_t i = v.past.size(); i-- > 0;)
    {
        swatch(past_run_color(i));
        const PastRun& r = v.past[i];
        text_disabled_wrapped("earlier: " + r.label + " (" + std::to_string(r.loss.size()) + " steps" +
                              (same_loss_units(r.config, v.config)
                                   ? std::string(")")
                                   : "; not drawn: " + not_drawn_reason(r.config, v.config) + ")"));
    }
}

} // namespace

void draw_training_curves(AppState& state, int cursor, bool compact)
{
    TrainingPanelState& ts = state.training;
    const TrainingSnapshot& v = ts.view;
    const float fs = ImGui::GetFontSize();
    const TrainingCurves c = shown_training_curves(ts, cursor);
    const float w = ImGui::GetContentRegionAvail().x;
    const float plot_w = (w - fs) / 3.0f;
    // A short window (720 lines at the default size) gets lower plots, so that both layers of maps stay above
    // the fold.
    const bool short_window = ImGui::GetIO().DisplaySize.y < fs * kShortWindowEm;
    const float plot_h = fs * (compact ? 4.5f : short_window ? 6.0f : 8.0f);

    ImGui::BeginGroup();
    int clicked = draw_curve_plot(state, c.loss, c, cursor, ImVec2(plot_w, plot_h));
    ImGui::EndGroup();
    if (c.has_drop)
        item_tooltip("The shaded band is where the training loss falls fastest: the phase change.");

    ImGui::SameLine();
    ImGui::BeginGroup();
    if (const int k = draw_curve_plot(state, c.accuracy, c, cursor, ImVec2(plot_w, plot_h)); k >= 0)
        clicked = k;
    ImGui::EndGroup();

    ImGui::SameLine();
    ImGui::BeginGroup();
    if (const int k = draw_curve_plot(state, c.heads, c, cursor, ImVec2(plot_w, plot_h - fs * 1.6f)); k >= 0)
        clicked = k;
    // As wide as its longest score's name and its arrow ("previous-token" was cut to "previous-tok"), at
    // most the plot's width.
    float widest = 0.0f;
    for (int i = 0; i < train::kHeadScoreCount; ++i)
        widest =
            std::max(widest, ImGui::CalcTextSize(train::head_score_info(train::head_score_kind(i)).key).x);
    ImGui::SetNextItemWidth(std::min(plot_w, widest + ImGui::GetStyle().FramePadding.x * 2.0f +
                                                 ImGui::GetFrameHeight() + fs * 0.2f));
    const auto score_key = [](void*, int i, const char** out)
    {
        *out = train::head_score_info(train::head_score_kind(i)).key;
        return true;
    };
    ImGui::Combo("##score", &ts.score_kind, score_key, nullptr, train::kHeadScoreCount);
    item_tooltip(
        "Per head, on the held-out set: previous-token = mean weight on key i − 1; induction = weight "
        "on keys whose previous token equals the query's token (Olsson et al.); diagonal = on key i; "
        "anti-diagonal = on the mirrored key T − 1 − i. Thin lines: layer 1; thick: later layers.");
    ImGui::EndGroup();
    // The switch first, the legend after it on the same line: a line less above the maps.
    if (!compact)
    {
        ImGui::Checkbox("fit the axes", &ts.fit_curves);
        item_tooltip(
            "The axes fit the current run's steps so far and its loss; earlier runs (dimmed) are cut "
            "at its right edge. Off: every run in full, up to the target.");
        ImGui::SameLine(0.0f, fs);
    }
    draw_legend(v);

    if (clicked >= 0 && !v.timeline.empty())
    {
        ts.follow_latest = false;
        ts.shown_step = clicked;
    }
}

} // namespace attnlab
