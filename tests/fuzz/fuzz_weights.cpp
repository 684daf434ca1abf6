// Fuzz target: weight files (--weights, the Weights panel): the "weights" object of attnlab-weights files and
// trace exports (parse_weights_json) and PyTorch state dicts written as JSON (parse_torch_weights_json). Each
// input goes to both readers.
//
// The readers need the config the weights are for. It is taken from the input itself when it names one (an
// export's or attnlab-weights file's "config", or the d_model / heads / d_ff / layers beside a state dict in
// tests/data), kept small, so that the readers get past the shape checks; otherwise Config{}'s defaults.
// Checked besides not crashing: weights that load pass check_weights, and a failed read leaves its output as
// it was (json_io.h promises both).
#include "core/io/json_io.h"
#include "fuzz_support.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace attnlab;
using json = nlohmann::json;

namespace
{

// Reads key from object into *out when it is an integer, clamped to [lo, hi].
void read_size(const json& object, const char* key, int lo, int hi, int* out)
{
    const auto it = object.find(key);
    if (it != object.end() && it->is_number_integer())
        *out = static_cast<int>(std::clamp<long long>(it->get<long long>(), lo, hi));
}

Config config_of(std::string_view text)
{
    Config config;
    json root;
    if (!fuzz::peek_json(text, &root) || !root.is_object())
        return config;
    const auto nested = root.find("config");
    const json& c = nested != root.end() && nested->is_object() ? *nested : root;
    read_size(c, "d_model", 1, 64, &config.d_model);
    read_size(c, "heads", 1, 8, &config.n_heads);
    read_size(c, "d_k", 0, 64, &config.d_k);
    read_size(c, "d_v", 0, 64, &config.d_v);
    read_size(c, "d_ff", 0, 256, &config.d_ff);
    read_size(c, "layers", 1, 4, &config.n_layers);
    if (!validate_config(config))
        return Config{};
    return config;
}

bool same(const Mat& a, const Mat& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::equal(a.data(), a.data() + a.size(), b.data(), b.data() + b.size(),
                      [](float x, float y) { return x == y || (x != x && y != y); });
}
bool same(const RowVec& a, const RowVec& b)
{
    return a.size() == b.size() && std::equal(a.data(), a.data() + a.size(), b.data());
}
bool same(const std::vector<Mat>& a, const std::vector<Mat>& b)
{
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](const Mat& x, const Mat& y) { return same(x, y); });
}
bool same(const AttentionWeights& a, const AttentionWeights& b)
{
    return same(a.W_Q, b.W_Q) && same(a.W_K, b.W_K) && same(a.W_V, b.W_V) && same(a.W_O, b.W_O);
}
bool same(const ModelWeights& a, const ModelWeights& b)
{
    if (a.layers.size() != b.layers.size() || !same(a.cross, b.cross))
        return false;
    for (size_t i = 0; i < a.layers.size(); ++i)
    {
        const LayerWeights &x = a.layers[i], &y = b.layers[i];
        if (!same(x.attn, y.attn) || !same(x.W_1, y.W_1) || !same(x.W_2, y.W_2) || !same(x.b_1, y.b_1) ||
            !same(x.b_2, y.b_2) || !same(x.gamma_1, y.gamma_1) || !same(x.beta_1, y.beta_1) ||
            !same(x.gamma_2, y.gamma_2) || !same(x.beta_2, y.beta_2))
            return false;
    }
    return true;
}

using Reader = Status (*)(std::string_view, const std::string&, const Config&, ModelWeights*);

void check(Reader read, const char* name, std::string_view text, const Config& config,
           const ModelWeights& seeded)
{
    ModelWeights weights = seeded;
    const Status status = read(text, "fuzz.json", config, &weights);
    if (status)
    {
        if (Status s = check_weights(weights, config); !s)
        {
            std::fprintf(stderr, "%s loaded weights that do not fit the config: %s\n", name,
                         s.message().c_str());
            std::abort();
        }
    }
    else if (!same(weights, seeded))
    {
        std::fprintf(stderr, "%s failed (%s) but changed its output\n", name, status.message().c_str());
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    fuzz::single_thread();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text = fuzz::as_text(data, size);
    const Config config = config_of(text);
    static Config seeded_config;
    static ModelWeights seeded = init_weights(seeded_config);
    if (config != seeded_config)
    {
        seeded_config = config;
        seeded = init_weights(config);
    }
    check(parse_weights_json, "parse_weights_json", text, config, seeded);
    check(parse_torch_weights_json, "parse_torch_weights_json", text, config, seeded);
    return 0;
}
