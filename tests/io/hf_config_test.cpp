// Hugging Face model folders: config.json of GPT-2 and BERT, and tiny checkpoints written in the exact HF
// layout (names spelt out here, apart from the reader's table) checked against the tensor table.
#include "core/io/hf_config.h"
#include "safetensors_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;
using json = nlohmann::json;
using test::safetensors_bytes;
using test::TestTensor;
using test::write_bytes;

// [SECTION] config.json

HfConfig parse_ok(const json& j)
{
    HfConfig c;
    const Status s = parse_hf_config(j.dump(), "config.json", &c);
    EXPECT_TRUE(s) << s.message();
    return c;
}

void expect_config_refused(const std::string& text, std::initializer_list<const char*> fragments)
{
    HfConfig c;
    c.n_layers = 77;
    const Status s = parse_hf_config(text, "config.json", &c);
    ASSERT_FALSE(s) << text;
    for (const char* fragment : fragments)
        EXPECT_NE(s.message().find(fragment), std::string::npos)
            << "message: " << s.message() << "\nmissing: " << fragment;
    EXPECT_EQ(c.n_layers, 77);
}

TEST(HfConfig, ReadsEveryGpt2Field)
{
    // The keys of GPT-2 small's config.json (with distilgpt2's layer count), plus keys the reader ignores.
    const HfConfig c = parse_ok({{"model_type", "gpt2"},
                                 {"architectures", {"GPT2LMHeadModel"}},
                                 {"n_layer", 6},
                                 {"n_head", 12},
                                 {"n_embd", 768},
                                 {"n_inner", nullptr},
                                 {"n_positions", 1024},
                                 {"n_ctx", 1024},
                                 {"vocab_size", 50257},
                                 {"layer_norm_epsilon", 1e-05},
                                 {"activation_function", "gelu_new"},
                                 {"resid_pdrop", 0.1},
                                 {"scale_attn_by_inverse_layer_idx", true}});
    EXPECT_EQ(c.architecture, HfArchitecture::Gpt2);
    EXPECT_EQ(c.model_type, "gpt2");
    EXPECT_EQ(c.n_layers, 6);
    EXPECT_EQ(c.n_heads, 12);
    EXPECT_EQ(c.d_model, 768);
    EXPECT_EQ(c.d_ff, 3072); // n_inner null: 4 n_embd
    EXPECT_EQ(c.d_head(), 64);
    EXPECT_EQ(c.n_positions, 1024);
    EXPECT_EQ(c.vocab_size, 50257);
    EXPECT_EQ(c.type_vocab_size, 0);
    EXPECT_FLOAT_EQ(c.layer_norm_eps, 1e-5f);
    EXPECT_EQ(c.activation, HfActivation::GeluTanh);
    EXPECT_EQ(c.activation_name, "gelu_new");
    EXPECT_TRUE(c.scale_attn_weights);
    EXPECT_TRUE(c.scale_attn_by_inverse_layer_idx);
}

TEST(HfConfig, Gpt2GivenValuesAndDefaults)
{
    const HfConfig given = parse_ok({{"model_type", "gpt2"},
                                     {"n_embd", 64},
                                     {"n_head", 4},
                                     {"n_inner", 100},
                                     {"activation_function", "gelu"},
                                     {"layer_norm_epsilon", 1e-6}});
    EXPECT_EQ(given.d_ff, 100);
    EXPECT_EQ(given.activation, HfActivation::GeluErf);
    EXPECT_FLOAT_EQ(given.layer_norm_eps, 1e-6f);
    const HfConfig defaults = parse_ok({{"model_type", "gpt2"}, {"n_embd", 64}, {"n_head", 4}});
    EXPECT_EQ(defaults.d_ff, 256); // 4 n_embd when n_inner is absent too
    EXPECT_EQ(defaults.n_layers, 12);
    EXPECT_EQ(defaults.n_positions, 1024);
    EXPECT_EQ(defaults.vocab_size, 50257);
    EXPECT_EQ(defaults.activation, HfActivation::GeluTanh);
}

TEST(HfConfig, ReadsEveryBertField)
{
    // google/bert_uncased_L-2_H-128_A-2's sizes.
    const HfConfig c = parse_ok({{"model_type", "bert"},
                                 {"num_hidden_layers", 2},
                                 {"num_attention_heads", 2},
                                 {"hidden_size", 128},
                                 {"intermediate_size", 512},
                                 {"max_position_embeddings", 512},
                                 {"vocab_size", 30522},
                                 {"type_vocab_size", 2},
                                 {"layer_norm_eps", 1e-12},
                                 {"hidden_act", "gelu"},
                                 {"position_embedding_type", "absolute"}});
    EXPECT_EQ(c.architecture, HfArchitecture::Bert);
    EXPECT_EQ(c.n_layers, 2);
    EXPECT_EQ(c.n_heads, 2);
    EXPECT_EQ(c.d_model, 128);
    EXPECT_EQ(c.d_ff, 512);
    EXPECT_EQ(c.n_positions, 512);
    EXPECT_EQ(c.vocab_size, 30522);
    EXPECT_EQ(c.type_vocab_size, 2);
    EXPECT_FLOAT_EQ(c.layer_norm_eps, 1e-12f);
    EXPECT_EQ(c.activation, HfActivation::GeluErf);

    const HfConfig defaults = parse_ok({{"model_type", "bert"}});
    EXPECT_EQ(defaults.d_model, 768);
    EXPECT_EQ(defaults.d_ff, 3072);
    EXPECT_EQ(defaults.n_positions, 512);
    EXPECT_EQ(defaults.vocab_size, 30522);
    EXPECT_EQ(defaults.type_vocab_size, 2);
    EXPECT_FLOAT_EQ(defaults.layer_norm_eps, 1e-12f); // not GPT-2's 1e-5
    EXPECT_EQ(defaults.activation, HfActivation::GeluErf);
}

TEST(HfConfig, RefusesUnsupportedOrInconsistentConfigs)
{
    expect_config_refused(R"({"model_type": "llama"})", {"\"llama\"", "supported: \"gpt2\"", "\"bert\""});
    expect_config_refused(R"({"n_layer": 2})", {"\"model_type\" is missing", "\"gpt2\"", "\"bert\""});
    expect_config_refused(R"({"model_type": "gpt2", "n_embd": 10, "n_head": 4})",
                          {"\"n_embd\" 10 is not divisible by \"n_head\" 4"});
    expect_config_refused(R"({"model_type": "bert", "hidden_size": 10, "num_attention_heads": 3})",
                          {"\"hidden_size\" 10 is not divisible by \"num_attention_heads\" 3"});
    expect_config_refused(R"({"model_type": "gpt2", "n_layer": 0})", {"\"n_layer\"", "between 1 and"});
    expect_config_refused(R"({"model_type": "gpt2", "n_head": -2})", {"\"n_head\"", "got -2"});
    expect_config_refused(R"({"model_type": "bert", "vocab_size": "big"})", {"\"vocab_size\""});
    expect_config_refused(R"({"model_type": "gpt2", "n_inner": 0})", {"\"n_inner\"", "null: 4 n_embd"});
    expect_config_refused(R"({"model_type": "bert", "layer_norm_eps": 0})", {"\"layer_norm_eps\""});
    expect_config_refused(R"({"model_type": "gpt2", "activation_function": "swish"})",
                          {"\"activation_function\"", "gelu_new", "relu", "\"swish\""});
    expect_config_refused(R"({"model_type": "bert", "position_embedding_type": "relative_key"})",
                          {"\"position_embedding_type\"", "absolute"});
    expect_config_refused(R"({"model_type": "gpt2", )", {"config.json", "incomplete"});
    expect_config_refused(R"([1])", {"config.json"});
}

// [SECTION] Model folders

// Exactly representable in F16 and BF16: k / 64 for |k| <= 64.
std::vector<float> random_values(std::int64_t n, std::mt19937& rng)
{
    std::uniform_int_distribution<int> k(-64, 64);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (float& x : v)
        x = static_cast<float>(k(rng)) / 64.0f;
    return v;
}

class HfFolder : public ::testing::Test
{
protected:
    void SetUp() override
    {
        dir = fs::path(ATTNLAB_BINARY_DIR) / "tests" / "io" / "hf_folder" /
              ::testing::UnitTest::GetInstance()->current_test_info()->name();
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }

    void add(const std::string& name, std::vector<std::int64_t> shape, const std::string& dtype = "F32")
    {
        std::int64_t n = 1;
        for (const std::int64_t d : shape)
            n *= d;
        tensors.push_back({name, dtype, std::move(shape), random_values(n, rng), ""});
    }
    void drop(const std::string& name)
    {
        tensors.erase(std::remove_if(tensors.begin(), tensors.end(),
                                     [&](const TestTensor& t) { return t.name == name; }),
                      tensors.end());
    }
    TestTensor* tensor(const std::string& name)
    {
        for (TestTensor& t : tensors)
            if (t.name == name)
                return &t;
        return nullptr;
    }

    // GPT-2 with n_embd 8, 2 heads, 2 layers, n_inner null (32), 16 positions, 11 tokens: every tensor as
    // GPT2LMHeadModel.save_pretrained writes it, the causal-mask buffers included.
    static constexpr int E = 8, L = 2, F = 32, P = 16, V = 11;
    void gpt2(const std::string& prefix, const std::string& dtype, bool lm_head)
    {
        write_bytes((dir / "config.json").string(), json{{"model_type", "gpt2"},
                                                         {"n_layer", L},
                                                         {"n_head", 2},
                                                         {"n_embd", E},
                                                         {"n_inner", nullptr},
                                                         {"n_positions", P},
                                                         {"vocab_size", V}}
                                                        .dump());
        add(prefix + "wte.weight", {V, E}, dtype);
        add(prefix + "wpe.weight", {P, E}, dtype);
        for (int i = 0; i < L; ++i)
        {
            const std::string h = prefix + "h." + std::to_string(i) + ".";
            add(h + "ln_1.weight", {E}, dtype);
            add(h + "ln_1.bias", {E}, dtype);
            add(h + "attn.bias", {1, 1, P, P}, dtype);
            add(h + "attn.masked_bias", {}, dtype);
            add(h + "attn.c_attn.weight", {E, 3 * E}, dtype);
            add(h + "attn.c_attn.bias", {3 * E}, dtype);
            add(h + "attn.c_proj.weight", {E, E}, dtype);
            add(h + "attn.c_proj.bias", {E}, dtype);
            add(h + "ln_2.weight", {E}, dtype);
            add(h + "ln_2.bias", {E}, dtype);
            add(h + "mlp.c_fc.weight", {E, F}, dtype);
            add(h + "mlp.c_fc.bias", {F}, dtype);
            add(h + "mlp.c_proj.weight", {F, E}, dtype);
            add(h + "mlp.c_proj.bias", {E}, dtype);
        }
        add(prefix + "ln_f.weight", {E}, dtype);
        add(prefix + "ln_f.bias", {E}, dtype);
        if (lm_head)
            add("lm_head.weight", {V, E}, dtype);
    }

    // BERT with hidden 8, 2 heads, 2 layers, intermediate 16, 12 positions, 13 tokens, 2 token types, as
    // BertForPreTraining writes it (old_norms: LayerNorm.gamma / beta, as TF-converted checkpoints name
    // them).
    static constexpr int H = 8, I = 16, BP = 12, BV = 13;
    void bert(const std::string& prefix, const std::string& dtype, bool head, bool old_norms)
    {
        write_bytes((dir / "config.json").string(), json{{"model_type", "bert"},
                                                         {"num_hidden_layers", L},
                                                         {"num_attention_heads", 2},
                                                         {"hidden_size", H},
                                                         {"intermediate_size", I},
                                                         {"max_position_embeddings", BP},
                                                         {"vocab_size", BV},
                                                         {"type_vocab_size", 2}}
                                                        .dump());
        const std::string g = old_norms ? "gamma" : "weight", b = old_norms ? "beta" : "bias";
        add(prefix + "embeddings.word_embeddings.weight", {BV, H}, dtype);
        add(prefix + "embeddings.position_embeddings.weight", {BP, H}, dtype);
        add(prefix + "embeddings.token_type_embeddings.weight", {2, H}, dtype);
        add(prefix + "embeddings.LayerNorm." + g, {H}, dtype);
        add(prefix + "embeddings.LayerNorm." + b, {H}, dtype);
        tensors.push_back(
            {prefix + "embeddings.position_ids", "I64", {1, BP}, {}, std::string(8 * BP, '\0')});
        for (int i = 0; i < L; ++i)
        {
            const std::string l = prefix + "encoder.layer." + std::to_string(i) + ".";
            for (const char* qkv : {"query", "key", "value"})
            {
                add(l + "attention.self." + qkv + ".weight", {H, H}, dtype);
                add(l + "attention.self." + qkv + ".bias", {H}, dtype);
            }
            add(l + "attention.output.dense.weight", {H, H}, dtype);
            add(l + "attention.output.dense.bias", {H}, dtype);
            add(l + "attention.output.LayerNorm." + g, {H}, dtype);
            add(l + "attention.output.LayerNorm." + b, {H}, dtype);
            add(l + "intermediate.dense.weight", {I, H}, dtype);
            add(l + "intermediate.dense.bias", {I}, dtype);
            add(l + "output.dense.weight", {H, I}, dtype);
            add(l + "output.dense.bias", {H}, dtype);
            add(l + "output.LayerNorm." + g, {H}, dtype);
            add(l + "output.LayerNorm." + b, {H}, dtype);
        }
        add(prefix + "pooler.dense.weight", {H, H}, dtype);
        add(prefix + "pooler.dense.bias", {H}, dtype);
        if (head)
        {
            add("cls.predictions.bias", {BV}, dtype);
            add("cls.predictions.transform.dense.weight", {H, H}, dtype);
            add("cls.predictions.transform.dense.bias", {H}, dtype);
            add("cls.predictions.transform.LayerNorm." + g, {H}, dtype);
            add("cls.predictions.transform.LayerNorm." + b, {H}, dtype);
            add("cls.seq_relationship.weight", {2, H}, dtype);
            add("cls.seq_relationship.bias", {2}, dtype);
        }
    }

    void write_weights() { write_bytes((dir / "model.safetensors").string(), safetensors_bytes(tensors)); }

    Status open(HfModel* model)
    {
        write_weights();
        return open_hf_model(dir.string(), model);
    }

    void expect_refused(std::initializer_list<const char*> fragments)
    {
        HfModel model;
        model.folder = "untouched";
        const Status s = open(&model);
        ASSERT_FALSE(s);
        for (const char* fragment : fragments)
            EXPECT_NE(s.message().find(fragment), std::string::npos)
                << "message: " << s.message() << "\nmissing: " << fragment;
        EXPECT_EQ(model.folder, "untouched");
        EXPECT_TRUE(model.plan.tensors.empty());
    }

    fs::path dir;
    std::mt19937 rng{22};
    std::vector<TestTensor> tensors;
};

TEST_F(HfFolder, Gpt2WithoutPrefixAndWithTheMaskBuffers)
{
    gpt2("", "F32", false);
    HfModel model;
    const Status s = open(&model);
    ASSERT_TRUE(s) << s.message();
    EXPECT_EQ(model.plan.prefix, "");
    EXPECT_EQ(model.plan.tensors.size(), static_cast<std::size_t>(2 + 12 * L + 2)); // no lm_head: tied
    EXPECT_TRUE(model.plan.unused.empty()); // attn.bias and attn.masked_bias are known buffers
    EXPECT_EQ(model.plan.find(HfSlot::LmHeadWeight), nullptr);
    for (const HfTensorRef& t : model.plan.tensors)
        EXPECT_FALSE(t.transpose) << t.name; // Conv1D is stored input x output
    const HfTensorRef* qkv = model.plan.find(HfSlot::QkvWeight, 1);
    ASSERT_NE(qkv, nullptr);
    EXPECT_EQ(qkv->name, "h.1.attn.c_attn.weight");
    EXPECT_EQ(qkv->shape, (std::vector<std::int64_t>{E, 3 * E}));
    EXPECT_EQ(model.plan.find(HfSlot::FfnInBias, 0)->shape, std::vector<std::int64_t>{F});

    // The values come back as written.
    Mat m;
    ASSERT_TRUE(read_tensor(model.index, qkv->name, &m));
    const std::vector<float>& written = tensor("h.1.attn.c_attn.weight")->values;
    ASSERT_EQ(m.size(), static_cast<Eigen::Index>(written.size()));
    EXPECT_EQ(m(0, 0), written[0]);
    EXPECT_EQ(m(E - 1, 3 * E - 1), written.back());
}

TEST_F(HfFolder, Gpt2WithPrefixInF16AndAnLmHead)
{
    gpt2("transformer.", "F16", true);
    HfModel model;
    const Status s = open(&model);
    ASSERT_TRUE(s) << s.message();
    EXPECT_EQ(model.plan.prefix, "transformer.");
    EXPECT_EQ(model.plan.tensors.size(), static_cast<std::size_t>(2 + 12 * L + 2 + 1));
    ASSERT_NE(model.plan.find(HfSlot::LmHeadWeight), nullptr);
    EXPECT_EQ(model.plan.find(HfSlot::LmHeadWeight)->name, "lm_head.weight");
    EXPECT_EQ(model.plan.find(HfSlot::FinalNormBias)->name, "transformer.ln_f.bias");
    EXPECT_TRUE(model.plan.unused.empty());
    RowVec v;
    ASSERT_TRUE(read_tensor(model.index, "transformer.h.0.mlp.c_fc.bias", &v));
    EXPECT_EQ(v(F - 1), tensor("transformer.h.0.mlp.c_fc.bias")->values.back());
}

TEST_F(HfFolder, Gpt2MissingTensorIsNamedWithItsShape)
{
    gpt2("", "F32", false);
    drop("h.1.mlp.c_fc.bias");
    expect_refused({"has no tensor \"h.1.mlp.c_fc.bias\" (32, n_inner)"});
}

TEST_F(HfFolder, Gpt2TransposedWeightIsMisshapen)
{
    gpt2("", "F32", false);
    tensor("h.0.attn.c_attn.weight")->shape = {3 * E, E}; // as an nn.Linear would store it
    expect_refused({"tensor \"h.0.attn.c_attn.weight\" is 24x8, expected 8x24 (n_embd x 3 n_embd"});
}

TEST_F(HfFolder, Gpt2WrongLayerCountOrVocabulary)
{
    gpt2("", "F32", false);
    write_weights();
    write_bytes((dir / "config.json").string(), json{{"model_type", "gpt2"},
                                                     {"n_layer", 3},
                                                     {"n_head", 2},
                                                     {"n_embd", E},
                                                     {"n_positions", P},
                                                     {"vocab_size", V}}
                                                    .dump());
    HfModel model;
    Status s = open_hf_model(dir.string(), &model);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("has no tensor \"h.2.ln_1.weight\""), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("n_layer 3"), std::string::npos) << s.message();

    write_bytes((dir / "config.json").string(), json{{"model_type", "gpt2"},
                                                     {"n_layer", 2},
                                                     {"n_head", 2},
                                                     {"n_embd", E},
                                                     {"n_positions", P},
                                                     {"vocab_size", 50257}}
                                                    .dump());
    s = open_hf_model(dir.string(), &model);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("tensor \"wte.weight\" is 11x8, expected 50257x8 (vocab_size x n_embd"),
              std::string::npos)
        << s.message();
}

TEST_F(HfFolder, PrefixIsOneForTheWholeModel)
{
    gpt2("transformer.", "F32", false);
    tensor("transformer.h.1.ln_2.bias")->name = "h.1.ln_2.bias";
    expect_refused({"has no tensor \"transformer.h.1.ln_2.bias\""});
}

TEST_F(HfFolder, WrongArchitectureIsSaidByTheEmbedding)
{
    bert("", "F32", false, false);
    write_weights();
    write_bytes((dir / "config.json").string(), json{{"model_type", "gpt2"}}.dump());
    HfModel model;
    const Status s = open_hf_model(dir.string(), &model);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("no tensor \"wte.weight\" (nor \"transformer.wte.weight\")"),
              std::string::npos)
        << s.message();
}

// A sharded model whose index leaves out the token embedding (a shard has it): the index is blamed, in a
// sentence that reads ("the model's safetensors files has …, the file is of another architecture" before).
TEST_F(HfFolder, AShardedModelsIndexThatLeavesATensorOutIsBlamed)
{
    gpt2("", "F32", false);
    const std::size_t half = tensors.size() / 2;
    const std::vector<TestTensor> first(tensors.begin(), tensors.begin() + static_cast<long>(half));
    const std::vector<TestTensor> second(tensors.begin() + static_cast<long>(half), tensors.end());
    write_bytes((dir / "model-00001-of-00002.safetensors").string(), safetensors_bytes(first));
    write_bytes((dir / "model-00002-of-00002.safetensors").string(), safetensors_bytes(second));
    json map = json::object();
    for (std::size_t i = 0; i < tensors.size(); ++i)
        if (tensors[i].name != "wte.weight")
            map[tensors[i].name] =
                i < half ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
    write_bytes((dir / "model.safetensors.index.json").string(), json{{"weight_map", map}}.dump());
    HfModel model;
    const Status s = open_hf_model(dir.string(), &model);
    ASSERT_FALSE(s);
    EXPECT_NE(
        s.message().find("model.safetensors.index.json (the tensors it names) has no tensor \"wte.weight\""),
        std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find("the index is incomplete (download it again)"), std::string::npos)
        << s.message();
}

TEST_F(HfFolder, BertPretrainingCheckpointWithOldNormNamesInBf16)
{
    bert("bert.", "BF16", true, true);
    HfModel model;
    const Status s = open(&model);
    ASSERT_TRUE(s) << s.message();
    EXPECT_EQ(model.plan.prefix, "bert.");
    EXPECT_TRUE(model.plan.has_head);
    // 5 embedding tensors, 16 a layer, 5 of the head (decoder weight and bias tied, absent).
    EXPECT_EQ(model.plan.tensors.size(), static_cast<std::size_t>(5 + 16 * L + 5));
    EXPECT_TRUE(model.plan.unused.empty()) << model.plan.unused.front(); // pooler, NSP, position_ids ignored
    EXPECT_EQ(model.plan.find(HfSlot::AttnNormGain, 1)->name,
              "bert.encoder.layer.1.attention.output.LayerNorm.gamma");
    EXPECT_EQ(model.plan.find(HfSlot::MlmNormBias)->name, "cls.predictions.transform.LayerNorm.beta");
    // nn.Linear weights are transposed, nothing else is.
    for (const HfTensorRef& t : model.plan.tensors)
    {
        const bool dense = t.name.find("weight") != std::string::npos && t.shape.size() == 2 &&
                           t.name.find("embeddings") == std::string::npos;
        EXPECT_EQ(t.transpose, dense) << t.name;
    }
    const HfTensorRef* ffn_in = model.plan.find(HfSlot::FfnInWeight, 0);
    EXPECT_EQ(ffn_in->shape, (std::vector<std::int64_t>{I, H})); // stored output x input
    Mat m;
    ASSERT_TRUE(read_tensor(model.index, ffn_in->name, &m));
    EXPECT_EQ(m.rows(), I);
    EXPECT_EQ(m(I - 1, H - 1), tensor("bert.encoder.layer.0.intermediate.dense.weight")->values.back());
}

TEST_F(HfFolder, BareBertModelWithoutHead)
{
    bert("", "F16", false, false);
    HfModel model;
    const Status s = open(&model);
    ASSERT_TRUE(s) << s.message();
    EXPECT_EQ(model.plan.prefix, "");
    EXPECT_FALSE(model.plan.has_head);
    EXPECT_EQ(model.plan.find(HfSlot::MlmBias), nullptr);
    EXPECT_EQ(model.plan.find(HfSlot::QueryWeight, 1)->name, "encoder.layer.1.attention.self.query.weight");
    EXPECT_TRUE(model.plan.find(HfSlot::QueryWeight, 1)->transpose);
}

TEST_F(HfFolder, BertHalfAHeadIsRefused)
{
    bert("bert.", "F32", true, false);
    drop("cls.predictions.bias");
    expect_refused({"has no tensor \"cls.predictions.bias\" (13, vocab_size)", "masked-LM head"});
}

TEST_F(HfFolder, BertTiedDecoderOfTheWrongShape)
{
    bert("bert.", "F32", true, false);
    add("cls.predictions.decoder.weight", {H, BV});
    expect_refused(
        {"tensor \"cls.predictions.decoder.weight\" is 8x13, expected 13x8 (vocab_size x hidden_size"});
}

TEST_F(HfFolder, AWeightOfAnIntegerDtypeIsRefused)
{
    bert("", "F32", false, false);
    TestTensor* ids = tensor("embeddings.token_type_embeddings.weight");
    ids->dtype = "I32";
    ids->raw = std::string(4 * 2 * H, '\0');
    expect_refused(
        {"\"embeddings.token_type_embeddings.weight\" has dtype I32", "supported: F32, F16 and BF16"});
}

TEST_F(HfFolder, UnknownTensorsAreListedNotRefused)
{
    gpt2("", "F32", false);
    add("h.0.attn.rotary.inv_freq", {4});
    HfModel model;
    ASSERT_TRUE(open(&model));
    EXPECT_EQ(model.plan.unused, std::vector<std::string>{"h.0.attn.rotary.inv_freq"});
}

TEST_F(HfFolder, FolderMessages)
{
    HfModel model;
    Status s = open_hf_model(dir.string(), &model);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("has no config.json"), std::string::npos) << s.message();

    s = open_hf_model((dir / "nothing").string(), &model);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("is not a folder"), std::string::npos) << s.message();

    // A folder of model folders (picked a level too high) names those that hold a config.json.
    const fs::path models = dir / "models";
    for (const char* name : {"gpt2", "bert", "notes"})
        fs::create_directories(models / name);
    write_bytes((models / "gpt2" / "config.json").string(), "{}");
    write_bytes((models / "bert" / "config.json").string(), "{}");
    s = open_hf_model(models.string(), &model);
    ASSERT_FALSE(s);
    EXPECT_NE(
        s.message().find("has no config.json, but its subfolders bert/, gpt2/ have one: open one of them"),
        std::string::npos)
        << s.message();
    fs::remove(models / "bert" / "config.json");
    s = open_hf_model(models.string(), &model);
    EXPECT_NE(s.message().find("its subfolder gpt2/ has one: open it"), std::string::npos) << s.message();

    gpt2("", "F32", false);
    write_bytes((dir / "pytorch_model.bin").string(), "PK");
    s = open_hf_model(dir.string(), &model);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("has pytorch_model.bin but no model.safetensors"), std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find("save_pretrained(\"FOLDER\", safe_serialization=True)"), std::string::npos)
        << s.message();
}

TEST(HfTensorTable, EveryRowIsConsistent)
{
    for (const HfArchitecture a : {HfArchitecture::Gpt2, HfArchitecture::Bert})
    {
        std::set<std::string> names;
        std::set<HfSlot> slots;
        for (const HfTensorRule& rule : hf_tensor_rules(a))
        {
            EXPECT_TRUE(names.insert(rule.name).second) << rule.name;
            EXPECT_TRUE(slots.insert(rule.slot).second) << rule.name;
            EXPECT_EQ(rule.per_layer, std::string(rule.name).find("{i}") != std::string::npos) << rule.name;
            // A transposed tensor is a matrix stored output x input.
            EXPECT_TRUE(!rule.transpose || rule.cols != HfDim::None) << rule.name;
            EXPECT_EQ(std::string(rule.name).rfind("bias") == std::string(rule.name).size() - 4,
                      rule.cols == HfDim::None && rule.slot != HfSlot::EmbeddingNormGain &&
                          rule.slot != HfSlot::AttnNormGain && rule.slot != HfSlot::FfnNormGain &&
                          rule.slot != HfSlot::FinalNormGain && rule.slot != HfSlot::MlmNormGain)
                << rule.name;
        }
    }
    EXPECT_EQ(hf_tensor_rules(HfArchitecture::Gpt2).size(), 17u);
    EXPECT_EQ(hf_tensor_rules(HfArchitecture::Bert).size(), 28u);
}

} // namespace
} // namespace attnlab
