// attnlab bench: median forward-pass time per shape, its GFLOP/s, and the ratios to this machine's GEMM rate
// and to the core's measured peak on the kernels' instruction set.
#include "commands.h"

#include "core/cpu.h"
#include "core/engine.h"
#include "core/gemm.h"
#include "core/io/json_io.h"

#include <CLI/CLI.hpp>
#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ostream>
#include <utility>
#include <vector>

namespace attnlab
{

CLI::App* add_bench_command(CLI::App& app, BenchArgs& args)
{
    CLI::App* command = app.add_subcommand("bench", "Time the forward pass (every intermediate kept)");
    command->add_option("--t", args.T, "Tokens T in the sentence")->check(CLI::Range(1, Limits::max_tokens));
    command->add_option("--d-model", args.d_model, "Model width d_model")
        ->check(CLI::Range(1, Limits::max_d_model));
    command->add_option("--heads", args.heads, "Number of heads h")->check(CLI::Range(1, Limits::max_heads));
    command->add_option("--d-ff", args.d_ff, "Feed-forward width d_ff (0: 4 d_model)")
        ->check(CLI::Range(0, Limits::max_d_ff));
    command
        ->add_option("--threads", args.threads,
                     "Threads the products split over, by rows as the window's recompute splits them (the "
                     "same bits as on one)")
        ->check(CLI::Range(1, 256));
    command->add_option("--repeats", args.repeats, "Timed runs per shape (the median is shown)")
        ->check(CLI::Range(1, 1000));
    command->add_option(
        "--model", args.model,
        "A Hugging Face model folder (GPT-2, BERT): time opening it, its forward pass on --text "
        "and its trace, and show the peak memory");
    command->add_option("--text", args.text, "With --model: the text run through the model");
    return command;
}

namespace
{

using Clock = std::chrono::steady_clock;

double elapsed_ms(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Multiply-adds of one encoder layer for one sentence, counted as 2 flops each (matrix products only).
double layer_flops(double T, double d, double h, double d_k, double d_v, double d_ff)
{
    const double projections = 2 * T * d * h * (2 * d_k + d_v); // Q, K, V
    const double attention = 2 * T * T * h * (d_k + d_v);       // Q Kᵀ and A V
    const double output = 2 * T * h * d_v * d;                  // Concat W^O
    const double ffn = 2 * 2 * T * d * d_ff;                    // W_1 and W_2
    return projections + attention + output + ffn;
}

// The machine's float GEMM rate (GFLOP/s) for a (T x d) x (d x d) product, the shape of a projection, with
// the engine's own products (gemm) or, for reference, Eigen's operator*.
template <class Product> double gemm_gflops(int T, int d, int repeats, Product product)
{
    const Mat A = Mat::Random(T, d);
    const Mat B = Mat::Random(d, d);
    Mat C(T, d);
    product(A, B, C); // warm up
    std::vector<double> times;
    for (int r = 0; r < std::max(repeats, 5); ++r)
    {
        const auto start = Clock::now();
        product(A, B, C);
        times.push_back(elapsed_ms(start));
    }
    volatile float sink = C(0, 0);
    (void)sink;
    return 2.0 * T * d * d / (median_of(times) * 1e6);
}

struct Shape
{
    int T, d_model, heads;
};

std::string token_text(int T)
{
    std::string text;
    for (int t = 0; t < T; ++t)
    {
        if (t > 0)
            text += ' ';
        text += 't';
        text += std::to_string(t);
    }
    return text;
}

// Times the self-attention block alone (what nn.MultiheadAttention computes) on the trace's X.
double attention_ms(const Trace& trace, const ModelWeights& weights, const WeightPanels& panels, int repeats)
{
    const LayerTrace& layer = trace.layers[0];
    AttentionTrace attn;
    attn.n_heads = trace.config.n_heads;
    attn.heads.resize(static_cast<size_t>(attn.n_heads));
    attn.mask.assign(1, Mat::Zero(trace.T(), trace.T()));
    attn.concat.resize(1);
    attn.mha.resize(1);
    const AttentionWeights& w = weights.layers[0].attn;
    const AttentionPanels* p = panels.layers.empty() ? nullptr : &panels.layers[0].attn;
    attention_forward(layer.X[0], layer.X[0], w, score_scale(trace.config), trace.config.temperature, 0, attn,
                      p);
    std::vector<double> times;
    for (int r = 0; r < repeats; ++r)
    {
        const auto start = Clock::now();
        attention_forward(layer.X[0], layer.X[0], w, score_scale(trace.config), trace.config.temperature, 0,
                          attn, p);
        times.push_back(elapsed_ms(start));
    }
    return median_of(times);
}

} // namespace

double median_of(std::vector<double> values)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

int run_bench(const BenchArgs& args, std::ostream& out, std::ostream& err)
{
    if (!args.model.empty())
        return run_hf_bench(args, out, err);
    if (!args.text.empty())
    {
        print_error(err, "bench", "--text goes with --model FOLDER (a Hugging Face model folder to time)");
        return 1;
    }
    std::vector<Shape> shapes;
    if (args.T > 0 || args.d_model > 0 || args.heads > 0)
        shapes.push_back({args.T > 0 ? args.T : 128, args.d_model > 0 ? args.d_model : 512,
                          args.heads > 0 ? args.heads : 8});
    else
        shapes = {{128, 512, 8}, {512, 512, 8}, {1024, 768, 12}};

    Eigen::setNbThreads(args.threads);
    // One core's ceiling on this path; with more threads the products' rates are compared with it times the
    // thread count.
    const double peak = measure_peak_gflops() * Eigen::nbThreads();
    char peak_text[64];
    std::snprintf(peak_text, sizeof peak_text, "%.1f", peak);
    out << "threads=" << Eigen::nbThreads() << " (requested " << args.threads << ")"
        << " repeats=" << args.repeats << " kernel=" << gemm_kernel() << " " << kernels_in_use()
        << " peak_gflops=" << peak_text << " layers=1 B=1; forward = Engine::run, every intermediate kept\n";
    for (const Shape& shape : shapes)
    {
        Session session;
        session.text = token_text(shape.T);
        session.config.d_model = shape.d_model;
        session.config.n_heads = shape.heads;
        session.config.d_ff = args.d_ff;
        session.config.n_layers = 1;
        Engine engine;
        // Two warm-up runs: the engine alternates between two traces, so both get their buffers.
        for (int warm = 0; warm < 2; ++warm)
        {
            Status status = engine.run(session);
            if (!status)
            {
                print_error(err, "bench", status.message());
                return 1;
            }
        }
        std::vector<double> times;
        for (int r = 0; r < args.repeats; ++r)
        {
            const auto start = Clock::now();
            Status status = engine.run(session);
            times.push_back(elapsed_ms(start));
            if (!status)
            {
                print_error(err, "bench", status.message());
                return 1;
            }
        }
        const Trace& trace = engine.trace();
        const double forward_ms = median_of(times);
        const double flops =
            layer_flops(shape.T, shape.d_model, shape.heads, trace.d_k, trace.d_v, trace.d_ff);
        const double gflops = flops / (forward_ms * 1e6);
        const double gemm = gemm_gflops(shape.T, shape.d_model, args.repeats,
                                        [](const Mat& A, const Mat& B, Mat& C) { attnlab::gemm(A, B, C); });
        // The same product with B packed once beforehand, as the layer's products meet their weights
        // (gemm.h's PackedOperand): the kernel without the packing, which at T = 128 is a fifth of the
        // product above.
        PackedOperand packed;
        const double packed_gemm = gemm_gflops(shape.T, shape.d_model, args.repeats,
                                               [&packed](const Mat& A, const Mat& B, Mat& C)
                                               {
                                                   if (!packed.packed_from(B))
                                                       packed.pack(B);
                                                   attnlab::gemm(A, B, &packed, C);
                                               });
        const double eigen = gemm_gflops(shape.T, shape.d_model, args.repeats,
                                         [](const Mat& A, const Mat& B, Mat& C) { C.noalias() = A * B; });
        const double attn_ms = attention_ms(trace, engine.weights(), engine.weight_panels(), args.repeats);
        const double trace_mb = static_cast<double>(trace_float_count(trace)) * 4.0 / 1e6;
        // The weights' packed copies (none on the paths whose kernels read the weights in place).
        const double panels_mb = static_cast<double>(panel_floats(engine.weight_panels())) * 4.0 / 1e6;
        char line[512];
        std::snprintf(
            line, sizeof line,
            "T=%d d_model=%d h=%d forward_ms=%.3f gflops=%.2f gemm_gflops=%.2f ratio=%.2f "
            "attention_ms=%.3f trace_mb=%.1f engine_mb=%.1f panels_mb=%.1f eigen_gemm_gflops=%.2f "
            "gemm_of_peak=%.2f layer_of_peak=%.2f packed_gemm_gflops=%.2f packed_gemm_of_peak=%.2f\n",
            shape.T, shape.d_model, shape.heads, forward_ms, gflops, gemm, gflops / gemm, attn_ms, trace_mb,
            2 * trace_mb + panels_mb, panels_mb, eigen, gemm / peak, gflops / peak, packed_gemm,
            packed_gemm / peak);
        out << line << std::flush;
    }
    return 0;
}

} // namespace attnlab
