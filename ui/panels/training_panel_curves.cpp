// The Training panel's curves: loss, accuracy and head scores, painted from the shared plot description
// (picture/curve_plot.h) that the PNG export paints too, with the legend of runs and the timeline's cursor.
#include "ui/model/training/training_curves.h"
#include "ui/panels/training_panel_views.h"
#include "ui/picture/curve_plot.h"
#include "ui/picture/heatmap_math.h"
#include "ui/shell/widgets.h"

#include <algorithm>
#include <utility>

namespace attnlab
{

namespace
{

// The loss plot's title line with its key: "loss (log scale):", then a swatch in each loss's colour before
// its name ("training", "held-out"), so the line says which colour is which. Where that is wider than the
// plot, the scale is said shorter ("loss (log):").
void draw_loss_title(float width)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float fs = ImGui::GetFontSize();
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const std::pair<Color32, const char*> key[] = {{kTrainingLossColor, "training"},
                                                   {kThisRunColor, "held-out"}};
    const float swatch_w = fs * 0.9f;
    float key_w = 0.0f;
    for (const auto& k : key)
        key_w += spacing + swatch_w + fs * 0.25f + ImGui::CalcTextSize(k.second).x;
    const char* prefix = "loss (log scale):";
    if (ImGui::CalcTextSize(prefix).x + key_w > width)
        prefix = "loss (log):";
    ImGui::TextUnformatted(prefix);
    for (const auto& k : key)
    {
        ImGui::SameLine();
        const ImVec2 p = ImGui::GetCursorScreenPos();
        dl->AddRectFilled(ImVec2(p.x, p.y + fs * 0.4f), ImVec2(p.x + swatch_w, p.y + fs * 0.7f), k.first);
        ImGui::Dummy(ImVec2(swatch_w, fs));
        ImGui::SameLine(0.0f, fs * 0.25f);
        ImGui::TextUnformatted(k.second);
    }
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

TrainingCurves shown_training_curves(const TrainingPanelState& ts, int cursor, bool whole_run)
{
    const bool pinned = !ts.lesson_key.empty() && ts.lesson_step_at >= 0 && cursor >= 0;
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
        draw_loss_title(size.x);
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
    const CurvePlotPicture pic = layout_curve_plot(plot, c, PlotRect{a.x, a.y, b.x, b.y}, cursor, style);

    dl->AddRect(a, b, grid);
    for (const PlotTick& t : pic.y_ticks)
    {
        const ImVec2 sz = ImGui::CalcTextSize(t.text.c_str());
        dl->AddText(ImVec2(a.x - sz.x - fs * 0.25f, t.y - sz.y * 0.5f), faint, t.text.c_str());
        dl->AddLine(ImVec2(a.x, t.y), ImVec2(b.x, t.y), (grid & 0x00FFFFFFu) | 0x50000000u);
    }
    // The step axis's ends; in a plot too narrow for both, the right one without its "step " and then alone.
    std::string x_last = pic.x_last;
    const float first_w = ImGui::CalcTextSize(pic.x_first.c_str()).x + fs * 0.5f;
    if (first_w + ImGui::CalcTextSize(x_last.c_str()).x > b.x - a.x && x_last.rfind("step ", 0) == 0)
        x_last.erase(0, 5);
    if (first_w + ImGui::CalcTextSize(x_last.c_str()).x <= b.x - a.x)
        dl->AddText(ImVec2(a.x, b.y + fs * 0.1f), faint, pic.x_first.c_str());
    dl->AddText(ImVec2(b.x - ImGui::CalcTextSize(x_last.c_str()).x, b.y + fs * 0.1f), faint, x_last.c_str());

    dl->PushClipRect(a, b, true);
    if (pic.has_band)
    {
        dl->AddRectFilled(ImVec2(pic.band_x0, a.y), ImVec2(std::max(pic.band_x1, pic.band_x0 + 2.0f), b.y),
                          IM_COL32(230, 159, 0, 50));
    }
    for (const PlotLine& line : pic.lines)
    {
        std::vector<ImVec2> screen;
        screen.reserve(line.points.size());
        for (const PlotPoint& q : line.points)
            screen.emplace_back(q.x, q.y);
        if (screen.size() == 1)
            dl->AddCircleFilled(screen[0], line.width * 1.5f, line.color);
        else if (screen.size() > 1)
            dl->AddPolyline(screen.data(), static_cast<int>(screen.size()), line.color, 0, line.width);
    }
    if (pic.has_cursor)
        dl->AddLine(ImVec2(pic.cursor_x, a.y), ImVec2(pic.cursor_x, b.y), ink, 1.0f);
    // The band's name where no curve crosses it (left out when there is no such place: the band's tooltip
    // names it).
    const char* band = "steepest drop";
    const ImVec2 band_size = ImGui::CalcTextSize(band);
    PlotRect where;
    if (pic.has_band && place_band_label(pic, band_size.x, band_size.y, &where))
        dl->AddText(ImVec2(where.x0, where.y0), IM_COL32(230, 159, 0, 255), band);
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
    swatch(kThisRunColor);
    ImGui::TextDisabled("this run: %s", v.config.label().c_str());
    for (std::size_t i = v.past.size(); i-- > 0;)
    {
        swatch(past_run_color(i));
        ImGui::TextDisabled("earlier: %s (%d steps)", v.past[i].label.c_str(),
                            static_cast<int>(v.past[i].loss.size()));
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
    const float plot_h = fs * (compact || short_window ? 4.5f : 8.0f);

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
    ImGui::SetNextItemWidth(plot_w * 0.6f);
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
