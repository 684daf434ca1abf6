// attnlab-model files: a saved then loaded model is bit-identical; every malformed field is refused by name.
#include "core/io/model_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;
using json = nlohmann::json;
using train::NormPlacement;
using train::PositionKind;
using train::TaskKind;

// A small model of task trained a few steps, with one logged row per step.
TrainedModel small_model(TaskKind task, bool attention_only = false, NormPlacement norm = NormPlacement::Pre,
                         PositionKind positions = PositionKind::Learned, bool residual = true)
{
    train::Preset preset = train::Task(task).preset();
    preset.model.d_model = 8;
    preset.model.n_heads = 2;
    preset.model.n_layers = 2;
    preset.model.d_ff = 12;
    preset.model.attention_only = attention_only;
    preset.model.norm = norm;
    preset.model.positions = positions;
    preset.model.residual = residual;
    preset.train.batch_size = 8;
    preset.train.held_out_size = 16;
    train::Trainer trainer;
    EXPECT_TRUE(trainer.init(task, preset).is_ok());
    std::vector<MetricRow> history;
    trainer.run(3,
                [&](const train::StepStats& s)
                {
                    history.push_back(metric_row(s, trainer.evaluate()));
                    return true;
                });
    return trained_model(trainer, std::move(history));
}

bool same_bits(const train::MatT<float>& a, const train::MatT<float>& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<size_t>(a.size())) == 0;
}

void expect_same_model(TrainedModel& a, TrainedModel& b)
{
    EXPECT_EQ(a.task, b.task);
    EXPECT_EQ(a.vocabulary, b.vocabulary);
    EXPECT_EQ(a.steps_taken, b.steps_taken);
    const train::ModelConfig &ca = a.config, &cb = b.config;
    EXPECT_EQ(ca.vocab_size, cb.vocab_size);
    EXPECT_EQ(ca.T_max, cb.T_max);
    EXPECT_EQ(ca.d_model, cb.d_model);
    EXPECT_EQ(ca.n_heads, cb.n_heads);
    EXPECT_EQ(ca.n_layers, cb.n_layers);
    EXPECT_EQ(ca.d_ff, cb.d_ff);
    EXPECT_EQ(ca.attention_only, cb.attention_only);
    EXPECT_EQ(ca.norm, cb.norm);
    EXPECT_EQ(ca.positions, cb.positions);
    EXPECT_EQ(ca.residual, cb.residual);
    EXPECT_EQ(ca.causal, cb.causal);
    EXPECT_EQ(ca.seed, cb.seed);
    const train::OptimizerSettings &oa = a.settings.optimizer, &ob = b.settings.optimizer;
    EXPECT_EQ(a.settings.batch_size, b.settings.batch_size);
    EXPECT_EQ(a.settings.steps, b.settings.steps);
    EXPECT_EQ(a.settings.data_seed, b.settings.data_seed);
    EXPECT_EQ(a.settings.held_out_size, b.settings.held_out_size);
    EXPECT_EQ(oa.lr, ob.lr);
    EXPECT_EQ(oa.beta1, ob.beta1);
    EXPECT_EQ(oa.beta2, ob.beta2);
    EXPECT_EQ(oa.eps, ob.eps);
    EXPECT_EQ(oa.weight_decay, ob.weight_decay);
    EXPECT_EQ(oa.grad_clip, ob.grad_clip);
    EXPECT_EQ(oa.schedule, ob.schedule);
    ASSERT_EQ(a.history.size(), b.history.size());
    for (size_t i = 0; i < a.history.size(); ++i)
    {
        EXPECT_EQ(a.history[i].step, b.history[i].step);
        EXPECT_EQ(a.history[i].loss, b.history[i].loss);
        EXPECT_EQ(a.history[i].held_out_loss, b.history[i].held_out_loss);
        EXPECT_EQ(a.history[i].accuracy, b.history[i].accuracy);
        EXPECT_EQ(a.history[i].previous_token, b.history[i].previous_token);
        EXPECT_EQ(a.history[i].induction, b.history[i].induction);
    }
    const auto ta = train::named_tensors(a.config, a.params);
    const auto tb = train::named_tensors(b.config, b.params);
    ASSERT_EQ(ta.size(), tb.size());
    for (size_t i = 0; i < ta.size(); ++i)
    {
        EXPECT_EQ(ta[i].name, tb[i].name);
        EXPECT_TRUE(same_bits(*ta[i].value, *tb[i].value)) << ta[i].name;
    }
    EXPECT_TRUE(same_bits(a.params.P, b.params.P)) << "P";
}

struct TempFile
{
    TempFile()
    {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        path =
            (fs::temp_directory_path() / ("attnlab_model_" + std::string(info->name()) + ".json")).string();
        fs::remove(path);
    }
    ~TempFile() { fs::remove(path); }
    std::string path;
};

void round_trip(TrainedModel model)
{
    TempFile file;
    ASSERT_TRUE(write_model_file(model, file.path).is_ok());
    TrainedModel loaded;
    const Status s = load_model_file(file.path, &loaded);
    ASSERT_TRUE(s.is_ok()) << s.message();
    expect_same_model(model, loaded);
    // Saving the loaded model gives the same bytes.
    EXPECT_EQ(model_to_json(loaded), model_to_json(model));
}

TEST(ModelFile, RoundTripIsBitIdenticalAfterTraining)
{
    TrainedModel model = small_model(TaskKind::Reverse);
    EXPECT_EQ(model.steps_taken, 3);
    ASSERT_EQ(model.history.size(), 3u);
    EXPECT_EQ(model.history[0].previous_token.size(), 4u); // 2 layers x 2 heads
    round_trip(model);
}

TEST(ModelFile, ANegativeZeroWeightKeepsItsSign)
{
    // "-0" reads back as the integer 0; the file must say -0.0 for the round trip to stay bit-identical.
    TrainedModel model = small_model(TaskKind::Reverse);
    ASSERT_GT(model.params.P.size(), 0);
    model.params.P(0, 0) = -0.0f;
    const std::string text = model_to_json(model);
    EXPECT_NE(text.find("-0.0"), std::string::npos);
    TrainedModel loaded;
    const Status s = parse_model_json(text, "negative_zero.json", &loaded);
    ASSERT_TRUE(s.is_ok()) << s.message();
    EXPECT_TRUE(std::signbit(loaded.params.P(0, 0)));
    round_trip(model);
}

TEST(ModelFile, AttentionOnlyHasNoFfnOrSecondLayerNorm)
{
    TrainedModel model = small_model(TaskKind::Induction, true);
    const json doc = json::parse(model_to_json(model));
    const json& layer = doc["weights"]["layers"][0];
    for (const char* key : {"W_1", "b_1", "W_2", "b_2", "gamma_2", "beta_2"})
        EXPECT_FALSE(layer.contains(key)) << key;
    EXPECT_TRUE(layer.contains("gamma_1"));
    round_trip(model);
}

TEST(ModelFile, PostLnHasNoFinalLayerNorm)
{
    TrainedModel model = small_model(TaskKind::Sort, false, NormPlacement::Post);
    const json doc = json::parse(model_to_json(model));
    EXPECT_FALSE(doc["weights"].contains("ln_f"));
    EXPECT_EQ(doc["config"]["norm"], "post");
    round_trip(model);
}

TEST(ModelFile, SinusoidalPositionsAreNotWrittenAndComeBack)
{
    TrainedModel model = small_model(TaskKind::Copy, false, NormPlacement::Pre, PositionKind::Sinusoidal);
    const json doc = json::parse(model_to_json(model));
    EXPECT_FALSE(doc["weights"].contains("positions"));
    EXPECT_EQ(doc["config"]["positions"], "sinusoidal");
    EXPECT_NE(model.params.P.norm(), 0.0f);
    round_trip(model); // compares P too
}

TEST(ModelFile, NoResidualAndNoPositionsRoundTrip)
{
    for (const NormPlacement norm : {NormPlacement::Pre, NormPlacement::Post})
    {
        TrainedModel model = small_model(TaskKind::Copy, false, norm, PositionKind::None, false);
        const json doc = json::parse(model_to_json(model));
        EXPECT_EQ(doc["config"]["residual"], false);
        EXPECT_EQ(doc["config"]["positions"], "none");
        EXPECT_FALSE(doc["weights"].contains("positions"));
        EXPECT_EQ(model.params.P.norm(), 0.0f);
        round_trip(model);
    }
}

TEST(ModelFile, AnOldFileWithoutTheResidualKeyAddsTheInputBack)
{
    TrainedModel model = small_model(TaskKind::Copy);
    json doc = json::parse(model_to_json(model));
    EXPECT_EQ(doc["config"]["residual"], true);
    doc["config"].erase("residual"); // as files were written before the switch
    TempFile file;
    {
        std::ofstream out(file.path);
        out << doc.dump();
    }
    TrainedModel loaded;
    loaded.config.residual = false;
    const Status s = load_model_file(file.path, &loaded);
    ASSERT_TRUE(s.is_ok()) << s.message();
    EXPECT_TRUE(loaded.config.residual);
    expect_same_model(model, loaded);
}

TEST(ModelFile, LearnedPositionsAreWrittenWithTheirShape)
{
    const TrainedModel model = small_model(TaskKind::Reverse);
    const json doc = json::parse(model_to_json(model));
    EXPECT_EQ(doc["format"], "attnlab-model");
    EXPECT_EQ(doc["version"], 1);
    EXPECT_EQ(doc["task"], "reverse");
    EXPECT_EQ(doc["weights"]["positions"].size(), static_cast<size_t>(model.config.T_max));
    EXPECT_EQ(doc["weights"]["embedding"].size(), static_cast<size_t>(model.config.vocab_size));
    EXPECT_EQ(doc["weights"]["layers"][0]["W_Q"].size(), 2u);       // h
    EXPECT_EQ(doc["weights"]["layers"][0]["W_Q"][0].size(), 8u);    // d_model
    EXPECT_EQ(doc["weights"]["layers"][0]["W_Q"][0][0].size(), 4u); // d_k
    EXPECT_EQ(doc["weights"]["W_U"][0].size(), static_cast<size_t>(model.config.vocab_size));
    // Head 1 of W_Q is columns [d_k, 2 d_k) of the packed matrix.
    EXPECT_EQ(doc["weights"]["layers"][1]["W_Q"][1][3][2].get<float>(), model.params.layers[1].W_Q(3, 6));
}

// Parses text into a model that already holds something, and checks it is unchanged on error.
Status parse_into_filled(const std::string& text)
{
    TrainedModel out;
    out.task = "unchanged";
    const Status s = parse_model_json(text, "model.json", &out);
    EXPECT_EQ(out.task, "unchanged");
    EXPECT_TRUE(out.params.layers.empty());
    return s;
}

void expect_error(const json& doc, const std::string& part1, const std::string& part2 = "")
{
    const Status s = parse_into_filled(doc.dump());
    ASSERT_FALSE(s.is_ok()) << "accepted: " << part1;
    EXPECT_NE(s.message().find(part1), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(part2), std::string::npos) << s.message();
    EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
}

TEST(ModelFile, EveryShapeMismatchNamesTheFieldAndTheShape)
{
    const json good = json::parse(model_to_json(small_model(TaskKind::Reverse)));
    // d_model = 8, h = 2, d_k = 4, d_ff = 12, V = 11, T_max = 16.
    struct Case
    {
        const char* pointer; // the array to damage: its last element is dropped
        const char* field;
        const char* shape;
    };
    const Case cases[] = {
        {"/weights/embedding", "weights.embedding", "V x d_model = 11x8"},
        {"/weights/embedding/3", "weights.embedding", "V x d_model = 11x8, but row 3 is 7 numbers long"},
        {"/weights/positions", "weights.positions", "T_max x d_model = 16x8"},
        {"/weights/layers", "weights.layers", "layers = 2 objects"},
        {"/weights/layers/0/W_Q", "weights.layers[0].W_Q", "h = 2 matrices of d_model x d_k = 8x4"},
        {"/weights/layers/1/W_Q/1", "weights.layers[1].W_Q[1]", "d_model x d_k = 8x4"},
        {"/weights/layers/0/W_K/0/5", "weights.layers[0].W_K[0]", "row 5 is 3 numbers long"},
        {"/weights/layers/0/W_V/1/2", "weights.layers[0].W_V[1]", "d_model x d_v = 8x4"},
        {"/weights/layers/0/W_O", "weights.layers[0].W_O", "h·d_v x d_model = 8x8"},
        {"/weights/layers/1/W_1", "weights.layers[1].W_1", "d_model x d_ff = 8x12"},
        {"/weights/layers/1/b_1", "weights.layers[1].b_1", "d_ff = 12 numbers"},
        {"/weights/layers/0/W_2/0", "weights.layers[0].W_2", "d_ff x d_model = 12x8"},
        {"/weights/layers/0/b_2", "weights.layers[0].b_2", "d_model = 8 numbers"},
        {"/weights/layers/0/gamma_1", "weights.layers[0].gamma_1", "d_model = 8 numbers"},
        {"/weights/layers/0/beta_1", "weights.layers[0].beta_1", "d_model = 8 numbers"},
        {"/weights/layers/1/gamma_2", "weights.layers[1].gamma_2", "d_model = 8 numbers"},
        {"/weights/layers/1/beta_2", "weights.layers[1].beta_2", "d_model = 8 numbers"},
        {"/weights/ln_f/gamma", "weights.ln_f.gamma", "d_model = 8 numbers"},
        {"/weights/ln_f/beta", "weights.ln_f.beta", "d_model = 8 numbers"},
        {"/weights/W_U", "weights.W_U", "d_model x V = 8x11"},
        {"/weights/W_U/7", "weights.W_U", "d_model x V = 8x11"},
        {"/weights/b_U", "weights.b_U", "V = 11 numbers"},
        {"/history/1/previous_token", "history[1].previous_token", "layers·heads = 4 numbers"},
        {"/history/0/induction", "history[0].induction", "layers·heads = 4 numbers"},
    };
    for (const Case& c : cases)
    {
        SCOPED_TRACE(c.pointer);
        json doc = good;
        json& array = doc.at(json::json_pointer(c.pointer));
        ASSERT_TRUE(array.is_array());
        array.erase(array.size() - 1);
        expect_error(doc, std::string("\"") + c.field + "\"", c.shape);
    }
}

TEST(ModelFile, EveryMissingFieldIsNamed)
{
    const json good = json::parse(model_to_json(small_model(TaskKind::Reverse)));
    const char* pointers[] = {"/task",
                              "/config",
                              "/config/d_model",
                              "/config/heads",
                              "/config/norm",
                              "/config/seed",
                              "/vocabulary",
                              "/training",
                              "/training/lr",
                              "/training/batch_size",
                              "/training/schedule",
                              "/training/data_seed",
                              "/step",
                              "/history",
                              "/history/0/held_out_loss",
                              "/weights",
                              "/weights/embedding",
                              "/weights/positions",
                              "/weights/layers/1/W_O",
                              "/weights/layers/0/b_1",
                              "/weights/layers/1/beta_2",
                              "/weights/ln_f",
                              "/weights/W_U",
                              "/weights/b_U"};
    for (const char* pointer : pointers)
    {
        SCOPED_TRACE(pointer);
        json doc = good;
        const json::json_pointer p(pointer);
        doc.at(p.parent_pointer()).erase(p.back());
        std::string field = std::string(pointer).substr(1);
        for (char& ch : field)
            if (ch == '/')
                ch = '.';
        // "history.0.held_out_loss" is named "history[0].held_out_loss", and so on.
        for (const char* from : {".0.", ".1."})
            if (const size_t at = field.find(from); at != std::string::npos)
                field.replace(at, 3, std::string("[") + from[1] + "].");
        expect_error(doc, "\"" + field + "\" is missing");
    }
}

TEST(ModelFile, WrongTypesAndValuesAreRefusedByName)
{
    const json good = json::parse(model_to_json(small_model(TaskKind::Reverse)));
    struct Case
    {
        const char* pointer;
        json value;
        const char* part;
    };
    const Case cases[] = {
        {"/config/heads", 3, "must be a multiple of the number of heads"},
        {"/config/d_model", "8", "\"config.d_model\" must be an integer"},
        {"/config/norm", "middle", "\"config.norm\" must be \"pre\" or \"post\""},
        {"/config/positions", 1, "\"config.positions\" must be one of \"learned\", \"sinusoidal\", \"none\""},
        {"/config/residual", "yes", "\"config.residual\" must be true or false"},
        {"/config/seed", -1, "\"config.seed\" must be a non-negative integer"},
        {"/config/attention_only", "no", "\"config.attention_only\" must be true or false"},
        {"/task", "juggling", "\"task\""},
        {"/vocabulary/2", 7, "\"vocabulary[2]\" must be a string"},
        {"/vocabulary/2", "a b", "\"vocabulary[2]\" must be a token without spaces"},
        {"/training/lr", "fast", "\"training.lr\" must be a number"},
        {"/training/batch_size", 0, "\"training.batch_size\" must be an integer between 1 and 4096"},
        {"/step", -2, "\"step\" must be a non-negative integer"},
        {"/weights/W_U/0/0", nullptr, "\"weights.W_U[0][0]\" must be a number, got null"},
        {"/weights/b_U/0", 1e300, "\"weights.b_U[0]\" is out of the float range"},
        {"/weights/layers/0/W_Q/0/0/0", "x", "\"weights.layers[0].W_Q[0][0][0]\" must be a number"},
        {"/format", "attnlab-session", "is not an attnlab model"},
        {"/version", "1", "\"version\" must be a positive integer"},
        // Out of range: the member, its real limits and what was found (not "between -2147483648 and
        // 2147483647", not "a multiple of the number of heads (0)", not "must be a number, got a number").
        {"/config/d_ff", 1LL << 40,
         "\"config.d_ff\" must be an integer between 0 and 16384 (0: 4 d_model), got 1099511627776"},
        {"/config/heads", 0, "\"config.heads\" must be an integer between 1 and 4096"},
        {"/config/vocab_size", 1, "\"config.vocab_size\" must be an integer between 2 and 65536, got 1"},
        {"/config/layers", 25, "\"config.layers\" must be an integer between 1 and 24, got 25"},
        {"/weights/W_U/0/0", true, "\"weights.W_U[0][0]\" must be a number, got true"},
        {"/history/0/loss", "x", "\"history[0].loss\" must be a number or null, got \"x\""},
        {"/step", 1LL << 40, "\"step\" must be a non-negative integer no larger than 2147483647"},
        {"/version", 4294967297LL, "version 4294967297 is newer than this program reads (1)"},
    };
    for (const Case& c : cases)
    {
        SCOPED_TRACE(c.pointer);
        json doc = good;
        doc.at(json::json_pointer(c.pointer)) = c.value;
        expect_error(doc, c.part);
    }
    expect_error(json::array(), "not a JSON object");
}

// The window's "view" (timeline step, main panels, probe) is optional, round-trips, and a bad one is refused
// by name like every other field.
TEST(ModelFile, TheWindowsViewRoundTripsAndABadOneIsNamed)
{
    TrainedModel model = small_model(TaskKind::Reverse);
    EXPECT_FALSE(json::parse(model_to_json(model)).contains("view")) << "the command line writes none";
    model.has_view = true;
    model.view_step = 2;
    model.view_main_panels = true;
    model.view_probe = "1 2 | 2 1";
    round_trip(model);
    TrainedModel loaded;
    ASSERT_TRUE(parse_model_json(model_to_json(model), "m.json", &loaded).is_ok());
    EXPECT_TRUE(loaded.has_view);
    EXPECT_EQ(loaded.view_step, 2);
    EXPECT_TRUE(loaded.view_main_panels);
    EXPECT_EQ(loaded.view_probe, "1 2 | 2 1");

    const json good = json::parse(model_to_json(model));
    const std::pair<const char*, json> cases[] = {
        {"/view/step", 4}, // after the weights' step 3
        {"/view/step", -1}, {"/view/main_panels", "yes"}, {"/view/probe", 3}, {"/view", json::array()},
    };
    for (const auto& [pointer, value] : cases)
    {
        SCOPED_TRACE(pointer);
        json doc = good;
        doc.at(json::json_pointer(pointer)) = value;
        expect_error(doc, "view");
    }
}

TEST(ModelFile, FieldsTheConfigRulesOutAreRefused)
{
    json attention_only = json::parse(model_to_json(small_model(TaskKind::Induction, true)));
    attention_only["weights"]["layers"][0]["W_1"] = json::array();
    expect_error(attention_only, "\"weights.layers[0].W_1\" must not be there", "attention-only");

    json post = json::parse(model_to_json(small_model(TaskKind::Sort, false, NormPlacement::Post)));
    post["weights"]["ln_f"] = json::object();
    expect_error(post, "\"weights.ln_f\" must not be there", "post-LN");

    json sinusoidal = json::parse(
        model_to_json(small_model(TaskKind::Copy, false, NormPlacement::Pre, PositionKind::Sinusoidal)));
    sinusoidal["weights"]["positions"] = json::array();
    expect_error(sinusoidal, "\"weights.positions\" must not be there", "sinusoids");
}

TEST(ModelFile, ANewerVersionIsRefusedWithAMessage)
{
    json doc = json::parse(model_to_json(small_model(TaskKind::Reverse)));
    doc["version"] = 2;
    expect_error(doc, "newer Attention Lab", "version 2");
}

TEST(ModelFile, AConfigLargerThanTheFileIsRefusedBeforeAllocating)
{
    json doc = json::parse(model_to_json(small_model(TaskKind::Reverse)));
    doc["config"]["d_model"] = 4096;
    doc["config"]["heads"] = 1;
    doc["config"]["layers"] = 24;
    doc["history"] = json::array();
    expect_error(doc, "\"config\" asks for", "parameters, more than a file");
}

TEST(ModelFile, TheSizeCheckCountsEveryParameter)
{
    // A file just large enough for the parameters' count is not refused by the size check.
    for (const bool attention_only : {false, true})
        for (const NormPlacement norm : {NormPlacement::Pre, NormPlacement::Post})
        {
            const TrainedModel model = small_model(TaskKind::Reverse, attention_only, norm);
            json doc = json::parse(model_to_json(model));
            const long long count = train::parameter_count(model.config);
            doc["padding"] = std::string(static_cast<size_t>(2 * count), ' ');
            doc["weights"]["W_U"] = 0;
            const Status s = parse_into_filled(doc.dump());
            EXPECT_NE(s.message().find("\"weights.W_U\" should be"), std::string::npos) << s.message();
            doc["padding"] = std::string(static_cast<size_t>(count / 2), ' ');
            doc["history"] = json::array();
            doc["weights"] = json::object();
            expect_error(doc, "\"config\" asks for " + std::to_string(count) + " parameters");
        }
}

TEST(ModelFile, ATruncatedFileIsRefusedAndTheOutputKept)
{
    const std::string text = model_to_json(small_model(TaskKind::Reverse));
    TempFile file;
    {
        std::ofstream out(file.path, std::ios::binary);
        out << text.substr(0, text.size() / 2);
    }
    TrainedModel out;
    out.task = "unchanged";
    const Status s = load_model_file(file.path, &out);
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find(file.path), std::string::npos) << s.message();
    EXPECT_EQ(out.task, "unchanged");
    // The message says what happened in the user's words, where the text stops, and not the parser's jargon.
    const std::string cut = text.substr(0, text.size() / 2);
    const std::size_t end = cut.find_last_not_of(" \n");
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(cut.begin(), cut.begin() + end, '\n'));
    const std::size_t line_start = cut.rfind('\n', end) == std::string::npos ? 0 : cut.rfind('\n', end) + 1;
    const std::string where =
        "line " + std::to_string(line) + ", column " + std::to_string(end - line_start + 1);
    for (const std::string& part : {std::string("the file is incomplete: its JSON stops at ") + where,
                                    std::string("cut off while it was being saved")})
        EXPECT_NE(s.message().find(part), std::string::npos) << part << "\n" << s.message();
    for (const char* jargon : {"json.exception", "parse error", "syntax error"})
        EXPECT_EQ(s.message().find(jargon), std::string::npos) << jargon << "\n" << s.message();

    // A stray character inside the file is "not valid JSON" at its place, not "incomplete".
    std::string broken = text;
    const std::size_t at = broken.find("\"task\"");
    ASSERT_NE(at, std::string::npos);
    broken.insert(at, "#");
    {
        std::ofstream f(file.path, std::ios::binary);
        f << broken;
    }
    const Status stray = load_model_file(file.path, &out);
    ASSERT_FALSE(stray.is_ok());
    const std::size_t stray_line =
        1 + static_cast<std::size_t>(std::count(broken.begin(), broken.begin() + at, '\n'));
    const std::size_t stray_col =
        at - (broken.rfind('\n', at) == std::string::npos ? 0 : broken.rfind('\n', at) + 1) + 1;
    EXPECT_NE(stray.message().find("not valid JSON at line " + std::to_string(stray_line) + ", column " +
                                   std::to_string(stray_col)),
              std::string::npos)
        << stray.message();
    EXPECT_EQ(stray.message().find("incomplete"), std::string::npos) << stray.message();
    EXPECT_EQ(out.task, "unchanged");
}

TEST(ModelFile, AMissingFileNamesItsPath)
{
    TrainedModel out;
    const Status s = load_model_file("/nonexistent/model.json", &out);
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("/nonexistent/model.json"), std::string::npos) << s.message();
}

// The weights of a Hugging Face folder given as a model file: told to give the folder (they were parsed as
// JSON: "byte 2 is a NUL byte").
TEST(ModelFile, AHuggingFaceWeightsFileAsksForItsFolder)
{
    const fs::path dir = fs::temp_directory_path() / ("attnlab_model_hf_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    for (const char* name :
         {"model.safetensors", "model-00001-of-00002.safetensors", "model.safetensors.index.json"})
    {
        std::ofstream(dir / name) << std::string("\x08\x00\x00\x00\x00\x00\x00\x00{}      ", 16);
        TrainedModel m;
        const Status s = load_model_file((dir / name).string(), &m);
        ASSERT_FALSE(s.is_ok()) << name;
        EXPECT_NE(s.message().find("is a file of a Hugging Face model folder: give the folder"),
                  std::string::npos)
            << s.message();
        EXPECT_EQ(s.message().find("NUL byte"), std::string::npos) << s.message();
    }
    // Its config.json too (it said "\"format\" is missing; expected \"attnlab-model\"").
    std::ofstream(dir / "config.json") << R"({"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2"})";
    TrainedModel m;
    const Status s = load_model_file((dir / "config.json").string(), &m);
    EXPECT_NE(
        s.message().find("is a Hugging Face model's config.json, not an attnlab model: give the folder"),
        std::string::npos)
        << s.message();
    fs::remove_all(dir);
}

} // namespace
} // namespace attnlab
