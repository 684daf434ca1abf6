// The tiny Hugging Face folders and their PyTorch goldens (tests/data/hf_tiny, make_hf_goldens.py): the
// folders open with every tensor planned, their tokenizers give the goldens' ids, layer 0's embeddings,
// LayerNorm and Q, K, V recomputed here from the file's tensors agree with the goldens, and F16 / BF16 copies
// with and without the name prefix read the same numbers.
#include "core/io/hf_config.h"
#include "core/io/hf_tokenizer.h"
#include "hf_golden.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <unistd.h>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;
using test::GoldenMat;
using test::hf_tiny_dir;
using test::HfGolden;
using test::load_hf_golden;

struct Arch
{
    const char* name; // "gpt2" or "bert": the folder and the golden's prefix
    HfArchitecture architecture;
};
const Arch kGpt2{"gpt2", HfArchitecture::Gpt2};
const Arch kBert{"bert", HfArchitecture::Bert};

fs::path folder(const Arch& a)
{
    return hf_tiny_dir() / a.name;
}

const HfGolden& golden(const Arch& a)
{
    static const HfGolden gpt2 = load_hf_golden(hf_tiny_dir() / "gpt2_golden.json");
    static const HfGolden bert = load_hf_golden(hf_tiny_dir() / "bert_golden.json");
    return a.architecture == HfArchitecture::Gpt2 ? gpt2 : bert;
}

HfModel open_ok(const fs::path& dir)
{
    HfModel model;
    const Status s = open_hf_model(dir.string(), &model);
    EXPECT_TRUE(s) << s.message();
    return model;
}

GoldenMat read_mat(const SafetensorsIndex& index, const std::string& name)
{
    Mat m;
    const Status s = read_tensor(index, name, &m);
    EXPECT_TRUE(s) << name << ": " << s.message();
    return m.cast<double>();
}

// The largest |a - b| over the largest |b|: both matrices the same shape.
double relative_error(const GoldenMat& a, const GoldenMat& b)
{
    EXPECT_EQ(a.rows(), b.rows());
    EXPECT_EQ(a.cols(), b.cols());
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return INFINITY;
    return (a - b).cwiseAbs().maxCoeff() / std::max(1e-300, b.cwiseAbs().maxCoeff());
}

// LayerNorm of every row in float64: (x - mean) / √(var + eps) · gain + shift, var biased.
GoldenMat layer_norm(const GoldenMat& x, const GoldenMat& gain, const GoldenMat& shift, double eps)
{
    GoldenMat y(x.rows(), x.cols());
    for (Eigen::Index r = 0; r < x.rows(); ++r)
    {
        const double mean = x.row(r).mean();
        const double var = (x.row(r).array() - mean).square().mean();
        y.row(r) = ((x.row(r).array() - mean) / std::sqrt(var + eps) * gain.array() + shift.array()).matrix();
    }
    return y;
}

// The rows of E named by ids.
GoldenMat gather(const GoldenMat& E, const std::vector<int>& ids)
{
    GoldenMat out(static_cast<Eigen::Index>(ids.size()), E.cols());
    for (std::size_t t = 0; t < ids.size(); ++t)
        out.row(static_cast<Eigen::Index>(t)) = E.row(ids[t]);
    return out;
}

// Agreement of two float64 computations of the same sum from the same exact inputs.
constexpr double kFloat64 = 1e-12;

// [SECTION] The goldens themselves

TEST(HfGolden, EachGoldenHoldsEveryIntermediateWithItsShape)
{
    for (const Arch& a : {kGpt2, kBert})
    {
        SCOPED_TRACE(a.name);
        const HfGolden& g = golden(a);
        const int T = g.T(), d = g.config.at("d_model").get<int>(), h = g.config.at("n_heads").get<int>(),
                  d_ff = g.config.at("d_ff").get<int>(), V = g.config.at("vocab_size").get<int>();
        ASSERT_EQ(static_cast<int>(g.layers.size()), g.config.at("n_layers").get<int>());
        EXPECT_EQ(g.tokens.size(), g.token_ids.size());
        EXPECT_EQ(g.at("embed").rows(), T);
        EXPECT_EQ(g.at("embed").cols(), d);
        for (const char* name : {"logits", "probs"})
        {
            EXPECT_EQ(g.at(name).rows(), T) << name;
            EXPECT_EQ(g.at(name).cols(), V) << name;
        }
        EXPECT_LT((g.at("probs").rowwise().sum().array() - 1.0).abs().maxCoeff(), kFloat64);
        for (int i = 0; i < static_cast<int>(g.layers.size()); ++i)
        {
            SCOPED_TRACE("layer " + std::to_string(i));
            for (const char* name :
                 {"X", "ln1", "Q", "K", "V", "concat", "mha", "residual", "ln2", "ffn", "residual2"})
            {
                EXPECT_EQ(g.layer(i, name).rows(), T) << name;
                EXPECT_EQ(g.layer(i, name).cols(), d) << name;
            }
            for (const char* name : {"scores", "scaled", "masked", "weights"})
            {
                EXPECT_EQ(g.layer(i, name).rows(), h * T) << name;
                EXPECT_EQ(g.layer(i, name).cols(), T) << name;
            }
            for (const char* name : {"ffn_pre", "ffn_hidden"})
            {
                EXPECT_EQ(g.layer(i, name).rows(), T) << name;
                EXPECT_EQ(g.layer(i, name).cols(), d_ff) << name;
            }
            const GoldenMat& masked = g.layer(i, "masked");
            const GoldenMat& weights = g.layer(i, "weights");
            EXPECT_LT(relative_error(g.layer(i, "scaled"), g.layer(i, "scores") / std::sqrt(d / h)),
                      kFloat64);
            EXPECT_LT((weights.rowwise().sum().array() - 1.0).abs().maxCoeff(), kFloat64);
            // GPT-2 masks the keys after the query (null in the JSON, -inf here); BERT masks nothing.
            for (Eigen::Index r = 0; r < masked.rows(); ++r)
                for (Eigen::Index c = 0; c < T; ++c)
                {
                    const bool future = a.architecture == HfArchitecture::Gpt2 && c > r % T;
                    EXPECT_EQ(std::isinf(masked(r, c)), future) << r << "," << c;
                    EXPECT_EQ(weights(r, c) == 0.0, future) << r << "," << c;
                    if (!future)
                    {
                        EXPECT_EQ(masked(r, c), g.layer(i, "scaled")(r, c));
                    }
                }
        }
        // The next layer's input is this layer's output: residual2 (pre-LN) or ln2 (post-LN).
        const char* output = a.architecture == HfArchitecture::Gpt2 ? "residual2" : "ln2";
        EXPECT_EQ(g.layer(1, "X"), g.layer(0, output));
        EXPECT_EQ(g.layer(0, "X"), g.at(a.architecture == HfArchitecture::Gpt2 ? "embed" : "embed_norm"));
    }
}

TEST(HfGolden, EachMistakeTheGoldensGuardAgainstMovesThemFarBeyondFloat32Rounding)
{
    // The script measured these; the comparison test's tolerance must sit between the two columns.
    for (const Arch& a : {kGpt2, kBert})
    {
        const nlohmann::json& s = golden(a).sensitivity;
        EXPECT_GE(s.size(), 4u) << a.name;
        for (const auto& [mistake, r] : s.items())
        {
            SCOPED_TRACE(std::string(a.name) + " " + mistake);
            EXPECT_GT(r.at("first_relative_change").get<double>(),
                      30 * r.at("first_float32_rounding").get<double>());
            EXPECT_GT(r.at("logits_relative_change").get<double>(),
                      30 * r.at("logits_float32_rounding").get<double>());
        }
    }
}

// [SECTION] The folders on main's readers

TEST(HfGolden, FoldersOpenWithEveryTensorOfTheTablePlanned)
{
    for (const Arch& a : {kGpt2, kBert})
    {
        SCOPED_TRACE(a.name);
        const HfGolden& g = golden(a);
        const HfModel model = open_ok(folder(a));
        const HfConfig& c = model.config;
        EXPECT_EQ(c.architecture, a.architecture);
        EXPECT_EQ(c.n_layers, g.config.at("n_layers").get<int>());
        EXPECT_EQ(c.n_heads, g.config.at("n_heads").get<int>());
        EXPECT_EQ(c.d_model, g.config.at("d_model").get<int>());
        EXPECT_EQ(c.d_head(), g.config.at("d_k").get<int>());
        EXPECT_EQ(c.d_ff, g.config.at("d_ff").get<int>());
        EXPECT_EQ(c.n_positions, g.config.at("n_positions").get<int>());
        EXPECT_EQ(c.vocab_size, g.config.at("vocab_size").get<int>());
        EXPECT_EQ(c.layer_norm_eps, g.config.at("layer_norm_eps").get<float>());
        EXPECT_EQ(c.activation_name, g.config.at("activation").get<std::string>());
        EXPECT_EQ(c.activation,
                  a.architecture == HfArchitecture::Gpt2 ? HfActivation::GeluTanh : HfActivation::GeluErf);

        const HfTensorPlan& plan = model.plan;
        EXPECT_EQ(plan.prefix, hf_name_prefix(a.architecture));
        EXPECT_EQ(plan.has_head, a.architecture == HfArchitecture::Bert);
        EXPECT_TRUE(plan.unused.empty()) << plan.unused.size() << " tensors the table does not know";
        std::size_t planned = 0;
        for (const HfTensorRule& rule : hf_tensor_rules(a.architecture))
            for (int layer = 0; layer < (rule.per_layer ? c.n_layers : 1); ++layer)
            {
                const HfTensorRef* ref = plan.find(rule.slot, rule.per_layer ? layer : -1);
                // The head's output matrix is tied to the token embedding: not in the file.
                if (rule.need == HfNeed::Optional)
                {
                    EXPECT_EQ(ref, nullptr) << rule.name;
                    continue;
                }
                ASSERT_NE(ref, nullptr) << rule.name << " layer " << layer;
                EXPECT_EQ(ref->shape, hf_expected_shape(rule, c)) << ref->name;
                EXPECT_NE(model.index.find(ref->name), nullptr) << ref->name;
                ++planned;
            }
        EXPECT_EQ(plan.tensors.size(), planned);
        // Every tensor of the file is planned, except GPT-2's two mask buffers per layer.
        const std::size_t buffers = a.architecture == HfArchitecture::Gpt2 ? 2 * c.n_layers : 0;
        EXPECT_EQ(model.index.tensors.size(), planned + buffers);
    }
}

TEST(HfGolden, TokenizersGiveTheGoldensTokenIds)
{
    for (const Arch& a : {kGpt2, kBert})
    {
        SCOPED_TRACE(a.name);
        const HfGolden& g = golden(a);
        std::unique_ptr<HfTokenizer> tokenizer;
        const Status s = read_hf_tokenizer(folder(a).string(), a.architecture, &tokenizer);
        ASSERT_TRUE(s) << s.message();
        EXPECT_EQ(tokenizer->vocab_size(), g.config.at("vocab_size").get<int>());
        Encoding e;
        ASSERT_TRUE(tokenizer->encode(g.text, &e));
        EXPECT_EQ(e.ids, g.token_ids);
        EXPECT_EQ(e.tokens, g.tokens);
        // At least one token is a merge (GPT-2: more than one byte) or a continuation piece (BERT).
        bool composed = false;
        for (const std::string& token : e.tokens)
        {
            bool one_byte = false;
            for (int byte = 0; byte < 256; ++byte)
                one_byte |= token == gpt2_byte_char(static_cast<unsigned char>(byte));
            composed |= a.architecture == HfArchitecture::Gpt2 ? !one_byte : token.rfind("##", 0) == 0;
        }
        EXPECT_TRUE(composed);
    }
}

// [SECTION] Layer 0 recomputed from the file's tensors

TEST(HfGolden, Gpt2EmbeddingLayerNormAndQkvFromTheFileMatchTheGolden)
{
    const HfGolden& g = golden(kGpt2);
    const HfModel model = open_ok(folder(kGpt2));
    const SafetensorsIndex& index = model.index;
    const int T = g.T(), d = model.config.d_model;
    const double eps = g.config.at("layer_norm_eps").get<double>();

    const GoldenMat embed = gather(read_mat(index, "transformer.wte.weight"), g.token_ids) +
                            read_mat(index, "transformer.wpe.weight").topRows(T);
    EXPECT_LT(relative_error(embed, g.at("embed")), kFloat64);

    const GoldenMat ln1 = layer_norm(g.layer(0, "X"), read_mat(index, "transformer.h.0.ln_1.weight"),
                                     read_mat(index, "transformer.h.0.ln_1.bias"), eps);
    EXPECT_LT(relative_error(ln1, g.layer(0, "ln1")), kFloat64);

    // Conv1D: stored input x output, [W_Q | W_K | W_V] side by side; the attention reads ln1 (pre-LN).
    const GoldenMat W = read_mat(index, "transformer.h.0.attn.c_attn.weight");
    const GoldenMat b = read_mat(index, "transformer.h.0.attn.c_attn.bias");
    ASSERT_EQ(W.rows(), d);
    ASSERT_EQ(W.cols(), 3 * d);
    const char* names[] = {"Q", "K", "V"};
    for (int part = 0; part < 3; ++part)
    {
        const GoldenMat expected =
            (g.layer(0, "ln1") * W.middleCols(part * d, d)).rowwise() + b.middleCols(part * d, d).row(0);
        EXPECT_LT(relative_error(expected, g.layer(0, names[part])), kFloat64) << names[part];
    }
    // The transposed square block gives another Q: the file's orientation matters.
    const GoldenMat transposed =
        (g.layer(0, "ln1") * W.leftCols(d).transpose()).rowwise() + b.leftCols(d).row(0);
    EXPECT_GT(relative_error(transposed, g.layer(0, "Q")), 0.1);
}

TEST(HfGolden, BertEmbeddingLayerNormAndQkvFromTheFileMatchTheGolden)
{
    const HfGolden& g = golden(kBert);
    const HfModel model = open_ok(folder(kBert));
    const SafetensorsIndex& index = model.index;
    const int T = g.T();
    const double eps = g.config.at("layer_norm_eps").get<double>();
    ASSERT_EQ(g.token_type_ids, std::vector<int>(static_cast<std::size_t>(T), 0));

    const GoldenMat embed =
        gather(read_mat(index, "bert.embeddings.word_embeddings.weight"), g.token_ids) +
        read_mat(index, "bert.embeddings.position_embeddings.weight").topRows(T) +
        gather(read_mat(index, "bert.embeddings.token_type_embeddings.weight"), g.token_type_ids);
    EXPECT_LT(relative_error(embed, g.at("embed")), kFloat64);

    const GoldenMat norm = layer_norm(g.at("embed"), read_mat(index, "bert.embeddings.LayerNorm.weight"),
                                      read_mat(index, "bert.embeddings.LayerNorm.bias"), eps);
    EXPECT_LT(relative_error(norm, g.at("embed_norm")), kFloat64);

    // nn.Linear: stored output x input, so X Wᵀ + b; the attention reads X (post-LN).
    const char* names[] = {"Q", "K", "V"};
    const char* modules[] = {"query", "key", "value"};
    for (int part = 0; part < 3; ++part)
    {
        const std::string p = std::string("bert.encoder.layer.0.attention.self.") + modules[part];
        const GoldenMat W = read_mat(index, p + ".weight");
        const GoldenMat expected =
            (g.layer(0, "X") * W.transpose()).rowwise() + read_mat(index, p + ".bias").row(0);
        EXPECT_LT(relative_error(expected, g.layer(0, names[part])), kFloat64) << names[part];
        const GoldenMat untransposed = (g.layer(0, "X") * W).rowwise() + read_mat(index, p + ".bias").row(0);
        EXPECT_GT(relative_error(untransposed, g.layer(0, names[part])), 0.1) << names[part];
    }
}

// [SECTION] F16 and BF16 copies

TEST(HfGolden, F16AndBf16CopiesWithAndWithoutThePrefixReadTheF32Numbers)
{
    const fs::path scratch = fs::temp_directory_path() / ("attnlab_hf_golden_" + std::to_string(::getpid()));
    for (const Arch& a : {kGpt2, kBert})
        for (const char* dtype : {"F16", "BF16"})
            for (const bool strip : {false, true})
            {
                SCOPED_TRACE(std::string(a.name) + " " + dtype +
                             (strip ? " without prefix" : " with prefix"));
                const fs::path dir = scratch / (std::string(a.name) + dtype + (strip ? "_bare" : ""));
                test::write_hf_variant(folder(a), dir, dtype, strip);
                const HfModel f32 = open_ok(folder(a));
                const HfModel copy = open_ok(dir);
                EXPECT_EQ(copy.plan.prefix, strip ? "" : hf_name_prefix(a.architecture));
                ASSERT_EQ(copy.plan.tensors.size(), f32.plan.tensors.size());
                for (std::size_t i = 0; i < f32.plan.tensors.size(); ++i)
                {
                    const HfTensorRef& want = f32.plan.tensors[i];
                    const HfTensorRef& got = copy.plan.tensors[i];
                    EXPECT_EQ(got.slot, want.slot);
                    EXPECT_EQ(got.layer, want.layer);
                    EXPECT_EQ(got.name, strip ? test::strip_hf_prefix(want.name) : want.name);
                    const TensorInfo* info = copy.index.find(got.name);
                    ASSERT_NE(info, nullptr) << got.name;
                    EXPECT_EQ(dtype_name(info->dtype), std::string(dtype)) << got.name;
                    Mat x, y;
                    ASSERT_TRUE(read_tensor(f32.index, want.name, &x));
                    ASSERT_TRUE(read_tensor(copy.index, got.name, &y));
                    EXPECT_TRUE(x == y) << got.name << " differs from the F32 file";
                }
                std::unique_ptr<HfTokenizer> tokenizer;
                EXPECT_TRUE(read_hf_tokenizer(dir.string(), a.architecture, &tokenizer));
            }
    std::error_code ec;
    fs::remove_all(scratch, ec);
}

} // namespace
} // namespace attnlab
