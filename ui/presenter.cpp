// Presenter mode: for a lecture, one large view (the step's highlighted stages, or its view) and the step's
// text as a caption, without the editing chrome.
#include "ui/presenter.h"

#include "ui/heatmap.h"
#include "ui/lessons.h"
#include "ui/panels/panels.h"
#include "ui/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

namespace attnlab
{

namespace
{

constexpr ImGuiWindowFlags kFixed = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;

ImVec4 accent()
{
    return ImGui::GetStyle().Colors[ImGuiCol_PlotHistogram];
}

// Space a heatmap needs besides its cells: row labels and colour bar across, column labels and the colour
// bar's bottom label down (an estimate of what draw_heatmap lays out).
struct HeatmapExtra
{
    float w = 0.0f, h = 0.0f;
};

HeatmapExtra heatmap_extra(const MatrixView& view, bool labels)
{
    const float fs = ImGui::GetFontSize();
    HeatmapExtra e;
    float row_w = 0.0f, col_h = labels ? fs + 4.0f : 0.0f;
    for (int r = 0; labels && r < static_cast<int>(view.m->rows()); ++r)
        row_w = std::max(row_w, ImGui::CalcTextSize(row_label(view, r).substr(0, 10).c_str()).x);
    if (labels && view.col_tokens != nullptr)
    {
        col_h = 0.0f;
        for (int c = 0; c < static_cast<int>(view.m->cols()); ++c)
            col_h = std::max(col_h, ImGui::CalcTextSize(col_label(view, c).substr(0, 10).c_str()).x);
        col_h += 6.0f;
    }
    const float bar =
        fs * 0.6f + std::max(10.0f, fs * 0.8f) + ImGui::CalcTextSize("-0.00e+00").x * 0.75f + 8.0f;
    e.w = row_w + 6.0f + bar + 8.0f;
    e.h = col_h + fs;
    return e;
}

// The step's stages, as large as the area allows: side by side with square cells when they are about square
// or tall (Q, K, V; scores), one above the other and as wide as the window when they are wide (X, concat,
// residual: T×d_model). Side by side, maps with the first one's rows and numbered columns leave out their
// labels, which would only repeat.
void highlighted_stages(AppState& state, const LessonStep& step)
{
    if (!state.status.is_ok())
        error_text(state.status.message());
    std::vector<MatrixRef> refs;
    std::vector<MatrixView> views;
    bool wide = false;
    for (Stage stage : step.stages)
    {
        MatrixRef ref;
        ref.source = step.cross ? MatrixSource::Cross : MatrixSource::Layer;
        ref.stage = stage;
        ref.layer = state.sel.layer;
        ref.b = state.sel.b;
        ref.head = state.sel.head;
        MatrixView view = resolve_matrix(state, ref);
        if (view.m == nullptr)
            continue;
        if (view.m->cols() > view.m->rows() * 3 / 2)
            wide = true;
        refs.push_back(ref);
        views.push_back(std::move(view));
    }
    const int n = static_cast<int>(refs.size());
    if (n == 0)
        return;
    std::vector<bool> labels(static_cast<std::size_t>(n), true);
    for (std::size_t i = 1; !wide && i < views.size(); ++i)
        labels[i] = !(views[i].row_tokens == views[0].row_tokens && views[i].col_tokens == nullptr);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const ImGuiStyle& style = ImGui::GetStyle();
    const float fs = ImGui::GetFontSize();
    const float gap = fs * 1.5f;
    const float max_cell = fs * 6.0f;

    // Each map's cell width and height.
    std::vector<float> cell_w(static_cast<std::size_t>(n)), cell_h(static_cast<std::size_t>(n));
    std::vector<HeatmapExtra> extra(static_cast<std::size_t>(n));
    int per_row = n; // side by side: maps in a row
    for (int i = 0; i < n; ++i)
        extra[static_cast<std::size_t>(i)] =
            heatmap_extra(views[static_cast<std::size_t>(i)], labels[static_cast<std::size_t>(i)]);
    if (wide)
    {
        // Stacked, each as wide as the window. Wide maps (X, Q with a large d_k) take the height their
        // square-ish cells need, up to 35% of the view together (flatter cells beyond); the other maps share
        // what is left and keep square cells, each as large as its own share allows.
        // Per map: its header line and the spacing ImGui puts after the line and after the group.
        const float header_h = ImGui::GetTextLineHeightWithSpacing() + style.ItemSpacing.y * 2.0f;
        auto is_wide = [&](int i)
        {
            const Mat& m = *views[static_cast<std::size_t>(i)].m;
            return m.cols() > m.rows() * 3 / 2;
        };
        float wide_cells_h = 0.0f, wide_fixed_h = 0.0f; // the cells' height, and headers and labels
        int n_square = 0;
        for (int i = 0; i < n; ++i)
        {
            const auto k = static_cast<std::size_t>(i);
            const Mat& m = *views[k].m;
            cell_w[k] = std::min(max_cell, (avail.x - extra[k].w) / static_cast<float>(m.cols()));
            if (is_wide(i))
            {
                cell_h[k] = cell_w[k];
                wide_fixed_h += header_h + extra[k].h;
                wide_cells_h += cell_h[k] * static_cast<float>(m.rows());
            }
            else
                ++n_square;
        }
        const float wide_budget = n_square > 0 ? avail.y * 0.35f : avail.y;
        // Only the cells shrink: the headers and labels keep their size.
        const float room = std::max(wide_budget - wide_fixed_h, wide_cells_h * 0.1f);
        const float shrink = wide_cells_h > room ? room / wide_cells_h : 1.0f;
        float used = 0.0f;
        for (int i = 0; i < n; ++i)
            if (is_wide(i))
            {
                const auto k = static_cast<std::size_t>(i);
                cell_h[k] = std::max(2.0f, cell_h[k] * shrink);
                used += header_h + extra[k].h + cell_h[k] * static_cast<float>(views[k].m->rows());
            }
        const float share = n_square > 0 ? (avail.y - used) / static_cast<float>(n_square) : 0.0f;
        for (int i = 0; i < n; ++i)
            if (!is_wide(i))
            {
                const auto k = static_cast<std::size_t>(i);
                const float by_height = (share - header_h - extra[k].h - style.ItemSpacing.y) /
                                        static_cast<float>(views[k].m->rows());
                cell_w[k] = std::max(4.0f, std::min(cell_w[k], by_height));
                cell_h[k] = cell_w[k];
            }
    }
    else
    {
        // Side by side with one square cell size for all, so the maps compare at a glance: in one row, or in
        // two when that makes the cells larger (four small maps on a wide screen).
        const float header_h = ImGui::GetTextLineHeightWithSpacing() * 2.5f + style.ItemSpacing.y;
        auto cell_for = [&](int n_rows)
        {
            const int per_row = (n + n_rows - 1) / n_rows;
            float cell = max_cell;
            for (int first = 0; first < n; first += per_row)
            {
                float labels_w = 0.0f;
                int cols = 0;
                const int last = std::min(n, first + per_row);
                for (int i = first; i < last; ++i)
                {
                    labels_w += extra[static_cast<std::size_t>(i)].w;
                    cols += static_cast<int>(views[static_cast<std::size_t>(i)].m->cols());
                }
                cell = std::min(cell, (avail.x - gap * static_cast<float>(last - first - 1) - labels_w) /
                                          static_cast<float>(cols));
                for (int i = first; i < last; ++i)
                {
                    const auto k = static_cast<std::size_t>(i);
                    cell = std::min(cell, (avail.y / static_cast<float>(n_rows) - header_h - extra[k].h -
                                           style.ItemSpacing.y) /
                                              static_cast<float>(views[k].m->rows()));
                }
            }
            return cell;
        };
        const float one_row = cell_for(1);
        const float two_row = n >= 3 ? cell_for(2) : 0.0f;
        const bool two_rows = two_row > one_row * 1.15f;
        per_row = two_rows ? (n + 1) / 2 : n;
        const float cell = std::max(two_rows ? two_row : one_row, 4.0f);
        std::fill(cell_w.begin(), cell_w.end(), cell);
        std::fill(cell_h.begin(), cell_h.end(), cell);
    }
    // Centres the row of side-by-side maps starting at map `first`.
    auto centre_row = [&](int first)
    {
        const int last = std::min(n, first + per_row);
        float total = gap * static_cast<float>(last - first - 1);
        for (int i = first; i < last; ++i)
            total += cell_w[static_cast<std::size_t>(i)] *
                         static_cast<float>(views[static_cast<std::size_t>(i)].m->cols()) +
                     extra[static_cast<std::size_t>(i)].w;
        ImGui::SetCursorPosX(ImGui::GetCursorPosX() + std::max(0.0f, (avail.x - total) * 0.5f));
    };

    for (int i = 0; i < n; ++i)
    {
        const auto k = static_cast<std::size_t>(i);
        const MatrixView& view = views[k];
        const float used_w = cell_w[k] * static_cast<float>(view.m->cols()) + extra[k].w;
        if (!wide && i % per_row == 0)
            centre_row(i);
        else if (!wide)
            ImGui::SameLine(0.0f, gap);
        else
            ImGui::SetCursorPosX(ImGui::GetCursorPosX() + std::max(0.0f, (avail.x - used_w) * 0.5f));
        ImGui::PushID(i);
        ImGui::BeginGroup();
        // Stacked maps have the window's width for their header; side by side, a map's own width. The title
        // is one line; the shape and the equation follow, wrapped.
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + (wide ? avail.x : std::max(used_w, fs * 10.0f)));
        ImGui::PushStyleColor(ImGuiCol_Text, accent());
        ImGui::TextUnformatted(view.title.c_str());
        ImGui::PopStyleColor();
        const MatrixRef& ref = refs[k];
        std::string line = view.shape + "    " + view.equation;
        if (const float H = ref.stage == Stage::weights ? state.mean_entropy(ref) : -1.0f; H >= 0.0f)
        {
            char entropy[48];
            std::snprintf(entropy, sizeof entropy, "    H = %.2f nats", static_cast<double>(H));
            line += entropy;
        }
        if (wide)
            ImGui::SameLine(0.0f, fs);
        ImGui::TextDisabled("%s", line.c_str());
        ImGui::PopTextWrapPos();
        HeatmapOptions options;
        options.width = used_w;
        options.max_cell_px = cell_w[k];
        options.max_height = cell_h[k] * static_cast<float>(view.m->rows());
        options.labels = labels[k];
        options.frame_color = lesson_highlight_color();
        options.frame_thickness = 3.0f;
        draw_heatmap(state, ref, options);
        ImGui::EndGroup();
        ImGui::PopID();
    }
}

std::string session_caption(const AppState& state)
{
    std::string text = state.session.text;
    std::replace(text.begin(), text.end(), '\n', ' ');
    const Config& c = state.session.config;
    return "“" + text + "”   d_model = " + std::to_string(c.d_model) + ", h = " + std::to_string(c.n_heads) +
           ", mask: " + to_string(c.mask);
}

} // namespace

void draw_presenter(AppState& state)
{
    const ImGuiIO& io = ImGui::GetIO();
    const ImGuiStyle& style = ImGui::GetStyle();
    const Lesson* lesson = current_lesson(state);
    const LessonStep* step = current_step(state);
    const float W = io.DisplaySize.x;
    const float H = io.DisplaySize.y;
    const float pad = style.WindowPadding.x;

    // [SECTION] Title line: the lesson on the left, the counter and the keys on the right.
    const float title_h = ImGui::GetTextLineHeight() + style.WindowPadding.y * 2.0f;
    ImGui::SetNextWindowPos(ImVec2(0.0f, 0.0f));
    ImGui::SetNextWindowSize(ImVec2(W, title_h));
    if (ImGui::Begin("##presenter_title", nullptr, kFixed))
    {
        const std::string right = lesson != nullptr ? step_counter(state) + "     ← →   F5" : "F5: leave";
        ImGui::PushStyleColor(ImGuiCol_Text, accent());
        ImGui::TextUnformatted(lesson != nullptr ? lesson->title.c_str() : "Attention Lab");
        ImGui::PopStyleColor();
        ImGui::SameLine(W - pad - ImGui::CalcTextSize(right.c_str()).x);
        ImGui::TextUnformatted(right.c_str());
    }
    ImGui::End();

    // [SECTION] Caption: the step's title and text, wrapped to the window's width.
    const std::string heading = step != nullptr ? step->title : std::string("Presenter mode");
    const std::string text = step != nullptr ? step->text : session_caption(state);
    const float wrap_w = W - 2.0f * pad;
    const float text_h = ImGui::CalcTextSize(text.c_str(), nullptr, false, wrap_w).y;
    const float caption_h = std::min(H * 0.45f, ImGui::GetTextLineHeightWithSpacing() + style.ItemSpacing.y +
                                                    text_h + style.WindowPadding.y * 2.0f + 2.0f);
    ImGui::SetNextWindowPos(ImVec2(0.0f, H - caption_h));
    ImGui::SetNextWindowSize(ImVec2(W, caption_h));
    if (ImGui::Begin("##presenter_caption", nullptr, kFixed))
    {
        ImGui::PushStyleColor(ImGuiCol_Text, accent());
        ImGui::TextUnformatted(heading.c_str());
        ImGui::PopStyleColor();
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap_w);
        ImGui::TextUnformatted(text.c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::End();

    // [SECTION] The view: the step's stages, or its panel, or the pipeline.
    ImGui::SetNextWindowPos(ImVec2(0.0f, title_h));
    ImGui::SetNextWindowSize(ImVec2(W, std::max(50.0f, H - title_h - caption_h)));
    ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.04f, 0.04f, 0.05f, 1.0f));
    if (ImGui::Begin("##presenter_view", nullptr, kFixed))
    {
        if (step != nullptr && step->view == LessonView::Training)
            draw_training_panel(state);
        else if (!state.has_trace())
            error_text(state.status.message());
        else if (step != nullptr && step->view == LessonView::Heads)
            draw_heads_panel(state);
        else if (step != nullptr && step->view == LessonView::Comparisons)
            draw_comparisons_panel(state);
        else if (step != nullptr && !step->stages.empty())
            highlighted_stages(state, *step);
        else
            draw_pipeline_panel(state);
    }
    ImGui::End();
    ImGui::PopStyleColor();
}

} // namespace attnlab
