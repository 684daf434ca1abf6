// Inspector panel: the hovered or pinned cell with its tokens, value and formula with the actual numbers;
// for scores and weights the whole chain q_i, k_j, q_i ⊙ k_j, Σ, ÷√d_k, + M, softmax over row i.
#include "core/train/model.h"
#include "ui/panels/panels.h"
#include "ui/picture/heads_layout.h"
#include "ui/picture/heatmap_math.h"
#include "ui/shell/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace attnlab
{

namespace
{

constexpr int kMaxTerms = 16;   // vector entries listed in full; sums always use every term
constexpr int kMaxRowBars = 40; // keys listed in the softmax row

// "[0.12, -0.5, 1.3, … 64 entries]"
std::string vector_text(const float* v, int n, int stride = 1)
{
    std::string s = "[";
    const int shown = std::min(n, kMaxTerms);
    for (int m = 0; m < shown; ++m)
    {
        if (m > 0)
            s += ", ";
        s += format_value(v[static_cast<std::ptrdiff_t>(m) * stride]);
    }
    if (n > shown)
        s += ", … " + std::to_string(n) + " entries";
    return s + "]";
}

std::string quoted(const std::string& token)
{
    return "“" + token + "”";
}

const AttentionTrace* attention_of(const AppState& state, const MatrixRef& ref)
{
    const Trace& t = state.trace();
    if (ref.source == MatrixSource::Cross)
        return t.has_cross ? &t.cross.attn : nullptr;
    if (ref.source == MatrixSource::Layer && ref.layer < static_cast<int>(t.layers.size()))
        return &t.layers[static_cast<std::size_t>(ref.layer)].attn;
    return nullptr;
}

const AttentionWeights* attention_weights_of(const AppState& state, const MatrixRef& ref)
{
    if (ref.source == MatrixSource::Cross)
        return &state.weights().cross; // the trained model's when the main panels show it
    const LayerWeights* layer = state.layer_weights(ref.layer); // an opened model's copied when first read
    return layer != nullptr ? &layer->attn : nullptr;
}

// Why M[i, j] is −∞.
const char* mask_reason(const AppState& state, const MatrixRef& ref, int i, int j)
{
    const Trace& t = state.trace();
    if (j < static_cast<int>(t.tokens.tokens[static_cast<std::size_t>(ref.b)].size()) &&
        t.tokens.is_pad(ref.b, j))
        return "key j is <pad>";
    if (t.config.mask == MaskKind::Causal && j > i)
        return "causal mask: key j comes after query i";
    return "masked";
}

// A line of the chain; the line of the hovered stage is drawn in the accent colour.
void chain_line(bool current, const std::string& text)
{
    if (current)
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_PlotHistogram]);
    text_wrappedf("%s", text.c_str());
    if (current)
        ImGui::PopStyleColor();
}

// The head trace a cell of scores, scaled, masked or weights belongs to (nullptr: none).
const HeadTrace* head_of(const AppState& state, const CellRef& cell)
{
    const AttentionTrace* attn = attention_of(state, cell.matrix);
    return attn != nullptr ? &attn->head(cell.matrix.b, cell.matrix.head) : nullptr;
}

// [SECTION] The attention chain for one (i, j) of scores / scaled / masked / weights
void attention_chain(const AppState& state, const CellRef& cell, const MatrixView& view)
{
    const HeadTrace* head = head_of(state, cell);
    if (head == nullptr)
        return;
    const HeadTrace& hd = *head;
    const int i = cell.row;
    const int j = cell.col;
    const int d_k = static_cast<int>(hd.Q.cols());
    const float tau = state.trace().config.temperature;
    const Stage stage = cell.matrix.stage;
    const std::string hj = std::to_string(cell.matrix.head + 1);

    std::vector<float> product(static_cast<std::size_t>(d_k));
    for (int m = 0; m < d_k; ++m)
        product[static_cast<std::size_t>(m)] = hd.Q(i, m) * hd.K(j, m);

    ImGui::Separator();
    text_wrappedf("The chain for query i = %d %s and key j = %d %s, head %s", i,
                  quoted(row_label(view, i, kMaxQuotedTokenChars)).c_str(), j,
                  quoted(col_label(view, j, kMaxQuotedTokenChars)).c_str(), hj.c_str());
    chain_line(false, "q_i = Q_" + hj + "[i, :] = " + vector_text(hd.Q.row(i).data(), d_k));
    chain_line(false, "k_j = K_" + hj + "[j, :] = " + vector_text(hd.K.row(j).data(), d_k));
    chain_line(false, "q_i ⊙ k_j = " + vector_text(product.data(), d_k));
    chain_line(stage == Stage::scores,
               "Σ (q_i ⊙ k_j) = q_i · k_j = scores[i, j] = " + format_value_long(hd.scores(i, j)));
    const float sqrt_dk = std::sqrt(static_cast<float>(d_k));
    if (state.trace().config.scale)
        chain_line(stage == Stage::scaled, "÷ √d_k = ÷ √" + std::to_string(d_k) + " = ÷ " +
                                               format_value_long(sqrt_dk) +
                                               "  →  scaled[i, j] = " + format_value_long(hd.scaled(i, j)));
    else
        chain_line(stage == Stage::scaled,
                   "÷ √d_k is switched off (Model panel): scaled[i, j] = scores[i, j] = " +
                       format_value_long(hd.scaled(i, j)));
    const float masked = hd.masked(i, j);
    const bool blocked = std::isinf(masked) && masked < 0;
    chain_line(stage == Stage::masked,
               std::string("+ M[i, j] = ") +
                   (blocked ? "−∞ (" + std::string(mask_reason(state, cell.matrix, i, j)) + ")"
                            : std::string("0 (allowed)")) +
                   "  →  masked[i, j] = " + format_value_long(masked));

    // softmax over row i, with the actual numbers: exp((x_ij − max_i) / τ) / Σ_j' exp((x_ij' − max_i) / τ)
    const int T_k = static_cast<int>(hd.masked.cols());
    float row_max = -INFINITY;
    for (int c = 0; c < T_k; ++c)
        row_max = std::max(row_max, hd.masked(i, c));
    const bool row_blocked = !(row_max > -INFINITY);
    if (row_blocked)
        chain_line(stage == Stage::weights, "every key of row i is masked: the row of weights is all zeros "
                                            "(flagged, never NaN)");
    else
    {
        // Only the keys the mask allows enter the sum (a masked key's exp(−∞) is 0).
        double z = 0.0;
        int allowed = 0;
        for (int c = 0; c < T_k; ++c)
            if (std::isfinite(hd.masked(i, c)))
            {
                z += std::exp(static_cast<double>((hd.masked(i, c) - row_max) / tau));
                ++allowed;
            }
        const double e = blocked ? 0.0 : std::exp(static_cast<double>((masked - row_max) / tau));
        const std::string keys = std::to_string(allowed) + (allowed == 1 ? " allowed key" : " allowed keys") +
                                 (allowed < T_k ? " (" + std::to_string(T_k - allowed) + " masked)" : "");
        chain_line(stage == Stage::weights, "softmax over row i (τ = " + format_value_long(tau) +
                                                "), shifted by the row's largest allowed score max_i = " +
                                                format_value(row_max) + ":");
        chain_line(stage == Stage::weights,
                   "exp((masked[i, j] − max_i) / τ) = exp((" + format_value(masked) + " − " +
                       format_value(row_max) + ") / τ) = " + format_value_long(static_cast<float>(e)) +
                       ";  Σ over the " + keys + " = " + format_value_long(static_cast<float>(z)) +
                       "  →  weights[i, j] = " + format_value_long(static_cast<float>(e / z)));
    }
}

// [SECTION] Row i of the weights as bars: it sums to 1
void weights_row_bars(const HeadTrace& hd, const CellRef& cell, const MatrixView& view)
{
    const int i = cell.row, j = cell.col;
    const int T_k = static_cast<int>(hd.masked.cols());
    const std::string hj = std::to_string(cell.matrix.head + 1);
    ImGui::Text("Row i of A_%s (sums to %s):", hj.c_str(),
                format_value_long(hd.weights.row(i).sum()).c_str());
    const float fs = ImGui::GetFontSize();
    const float label_w = fs * 6.0f;
    const float bar_w = std::max(fs * 4.0f, ImGui::GetContentRegionAvail().x - label_w - fs * 5.0f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const int shown = std::min(T_k, kMaxRowBars);
    for (int c = 0; c < shown; ++c)
    {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float w = hd.weights(i, c);
        const bool current = c == j;
        const ImU32 text =
            current ? ImGui::GetColorU32(ImGuiCol_PlotHistogram) : ImGui::GetColorU32(ImGuiCol_Text);
        const std::string token = col_label(view, c, 9);
        dl->AddText(p, text, (std::to_string(c) + " " + token).c_str());
        const ImVec2 b0(p.x + label_w, p.y + 2.0f);
        dl->AddRectFilled(b0, ImVec2(b0.x + bar_w, p.y + fs - 1.0f), ImGui::GetColorU32(ImGuiCol_FrameBg));
        const bool masked_key = std::isinf(hd.masked(i, c));
        dl->AddRectFilled(b0, ImVec2(b0.x + bar_w * w, p.y + fs - 1.0f),
                          masked_key ? kNegInfColor
                                     : value_to_color(w, ColorScale{ScaleKind::Probability, 0.0f, 1.0f}));
        // Three decimals, or a power of ten below 0.001: a weight of 0.004 reads "0.004", not "0.00" beside
        // another row's "6.9e-06".
        dl->AddText(ImVec2(b0.x + bar_w + 6.0f, p.y), text,
                    masked_key ? "masked" : format_probability(w).c_str());
        ImGui::Dummy(ImVec2(label_w + bar_w + fs * 4.0f, fs + 1.0f));
    }
    if (T_k > shown)
        ImGui::TextDisabled("… %d more keys", T_k - shown);
}

// Row vectors (the paper, this app) against the column vectors of many slides: the same numbers.
void convention_note(const char* name, const std::string& hj)
{
    const char* lower = name[0] == 'Q' ? "q" : name[0] == 'K' ? "k" : "v";
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    text_wrappedf("Rows are tokens: %s_%s = X W_%s^%s is (T×d_model)(d_model×d_k). Slides with column "
                  "vectors write the same thing as %s_i = (W_%s^%s)ᵀ x_i, one token at a time.",
                  name, hj.c_str(), hj.c_str(), name, lower, hj.c_str(), name);
    ImGui::PopStyleColor();
}

// The FFN's non-linearity in words.
const char* activation_words(const Trace& t)
{
    switch (t.activation)
    {
    case TraceActivation::Relu:
        return "ReLU max(0, ·)";
    case TraceActivation::GeluTanh:
        return "GELU (its tanh form, GPT-2's)";
    case TraceActivation::GeluErf:
        return "GELU (its erf form, BERT's)";
    }
    return "activation";
}

// [SECTION] A weight matrix's cell: which input feature it carries into which output feature
void weight_formula(const AppState& state, const CellRef& cell, const MatrixView& view)
{
    const MatrixRef& ref = cell.matrix;
    const int m = cell.row, c = cell.col;
    const std::string hj = std::to_string(ref.head + 1);
    ImGui::Separator();
    ImGui::TextDisabled("layer %d · %s", ref.layer + 1,
                        state.showing_trained() ? "the trained model's weights"
                        : state.engine.has_imported_weights()
                            ? "imported weights"
                            : "seeded random weights (Xavier uniform, untrained)");
    switch (ref.weight)
    {
    case WeightMatrix::W_Q:
    case WeightMatrix::W_K:
    case WeightMatrix::W_V:
    {
        const char* name = ref.weight == WeightMatrix::W_Q   ? "Q"
                           : ref.weight == WeightMatrix::W_K ? "K"
                                                             : "V";
        text_wrappedf("W_%s^%s[m, c] = W_%s^%s[%d, %d]: how much input feature m = %d of a token adds to "
                      "feature c = %d of its %s_%s row.",
                      hj.c_str(), name, hj.c_str(), name, m, c, m, c, name, hj.c_str());
        text_wrappedf("%s_%s[i, %d] = Σ_m X[i, m] W_%s^%s[m, %d]: column %d of W_%s^%s makes column %d of "
                      "%s_%s.",
                      name, hj.c_str(), c, hj.c_str(), name, c, c, hj.c_str(), name, c, name, hj.c_str());
        convention_note(name, hj);
        break;
    }
    case WeightMatrix::W_Q_packed:
    {
        const int d_k = state.heads() > 0 ? static_cast<int>(view.m->cols()) / state.heads() : 1;
        text_wrappedf("W^Q[%d, %d] is in column block %d: it is W_%d^Q[%d, %d], head %d's weight from "
                      "input feature %d to its query feature %d.",
                      m, c, c / d_k + 1, c / d_k + 1, m, c % d_k, c / d_k + 1, m, c % d_k);
        text_wrappedf("One product X W^Q (T×d_model · d_model×h·d_k) gives every head's Q_h at once, "
                      "block by block.");
        break;
    }
    case WeightMatrix::W_O:
    {
        const int d_v = state.heads() > 0 ? static_cast<int>(view.m->rows()) / state.heads() : 1;
        text_wrappedf("W^O[%d, %d]: how much feature %d of head %d's output (row %d of the concat's "
                      "columns) adds to output feature %d. MultiHead[i, %d] = Σ_r Concat[i, r] W^O[r, %d].",
                      m, c, m % d_v, m / d_v + 1, m, c, c, c);
        break;
    }
    case WeightMatrix::W_1:
        text_wrappedf("W_1[%d, %d]: how much input feature %d adds to hidden unit %d, before b_1 and the "
                      "%s.",
                      m, c, m, c, activation_words(state.trace()));
        break;
    case WeightMatrix::W_2:
        text_wrappedf("W_2[%d, %d]: how much hidden unit %d (after the %s) adds to output feature %d "
                      "of the FFN.",
                      m, c, m, state.trace().activation == TraceActivation::Relu ? "ReLU" : "GELU", c);
        break;
    default:
        break;
    }
}

// [SECTION] Other stages: the formula with the actual numbers
void projection_formula(const AppState& state, const CellRef& cell)
{
    const Trace& t = state.trace();
    const MatrixRef& ref = cell.matrix;
    const AttentionWeights* w = attention_weights_of(state, ref);
    if (w == nullptr)
        return;
    const bool cross = ref.source == MatrixSource::Cross;
    const bool query = ref.stage == Stage::Q;
    const Mat* X = nullptr;
    if (cross)
        X = query ? &t.cross.X_q[static_cast<std::size_t>(ref.b)]
                  : &t.cross.X_kv[static_cast<std::size_t>(ref.b)];
    else if (t.pre_ln) // a pre-LN layer's heads project LN1(X)
        X = &t.layers[static_cast<std::size_t>(ref.layer)].ln1[static_cast<std::size_t>(ref.b)];
    else
        X = &t.layers[static_cast<std::size_t>(ref.layer)].X[static_cast<std::size_t>(ref.b)];
    const std::vector<Mat>& W = ref.stage == Stage::Q ? w->W_Q : ref.stage == Stage::K ? w->W_K : w->W_V;
    const Mat& Wh = W[static_cast<std::size_t>(ref.head)];
    const char* name = ref.stage == Stage::Q ? "Q" : ref.stage == Stage::K ? "K" : "V";
    const std::string hj = std::to_string(ref.head + 1);
    const int d_model = static_cast<int>(X->cols());
    std::vector<float> column(static_cast<std::size_t>(d_model));
    for (int m = 0; m < d_model; ++m)
        column[static_cast<std::size_t>(m)] = Wh(m, cell.col);
    ImGui::Separator();
    // An opened model's projections add a bias (GPT-2's and BERT's Q, K and V): its entry from the model.
    const train::LayerParamsT<float>* params = nullptr;
    if (t.attention_bias && !cross && state.showing_opened() &&
        ref.layer < static_cast<int>(state.opened.model->params->layers.size()))
        params = &state.opened.model->params->layers[static_cast<std::size_t>(ref.layer)];
    if (params != nullptr)
        text_wrappedf(
            "%s_%s[i, c] = x_i · W_%s^%s[:, c] + b_%s^%s[c] = Σ_m X[i, m] W_%s^%s[m, c] + b_%s^%s[c]", name,
            hj.c_str(), hj.c_str(), name, hj.c_str(), name, hj.c_str(), name, hj.c_str(), name);
    else
        text_wrappedf("%s_%s[i, c] = x_i · W_%s^%s[:, c] = Σ_m X[i, m] W_%s^%s[m, c]", name, hj.c_str(),
                      hj.c_str(), name, hj.c_str(), name);
    text_wrappedf("x_i = %s", vector_text(X->row(cell.row).data(), d_model).c_str());
    text_wrappedf("W_%s^%s[:, c] = %s", hj.c_str(), name, vector_text(column.data(), d_model).c_str());
    if (params != nullptr)
    {
        const Mat& bias = ref.stage == Stage::Q   ? params->b_Q
                          : ref.stage == Stage::K ? params->b_K
                                                  : params->b_V;
        const Eigen::Index at = static_cast<Eigen::Index>(ref.head) * Wh.cols() + cell.col;
        if (bias.rows() == 1 && at < bias.cols())
            text_wrappedf("b_%s^%s[c] = %s", hj.c_str(), name, format_value_long(bias(0, at)).c_str());
    }
    text_wrappedf("It uses column c = %d of W_%s^%s (%s, head %s), the %d×%d matrix drawn beside %s_%s in "
                  "the Pipeline.",
                  cell.col, hj.c_str(), name,
                  cross ? "cross-attention" : ("layer " + std::to_string(ref.layer + 1)).c_str(), hj.c_str(),
                  static_cast<int>(Wh.rows()), static_cast<int>(Wh.cols()), name, hj.c_str());
    if (t.pre_ln && !cross)
        text_wrappedf("(x_i is row i of LN1(X), the layer's input normalised: the heads project it "
                      "directly, there is no separate q before W_h^Q)");
    else
        text_wrappedf(
            "(x_i is the token's embedding + positional encoding: the heads project X itself, there "
            "is no separate q before W_h^Q)");
    convention_note(name, hj);
}

// A LayerNorm's cell with its numbers: the row it normalises, its mean and spread, the normalised value, and
// the value after the layer's own scale γ and shift β. False when the stage is not a LayerNorm.
bool layer_norm_formula(const AppState& state, const CellRef& cell, const MatrixView& view)
{
    const MatrixRef& ref = cell.matrix;
    if (ref.source != MatrixSource::Layer)
        return false;
    const Trace& t = state.trace();
    const LayerTrace& layer = t.layers[static_cast<std::size_t>(ref.layer)];
    const std::size_t b = static_cast<std::size_t>(ref.b);
    const Mat* in = nullptr;
    const char* in_name = "";
    switch (ref.stage)
    {
    case Stage::norm1:
        in = &layer.residual[b], in_name = "residual";
        break;
    case Stage::norm2:
        in = &layer.residual2[b], in_name = "residual2";
        break;
    case Stage::ln1:
        in = &layer.X[b], in_name = "X";
        break;
    case Stage::ln2:
        in = &layer.residual[b], in_name = "residual";
        break;
    default:
        return false;
    }
    if (cell.row >= in->rows() || cell.col >= in->cols())
        return false;
    const auto r = in->row(cell.row);
    const double n = static_cast<double>(r.size());
    const double mean = static_cast<double>(r.sum()) / n;
    double var = 0.0;
    for (Eigen::Index m = 0; m < r.size(); ++m)
        var += (static_cast<double>(r(m)) - mean) * (static_cast<double>(r(m)) - mean) / n;
    const double eps = t.layer_norm_eps; // 1e-5, or the opened model's (BERT: 1e-12)
    const float x = r(cell.col);
    const float z = static_cast<float>((static_cast<double>(x) - mean) / std::sqrt(var + eps));
    const std::string key = stage_info(ref.stage).key;
    ImGui::Separator();
    text_wrappedf("%s[i, c] = γ[c] · (%s[i, c] − μ_i) / √(σ_i² + ε) + β[c]: row i of %s brought to mean 0 "
                  "and variance 1 over its %d numbers, then scaled and shifted per column.",
                  key.c_str(), in_name, in_name, static_cast<int>(r.size()));
    if (!t.config.residual &&
        (ref.stage == Stage::norm1 || ref.stage == Stage::norm2 || ref.stage == Stage::ln2))
        text_wrappedf("The residual connection is off: %s is the sub-layer's output alone (%s), nothing "
                      "is added back.",
                      in_name,
                      ref.stage == Stage::norm2 ? "FFN(norm1)"
                      : t.pre_ln                ? "MultiHead(LN1(X))"
                                                : "MultiHead(X)");
    char eps_text[32];
    std::snprintf(eps_text, sizeof eps_text, "%g", eps);
    std::string eps_shown = eps_text; // "1e-05" written "1e-5"
    if (const std::size_t at = eps_shown.find("e-0"); at != std::string::npos)
        eps_shown.erase(at + 2, 1);
    text_wrappedf("%s[i, c] = %s, μ_i = %s, σ_i = %s, ε = %s", in_name, format_value_long(x).c_str(),
                  format_value_long(static_cast<float>(mean)).c_str(),
                  format_value_long(static_cast<float>(std::sqrt(var))).c_str(), eps_shown.c_str());
    text_wrappedf("normalised: (%s − %s) / %s = %s; after γ[c] and β[c]: %s", format_value_long(x).c_str(),
                  format_value_long(static_cast<float>(mean)).c_str(),
                  format_value_long(static_cast<float>(std::sqrt(var + eps))).c_str(),
                  format_value_long(z).c_str(), format_value_long((*view.m)(cell.row, cell.col)).c_str());
    return true;
}

// A residual cell with its numbers: the sub-layer's output plus its input, or, with the residual connection
// off, the sub-layer's output alone.
void residual_formula(const Trace& t, const MatrixRef& ref, int i, int c)
{
    const LayerTrace& layer = t.layers[static_cast<std::size_t>(ref.layer)];
    const auto b = static_cast<std::size_t>(ref.b);
    const bool first = ref.stage == Stage::residual;
    const Mat& sub = first ? layer.attn.mha[b] : layer.ffn[b];
    const char* sub_name = first ? (t.pre_ln ? "MultiHead(LN1(X))" : "MultiHead(X)")
                                 : (t.pre_ln ? "FFN(LN2(residual))" : "FFN(norm1)");
    const Mat* in = first ? &layer.X[b] : t.pre_ln ? &layer.residual[b] : &layer.norm1[b];
    const char* in_name = first ? "X" : t.pre_ln ? "residual" : "norm1";
    const char* key = stage_info(ref.stage).key;
    if (i >= sub.rows() || c >= sub.cols())
        return;
    if (!t.config.residual)
    {
        text_wrappedf("%s[i, c] = %s[i, c] = %s: the residual connection is off, so %s is not added "
                      "back and the sub-layer's output replaces it.",
                      key, sub_name, format_value_long(sub(i, c)).c_str(), in_name);
        return;
    }
    if (in->size() == 0 || i >= in->rows() || c >= in->cols())
        return;
    text_wrappedf("%s[i, c] = %s[i, c] + %s[i, c] = %s + %s = %s: the input is added back, so the "
                  "sub-layer only learns a change to it.",
                  key, in_name, sub_name, format_value_long((*in)(i, c)).c_str(),
                  format_value_long(sub(i, c)).c_str(), format_value_long((*in)(i, c) + sub(i, c)).c_str());
}

void generic_formula(const AppState& state, const CellRef& cell, const MatrixView& view)
{
    if (layer_norm_formula(state, cell, view))
        return;
    const Trace& t = state.trace();
    const MatrixRef& ref = cell.matrix;
    const int i = cell.row;
    const int c = cell.col;
    ImGui::Separator();
    if (ref.source == MatrixSource::Layer && ref.stage == Stage::X && ref.layer == 0 && !t.embed_norm.empty())
    {
        text_wrappedf("X of layer 1 is the embedding LayerNorm's output, LN_emb(E[tokens] + P + T_type[0]): "
                      "see the Embedding sum and Embedding LayerNorm stages above.");
        return;
    }
    if (ref.source == MatrixSource::Layer && ref.stage == Stage::X && ref.layer == 0)
    {
        const float e = t.embedding[static_cast<std::size_t>(ref.b)](i, c);
        const float p = t.positional(i, c);
        text_wrappedf(t.trained ? "X[i, c] = E[token i, c] + P[i, c] = %s + %s = %s"
                                : "X[i, c] = embedding[i, c] + PE[i, c] = %s + %s = %s",
                      format_value_long(e).c_str(), format_value_long(p).c_str(),
                      format_value_long(e + p).c_str());
        return;
    }
    if (ref.source == MatrixSource::Layer && ref.stage == Stage::X)
    {
        text_wrappedf("X of layer %d is the output of layer %d (%s).", ref.layer + 1, ref.layer,
                      t.pre_ln ? "residual + FFN, nothing normalised: LN1 of the next layer does that"
                               : "its last Add & Norm");
        return;
    }
    if (ref.source == MatrixSource::Layer && (ref.stage == Stage::residual || ref.stage == Stage::residual2))
    {
        residual_formula(t, ref, i, c);
        return;
    }
    const AttentionTrace* attn = attention_of(state, ref);
    if (ref.stage == Stage::head_out && attn != nullptr)
    {
        const HeadTrace& hd = attn->head(ref.b, ref.head);
        const int T_k = static_cast<int>(hd.weights.cols());
        std::vector<float> vcol(static_cast<std::size_t>(T_k));
        for (int j = 0; j < T_k; ++j)
            vcol[static_cast<std::size_t>(j)] = hd.V(j, c);
        text_wrappedf("head_out[i, c] = Σ_j A[i, j] V[j, c]: a weighted average of column c of V, "
                      "with row i of the weights");
        text_wrappedf("A[i, :] = %s", vector_text(hd.weights.row(i).data(), T_k).c_str());
        text_wrappedf("V[:, c] = %s", vector_text(vcol.data(), T_k).c_str());
        return;
    }
    if (ref.stage == Stage::concat && attn != nullptr && !attn->heads.empty())
    {
        const int d_v = static_cast<int>(attn->heads.front().head_out.cols());
        if (d_v > 0)
            text_wrappedf("concat[i, %d] = head_out of head %d, column %d (h·d_v columns: head after head)",
                          c, c / d_v + 1, c % d_v);
        return;
    }
    text_wrappedf("%s", ref.source == MatrixSource::Cross ? view.equation.c_str()
                                                          : stage_cell_formula(t, ref.stage));
}

// Presenter mode's Inspector with no cell pinned: query `row` (the one pinned in the Heads view, or a
// default), in the selected head, at its strongest key (the head's "→ key" line), so that a click on a token
// there is explained here. Invalid when row < 0 or the trace has no such row.
CellRef query_pin_cell(const AppState& state, int row)
{
    if (row < 0 || !state.has_trace())
        return {};
    CellRef cell;
    cell.matrix.source = MatrixSource::Layer;
    cell.matrix.stage = Stage::weights;
    cell.matrix.layer = state.sel.layer;
    cell.matrix.b = state.sel.b;
    cell.matrix.head = state.sel.head;
    cell.matrix.first_key_hidden = state.heads_panel.hide_first_key; // as the Heads view shows it
    const MatrixView view = resolve_matrix(state, cell.matrix);
    if (view.m == nullptr || row >= view.m->rows())
        return {};
    const TopKey top = top_key(*view.m, row);
    if (top.col < 0)
        return {};
    cell.valid = true;
    cell.row = row;
    cell.col = top.col;
    return cell;
}

} // namespace

void draw_inspector_panel(AppState& state)
{
    // Whose numbers these are, wrapped: a model folder's path is long.
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    text_wrappedf("Model: %s", shown_model_label(state).c_str());
    ImGui::PopStyleColor();
    CellRef cell = state.pinned.valid ? state.pinned : state.hovered;
    const bool from_query = !cell.valid && state.presenter;
    // With nothing pinned at all, presenter mode explains the second token's strongest key (the first when
    // the sentence has one token) rather than an empty view: a lecture's "press 3" always shows a weight.
    const QueryPin& query = state.heads_panel.query;
    bool default_query = false;
    if (from_query)
    {
        cell = query_pin_cell(state, query.valid() ? query.row : -1);
        if (!cell.valid && !query.valid() && state.has_trace())
        {
            const auto& tokens = state.trace().tokens.tokens[static_cast<std::size_t>(state.sel.b)];
            cell = query_pin_cell(state, tokens.size() > 1 ? 1 : 0);
            default_query = cell.valid;
        }
    }
    // A map shown with the first key hidden: its renormalised value first, then the model's own weight
    // and how it was computed.
    float shown_without_first_key = 0.0f;
    const bool first_key_hidden = cell.valid && cell.matrix.first_key_hidden;
    if (first_key_hidden)
    {
        const MatrixView shown = resolve_matrix(state, cell.matrix);
        if (shown.m != nullptr && cell.row < shown.m->rows() && cell.col < shown.m->cols())
            shown_without_first_key = (*shown.m)(cell.row, cell.col);
        cell.matrix.first_key_hidden = false;
    }
    if (!cell.valid || !state.has_trace())
    {
        // Presenter mode's Inspector view shows no heatmap to hover: it says where a cell is picked.
        if (state.presenter)
            text_wrapped(
                "No cell pinned yet: press 2 for the Heads and click a query token, or 1 for the "
                "Pipeline and click a cell of any map, then press 3 to see here how it was computed, "
                "with the actual numbers (Esc unpins).");
        else
            text_wrappedf(
                "Hover any cell of any heatmap to see how it was computed, with the actual numbers. "
                "Click to pin it here (click again or Esc to unpin).");
        return;
    }
    const MatrixView view = resolve_matrix(state, cell.matrix);
    if (view.m == nullptr || cell.row >= view.m->rows() || cell.col >= view.m->cols())
    {
        ImGui::TextDisabled("(that cell is no longer available)");
        return;
    }
    if (default_query)
    {
        const auto& tokens = state.trace().tokens.tokens[static_cast<std::size_t>(state.sel.b)];
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        text_wrappedf(
            "Nothing pinned: “%s” (i = %d) and its strongest key in head %d ([ ] another head; press 2 "
            "and click a query token for another)",
            truncate_utf8(tokens[static_cast<std::size_t>(cell.row)], 10).c_str(), cell.row,
            cell.matrix.head + 1);
        ImGui::PopStyleColor();
    }
    else if (from_query)
    {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        text_wrappedf(
            "“%s” (i = %d) pinned in the Heads view: its strongest key in head %d ([ ] another head, "
            "Esc unpins)",
            truncate_utf8(query.token, 10).c_str(), cell.row, cell.matrix.head + 1);
        ImGui::PopStyleColor();
    }
    else if (state.pinned.valid)
    {
        ImGui::TextDisabled("pinned");
        ImGui::SameLine();
        if (ImGui::SmallButton("unpin"))
            state.pinned = CellRef{};
    }
    else
        ImGui::TextDisabled("hovering (click a cell to pin it)");
    ImGui::Text("%s   [%s]", view.title.c_str(), view.shape.c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    text_wrappedf("%s", view.equation.c_str());
    ImGui::PopStyleColor();
    const MatrixRef& ref = cell.matrix;
    if (ref.source == MatrixSource::Weight)
    {
        ImGui::Text("row m = %d   col c = %d", cell.row, cell.col);
        ImGui::Text("value = %s", format_value_long((*view.m)(cell.row, cell.col)).c_str());
        weight_formula(state, cell, view);
        return;
    }
    // Where the cell is and its value. Presenter mode's view is as wide as the screen and no taller than
    // what the caption leaves: there the row, column and value share a line, and the chain has its weights
    // row's bars beside it.
    const bool chain = ref.source != MatrixSource::Comparison &&
                       stage_info(ref.stage).explain == StageExplain::AttentionChain;
    const bool compact = chain && state.presenter;
    const auto cell_lines = [&]
    {
        if (ref.source != MatrixSource::Comparison)
        {
            // Wrapped: in the default layout's Inspector the line ran past the panel's edge.
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
            text_wrappedf("%s, sentence %d (counted from 1; positions i and j from 0)",
                          ref.source == MatrixSource::Cross
                              ? "cross-attention"
                              : ("layer " + std::to_string(ref.layer + 1)).c_str(),
                          ref.b + 1);
            ImGui::PopStyleColor();
        }
        ImGui::Text("row i = %d %s", cell.row,
                    view.row_tokens ? quoted(row_label(view, cell.row, kMaxQuotedTokenChars)).c_str() : "");
        if (compact)
            ImGui::SameLine(0.0f, ImGui::GetFontSize() * 2.0f);
        ImGui::Text("col %s = %d %s", view.col_tokens ? "j" : "c", cell.col,
                    view.col_tokens ? quoted(col_label(view, cell.col, kMaxQuotedTokenChars)).c_str() : "");
        if (compact)
            ImGui::SameLine(0.0f, ImGui::GetFontSize() * 2.0f);
        ImGui::Text("value = %s", format_value_long((*view.m)(cell.row, cell.col)).c_str());
        if (first_key_hidden)
        {
            // What the Heads panel shows with its attention-sink switch on, from the model's own weights.
            const float a = (*view.m)(cell.row, cell.col);
            const float rest = 1.0f - (*view.m)(cell.row, 0);
            if (cell.col == 0)
                text_wrapped(
                    "shown as 0: the first key is hidden (the Heads panel's switch); above, the model's "
                    "own weight");
            else if (!(shown_without_first_key > 0.0f) && !(a > 0.0f))
                text_wrapped("shown as 0: this weight is 0 (the Heads panel hides the first key)");
            else
                text_wrappedf(
                    "shown with the first key hidden: A[i, j] / (1 − A[i, 0]) = %s / %s = %s (the Heads "
                    "panel's switch; above, the model's own weight)",
                    format_value_long(a).c_str(), format_value_long(rest).c_str(),
                    format_value_long(shown_without_first_key).c_str());
        }
    };
    cell_lines();
    if (compact && ImGui::BeginTable("##chain_and_row", 2,
                                     ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_NoSavedSettings))
    {
        ImGui::TableSetupColumn("chain", ImGuiTableColumnFlags_WidthStretch, 0.6f);
        ImGui::TableSetupColumn("row", ImGuiTableColumnFlags_WidthStretch, 0.4f);
        ImGui::TableNextColumn();
        attention_chain(state, cell, view);
        ImGui::TableNextColumn();
        ImGui::Separator();
        if (const HeadTrace* hd = head_of(state, cell))
            weights_row_bars(*hd, cell, view);
        ImGui::EndTable();
        return;
    }

    if (ref.source == MatrixSource::Comparison)
        return;
    switch (stage_info(ref.stage).explain)
    {
    case StageExplain::AttentionChain:
        attention_chain(state, cell, view);
        ImGui::Spacing();
        if (const HeadTrace* hd = head_of(state, cell))
            weights_row_bars(*hd, cell, view);
        break;
    case StageExplain::Projection:
        projection_formula(state, cell);
        break;
    case StageExplain::Formula:
        generic_formula(state, cell, view);
        break;
    }
}

} // namespace attnlab
