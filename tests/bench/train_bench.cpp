// Training speed: ms per training step (forward, backward, AdamW) for each task preset, on one thread.
// Run by hand: ./build/tests/bench/attnlab_train_bench; compare with tests/bench/torch_train_bench.py.
#include "core/train/trainer.h"

#include <benchmark/benchmark.h>

using namespace attnlab::train;

namespace
{

void BM_TrainStep(benchmark::State& state)
{
    const TaskKind kind = static_cast<TaskKind>(state.range(0));
    Trainer trainer;
    if (const attnlab::Status s = trainer.init(kind, Task(kind).preset()); !s)
    {
        state.SkipWithError(("preset does not validate: " + s.message()).c_str());
        return;
    }
    trainer.run(3); // warm: every buffer sized, packing space grown
    for (auto _ : state)
    {
        const StepStats s = trainer.step();
        benchmark::DoNotOptimize(s.loss);
    }
    const ModelConfig& m = trainer.model();
    state.SetLabel(std::string(task_info(kind).key) + " " + std::to_string(m.n_layers) + "/" +
                   std::to_string(m.n_heads) + "/" + std::to_string(m.d_model) +
                   " B=" + std::to_string(trainer.settings().batch_size) +
                   " T=" + std::to_string(trainer.task().T()));
}

} // namespace

// Thread CPU time, so other work on the machine inflates the figures less than wall-clock time would.
BENCHMARK(BM_TrainStep)
    ->DenseRange(0, kTaskCount - 1)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

BENCHMARK_MAIN();
