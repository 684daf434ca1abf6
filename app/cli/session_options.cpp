// The shared session options (CLI11) and their translation into a Session.
#include "session_options.h"

#include "core/io/json_io.h"
#include "core/io/session_file.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <limits>

namespace attnlab
{

void add_session_options(CLI::App& app, SessionOptions& o)
{
    o.text_option = app.add_option("--text", o.text, "Source text, one sentence per line (a batch)");
    o.session_option = app.add_option("--session", o.session_path,
                                      "Session file to start from (options given here override it)");
    o.target_option = app.add_option("--target", o.target, "Target text for cross-attention");
    o.d_model_option = app.add_option("--d-model", o.d_model, "Model width d_model");
    o.heads_option = app.add_option("--heads", o.heads, "Number of heads h");
    o.d_k_option = app.add_option("--d-k", o.d_k, "Query/key size per head d_k (0: d_model / h)");
    o.d_v_option = app.add_option("--d-v", o.d_v, "Value size per head d_v (0: d_model / h)");
    o.d_ff_option = app.add_option("--d-ff", o.d_ff, "Feed-forward width d_ff (0: 4 d_model)");
    o.layers_option = app.add_option("--layers", o.layers, "Number of encoder layers N");
    o.mask_option = app.add_option("--mask", o.mask, "Attention mask: none or causal");
    o.positional_option =
        app.add_option("--positional", o.positional, "Positional encoding: sinusoidal or none");
    o.temperature_option = app.add_option("--temperature", o.temperature, "Softmax temperature tau");
    o.no_scale_option = app.add_flag("--no-scale", o.no_scale, "Do not divide the scores by sqrt(d_k)");
    o.seed_option = app.add_option("--seed", o.seed, "Seed of the embeddings and weights");
    o.weights_option =
        app.add_option("--weights", o.weights_path,
                       "Weights file: an attnlab trace/weights JSON or a PyTorch state dict JSON");
}

namespace
{

bool given(const CLI::Option* option)
{
    return option != nullptr && option->count() > 0;
}

} // namespace

bool any_session_option_given(const SessionOptions& o)
{
    for (const CLI::Option* option :
         {o.text_option, o.session_option, o.target_option, o.d_model_option, o.heads_option, o.d_k_option,
          o.d_v_option, o.d_ff_option, o.layers_option, o.mask_option, o.positional_option,
          o.temperature_option, o.seed_option, o.no_scale_option, o.weights_option})
        if (given(option))
            return true;
    return false;
}

Status build_session(const SessionOptions& o, Session* out, std::string* session_path)
{
    Session session;
    if (given(o.session_option))
    {
        Status loaded = load_session_file(o.session_path, &session);
        if (!loaded)
            return loaded;
    }
    if (given(o.text_option))
        session.text = o.text;
    if (given(o.target_option))
        session.target = o.target;
    Config& c = session.config;
    if (given(o.d_model_option))
        c.d_model = o.d_model;
    if (given(o.heads_option))
        c.n_heads = o.heads;
    if (given(o.d_k_option))
        c.d_k = o.d_k;
    if (given(o.d_v_option))
        c.d_v = o.d_v;
    if (given(o.d_ff_option))
        c.d_ff = o.d_ff;
    if (given(o.layers_option))
        c.n_layers = o.layers;
    if (given(o.mask_option))
    {
        Status parsed = parse_mask(o.mask, &c.mask);
        if (!parsed)
            return Status::error("--mask: " + parsed.message());
    }
    if (given(o.positional_option))
    {
        Status parsed = parse_positional(o.positional, &c.positional);
        if (!parsed)
            return Status::error("--positional: " + parsed.message());
    }
    if (given(o.temperature_option))
        c.temperature = o.temperature;
    if (given(o.seed_option))
    {
        // Parsed here rather than by CLI11, which wraps "-5" around to 2^64 - 5 without a word.
        const std::string& t = o.seed;
        const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), c.seed);
        if (t.empty() || ec != std::errc() || end != t.data() + t.size())
            return Status::error("--seed: \"" + t + "\" is not a whole number from 0 to " +
                                 std::to_string(std::numeric_limits<std::uint64_t>::max()));
    }
    if (given(o.no_scale_option))
        c.scale = false;
    std::string from = given(o.session_option) ? o.session_path : std::string();
    if (given(o.weights_option))
    {
        if (o.weights_path.empty())
            return Status::error(
                "--weights: the file path is empty; give a weights file, or leave the option "
                "out for seeded weights");
        // A path given on the command line is relative to the working directory, not to the session file.
        session.weights_path = absolute_weights_path(std::string(), o.weights_path);
    }
    else if (!from.empty())
    {
        session.weights_path = absolute_weights_path(from, session.weights_path);
    }
    Status valid = validate_config(c);
    if (!valid)
        return valid;
    *out = std::move(session);
    if (session_path)
        *session_path = from;
    return Status::ok();
}

Status load_session_weights(const Session& session, ModelWeights* weights, bool* loaded)
{
    *loaded = false;
    if (session.weights_path.empty())
        return Status::ok();
    Status status = load_any_weights_file(session.weights_path, session.config, weights);
    if (status)
        *loaded = true;
    return status;
}

} // namespace attnlab
