// The Heads panel's geometry and readings: grid and overview sizes, label rules, a row's strongest key.
#include "ui/picture/heads_layout.h"

#include "ui/picture/heatmap_math.h"

#include <algorithm>
#include <cmath>

namespace attnlab
{

namespace
{

// The square cell that fits `columns` columns of the request, with or without each kind of label.
float grid_cell(const HeadsGridRequest& q, int columns, bool row_labels, bool key_labels)
{
    const int grid_rows = (q.heads + columns - 1) / columns;
    const float map_w_max =
        (q.width - (row_labels ? q.row_label_w : 0.0f) - q.gap * static_cast<float>(columns - 1)) /
        static_cast<float>(columns);
    const float map_h_max =
        (q.height - (key_labels ? q.key_label_h : 0.0f) - static_cast<float>(grid_rows) * q.title_h -
         q.gap * static_cast<float>(grid_rows - 1)) /
        static_cast<float>(grid_rows);
    return std::min(map_w_max / static_cast<float>(q.cols), map_h_max / static_cast<float>(q.rows));
}

} // namespace

HeadsGridLayout layout_heads_grid(const HeadsGridRequest& request)
{
    HeadsGridRequest q = request;
    q.heads = std::max(1, q.heads);
    q.rows = std::max(1, q.rows);
    q.cols = std::max(1, q.cols);
    // Most labels first: both axes, keys only, queries only, none.
    const bool kRowLabels[] = {true, false, true, false};
    const bool kKeyLabels[] = {true, true, false, false};
    for (int rank = 0; rank < 4; ++rank)
    {
        const bool labelled = kRowLabels[rank] || kKeyLabels[rank];
        HeadsGridLayout best;
        float best_area = 0.0f;
        for (int columns = 1; columns <= q.heads; ++columns)
        {
            const float cell = grid_cell(q, columns, kRowLabels[rank], kKeyLabels[rank]);
            if (!(cell > 0.0f))
                continue;
            const float map_w = cell * static_cast<float>(q.cols);
            const float map_h = cell * static_cast<float>(q.rows);
            // A label needs its cell at least a line tall (rows) or wide (keys are drawn upwards).
            if (labelled && (cell < q.font_px || std::min(map_w, map_h) < q.min_map_px))
                continue;
            // Fewer columns win a tie (within half a pixel of side), so a grid does not spread for nothing.
            const float area = map_w * map_h;
            if (best_area == 0.0f || std::sqrt(area) > std::sqrt(best_area) + 0.5f)
            {
                best_area = area;
                best.columns = columns;
                best.grid_rows = (q.heads + columns - 1) / columns;
                best.cell_px = cell;
                best.map_w = map_w;
                best.map_h = map_h;
                best.row_labels = kRowLabels[rank];
                best.key_labels = kKeyLabels[rank];
            }
        }
        if (best_area > 0.0f)
            return best;
    }
    // Not even an unlabelled map fits: one row of small maps (the panel scrolls rather than draws nothing).
    HeadsGridLayout tiny;
    tiny.columns = q.heads;
    tiny.grid_rows = 1;
    tiny.cell_px = 8.0f / static_cast<float>(std::max(q.rows, q.cols));
    tiny.map_w = tiny.cell_px * static_cast<float>(q.cols);
    tiny.map_h = tiny.cell_px * static_cast<float>(q.rows);
    return tiny;
}

OverviewLayout layout_overview(const OverviewRequest& request)
{
    const int layers = std::max(1, request.layers);
    const int heads = std::max(1, request.heads);
    const int keys = std::max(1, request.keys);
    OverviewLayout o;
    o.cell_w = std::max(
        16.0f, (request.width - request.layer_label_w - request.gap * static_cast<float>(heads - 1)) /
                   static_cast<float>(heads));
    o.key_px = o.cell_w / static_cast<float>(keys);
    o.key_stride = label_stride(keys, o.key_px, request.font_px);
    // Under the head titles and above the key labels: one row per layer.
    const float per_layer =
        (request.height - request.line_h - request.key_label_h) / static_cast<float>(layers) - request.gap;
    o.strip_h = std::clamp(per_layer - request.line_h, request.font_px, 2.5f * request.line_h);
    o.strip_row_h = o.strip_h + request.line_h + request.gap;
    o.map_h = std::min(o.cell_w, std::max(2.0f * request.font_px, per_layer));
    o.map_row_h = o.map_h + request.gap;
    if (request.whole_maps && o.map_h < o.cell_w)
    {
        // Square maps: the columns narrow to the height each layer has.
        o.cell_w = o.map_h;
        o.key_px = o.cell_w / static_cast<float>(keys);
        o.key_stride = label_stride(keys, o.key_px, request.font_px);
    }
    return o;
}

void keys_of_pixel(int keys, int pixels, int p, int* first, int* last)
{
    const long long k = std::max(1, keys);
    const long long n = std::max(1, pixels);
    const long long a = std::clamp<long long>(p, 0, n - 1) * k / n;
    const long long b = (std::clamp<long long>(p, 0, n - 1) + 1) * k / n;
    *first = static_cast<int>(std::min(a, k - 1));
    *last = static_cast<int>(std::max(a + 1, std::min(b, k)));
}

TopKey top_key(const Mat& weights, int row)
{
    TopKey top;
    if (row < 0 || row >= weights.rows())
        return top;
    for (int c = 0; c < weights.cols(); ++c)
    {
        const float w = weights(row, c);
        if (std::isfinite(w) && (top.col < 0 || w > top.weight))
        {
            top.col = c;
            top.weight = w;
        }
    }
    return top;
}

} // namespace attnlab
