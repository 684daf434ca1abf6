// The Training panel's text readouts (the Text task): the probe's characters coloured by the model's surprise
// at each, at the timeline's step (the loss strip, with its legend and a tooltip per character), and text
// the model generates at that step (temperature, seed, prompt).
#include "core/train/text_corpus.h"
#include "ui/model/training/text_readouts.h"
#include "ui/model/training/training_controller.h"
#include "ui/panels/training_panel_views.h"
#include "ui/picture/colormap.h"
#include "ui/shell/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace attnlab
{

namespace
{

constexpr double kBitsPerNat = 1.4426950408889634; // 1 / ln 2
// The window height (in font heights) from which the sample opens at first: 1080 pixels at the default size
// has room for it and two rows of maps; 720 has not.
constexpr float kSampleOpenHeightEm = 50.0f;

// A character named for a sentence: "space", "line feed", or the character in quotes.
std::string character_name(const std::string& symbol)
{
    if (symbol == " ")
        return "space";
    if (symbol == "\n")
        return "line feed";
    if (symbol == "\t")
        return "tab";
    if (symbol == "\r")
        return "carriage return";
    return "\"" + symbol + "\"";
}

// The tooltip of character t: its loss, and what the model expected there.
void strip_tooltip(const std::vector<LossCell>& cells, int t, const std::vector<std::string>& vocabulary)
{
    const LossCell& c = cells[static_cast<std::size_t>(t)];
    ImGui::BeginTooltip();
    if (!std::isfinite(c.loss))
    {
        ImGui::Text("%s, character %d: the first one; nothing before it predicts it.",
                    character_name(c.symbol).c_str(), t);
        ImGui::EndTooltip();
        return;
    }
    const double nats = static_cast<double>(c.loss);
    ImGui::Text("%s, character %d: loss %.2f nats (%.2f bits), p = %.3f", character_name(c.symbol).c_str(), t,
                nats, nats * kBitsPerNat, std::exp(-nats));
    ImGui::TextDisabled("The model's top guesses after %s:",
                        character_name(cells[static_cast<std::size_t>(t - 1)].symbol).c_str());
    for (const train::TokenProb& p : c.top)
    {
        const std::string symbol = p.id >= 0 && p.id < static_cast<int>(vocabulary.size())
                                       ? vocabulary[static_cast<std::size_t>(p.id)]
                                       : std::string("?");
        const bool right = symbol == c.symbol;
        ImGui::Text("%6.1f %%  %s%s", 100.0 * static_cast<double>(p.p), character_name(symbol).c_str(),
                    right ? "   <- the one that came" : "");
    }
    ImGui::EndTooltip();
}

} // namespace

// The legend: the colour ramp from 0 to kSurpriseMaxNats nats, and the strip's mean.
void draw_loss_strip_legend(const std::vector<LossCell>& cells)
{
    const float fs = ImGui::GetFontSize();
    ImGui::TextDisabled("surprise, −ln p in nats:");
    ImGui::SameLine();
    ImGui::TextDisabled("0");
    ImGui::SameLine(0.0f, fs * 0.3f);
    const Color32 bg = panel_background();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = fs * 8.0f, h = ImGui::GetTextLineHeight();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    constexpr int kSteps = 32;
    for (int i = 0; i < kSteps; ++i)
    {
        const float v = kSurpriseMaxNats * (static_cast<float>(i) + 0.5f) / kSteps;
        dl->AddRectFilled(ImVec2(p.x + w * static_cast<float>(i) / kSteps, p.y + h * 0.15f),
                          ImVec2(p.x + w * static_cast<float>(i + 1) / kSteps, p.y + h * 0.85f),
                          surprise_color(v, kSurpriseMaxNats, bg));
    }
    dl->AddRect(ImVec2(p.x - 1.0f, p.y + h * 0.15f - 1.0f), ImVec2(p.x + w + 1.0f, p.y + h * 0.85f + 1.0f),
                ImGui::GetColorU32(ImGuiCol_Border));
    ImGui::Dummy(ImVec2(w, h));
    item_tooltip("The colour of each character is how surprised the model was to see it: −ln p(character | "
                 "the characters before it), in nats (1 nat = 1.44 bits). 0: the model was sure of it; "
                 "4.3: a uniform guess among 75 characters; 5 and above are all the darkest. The mean is "
                 "over the probe's characters after the first.");
    ImGui::SameLine(0.0f, fs * 0.3f);
    ImGui::TextDisabled("%.0f+", static_cast<double>(kSurpriseMaxNats));
    double sum = 0;
    int n = 0;
    for (const LossCell& c : cells)
        if (std::isfinite(c.loss))
        {
            sum += static_cast<double>(c.loss);
            ++n;
        }
    if (n > 0)
    {
        char mean[96];
        std::snprintf(mean, sizeof mean, "mean %.2f nats (%.2f bits)", sum / n, sum / n * kBitsPerNat);
        ImGui::SameLine(0.0f, fs);
        if (ImGui::CalcTextSize(mean).x > ImGui::GetContentRegionAvail().x)
            ImGui::NewLine();
        ImGui::TextDisabled("%s", mean);
    }
}

// [SECTION] The loss strip

Color32 panel_background()
{
    ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    bg.w = 1.0f;
    return ImGui::ColorConvertFloat4ToU32(bg);
}

namespace
{

// Where each cell of the strip goes at this width (x, y from the strip's top left; its width), and the
// strip's height.
struct StripCell
{
    float x = 0.0f, y = 0.0f, w = 0.0f;
};

float strip_layout(const std::vector<LossCell>& cells, float width, std::vector<StripCell>* out)
{
    const float fs = ImGui::GetFontSize();
    const float pad = std::max(1.0f, std::floor(fs * 0.12f));
    const float cell_h = ImGui::GetTextLineHeight() + pad * 2.0f;
    float x = 0.0f, y = 0.0f;
    for (const LossCell& c : cells)
    {
        const float w =
            std::max(ImGui::CalcTextSize(visible_character(c.symbol).c_str()).x, fs * 0.5f) + pad * 2.0f;
        if (x > 0.0f && x + w > width)
        {
            x = 0.0f;
            y += cell_h + pad;
        }
        if (out != nullptr)
            out->push_back(StripCell{x, y, w});
        x += w;
    }
    return cells.empty() ? 0.0f : y + cell_h;
}

} // namespace

float loss_strip_height(const std::vector<LossCell>& cells, float width)
{
    return strip_layout(cells, width, nullptr);
}

int draw_loss_strip_cells(const std::vector<LossCell>& cells, float width)
{
    const float fs = ImGui::GetFontSize();
    const float pad = std::max(1.0f, std::floor(fs * 0.12f));
    const float cell_h = ImGui::GetTextLineHeight() + pad * 2.0f;
    const Color32 bg = panel_background();
    const ImU32 faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    std::vector<StripCell> places;
    const float height = strip_layout(cells, width, &places);
    int hovered = -1;
    for (std::size_t t = 0; t < cells.size(); ++t)
    {
        const LossCell& c = cells[t];
        const std::string shown = visible_character(c.symbol);
        const ImVec2 size = ImGui::CalcTextSize(shown.c_str());
        const StripCell& at = places[t];
        const ImVec2 p0(std::floor(origin.x + at.x), origin.y + at.y),
            p1(std::floor(origin.x + at.x + at.w), p0.y + cell_h);
        const Color32 fill = surprise_color(c.loss, kSurpriseMaxNats, bg);
        dl->AddRectFilled(p0, p1, fill);
        const ImU32 ink = is_blank_symbol(c.symbol) ? faint : chip_text_color(fill);
        dl->AddText(ImVec2(p0.x + (p1.x - p0.x - size.x) * 0.5f, p0.y + pad), ink, shown.c_str());
        if (mouse.x >= p0.x && mouse.x < p1.x && mouse.y >= p0.y && mouse.y < p1.y)
            hovered = static_cast<int>(t);
    }
    ImGui::Dummy(ImVec2(width, height));
    return ImGui::IsItemHovered() ? hovered : -1;
}

std::vector<LossCell> training_loss_cells(AppState& state)
{
    TrainingPanelState& ts = state.training;
    const TrainingSnapshot& v = ts.view;
    const TrainingFrame* f = shown_frame(ts);
    if (f == nullptr || ts.probe_batch.T == 0)
        return {};
    ts.probe.update(v.model, f->params, ts.probe_batch, ts.probe_version);
    if (ts.probe.empty())
        return {};
    return loss_strip(ts.probe_batch, ts.probe.acts(), v.vocabulary);
}

void draw_loss_strip(AppState& state)
{
    const std::vector<LossCell> cells = training_loss_cells(state);
    if (cells.empty())
        return;
    const int hovered = draw_loss_strip_cells(cells, ImGui::GetContentRegionAvail().x);
    if (hovered >= 0 && !state.mouse_ignored)
        strip_tooltip(cells, hovered, state.training.view.vocabulary);
    draw_loss_strip_legend(cells);
}

// [SECTION] Samples

// A line feed is drawn as a faint "↵" and the text runs on: a book's hard line breaks would otherwise take
// the box's few lines.
void draw_sample_text(const std::string& text, std::size_t prompt_bytes, float width, int max_lines)
{
    std::string flat;
    std::vector<bool> faint_at; // [byte of flat]: drawn faint (the prompt, a line feed's glyph)
    const std::string feed = visible_character("\n") + " ";
    for (std::size_t b = 0; b < text.size(); ++b)
    {
        const bool in_prompt = b < prompt_bytes;
        if (text[b] == '\n')
        {
            flat += feed;
            faint_at.insert(faint_at.end(), feed.size(), true);
        }
        else
        {
            flat += text[b];
            faint_at.push_back(in_prompt);
        }
    }
    ImFont* font = ImGui::GetFont();
    const float fs = ImGui::GetFontSize();
    const float line_h = ImGui::GetTextLineHeightWithSpacing();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text), faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const char* const begin = flat.data();
    const char* const end = begin + flat.size();
    const char* const ellipsis = "…";
    float y = 0.0f;
    int lines = 0;
    for (const char* s = begin; s < end;)
    {
        // The last line allowed with more text after it ends in an ellipsis.
        const bool last = max_lines > 0 && lines + 1 == max_lines;
        const float room = last ? width - ImGui::CalcTextSize(ellipsis).x : width;
        const char* wrap = font->CalcWordWrapPositionA(fs / font->FontSize, s, end, room);
        if (wrap <= s)
            wrap = s + 1;
        while (wrap < end && (static_cast<unsigned char>(*wrap) & 0xC0) == 0x80)
            ++wrap; // never inside a character
        // Runs of one colour.
        float x = 0.0f;
        for (const char* a = s; a < wrap;)
        {
            const bool f = faint_at[static_cast<std::size_t>(a - begin)];
            const char* b = a;
            while (b < wrap && faint_at[static_cast<std::size_t>(b - begin)] == f)
                ++b;
            dl->AddText(font, fs, ImVec2(origin.x + x, origin.y + y), f ? faint : ink, a, b);
            x += font->CalcTextSizeA(fs, FLT_MAX, 0.0f, a, b).x;
            a = b;
        }
        if (last && wrap < end)
            dl->AddText(font, fs, ImVec2(origin.x + x, origin.y + y), faint, ellipsis);
        y += line_h;
        ++lines;
        s = wrap;
        while (s < end && *s == ' ')
            ++s; // the space a line breaks at
        if (last)
            break;
    }
    ImGui::Dummy(ImVec2(width, y));
}

std::string training_sample_text(AppState& state, std::size_t* prompt_bytes, std::string* error)
{
    TrainingPanelState& ts = state.training;
    const TrainingSnapshot& v = ts.view;
    const TrainingFrame* f = shown_frame(ts);
    *prompt_bytes = 0;
    error->clear();
    if (f == nullptr)
        return "";
    const std::string prompt =
        ts.sample_prompt.empty()
            ? default_sample_prompt(ts.probe_text, v.config.level == train::TextLevel::Word)
            : ts.sample_prompt;
    train::TextVocabulary vocabulary;
    const Status vocabulary_status =
        train::TextVocabulary::from_symbols(v.config.level, v.vocabulary, &vocabulary);
    if (!vocabulary_status)
    {
        *error = "This model's vocabulary is not one of text: " + vocabulary_status.message();
        return "";
    }
    SampleRequest request;
    request.model = v.model;
    request.params = f->params;
    request.prompt = vocabulary.encode(prompt);
    request.temperature = ts.sample_temperature;
    request.seed = ts.sample_seed;
    request.step = f->step;
    // A picture waits for its sample; the window never does (the worker answers a frame or two later).
    if (state.mouse_ignored)
        state.text_sampler.request_now(request);
    else
        state.text_sampler.request(request);
    state.text_sampler.poll(&ts.sample);
    const SampleResult& r = ts.sample;
    if (r.version == 0)
        return "";
    if (!r.status)
    {
        *error = r.status.message();
        return "";
    }
    // Characters as they are, words with spaces between them (decoded together, so that the first written
    // word is spaced from the prompt's last).
    std::vector<int> ids = r.request.prompt;
    *prompt_bytes = vocabulary.decode(ids.data(), static_cast<int>(ids.size())).size();
    ids.insert(ids.end(), r.tokens.begin(), r.tokens.end());
    return vocabulary.decode(ids.data(), static_cast<int>(ids.size()));
}

void draw_text_samples(AppState& state)
{
    TrainingPanelState& ts = state.training;
    const TrainingFrame* f = shown_frame(ts);
    if (f == nullptr)
        return;
    const float fs = ImGui::GetFontSize();
    // Folded at first in a short window, where the maps need the room; nothing is written while it is.
    ImGui::SetNextItemOpen(ImGui::GetIO().DisplaySize.y >= fs * kSampleOpenHeightEm, ImGuiCond_Once);
    const bool open = ImGui::TreeNodeEx("sample", ImGuiTreeNodeFlags_NoTreePushOnOpen);
    item_tooltip("Text the model writes at the step the timeline shows: from the prompt, one character at a "
                 "time, each drawn from its predicted probabilities. Early in a run it is noise; as the loss "
                 "falls, spaces, then common words and spellings appear.");
    if (!open)
    {
        ImGui::SameLine();
        ImGui::TextDisabled("(open to see what the model writes at step %d)", f->step);
        return;
    }
    std::size_t prompt_bytes = 0;
    std::string error;
    const std::string text = training_sample_text(state, &prompt_bytes, &error);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(fs * 7.0f);
    ImGui::SliderFloat("temperature", &ts.sample_temperature, 0.0f, 2.0f, "%.2f",
                       ImGuiSliderFlags_AlwaysClamp);
    item_tooltip("Divides the logits before the softmax: p ∝ exp(logit / temperature). 1: the model's own "
                 "probabilities; lower (0.8, the default) favours its likelier characters, so the text is "
                 "tamer and repeats itself more; 0 always takes the most probable one; higher than 1 "
                 "flattens the choice towards noise.");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(fs * 6.0f);
    ImGui::InputScalar("seed##sample", ImGuiDataType_U64, &ts.sample_seed);
    item_tooltip("The random draws of the sample: the same seed, step, prompt and temperature give the same "
                 "text, so a change you see is the model's.");
    ImGui::SameLine();
    if (ImGui::SmallButton("new seed"))
        ts.sample_seed += 1;
    item_tooltip("Other random draws (seed + 1): another sample of the same model.");
    if (ts.sample.version != 0 && ts.sample.status && !state.mouse_ignored)
    {
        // The worker's time and step, so a slow machine can be told from a stalled frame (left out of
        // pictures: the time is the machine's).
        ImGui::SameLine();
        ImGui::TextDisabled("step %d, %.0f ms%s", ts.sample.request.step, ts.sample.ms,
                            state.text_sampler.pending() ? " …" : "");
        item_tooltip("The step whose weights wrote the text shown, and how long the worker thread took to "
                     "write its 200 characters (one forward pass a character). \"…\": a newer one is being "
                     "written.");
    }
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < fs * 14.0f)
        ImGui::NewLine(); // a narrow panel: the prompt on a line of its own
    ImGui::TextUnformatted("prompt");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(std::max(fs * 6.0f, ImGui::GetContentRegionAvail().x - fs * 7.0f));
    input_text_with_hint(
        "##sample_prompt",
        default_sample_prompt(ts.probe_text, ts.view.config.level == train::TextLevel::Word).c_str(),
        &ts.sample_prompt);
    item_tooltip("The text the model goes on from (empty: the probe's first characters). A character the "
                 "model's vocabulary lacks reads as its unknown symbol.");

    // The text: a fixed height, so the maps below keep their place as samples come and go.
    // Three lines (200 characters at 1280 pixels); the box scrolls the rest.
    const float height = ImGui::GetTextLineHeightWithSpacing() * 3.0f + ImGui::GetStyle().WindowPadding.y;
    ImGui::BeginChild("sample_text", ImVec2(0.0f, height), false);
    if (!error.empty())
        error_text(error);
    else if (text.empty())
        ImGui::TextDisabled("Writing…");
    else
        draw_sample_text(text, prompt_bytes, ImGui::GetContentRegionAvail().x);
    ImGui::EndChild();
}

} // namespace attnlab
