// AppState: recompute once per edit on the worker, keep the selection in range, resolve matrix references.
#include "ui/model/app_state.h"

#include "core/train/readouts.h"

#include "ui/model/lessons.h"
#include "ui/picture/heatmap_math.h"

#include "core/softmax.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace attnlab
{

// [SECTION] Comparisons of small structs

bool MatrixRef::operator==(const MatrixRef& o) const
{
    if (source != o.source || b != o.b)
        return false;
    if (source == MatrixSource::Comparison)
        return comparison == o.comparison && layer == o.layer && head == o.head;
    if (source == MatrixSource::Weight)
        return weight == o.weight && layer == o.layer && (!weight_per_head(weight) || head == o.head);
    const bool per_head = stage_info(stage).per_head;
    return stage == o.stage && (source == MatrixSource::Cross || layer == o.layer) &&
           (!per_head || head == o.head) && first_key_hidden == o.first_key_hidden;
}

bool ViewPrefs::operator==(const ViewPrefs& o) const
{
    return dark_theme == o.dark_theme && font_size == o.font_size && numbers_in_cells == o.numbers_in_cells &&
           stretch_weights == o.stretch_weights && open == o.open && places == o.places &&
           presenter_light == o.presenter_light && pipeline_weights == o.pipeline_weights &&
           whole_batch == o.whole_batch;
}

// [SECTION] Frame and recompute

namespace
{

// Hands the session to the worker unless it has this version already. Returns true when the worker was idle
// (the run starts now).
bool request_run(AppState& s)
{
    if (s.requested_version == s.session_version && s.recompute.busy())
        return false;
    const bool idle = !s.recompute.busy();
    // An opened model runs the text unless a lesson's step (its own session) is on screen.
    OpenedRequest opened;
    if (s.lesson.lesson < 0 && s.opened.model)
    {
        opened.model = s.opened.model;
        opened.heads_off = s.opened.heads_off;
        opened.lens = s.opened.lens_wanted && !s.opened.lens_hidden;
    }
    s.opened.lens_requested = opened.lens;
    // Both cores for the products, unless a training run has one of them.
    s.recompute.request(s.session, s.engine.shared_imported_weights(), s.session_version, std::move(opened),
                        s.training_run.running());
    s.requested_version = s.session_version;
    return idle;
}

void take_result(AppState& s, const RecomputeResult& r)
{
    if (r.opened && r.status.is_ok())
        ++s.opened.generation;
    s.status = r.status;
    s.recompute_ms = r.ms;
    s.recompute_threads = r.threads;
    s.computed_version = r.version;
    s.clamp_selection();
}

} // namespace

bool AppState::update()
{
    if (session_version == computed_version)
        return false;
    if (recompute_wait_ms < 0.0)
    {
        finish_recompute();
        return true;
    }
    // Waiting is worth it only for a run that starts now and should be quick, as the last one was.
    const bool started = request_run(*this);
    const bool wait = started && recompute_ms <= recompute_wait_ms;
    RecomputeResult r;
    const auto budget = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double, std::milli>(wait ? recompute_wait_ms : 0.0));
    if (!recompute.take(engine, &r, budget, &opened.run))
        return false;
    take_result(*this, r);
    return true;
}

void AppState::finish_recompute()
{
    while (session_version != computed_version)
    {
        request_run(*this);
        RecomputeResult r;
        if (recompute.take_when_done(engine, &r, &opened.run))
            take_result(*this, r);
    }
}

void AppState::clamp_selection()
{
    if (!has_trace())
        return;
    const Trace& t = trace();
    sel.layer = std::clamp(sel.layer, 0, std::max(0, static_cast<int>(t.layers.size()) - 1));
    sel.b = std::clamp(sel.b, 0, std::max(0, t.batch_size() - 1));
    sel.head = std::clamp(sel.head, 0, std::max(0, heads() - 1));
    follow_query_pin(heads_panel.query, *query_tokens(false));
    if (t.has_cross)
        follow_query_pin(heads_panel.cross_query, *query_tokens(true));
    else
        heads_panel.cross_query = QueryPin{};
    if (pinned.valid)
    {
        const MatrixView v = resolve_matrix(*this, pinned.matrix);
        if (v.m == nullptr || pinned.row >= v.m->rows() || pinned.col >= v.m->cols())
            pinned.valid = false;
    }
}

void AppState::begin_frame()
{
    hovered = hovered_next;
    hovered_next = CellRef{};
    heads_hover_row = heads_hover_row_next;
    heads_hover_row_next = -1;
    maps_pending = false;
    opened.lens_hidden = !opened.lens_drawn;
    opened.lens_drawn = false;
    ++opened.frame;
    release_unread_layers(opened, kKeepUnreadLayerFrames);
}

int AppState::heads() const
{
    if (!has_trace())
        return 0;
    return trace().layers.front().attn.n_heads;
}

void AppState::select_head(int j)
{
    const int h = heads();
    if (h <= 0)
        return;
    sel.head = ((j % h) + h) % h;
}

const std::vector<std::string>* AppState::query_tokens(bool cross) const
{
    if (!has_trace() || sel.b < 0 || sel.b >= trace().batch_size())
        return nullptr;
    const Trace& t = trace();
    if (cross)
        return t.has_cross ? &t.cross.target.tokens[static_cast<std::size_t>(sel.b)] : nullptr;
    return &t.tokens.tokens[static_cast<std::size_t>(sel.b)];
}

int AppState::shown_query(bool cross) const
{
    const std::vector<std::string>* tokens = query_tokens(cross);
    if (tokens == nullptr)
        return -1;
    const int T = static_cast<int>(tokens->size());
    const QueryPin& pin = cross ? heads_panel.cross_query : heads_panel.query;
    const bool hover_here = (heads_panel.view == HeadsView::Cross) == cross;
    if (hover_here && heads_hover_row >= 0 && heads_hover_row < T)
        return heads_hover_row;
    return pin.row < T ? pin.row : -1;
}

void AppState::unpin_queries()
{
    heads_panel.query = QueryPin{};
    heads_panel.cross_query = QueryPin{};
}

// [SECTION] Pinned query tokens

void set_query_pin(QueryPin& pin, int row, const std::vector<std::string>& tokens)
{
    if (tokens.empty())
    {
        pin = QueryPin{};
        return;
    }
    pin.row = std::clamp(row, 0, static_cast<int>(tokens.size()) - 1);
    pin.token = tokens[static_cast<std::size_t>(pin.row)];
    pin.T = static_cast<int>(tokens.size());
}

void toggle_query_pin(QueryPin& pin, int row, const std::vector<std::string>& tokens)
{
    if (row < 0 || row >= static_cast<int>(tokens.size()) ||
        (pin.row == row && pin.T == static_cast<int>(tokens.size())))
        pin = QueryPin{};
    else
        set_query_pin(pin, row, tokens);
}

void follow_query_pin(QueryPin& pin, const std::vector<std::string>& tokens)
{
    if (!pin.valid())
        return;
    const int T = static_cast<int>(tokens.size());
    if (T == pin.T && pin.row < T)
    {
        pin.token = tokens[static_cast<std::size_t>(pin.row)];
        return;
    }
    // Another T: the same word, where it is now (the nearest occurrence to where it was).
    int best = -1;
    for (int i = 0; i < T; ++i)
        if (tokens[static_cast<std::size_t>(i)] == pin.token &&
            (best < 0 || std::abs(i - pin.row) < std::abs(best - pin.row)))
            best = i;
    if (best < 0)
        pin = QueryPin{};
    else
        set_query_pin(pin, best, tokens);
}

void AppState::set_message(std::string text, bool is_error)
{
    message = std::move(text);
    message_is_error = is_error;
}

void AppState::add_error(const std::string& text)
{
    if (message_is_error && !message.empty())
        set_message(message + "  |  " + text, true);
    else
        set_message(text, true);
}

void reset_panels(AppState& state)
{
    state.prefs.places = {};
    for (const PanelFacts& p : kPanelTable)
        state.prefs.open[static_cast<std::size_t>(p.id)] = p.open;
    if (lesson_active(state))
    {
        state.prefs.open[static_cast<std::size_t>(PanelId::Lesson)] = true;
        if (const PanelId view = lesson_view_panel(state); view != PanelId::Count)
            state.prefs.open[static_cast<std::size_t>(view)] = true;
    }
}

void toggle_panel(AppState& state, PanelId id)
{
    auto& open = state.prefs.open;
    bool& this_open = open[static_cast<std::size_t>(id)];
    const PanelColumn column = panel_facts(id).column;
    if (!this_open || column == PanelColumn::Over || column == PanelColumn::Left)
    {
        this_open = !this_open;
        return;
    }
    std::string covering;
    for (const PanelFacts& p : kPanelTable)
        if (p.column == PanelColumn::Over && open[static_cast<std::size_t>(p.id)])
        {
            open[static_cast<std::size_t>(p.id)] = false;
            covering +=
                std::string(covering.empty() ? "" : ", ") + p.title + " (" + panel_shortcut(p.id) + ")";
        }
    if (covering.empty())
        this_open = false;
    else
        state.set_message(std::string(panel_facts(id).title) + " is in front: " + covering +
                              ", which covered it, is closed; its key opens it again.",
                          false);
}

void AppState::ensure_comparisons()
{
    if (!has_trace())
        return;
    // An odd multiplier keeps distinct generations (seeded or trained) apart in the high bits.
    const std::uint64_t key = (static_cast<std::uint64_t>(trace_generation()) * 0x9E3779B97F4A7C15ull) ^
                              (static_cast<std::uint64_t>(sel.layer) << 24) ^
                              (static_cast<std::uint64_t>(sel.b) << 12) ^
                              static_cast<std::uint64_t>(sel.head);
    if (key == comparisons_key)
        return;
    layer_weights(sel.layer); // an opened model's layer filled before weights() is read
    compute_comparisons(trace(), weights(), sel.layer, sel.b, sel.head, comparisons);
    comparisons_key = key;
    ++comparisons_version;
}

const LayerWeights* AppState::layer_weights(int layer) const
{
    if (showing_opened())
        return opened_layer_weights(opened, layer);
    const ModelWeights& w = weights();
    if (layer < 0 || layer >= static_cast<int>(w.layers.size()))
        return nullptr;
    return &w.layers[static_cast<std::size_t>(layer)];
}

void AppState::ensure_packed_weights(int layer)
{
    const LayerWeights* lw = layer_weights(layer);
    if (!has_trace() || lw == nullptr)
        return;
    if (packed_W_Q_layer == layer && packed_W_Q_generation == weights_generation())
        return;
    pack_heads(lw->attn.W_Q, packed_W_Q);
    packed_W_Q_layer = layer;
    packed_W_Q_generation = weights_generation();
}

// [SECTION] Resolving matrices

namespace
{

bool cols_are_keys(Stage stage)
{
    return stage_info(stage).cols_are_keys();
}

std::string layer_key(const MatrixRef& ref)
{
    const StageInfo& info = stage_info(ref.stage);
    std::string key = ref.source == MatrixSource::Cross ? "cross" : "L" + std::to_string(ref.layer);
    key += "/b" + std::to_string(ref.b) + "/" + info.key;
    if (info.per_head)
        key += "/h" + std::to_string(ref.head);
    return key;
}

// A comparison matrix's facts, one row per ComparisonMatrix in the enum's order: its key, where it lives and
// what its heatmap says (single_weights and W_collapsed add theirs in resolve_comparison).
struct ComparisonInfo
{
    ComparisonMatrix id;
    const char* key;          // "Q_packed": the texture cache key's last part
    Mat Comparisons::*matrix; // where it lives
    const char* title;
    const char* equation;
    const char* shape;    // the shape's symbols, "T×d_k"
    const char* col_axis; // what a column is
};

// clang-format off
constexpr std::array<ComparisonInfo, static_cast<std::size_t>(ComparisonMatrix::Count)> kComparisonTable = {{
    {ComparisonMatrix::Q_packed, "Q_packed", &Comparisons::Q_packed,
     "X W^Q (packed)", "X [W_1^Q | … | W_h^Q]: column block h is Q_h", "T×h·d_k", "feature (h·d_k)"},
    {ComparisonMatrix::Q_two_step, "Q_two_step", &Comparisons::Q_two_step,
     "Two steps: (X W^Q) W_h^Q", "q = x W^Q, then q W_h^Q", "T×d_k", "feature (d_k)"},
    {ComparisonMatrix::Q_collapsed, "Q_collapsed", &Comparisons::Q_collapsed,
     "Collapsed: X (W^Q W_h^Q)", "one matrix W^Q W_h^Q", "T×d_k", "feature (d_k)"},
    {ComparisonMatrix::Q_difference, "Q_difference", &Comparisons::Q_difference,
     "Difference: two steps − collapsed", "(X W^Q) W_h^Q − X (W^Q W_h^Q)", "T×d_k", "feature (d_k)"},
    {ComparisonMatrix::W_collapsed, "W_collapsed", &Comparisons::W_collapsed,
     "W^Q W_h^Q", "the product of two linear maps is one linear map", "d_model×d_k", "feature (d_k)"},
    {ComparisonMatrix::single_weights, "single_weights", &Comparisons::single_weights,
     "Single-head weights", "softmax((X W^Q (X W^K)ᵀ / √(h·d_k) + M) / τ)", "T×T", "key"},
    {ComparisonMatrix::single_out, "single_out", &Comparisons::single_out,
     "Single-head output", "A (X W^V) W^O", "T×d_model", "feature (d_model)"},
}};
// clang-format on

constexpr bool comparison_table_in_order()
{
    for (std::size_t i = 0; i < kComparisonTable.size(); ++i)
        if (static_cast<std::size_t>(kComparisonTable[i].id) != i)
            return false;
    return true;
}
static_assert(comparison_table_in_order(),
              "kComparisonTable: one row per ComparisonMatrix, in the enum's order");

const char* comparison_key(ComparisonMatrix c)
{
    const auto i = static_cast<std::size_t>(c);
    return i < kComparisonTable.size() ? kComparisonTable[i].key : "?";
}

void resolve_comparison(const AppState& state, const MatrixRef& ref, MatrixView& v)
{
    const Comparisons& c = state.comparisons;
    if (state.comparisons_version == 0 || c.b >= state.trace().batch_size())
        return;
    const Trace& t = state.trace();
    const std::vector<std::string>* tokens = &t.tokens.tokens[static_cast<std::size_t>(c.b)];
    v.row_tokens = tokens;
    v.version = state.comparisons_version;
    v.key = std::string("cmp/") + comparison_key(ref.comparison);
    v.row_axis = "position";
    const auto index = static_cast<std::size_t>(ref.comparison);
    if (index >= kComparisonTable.size())
        return;
    const ComparisonInfo& info = kComparisonTable[index];
    const Mat& m = c.*info.matrix;
    const int T = t.T();
    auto shape = [](const char* sym, long r, long cols)
    { return std::string(sym) + " = " + std::to_string(r) + "×" + std::to_string(cols); };
    v.m = &m;
    v.title = info.title;
    v.equation = info.equation;
    v.shape = shape(info.shape, T, m.cols());
    v.col_axis = info.col_axis;
    switch (ref.comparison)
    {
    case ComparisonMatrix::Q_packed:
        v.column_blocks = state.heads() > 0 ? static_cast<int>(m.cols()) / state.heads() : 0;
        break;
    case ComparisonMatrix::Q_difference:
        // Its own colour scale (the values are ~1e-7, nothing like the products'), and its largest size said.
        v.equation = "largest |difference| = " + format_value(c.two_step_max_diff);
        break;
    case ComparisonMatrix::W_collapsed:
        v.row_tokens = nullptr;
        v.shape = shape(info.shape, m.rows(), m.cols());
        v.row_axis = "feature (d_model)";
        break;
    case ComparisonMatrix::single_weights:
        v.col_tokens = tokens;
        v.probability = true;
        v.stretch = state.prefs.stretch_weights;
        if (!t.config.scale)
            v.equation = "softmax((X W^Q (X W^K)ᵀ + M) / τ)";
        v.shape = shape(info.shape, T, T);
        v.row_axis = "query";
        // The same mask as the layer's heads: its −∞ cells are drawn as masked, not as a weight of 0.
        if (c.layer < static_cast<int>(t.layers.size()))
            v.mask = &t.layers[static_cast<std::size_t>(c.layer)].attn.mask[static_cast<std::size_t>(c.b)];
        break;
    default:
        break;
    }
    if (v.m->size() == 0)
        v.m = nullptr;
}

// A weight matrix's facts, one row per WeightMatrix in the enum's order.
struct WeightInfo
{
    WeightMatrix id;
    const char* key;      // "W_Q": the texture cache key's and file name's part
    const char* name;     // "W_h^Q"
    const char* equation; // where the model uses it
    const char* rows;     // the shape's symbols
    const char* cols;
    const char* row_axis;
    const char* col_axis;
    bool per_head;
};

// clang-format off
constexpr std::array<WeightInfo, static_cast<std::size_t>(WeightMatrix::Count)> kWeightTable = {{
    {WeightMatrix::W_Q, "W_Q", "W_h^Q", "Q_h = X W_h^Q: column c of W_h^Q makes column c of Q_h",
     "d_model", "d_k", "input feature (d_model)", "query feature (d_k)", true},
    {WeightMatrix::W_K, "W_K", "W_h^K", "K_h = X W_h^K: column c of W_h^K makes column c of K_h",
     "d_model", "d_k", "input feature (d_model)", "key feature (d_k)", true},
    {WeightMatrix::W_V, "W_V", "W_h^V", "V_h = X W_h^V: column c of W_h^V makes column c of V_h",
     "d_model", "d_v", "input feature (d_model)", "value feature (d_v)", true},
    {WeightMatrix::W_O, "W_O", "W^O", "MultiHead = Concat(head_1, …, head_h) W^O: rows in h blocks of d_v",
     "h·d_v", "d_model", "concat feature (h·d_v)", "output feature (d_model)", false},
    {WeightMatrix::W_1, "W_1", "W_1", "FFN(x) = max(0, x W_1 + b_1) W_2 + b_2: the first matrix",
     "d_model", "d_ff", "input feature (d_model)", "hidden unit (d_ff)", false},
    {WeightMatrix::W_2, "W_2", "W_2", "FFN(x) = max(0, x W_1 + b_1) W_2 + b_2: the second matrix",
     "d_ff", "d_model", "hidden unit (d_ff)", "output feature (d_model)", false},
    {WeightMatrix::W_Q_packed, "W_Q_packed", "W^Q (packed)",
     "W^Q = [W_1^Q | … | W_h^Q]: column block h is W_h^Q, so X W^Q holds every Q_h side by side",
     "d_model", "h·d_k", "input feature (d_model)", "query feature of every head (h·d_k)", false},
}};
// clang-format on

constexpr bool weight_table_in_order()
{
    for (std::size_t i = 0; i < kWeightTable.size(); ++i)
        if (static_cast<std::size_t>(kWeightTable[i].id) != i)
            return false;
    return true;
}
static_assert(weight_table_in_order(), "kWeightTable: one row per WeightMatrix, in the enum's order");

const WeightInfo& weight_info(WeightMatrix w)
{
    const auto i = static_cast<std::size_t>(w);
    return kWeightTable[i < kWeightTable.size() ? i : 0];
}

// "W_2^Q": the name with the head's number in place of h.
std::string weight_title(WeightMatrix w, int head)
{
    std::string name = weight_info(w).name;
    if (weight_per_head(w))
        name.replace(name.find('h'), 1, std::to_string(head + 1));
    return name;
}

void resolve_weight(const AppState& state, const MatrixRef& ref, MatrixView& v)
{
    const LayerWeights* layer = state.layer_weights(ref.layer);
    if (layer == nullptr)
        return;
    const LayerWeights& lw = *layer;
    const auto head = static_cast<std::size_t>(ref.head);
    const bool per_head = weight_per_head(ref.weight);
    if (per_head && (ref.head < 0 || ref.head >= static_cast<int>(lw.attn.W_Q.size())))
        return;
    switch (ref.weight)
    {
    case WeightMatrix::W_Q:
        v.m = &lw.attn.W_Q[head];
        break;
    case WeightMatrix::W_K:
        v.m = &lw.attn.W_K[head];
        break;
    case WeightMatrix::W_V:
        v.m = &lw.attn.W_V[head];
        break;
    case WeightMatrix::W_O:
        v.m = &lw.attn.W_O;
        break;
    case WeightMatrix::W_1:
        v.m = &lw.W_1;
        break;
    case WeightMatrix::W_2:
        v.m = &lw.W_2;
        break;
    case WeightMatrix::W_Q_packed:
        if (state.packed_W_Q_layer != ref.layer || state.packed_W_Q_generation != state.weights_generation())
            return; // ensure_packed_weights(layer) has not run for these weights
        v.m = &state.packed_W_Q;
        break;
    default:
        return;
    }
    if (v.m->size() == 0)
    {
        v.m = nullptr;
        return;
    }
    const WeightInfo& info = weight_info(ref.weight);
    v.title = weight_title(ref.weight, ref.head);
    if (per_head)
        v.title += "  (head " + std::to_string(ref.head + 1) + ")";
    v.equation = info.equation;
    if (state.trace().pre_ln && per_head)
        v.equation.replace(v.equation.find(" X "), 3, " LN1(X) ");
    v.shape = std::string(info.rows) + "×" + info.cols + " = " + std::to_string(v.m->rows()) + "×" +
              std::to_string(v.m->cols());
    v.row_axis = info.row_axis;
    v.col_axis = info.col_axis;
    const int h = state.heads();
    if (ref.weight == WeightMatrix::W_Q_packed && h > 0)
        v.column_blocks = static_cast<int>(v.m->cols()) / h;
    v.key = "W/L" + std::to_string(ref.layer) + "/" + info.key;
    if (per_head)
        v.key += "/h" + std::to_string(ref.head);
    v.version = state.weights_generation();
}

} // namespace

bool weight_per_head(WeightMatrix w)
{
    return w == WeightMatrix::W_Q || w == WeightMatrix::W_K || w == WeightMatrix::W_V;
}

MatrixView resolve_matrix(const AppState& state, const MatrixRef& ref)
{
    MatrixView v;
    if (!state.has_trace())
        return v;
    const Trace& t = state.trace();
    if (ref.b < 0 || ref.b >= t.batch_size())
        return v;
    if (ref.source == MatrixSource::Comparison)
    {
        resolve_comparison(state, ref, v);
        return v;
    }
    if (ref.source == MatrixSource::Weight)
    {
        resolve_weight(state, ref, v);
        return v;
    }
    const StageInfo& info = stage_info(ref.stage);
    const bool cross = ref.source == MatrixSource::Cross;
    if (info.per_head && (ref.head < 0 || ref.head >= state.heads()))
        return v;
    const std::vector<std::string>* source_tokens = &t.tokens.tokens[static_cast<std::size_t>(ref.b)];
    if (cross)
    {
        if (!t.has_cross || (!info.attention_block && ref.stage != Stage::X))
            return v;
        const std::vector<std::string>* target_tokens =
            &t.cross.target.tokens[static_cast<std::size_t>(ref.b)];
        if (ref.stage == Stage::X)
            v.m = &t.cross.X_q[static_cast<std::size_t>(ref.b)];
        else
            v.m = &attention_stage_matrix(t.cross.attn, ref.stage, ref.b, ref.head);
        const bool key_rows = ref.stage == Stage::K || ref.stage == Stage::V;
        v.row_tokens = key_rows ? source_tokens : target_tokens;
        v.col_tokens = cols_are_keys(ref.stage) ? source_tokens : nullptr;
        v.title = ref.stage == Stage::X ? std::string("X_q (target)") : std::string(info.name);
    }
    else
    {
        // Input and output stages (embedding, logits, ...) belong to no layer; a stage the trace does not
        // have (a trained model's, in a seeded session) resolves to nothing.
        v.m = find_stage_matrix(t, ref.stage, ref.layer, ref.b, ref.head);
        if (v.m == nullptr)
            return v;
        v.row_tokens = source_tokens;
        v.col_tokens = cols_are_keys(ref.stage) ? source_tokens : nullptr;
        if (info.cols[0] == 'V' && t.vocabulary.size() == static_cast<std::size_t>(v.m->cols()))
            v.col_tokens = &t.vocabulary;
        v.title = stage_name(t, ref.stage);
    }
    if (info.per_head)
        v.title += "  (head " + std::to_string(ref.head + 1) + ")";
    v.equation = stage_equation(t, ref.stage, cross);
    if (cross)
        v.title = "Cross: " + v.title; // queries from the target's X_q, keys and values from the encoder
    else if (ref.stage == Stage::X && ref.layer == 0 &&
             t.embed_norm.empty()) // BERT's: stage_equation's LN_emb
        v.equation = t.config.positional == PositionalKind::None ? "X = Embedding   (positional encoding off)"
                     : t.trained                                 ? "X = E[tokens] + P"
                                                                 : "X = Embedding + PE";
    else if (ref.stage == Stage::X)
        v.equation = "X = " +
                     std::string(t.pre_ln ? (t.d_ff > 0 ? "residual2" : "residual")
                                          : (t.d_ff > 0 ? "norm2" : "norm1")) +
                     " of layer " + std::to_string(ref.layer) + " (its output)";
    if (ref.stage == Stage::scaled && !t.config.scale)
        v.equation = "Q_h K_hᵀ  (÷ √d_k switched off)";
    v.shape = stage_shape(t, ref.stage, cross);
    // T×T maps are read "query i looks at key j"; the others have a token per row and a feature (or, for
    // logits and probabilities, a vocabulary token) per column.
    v.row_axis = cols_are_keys(ref.stage) ? "query" : "position";
    v.col_axis = cols_are_keys(ref.stage) ? "key"
                 : info.cols[0] == 'V'    ? (t.config.mask == MaskKind::Causal ? "next token" : "token")
                                          : std::string("feature (") + info.cols + ")";
    if (ref.stage == Stage::concat && state.heads() > 0)
        v.column_blocks = static_cast<int>(v.m->cols()) / state.heads(); // d_v: one block per head
    v.probability = ref.stage == Stage::weights || ref.stage == Stage::probs;
    v.stretch = ref.stage == Stage::weights && state.prefs.stretch_weights;
    if (ref.stage == Stage::loss && !cross && static_cast<std::size_t>(ref.b) < t.loss_uncounted.size())
        v.mask = &t.loss_uncounted[static_cast<std::size_t>(ref.b)]; // no next token: drawn as masked
    if (ref.stage == Stage::weights || ref.stage == Stage::dweights)
    {
        const AttentionTrace& attn =
            cross ? t.cross.attn : t.layers[static_cast<std::size_t>(ref.layer)].attn;
        v.mask = &attn.head(ref.b, ref.head).masked;
    }
    v.key = layer_key(ref);
    v.version = state.trace_generation();
    if (ref.first_key_hidden && ref.stage == Stage::weights && !cross && v.m->size() > 0)
    {
        // The same map with key 0 hidden, made once per trace.
        if (state.sinkless_generation != v.version)
        {
            state.sinkless_maps.clear();
            state.sinkless_generation = v.version;
        }
        v.key += "|first key hidden";
        auto it = state.sinkless_maps.find(v.key);
        if (it == state.sinkless_maps.end())
            it = state.sinkless_maps.emplace(v.key, train::hide_first_key(*v.m)).first;
        v.m = &it->second;
        v.title += ", first key hidden";
        v.equation = "A_h with key 0 hidden: A[i, j] / (1 − A[i, 0]) for j ≥ 1, and 0 at j = 0";
        v.stretch = state.prefs.stretch_weights;
    }
    if (v.m->size() == 0)
        v.m = nullptr;
    return v;
}

const char* presenter_view_name(PresenterView view)
{
    switch (view)
    {
    case PresenterView::Pipeline:
        return "Pipeline";
    case PresenterView::Heads:
        return "Heads";
    case PresenterView::Inspector:
        return "Inspector";
    case PresenterView::Comparisons:
        return "Comparisons";
    case PresenterView::Training:
    case PresenterView::Count:
        break;
    }
    return "Training";
}

MatrixRef selected_stage(const AppState& state, Stage stage, int head, bool cross)
{
    MatrixRef ref;
    ref.source = cross ? MatrixSource::Cross : MatrixSource::Layer;
    ref.stage = stage;
    ref.layer = state.sel.layer;
    ref.b = state.sel.b;
    ref.head = head;
    return ref;
}

MatrixRef selected_comparison(const AppState& state, ComparisonMatrix which)
{
    MatrixRef ref = selected_stage(state, Stage::X, state.sel.head);
    ref.source = MatrixSource::Comparison;
    ref.comparison = which;
    return ref;
}

MatrixRef selected_weight(const AppState& state, WeightMatrix which, int head)
{
    MatrixRef ref = selected_stage(state, Stage::X, head);
    ref.source = MatrixSource::Weight;
    ref.weight = which;
    return ref;
}

float AppState::mean_entropy(const MatrixRef& ref)
{
    const MatrixView view = resolve_matrix(*this, ref);
    if (view.m == nullptr)
        return -1.0f;
    auto& entry = entropy_cache[view.key];
    if (entry.first != view.version)
    {
        if (entropy_cache.size() > 4096) // stale keys from earlier sessions; start over
        {
            entropy_cache.clear();
            return mean_entropy(ref);
        }
        entry = {view.version, mean_row_entropy(*view.m)};
    }
    return entry.second;
}

namespace
{
std::string axis_label(const std::vector<std::string>* tokens, int index, int max_chars)
{
    if (tokens == nullptr || index < 0 || index >= static_cast<int>(tokens->size()))
        return std::to_string(index);
    const std::string& token = (*tokens)[static_cast<std::size_t>(index)];
    return max_chars > 0 ? truncate_utf8(token, max_chars) : token;
}
} // namespace

std::string row_label(const MatrixView& view, int row, int max_chars)
{
    return axis_label(view.row_tokens, row, max_chars);
}

std::string col_label(const MatrixView& view, int col, int max_chars)
{
    return axis_label(view.col_tokens, col, max_chars);
}

std::string matrix_file_stem(const MatrixRef& ref)
{
    if (ref.source == MatrixSource::Weight)
    {
        // The model's matrices belong to no sentence.
        std::string s =
            std::string("attnlab-") + weight_info(ref.weight).key + "-layer" + std::to_string(ref.layer + 1);
        if (weight_per_head(ref.weight))
            s += "-head" + std::to_string(ref.head + 1);
        return s;
    }
    const bool comparison = ref.source == MatrixSource::Comparison;
    std::string s = "attnlab-";
    s += comparison ? comparison_key(ref.comparison) : stage_info(ref.stage).key;
    s += ref.source == MatrixSource::Cross ? std::string("-cross") : "-layer" + std::to_string(ref.layer + 1);
    s += "-sentence" + std::to_string(ref.b + 1);
    if (comparison || stage_info(ref.stage).per_head)
        s += "-head" + std::to_string(ref.head + 1);
    return s;
}

std::string default_export_path(const MatrixRef& ref, ExportFormat format)
{
    return matrix_file_stem(ref) + (format == ExportFormat::Png   ? ".png"
                                    : format == ExportFormat::Svg ? ".svg"
                                    : format == ExportFormat::Pdf ? ".pdf"
                                                                  : ".csv");
}

bool cell_masked(const MatrixView& view, int r, int c)
{
    const float v = (*view.m)(r, c);
    if (std::isinf(v) && v < 0)
        return true;
    return view.mask != nullptr && view.mask->rows() == view.m->rows() &&
           view.mask->cols() == view.m->cols() && std::isinf((*view.mask)(r, c));
}

PanelId status_error_panel(const AppState& state)
{
    // The engine checks the model's shape before the sentences; weights that do not fit, or overflow, are the
    // model's too. Everything else (no tokens, too many, a target that does not match) is about the text, as
    // is everything an opened model says (its shape is the folder's).
    if (state.showing_opened())
        return PanelId::Input;
    if (!validate_config(state.session.config).is_ok())
        return PanelId::Model;
    const std::string& m = state.status.message();
    if (m.rfind("the imported weights", 0) == 0 || m.find("NaN") != std::string::npos)
        return PanelId::Model;
    return PanelId::Input;
}

} // namespace attnlab
