// A Hugging Face model folder opened in the app: its pieces as token chips and its name in the panels, a bad
// folder or a cancelled load changing nothing, edits run through it, and sessions that refer to the folder.
#include "config_home.h"
#include "core/io/session_file.h"
#include "ui/model/opened_model.h"
#include "ui/model/session_files.h"
#include "ui/panels/panels.h"
#include "ui/shell/app_ui.h"
#include "ui/shell/file_actions.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

} // namespace
} // namespace attnlab
