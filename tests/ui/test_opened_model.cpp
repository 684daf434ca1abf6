// A Hugging Face model folder opened in the app: its pieces as token chips and its name in the panels, a bad
// folder or a cancelled load changing nothing, edits run through it, and sessions that refer to the folder.
#include "config_home.h"
#include "core/io/session_file.h"
#include "ui/model/opened_model.h"
#include "ui/model/session_files.h"
#include "ui/panels/panels.h"
#include "ui/picture/heatmap_math.h"
#include "ui/shell/app_ui.h"
#include "ui/shell/file_actions.h"
#include "ui/shell/fonts.h"
#include "ui/shell/presenter.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <thread>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;
using test::contains;

const std::string kGpt2 = std::string(ATTNLAB_SOURCE_DIR) + "/tests/data/hf_tiny/gpt2";
const std::string kBert = std::string(ATTNLAB_SOURCE_DIR) + "/tests/data/hf_tiny/bert";

class OpenedModelTest : public ConfigHomeTest
{
protected:
    void SetUp() override
    {
        ConfigHomeTest::SetUp();
        state = std::make_unique<AppState>();
        state->session.text = "the cat sat";
        state->edit();
        state->finish_recompute();
    }
    test::HeadlessUi ui; // before state: the heatmaps' textures outlive the state that holds them
    std::unique_ptr<AppState> state;
};

TEST_F(OpenedModelTest, Gpt2PiecesAreTheChipsAndEveryPanelNamesTheModel)
{
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    ASSERT_NE(state->opened.model, nullptr);
    state->finish_recompute();
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    ASSERT_TRUE(state->showing_opened());
    const Trace& t = state->trace();
    EXPECT_EQ(t.model_source, state->opened.model->source());
    EXPECT_TRUE(contains(t.model_source, "GPT-2")) << t.model_source;
    EXPECT_TRUE(contains(shown_model_label(*state), kGpt2));
    EXPECT_EQ(t.config.d_model, state->opened.model->config.d_model);
    // GPT-2's pieces: a word after a space starts with the visible space mark.
    const std::vector<std::string>& pieces = t.tokens.tokens[0];
    ASSERT_GE(pieces.size(), 2u);
    bool marked = false;
    for (const std::string& p : pieces)
        marked = marked || p.rfind("␣", 0) == 0;
    EXPECT_TRUE(marked);
    // The session now refers to the folder.
    EXPECT_EQ(state->session.model_folder, fs::absolute(kGpt2).lexically_normal().string());

    const test::FrameOutput out = ui.frames(*state, 3);
    EXPECT_TRUE(contains(out.text, "0 " + pieces[0])) << out.text; // the first chip, as the Input panel draws
    EXPECT_TRUE(contains(out.text, "pretrained, from")) << out.text;
    EXPECT_TRUE(contains(out.text, "GPT-2 (")) << out.text;
}

TEST_F(OpenedModelTest, EveryMainPanelDrawsTheOpenedModel)
{
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->session.text = "the cat sat on the mat";
    state->edit();
    state->finish_recompute();
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    state->sel.layer = 1; // the second of its two layers
    // The Inspector on a pinned attention weight of that layer: its formula with the model's numbers.
    state->pinned = CellRef{true, selected_stage(*state, Stage::weights, 2), 3, 1};
    for (void (*panel)(AppState&) :
         {draw_pipeline_panel, draw_heads_panel, draw_inspector_panel, draw_comparisons_panel})
    {
        const test::FrameOutput out = ui.frames(*state, 2, test::panel_only(panel));
        EXPECT_TRUE(contains(out.text, "GPT-2 (")) << out.text;
    }
    const MatrixView v = resolve_matrix(*state, state->pinned.matrix);
    ASSERT_NE(v.m, nullptr);
    EXPECT_EQ(v.m->rows(), static_cast<int>(state->trace().tokens.tokens[0].size()));
    // The layers x heads overview: a map per layer and head of the model (2 x 4).
    state->heads_panel.view = HeadsView::AllLayers;
    set_query_pin(state->heads_panel.query, 3, state->trace().tokens.tokens[0]);
    const test::FrameOutput overview = ui.frames(*state, 4, test::panel_only(draw_heads_panel));
    EXPECT_TRUE(contains(overview.text, "layer 2")) << overview.text;
    EXPECT_TRUE(contains(overview.text, "head 4")) << overview.text;
}

// The Input panel speaks of the opened model's input: one sequence of its pieces, however many lines (it said
// "one per line = a batch" and offered a cross-attention target the model never reads).
TEST_F(OpenedModelTest, TheInputPanelSaysTheModelReadsOneSequence)
{
    state->session.text = "the cat\nsat";
    state->edit();
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->finish_recompute();
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    test::FrameOutput out = ui.frames(*state, 2, test::panel_only(draw_input_panel));
    EXPECT_TRUE(contains(out.text, "Text (one sequence, whatever its lines)")) << out.text;
    EXPECT_TRUE(contains(out.text, "Tokens: T = " + std::to_string(state->trace().T()) + " of at most 16"))
        << out.text;
    EXPECT_FALSE(contains(out.text, "one per line")) << out.text;
    EXPECT_FALSE(contains(out.text, "Target")) << out.text;
    close_model(*state);
    state->finish_recompute();
    out = ui.frames(*state, 2, test::panel_only(draw_input_panel));
    EXPECT_TRUE(contains(out.text, "Sentences (one per line = a batch)")) << out.text;
    EXPECT_TRUE(contains(out.text, "Target (optional")) << out.text;
}

// Presenter mode's edit bar over an opened model: the field holds the whole text (it held the first line, and
// a new sentence kept the second, making a text too long for the model), and the settings, which the model's
// files fix, are not offered: a key for them says so and changes nothing (d_model + changed the session
// behind the model, unseen).
TEST_F(OpenedModelTest, ThePresenterEditBarEditsTheWholeTextAndLeavesTheSettings)
{
    state->session.text = "The cat sat.\nThe dog";
    state->edit();
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->finish_recompute();
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    state->presenter = true;
    ui.frames(*state, 1);
    toggle_presenter_edit(*state);
    ASSERT_TRUE(state->presenter_edit);
    EXPECT_EQ(state->presenter_text, "The cat sat. The dog");
    test::FrameOutput out = ui.frames(*state, 2);
    EXPECT_TRUE(contains(out.text, "GPT-2 (35k parameters): its own settings")) << out.text;
    EXPECT_FALSE(contains(out.text, "d_model = 16")) << out.text;

    const Config before = state->session.config;
    for (const PresenterSetting setting : {PresenterSetting::heads, PresenterSetting::d_model,
                                           PresenterSetting::mask, PresenterSetting::temperature})
        presenter_edit_step(*state, setting, +1);
    EXPECT_TRUE(state->session.config == before);
    out = ui.frames(*state, 2);
    EXPECT_TRUE(contains(test::window_text("##presenter_title"), "keeps its settings")) << out.text;

    // Without the bar, a settings key says the same, not "press E first".
    toggle_presenter_edit(*state);
    ASSERT_FALSE(state->presenter_edit);
    ui.frames(*state, 1);
    ui.press_key(*state, keys::M);
    ui.frames(*state, 1);
    EXPECT_TRUE(state->session.config == before);
    EXPECT_TRUE(contains(test::window_text("##presenter_title"), "keeps its settings"))
        << test::window_text("##presenter_title");
    EXPECT_FALSE(contains(state->message, "press E first")) << state->message;
    toggle_presenter_edit(*state);
    ui.frames(*state, 3);

    // The text typed replaces the whole of it: no second line is left behind.
    for (const char c : std::string(" ran"))
        ImGui::GetIO().AddInputCharacter(static_cast<unsigned>(c));
    ui.frames(*state, 1);
    ImGui::GetIO().KeyMap[ImGuiKey_Enter] = 257; // as GLFW_KEY_ENTER
    ui.press_key(*state, 257);
    state->finish_recompute();
    EXPECT_EQ(state->session.text, "The cat sat. The dog ran");
    EXPECT_TRUE(state->status.is_ok()) << state->status.message();
}

// A GPT-2 chip shows a carriage return as "␍", which DejaVu Sans lacks: with a model open the atlas asks for
// it (from a fallback font), since the predictions and the logit lens show pieces the text does not have
// (they showed a box).
TEST_F(OpenedModelTest, TheCarriageReturnsMarkJoinsTheAtlasWithAModel)
{
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->finish_recompute();
    ui.frames(*state, 2);
    const std::vector<char32_t>& extra = state->glyphs.extra;
    EXPECT_NE(std::find(extra.begin(), extra.end(), U'\u240D'), extra.end());
    ASSERT_TRUE(load_fonts(15.0f, nullptr, extra));
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    if (!fs::exists("/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf"))
        GTEST_SKIP() << "Symbola (fonts-symbola) is not installed";
    EXPECT_NE(ImGui::GetIO().Fonts->Fonts[0]->FindGlyphNoFallback(0x240D), nullptr);
}

// A model opened on a text it cannot read (longer than its context) has no result: each main panel says why,
// since the Input panel's error may be scrolled out of sight (they said "fix the input or the model
// settings").
TEST_F(OpenedModelTest, WithNoResultEachMainPanelSaysWhy)
{
    state->session.text = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen";
    state->edit();
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->finish_recompute();
    ASSERT_FALSE(state->status.is_ok());
    ASSERT_FALSE(state->has_trace());
    for (void (*panel)(AppState&) : {draw_pipeline_panel, draw_heads_panel, draw_comparisons_panel})
    {
        const test::FrameOutput out = ui.frames(*state, 2, test::panel_only(panel));
        std::string flat = out.text;
        std::replace(flat.begin(), flat.end(), '\n', ' ');
        EXPECT_TRUE(contains(flat, "No result yet: The text is")) << flat;
        EXPECT_TRUE(contains(flat, "shorten the text")) << flat;
    }
}

TEST_F(OpenedModelTest, ALayersMatricesAreCopiedOnlyWhenReadAndEqualTheModels)
{
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->finish_recompute();
    ASSERT_TRUE(state->showing_opened());
    const HfLoadedModel& model = *state->opened.model;
    const int layers = model.config.n_layers, h = model.config.n_heads, d_k = model.config.d_k();
    ASSERT_EQ(state->weights().layers.size(), static_cast<std::size_t>(layers));
    state->sel.layer = 0;
    // The panels read layer 1 (the selection's); the last layer is not looked at and holds nothing.
    ui.frames(*state, 2);
    const LayerWeights& unread = state->weights().layers[static_cast<std::size_t>(layers - 1)];
    EXPECT_TRUE(unread.attn.W_Q.empty());
    EXPECT_EQ(unread.W_1.size(), 0);
    // Read, each layer equals the model's parameters in core's layout.
    for (int l = 0; l < layers; ++l)
    {
        const LayerWeights* w = state->layer_weights(l);
        ASSERT_NE(w, nullptr);
        const train::LayerParamsT<float>& p = model.params->layers[static_cast<std::size_t>(l)];
        ASSERT_EQ(w->attn.W_Q.size(), static_cast<std::size_t>(h));
        for (int j = 0; j < h; ++j)
        {
            EXPECT_EQ(w->attn.W_Q[static_cast<std::size_t>(j)], train::head_cols(p.W_Q, j, d_k))
                << l << " " << j;
            EXPECT_EQ(w->attn.W_K[static_cast<std::size_t>(j)], train::head_cols(p.W_K, j, d_k))
                << l << " " << j;
            EXPECT_EQ(w->attn.W_V[static_cast<std::size_t>(j)], train::head_cols(p.W_V, j, d_k))
                << l << " " << j;
        }
        EXPECT_EQ(w->attn.W_O, p.W_O);
        EXPECT_EQ(w->W_1, p.W_1);
        EXPECT_EQ(w->W_2, p.W_2);
        EXPECT_EQ(state->layer_weights(l), w); // read once, kept
    }
    EXPECT_EQ(state->layer_weights(layers), nullptr);
    EXPECT_EQ(state->layer_weights(-1), nullptr);
    // A matrix the Pipeline shows resolves to the model's numbers.
    MatrixRef ref;
    ref.source = MatrixSource::Weight;
    ref.weight = WeightMatrix::W_1;
    ref.layer = layers - 1;
    const MatrixView v = resolve_matrix(*state, ref);
    ASSERT_NE(v.m, nullptr);
    EXPECT_EQ(*v.m, model.params->layers[static_cast<std::size_t>(layers - 1)].W_1);
    close_model(*state);
    EXPECT_EQ(state->layer_weights(0), &state->engine.weights().layers[0]);
}

TEST_F(OpenedModelTest, BertShowsWordPiecesWithClsAndSep)
{
    ASSERT_TRUE(open_model_folder(*state, kBert).is_ok());
    state->session.text = "the cats sat";
    state->edit();
    state->finish_recompute();
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    const std::vector<std::string>& pieces = state->trace().tokens.tokens[0];
    ASSERT_GE(pieces.size(), 3u);
    EXPECT_EQ(pieces.front(), "[CLS]");
    EXPECT_EQ(pieces.back(), "[SEP]");
    EXPECT_TRUE(contains(state->trace().model_source, "BERT"));
    // A continuation piece keeps its "##" on the Input panel's chips (ImGui would hide it in a plain button
    // label; the Heads panel's query chips use the same button).
    state->session.text = "the cat playing";
    state->edit();
    state->finish_recompute();
    const std::vector<std::string>& words = state->trace().tokens.tokens[0];
    const auto at = std::find(words.begin(), words.end(), "##ing");
    ASSERT_NE(at, words.end());
    const int i = static_cast<int>(at - words.begin());
    EXPECT_TRUE(contains(ui.frames(*state, 3, test::panel_only(draw_input_panel)).text,
                         std::to_string(i) + " ##ing"));
}

TEST_F(OpenedModelTest, EditsRunThroughTheModelAndABadTextKeepsThePicture)
{
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->finish_recompute();
    const std::size_t T = state->trace().tokens.tokens[0].size();
    state->session.text = "the cat sat on the mat";
    state->edit();
    state->finish_recompute();
    ASSERT_TRUE(state->status.is_ok());
    EXPECT_GT(state->trace().tokens.tokens[0].size(), T);
    const unsigned long long generation = state->trace_generation();
    const std::vector<std::string> good = state->trace().tokens.tokens[0];

    // Longer than the model's context (16 positions): the message names the limit; the picture stays.
    state->session.text = "the cat sat on the mat and the dog sat on the rug and the bird sat in the tree";
    state->edit();
    state->finish_recompute();
    ASSERT_FALSE(state->status.is_ok());
    EXPECT_TRUE(contains(state->status.message(), "16")) << state->status.message();
    EXPECT_EQ(status_error_panel(*state), PanelId::Input);
    EXPECT_EQ(state->trace_generation(), generation);
    EXPECT_EQ(state->trace().tokens.tokens[0], good);

    state->session.text.clear();
    state->edit();
    state->finish_recompute();
    EXPECT_FALSE(state->status.is_ok());
    EXPECT_EQ(state->trace().tokens.tokens[0], good);
}

TEST_F(OpenedModelTest, ABadFolderChangesNothingAndSaysWhy)
{
    const std::string text_before = state->session.text;
    const unsigned long long generation = state->trace_generation();
    // Not a folder at all: refused at once, as the file dialog shows it.
    const Status missing = open_model_folder(*state, (home / "nowhere").string());
    EXPECT_FALSE(missing.is_ok());
    EXPECT_TRUE(contains(missing.message(), "nowhere")) << missing.message();
    // A folder without config.json: the load fails on its thread, the message says so.
    fs::create_directories(home / "empty_model");
    ASSERT_TRUE(open_model_folder(*state, (home / "empty_model").string()).is_ok());
    EXPECT_EQ(state->opened.model, nullptr);
    EXPECT_FALSE(state->showing_opened());
    EXPECT_TRUE(state->message_is_error);
    EXPECT_TRUE(contains(state->opened.load_error, "config.json")) << state->opened.load_error;
    EXPECT_TRUE(contains(state->message, "config.json")) << state->message;
    EXPECT_EQ(state->session.text, text_before);
    EXPECT_TRUE(state->session.model_folder.empty());
    EXPECT_EQ(state->trace_generation(), generation);
    EXPECT_EQ(shown_model_label(*state), "seeded random weights");

    // With a model open, a bad folder keeps it open.
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->finish_recompute();
    const std::string source = state->trace().model_source;
    ASSERT_TRUE(open_model_folder(*state, (home / "empty_model").string()).is_ok());
    ASSERT_NE(state->opened.model, nullptr);
    EXPECT_EQ(state->opened.model->source(), source);
    EXPECT_TRUE(state->showing_opened());
}

TEST_F(OpenedModelTest, CancelLeavesTheStateAsItWas)
{
    state->opened.load_wait_ms = 0.0; // as the window: the load goes on on its thread
    std::promise<void> release;
    std::shared_future<void> go = release.get_future().share();
    state->opened.loader.start(kGpt2, [go] { go.wait(); });
    EXPECT_TRUE(state->opened.loader.busy());
    EXPECT_FALSE(poll_model_load(*state)); // still loading: nothing taken
    cancel_model_load(*state);
    release.set_value();
    finish_model_load(*state);
    EXPECT_FALSE(state->opened.loader.busy());
    EXPECT_EQ(state->opened.model, nullptr);
    EXPECT_TRUE(contains(state->opened.load_error, "cancel")) << state->opened.load_error;
    EXPECT_TRUE(state->session.model_folder.empty());
    EXPECT_FALSE(state->showing_opened());

    // Not cancelled, the same load opens the model.
    state->opened.loader.start(kGpt2);
    finish_model_load(*state);
    EXPECT_NE(state->opened.model, nullptr);
}

TEST_F(OpenedModelTest, TheWindowShowsProgressThenTheErrorWhileFramesGoOn)
{
    state->opened.load_wait_ms = 0.0;
    std::promise<void> release;
    std::shared_future<void> go = release.get_future().share();
    state->opened.loader.start(kGpt2, [go] { go.wait(); });
    state->opened.popup_request = true;
    test::FrameOutput out = ui.frames(*state, 3);
    EXPECT_TRUE(contains(out.text, "Reading " + kGpt2)) << out.text;
    EXPECT_TRUE(contains(out.text, "Cancel")) << out.text;
    EXPECT_TRUE(contains(out.text, "0 %")) << out.text;
    cancel_model_load(*state);
    release.set_value();
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (state->opened.loader.busy() && std::chrono::steady_clock::now() < give_up)
    {
        out = ui.frame(*state); // each frame takes a finished load (poll_model_load), never waiting
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    out = ui.frames(*state, 2);
    EXPECT_FALSE(state->opened.loader.busy());
    EXPECT_EQ(state->opened.model, nullptr);
    EXPECT_TRUE(contains(out.text, "The model folder did not open")) << out.text;
    EXPECT_TRUE(contains(out.text, "OK")) << out.text;
}

// Once read, the popup says the model runs on the text until the first run is in, then closes.
TEST_F(OpenedModelTest, ThePopupNamesTheFirstRunAfterTheBarAndThenCloses)
{
    state->opened.load_wait_ms = 0.0;
    state->recompute_wait_ms = 0.0; // as the window: frames go on while the run computes
    std::promise<void> release;
    std::shared_future<void> go = release.get_future().share();
    state->opened.loader.start(kGpt2, [go] { go.wait(); });
    state->opened.popup_request = true;
    test::FrameOutput out = ui.frames(*state, 2);
    EXPECT_TRUE(contains(out.text, "Reading " + kGpt2)) << out.text;
    EXPECT_FALSE(contains(out.text, "running the model")) << out.text;
    release.set_value();
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (state->opened.model == nullptr && std::chrono::steady_clock::now() < give_up)
    {
        out = ui.frame(*state); // the frame that takes the load asks for the run: it is not in yet
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_NE(state->opened.model, nullptr);
    EXPECT_FALSE(state->has_trace());
    EXPECT_TRUE(contains(out.text, "running the model")) << out.text;
    EXPECT_FALSE(contains(out.text, "100 %")) << out.text;
    // The panels behind it say so too, not that the input needs fixing.
    EXPECT_TRUE(contains(out.text, "Running the model on the text")) << out.text;
    EXPECT_FALSE(contains(out.text, "fix the input")) << out.text;
    while (!state->has_trace() && std::chrono::steady_clock::now() < give_up)
    {
        ui.frame(*state);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_TRUE(state->has_trace());
    out = ui.frames(*state, 3);
    EXPECT_FALSE(contains(out.text, "running the model")) << out.text;
    EXPECT_FALSE(contains(out.text, "Opening a model folder")) << out.text;
}

TEST_F(OpenedModelTest, CloseModelShowsTheSessionAgain)
{
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->finish_recompute();
    ASSERT_TRUE(state->showing_opened());
    close_model(*state);
    state->finish_recompute();
    EXPECT_FALSE(state->showing_opened());
    EXPECT_TRUE(state->session.model_folder.empty());
    EXPECT_TRUE(state->trace().model_source.empty());
    EXPECT_EQ(state->trace().tokens.tokens[0].size(), 3u); // "the cat sat": the session's word tokens
    EXPECT_EQ(shown_model_label(*state), "seeded random weights");
}

TEST_F(OpenedModelTest, SessionRoundTripReopensTheFolder)
{
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->finish_recompute();
    const std::string path = (home / "with_model.json").string();
    ASSERT_TRUE(save_session_as(*state, path).is_ok());
    Session on_disk;
    ASSERT_TRUE(load_session_file(path, &on_disk).is_ok());
    EXPECT_FALSE(on_disk.model_folder.empty());

    close_model(*state);
    state->session.text = "something else";
    state->edit();
    ASSERT_TRUE(open_session_file(*state, path).is_ok());
    state->finish_recompute();
    EXPECT_EQ(state->session.text, "the cat sat");
    ASSERT_TRUE(state->showing_opened());
    EXPECT_TRUE(contains(state->trace().model_source, "GPT-2"));
    EXPECT_FALSE(has_unsaved_changes(*state));

    // A session whose folder is gone: the message names it, the other settings load, no model opens.
    Session moved = on_disk;
    moved.model_folder = (home / "moved_away").string();
    moved.text = "the dog sat";
    const std::string moved_path = (home / "moved.json").string();
    ASSERT_TRUE(save_session_file(moved, moved_path).is_ok());
    ASSERT_TRUE(open_session_file(*state, moved_path).is_ok());
    state->finish_recompute();
    EXPECT_TRUE(contains(state->message, "moved_away")) << state->message;
    EXPECT_TRUE(state->message_is_error);
    EXPECT_EQ(state->session.text, "the dog sat");
    EXPECT_FALSE(state->showing_opened());
    EXPECT_EQ(state->trace().tokens.tokens[0].size(), 3u);

    // A session without a folder is written without the key, as before it existed.
    close_model(*state);
    EXPECT_FALSE(contains(session_to_json(state->session), "model_folder"));
}

TEST_F(OpenedModelTest, RecentModelsRememberTheFolderAndDropAMissingOne)
{
    state->opened.recent_path = (home / "recent_models.txt").string();
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    ASSERT_TRUE(open_model_folder(*state, kBert).is_ok());
    ASSERT_EQ(state->opened.recent.size(), 2u);
    EXPECT_EQ(state->opened.recent.front(), kBert);
    AppState again;
    again.opened.recent_path = state->opened.recent_path;
    load_recent_models_into(again);
    EXPECT_EQ(again.opened.recent, state->opened.recent);

    fs::create_directories(home / "gone");
    ASSERT_TRUE(open_model_folder(*state, (home / "gone").string()).is_ok()); // fails: no config.json
    EXPECT_EQ(state->opened.recent.size(), 2u);                               // a failed open is not recent
    state->opened.recent.insert(state->opened.recent.begin(), (home / "gone_too").string());
    EXPECT_FALSE(open_recent_model(*state, (home / "gone_too").string()).is_ok());
    EXPECT_EQ(state->opened.recent.size(), 2u);
    EXPECT_TRUE(contains(state->message, "gone_too"));
}

TEST_F(OpenedModelTest, ModelPanelNamesTheOpenedModelAndKeepsTheSessionSettings)
{
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->finish_recompute();
    const Config before = state->session.config;
    const test::FrameOutput out = ui.frames(*state, 3, test::panel_only(draw_model_panel));
    EXPECT_TRUE(contains(out.text, "pretrained, from")) << out.text;
    EXPECT_EQ(state->session.config, before);
}

} // namespace
} // namespace attnlab

namespace attnlab
{
namespace
{

// File > Export trace as JSON writes what is shown: the opened model's pass (attnlab-model-trace with its ids
// and the model it is), not the session's seeded one.
TEST_F(OpenedModelTest, ExportTraceWritesTheOpenedModelsPass)
{
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->finish_recompute();
    ASSERT_TRUE(state->showing_opened());
    const fs::path path = home / "opened-trace.json";
    state->file_dialog.action = FileAction::ExportTraceJson;
    state->file_dialog.path = path.string();
    ASSERT_EQ(run_file_action(*state), "");
    std::ifstream in(path);
    ASSERT_TRUE(in.good());
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j.at("format"), "attnlab-model-trace");
    EXPECT_EQ(j.at("model").at("source"), state->opened.model->source());
    // The ids of the shown text, as the model's tokenizer gives them.
    Encoding e;
    ASSERT_TRUE(encode_for_model(*state->opened.model, state->session.text, &e).is_ok());
    EXPECT_EQ(j.at("token_ids").at(0).get<std::vector<int>>(), e.ids);
}

} // namespace
} // namespace attnlab

namespace attnlab
{
namespace
{

// The most probable entry of a row, found here apart from the panel's top-k.
int argmax(const Mat& m, int row)
{
    Eigen::Index at = 0;
    m.row(row).maxCoeff(&at);
    return static_cast<int>(at);
}

// Under the probabilities the Pipeline lists in words what they predict: GPT-2's next tokens at every
// position, BERT's fillers at each [MASK] (and where there is none, how to get one).
TEST_F(OpenedModelTest, PipelineListsTheTopNextTokensAndTheMaskFillers)
{
    ui.resize(1000, 1600);
    for (const bool bert : {false, true})
    {
        state->session.text = bert ? "the cat [MASK] playing" : "the cat sat";
        state->edit();
        ASSERT_TRUE(open_model_folder(*state, bert ? kBert : kGpt2).is_ok());
        state->finish_recompute();
        ASSERT_TRUE(state->showing_opened());
        state->stage_collapsed.fill(true); // one line a stage: the output fits the window
        state->sel.layer = static_cast<int>(state->trace().layers.size()) - 1;
        const test::FrameOutput out = ui.frames(*state, 3, test::panel_only(draw_pipeline_panel));
        const Trace& t = state->trace();
        const std::vector<std::string>& tokens = t.tokens.tokens[0];
        int row = static_cast<int>(tokens.size()) - 1; // GPT-2: the last position's next token
        if (bert)
        {
            EXPECT_TRUE(contains(out.text, "most probable tokens at each [MASK]")) << out.text;
            row = static_cast<int>(std::find(tokens.begin(), tokens.end(), "[MASK]") - tokens.begin());
            ASSERT_LT(row, static_cast<int>(tokens.size()));
        }
        else
            EXPECT_TRUE(contains(out.text, "most probable next tokens at each position")) << out.text;
        const std::string& best = t.vocabulary[static_cast<std::size_t>(argmax(t.probs[0], row))];
        char p[32];
        std::snprintf(p, sizeof p, "%.3f", static_cast<double>(t.probs[0].row(row).maxCoeff()));
        EXPECT_TRUE(contains(out.text, best + " " + p)) << best << " " << p << "\n"
                                                        << out.text; // spaces read as one
    }
    state->session.text = "the cat sat";
    state->edit();
    state->finish_recompute();
    const test::FrameOutput none = ui.frames(*state, 3, test::panel_only(draw_pipeline_panel));
    EXPECT_TRUE(contains(none.text, "Type [MASK] in the text")) << none.text;
}

// Head ablation: a head right-clicked in the overview is switched off; its own map stays, the later layer's
// maps and the predictions change, and the Pipeline lists them beside the predictions with every head on.
TEST_F(OpenedModelTest, HeadsSwitchedOffChangeLaterMapsAndThePredictionsBesideTheOldOnes)
{
    ui.resize(1400, 1000);
    state->session.text = "the cat sat on the mat";
    state->edit();
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->finish_recompute();
    ASSERT_TRUE(state->showing_opened());
    const Trace baseline = state->trace();
    const std::vector<train::PositionTop> baseline_predictions = state->opened.run.predictions;
    ASSERT_EQ(baseline_predictions.size(), baseline.tokens.tokens[0].size());
    EXPECT_TRUE(state->opened.run.before.empty());

    // Right-click layer 1's head 2 in the overview (whole maps: no query pinned).
    state->heads_panel.view = HeadsView::AllLayers;
    const auto heads = test::panel_only(draw_heads_panel);
    test::FrameOutput out = ui.frames(*state, 4, heads);
    EXPECT_TRUE(contains(out.text, "right-click a map to switch its head off")) << out.text;
    MatrixRef ref = selected_stage(*state, Stage::weights, 1);
    ref.layer = 0;
    const MatrixView map = resolve_matrix(*state, ref);
    ASSERT_NE(map.m, nullptr);
    const HeatmapEntry* entry = state->heatmaps.find(map.key);
    ASSERT_NE(entry, nullptr);
    ASSERT_EQ(out.texture_rects.count(entry->texture), 1u);
    const ImVec2 at = test::rect_center(out.texture_rects[entry->texture]);
    ui.click(*state, at.x, at.y, heads, 1);
    EXPECT_TRUE(head_is_off(*state, 0, 1));
    EXPECT_EQ(heads_off_count(*state), 1);
    state->finish_recompute();
    ASSERT_TRUE(state->status.is_ok()) << state->status.message();
    out = ui.frames(*state, 3, heads);
    EXPECT_TRUE(contains(out.text, "1 head off")) << out.text;
    EXPECT_TRUE(contains(out.text, "off")) << out.text;

    const Trace& t = state->trace();
    // The head's own weights are kept (only its output is zeroed); layer 2 sees another input.
    EXPECT_TRUE(t.layers[0].attn.head(0, 1).weights.isApprox(baseline.layers[0].attn.head(0, 1).weights));
    EXPECT_FALSE(
        t.layers[1].attn.head(0, 0).weights.isApprox(baseline.layers[1].attn.head(0, 0).weights, 1e-6f));
    EXPECT_FALSE(t.probs[0].isApprox(baseline.probs[0], 1e-6f));
    // Before and after, each position's top 5.
    const OpenedRun& run = state->opened.run;
    ASSERT_EQ(run.before.size(), baseline_predictions.size());
    for (std::size_t i = 0; i < run.before.size(); ++i)
        for (std::size_t r = 0; r < run.before[i].top.size(); ++r)
        {
            EXPECT_EQ(run.before[i].top[r].id, baseline_predictions[i].top[r].id);
            EXPECT_EQ(run.before[i].top[r].p, baseline_predictions[i].top[r].p);
        }
    const int last = static_cast<int>(t.tokens.tokens[0].size()) - 1;
    EXPECT_EQ(run.predictions.back().top[0].id, argmax(t.probs[0], last));
    ui.resize(1000, 1600);
    state->stage_collapsed.fill(true);
    state->sel.layer = 1;
    const test::FrameOutput pipeline = ui.frames(*state, 3, test::panel_only(draw_pipeline_panel));
    EXPECT_TRUE(contains(pipeline.text, "1 head off")) << pipeline.text;
    EXPECT_TRUE(contains(pipeline.text, "all heads on")) << pipeline.text;

    // In the layer's grid a right click on a map switches its head too (no export menu there).
    ui.resize(1400, 1000);
    state->heads_panel.view = HeadsView::Maps;
    state->sel.layer = 1;
    out = ui.frames(*state, 3, heads);
    MatrixRef grid_ref = selected_stage(*state, Stage::weights, 0);
    const HeatmapEntry* grid_entry = state->heatmaps.find(resolve_matrix(*state, grid_ref).key);
    ASSERT_NE(grid_entry, nullptr);
    ASSERT_EQ(out.texture_rects.count(grid_entry->texture), 1u);
    const ImVec2 grid_at = test::rect_center(out.texture_rects[grid_entry->texture]);
    ui.click(*state, grid_at.x, grid_at.y, heads, 1);
    EXPECT_TRUE(head_is_off(*state, 1, 0));
    EXPECT_EQ(heads_off_count(*state), 2);
    EXPECT_FALSE(ImGui::IsPopupOpen("##heatmap_menu", ImGuiPopupFlags_AnyPopupId));

    // Every head on again: the first picture, bit for bit, and no "before" column.
    all_heads_on(*state);
    state->finish_recompute();
    EXPECT_EQ(heads_off_count(*state), 0);
    EXPECT_TRUE(state->opened.run.before.empty());
    EXPECT_EQ(state->trace().probs[0], baseline.probs[0]);
}

// The attention-sink switch: the maps hide key 0 and renormalise each row; the Inspector keeps the model's
// own weight and says what is shown.
TEST_F(OpenedModelTest, HidingTheFirstKeyRenormalisesTheRowsOfTheMapsOnly)
{
    state->session.text = "the cat sat on the mat";
    state->edit();
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->finish_recompute();
    MatrixRef ref = selected_stage(*state, Stage::weights, 2);
    const Mat own = *resolve_matrix(*state, ref).m;
    ref.first_key_hidden = true;
    const MatrixView hidden = resolve_matrix(*state, ref);
    ASSERT_NE(hidden.m, nullptr);
    ASSERT_EQ(hidden.m->rows(), own.rows());
    EXPECT_NE(hidden.key, resolve_matrix(*state, selected_stage(*state, Stage::weights, 2)).key);
    for (int i = 1; i < own.rows(); ++i) // query 0 of a causal map sees key 0 only: its row stays 0
    {
        EXPECT_EQ((*hidden.m)(i, 0), 0.0f);
        EXPECT_NEAR(hidden.m->row(i).sum(), 1.0f, 1e-5f);
        for (int j = 1; j <= i; ++j)
            EXPECT_NEAR((*hidden.m)(i, j), own(i, j) / (1.0f - own(i, 0)), 1e-5f);
    }
    EXPECT_EQ(hidden.m->row(0).sum(), 0.0f);

    state->heads_panel.hide_first_key = true;
    const test::FrameOutput out = ui.frames(*state, 3, test::panel_only(draw_heads_panel));
    EXPECT_TRUE(contains(out.text, "first key hidden")) << out.text;
    state->pinned = CellRef{true, ref, 3, 1};
    const test::FrameOutput inspector = ui.frames(*state, 2, test::panel_only(draw_inspector_panel));
    EXPECT_TRUE(contains(inspector.text, "shown with the first key hidden")) << inspector.text;
    EXPECT_TRUE(contains(inspector.text, format_value_long(own(3, 1)))) << inspector.text;
}

// A layer's copy in core's layout is freed once no panel has read it for kKeepUnreadLayerFrames frames, and
// copied again, the same, when read again: looking at every layer once does not keep them all.
TEST_F(OpenedModelTest, LayerCopiesNobodyReadsAreFreedAndComeBackTheSame)
{
    state->session.text = "the cat sat on the mat";
    state->edit();
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->finish_recompute();
    const LayerWeights* first = opened_layer_weights(state->opened, 0);
    ASSERT_NE(first, nullptr);
    const Mat w_q = first->attn.W_Q.front();
    const Mat w_1 = first->W_1;
    ASSERT_NE(opened_layer_weights(state->opened, 1), nullptr);
    for (int f = 0; f < kKeepUnreadLayerFrames - 1; ++f)
    {
        state->begin_frame();
        opened_layer_weights(state->opened, 1); // layer 1 stays in view
    }
    EXPECT_FALSE(state->opened.weights.layers[0].attn.W_Q.empty()) << "freed too soon";
    for (int f = 0; f < 2; ++f)
    {
        state->begin_frame();
        opened_layer_weights(state->opened, 1);
    }
    EXPECT_TRUE(state->opened.weights.layers[0].attn.W_Q.empty());
    EXPECT_EQ(state->opened.weights.layers[0].W_1.size(), 0);
    EXPECT_FALSE(state->opened.weights.layers[1].attn.W_Q.empty()) << "read every frame: kept";
    const LayerWeights* again = opened_layer_weights(state->opened, 0);
    ASSERT_NE(again, nullptr);
    EXPECT_TRUE(again->attn.W_Q.front() == w_q);
    EXPECT_TRUE(again->W_1 == w_1);
}

// The logit lens, computed while the Pipeline shows it: its last row is the model's own prediction.
TEST_F(OpenedModelTest, LogitLensIsComputedOnRequestAndItsLastRowIsThePrediction)
{
    state->session.text = "the cat sat on the mat";
    state->edit();
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->finish_recompute();
    EXPECT_FALSE(state->opened.run.has_lens); // not asked for: not computed
    want_logit_lens(*state, true);
    state->finish_recompute();
    const OpenedRun& run = state->opened.run;
    ASSERT_TRUE(run.has_lens);
    const Trace& t = state->trace();
    const int layers = static_cast<int>(t.layers.size());
    ASSERT_EQ(run.lens.n_layers, layers);
    ASSERT_EQ(run.lens.T, t.T());
    for (int i = 0; i < t.T(); ++i)
    {
        EXPECT_EQ(run.lens.at(layers, i).id, argmax(t.probs[0], i)) << i;
        EXPECT_NEAR(run.lens.at(layers, i).p, t.probs[0].row(i).maxCoeff(), 1e-5f) << i;
    }
    ui.resize(1000, 1600);
    state->stage_collapsed.fill(true);
    state->sel.layer = layers - 1; // the output stages follow the last layer
    const test::FrameOutput out = ui.frames(*state, 3, test::panel_only(draw_pipeline_panel));
    EXPECT_TRUE(contains(out.text, "Logit lens")) << out.text;
    EXPECT_TRUE(contains(out.text, "after layer " + std::to_string(layers))) << out.text;
    EXPECT_TRUE(contains(out.text, "embeddings")) << out.text;
    // Another panel in front: the header is not drawn, so the runs skip the lens, though it stays wanted.
    ui.frames(*state, 2, test::panel_only(draw_heads_panel));
    state->session.text = "the dog sat on the mat";
    state->edit();
    state->finish_recompute();
    EXPECT_TRUE(state->opened.lens_wanted);
    EXPECT_FALSE(state->opened.run.has_lens);
    // The Pipeline in front again: it asks for a run with the lens.
    ui.frames(*state, 2, test::panel_only(draw_pipeline_panel));
    state->finish_recompute();
    ASSERT_TRUE(state->opened.run.has_lens);
    EXPECT_EQ(state->opened.run.lens.T, state->trace().T());
    // The header is closed: the next runs no longer compute it.
    want_logit_lens(*state, false);
    state->session.text = "the cat sat on a mat";
    state->edit();
    state->finish_recompute();
    EXPECT_FALSE(state->opened.run.has_lens);
}

// The Inspector's query cell of an opened model: x_i · W_h^Q[:, c] plus the model's bias, which adds up to
// the value shown.
TEST_F(OpenedModelTest, InspectorAddsTheProjectionBiasOfAnOpenedModel)
{
    state->session.text = "the cat sat on the mat";
    state->edit();
    ASSERT_TRUE(open_model_folder(*state, kGpt2).is_ok());
    state->finish_recompute();
    const int layer = 1, head = 2, row = 3, col = 1;
    MatrixRef ref = selected_stage(*state, Stage::Q, head);
    ref.layer = layer;
    state->pinned = CellRef{true, ref, row, col};
    const test::FrameOutput out = ui.frames(*state, 2, test::panel_only(draw_inspector_panel));
    EXPECT_TRUE(contains(out.text, "+ b_3^Q[c]")) << out.text;
    const train::LayerParamsT<float>& p = state->opened.model->params->layers[layer];
    const int d_k = state->opened.model->config.d_model / state->opened.model->config.n_heads;
    const float b = p.b_Q(0, head * d_k + col);
    EXPECT_TRUE(contains(out.text, "b_3^Q[c] = " + format_value_long(b))) << out.text;
    // x_i · W[:, c] + b is the value the trace holds.
    const Trace& t = state->trace();
    const float xw = t.layers[layer].ln1[0].row(row).dot(p.W_Q.col(head * d_k + col));
    EXPECT_NEAR(xw + b, t.layers[layer].attn.head(0, head).Q(row, col), 1e-4f);
}

// The window's token limit: GPT-2 small's every intermediate at its 1024-token context would take some 10
// GB, so the window stops below it, at a multiple of 64; a small model keeps its whole context.
TEST(OpenedTokenLimit, CutsLargeModelsBelowTheirContextAndKeepsSmallOnes)
{
    train::ModelConfig gpt2;
    gpt2.n_layers = 12;
    gpt2.n_heads = 12;
    gpt2.vocab_size = 50257;
    gpt2.T_max = 1024;
    const int limit = opened_token_limit(gpt2);
    EXPECT_LT(limit, 1024);
    EXPECT_GE(limit, 256);
    EXPECT_EQ(limit % 64, 0);
    const double maps = 12.0 * 12.0 * limit * limit;
    EXPECT_LE(4.0 * (14.0 * maps + 6.0 * limit * 50257.0), kOpenedMemoryBudget);
    train::ModelConfig tiny = gpt2;
    tiny.n_layers = 2;
    tiny.n_heads = 4;
    tiny.vocab_size = 1000;
    tiny.T_max = 128;
    EXPECT_EQ(opened_token_limit(tiny), 128);
}

} // namespace
} // namespace attnlab
