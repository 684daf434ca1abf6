// A warm training step allocates nothing: no call into the heap (malloc and its family, which operator new
// and Eigen's aligned_malloc go through) in step() or evaluate(), and every buffer stays where it was.
// glibc's allocator is wrapped for this test binary only, as in tests/core/test_allocations.cpp.
#include "core/train/trainer.h"

#include "support/heap_counter.h"

#include <gtest/gtest.h>

#include <cstddef>

using namespace attnlab::train;

namespace
{

std::vector<const float*> buffers(const Trainer& t)
{
    std::vector<const float*> out;
    for (const LayerActsT<float>& a : t.activations().layers)
        for (const MatT<float>* m : {&a.X, &a.Q, &a.weights, &a.concat, &a.residual, &a.ffn_hidden})
            out.push_back(m->data());
    for (const LayerGradsT<float>& g : t.act_grads().layers)
        out.push_back(g.dweights.data());
    out.push_back(t.params().W_U.data());
    out.push_back(t.grads().E.data());
    return out;
}

void expect_warm_steps_allocate_nothing(TaskKind kind, int n_layers = 0)
{
    Preset p = Task(kind).preset();
    if (n_layers > 0)
        p.model.n_layers = n_layers;
    Trainer trainer;
    ASSERT_TRUE(trainer.init(kind, p));
    trainer.run(2);
    trainer.evaluate();
    const std::vector<const float*> before = buffers(trainer);
    const long calls_before = attnlab::test::heap_calls();
    trainer.run(3);
    const EvalStats& e = trainer.evaluate();
    trainer.run(1, [](const StepStats& s) { return s.loss >= 0; });
    const long calls = attnlab::test::heap_calls() - calls_before;
    EXPECT_EQ(calls, 0) << calls << " heap calls in warm training steps of " << task_info(kind).key;
    EXPECT_EQ(buffers(trainer), before);
    EXPECT_EQ(e.step, 5);
}

} // namespace

TEST(TrainAllocations, TheCountCatchesAHeapCall)
{
    const long before = attnlab::test::heap_calls();
    std::vector<float> v(1000);
    EXPECT_GT(attnlab::test::heap_calls(), before);
    EXPECT_EQ(v.size(), 1000u);
}

TEST(TrainAllocations, WarmStepsAllocateNothing)
{
    // Every task: with and without FFN, causal or not, batches of 32 and 64.
    for (int k = 0; k < kTaskCount; ++k)
        expect_warm_steps_allocate_nothing(static_cast<TaskKind>(k));
}

TEST(TrainAllocations, WarmPostLNStepsAllocateNothing)
{
    Preset p = Task(TaskKind::Sort).preset();
    p.model.norm = NormPlacement::Post;
    p.model.positions = PositionKind::Sinusoidal;
    p.train.optimizer.schedule = Schedule::WarmupCosine;
    p.train.optimizer.warmup_steps = 2;
    p.train.optimizer.total_steps = 10;
    Trainer trainer;
    ASSERT_TRUE(trainer.init(TaskKind::Sort, p));
    trainer.run(2);
    const long calls_before = attnlab::test::heap_calls();
    trainer.run(3);
    EXPECT_EQ(attnlab::test::heap_calls() - calls_before, 0);
}
