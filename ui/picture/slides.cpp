// Lesson slides drawn on the CPU: title, maps laid out as large as they fit, and the step's text as caption.
//
// Index of this file:
// [SECTION] The caption
// [SECTION] What a step shows
// [SECTION] Layout: the maps in rows, one cell size for all, as large as the area allows
// [SECTION] The loss strip
// [SECTION] The slide
#include "ui/picture/slides.h"

#include "ui/model/lessons.h"
#include "ui/model/training/text_readouts.h"
#include "ui/model/training/training_controller.h"
#include "ui/model/training/training_curves.h"
#include "ui/picture/export.h"
#include "ui/picture/heatmap_math.h"
#include "ui/picture/step_maps.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace attnlab
{

// [SECTION] The caption

namespace
{

// Words that start an instruction for the window, not for a picture.
bool is_window_instruction(const std::string& clause)
{
    std::string lower;
    for (char ch : clause.substr(0, 16))
        lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (const char* verb : {"hover ", "click ", "drag ", "toggle ", "scroll ", "use [", "right click"})
        if (lower.rfind(verb, 0) == 0)
            return true;
    return false;
}

// Splits at ". " (and "! ", "? ") where the next sentence starts with a capital, a quote or a digit, keeping
// the punctuation with its sentence.
std::vector<std::string> sentences(const std::string& text)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t i = 0; i + 2 < text.size(); ++i)
    {
        const char c = text[i];
        if ((c != '.' && c != '!' && c != '?') || text[i + 1] != ' ')
            continue;
        const auto next = static_cast<unsigned char>(text[i + 2]);
        if (!(std::isupper(next) || std::isdigit(next) || next == '"' || next >= 0x80))
            continue;
        out.push_back(text.substr(start, i + 1 - start));
        start = i + 2;
    }
    if (start < text.size())
        out.push_back(text.substr(start));
    return out;
}

} // namespace

std::string slide_caption(const std::string& text)
{
    std::string out;
    for (const std::string& sentence : sentences(text))
    {
        if (is_window_instruction(sentence))
            continue;
        // "…; hover it to see the sum written out." keeps what comes before the instruction.
        std::string kept = sentence;
        const std::size_t semi = kept.find("; ");
        if (semi != std::string::npos && is_window_instruction(kept.substr(semi + 2)))
            kept = kept.substr(0, semi) + ".";
        out += (out.empty() ? "" : " ") + kept;
    }
    return out.empty() ? text : out;
}

// [SECTION] What a step shows

namespace
{

// The maps of a slide, with the token lists the training maps point to (kept here, so the views stay valid).
struct SlideContent
{
    std::vector<HeatmapPicture> maps;
    std::string context;             // "layer 1 · sentence 1 · causal mask · τ = 1"
    std::vector<std::string> tokens; // a training probe's tokens
    std::vector<std::string> vocab;  // a training model's vocabulary
    bool shared_scale = false;       // every map on the weights' [0, 1] scale: one colour bar a row
    bool shared_rows = false; // every map's rows are the same tokens: row labels on each row's first map only
    const TrainingSnapshot* curves = nullptr; // a training step: its curves above the maps
    int target_steps = 0, score_kind = 0, cursor_step = -1;
    int until_step = -1; // the curves end at this step (a lesson step's position), -1: the whole run
    bool fit_to_run = true;
    std::string curves_note;     // "weights at step 30"
    std::vector<LossCell> strip; // a text model's loss strip, when the step talks about it
};

// A map of the current trace: its name and its equation and shape (the slide's context line says where it
// comes from), the lesson's cells outlined.
HeatmapPicture stage_map(AppState& state, const MatrixRef& ref)
{
    HeatmapPicture p = heatmap_picture(resolve_matrix(state, ref));
    p.title = matrix_name(state, ref);
    for (const LessonCell& c : lesson_cells(state, ref))
        p.outlined.emplace_back(c.row, c.col);
    p.outline_color = lesson_highlight_color();
    return p;
}

void add_stage(AppState& state, SlideContent& content, const MatrixRef& ref)
{
    HeatmapPicture p = stage_map(state, ref);
    if (p.view.m == nullptr)
        return;
    if (ref.source != MatrixSource::Comparison && ref.stage == Stage::weights)
    {
        // The mean row entropy, as the window shows it with every weights map (lessons refer to it).
        char entropy[48];
        std::snprintf(entropy, sizeof entropy, " · H = %.2f nats",
                      static_cast<double>(state.mean_entropy(ref)));
        p.subtitle += entropy;
    }
    content.maps.push_back(std::move(p));
    content.context = matrix_context(state, ref); // the last map's: the mask and τ from where they apply
}

void heads_maps(AppState& state, const std::vector<MatrixRef>& refs, SlideContent& content)
{
    content.shared_scale = !state.prefs.stretch_weights;
    for (const MatrixRef& ref : refs)
    {
        HeatmapPicture p = stage_map(state, ref);
        if (p.view.m == nullptr)
            continue;
        const float H = state.mean_entropy(ref);
        char line[64];
        std::snprintf(line, sizeof line, "H = %.2f nats",
                      static_cast<double>(H)); // its name: the context line
        p.subtitle = line;
        content.maps.push_back(std::move(p));
        content.context = matrix_context(state, ref);
    }
    if (!content.maps.empty())
        content.context += " · H: mean row entropy";
}

// A matrix of the training probe as a map.
HeatmapPicture probe_map(const Mat& m, const std::string& title, const std::string& subtitle,
                         const std::vector<std::string>* rows, const std::vector<std::string>* cols,
                         bool probability, const Mat* mask)
{
    HeatmapPicture p;
    p.view.m = &m;
    p.view.row_tokens = rows;
    p.view.col_tokens = cols;
    p.view.probability = probability;
    p.view.mask = mask;
    p.title = title;
    p.subtitle = subtitle;
    return p;
}

// Every head's A_h (and ∂L/∂A_h) of a probe pass, titled "A_1 · layer 2" over the held-out score the panel's
// title shows ("induction 0.84": the last evaluation at or before `step`; the probe's, marked, before the
// first), led by "group: " when it is given.
void add_probe_attention(SlideContent& content, const TrainingProbe& pr,
                         const std::vector<TrainingEval>& evals, int step, int score_kind, bool gradient,
                         const std::string& group)
{
    const train::HeadScoreKind score = train::head_score_kind(score_kind);
    const std::string name = train::head_score_info(score).name;
    const std::string lead = group.empty() ? std::string() : group + ": ";
    for (int l = 0; l < pr.n_layers(); ++l)
        for (int j = 0; j < pr.n_heads(); ++j)
        {
            const int k = l * pr.n_heads() + j;
            char title[160], subtitle[96] = "";
            std::snprintf(title, sizeof title, "%sA_%d · layer %d", lead.c_str(), j + 1, l + 1);
            const train::HeadScores* held_out = held_out_scores_at(evals, step, k);
            const train::HeadScores* shown = held_out != nullptr ? held_out
                                             : k < static_cast<int>(pr.scores().size())
                                                 ? &pr.scores()[static_cast<std::size_t>(k)]
                                                 : nullptr;
            // The score under the title: a title as long as "A_1 · layer 1 · anti-diagonal 0.08 (probe)" set
            // the maps' columns, so four maps took two rows of small maps where one row of large ones fits.
            if (shown != nullptr)
                std::snprintf(subtitle, sizeof subtitle, "%s %.2f%s", name.substr(0, name.find(' ')).c_str(),
                              train::head_score(*shown, score), held_out != nullptr ? "" : " (probe)");
            HeatmapPicture a =
                probe_map(pr.weights(k), title, subtitle, &content.tokens, &content.tokens, true, &pr.mask());
            a.row_axis = "query";
            a.col_axis = "key";
            content.maps.push_back(std::move(a));
            if (gradient)
            {
                std::snprintf(title, sizeof title, "%s∂L/∂A_%d · layer %d", lead.c_str(), j + 1, l + 1);
                HeatmapPicture g =
                    probe_map(pr.dweights(k), title, "", &content.tokens, &content.tokens, false, &pr.mask());
                g.row_axis = "query";
                g.col_axis = "key";
                content.maps.push_back(std::move(g));
            }
        }
}

void training_maps(AppState& state, SlideContent& content)
{
    TrainingPanelState& ts = state.training;
    const TrainingSnapshot& v = ts.view;
    sync_probe(ts); // the step's probe, parsed even before a frame has drawn the panel
    if (v.timeline.empty() || ts.probe_batch.T == 0)
        return;
    const TrainingFrame* f = ts.follow_latest ? &v.timeline.back() : v.frame_at(ts.shown_step);
    if (f == nullptr)
        return;
    ts.probe.update(v.model, f->params, ts.probe_batch, ts.probe_version);
    const TrainingProbe& pr = ts.probe;
    if (pr.empty())
        return;
    content.curves = &v;
    content.target_steps = ts.edit.steps;
    content.score_kind = ts.score_kind;
    content.fit_to_run = ts.fit_curves;
    content.cursor_step = f->step;
    if (!ts.lesson_key.empty() && ts.lesson_step_at >= 0)
        content.until_step = f->step; // as the window draws the step: the curves as far as its maps
    content.curves_note = "the maps: weights at step " + std::to_string(f->step) +
                          (f->step == 0 ? " (random, untrained)" : "") + ", on the probe";
    for (const int id : ts.probe_batch.tokens)
        content.tokens.push_back(id >= 0 && id < static_cast<int>(v.vocabulary.size())
                                     ? v.vocabulary[static_cast<std::size_t>(id)]
                                     : "?");
    content.vocab = v.vocabulary;
    content.context = v.config.label();
    // The loss strip under the maps where the step's text talks about it, as presenter mode shows it.
    if (v.config.task == train::TaskKind::Text && step_shows_loss_strip(current_step(state)))
        content.strip = loss_strip(ts.probe_batch, pr.acts(), v.vocabulary);
    if (ts.map_kind == 2)
    {
        HeatmapPicture logits = probe_map(pr.logits(), "Logits", "Z W_U + b_U, one row per position",
                                          &content.tokens, &content.vocab, false, nullptr);
        HeatmapPicture probs = probe_map(pr.probs(), "Next-token probabilities", "softmax(logits)",
                                         &content.tokens, &content.vocab, true, nullptr);
        for (HeatmapPicture* p : {&logits, &probs})
        {
            p->row_axis = "position";
            p->col_axis = "next token";
            content.maps.push_back(std::move(*p));
        }
        return;
    }
    // Attention of every layer and head (the "every stage" view shows one head's chain: its A_h is here).
    const bool gradient = ts.map_kind == 1;
    content.shared_scale = !gradient;
    if (gradient)
        content.curves_note += "; beside each A_h its ∂L/∂A_h (blue: more weight there lowers the loss)";
    // An earlier run compared (as in the panel): its maps first, each title led by the legend's words for its
    // run ("h = 1: A_1 · layer 1 · …"), then this run's led by its own.
    const PastRun* past = compared_run(ts);
    if (past != nullptr)
    {
        ts.compare_probe.update(past->model, past->params, ts.probe_batch, ts.probe_version);
        if (ts.compare_probe.empty())
            past = nullptr;
    }
    if (past != nullptr)
    {
        const std::string own = v.config.label();
        const std::string differs = label_difference(past->label, own);
        const std::string own_differs = label_difference(own, past->label);
        const std::size_t i = static_cast<std::size_t>(past - v.past.data());
        content.curves_note += "; left: the earlier run (" + std::string(past_run_color_name(i)) +
                               " curves) at its last step " + std::to_string(past->step) +
                               ", right: this run, on the same probe";
        add_probe_attention(content, ts.compare_probe, past->evals, past->step, ts.score_kind, gradient,
                            differs.empty() ? "earlier run" : differs);
        add_probe_attention(content, pr, v.evals, f->step, ts.score_kind, gradient,
                            own_differs.empty() ? "this run" : own_differs);
        return;
    }
    add_probe_attention(content, pr, v.evals, f->step, ts.score_kind, gradient, "");
}

void fill_content(AppState& state, SlideContent& content)
{
    const StepMaps shown = step_maps(state, current_step(state));
    if (shown.kind == StepMapsKind::Training)
    {
        training_maps(state, content);
        return;
    }
    if (!state.has_trace())
        return;
    if (shown.kind == StepMapsKind::Heads)
    {
        heads_maps(state, shown.maps, content);
        return;
    }
    if (shown.kind == StepMapsKind::Comparisons)
        state.ensure_comparisons();
    for (const MatrixRef& ref : shown.maps)
        add_stage(state, content, ref);
    for (HeatmapPicture& p : content.maps)
        p.row_sums = shown.row_sums && p.view.probability;
}

// [SECTION] Layout: the maps in rows, one cell size for all, as large as the area allows

struct GridFit
{
    int per_row = 1;
    int cell = 0; // 0: nothing fits even at the smallest cells
    float font_scale = 1.0f;
};

// The maps as drawn in rows of per_row: with one colour scale for all (attention weights), only the last map
// of a row keeps its colour bar; with the same rows for all (a head's chain), only the first its row labels.
std::vector<HeatmapPicture> arranged(const std::vector<HeatmapPicture>& maps, std::size_t per_row,
                                     bool shared_scale, bool shared_rows = false)
{
    std::vector<HeatmapPicture> out = maps;
    if (shared_scale)
        for (std::size_t i = 0; i < out.size(); ++i)
            out[i].colorbar = (i + 1) % per_row == 0 || i + 1 == out.size();
    if (shared_rows)
        for (std::size_t i = 0; i < out.size(); ++i)
        {
            // Left out only where the row's first map names the same tokens (not a cross head's K and V).
            const MatrixView& first = maps[i - i % per_row].view;
            const MatrixView& view = maps[i].view;
            out[i].row_labels = i % per_row == 0 || view.row_tokens != first.row_tokens ||
                                view.m == nullptr || first.m == nullptr || view.m->rows() != first.m->rows();
        }
    return out;
}

// The fonts made smaller by k, none under the slide's smallest text.
PictureFonts scaled(const PictureFonts& f, float k)
{
    return {std::max(f.min_text, f.title * k), std::max(f.min_text, f.body * k),
            std::max(f.min_text, f.label * k), f.min_text};
}

// The size of maps [first, last) side by side at `cell`, their cells on one line: a map with a shorter
// header moves down by the difference (image_top: the row's cells' top).
void row_size(const std::vector<HeatmapPicture>& maps, std::size_t first, std::size_t last,
              const TextRasterizer& text, const PictureFonts& fonts, int cell, int gap, int* w, int* h,
              int* image_top = nullptr)
{
    *w = 0;
    int top = 0, below = 0;
    for (std::size_t i = first; i < last; ++i)
    {
        int mw = 0, mh = 0, mt = 0;
        measure_heatmap_picture(maps[i], text, fonts, cell, &mw, &mh, &mt);
        *w += mw + (i > first ? gap : 0);
        top = std::max(top, mt);
        below = std::max(below, mh - mt);
    }
    *h = top + below;
    if (image_top != nullptr)
        *image_top = top;
}

bool grid_fits(const std::vector<HeatmapPicture>& maps, int per_row, const TextRasterizer& text,
               const PictureFonts& fonts, int cell, int gap, int area_w, int area_h)
{
    int total_h = 0;
    for (std::size_t first = 0; first < maps.size(); first += static_cast<std::size_t>(per_row))
    {
        const std::size_t last = std::min(maps.size(), first + static_cast<std::size_t>(per_row));
        int w = 0, h = 0;
        row_size(maps, first, last, text, fonts, cell, gap, &w, &h);
        total_h += h + (first > 0 ? gap : 0);
        if (w > area_w || total_h > area_h)
            return false;
    }
    return true;
}

// The arrangement with the largest cells: every number of maps per row, the largest cell by bisection (a map
// grows with its cells). When nothing fits, the text shrinks (to 65 %) before the cells go below 4 pixels.
GridFit fit_grid(const std::vector<HeatmapPicture>& maps, bool shared_scale, const TextRasterizer& text,
                 const PictureFonts& fonts, int max_cell, int gap, int area_w, int area_h,
                 bool shared_rows = false)
{
    const int n = static_cast<int>(maps.size());
    for (float k : {1.0f, 0.82f, 0.65f})
    {
        GridFit best;
        best.font_scale = k;
        const PictureFonts f = scaled(fonts, k);
        for (int per_row = 1; per_row <= n; ++per_row)
        {
            const std::vector<HeatmapPicture> row_maps =
                arranged(maps, static_cast<std::size_t>(per_row), shared_scale, shared_rows);
            int lo = 0, hi = max_cell;
            while (lo < hi)
            {
                const int mid = (lo + hi + 1) / 2;
                if (grid_fits(row_maps, per_row, text, f, mid, gap, area_w, area_h))
                    lo = mid;
                else
                    hi = mid - 1;
            }
            if (lo > best.cell)
            {
                best.per_row = per_row;
                best.cell = lo;
            }
        }
        if (best.cell >= 4 || (best.cell > 0 && k < 0.7f))
            return best;
    }
    // Too many for the slide: a square grid of the smallest cells, clipped at the edges.
    GridFit fallback;
    fallback.per_row = std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n)))));
    fallback.cell = 2;
    fallback.font_scale = 0.65f;
    return fallback;
}

// The curves' height above a training step's maps, from `wanted` down to a floor (120 px, or 18 % of the
// room when that is more): when the maps' cells are under 4 pixels at `wanted`, the largest height that gives
// them their largest cells in the room left (`room`:
// curves and maps together). A text model's 64-character maps need whole-pixel cells of 2 rather than 1 at
// 1280x800, which the full height of the curves would leave them without; below the floor the plots' boxes
// would be too flat to read, so a long caption can still leave them at 1.
int curves_height(const std::vector<HeatmapPicture>& maps, bool shared_scale, const TextRasterizer& text,
                  const PictureFonts& fonts, int max_cell, int gap, int area_w, int room, int wanted)
{
    if (maps.empty())
        return wanted;
    const int floor_h = std::min(wanted, std::max(120, room * 18 / 100));
    const auto better = [](const GridFit& a, const GridFit& b)
    { return a.cell > b.cell || (a.cell == b.cell && a.font_scale > b.font_scale); };
    int chosen = wanted;
    GridFit best =
        fit_grid(maps, shared_scale, text, fonts, max_cell, gap, area_w, std::max(1, room - wanted));
    if (best.cell >= 4)
        return wanted; // a pixel more a cell is not worth the plots' height
    for (int h = wanted - 10; h >= floor_h; h -= 10)
    {
        const GridFit fit =
            fit_grid(maps, shared_scale, text, fonts, max_cell, gap, area_w, std::max(1, room - h));
        if (better(fit, best))
        {
            best = fit;
            chosen = h;
        }
    }
    return chosen;
}

// What a slide says around its maps: a small line above the heading (the lesson, left; the step counter,
// right; both empty: none), the heading, and the caption at the bottom.
struct SlideWords
{
    std::string over_left, over_right, heading, caption;
};

// The header: the small line, then the heading in the accent colour. Returns the y under it.
float draw_slide_heading(Image& img, const TextRasterizer& text, const Palette& palette, Color32 accent,
                         const SlideWords& words, int margin, float small_px, float heading_px)
{
    float y = static_cast<float>(margin) * 0.6f;
    if (!words.over_left.empty() || !words.over_right.empty())
    {
        text.draw(img, static_cast<float>(margin), y, small_px, palette.grey_ink, words.over_left);
        text.draw(img, static_cast<float>(img.width - margin) - text.width(words.over_right, small_px), y,
                  small_px, palette.grey_ink, words.over_right);
        y += small_px * 1.6f;
    }
    text.draw(img, static_cast<float>(margin), y, heading_px, accent, words.heading);
    return y + heading_px * 1.35f;
}

// The caption at the bottom of a slide of height img.height(), wrapped to `width` and made smaller (from
// `px`, down to min_px) until it takes at most a third of the slide. Returns its top.
float draw_slide_caption(Image& img, const TextRasterizer& text, const Palette& palette,
                         const std::string& caption, float px, float min_px, int margin, float width)
{
    const int height = img.height;
    std::vector<std::string> lines = text.wrap(caption, px, width);
    while (px > min_px && static_cast<float>(lines.size()) * px * 1.4f > height / 3.0f)
    {
        px *= 0.92f;
        lines = text.wrap(caption, px, width);
    }
    const float caption_h = static_cast<float>(lines.size()) * px * 1.4f;
    const float caption_y = static_cast<float>(height - margin) - caption_h;
    for (std::size_t i = 0; i < lines.size(); ++i)
        text.draw(img, static_cast<float>(margin), caption_y + static_cast<float>(i) * px * 1.4f, px,
                  palette.ink, lines[i]);
    return caption_y;
}

// Rows of `per_row` maps, each row centred; the block centred in the area (left, top, area_w, area_h).
void draw_map_rows(Image& img, const TextRasterizer& text, const Palette& palette,
                   const std::vector<HeatmapPicture>& maps, std::size_t per_row, const PictureFonts& fonts,
                   int cell, int map_gap, int left, int top, int area_w, int area_h)
{
    std::vector<int> row_w, row_h, row_top;
    int total_h = 0;
    for (std::size_t first = 0; first < maps.size(); first += per_row)
    {
        int w = 0, h = 0, t = 0;
        row_size(maps, first, std::min(maps.size(), first + per_row), text, fonts, cell, map_gap, &w, &h, &t);
        row_w.push_back(w);
        row_h.push_back(h);
        row_top.push_back(t);
        total_h += h + (first > 0 ? map_gap : 0);
    }
    int ry = top + std::max(0, (area_h - total_h) / 2);
    for (std::size_t r = 0, first = 0; first < maps.size(); ++r, first += per_row)
    {
        int x = left + std::max(0, (area_w - row_w[r]) / 2);
        for (std::size_t i = first; i < std::min(maps.size(), first + per_row); ++i)
        {
            int mw = 0, mh = 0, mt = 0;
            measure_heatmap_picture(maps[i], text, fonts, cell, &mw, &mh, &mt);
            draw_heatmap_picture(img, x, ry + row_top[r] - mt, maps[i], text, fonts, palette, cell);
            x += mw + map_gap;
        }
        ry += row_h[r] + map_gap;
    }
}

} // namespace

// [SECTION] The loss strip

namespace
{

constexpr double kBitsPerNat = 1.4426950408889634; // 1 / ln 2

// The probe's characters in cells coloured by the model's surprise at each (the Training panel's strip: the
// same colours on the slide's paper), wrapped to `width`, and its legend: the colour ramp from 0 to
// kSurpriseMaxNats nats and the strip's mean, beside a strip of one line when both fit (a line of the slide's
// height kept for the maps and curves), else under it. Draws from (x, y) when img is not null; returns the
// height.
int loss_strip_picture(Image* img, const TextRasterizer& text, const Palette& palette,
                       const std::vector<LossCell>& cells, int x, int y, int width, float px, float small_px)
{
    const float pad = std::max(2.0f, std::floor(px * 0.18f));
    const float cell_h = std::ceil(px + 2.0f * pad);
    // The legend's parts and its width.
    double sum = 0.0;
    int counted = 0;
    for (const LossCell& c : cells)
        if (std::isfinite(c.loss))
        {
            sum += static_cast<double>(c.loss);
            ++counted;
        }
    const std::string lead = "surprise, −ln p in nats:  0";
    char top[16], mean[96] = "";
    std::snprintf(top, sizeof top, "%.0f+", static_cast<double>(kSurpriseMaxNats));
    if (counted > 0)
        std::snprintf(mean, sizeof mean, "mean %.2f nats (%.2f bits)", sum / counted,
                      sum / counted * kBitsPerNat);
    const float gap = small_px * 0.4f;
    const int ramp_w = static_cast<int>(small_px * 8.0f);
    const float legend_w = text.width(lead, small_px) + gap + static_cast<float>(ramp_w) + gap +
                           text.width(top, small_px) + small_px * 1.5f + text.width(mean, small_px);
    // The cells, wrapped.
    float cx = 0.0f, cy = 0.0f, strip_w = 0.0f;
    for (const LossCell& c : cells)
    {
        const std::string shown = visible_character(c.symbol);
        const float tw = text.width(shown, px);
        const float w = std::ceil(std::max(tw, px * 0.5f) + 2.0f * pad);
        if (cx > 0.0f && cx + w > static_cast<float>(width))
        {
            cx = 0.0f;
            cy += cell_h + pad;
        }
        if (img != nullptr)
        {
            const Color32 fill = surprise_color(c.loss, kSurpriseMaxNats, palette.paper);
            const int x0 = x + static_cast<int>(cx), y0 = y + static_cast<int>(cy);
            fill_rect(*img, x0, y0, x0 + static_cast<int>(w), y0 + static_cast<int>(cell_h), fill);
            const Color32 ink = is_blank_symbol(c.symbol) ? palette.grey_ink : chip_text_color(fill);
            text.draw(*img, static_cast<float>(x0) + (w - tw) * 0.5f, static_cast<float>(y0) + pad, px, ink,
                      shown);
        }
        cx += w;
        strip_w = std::max(strip_w, cx);
    }
    const float beside_gap = small_px * 2.0f;
    const bool beside = cy == 0.0f && strip_w + beside_gap + legend_w <= static_cast<float>(width);
    const float legend_x = beside ? strip_w + beside_gap : 0.0f;
    const float legend_y = beside ? (cell_h - small_px) * 0.5f : cy + cell_h + pad * 2.0f;
    const int height = static_cast<int>(std::ceil(beside ? cell_h : legend_y + small_px * 1.2f));
    if (img == nullptr)
        return height;
    const float ly = static_cast<float>(y) + legend_y;
    float lx = static_cast<float>(x) + legend_x;
    text.draw(*img, lx, ly, small_px, palette.grey_ink, lead);
    lx += text.width(lead, small_px) + gap;
    const int r0 = static_cast<int>(lx), r1 = r0 + ramp_w;
    const int ry0 = static_cast<int>(ly + small_px * 0.15f), ry1 = static_cast<int>(ly + small_px * 0.95f);
    constexpr int kSteps = 32;
    for (int i = 0; i < kSteps; ++i)
    {
        const float v = kSurpriseMaxNats * (static_cast<float>(i) + 0.5f) / kSteps;
        fill_rect(*img, r0 + ramp_w * i / kSteps, ry0, r0 + ramp_w * (i + 1) / kSteps, ry1,
                  surprise_color(v, kSurpriseMaxNats, palette.paper));
    }
    frame_rect(*img, r0 - 1, ry0 - 1, r1 + 1, ry1 + 1, palette.frame);
    lx = static_cast<float>(r1) + gap;
    text.draw(*img, lx, ly, small_px, palette.grey_ink, top);
    lx += text.width(top, small_px) + small_px * 1.5f;
    if (counted > 0)
        text.draw(*img, lx, ly, small_px, palette.grey_ink, mean);
    return height;
}

} // namespace

// [SECTION] The slide

namespace
{

// A slide of `content` with `words` around it (the layout every slide shares).
Image render_slide(AppState& state, const SlideWords& words, const SlideContent& content_in, int width,
                   int height, bool dark, std::string* note, std::vector<std::string>* texts)
{
    const Palette palette = picture_palette(dark);
    const Color32 accent = dark ? pack_rgba(110, 190, 255) : pack_rgba(0, 84, 160);
    Image img;
    img.reset(width, height, palette.paper);
    TextRasterizer text;
    text.load_default(note);
    text.record(texts);

    // Sizes follow the slide's height: about 40 px titles and 25 px text on a 1080-line slide.
    const float s = static_cast<float>(height) / 1080.0f;
    const float heading_px = std::max(24.0f, 42.0f * s);
    const float body_px = std::max(17.0f, 26.0f * s);
    const float small_px = std::max(15.0f, 21.0f * s);
    PictureFonts fonts;
    fonts.title = std::max(16.0f, 24.0f * s);
    fonts.body = std::max(14.0f, 20.0f * s);
    fonts.label = std::max(14.0f, 20.0f * s);
    // The smallest text on the slide: 16 px on 1080 lines, so 8 px when the slide is pasted at half size (12
    // px at the least, on small slides).
    fonts.min_text = std::max(12.0f, kSlideMinTextPx * s);
    const int margin = static_cast<int>(std::max(20.0f, 40.0f * s));
    const int gap = static_cast<int>(std::max(16.0f, 36.0f * s));
    const float inner_w = static_cast<float>(width - 2 * margin);

    float y = draw_slide_heading(img, text, palette, accent, words, margin, small_px, heading_px);
    const SlideContent* content = &content_in;
    if (!content->context.empty())
    {
        text.draw(img, static_cast<float>(margin), y, small_px, palette.grey_ink, content->context);
        y += small_px * 1.5f;
    }
    y += static_cast<float>(gap) * 0.4f;

    // Caption at the bottom: the step's text for a still picture.
    const float caption_y = draw_slide_caption(img, text, palette, words.caption, body_px,
                                               std::max(14.0f, fonts.min_text), margin, inner_w);

    // The curves of a training step take the top of the area, the maps the rest.
    int top = static_cast<int>(std::ceil(y));
    int bottom = static_cast<int>(caption_y) - gap / 2;
    const int area_w = width - 2 * margin;
    // A text model's loss strip above the caption, across the slide.
    if (!content->strip.empty())
    {
        // Its characters a little larger than the small text, the legend beside them where it fits.
        const float strip_px = std::max(fonts.min_text, small_px * 1.15f);
        const int strip_h =
            loss_strip_picture(nullptr, text, palette, content->strip, margin, 0, area_w, strip_px, small_px);
        bottom -= strip_h;
        loss_strip_picture(&img, text, palette, content->strip, margin, bottom, area_w, strip_px, small_px);
        bottom -= gap / 2;
    }
    const int max_cell = static_cast<int>(std::max(24.0f, 144.0f * s));
    const int map_gap = content->maps.size() > 4 ? gap * 2 / 3 : gap;
    if (content->curves != nullptr)
    {
        int curves_h = std::max(170, (bottom - top) * (content->maps.size() > 4 ? 24 : 30) / 100);
        curves_h = curves_height(content->maps, content->shared_scale, text, fonts, max_cell, map_gap, area_w,
                                 bottom - top - gap / 2, curves_h);
        draw_curve_plots(img, text, palette, *content->curves, content->target_steps, content->score_kind,
                         margin, top, width - 2 * margin, curves_h - static_cast<int>(small_px * 1.6f),
                         content->cursor_step, content->fit_to_run, content->until_step);
        text.draw(img, static_cast<float>(margin), static_cast<float>(top + curves_h) - small_px * 1.3f,
                  small_px, palette.grey_ink, content->curves_note);
        top += curves_h + gap / 2;
    }
    if (content->maps.empty())
    {
        if (!state.status.is_ok())
            text.draw(img, static_cast<float>(margin), static_cast<float>(top), body_px, palette.ink,
                      state.status.message());
        return img;
    }
    const int area_h = std::max(1, bottom - top);
    const GridFit fit = fit_grid(content->maps, content->shared_scale, text, fonts, max_cell, map_gap, area_w,
                                 area_h, content->shared_rows);
    const PictureFonts map_fonts = scaled(fonts, fit.font_scale);
    const std::size_t per_row = static_cast<std::size_t>(fit.per_row);
    const std::vector<HeatmapPicture> maps =
        arranged(content->maps, per_row, content->shared_scale, content->shared_rows);
    draw_map_rows(img, text, palette, maps, per_row, map_fonts, fit.cell, map_gap, margin, top, area_w,
                  area_h);
    return img;
}

} // namespace

Image render_lesson_slide(AppState& state, int width, int height, bool dark, std::string* note,
                          std::vector<std::string>* texts)
{
    const Lesson* lesson = current_lesson(state);
    const LessonStep* step = current_step(state);
    SlideWords words;
    if (lesson != nullptr)
    {
        words.over_left = lesson->title;
        words.over_right = step_counter(state);
    }
    words.heading = step != nullptr ? step->title : std::string("Attention weights");
    words.caption = step != nullptr ? slide_caption(step->text) : std::string();
    auto content = std::make_unique<SlideContent>();
    fill_content(state, *content);
    return render_slide(state, words, *content, width, height, dark, note, texts);
}

std::vector<Stage> head_chain_stages()
{
    return {Stage::X,      Stage::Q,      Stage::K,       Stage::V,       Stage::scores,
            Stage::scaled, Stage::masked, Stage::weights, Stage::head_out};
}

Image render_head_chain_slide(AppState& state, const MatrixRef& head, int width, int height, bool dark,
                              std::string* note, std::vector<std::string>* texts)
{
    auto content = std::make_unique<SlideContent>();
    content->shared_rows = true; // every map of the chain has a row per token
    if (state.has_trace())
        for (const Stage stage : head_chain_stages())
        {
            MatrixRef ref = head;
            ref.source = head.source == MatrixSource::Cross ? MatrixSource::Cross : MatrixSource::Layer;
            ref.stage = stage;
            ref.first_key_hidden = false;
            add_stage(state, *content, ref);
        }
    const std::string j = std::to_string(head.head + 1);
    SlideWords words;
    words.over_left = "One head, every step";
    words.over_right = "h = " + std::to_string(state.heads());
    words.heading = "Head " + j + ": from X to head_" + j;
    words.caption =
        "X is projected to queries Q_" + j + ", keys K_" + j + " and values V_" + j + "; Q_" + j + " K_" + j +
        "ᵀ gives the scores, divided by √d_k the scaled scores; the mask sets what a "
        "query may not see to −∞, softmax turns each row into the weights A_" +
        j + " (each row sums to 1), and A_" + j + " V_" + j + " is the head's output head_" + j + ".";
    return render_slide(state, words, *content, width, height, dark, note, texts);
}

} // namespace attnlab
