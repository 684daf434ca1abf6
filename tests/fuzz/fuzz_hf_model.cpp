// Fuzz target: a whole Hugging Face model folder as load_hf_model reads it. The input is split at its first
// NUL byte into config.json and model.safetensors (without a NUL: the input is config.json and the tiny
// GPT-2's weights are used), written into a folder that also holds the tiny GPT-2's and BERT's tokenizer
// files (tests/data/hf_tiny), and loaded; a model that loads runs a few tokens.
//
// Checked besides not crashing: a failed load leaves its output unchanged; a loaded model's parameters match
// its config's shapes, its vocabulary has one piece per id, and a run of up to 3 tokens either is refused for
// overflowing float (weights too large) or gives finite logits of the vocabulary's width whose probabilities
// sum to 1.
#include "core/io/atomic_file.h"
#include "core/io/hf_model.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <unistd.h>

using namespace attnlab;

namespace
{

namespace fs = std::filesystem;

fs::path folder;
std::string tiny_weights;

[[noreturn]] void fail(const char* what, const std::string& detail)
{
    std::fprintf(stderr, "fuzz_hf_model: %s: %s\n", what, detail.c_str());
    std::abort();
}

void write(const fs::path& path, std::string_view bytes)
{
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size())
        fail("cannot write", path.string());
    std::fclose(f);
}

void set_up()
{
    const fs::path tiny = fs::path(ATTNLAB_SOURCE_DIR) / "tests" / "data" / "hf_tiny";
    folder = fs::temp_directory_path() / ("attnlab_fuzz_hf_model_" + std::to_string(::getpid()));
    fs::create_directories(folder);
    for (const char* name : {"vocab.json", "merges.txt"})
        fs::copy_file(tiny / "gpt2" / name, folder / name, fs::copy_options::overwrite_existing);
    for (const char* name : {"vocab.txt", "tokenizer_config.json"})
        fs::copy_file(tiny / "bert" / name, folder / name, fs::copy_options::overwrite_existing);
    if (const Status s = read_file((tiny / "gpt2" / "model.safetensors").string(), &tiny_weights, 16 << 20);
        !s)
        fail("cannot read the tiny GPT-2", s.message());
}

void check_loaded(const HfLoadedModel& m)
{
    const train::ModelConfig& c = m.config;
    const train::Params& p = *m.params;
    if (p.E.rows() != c.vocab_size || p.E.cols() != c.d_model || p.P.rows() != c.T_max ||
        static_cast<int>(p.layers.size()) != c.n_layers)
        fail("parameters do not match the config", m.label());
    if (static_cast<int>(m.vocabulary.size()) != c.vocab_size)
        fail("vocabulary size", std::to_string(m.vocabulary.size()));
    if (m.parameters != train::parameter_count(c))
        fail("parameter count", std::to_string(m.parameters));
    std::vector<int> ids;
    for (int t = 0; t < std::min(3, c.T_max); ++t)
        ids.push_back((t * 7) % c.vocab_size);
    HfRun run;
    if (const Status s = run_hf_ids(m, ids, &run); !s)
    {
        // Weights too large for float are refused at the run, never shown.
        if (s.message().find("overflow") == std::string::npos)
            fail("a valid run refused", s.message());
        return;
    }
    if (run.acts.logits.rows() != static_cast<Eigen::Index>(ids.size()) ||
        run.acts.logits.cols() != c.vocab_size)
        fail("logits shape", std::to_string(run.acts.logits.cols()));
    for (Eigen::Index r = 0; r < run.acts.probs.rows(); ++r)
    {
        const double sum = run.acts.probs.row(r).cast<double>().sum();
        if (!(std::fabs(sum - 1.0) <= 1e-3))
            fail("probabilities do not sum to 1", std::to_string(sum));
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (folder.empty())
        set_up();
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t nul = input.find('\0');
    write(folder / "config.json", input.substr(0, nul));
    write(folder / "model.safetensors",
          nul == std::string_view::npos ? std::string_view(tiny_weights) : input.substr(nul + 1));
    HfLoadedModel model;
    model.mask_id = -7;
    const Status s = load_hf_model(folder.string(), &model);
    if (!s)
    {
        if (model.params != nullptr || model.mask_id != -7 || !model.vocabulary.empty())
            fail("a failed load changed its output", s.message());
        return 0;
    }
    check_loaded(model);
    return 0;
}
