// The Pipeline's products drawn with their weight matrices: X · W_h^Q = Q_h (and K, V), Concat · W^O =
// MultiHead, the FFN's W_1 and W_2, and the packed W^Q with its h column blocks.
#include "ui/panels/pipeline_products.h"

#include "ui/shell/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <string>

namespace attnlab
{

namespace
{

// "Q_h" with the head's number for h.
std::string with_head_number(std::string symbol, int head)
{
    const std::size_t at = symbol.find('h');
    if (at != std::string::npos)
        symbol.replace(at, 1, std::to_string(head + 1));
    return symbol;
}

ProductTerm matrix_term(const MatrixRef& ref, std::string symbol)
{
    ProductTerm t;
    t.is_matrix = true;
    t.ref = ref;
    t.symbol = std::move(symbol);
    return t;
}

ProductTerm operator_term(const char* op)
{
    ProductTerm t;
    t.symbol = op;
    return t;
}

MatrixRef with_stage(MatrixRef ref, Stage stage)
{
    ref.stage = stage;
    return ref;
}

MatrixRef with_weight(MatrixRef ref, WeightMatrix w)
{
    ref.source = MatrixSource::Weight;
    ref.stage = Stage::X;
    ref.weight = w;
    return ref;
}

} // namespace

std::vector<ProductTerm> product_terms(const AppState& state, const MatrixRef& stage)
{
    std::vector<ProductTerm> terms;
    if (stage.source != MatrixSource::Layer || !state.has_trace())
        return terms;
    const bool pre_ln = state.trace().pre_ln;
    const int j = stage.head;
    switch (stage.stage)
    {
    case Stage::Q:
    case Stage::K:
    case Stage::V:
    {
        const WeightMatrix w = stage.stage == Stage::Q   ? WeightMatrix::W_Q
                               : stage.stage == Stage::K ? WeightMatrix::W_K
                                                         : WeightMatrix::W_V;
        const char* out = stage.stage == Stage::Q ? "Q_h" : stage.stage == Stage::K ? "K_h" : "V_h";
        const char* weight = stage.stage == Stage::Q ? "W_h^Q" : stage.stage == Stage::K ? "W_h^K" : "W_h^V";
        terms = {matrix_term(with_stage(stage, pre_ln ? Stage::ln1 : Stage::X), pre_ln ? "LN1(X)" : "X"),
                 operator_term("·"), matrix_term(with_weight(stage, w), with_head_number(weight, j)),
                 operator_term("="), matrix_term(stage, with_head_number(out, j))};
        break;
    }
    case Stage::mha:
        terms = {matrix_term(with_stage(stage, Stage::concat), "Concat"), operator_term("·"),
                 matrix_term(with_weight(stage, WeightMatrix::W_O), "W^O"), operator_term("="),
                 matrix_term(stage, "MultiHead")};
        break;
    case Stage::ffn:
        terms = {matrix_term(with_stage(stage, pre_ln ? Stage::ln2 : Stage::norm1), pre_ln ? "LN2" : "norm1"),
                 operator_term("·"),
                 matrix_term(with_weight(stage, WeightMatrix::W_1), "W_1"),
                 operator_term(state.trace().activation == TraceActivation::Relu ? "→ ReLU ·" : "→ GELU ·"),
                 matrix_term(with_weight(stage, WeightMatrix::W_2), "W_2"),
                 operator_term("="),
                 matrix_term(stage, "FFN")};
        break;
    default:
        break;
    }
    // Every matrix must be there (a trained model without an FFN has no W_1).
    for (const ProductTerm& t : terms)
        if (t.is_matrix && resolve_matrix(state, t.ref).m == nullptr)
            return {};
    return terms;
}

namespace
{

// A term's map as drawn in the row: its options, and the width of the whole widget.
struct RowMap
{
    MatrixView view;
    HeatmapOptions options;
    HeatmapMargins margins;
    bool too_large = false; // more than kMaxWeightCells: a note instead of the map
};

// Name (in the head's colour for a head's matrix, the accent for the model's other weights) and shape,
// cut to `width`.
void term_title(const ProductTerm& term, const MatrixView& view, float width)
{
    const bool weight = term.ref.source == MatrixSource::Weight;
    const bool per_head = weight ? weight_per_head(term.ref.weight) : stage_info(term.ref.stage).per_head;
    if (per_head)
        ImGui::PushStyleColor(ImGuiCol_Text, head_text_color(term.ref.head));
    else if (weight)
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_PlotHistogram]);
    ImGui::TextUnformatted(term.symbol.c_str());
    if (per_head || weight)
        ImGui::PopStyleColor();
    // "d_model×d_k = 16×4", or "16×4" when the symbols do not fit.
    std::string shape = view.shape;
    if (ImGui::CalcTextSize(shape.c_str()).x > width)
    {
        const std::size_t eq = shape.find(" = ");
        if (eq != std::string::npos)
            shape = shape.substr(eq + 3);
    }
    ImGui::TextDisabled("%s", shape.c_str());
}

} // namespace

namespace
{

// How a row is laid out: each map's options, each term's width and image height, and where lines break.
struct RowPlan
{
    std::vector<RowMap> maps;
    std::vector<float> width, image_h;
    std::vector<bool> breaks;
    int lines = 1;
};

// weight_bars: the weight matrices have their colour bars (a row too wide for one line goes without them
// before it goes without its weights).
RowPlan plan_row(AppState& state, const std::vector<ProductTerm>& terms, const HeatmapOptions& base,
                 bool weight_bars = true)
{
    RowPlan plan;
    const ImGuiStyle& style = ImGui::GetStyle();
    const float fs = ImGui::GetFontSize();
    const float title_h = ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(kProductTitleLines);
    std::vector<RowMap>& maps = plan.maps;
    maps.resize(terms.size());
    float chrome = 0.0f, ops = 0.0f, cols = 0.0f;
    for (std::size_t k = 0; k < terms.size(); ++k)
    {
        if (!terms[k].is_matrix)
        {
            ops += ImGui::CalcTextSize(terms[k].symbol.c_str()).x;
            continue;
        }
        RowMap& m = maps[k];
        m.view = resolve_matrix(state, terms[k].ref);
        m.too_large = m.view.m != nullptr && m.view.m->size() > kMaxWeightCells;
        m.options.max_height = base.max_height;
        if (base.max_total_height > 0.0f) // the titles' lines are the caller's (lesson_heatmap_height)
            m.options.max_total_height = std::max(fs * 3.0f, base.max_total_height);
        if (k + 1 == terms.size()) // a lesson's frame on the stage it names: the product
        {
            m.options.frame_color = base.frame_color;
            m.options.frame_thickness = base.frame_thickness;
        }
        // The product's rows are the input's: its tokens are named once, at the left. The input's colour
        // bar is its own stage's, just above.
        // (When the input is named instead of drawn, the product names them.)
        m.options.row_labels = k == 0 || terms[k].ref.source == MatrixSource::Weight ||
                               (k + 1 == terms.size() && !terms[0].is_matrix);
        m.options.colorbar = k > 0 && (weight_bars || terms[k].ref.source != MatrixSource::Weight);
        if (m.view.m == nullptr || m.too_large)
            continue;
        m.margins = heatmap_margins(m.view, m.options);
        chrome += m.margins.left + m.margins.right;
        cols += static_cast<float>(m.view.m->cols());
    }
    // One cell size for every map, so that X's columns line up with W's rows as in a product; a map never
    // narrower than a few characters (Q_h at d_k = 4 beside X at d_model = 1024), nor wider than the panel.
    // When the row cannot fit at cells of a few pixels (the FFN's four maps), it goes on over more lines.
    const float avail = ImGui::GetContentRegionAvail().x;
    const float gap = style.ItemSpacing.x;
    const float gaps = gap * static_cast<float>(terms.size() - 1);
    const float min_image = fs * 2.0f;
    const float min_cell = 4.0f;
    const float max_cell = std::max(40.0f, ImGui::CalcTextSize("-0.00").x + 10.0f);
    std::vector<float>& width = plan.width;
    std::vector<float>& image_h = plan.image_h;
    const auto size_maps = [&]
    {
        const float room = avail - chrome - ops - gaps - 1.0f;
        float cell = cols > 0.0f ? std::clamp(room / cols, 0.05f, max_cell) : max_cell;
        // Maps held at their minimum width take room from the others.
        float narrow = 0.0f, narrow_cols = 0.0f;
        for (const RowMap& m : maps)
            if (m.view.m != nullptr && !m.too_large &&
                static_cast<float>(m.view.m->cols()) * cell < min_image)
            {
                narrow += min_image;
                narrow_cols += static_cast<float>(m.view.m->cols());
            }
        if (narrow > 0.0f && cols > narrow_cols)
            cell = std::clamp((room - narrow) / (cols - narrow_cols), 0.05f, max_cell);
        cell = std::max(cell, min_cell);

        // Each term's width and its image's height (the operators sit level with the middle of the map before
        // them on their line, or after them when they start it).
        width.assign(terms.size(), 0.0f);
        image_h.assign(terms.size(), fs);
        for (std::size_t k = 0; k < terms.size(); ++k)
        {
            RowMap& m = maps[k];
            if (!terms[k].is_matrix)
                width[k] = ImGui::CalcTextSize(terms[k].symbol.c_str()).x;
            else if (m.view.m == nullptr)
                width[k] = ImGui::CalcTextSize("(not available)").x;
            else if (m.too_large)
                width[k] = fs * 9.0f;
            else
            {
                const float c = static_cast<float>(m.view.m->cols());
                const float image_w = std::min(std::max(min_image, c * cell),
                                               std::max(min_image, avail - m.margins.left - m.margins.right));
                m.options.width = m.margins.left + image_w + m.margins.right;
                m.options.max_cell_px = image_w / c;
                width[k] = m.options.width;
                float h = static_cast<float>(m.view.m->rows()) * std::max(image_w / c, fs);
                if (m.options.max_height > 0.0f)
                    h = std::min(h, m.options.max_height);
                if (m.options.max_total_height > 0.0f)
                    h = std::min(h, m.options.max_total_height - 2.0f * fs);
                image_h[k] = h;
            }
        }
    };
    size_maps();
    // Rows too short for a label each carry their index ("i=4 September"), which draw_heatmap makes room
    // for: counted here too, or that map's image gives the room up (Q_h at 5 x 4 came out 18 pixels wide).
    bool widened = false;
    for (std::size_t k = 0; k < terms.size(); ++k)
    {
        RowMap& m = maps[k];
        if (!terms[k].is_matrix || m.view.m == nullptr || m.too_large || m.view.m->rows() == 0 ||
            !heatmap_row_labels_thinned(m.view, m.options, image_h[k] / static_cast<float>(m.view.m->rows())))
            continue;
        const float need = heatmap_thinned_row_label_room(m.view, m.options);
        if (need > m.margins.left)
        {
            chrome += need - m.margins.left;
            m.margins.left = need;
            widened = true;
        }
    }
    if (widened)
        size_maps();

    // Where the lines break; a height given for the whole row is shared by its lines.
    std::vector<bool>& breaks = plan.breaks;
    breaks.assign(terms.size(), false);
    int& lines = plan.lines;
    for (std::size_t k = 1, x = 0; k < terms.size(); ++k)
    {
        float used = 0.0f;
        for (std::size_t i = x; i < k; ++i)
            used += width[i] + (i > x ? gap : 0.0f);
        if (used + gap + width[k] > avail + 0.5f) // the cells were sized to fill the line exactly
        {
            breaks[k] = true;
            x = k;
            ++lines;
        }
    }
    if (base.max_total_height > 0.0f && lines > 1)
        for (std::size_t k = 0; k < terms.size(); ++k)
            if (maps[k].options.max_total_height > 0.0f)
            {
                maps[k].options.max_total_height = std::max(
                    fs * 3.0f, (base.max_total_height + title_h) / static_cast<float>(lines) - title_h);
                image_h[k] = std::min(image_h[k], maps[k].options.max_total_height - 2.0f * fs);
            }
    return plan;
}

void draw_planned_row(AppState& state, const std::vector<ProductTerm>& terms, RowPlan& plan)
{
    const ImGuiStyle& style = ImGui::GetStyle();
    const float fs = ImGui::GetFontSize();
    const float title_h = ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(kProductTitleLines);
    const float gap = style.ItemSpacing.x;
    std::vector<RowMap>& maps = plan.maps;
    const std::vector<float>& width = plan.width;
    const std::vector<float>& image_h = plan.image_h;
    const std::vector<bool>& breaks = plan.breaks;
    const float left = ImGui::GetCursorPosX();
    float top = ImGui::GetCursorPosY();
    float line_end = left;   // where the last item on the line ends
    float line_bottom = top; // and where its tallest item ends
    // An item's far corner in the window's coordinates (as GetCursorPos).
    auto item_end = []
    {
        const ImVec2 max = ImGui::GetItemRectMax();
        return ImVec2(max.x - ImGui::GetWindowPos().x + ImGui::GetScrollX(),
                      max.y - ImGui::GetWindowPos().y + ImGui::GetScrollY());
    };
    for (std::size_t k = 0; k < terms.size(); ++k)
    {
        if (k > 0)
        {
            if (!breaks[k])
                ImGui::SameLine(0.0f, gap);
            else
            {
                // Under the tallest map of this line (an operator, lower down, may have been its last item).
                top = line_bottom + style.ItemSpacing.y * 2.0f;
                ImGui::SetCursorPos(ImVec2(left, top));
                line_end = left;
            }
        }
        ImGui::PushID(static_cast<int>(k));
        if (!terms[k].is_matrix)
        {
            const bool starts_line = line_end == left;
            // Alone on its line ("→ GELU ·" when W_2 does not fit after it): a line of its own above the next
            // map, which goes under it (not level with that map's middle, where its row labels are).
            const bool alone = starts_line && (k + 1 >= terms.size() || breaks[k + 1]);
            const float beside = !starts_line ? image_h[k - 1] : k + 1 < terms.size() ? image_h[k + 1] : fs;
            ImGui::SetCursorPosY(alone ? top : top + title_h + std::max(0.0f, beside * 0.5f - fs * 0.5f));
            ImGui::TextUnformatted(terms[k].symbol.c_str());
            line_end = item_end().x;
            line_bottom = std::max(line_bottom, item_end().y);
            ImGui::PopID();
            continue;
        }
        ImGui::SetCursorPosY(top); // every map's title on its line's first line
        RowMap& m = maps[k];
        ImGui::BeginGroup();
        if (m.view.m == nullptr)
            ImGui::TextDisabled("(not available)");
        else if (m.too_large)
        {
            // A texture of more than 4 million cells costs more than it shows: the name, shape and reason.
            term_title(terms[k], m.view, width[k]);
            ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width[k]);
            ImGui::TextDisabled("too large to draw (over %ld cells)", kMaxWeightCells);
            ImGui::PopTextWrapPos();
        }
        else
        {
            term_title(terms[k], m.view, m.options.width);
            draw_heatmap(state, terms[k].ref, m.options);
        }
        ImGui::EndGroup();
        line_end = item_end().x;
        line_bottom = std::max(line_bottom, item_end().y);
        ImGui::PopID();
    }
    // What follows goes under the last line's tallest map.
    ImGui::SetCursorPos(ImVec2(left, std::max(ImGui::GetCursorPosY(), line_bottom + style.ItemSpacing.y)));
    ImGui::Dummy(ImVec2(0.0f, 0.0f));
}

} // namespace

bool draw_product_row(AppState& state, const std::vector<ProductTerm>& terms, const HeatmapOptions& base)
{
    if (terms.empty())
        return false;
    // The input by name only, "X · W_h^K = K_h": it is drawn as its own stage above.
    auto named = [&]
    {
        std::vector<ProductTerm> out = {operator_term((terms[0].symbol + " " + terms[1].symbol).c_str())};
        out.insert(out.end(), terms.begin() + 2, terms.end());
        return out;
    };
    const bool can_name = terms.size() >= 3 && terms[0].is_matrix;
    // The queries' row draws X too, as the product X · W_h^Q = Q_h reads; the others name their input, so
    // the same X is not drawn four times.
    const bool input_drawn = can_name && terms.back().ref.stage == Stage::Q;
    std::vector<ProductTerm> shown = can_name && !input_drawn ? named() : terms;
    RowPlan plan = plan_row(state, shown, base);
    if (plan.lines > 1 && input_drawn) // too wide for one line: X by name only
    {
        shown = named();
        plan = plan_row(state, shown, base);
    }
    if (plan.lines > 1) // still: the weights without their colour bars (the hover and Inspector give values)
        plan = plan_row(state, shown, base, false);
    // A lesson's stage must fit its share of the height: on more lines it is drawn without its weights.
    if (plan.lines > 1 && base.max_total_height > 0.0f)
        return false;
    draw_planned_row(state, shown, plan);
    return true;
}

void draw_packed_weights(AppState& state, const MatrixRef& stage, float max_height)
{
    state.ensure_packed_weights(stage.layer);
    MatrixRef ref = stage;
    ref.source = MatrixSource::Weight;
    ref.stage = Stage::X;
    ref.weight = WeightMatrix::W_Q_packed;
    const MatrixView view = resolve_matrix(state, ref);
    if (view.m == nullptr)
        return;
    const int h = state.heads();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_PlotHistogram]);
    ImGui::TextUnformatted("W^Q (packed)");
    ImGui::PopStyleColor();
    ImGui::SameLine();
    ImGui::TextDisabled("%s", view.shape.c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    text_wrappedf("Libraries store the h matrices W_h^Q side by side as one W^Q = [W_1^Q | … | W_%d^Q]: "
                  "its column block h is W_h^Q (head %d's framed), so X W^Q = [Q_1 | … | Q_%d].",
                  h, stage.head + 1, h);
    ImGui::PopStyleColor();
    if (view.m->size() > kMaxWeightCells)
    {
        ImGui::TextDisabled("(too large to draw: over %ld cells)", kMaxWeightCells);
        return;
    }
    HeatmapOptions options;
    options.max_height = max_height;
    options.max_cell_px = std::max(24.0f, ImGui::GetFontSize() * 1.6f);
    options.highlight_block = stage.head;
    options.block_color = head_color(stage.head);
    ImGui::PushID("packed");
    draw_heatmap(state, ref, options);
    ImGui::PopID();
}

} // namespace attnlab
