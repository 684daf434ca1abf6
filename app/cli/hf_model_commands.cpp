// attnlab export --model DIR and attnlab bench --model DIR: an opened Hugging Face folder on the command
// line.
#include "commands.h"

#include "core/cpu.h"
#include "core/io/atomic_file.h"
#include "core/io/hf_model.h"
#include "core/io/json_io.h"
#include "core/io/model_file.h"

#include <CLI/CLI.hpp>
#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <malloc.h>
#include <ostream>
#include <sstream>
#include <vector>

namespace attnlab
{

namespace
{

using Clock = std::chrono::steady_clock;

double elapsed_ms(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The session options a model folder decides instead (all but --text).
Status check_folder_options(const SessionOptions& o, const char* command)
{
    for (const CLI::Option* option : given_session_options(o))
        if (option != o.text_option)
            return Status::error(
                option->get_name() + " does not go with --model FOLDER: the folder's config.json " +
                "sets the shape and its safetensors the weights (" + command + " takes only --text with it)");
    return Status::ok();
}

// A NaN or an infinity in the pass: the weights overflow float. Named by the first stage where it appears.
Status check_finite(const train::ModelConfig& c, const train::Activations& a)
{
    const char* advice =
        " produced a NaN or infinite value: the model's weights overflow float (a damaged or "
        "wrongly scaled checkpoint)";
    if (!a.embed.allFinite())
        return Status::error(std::string("the embedding") + advice);
    for (std::size_t l = 0; l < a.layers.size(); ++l)
    {
        const train::LayerActsT<float>& L = a.layers[l];
        bool finite = L.X.allFinite() && L.ln1.allFinite() && L.Q.allFinite() && L.K.allFinite() &&
                      L.V.allFinite() && L.weights.allFinite() && L.concat.allFinite() && L.mha.allFinite() &&
                      L.residual.allFinite();
        if (c.has_ffn())
            finite = finite && L.ln2.allFinite() && L.ffn_pre.allFinite() && L.ffn_hidden.allFinite() &&
                     L.ffn.allFinite() && L.residual2.allFinite();
        if (!finite)
            return Status::error("layer " + std::to_string(l + 1) + advice);
    }
    if (!a.lnf.allFinite() || !a.mlm_norm.allFinite() || !a.logits.allFinite() || !a.probs.allFinite())
        return Status::error(std::string("the output layer (logits, probabilities)") + advice);
    return Status::ok();
}

// A memory figure of /proc/self/status in MB of 10^6 bytes ("VmHWM:" peak resident, "VmRSS:" resident now),
// or -1 where there is none.
double proc_status_mb(const char* key)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind(key, 0) == 0)
        {
            std::istringstream fields(line.substr(std::string(key).size()));
            double kb = 0;
            if (fields >> kb)
                return kb * 1024.0 / 1e6; // MB, as trace_mb
        }
    return -1;
}

// A folder without config.json is not a model's: said before anything is read, naming both kinds of --model.
Status check_model_folder(const std::string& folder)
{
    // A config.json that is a broken link counts as there: reading it then says why.
    if (!path_present(std::filesystem::path(folder) / "config.json"))
        return Status::error(folder + " is a folder without config.json: --model takes an attnlab model file "
                                      "(attnlab train -o) or a Hugging Face model folder (config.json, "
                                      "model.safetensors and the tokenizer files, as the Hub ships them)");
    return Status::ok();
}

} // namespace

bool is_model_folder_argument(const std::string& model)
{
    std::error_code error;
    return !model.empty() && std::filesystem::is_directory(model, error);
}

int run_hf_export(const ExportArgs& args, std::ostream& out, std::ostream& err)
{
    Status status = check_folder_options(args.session, "export");
    if (status && args.gradients)
        status =
            Status::error("--gradients does not go with --model FOLDER: an opened model runs forward only "
                          "(gradients are for models trained with attnlab train)");
    if (status && args.session.text.empty())
        status = Status::error("--model FOLDER needs --text: the sentence to run through the model");
    if (status)
        status = check_model_folder(args.model);
    HfLoadedModel model;
    if (status)
        status = load_hf_model(args.model, &model);
    HfRun run;
    if (status)
        status = run_hf_text(model, args.session.text, &run);
    if (status)
        status = check_finite(model.config, run.acts);
    if (status)
    {
        status = write_hf_run_json(model, run, args.output);
    }
    if (!status)
    {
        print_error(err, "export", status.message());
        return 1;
    }
    const train::ModelConfig& c = model.config;
    out << "wrote " << args.output << ": " << model.label() << ", B=1 T=" << run.batch.T
        << " layers=" << c.n_layers << " h=" << c.n_heads << " V=" << c.vocab_size << "\n";
    return 0;
}

int run_hf_bench(const BenchArgs& args, std::ostream& out, std::ostream& err)
{
    Status status = Status::ok();
    if (args.T > 0 || args.d_model > 0 || args.heads > 0 || args.d_ff > 0)
        status = Status::error("--t, --d-model, --heads and --d-ff do not go with --model: the folder's "
                               "config.json sets the shape and --text the tokens");
    else if (args.text.empty())
        status = Status::error("--model needs --text: the sentence to time the model on");
    else if (!is_model_folder_argument(args.model))
        status = Status::error(args.model + " is not a folder: give --model a Hugging Face model folder "
                                            "(config.json, model.safetensors and the tokenizer files)");
    else
        status = check_model_folder(args.model);
    if (!status)
    {
        print_error(err, "bench", status.message());
        return 1;
    }

    Eigen::setNbThreads(args.threads);
    HfLoadedModel model;
    const double base_mb = proc_status_mb("VmRSS:");
    const auto open_start = Clock::now();
    status = load_hf_model(args.model, &model);
    const double open_ms = elapsed_ms(open_start);
    const double opened_mb = proc_status_mb("VmRSS:");
    HfRun run;
    if (status)
        status = run_hf_text(model, args.text, &run); // warm-up: the buffers get their sizes
    if (!status)
    {
        print_error(err, "bench", status.message());
        return 1;
    }
    std::vector<double> forward_times, trace_times;
    Trace trace;
    take_hf_trace(model, run, &trace); // warm-up
    for (int r = 0; r < args.repeats; ++r)
    {
        const auto start = Clock::now();
        status = run_hf_text(model, args.text, &run);
        forward_times.push_back(elapsed_ms(start));
        if (!status)
        {
            print_error(err, "bench", status.message());
            return 1;
        }
        const auto trace_start = Clock::now();
        take_hf_trace(model, run, &trace); // as the window does: the pass is not held twice
        trace_times.push_back(elapsed_ms(trace_start));
    }
    malloc_trim(0); // the freed pass back to the system, as the window's worker does after each run
    const double trace_mb = static_cast<double>(trace_float_count(trace)) * 4.0 / 1e6;
    char line[512];
    std::snprintf(line, sizeof line,
                  "T=%d layers=%d h=%d d_model=%d V=%d open_ms=%.1f forward_ms=%.3f trace_ms=%.3f "
                  "trace_mb=%.1f base_mb=%.1f model_mb=%.1f rss_mb=%.1f rest_mb=%.1f\n",
                  run.batch.T, model.config.n_layers, model.config.n_heads, model.config.d_model,
                  model.config.vocab_size, open_ms, median_of(forward_times), median_of(trace_times),
                  trace_mb, base_mb, opened_mb - base_mb, proc_status_mb("VmHWM:"), proc_status_mb("VmRSS:"));
    out << "model=" << model.label() << " folder=" << args.model << " threads=" << Eigen::nbThreads()
        << " (requested " << args.threads << ") repeats=" << args.repeats << " " << kernels_in_use()
        << "; open = load_hf_model, forward = run_hf_text (every intermediate kept), trace = take_hf_trace "
           "(the activations moved into the trace), "
           "base = resident memory before opening, model = what opening added (weights and tokenizer), "
           "rss = peak resident memory, rest = resident memory with the last trace made\n"
        << line << std::flush;
    return 0;
}

} // namespace attnlab
