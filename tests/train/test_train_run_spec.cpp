// The run spec and the task table: a spec is its task's preset until a field changes, one check with one set
// of limits names fields as each way in does, and every task fact (vocabulary, score) comes from its row.
#include "core/train/run_spec.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace attnlab;
using namespace attnlab::train;

namespace
{

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

TEST(RunSpec, APresetSpecGivesTheTasksPresetBack)
{
    for (int k = 0; k < kTaskCount; ++k)
    {
        const auto kind = static_cast<TaskKind>(k);
        const Preset want = Task(kind).preset();
        const Preset got = RunSpec(kind).preset();
        const char* key = task_info(kind).key;
        EXPECT_EQ(got.model.n_layers, want.model.n_layers) << key;
        EXPECT_EQ(got.model.n_heads, want.model.n_heads) << key;
        EXPECT_EQ(got.model.d_model, want.model.d_model) << key;
        EXPECT_EQ(got.model.d_ff, want.model.d_ff) << key;
        EXPECT_EQ(got.model.attention_only, want.model.attention_only) << key;
        EXPECT_EQ(got.model.norm, want.model.norm) << key;
        EXPECT_EQ(got.model.positions, want.model.positions) << key;
        EXPECT_EQ(got.model.causal, want.model.causal) << key;
        EXPECT_EQ(got.model.embedding_std, want.model.embedding_std) << key;
        EXPECT_EQ(got.model.seed, want.model.seed) << key;
        EXPECT_EQ(got.train.data_seed, want.train.data_seed) << key;
        EXPECT_EQ(got.train.batch_size, want.train.batch_size) << key;
        EXPECT_EQ(got.train.steps, want.train.steps) << key;
        EXPECT_EQ(got.train.optimizer.lr, want.train.optimizer.lr) << key;
        EXPECT_EQ(got.train.optimizer.beta2, want.train.optimizer.beta2) << key;
        EXPECT_EQ(got.train.optimizer.weight_decay, want.train.optimizer.weight_decay) << key;
        EXPECT_TRUE(check_run(RunSpec(kind), FieldNames::Flag)) << key;
        // A model file's spec is the same run.
        EXPECT_EQ(RunSpec::of_model(kind, want), RunSpec(kind)) << key;
    }
}

TEST(RunSpec, AChangedFieldReachesThePresetAndTheSeedSeedsBoth)
{
    RunSpec s(TaskKind::Induction);
    s.n_layers = 1;
    s.d_ff = 96;
    s.attention_only = false;
    s.positions = PositionKind::Sinusoidal;
    s.weight_decay = 0.5f;
    s.seed = 77;
    const Preset p = s.preset();
    EXPECT_EQ(p.model.n_layers, 1);
    EXPECT_EQ(p.model.d_ff, 96);
    EXPECT_FALSE(p.model.attention_only);
    EXPECT_EQ(p.model.positions, PositionKind::Sinusoidal);
    EXPECT_EQ(p.train.optimizer.weight_decay, 0.5f);
    EXPECT_EQ(p.model.seed, 77u);
    EXPECT_EQ(p.train.data_seed, 77u);
    // What the field does not change stays the task's.
    EXPECT_EQ(p.model.embedding_std, Task(TaskKind::Induction).preset().model.embedding_std);
    EXPECT_NE(s, RunSpec(TaskKind::Induction));
}

TEST(RunSpec, OneCheckNamesTheFieldAsEachWayInDoes)
{
    RunSpec s(TaskKind::Reverse);
    s.lr = 1.5f;
    EXPECT_TRUE(
        contains(check_run(s, FieldNames::Flag).message(), "--lr must be above 0 and below 1 (try 1e-3)"));
    EXPECT_TRUE(contains(check_run(s, FieldNames::Key).message(), "\"lr\" must be above 0 and below 1"));
    EXPECT_TRUE(contains(check_run(s, FieldNames::Label).message(), "learning rate must be above 0"));
    s.lr = 0.0f;
    EXPECT_FALSE(check_run(s, FieldNames::Flag));
    s.lr = 0.999f;
    EXPECT_TRUE(check_run(s, FieldNames::Flag));

    const std::pair<void (*)(RunSpec&), const char*> cases[] = {
        {[](RunSpec& r) { r.batch_size = 4097; }, "--batch must be between 1 and 4096, not 4097"},
        {[](RunSpec& r) { r.batch_size = 0; }, "--batch must be between 1 and 4096"},
        {[](RunSpec& r) { r.steps = 0; }, "--steps must be between 1 and 10000000"},
        {[](RunSpec& r) { r.weight_decay = -1; }, "--weight-decay must be between 0 and 10 (try 0.1)"},
        {[](RunSpec& r) { r.d_model = r.n_heads = 128; }, "--heads must be between 1 and 64, not 128"},
        {[](RunSpec& r) { r.n_heads = 5; },
         "must be a multiple of the number of heads (5) (--layers, --heads"},
        {[](RunSpec& r) { r.n_layers = 25; }, "n_layers must be between 1 and 24"},
        {[](RunSpec& r) { r.d_model = 4096, r.n_heads = 8, r.n_layers = 24; }, "of memory"},
    };
    for (const auto& [change, expected] : cases)
    {
        RunSpec r(TaskKind::Reverse);
        change(r);
        const Status st = check_run(r, FieldNames::Flag);
        EXPECT_TRUE(contains(st.message(), expected)) << expected << ": " << st.message();
    }
    // The table's limits are the check's: each bound is accepted, one past it refused.
    for (const auto& [field, member] : {std::pair{RunField::Layers, &RunSpec::n_layers},
                                        {RunField::Batch, &RunSpec::batch_size},
                                        {RunField::Steps, &RunSpec::steps}})
    {
        RunSpec r(TaskKind::Copy); // h = 1, the smallest model
        r.*member = static_cast<int>(run_field(field).max);
        if (field == RunField::Layers)
            r.batch_size = 1;
        EXPECT_TRUE(check_run(r, FieldNames::Key)) << run_field(field).key;
        r.*member += 1;
        EXPECT_TRUE(contains(check_run(r, FieldNames::Key).message(), run_field(field).key))
            << run_field(field).key;
    }
}

// A text run is its text and repeat share too: they make another run, are named in its legend, and the task
// is read from them (a missing file is a message naming it).
TEST(RunSpec, ATextRunIsItsCorpusAndRepeatShare)
{
    RunSpec austen(TaskKind::Text), devil(TaskKind::Text);
    devil.corpus = "devil";
    devil.repeat = 0.5f;
    EXPECT_NE(austen, devil);
    EXPECT_NE(devil.label().find("Text (devil, repeat 0.5)"), std::string::npos) << devil.label();
    EXPECT_NE(austen.label().find("Text (austen)"), std::string::npos) << austen.label();
    RunSpec sort_a(TaskKind::Sort), sort_b(TaskKind::Sort);
    sort_b.corpus = "devil"; // not a text run: the field means nothing
    EXPECT_EQ(sort_a, sort_b);

    Task task(TaskKind::Reverse);
    ASSERT_TRUE(run_task(devil, &task).is_ok());
    EXPECT_EQ(task.kind(), TaskKind::Text);
    ASSERT_NE(task.corpus(), nullptr);
    EXPECT_EQ(task.corpus()->source.builtin, "devil");
    EXPECT_FLOAT_EQ(task.repeat_share(), 0.5f);
    RunSpec missing(TaskKind::Text);
    missing.corpus = "/no/such/file.txt";
    const Status s = run_task(missing, &task);
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("/no/such/file.txt"), std::string::npos) << s.message();
    EXPECT_EQ(task.corpus()->source.builtin, "devil"); // unchanged on error
    missing.corpus = "devil";
    missing.repeat = 1.5f;
    EXPECT_FALSE(run_task(missing, &task).is_ok());
}

TEST(TaskTable, EveryFactOfATaskComesFromItsRow)
{
    std::set<std::string> keys;
    for (int k = 0; k < kTaskCount; ++k)
    {
        const TaskInfo& row = task_info(static_cast<TaskKind>(k));
        EXPECT_EQ(static_cast<int>(row.kind), k);
        EXPECT_TRUE(keys.insert(row.key).second) << row.key;
        EXPECT_TRUE(contains(task_keys(), row.key));
        const Task task(row.kind);
        EXPECT_EQ(task.T(), row.T);
        EXPECT_EQ(task.causal(), row.causal);
        // The vocabulary is the row's tokens, each once.
        const std::set<std::string> distinct(task.vocabulary().begin(), task.vocabulary().end());
        EXPECT_EQ(distinct.size(), task.vocabulary().size()) << row.key;
        EXPECT_EQ(distinct.count(""), 0u) << row.key;
    }
    EXPECT_EQ(Task(TaskKind::Induction).vocab_size(), 32);
    EXPECT_EQ(Task(TaskKind::Reverse).vocabulary().back(), "|");
    EXPECT_EQ(Task(TaskKind::Agreement).vocab_size(), 55);
    EXPECT_EQ(Task(TaskKind::Agreement).vocabulary()[19], "key"); // the first noun, where the generator says
    TaskKind parsed;
    EXPECT_TRUE(contains(parse_task("juggle", &parsed).message(), task_keys()));
}

TEST(TaskTable, EachTaskShowsTheScoreThatTellsItsHeadsApart)
{
    EXPECT_EQ(task_info(TaskKind::Reverse).score, HeadScoreKind::AntiDiagonal);
    EXPECT_EQ(task_info(TaskKind::Copy).score, HeadScoreKind::Diagonal);
    EXPECT_EQ(task_info(TaskKind::Induction).score, HeadScoreKind::Induction);
    EXPECT_EQ(task_info(TaskKind::Sort).score, HeadScoreKind::PreviousToken);
    HeadScores s;
    s.previous_token = 0.1;
    s.induction = 0.2;
    s.diagonal = 0.3;
    s.anti_diagonal = 0.4;
    s.word_start = 0.5;
    for (int k = 0; k < kHeadScoreCount; ++k)
    {
        const auto kind = static_cast<HeadScoreKind>(k);
        EXPECT_DOUBLE_EQ(head_score(s, kind), 0.1 * (k + 1)) << head_score_info(kind).key;
    }
    EXPECT_EQ(head_score_kind(9), HeadScoreKind::WordStart); // clamped to the last
    EXPECT_STREQ(head_score_info(HeadScoreKind::Induction).name, "induction (prefix matching)");
}
