// Google Benchmark of one session autosave (compare, JSON, temporary file, rename) as the window's loop does
// it after an edit: the default session and one at the limits (64 sentences of 2048 tokens).
#include "ui/model/app_state.h"
#include "ui/model/session_files.h"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>
#include <string>

namespace
{

// state.range = (sentences, tokens per sentence); (0, 0): the built-in default session.
void BM_autosave(benchmark::State& state)
{
    auto app = std::make_unique<attnlab::AppState>();
    const int sentences = static_cast<int>(state.range(0));
    const int tokens = static_cast<int>(state.range(1));
    if (sentences > 0)
    {
        std::string text;
        for (int s = 0; s < sentences; ++s)
        {
            for (int t = 0; t < tokens; ++t)
                text += (t > 0 ? " w" : "w") + std::to_string((s * 7919 + t) % 5000);
            text += "\n";
        }
        app->session.text = text;
    }
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "attnlab_autosave_bench";
    std::filesystem::create_directories(dir);
    attnlab::Autosave autosave;
    autosave.path = (dir / "last_session.json").string();
    double now = 0.0;
    bool odd = false;
    for (auto _ : state)
    {
        // One keystroke: a character typed or deleted at the end, then the loop's tick.
        odd = !odd;
        if (odd)
            app->session.text += "x";
        else
            app->session.text.pop_back();
        now += 1.0;
        const bool written = attnlab::autosave_tick(*app, autosave, now, false);
        if (!written)
            state.SkipWithError(("the autosave was not written: " + autosave.error).c_str());
    }
    state.counters["file_KB"] = static_cast<double>(std::filesystem::file_size(autosave.path)) / 1e3;
    std::filesystem::remove_all(dir);
}

BENCHMARK(BM_autosave)->Args({0, 0})->Args({64, 2048})->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
