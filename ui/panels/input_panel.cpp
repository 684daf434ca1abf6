// Input panel: the sentences (one per line = a batch), the optional target sentence, and the tokens as chips.
#include "ui/panels/panels.h"
#include "ui/shell/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

namespace attnlab
{

namespace
{

constexpr int kMaxChips = 160; // per sentence; the rest is summarised (T can be 2048)

// Token chips of one sentence with their index i; <pad> is dimmed. Clicking a chip selects the sentence and
// pins the token as the query row of every head (as clicking a Heads row does); a second click unpins.
void token_chips(AppState& state, const std::vector<std::string>& tokens, int b, int length, bool cross)
{
    const char* id = cross ? "tgt" : "src";
    QueryPin& pin = cross ? state.heads_panel.cross_query : state.heads_panel.query;
    ImGui::PushID(id);
    ImGui::PushID(b);
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    const int shown = std::min(static_cast<int>(tokens.size()), kMaxChips);
    for (int t = 0; t < shown; ++t)
    {
        const bool pad = t >= length;
        const std::string label = std::to_string(t) + " " + tokens[static_cast<std::size_t>(t)];
        const float w =
            ImGui::CalcTextSize(label.c_str(), nullptr, false).x + ImGui::GetStyle().FramePadding.x * 2.0f;
        if (t > 0)
        {
            ImGui::SameLine(0.0f, 4.0f);
            if (ImGui::GetItemRectMax().x + 4.0f + w > right)
                ImGui::NewLine();
        }
        ImGui::PushID(t);
        if (pad)
        {
            ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyle().Colors[ImGuiCol_FrameBg]);
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        }
        const bool pinned = !pad && b == state.sel.b && pin.row == t;
        if (pinned)
            ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyle().Colors[ImGuiCol_ButtonActive]);
        if (literal_small_button(label))
        {
            state.sel.b = b;
            if (!pad)
                if (const std::vector<std::string>* shown_tokens = state.query_tokens(cross))
                    toggle_query_pin(pin, t, *shown_tokens);
        }
        if (pinned)
            ImGui::PopStyleColor();
        if (pad)
        {
            ImGui::PopStyleColor(2);
            item_tooltip(
                "<pad>: added so every sentence of the batch has T tokens; attention never looks at it "
                "(its key is masked with −∞).");
        }
        else
            item_tooltip("The number is the token's position i, counted from 0 as the rows and columns of "
                         "the maps are. Click: show this sentence and pin this token as the query (its row "
                         "in every head); click again to unpin.");
        ImGui::PopID();
    }
    if (static_cast<int>(tokens.size()) > shown)
    {
        ImGui::SameLine();
        ImGui::TextDisabled("… %d more (T = %d)", static_cast<int>(tokens.size()) - shown,
                            static_cast<int>(tokens.size()));
    }
    ImGui::PopID();
    ImGui::PopID();
}

// Up to four characters by code point ("U+0915, U+0916, U+0917, U+0918 and 3 more").
std::string code_point_list(const std::vector<char32_t>& characters)
{
    constexpr std::size_t kNamed = 4;
    std::string names;
    for (std::size_t i = 0; i < characters.size() && i < kNamed; ++i)
        names += (i > 0 ? ", " : "") + code_point_name(characters[i]);
    if (characters.size() > kNamed)
        names += " and " + std::to_string(characters.size() - kNamed) + " more";
    return names;
}

// What the window cannot draw as the text has it: characters above U+FFFF (emoji) and characters no
// installed font has are boxes; right-to-left scripts are drawn left to right, unjoined. The tokens keep
// every character either way.
void glyph_notes(const GlyphSet& glyphs)
{
    std::vector<char32_t> missing, right_to_left;
    for (const char32_t c : glyphs.in_text)
    {
        if (std::binary_search(glyphs.missing.begin(), glyphs.missing.end(), c))
            missing.push_back(c);
        else if (is_right_to_left(c))
            right_to_left.push_back(c);
    }
    if (glyphs.beyond_bmp.empty() && missing.empty() && right_to_left.empty())
        return;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    if (!glyphs.beyond_bmp.empty())
        text_wrappedf("%s: the window cannot draw characters beyond U+FFFF, so they show as boxes here. "
                      "Their tokens keep them, and exported pictures draw them.",
                      code_point_list(glyphs.beyond_bmp).c_str());
    if (!missing.empty())
        text_wrappedf("No installed font has %s, so they show as boxes here and in exported pictures "
                      "(Debian's fonts-noto-core has most scripts). Their tokens keep them.",
                      code_point_list(missing).c_str());
    if (!right_to_left.empty())
        text_wrappedf("Right-to-left letters (%s) are drawn here from left to right, one unjoined letter "
                      "after another: the window does not lay out right-to-left text. The tokens and "
                      "their order are what the model reads.",
                      code_point_list(right_to_left).c_str());
    ImGui::PopStyleColor();
}

} // namespace

void draw_input_panel(AppState& state)
{
    trained_view_banner(state);
    if (state.showing_trained())
    {
        // The main panels run the trained model's probe: that is the input to edit here.
        const train::RunSpec& c = state.training.view.config;
        text_wrapped(c.task != train::TaskKind::Text
                         ? "The probe: one sequence in the task's vocabulary, tokens "
                           "separated by spaces."
                     : c.level == train::TextLevel::Word
                         ? "The probe: English the model reads as one sequence of its words and marks."
                         : "The probe: English the model reads as one sequence of its characters.");
        draw_trained_probe_input(state);
        ImGui::Separator();
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        text_wrappedf("The session's sentences wait until you show the session again.");
        ImGui::PopStyleColor();
        return;
    }
    const float w = ImGui::GetContentRegionAvail().x;
    const float line = ImGui::GetTextLineHeightWithSpacing();
    // An opened model reads the whole text, line breaks included, as one sequence of its tokenizer's pieces:
    // no batch and no cross-attention target.
    const bool opened = state.showing_opened();
    ImGui::TextUnformatted(opened ? "Text (one sequence, whatever its lines)"
                                  : "Sentences (one per line = a batch)");
    if (input_text_wrapped("##text", &state.session.text, &state.text_field, w, line * 4.5f))
        state.edit();
    if (opened)
        item_tooltip(("The model's own tokenizer cuts the whole text into one sequence of pieces, at most " +
                      std::to_string(state.opened.model->config.T_max) +
                      " (its context); a line break is a piece like any other.")
                         .c_str());
    else
        item_tooltip("Each line is one sentence; several lines are a batch of B sentences, padded with <pad> "
                     "to the longest. Words and punctuation marks become tokens.");
    // Right under the text they are about, above the fold of a short panel.
    glyph_notes(state.glyphs);
    if (!opened)
    {
        ImGui::TextUnformatted("Target (optional: cross-attention)");
        if (input_text_wrapped("##target", &state.session.target, &state.target_field, w, line * 2.5f))
            state.edit();
        item_tooltip(
            "A decoder-side sentence: its tokens give the queries Q, the encoder's output gives K and V. "
            "One line for every source sentence, or one line per source.");
    }

    if (!state.status.is_ok() && status_error_panel(state) == PanelId::Input)
        error_text(state.status.message() + (state.has_trace() ? "  (showing the last valid result)" : ""));
    if (!state.has_trace())
        return;

    const Trace& t = state.trace();
    ImGui::Separator();
    if (opened)
        ImGui::Text("Tokens: T = %d of at most %d", t.T(), state.opened.model->config.T_max);
    else
        ImGui::Text("Tokens: B = %d sentence%s, T = %d", t.batch_size(), t.batch_size() == 1 ? "" : "s",
                    t.T());
    for (int b = 0; b < t.batch_size(); ++b)
    {
        if (t.batch_size() > 1)
        {
            const bool selected = b == state.sel.b;
            ImGui::PushID(b);
            if (ImGui::RadioButton("##sel", selected))
                state.sel.b = b;
            ImGui::PopID();
            item_tooltip("Show this sentence in the Pipeline, Heads and Inspector.");
            ImGui::SameLine();
            const int length = t.tokens.lengths[static_cast<std::size_t>(b)];
            ImGui::Text("sentence %d (%d token%s)", b + 1, length, length == 1 ? "" : "s");
        }
        token_chips(state, t.tokens.tokens[static_cast<std::size_t>(b)], b,
                    t.tokens.lengths[static_cast<std::size_t>(b)], false);
    }
    if (t.has_cross)
    {
        ImGui::Spacing();
        ImGui::Text("Target tokens (queries of cross-attention): T_q = %d", t.cross.target.T);
        const int b = std::min(state.sel.b, t.cross.target.batch_size() - 1);
        if (b >= 0)
            token_chips(state, t.cross.target.tokens[static_cast<std::size_t>(b)], b,
                        t.cross.target.lengths[static_cast<std::size_t>(b)], true);
    }
}

} // namespace attnlab
