// Presenter mode's pure layout: font sizes, text size steps, the caption's side, square-cell map grids,
// unbreakable text parts.
#include "ui/picture/presenter_layout.h"

#include <algorithm>
#include <cmath>

namespace attnlab
{

// [SECTION] Text size

float presenter_font_size(float window_height, float presenter_scale)
{
    const float scale = std::isfinite(presenter_scale)
                            ? std::clamp(presenter_scale, kMinPresenterScale, kMaxPresenterScale)
                            : 1.0f;
    return std::clamp(window_height / 32.0f * scale, 12.0f, 80.0f);
}

float presenter_caption_font_size(float window_height, float presenter_scale)
{
    const float scale = std::isfinite(presenter_scale)
                            ? std::clamp(presenter_scale, kMinPresenterScale, kMaxPresenterScale)
                            : 1.0f;
    return std::clamp(window_height / 24.0f * scale, 12.0f, 106.0f);
}

float step_presenter_scale(float scale, int step)
{
    if (step == 0 || !std::isfinite(scale))
        return 1.0f;
    // Whole tenths, so ten steps up and ten down come back to the same value.
    const float tenths = std::round(scale * 10.0f) + static_cast<float>(step > 0 ? 1 : -1);
    return std::clamp(tenths / 10.0f, kMinPresenterScale, kMaxPresenterScale);
}

float step_font_size(float size, int step)
{
    if (step == 0)
        return kDefaultFontSize;
    return std::clamp(size + static_cast<float>(step > 0 ? 1 : -1), kMinFontSize, kMaxFontSize);
}

// [SECTION] Maps

float presenter_label_size(float cell, float font_size)
{
    if (!(cell > 0.0f) || !(font_size > 0.0f))
        return font_size;
    return std::clamp(cell * 0.95f, presenter_min_text_px(font_size), font_size);
}

float presenter_min_text_px(float font_size)
{
    return std::min(font_size, std::max(12.0f, 0.6f * font_size));
}

float zoomed_min_cell(float base_cell, float base_number_w, float zoom)
{
    if (!(zoom > 1.0f) || !(base_cell > 0.0f))
        return 0.0f;
    const bool numbers_fitted = base_cell >= base_number_w + 4.0f;
    return std::max(base_cell, numbers_fitted ? base_number_w * zoom + 4.0f : 0.0f);
}

namespace
{

// One candidate grid: the maps' labels after sharing, and the sizes at given cells.
struct Grid
{
    int columns = 1, rows = 1;
    std::vector<float> left, col_labels; // per map, after sharing

    int column_of(std::size_t i) const { return static_cast<int>(i) % columns; }
    int row_of(std::size_t i) const { return static_cast<int>(i) / columns; }

    // A short last row (three maps in two columns) is laid out on its own, centred under the rows above: its
    // maps take no part in the columns' widths (a wide map under a narrow one left an empty band beside it).
    bool in_short_row(std::size_t i, std::size_t n) const
    {
        return n % static_cast<std::size_t>(columns) != 0 && row_of(i) == rows - 1;
    }
    // The short last row's own width with `between` pixels between its maps (0: there is none).
    float short_row_width(const std::vector<MapBox>& maps, const std::vector<float>& cells,
                          float between) const
    {
        if (maps.size() % static_cast<std::size_t>(columns) == 0)
            return 0.0f;
        float w = 0.0f;
        int k = 0;
        for (std::size_t i = static_cast<std::size_t>((rows - 1) * columns); i < maps.size(); ++i, ++k)
            w += left[i] + static_cast<float>(maps[i].cols) * cells[i] + maps[i].right;
        return w + between * static_cast<float>(k - 1);
    }

    // Images of a grid column start at one x and those of a grid row at one y, so a column is as wide as its
    // widest labels plus its widest image and colour bar (a row likewise). cells: each map's cell.
    float column_width(const std::vector<MapBox>& maps, int c, const std::vector<float>& cells) const
    {
        float labels = 0.0f, rest = 0.0f;
        for (std::size_t i = static_cast<std::size_t>(c); i < maps.size();
             i += static_cast<std::size_t>(columns))
        {
            if (in_short_row(i, maps.size()))
                continue;
            labels = std::max(labels, left[i]);
            rest = std::max(rest, static_cast<float>(maps[i].cols) * cells[i] + maps[i].right);
        }
        return labels + rest;
    }
    float row_height(const std::vector<MapBox>& maps, int r, const std::vector<float>& cells) const
    {
        float titles = 0.0f, rest = 0.0f;
        const std::size_t first = static_cast<std::size_t>(r * columns);
        for (std::size_t i = first; i < maps.size() && i < first + static_cast<std::size_t>(columns); ++i)
        {
            titles = std::max(titles, maps[i].top);
            rest =
                std::max(rest, static_cast<float>(maps[i].rows) * cells[i] + col_labels[i] + maps[i].below);
        }
        return titles + rest;
    }
    float width(const std::vector<MapBox>& maps, const std::vector<float>& cells, float gap) const
    {
        float w = gap * static_cast<float>(columns - 1);
        for (int c = 0; c < columns; ++c)
            w += column_width(maps, c, cells);
        return std::max(w, short_row_width(maps, cells, gap));
    }
    float height(const std::vector<MapBox>& maps, const std::vector<float>& cells, float gap) const
    {
        float h = gap * static_cast<float>(rows - 1);
        for (int r = 0; r < rows; ++r)
            h += row_height(maps, r, cells);
        return h;
    }
    float width(const std::vector<MapBox>& maps, float cell, float gap) const
    {
        return width(maps, std::vector<float>(maps.size(), cell), gap);
    }
    float height(const std::vector<MapBox>& maps, float cell, float gap) const
    {
        return height(maps, std::vector<float>(maps.size(), cell), gap);
    }
};

// Whether no other map has map i's shape (maps of one shape keep one cell size, so they compare at a glance).
bool unique_shape(const std::vector<MapBox>& maps, std::size_t i)
{
    for (std::size_t k = 0; k < maps.size(); ++k)
        if (k != i && maps[k].rows == maps[i].rows && maps[k].cols == maps[i].cols)
            return false;
    return true;
}

// own_labels: maps of a shape no other map has show their own labels and let their neighbours show theirs,
// so that they may take larger cells than the rest (grow_unique).
Grid make_grid(const std::vector<MapBox>& maps, int columns, bool own_labels = false)
{
    Grid g;
    const int n = static_cast<int>(maps.size());
    g.columns = columns;
    g.rows = (n + columns - 1) / columns;
    g.left.resize(maps.size());
    g.col_labels.resize(maps.size());
    for (std::size_t i = 0; i < maps.size(); ++i)
    {
        const MapBox& m = maps[i];
        const bool alone = own_labels && unique_shape(maps, i);
        // Row labels repeat those of the map on the left; column labels those of the map below, unless that
        // one is in a short last row, which is centred and so no longer under it.
        const bool same_rows_left = g.column_of(i) > 0 && m.row_axis >= 0 &&
                                    maps[i - 1].row_axis == m.row_axis &&
                                    !(alone || (own_labels && unique_shape(maps, i - 1)));
        const std::size_t below = i + static_cast<std::size_t>(columns);
        const bool below_aligned = n % columns == 0 || g.row_of(below) < g.rows - 1;
        const bool same_cols_below = below < maps.size() && below_aligned && m.col_axis >= 0 &&
                                     maps[below].col_axis == m.col_axis &&
                                     !(alone || (own_labels && unique_shape(maps, below)));
        g.left[i] = same_rows_left ? 0.0f : m.left;
        g.col_labels[i] = same_cols_below ? 0.0f : m.col_labels;
    }
    return g;
}

// The largest cell (at most max_cell) for which the grid fits the area; 0 when even its labels do not fit.
float largest_cell(const Grid& g, const std::vector<MapBox>& maps, float area_w, float area_h, float gap,
                   float max_cell)
{
    auto fits = [&](float cell)
    { return g.width(maps, cell, gap) <= area_w && g.height(maps, cell, gap) <= area_h; };
    if (fits(max_cell))
        return max_cell;
    if (!fits(0.0f))
        return 0.0f;
    float lo = 0.0f, hi = max_cell;
    for (int k = 0; k < 40; ++k)
    {
        const float mid = 0.5f * (lo + hi);
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}

// The height of map i in a one-column grid at its own cell size.
float stacked_height(const std::vector<MapBox>& maps, const Grid& g, std::size_t i, float cell)
{
    return maps[i].top + static_cast<float>(maps[i].rows) * cell + g.col_labels[i] + maps[i].below;
}

// In a one-column grid, gives the height left below to the maps the width lets grow, a share to each by its
// number of rows, until none can. Maps that show or leave out each other's key labels keep one cell size.
void grow_stacked(const std::vector<MapBox>& maps, const Grid& g, float area_w, float area_h, float gap,
                  float max_cell, std::vector<float>& cells)
{
    const std::size_t n = maps.size();
    auto shares_keys = [&](std::size_t i)
    {
        const bool with_below = i + 1 < n && g.col_labels[i] != maps[i].col_labels;
        const bool with_above = i > 0 && g.col_labels[i - 1] != maps[i - 1].col_labels;
        return with_below || with_above;
    };
    auto limit = [&](std::size_t i)
    { return std::min(max_cell, (area_w - g.left[i] - maps[i].right) / static_cast<float>(maps[i].cols)); };
    for (std::size_t round = 0; round < n; ++round)
    {
        float used = gap * static_cast<float>(n - 1);
        for (std::size_t i = 0; i < n; ++i)
            used += stacked_height(maps, g, i, cells[i]);
        float rows = 0.0f;
        for (std::size_t i = 0; i < n; ++i)
            if (!shares_keys(i) && cells[i] < limit(i) - 1e-3f)
                rows += static_cast<float>(maps[i].rows);
        if (area_h - used < 0.5f || rows == 0.0f)
            return;
        const float grow = (area_h - used) / rows;
        for (std::size_t i = 0; i < n; ++i)
            if (!shares_keys(i) && cells[i] < limit(i) - 1e-3f)
                cells[i] = std::min(limit(i), cells[i] + grow);
    }
}

// In a grid of several columns: each map of a shape no other has grows its cells, in order, as far as the
// grid still fits the area (the others keep theirs).
void grow_unique(const std::vector<MapBox>& maps, const Grid& g, float area_w, float area_h, float gap,
                 float max_cell, std::vector<float>& cells)
{
    for (std::size_t i = 0; i < maps.size(); ++i)
    {
        if (!unique_shape(maps, i) || !(cells[i] > 0.0f))
            continue;
        auto fits = [&](float cell)
        {
            std::vector<float> tried = cells;
            tried[i] = cell;
            return g.width(maps, tried, gap) <= area_w && g.height(maps, tried, gap) <= area_h;
        };
        float lo = cells[i], hi = max_cell;
        if (fits(hi))
            lo = hi;
        for (int k = 0; k < 40 && hi - lo > 0.01f; ++k)
        {
            const float mid = 0.5f * (lo + hi);
            (fits(mid) ? lo : hi) = mid;
        }
        cells[i] = lo;
    }
}

// The smallest cell of the maps of a shape no other has (0: none).
float least_unique_cell(const std::vector<MapBox>& maps, const std::vector<float>& cells)
{
    float least = 0.0f;
    for (std::size_t i = 0; i < maps.size(); ++i)
        if (unique_shape(maps, i))
            least = least > 0.0f ? std::min(least, cells[i]) : cells[i];
    return least;
}

// A grid of several columns at one cell (best, best_cell, cells): a map of a shape no other has (a head's 7×2
// output beside the 7×16 concatenation) takes its own labels and grows its cells (grow_unique), the others'
// cells kept as large as they can be while it reaches the most it could at kUniqueKeepShare of theirs.
// Taken when that map gets at least kUniqueGrowGain times the shared cell.
void grow_own_shapes(const std::vector<MapBox>& maps, float area_w, float area_h, float gap, float max_cell,
                     Grid& best, float& best_cell, std::vector<float>& cells)
{
    const Grid own = make_grid(maps, best.columns, true);
    const float own_cell = largest_cell(own, maps, area_w, area_h, gap, max_cell);
    if (!(own_cell > 0.0f) || least_unique_cell(maps, cells) <= 0.0f)
        return;
    // The cells with the other maps at c and the maps of their own shapes grown.
    auto grown = [&](float c)
    {
        std::vector<float> at(maps.size(), c);
        grow_unique(maps, own, area_w, area_h, gap, max_cell, at);
        return at;
    };
    const float wanted = kUniqueGrowGain * best_cell;
    std::vector<float> chosen = grown(own_cell);
    float others = own_cell;
    if (least_unique_cell(maps, chosen) < wanted)
    {
        const float lowest = kUniqueKeepShare * best_cell;
        if (lowest > own_cell)
            return;
        const float reach = least_unique_cell(maps, grown(lowest));
        if (reach < wanted)
            return;
        // The largest cell for the others at which the grown maps still reach that.
        float lo = lowest, hi = own_cell;
        for (int k = 0; k < 30 && hi - lo > 0.01f; ++k)
        {
            const float mid = 0.5f * (lo + hi);
            (least_unique_cell(maps, grown(mid)) >= reach - 0.5f ? lo : hi) = mid;
        }
        others = lo;
        chosen = grown(lo);
    }
    best = own;
    best_cell = others;
    cells = chosen;
}

} // namespace

MapGrid layout_maps(const std::vector<MapBox>& maps, float area_w, float area_h, float gap, float max_cell,
                    int columns_wanted, float min_cell)
{
    MapGrid out;
    const int n = static_cast<int>(maps.size());
    if (n == 0)
        return out;
    // From one row down to one column: a candidate with more rows must give cells a pixel larger to win.
    Grid best;
    float best_cell = -1.0f;
    bool best_fits_across = false;
    for (int columns = n; columns >= 1; --columns)
    {
        if (columns_wanted > 0 && columns != std::min(columns_wanted, n))
            continue;
        const Grid g = make_grid(maps, columns);
        float cell = largest_cell(g, maps, area_w, area_h, gap, max_cell);
        if (min_cell > 0.0f && cell < min_cell)
        {
            // Too small for the floor: the grid outgrows the area; prefer a shape that only scrolls down.
            cell = std::min(min_cell, std::max(max_cell, min_cell));
            const bool fits_across = g.width(maps, cell, gap) <= area_w;
            if (best_cell < 0.0f || (fits_across && !best_fits_across) ||
                (fits_across == best_fits_across && cell > best_cell + 1.0f))
            {
                best = g;
                best_cell = cell;
                best_fits_across = fits_across;
            }
            continue;
        }
        if (cell > best_cell + 1.0f || best_cell < 0.0f || !best_fits_across)
        {
            best = g;
            best_cell = cell;
            best_fits_across = true;
        }
    }
    // Stacked maps with different keys need not share a cell size: the room the widest leaves below goes to
    // the others (Q_h of 8×64 above the 8×8 scores: the scores grow to the height left).
    std::vector<float> cells(maps.size(), best_cell);
    out.shared_cell = best_cell;
    if (best.columns == 1)
        grow_stacked(maps, best, area_w, area_h, gap, max_cell, cells);
    else if (!(min_cell > 0.0f))
        grow_own_shapes(maps, area_w, area_h, gap, max_cell, best, best_cell, cells);
    out.cell = best_cell;
    out.columns = best.columns;
    out.width = 0.0f;
    out.height = gap * static_cast<float>(maps.size() - 1);
    for (std::size_t i = 0; i < maps.size() && best.columns == 1; ++i)
    {
        out.width =
            std::max(out.width, best.left[i] + static_cast<float>(maps[i].cols) * cells[i] + maps[i].right);
        out.height += stacked_height(maps, best, i, cells[i]);
    }
    if (best.columns > 1)
    {
        out.width = best.width(maps, cells, gap);
        out.height = best.height(maps, cells, gap);
    }
    // Room the grid leaves across the area goes between its columns (half of a share at each side), where
    // headers wider than their maps may use it.
    out.spare = std::max(0.0f, (area_w - out.width) / static_cast<float>(best.columns));
    const float x0 = out.spare * 0.5f;
    // Each map's image at its grid cell: images of a grid column start at one x, those of a grid row at one
    // y.
    std::vector<float> column_x(static_cast<std::size_t>(best.columns)), image_dx(column_x.size());
    float x = x0;
    for (int c = 0; c < best.columns; ++c)
    {
        column_x[static_cast<std::size_t>(c)] = x;
        for (std::size_t i = static_cast<std::size_t>(c); i < maps.size();
             i += static_cast<std::size_t>(best.columns))
            if (!best.in_short_row(i, maps.size()))
                image_dx[static_cast<std::size_t>(c)] =
                    std::max(image_dx[static_cast<std::size_t>(c)], best.left[i]);
        x += (best.columns == 1 ? out.width : best.column_width(maps, c, cells)) + gap + out.spare;
    }
    // A short last row (three maps in two columns) is centred under the rows above, its maps side by side
    // (not in the columns): no quarter of the view is left empty beside it, and no band beside a narrow map
    // above a wide one. The wider of the two parts sets the left edge.
    const float full_span = x - gap - out.spare - x0;
    const float short_span = best.short_row_width(maps, cells, gap + out.spare);
    for (float& cx : column_x)
        cx += std::max(0.0f, 0.5f * (short_span - full_span));
    float short_x = x0 + std::max(0.0f, 0.5f * (full_span - short_span));
    out.maps.resize(maps.size());
    float y = std::max(0.0f, (area_h - out.height) * 0.5f);
    for (int r = 0; r < best.rows; ++r)
    {
        const std::size_t first = static_cast<std::size_t>(r * best.columns);
        const std::size_t last = std::min(maps.size(), first + static_cast<std::size_t>(best.columns));
        float image_dy = 0.0f;
        for (std::size_t i = first; i < last; ++i)
            image_dy = std::max(image_dy, maps[i].top);
        for (std::size_t i = first; i < last; ++i)
        {
            const auto c = static_cast<std::size_t>(best.column_of(i));
            MapPlacement& p = out.maps[i];
            p.cell = cells[i];
            float image_x = column_x[c] + image_dx[c];
            if (best.in_short_row(i, maps.size()))
            {
                image_x = short_x + best.left[i];
                short_x =
                    image_x + static_cast<float>(maps[i].cols) * p.cell + maps[i].right + gap + out.spare;
            }
            p.image = LayoutRect{image_x, y + image_dy, static_cast<float>(maps[i].cols) * p.cell,
                                 static_cast<float>(maps[i].rows) * p.cell};
            p.row_labels = best.left[i] == maps[i].left;
            p.col_labels = best.col_labels[i] == maps[i].col_labels;
        }
        y += (best.columns == 1 ? stacked_height(maps, best, first, cells[first])
                                : best.row_height(maps, r, cells)) +
             gap;
    }
    return out;
}

// [SECTION] The caption: under the maps or beside them

CaptionPlacement place_caption(float w, float h, const std::function<float(float)>& caption_height,
                               const std::function<float(float, float)>& map_cell)
{
    w = std::max(0.0f, w);
    h = std::max(0.0f, h);
    CaptionPlacement below;
    const float band_h = std::clamp(caption_height(w), 0.0f, h * kCaptionBandMaxShare);
    below.caption = LayoutRect{0.0f, h - band_h, w, band_h};
    below.view = LayoutRect{0.0f, 0.0f, w, h - band_h};
    if (!map_cell)
        return below;
    below.cell = map_cell(below.view.w, below.view.h);
    std::vector<CaptionPlacement> columns;
    float largest = 0.0f;
    for (const float share : kCaptionColumnShares)
    {
        const float column_w = std::round(w * share);
        if (caption_height(column_w) > h)
            continue; // the caption would not fit the column
        CaptionPlacement right;
        right.side = CaptionSide::Right;
        right.caption = LayoutRect{w - column_w, 0.0f, column_w, h};
        right.view = LayoutRect{0.0f, 0.0f, w - column_w, h};
        right.cell = map_cell(right.view.w, right.view.h);
        largest = std::max(largest, right.cell);
        columns.push_back(right);
    }
    CaptionPlacement best = below;
    if (largest <= below.cell + 1.0f)
        return best;
    for (const CaptionPlacement& right : columns)
        if (right.cell >= largest - 1.0f &&
            (best.side == CaptionSide::Below || right.caption.w > best.caption.w))
            best = right;
    return best;
}

CaptionChoice choose_caption(float w, float h, float text_px, float caption_px,
                             const std::function<float(float, float)>& caption_height,
                             const std::function<float(float, float)>& map_cell)
{
    auto at = [&](float px)
    {
        CaptionChoice c;
        c.font_px = px;
        c.placement = place_caption(
            w, h, [&](float width) { return caption_height(width, px); }, map_cell);
        return c;
    };
    // A size holds when the whole caption fits its place: a column beside the maps, or the band within its
    // largest share.
    auto holds = [&](const CaptionChoice& c)
    {
        return c.placement.side == CaptionSide::Right ||
               caption_height(w, c.font_px) <= h * kCaptionBandMaxShare + 0.5f;
    };
    CaptionChoice best = at(caption_px);
    if (!(caption_px > text_px) || holds(best))
        return best;
    // The largest whole pixel size that holds.
    float lo = std::ceil(text_px), hi = std::floor(caption_px);
    CaptionChoice found = at(text_px);
    while (lo <= hi)
    {
        const float mid = std::floor(0.5f * (lo + hi));
        CaptionChoice c = at(mid);
        if (holds(c))
        {
            found = c;
            lo = mid + 1.0f;
        }
        else
            hi = mid - 1.0f;
    }
    return found;
}

// [SECTION] The Training view

namespace
{

TrainingPresenterLayout training_layout_at(float w, float h, const std::vector<MapBox>& heads,
                                           int heads_per_layer, float gap, float max_cell, float min_left,
                                           float min_curves_h, float min_text_h, float min_below_h)
{
    TrainingPresenterLayout out;
    out.height = std::max(0.0f, h);
    w = std::max(0.0f, w);
    h = std::max(0.0f, h);
    min_left = std::clamp(min_left, 0.0f, w);
    // The maps first: the area right of the narrowest plot column, a row per layer or all in one row.
    // Half a gap stays right of the last column: a map's title may run that far past its map.
    const float area_w = std::max(0.0f, w - min_left - gap * 1.5f);
    const int n = static_cast<int>(heads.size());
    const int per_layer = std::clamp(heads_per_layer, 1, std::max(1, n));
    MapGrid best;
    for (const int columns : {per_layer, n})
    {
        if (n == 0)
            break;
        const MapGrid g = layout_maps(heads, area_w, h, gap, max_cell, columns);
        if (best.maps.empty() || g.cell > best.cell + 0.01f)
            best = g;
    }
    // The plots take the width the maps leave; the maps keep their cells in a rectangle of their own width.
    const float maps_w = best.maps.empty() ? 0.0f : std::min(area_w, best.width);
    const float left_w = best.maps.empty() ? w : std::max(min_left, w - maps_w - gap * 1.5f);
    if (!best.maps.empty())
        best = layout_maps(heads, maps_w, h, gap, max_cell, best.columns);
    // Or the maps across the whole width at the top and the plots under them, when that is clearly larger.
    if (min_text_h <= 0.0f && min_below_h > 0.0f && !best.maps.empty())
    {
        const float maps_h = h - min_below_h - gap;
        MapGrid top;
        for (const int columns : {per_layer, n})
        {
            const MapGrid g = layout_maps(heads, w, maps_h, gap, max_cell, columns);
            if (top.maps.empty() || g.cell > top.cell + 0.01f)
                top = g;
        }
        if (maps_h > 0.0f && !top.maps.empty() && top.cell >= best.cell * kPlotsBelowGain)
        {
            // The grid at the top of its rectangle (layout_maps centres it down the area), the plots taking
            // all the height it leaves.
            const float shift = std::max(0.0f, top.maps.front().image.y - heads.front().top);
            for (MapPlacement& m : top.maps)
                m.image.y -= shift;
            const float maps_used = std::min(maps_h, top.height);
            out.grid = top;
            out.plots_below = true;
            out.maps = LayoutRect{0.0f, 0.0f, w, maps_used};
            out.curves = LayoutRect{0.0f, maps_used + gap, w, std::max(0.0f, h - maps_used - gap)};
            out.text = LayoutRect{0.0f, h, w, 0.0f};
            return out;
        }
    }
    out.grid = best;
    out.maps = best.maps.empty() ? LayoutRect{w, 0.0f, 0.0f, h}
                                 : LayoutRect{left_w + gap, 0.0f, std::max(0.0f, w - left_w - gap), h};
    // The plots keep their least height first (a plot cut at its bottom loses its step axis and the legend's
    // last layer): in a view too short for both, the readouts get less than min_text_h (fewer sample lines).
    const bool with_text = min_text_h > 0.0f;
    const float curves_h =
        with_text ? std::min(h, std::max(min_curves_h, std::min(h * 0.55f, h - gap - min_text_h))) : h;
    out.curves = LayoutRect{0.0f, 0.0f, left_w, curves_h};
    const float text_y = std::min(h, curves_h + gap);
    out.text = LayoutRect{0.0f, text_y, left_w, with_text ? h - text_y : 0.0f};
    return out;
}

} // namespace

TrainingPresenterLayout layout_training_presenter(float w, float h, const std::vector<MapBox>& heads,
                                                  int heads_per_layer, float gap, float max_cell,
                                                  float min_left, float min_curves_h, float min_text_h,
                                                  float min_below_h, float min_cell)
{
    const auto at = [&](float height)
    {
        return training_layout_at(w, height, heads, heads_per_layer, gap, max_cell, min_left, min_curves_h,
                                  min_text_h, min_below_h);
    };
    TrainingPresenterLayout out = at(h);
    min_cell = std::min(min_cell, max_cell);
    const auto enough = [&](const TrainingPresenterLayout& l) { return l.grid.cell >= min_cell - 0.01f; };
    if (!(min_cell > 0.0f) || heads.empty() || enough(out))
        return out;
    // The least taller height that gives the cells: steps of a 16th of the view (the arrangement may change
    // on the way, so the cells need not grow steadily), then halving within the last step.
    const float step = std::max(4.0f, h / 16.0f);
    float lo = std::max(0.0f, h), hi = lo;
    TrainingPresenterLayout found = out;
    bool reached = false;
    for (int k = 0; k < 64 && !reached; ++k)
    {
        lo = hi;
        hi += step;
        found = at(hi);
        reached = enough(found);
    }
    if (!reached)
        return found; // the labels and titles alone outgrow any height: the tallest tried
    for (int k = 0; k < 12; ++k)
    {
        const float mid = 0.5f * (lo + hi);
        TrainingPresenterLayout l = at(mid);
        if (enough(l))
        {
            hi = mid;
            found = std::move(l);
        }
        else
            lo = mid;
    }
    return found;
}

TrainingCurvesColumn layout_training_curves(float w, float h, float fs, float line, float spacing, int layers,
                                            float legend_w)
{
    TrainingCurvesColumn out;
    const float loss_min = fs * (kLossAxesMinEm + kPlotChromeEm);
    const float heads_min = fs * (kHeadAxesMinEm + kPlotChromeEm);
    // Two title lines and the spacing after each plot; the legend under them when not beside.
    const float titles = line * 2.0f + spacing * 2.0f;
    const float legend_below = line * static_cast<float>(1 + std::max(1, layers));
    const bool short_column = h < titles + legend_below + loss_min + heads_min;
    out.legend_beside = legend_w > 0.0f && (legend_w + fs <= w * kLegendBesideShare ||
                                            (short_column && legend_w + fs <= w * kLegendBesideShortShare));
    out.heads_w = out.legend_beside ? w - legend_w - fs : w;
    const float fixed = titles + (out.legend_beside ? 0.0f : legend_below);
    out.min_height = fixed + loss_min + heads_min;
    const float room = std::max(0.0f, h - fixed);
    out.loss_h = std::max(loss_min, room * 0.55f);
    out.heads_h = std::max(heads_min, room - out.loss_h);
    if (out.loss_h + out.heads_h > room && room > loss_min + heads_min)
        out.loss_h = room - out.heads_h; // the head plot's least height taken from the loss plot's share
    return out;
}

// [SECTION] Text that must not break inside

std::vector<int> flow_parts(const std::vector<float>& widths, float space, float max_w)
{
    std::vector<int> line(widths.size(), 0);
    int current = 0;
    float used = 0.0f;
    for (std::size_t i = 0; i < widths.size(); ++i)
    {
        if (i > 0 && used + space + widths[i] > max_w)
        {
            ++current;
            used = 0.0f;
        }
        else if (i > 0)
            used += space;
        used += widths[i];
        line[i] = current;
    }
    return line;
}

} // namespace attnlab
