// The status bar: "computing…" while a run is pending, the trace's shape and timings, and one line of
// message (cut to fit, whole in a tooltip).
#include "ui/shell/status_bar.h"

#include "ui/model/lesson_export.h"
#include "ui/model/lesson_export_worker.h"
#include "ui/picture/heatmap_math.h"
#include "ui/shell/widgets.h"

#include <imgui.h>

#include <string>

namespace attnlab
{

namespace
{

// While the session's run is on the worker the panels keep the last picture: the status bar says so first,
// in the warning colour (not while the main panels show the trained model, which is not being recomputed).
bool computing_mark(const AppState& state)
{
    if (!state.recompute_pending() || state.showing_trained())
        return false;
    ImGui::PushStyleColor(ImGuiCol_Text, state.prefs.dark_theme ? ImVec4(1.0f, 0.78f, 0.25f, 1.0f)
                                                                : ImVec4(0.62f, 0.36f, 0.0f, 1.0f));
    ImGui::TextUnformatted("computing…");
    ImGui::PopStyleColor();
    item_tooltip("The session changed: the engine is computing its new trace on a worker thread. The panels "
                 "show the last result until it is in.");
    ImGui::SameLine();
    return true;
}

void trace_summary(const AppState& state, bool computing)
{
    const Trace& t = state.trace();
    if (state.showing_opened())
    {
        // Which model the numbers come from, first: the panels' shapes are its own.
        ImGui::TextUnformatted(shown_model_label(state).c_str());
        ImGui::SameLine();
    }
    ImGui::TextDisabled("B = %d  T = %d  d_model = %d  h = %d  d_k = %d  d_v = %d  layers = %d   |   "
                        "%s %.1f ms",
                        t.batch_size(), t.T(), t.config.d_model, state.heads(), t.d_k, t.d_v,
                        static_cast<int>(t.layers.size()), computing ? "last recompute" : "recompute",
                        state.recompute_ms);
    if (state.frame_ms > 0.0f)
    {
        ImGui::SameLine();
        ImGui::TextDisabled("  frame %.1f ms", state.frame_ms);
    }
}

// An invalid session keeps the last good picture on screen: say so wherever the user is looking. The message
// itself is in the panel it is about; only when that panel is closed is it written here. "" : the session is
// fine (or nothing is shown yet).
std::string stale_result_text(const AppState& state)
{
    // While the trained model shows, the picture is its own, not the session's last valid one: the session's
    // error waits until the session shows again.
    if (state.status.is_ok() || !state.has_trace() || state.showing_trained())
        return std::string();
    const PanelId home = status_error_panel(state);
    return state.prefs.open[static_cast<std::size_t>(home)]
               ? std::string("showing the last valid result: the ") + panel_facts(home).title +
                     " panel says why"
               : "showing the last valid result: " + state.status.message();
}

// One line: a long message is cut with "…" and shown whole in a tooltip. The longest cut that fits is found
// by halving, so a long message costs a few measurements a frame.
void one_line(const std::string& text, bool error)
{
    const float room = ImGui::GetContentRegionAvail().x;
    std::string shown = text;
    if (ImGui::CalcTextSize(text.c_str()).x > room)
    {
        int lo = 8, hi = utf8_length(text); // a cut to lo characters is shown even if it does not fit
        while (hi - lo > 1)
        {
            const int mid = (lo + hi) / 2;
            if (ImGui::CalcTextSize(truncate_utf8(text, mid).c_str()).x <= room)
                lo = mid;
            else
                hi = mid;
        }
        shown = truncate_utf8(text, lo); // ends in "…"
    }
    if (error)
        ImGui::PushStyleColor(ImGuiCol_Text, error_color());
    ImGui::TextUnformatted(shown.c_str());
    if (error)
        ImGui::PopStyleColor();
    if (shown != text)
        item_tooltip(text.c_str());
}

// A lesson's slides being exported on their worker: the progress first, with a button that stops it.
void export_progress(AppState& state)
{
    const std::string text = lesson_export_progress_text(state);
    if (text.empty())
        return;
    ImGui::PushStyleColor(ImGuiCol_Text, state.prefs.dark_theme ? ImVec4(0.45f, 0.78f, 1.0f, 1.0f)
                                                                : ImVec4(0.0f, 0.33f, 0.63f, 1.0f));
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopStyleColor();
    const std::string tip =
        "The lesson's slides are drawn and written to " + state.lesson_export.job->spec().dir +
        " on a worker thread: keep working, your edits do not change them. They appear in "
        "the folder when all are written.";
    item_tooltip(tip.c_str());
    ImGui::SameLine();
    if (!state.lesson_export.job->cancel_requested())
    {
        if (ImGui::SmallButton("Cancel##lesson_export"))
            cancel_lesson_export(state);
        item_tooltip("Stops the export: no slide of it is left in the folder.");
        ImGui::SameLine();
    }
    ImGui::TextUnformatted("  ");
    ImGui::SameLine();
}

} // namespace

void draw_status_bar(AppState& state, float y, float height)
{
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(0.0f, y));
    ImGui::SetNextWindowSize(ImVec2(io.DisplaySize.x, height));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                   ImGuiWindowFlags_NoBringToFrontOnFocus;
    if (ImGui::Begin("##status", nullptr, flags))
    {
        export_progress(state);
        const bool computing = computing_mark(state);
        if (state.has_trace())
        {
            trace_summary(state, computing);
            ImGui::SameLine();
        }
        const std::string stale = stale_result_text(state);
        const std::string& text = !stale.empty()           ? stale
                                  : !state.message.empty() ? state.message
                                                           : state.font_message;
        if (!text.empty())
        {
            ImGui::TextUnformatted("   ");
            ImGui::SameLine();
            one_line(text, !stale.empty() || state.message_is_error || state.message.empty());
        }
    }
    ImGui::End();
}

} // namespace attnlab
