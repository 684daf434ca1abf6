// The frame bench (attnlab screenshot --bench-frames N): frame times, edit-to-picture latency, start-up, the
// frames while typing into the session, and the frames while a training run goes on.
#include "frames.h"

#include "core/train/tasks.h"
#include "ui/model/app_state.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace attnlab
{

namespace
{

// Median and 95th percentile of a list of durations.
void percentiles(std::vector<double> v, double* median, double* p95)
{
    std::sort(v.begin(), v.end());
    if (v.empty())
    {
        *median = *p95 = 0.0;
        return;
    }
    *median = v[v.size() / 2];
    *p95 = v[std::min(v.size() - 1, static_cast<std::size_t>(0.95 * static_cast<double>(v.size())))];
}

// screenshot --train TASK --bench-frames N: the frames while the worker trains (the window's other core),
// and the probe's edit-to-picture latency (a token changed: parse, forward and backward pass, upload, draw).
void bench_training(Frames& frames, AppState& state, int n)
{
    TrainingPanelState& ts = state.training;
    const int start = ts.view.step;
    state.training_run.set_target_steps(1000000);
    state.training_run.play();
    std::vector<double> frame_ms;
    const auto t_start = Clock::now();
    for (int i = 0; i < n; ++i)
    {
        const auto t0 = Clock::now();
        frames.draw(state, std::string(), nullptr);
        frames.finish();
        frame_ms.push_back(ms_since(t0));
    }
    const double seconds = ms_since(t_start) / 1000.0;
    state.training_run.pause();
    state.training_run.poll(ts.view);
    const int steps = ts.view.step - start;
    std::vector<double> probe_ms;
    const std::string probe = ts.probe_text;
    const std::size_t first_space = probe.find(' ');
    for (int i = 0; i < 9 && first_space != std::string::npos; ++i)
    {
        // The first token replaced by the i-th vocabulary entry: a different probe each time.
        const std::vector<std::string>& vocabulary = ts.view.vocabulary;
        ts.probe_text =
            vocabulary[static_cast<std::size_t>(i) % vocabulary.size()] + probe.substr(first_space);
        ts.probe_dirty = true;
        const auto t0 = Clock::now();
        frames.draw(state, std::string(), nullptr);
        frames.finish();
        probe_ms.push_back(ms_since(t0));
    }
    ts.probe_text = probe;
    ts.probe_dirty = true;
    double median = 0, p95 = 0, probe_median = 0, probe_p95 = 0;
    percentiles(frame_ms, &median, &p95);
    percentiles(probe_ms, &probe_median, &probe_p95);
    std::printf("frame while training %s: median %.2f ms, p95 %.2f ms over %d frames; %d steps in %.2f s "
                "(%.0f steps/s) on the worker\n",
                train::task_info(ts.view.config.task).key, median, p95, n, steps, seconds,
                seconds > 0 ? steps / seconds : 0.0);
    std::printf("probe edit to picture (a token changed): median %.2f ms, p95 %.2f ms\n", probe_median,
                probe_p95);
}

// Typing into the session while the frames go on: a character every kTypeEvery frames, in the heaviest view
// (Heads > All layers), for n frames. The frames drawn while a recompute was pending (an edit not yet on
// screen when the frame began) are the ones a student typing into a large session waits on.
void bench_typing(Frames& frames, AppState& state, int n)
{
    constexpr int kTypeEvery = 3;
    const char* const typed = " and the cat sat";
    const std::string text = state.session.text;
    const HeadsView view = state.heads_panel.view;
    state.heads_panel.view = HeadsView::AllLayers;
    std::vector<double> pending_ms;
    int chars = 0, results = 0;
    double ui_max = 0.0; // the frame thread's own work (taking a run, building the panels, uploads)
    struct
    {
        double ms = 0.0, ui_ms = 0.0, gl_ms = 0.0;
        bool result = false; // a run came in that frame
    } slowest;
    for (int i = 0; i < n; ++i)
    {
        if (i % kTypeEvery == 0)
        {
            state.session.text += typed[chars % static_cast<int>(std::strlen(typed))];
            ++chars;
            state.edit();
        }
        const bool pending = state.session_version != state.computed_version;
        const auto shown = state.computed_version;
        const auto t0 = Clock::now();
        FrameResult r;
        frames.draw(state, std::string(), &r);
        frames.finish();
        if (pending)
            pending_ms.push_back(ms_since(t0));
        if (state.computed_version != shown)
            ++results;
        if (pending)
            ui_max = std::max(ui_max, r.ui_ms);
        if (pending && ms_since(t0) > slowest.ms)
            slowest = {ms_since(t0), r.ui_ms, r.gl_ms, state.computed_version != shown};
    }
    state.session.text = text;
    state.heads_panel.view = view;
    state.edit();
    double median = 0, p95 = 0;
    percentiles(pending_ms, &median, &p95);
    const double max = pending_ms.empty() ? 0.0 : *std::max_element(pending_ms.begin(), pending_ms.end());
    std::printf("frame while recomputing: median %.2f ms, max %.2f ms\n", median, max);
    std::printf("  (%zu of %d frames drawn while a recompute was pending; %d characters typed, one every %d "
                "frames, in Heads > All layers; %d runs came in)\n",
                pending_ms.size(), n, chars, kTypeEvery, results);
    std::printf(
        "  slowest of them: %.2f ms (ui %.2f ms, render %.2f ms%s); largest ui part of any: %.2f ms\n",
        slowest.ms, slowest.ui_ms, slowest.gl_ms, slowest.result ? ", a run came in" : "", ui_max);
}

} // namespace

void run_frame_bench(Frames& frames, AppState& state, int n, double startup_ms)
{
    std::vector<double> frame_ms, ui_ms, gl_ms, swap_ms;
    frame_ms.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
    {
        const auto t0 = Clock::now();
        FrameResult r;
        frames.draw(state, std::string(), &r);
        frames.finish();
        frame_ms.push_back(ms_since(t0));
        ui_ms.push_back(r.ui_ms);
        gl_ms.push_back(r.gl_ms);
        swap_ms.push_back(r.swap_ms);
        state.frame_ms = static_cast<float>(frame_ms.back());
    }
    // Edit latency: from the edit to the end of the frame that shows it (recompute + upload + draw). Two
    // kinds: a word of the first sentence changed (what typing does) and a new seed (new weights: the worst
    // case).
    std::vector<double> edit_ms, recompute_ms, seed_ms;
    auto timed_edit = [&](std::vector<double>& out)
    {
        state.edit();
        const auto t0 = Clock::now();
        // Frames until the edit is on screen (a large session's run finishes on the worker meanwhile).
        do
        {
            frames.draw(state, std::string(), nullptr);
            frames.finish();
        } while (state.recompute_pending());
        out.push_back(ms_since(t0));
    };
    const std::string text = state.session.text;
    const std::size_t word_end = std::min(text.find_first_of(" \n"), text.size());
    for (int i = 0; i < 9; ++i)
    {
        state.session.text = text.substr(0, word_end) + "x" + std::to_string(i) + text.substr(word_end);
        timed_edit(edit_ms);
        recompute_ms.push_back(state.recompute_ms);
    }
    state.session.text = text;
    const std::uint64_t seed = state.session.config.seed;
    for (int i = 0; i < 7; ++i)
    {
        state.session.config.seed = seed + 1 + static_cast<std::uint64_t>(i);
        timed_edit(seed_ms);
    }
    state.session.config.seed = seed;
    state.edit();
    double seed_median = 0, seed_p95 = 0;
    percentiles(seed_ms, &seed_median, &seed_p95);
    double median = 0, p95 = 0, edit_median = 0, edit_p95 = 0, rec_median = 0, rec_p95 = 0;
    percentiles(frame_ms, &median, &p95);
    percentiles(edit_ms, &edit_median, &edit_p95);
    percentiles(recompute_ms, &rec_median, &rec_p95);
    int fb_w = 0, fb_h = 0;
    frames.framebuffer_size(&fb_w, &fb_h);
    const Trace& t = state.trace();
    std::printf("bench: %dx%d, B=%d T=%d d_model=%d h=%d layers=%d\n", fb_w, fb_h, t.batch_size(), t.T(),
                t.config.d_model, state.heads(), static_cast<int>(t.layers.size()));
    std::printf("frame: median %.2f ms, p95 %.2f ms over %d frames\n", median, p95, n);
    double ui_med = 0, gl_med = 0, swap_med = 0, unused = 0;
    percentiles(ui_ms, &ui_med, &unused);
    percentiles(gl_ms, &gl_med, &unused);
    percentiles(swap_ms, &swap_med, &unused);
    std::printf("  of which (medians): ui %.2f ms, render %.2f ms, swap %.2f ms\n", ui_med, gl_med, swap_med);
    int commands = 0;
    for (int i = 0; i < ImGui::GetDrawData()->CmdListsCount; ++i)
        commands += ImGui::GetDrawData()->CmdLists[i]->CmdBuffer.Size;
    std::printf("  last frame: %d vertices, %d indices, %d draw commands, %zu heatmap textures\n",
                ImGui::GetIO().MetricsRenderVertices, ImGui::GetIO().MetricsRenderIndices, commands,
                state.heatmaps.size());
    std::printf("edit to picture (a word changed): median %.2f ms, p95 %.2f ms (recompute median %.2f ms)\n",
                edit_median, edit_p95, rec_median);
    std::printf("edit to picture (new seed, new weights): median %.2f ms, p95 %.2f ms\n", seed_median,
                seed_p95);
    std::printf("start-up to first frame: %.1f ms\n", startup_ms);
    bench_typing(frames, state, n);
    if (state.training_run.configured())
        bench_training(frames, state, n);
    std::fflush(stdout);
}

} // namespace attnlab
