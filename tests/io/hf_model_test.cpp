// Opened Hugging Face models against PyTorch: every intermediate of the tiny GPT-2 and BERT folders (F32,
// F16, BF16, with and without the name prefix) equals the float64 goldens, each mistake the goldens guard
// against fails the comparison, and bad folders and texts get their messages.
#include "core/io/hf_model.h"
#include "hf_golden.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;
using test::GoldenMat;
using test::HfGolden;

// Float32 arithmetic on these sizes rounds to about 5e-7 of a matrix's largest value; the GELU mistake moves
// ffn_hidden by about 1e-4 of it (the goldens' "sensitivity"), so the comparison sits between the two.
constexpr double kTolerance = 1e-5;

// The largest difference between ours and the golden, relative to the golden's largest finite value
// (infinite entries must match exactly). A shape mismatch is infinitely far.
double relative_error(const train::MatT<float>& ours, const GoldenMat& golden)
{
    if (ours.rows() != golden.rows() || ours.cols() != golden.cols())
        return INFINITY;
    double scale = 0, worst = 0;
    for (Eigen::Index i = 0; i < golden.size(); ++i)
        if (std::isfinite(golden.data()[i]))
            scale = std::max(scale, std::fabs(golden.data()[i]));
    for (Eigen::Index i = 0; i < golden.size(); ++i)
    {
        const double g = golden.data()[i], o = ours.data()[i];
        if (!std::isfinite(g))
        {
            if (o != g)
                return INFINITY;
            continue;
        }
        worst = std::max(worst, std::fabs(o - g));
    }
    return scale > 0 ? worst / scale : worst;
}

// Every intermediate the golden holds, by the engine's names, and the worst relative error with its name.
struct Comparison
{
    double worst = 0;
    std::string where;
};

Comparison compare_run(const HfRun& run, const HfGolden& golden, bool bert)
{
    Comparison c;
    const auto check = [&](const train::MatT<float>& ours, const GoldenMat& g, const std::string& name)
    {
        const double e = relative_error(ours, g);
        if (!(e <= c.worst))
        {
            c.worst = e;
            c.where = name;
        }
    };
    const train::Activations& a = run.acts;
    check(a.embed, golden.at("embed"), "embed");
    if (bert)
    {
        check(a.layers[0].X, golden.at("embed_norm"), "embed_norm");
        check(a.mlm_pre, golden.at("mlm_pre"), "mlm_pre");
        check(a.mlm_hidden, golden.at("mlm_hidden"), "mlm_hidden");
        check(a.mlm_norm, golden.at("mlm_norm"), "mlm_norm");
    }
    else
        check(a.lnf, golden.at("lnf"), "lnf");
    check(a.logits, golden.at("logits"), "logits");
    check(a.probs, golden.at("probs"), "probs");
    for (int l = 0; l < static_cast<int>(a.layers.size()); ++l)
    {
        const train::LayerActsT<float>& la = a.layers[static_cast<std::size_t>(l)];
        const std::pair<const char*, const train::MatT<float>*> stages[] = {
            {"X", &la.X},
            {"ln1", &la.ln1},
            {"Q", &la.Q},
            {"K", &la.K},
            {"V", &la.V},
            {"scores", &la.scores},
            {"scaled", &la.scaled},
            {"masked", &la.masked},
            {"weights", &la.weights},
            {"concat", &la.concat},
            {"mha", &la.mha},
            {"residual", &la.residual},
            {"ln2", &la.ln2},
            {"ffn_pre", &la.ffn_pre},
            {"ffn_hidden", &la.ffn_hidden},
            {"ffn", &la.ffn},
            {"residual2", &la.residual2},
        };
        for (const auto& [name, m] : stages)
            check(*m, golden.layer(l, name), "layers." + std::to_string(l) + "." + name);
    }
    return c;
}

struct Case
{
    const char* folder;
    const char* golden;
    bool bert;
};
const Case kGpt2{"gpt2", "gpt2_golden.json", false};
const Case kBert{"bert", "bert_golden.json", true};

HfLoadedModel load_or_fail(const fs::path& folder)
{
    HfLoadedModel model;
    const Status s = load_hf_model(folder.string(), &model);
    EXPECT_TRUE(s.is_ok()) << s.message();
    return model;
}

Comparison run_against_golden(const HfLoadedModel& model, const Case& which)
{
    const HfGolden golden = test::load_hf_golden(test::hf_tiny_dir() / which.golden);
    HfRun run;
    const Status s = run_hf_ids(model, golden.token_ids, &run);
    EXPECT_TRUE(s.is_ok()) << s.message();
    return compare_run(run, golden, which.bert);
}

fs::path scratch_dir(const std::string& name)
{
    const fs::path dir =
        fs::temp_directory_path() / ("attnlab_hf_model_test_" + std::to_string(::getpid()) + "_" + name);
    fs::remove_all(dir);
    return dir;
}

class HfModelGolden : public ::testing::TestWithParam<Case>
{
};

TEST_P(HfModelGolden, EveryIntermediateMatchesPyTorch)
{
    const Case& which = GetParam();
    const HfLoadedModel model = load_or_fail(test::hf_tiny_dir() / which.folder);
    const Comparison c = run_against_golden(model, which);
    EXPECT_LE(c.worst, kTolerance) << "worst at " << c.where;
}

TEST_P(HfModelGolden, TextIsEncodedAsTheGoldenAndRuns)
{
    const Case& which = GetParam();
    const HfLoadedModel model = load_or_fail(test::hf_tiny_dir() / which.folder);
    const HfGolden golden = test::load_hf_golden(test::hf_tiny_dir() / which.golden);
    HfRun run;
    const Status s = run_hf_text(model, golden.text, &run);
    ASSERT_TRUE(s.is_ok()) << s.message();
    EXPECT_EQ(run.encoding.ids, golden.token_ids);
    EXPECT_LE(relative_error(run.acts.logits, golden.at("logits")), kTolerance);
}

TEST_P(HfModelGolden, HalfPrecisionAndUnprefixedCopiesGiveTheSameNumbers)
{
    const Case& which = GetParam();
    for (const char* dtype : {"F16", "BF16"})
        for (const bool strip : {false, true})
        {
            const fs::path dir = scratch_dir(std::string(which.folder) + dtype + (strip ? "_bare" : ""));
            test::write_hf_variant(test::hf_tiny_dir() / which.folder, dir, dtype, strip);
            const HfLoadedModel model = load_or_fail(dir);
            const Comparison c = run_against_golden(model, which);
            EXPECT_LE(c.worst, kTolerance)
                << dtype << (strip ? " without prefix" : "") << ": worst at " << c.where;
            fs::remove_all(dir);
        }
}

// The mistakes the issue names must each fail the comparison: the goldens' weights were scaled for this.
TEST_P(HfModelGolden, AWrongLayerNormEpsilonFails)
{
    const Case& which = GetParam();
    HfLoadedModel model = load_or_fail(test::hf_tiny_dir() / which.folder);
    model.config.layer_norm_eps = which.bert ? 1e-5f : 1e-12f;
    EXPECT_GT(run_against_golden(model, which).worst, 100 * kTolerance);
}

TEST_P(HfModelGolden, TheOtherGeluFails)
{
    const Case& which = GetParam();
    HfLoadedModel model = load_or_fail(test::hf_tiny_dir() / which.folder);
    model.config.activation = which.bert ? train::Activation::GeluTanh : train::Activation::GeluErf;
    EXPECT_GT(run_against_golden(model, which).worst, 3 * kTolerance);
}

TEST_P(HfModelGolden, AnUntransposedSquareProjectionFails)
{
    const Case& which = GetParam();
    HfLoadedModel model = load_or_fail(test::hf_tiny_dir() / which.folder);
    auto params = std::make_shared<train::Params>(*model.params);
    params->layers[0].W_O.transposeInPlace();
    model.params = params;
    EXPECT_GT(run_against_golden(model, which).worst, 100 * kTolerance);
}

INSTANTIATE_TEST_SUITE_P(Tiny, HfModelGolden, ::testing::Values(kGpt2, kBert),
                         [](const ::testing::TestParamInfo<Case>& param)
                         { return std::string(param.param.folder); });

TEST(HfModel, DescribesItself)
{
    const HfLoadedModel gpt2 = load_or_fail(test::hf_tiny_dir() / "gpt2");
    EXPECT_TRUE(gpt2.is_gpt2());
    EXPECT_EQ(gpt2.parameters, train::parameter_count(gpt2.config));
    EXPECT_NE(gpt2.label().find("GPT-2 ("), std::string::npos) << gpt2.label();
    EXPECT_NE(gpt2.source().find(", pretrained, from "), std::string::npos);
    EXPECT_EQ(gpt2.mask_id, -1);
    EXPECT_TRUE(gpt2.config.causal);
    EXPECT_TRUE(gpt2.config.tied_unembedding);
    EXPECT_FALSE(gpt2.config.unembedding_bias);
    const HfLoadedModel bert = load_or_fail(test::hf_tiny_dir() / "bert");
    EXPECT_FALSE(bert.is_gpt2());
    EXPECT_FALSE(bert.config.causal);
    EXPECT_TRUE(bert.config.mlm_head);
    EXPECT_EQ(bert.vocabulary[static_cast<std::size_t>(bert.mask_id)], "[MASK]");
}

TEST(HfModel, TraceHasThePiecesAndTheSource)
{
    const HfLoadedModel model = load_or_fail(test::hf_tiny_dir() / "gpt2");
    HfRun run;
    ASSERT_TRUE(run_hf_text(model, " the cat", &run).is_ok());
    Trace trace;
    fill_hf_trace(model, run, &trace);
    EXPECT_EQ(trace.model_source, model.source());
    ASSERT_EQ(trace.tokens.tokens.size(), 1u);
    EXPECT_EQ(trace.tokens.tokens[0], run.encoding.pieces);
    EXPECT_EQ(trace.tokens.tokens[0][0].rfind(kSpaceMark, 0), 0u) << trace.tokens.tokens[0][0];
    ASSERT_EQ(trace.layers.size(), 2u);
    EXPECT_EQ(trace.layers[1].attn.head(0, 3).weights.rows(), run.batch.T);
}

TEST(HfModel, ProbabilitiesAreNamedAfterWhatTheyPredict)
{
    for (const bool bert : {false, true})
    {
        const HfLoadedModel model = load_or_fail(test::hf_tiny_dir() / (bert ? "bert" : "gpt2"));
        HfRun run;
        ASSERT_TRUE(run_hf_text(model, "the cat", &run).is_ok());
        Trace trace;
        fill_hf_trace(model, run, &trace);
        EXPECT_STREQ(stage_name(trace, Stage::probs),
                     bert ? "Token probabilities" : "Next-token probabilities");
        EXPECT_STREQ(stage_name(trace, Stage::logits), "Logits");
    }
}

TEST(HfModel, TooLongATextNamesTheContextLength)
{
    const HfLoadedModel model = load_or_fail(test::hf_tiny_dir() / "gpt2");
    HfRun run;
    ASSERT_TRUE(run_hf_text(model, "a", &run).is_ok());
    const std::vector<int> before = run.encoding.ids;
    std::string text;
    for (int i = 0; i < 40; ++i)
        text += " x";
    const Status s = run_hf_text(model, text, &run);
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("at most 16"), std::string::npos) << s.message();
    EXPECT_EQ(run.encoding.ids, before);
}

TEST(HfModel, WeightsTooLargeForFloatAreRefusedAtTheRun)
{
    HfLoadedModel model = load_or_fail(test::hf_tiny_dir() / "gpt2");
    auto params = std::make_shared<train::Params>(*model.params);
    params->lnf_gamma *= 1e30f; // finite, but the logits (LN_f · E) overflow
    params->E *= 1e10f;
    model.params = params;
    HfRun run;
    const Status s = run_hf_ids(model, {1, 2, 3}, &run);
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("overflow"), std::string::npos) << s.message();
}

TEST(HfModel, LoadingCanBeCancelledAndReportsProgress)
{
    HfLoadedModel model;
    double last = -1;
    int calls = 0;
    const Status s = load_hf_model((test::hf_tiny_dir() / "gpt2").string(), &model,
                                   [&](double f)
                                   {
                                       EXPECT_GE(f, last);
                                       last = f;
                                       return ++calls < 5;
                                   });
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("cancelled"), std::string::npos) << s.message();
    EXPECT_EQ(model.params, nullptr);
    calls = 0;
    last = -1;
    ASSERT_TRUE(load_hf_model((test::hf_tiny_dir() / "gpt2").string(), &model,
                              [&](double f) { return (last = f) >= 0; })
                    .is_ok());
    EXPECT_EQ(last, 1.0);
}

// Every tensor of a model folder as float, to write back changed (test::safetensors_bytes).
std::vector<test::TestTensor> tensors_of(const fs::path& dir)
{
    SafetensorsIndex index;
    EXPECT_TRUE(open_safetensors(dir.string(), &index).is_ok());
    std::vector<test::TestTensor> tensors;
    for (const TensorInfo& info : index.tensors)
    {
        Mat m;
        EXPECT_TRUE(read_tensor(index, info.name, &m).is_ok()) << info.name;
        test::TestTensor t;
        t.name = info.name;
        t.shape = info.shape;
        t.values.assign(m.data(), m.data() + m.size());
        tensors.push_back(t);
    }
    return tensors;
}

// The tensor of that name in tensors (one must be there).
test::TestTensor& tensor_named(std::vector<test::TestTensor>& tensors, const std::string& name)
{
    for (test::TestTensor& t : tensors)
        if (t.name == name)
            return t;
    ADD_FAILURE() << "no tensor " << name;
    return tensors.front();
}

TEST(HfModel, AnUntiedOutputLayerIsRefusedByName)
{
    // A copy whose lm_head.weight differs from wte.
    const fs::path dir = scratch_dir("untied");
    test::write_hf_variant(test::hf_tiny_dir() / "gpt2", dir, "F32", false);
    std::vector<test::TestTensor> tensors = tensors_of(dir);
    test::TestTensor lm_head = tensor_named(tensors, "transformer.wte.weight");
    lm_head.name = "lm_head.weight";
    lm_head.values[0] += 0.5f;
    tensors.push_back(lm_head);
    test::write_bytes((dir / "model.safetensors").string(), test::safetensors_bytes(tensors));
    HfLoadedModel model;
    const Status s = load_hf_model(dir.string(), &model);
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("lm_head.weight"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("tied"), std::string::npos) << s.message();
    fs::remove_all(dir);
}

TEST(HfModel, ANumberThatIsNotFiniteIsRefusedNamingTheTensorAndTheElement)
{
    // Copies whose token embedding holds a NaN (near its end, past the first blocks of the scan) or an
    // infinity (its first element).
    const fs::path dir = scratch_dir("notfinite");
    test::write_hf_variant(test::hf_tiny_dir() / "gpt2", dir, "F32", false);
    std::vector<test::TestTensor> tensors = tensors_of(dir);
    test::TestTensor& wte = tensor_named(tensors, "transformer.wte.weight");
    const std::vector<float> good = wte.values;
    const std::size_t last = good.size() - 2;
    for (const auto& [element, value] :
         {std::pair<std::size_t, float>{last, std::nanf("")}, std::pair<std::size_t, float>{0, -INFINITY}})
    {
        wte.values = good;
        wte.values[element] = value;
        test::write_bytes((dir / "model.safetensors").string(), test::safetensors_bytes(tensors));
        HfLoadedModel model;
        const Status s = load_hf_model(dir.string(), &model);
        ASSERT_FALSE(s.is_ok());
        EXPECT_NE(s.message().find("transformer.wte.weight"), std::string::npos) << s.message();
        EXPECT_NE(s.message().find("not finite"), std::string::npos) << s.message();
        EXPECT_NE(s.message().find("at element " + std::to_string(element) + ":"), std::string::npos)
            << s.message();
        EXPECT_EQ(model.params, nullptr);
    }
    fs::remove_all(dir);
}

TEST(HfModel, AFolderWithoutATokenizerSaysWhichFilesAreMissing)
{
    const fs::path dir = scratch_dir("notokenizer");
    test::write_hf_variant(test::hf_tiny_dir() / "bert", dir, "F32", false);
    fs::remove(dir / "vocab.txt");
    HfLoadedModel model;
    const Status s = load_hf_model(dir.string(), &model);
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("vocab.txt"), std::string::npos) << s.message();
    fs::remove_all(dir);
}

// A tokenizer file or config.json that is a link leading nowhere (or looping) is named with why it cannot be
// read, not reported missing ("has merges.txt but no vocab.json" for a vocab.json the user can see).
TEST(HfModel, ABrokenLinkInTheFolderIsNamedNotMissing)
{
    const fs::path dir = scratch_dir("brokenlinks");
    test::write_hf_variant(test::hf_tiny_dir() / "gpt2", dir, "F32", false);
    for (const char* name : {"vocab.json", "config.json"})
    {
        const fs::path kept = dir / (std::string(name) + ".kept");
        fs::rename(dir / name, kept);
        fs::create_symlink(dir / name, dir / name); // a loop
        HfLoadedModel model;
        const Status s = load_hf_model(dir.string(), &model);
        ASSERT_FALSE(s.is_ok()) << name;
        EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
        EXPECT_NE(s.message().find("symbolic links"), std::string::npos) << s.message();
        EXPECT_EQ(s.message().find("no " + std::string(name)), std::string::npos) << s.message();
        fs::remove(dir / name);
        fs::rename(kept, dir / name);
    }
    fs::remove_all(dir);
}

// A config.json beyond the engine's limits is refused with its own key and the folder, before the weights'
// header is read (a student who fixed the tensors' shapes first was then refused again).
TEST(HfModel, AConfigBeyondTheEnginesLimitsIsRefusedFirstWithItsOwnKeys)
{
    const fs::path dir = scratch_dir("toomanylayers");
    test::write_hf_variant(test::hf_tiny_dir() / "gpt2", dir, "F32", false);
    nlohmann::json config;
    std::ifstream(dir / "config.json") >> config;
    config["n_layer"] = 256; // the tensors are the tiny model's: this check comes first
    std::ofstream(dir / "config.json") << config.dump();
    HfLoadedModel model;
    const Status s = load_hf_model(dir.string(), &model);
    ASSERT_FALSE(s.is_ok());
    for (const char* part : {"config.json's n_layer is 256", "at most 24 layers", "toomanylayers"})
        EXPECT_NE(s.message().find(part), std::string::npos) << part << "\n" << s.message();
    EXPECT_EQ(s.message().find("n_layers must"), std::string::npos) << s.message();
    fs::remove_all(dir);
}

// A vocabulary id past config.json's vocab_size names that token and id (it said "10000001 tokens" for one
// stray id of ten million) and asks for both files from one model.
TEST(HfModel, AVocabularyIdPastTheConfigsSizeIsNamed)
{
    const fs::path dir = scratch_dir("strayid");
    test::write_hf_variant(test::hf_tiny_dir() / "gpt2", dir, "F32", false);
    nlohmann::json vocab;
    std::ifstream(dir / "vocab.json") >> vocab;
    vocab["\u0120stray"] = 10000000;
    std::ofstream(dir / "vocab.json") << vocab.dump();
    HfLoadedModel model;
    const Status s = load_hf_model(dir.string(), &model);
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("the token \"\u0120stray\" the id 10000000"), std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find("config.json's vocab_size is"), std::string::npos) << s.message();
    EXPECT_EQ(s.message().find("10000001"), std::string::npos) << s.message();
    EXPECT_EQ(s.message().rfind(dir.string() + ": the tokenizer's files", 0), 0u) << "names the folder first";
    fs::remove_all(dir);
}

// A model whose weights would not fit in memory is refused by its size before anything is read (a 24-layer,
// 4096-wide GPT-2 passes the engine's limits of layers and width, and its 20 GB of weights ended in an abort
// when memory ran out); GPT-2 medium opens.
TEST(HfModel, AModelTooLargeForMemoryIsRefusedBySize)
{
    HfConfig hf;
    hf.architecture = HfArchitecture::Gpt2;
    hf.vocab_size = 50257;
    hf.n_positions = 1024;
    hf.n_heads = 16;
    hf.n_layers = 24;
    hf.d_model = 1024;
    hf.d_ff = 4096;
    train::ModelConfig medium;
    ASSERT_TRUE(hf_model_config(hf, false, &medium));
    EXPECT_TRUE(check_hf_model_size(medium, "gpt2-medium"));
    EXPECT_GT(train::parameter_count(medium), 350000000);
    hf.d_model = 4096;
    hf.d_ff = 16384;
    hf.n_heads = 32;
    train::ModelConfig huge;
    ASSERT_TRUE(hf_model_config(hf, false, &huge)) << "within the engine's limits: only the size refuses it";
    const Status s = check_hf_model_size(huge, "big");
    ASSERT_FALSE(s);
    for (const char* part : {"big", "million parameters", "GB of memory as float", "more than the 3.0 GB",
                             "open a smaller model"})
        EXPECT_NE(s.message().find(part), std::string::npos) << part << "\n" << s.message();
}

} // namespace
} // namespace attnlab
