// Trainer: the training loop (batches, forward, backward, AdamW), held-out evaluation and probes.
#include "trainer.h"

#include "one_thread.h"

namespace attnlab::train
{

namespace
{

constexpr const WeightNudge<float>* kNoNudge = nullptr;

} // namespace

Status Trainer::init(TaskKind kind, const Preset& preset)
{
    if (kind == TaskKind::Count)
        return Status::error("no task chosen");
    return init(Task(kind), preset);
}

Status Trainer::init(const Task& task, const Preset& preset)
{
    ATTNLAB_TRY(task.status());
    Preset p = preset;
    if (p.model.vocab_size == 0)
        p.model.vocab_size = task.vocab_size();
    if (p.model.T_max == 0)
        p.model.T_max = task.T();
    if (p.model.vocab_size < task.vocab_size())
        return Status::error("the task has " + std::to_string(task.vocab_size()) +
                             " tokens, more than vocab_size " + std::to_string(p.model.vocab_size));
    if (p.model.T_max < task.T())
        return Status::error("the task's sequences have " + std::to_string(task.T()) +
                             " tokens, more than T_max " + std::to_string(p.model.T_max));
    ATTNLAB_TRY(validate(p.model));
    const TrainSettings& t = p.train;
    if (t.batch_size < 1 || t.batch_size > 4096)
        return Status::error("batch size must be between 1 and 4096, not " + std::to_string(t.batch_size));
    if (t.held_out_size < 1 || t.held_out_size > 100000)
        return Status::error("the held-out set must have between 1 and 100000 sequences");
    const OptimizerSettings& o = t.optimizer;
    if (!(o.lr > 0 && o.lr < 10) || !(o.beta1 >= 0 && o.beta1 < 1) || !(o.beta2 >= 0 && o.beta2 < 1) ||
        !(o.eps > 0) || !(o.weight_decay >= 0) || !(o.grad_clip >= 0))
        return Status::error("optimizer settings out of range (0 < lr < 10, 0 <= betas < 1, eps > 0, weight "
                             "decay >= 0, clip >= 0)");
    task_ = task;
    preset_ = p;
    held_out_ = task_.held_out(t.held_out_size, t.batch_size);
    reset();
    return Status::ok();
}

void Trainer::make_lists()
{
    param_list_ = named_tensors(preset_.model, params_);
    grad_list_ = named_tensors(preset_.model, grads_);
}

void Trainer::reset()
{
    const ModelConfig& c = preset_.model;
    init_params(c, params_);
    size_params(c, grads_);
    set_zero(grads_);
    make_lists();
    adam_.init(param_list_);
    size_activations(c, preset_.train.batch_size, task_.T(), acts_);
    size_act_grads(c, preset_.train.batch_size, task_.T(), act_grads_);
    batch_.resize(preset_.train.batch_size, task_.T());
    head_sums_.reset(c);
    head_sums_.set_word_boundaries(task_.word_boundaries());
    step_ = 0;
}

StepStats Trainer::step()
{
    OneThread one_thread;
    const ModelConfig& c = preset_.model;
    const OptimizerSettings& o = preset_.train.optimizer;
    task_.make_batch(preset_.train.data_seed, static_cast<std::uint64_t>(step_), preset_.train.batch_size,
                     batch_);
    StepStats s;
    s.loss = forward(c, params_, batch_, acts_, kNoNudge, Detail::Training);
    Accuracy accuracy;
    accuracy.add(batch_, acts_);
    s.accuracy = static_cast<float>(accuracy.accuracy());
    backward(c, params_, batch_, acts_, act_grads_, grads_, Detail::Training);
    s.learning_rate = learning_rate(o, adam_.steps_taken());
    s.grad_norm = adam_.step(param_list_, grad_list_, o);
    s.step = ++step_;
    return s;
}

int Trainer::run(int n, const std::function<bool(const StepStats&)>& on_step)
{
    for (int i = 0; i < n; ++i)
    {
        const StepStats s = step();
        if (on_step && !on_step(s))
            return i + 1;
    }
    return n;
}

const EvalStats& Trainer::evaluate()
{
    OneThread one_thread;
    const ModelConfig& c = preset_.model;
    Accuracy accuracy;
    head_sums_.reset(c);
    for (const Batch& batch : held_out_)
    {
        forward(c, params_, batch, acts_, kNoNudge, Detail::Training);
        accuracy.add(batch, acts_);
        head_sums_.add(c, batch, acts_);
    }
    eval_.step = step_;
    eval_.loss = accuracy.mean_loss();
    eval_.accuracy = accuracy.accuracy();
    eval_.exact_match = accuracy.exact_match();
    head_sums_.finish(eval_.heads);
    eval_.word_scores = task_.corpus() != nullptr && task_.corpus()->level() == TextLevel::Char;
    return eval_;
}

Status Trainer::probe(const Batch& batch)
{
    const ModelConfig& c = preset_.model;
    if (batch.B < 1 || batch.T < 1 || batch.T > c.T_max)
        return Status::error("a probe needs 1 to " + std::to_string(c.T_max) + " tokens per sequence");
    const size_t n = static_cast<size_t>(batch.B) * static_cast<size_t>(batch.T);
    if (batch.tokens.size() != n || batch.targets.size() != n || batch.loss_mask.size() != n ||
        batch.acc_mask.size() != n)
        return Status::error("the probe batch's vectors do not have B·T entries");
    for (size_t i = 0; i < n; ++i)
        if (batch.tokens[i] < 0 || batch.tokens[i] >= c.vocab_size || batch.targets[i] >= c.vocab_size)
            return Status::error("token id " + std::to_string(batch.tokens[i]) +
                                 " is outside the vocabulary");
    OneThread one_thread;
    size_activations(c, batch.B, batch.T, probe_acts_);
    size_act_grads(c, batch.B, batch.T, probe_act_grads_);
    size_params(c, probe_grads_);
    forward(c, params_, batch, probe_acts_);
    backward(c, params_, batch, probe_acts_, probe_act_grads_, probe_grads_);
    return Status::ok();
}

Status Trainer::restore(const Params& params)
{
    Params copy = params;
    const std::vector<NamedTensor> mine = named_tensors(preset_.model, params_);
    if (copy.layers.size() != params_.layers.size())
        return Status::error("the parameters have " + std::to_string(copy.layers.size()) +
                             " layers, the model " + std::to_string(params_.layers.size()));
    const std::vector<NamedTensor> theirs = named_tensors(preset_.model, copy);
    for (size_t i = 0; i < mine.size(); ++i)
        if (theirs[i].value->rows() != mine[i].value->rows() ||
            theirs[i].value->cols() != mine[i].value->cols())
            return Status::error(mine[i].name + " is " + std::to_string(theirs[i].value->rows()) + "x" +
                                 std::to_string(theirs[i].value->cols()) + " but the model needs " +
                                 std::to_string(mine[i].value->rows()) + "x" +
                                 std::to_string(mine[i].value->cols()));
    for (size_t i = 0; i < mine.size(); ++i)
        *mine[i].value = *theirs[i].value;
    return Status::ok();
}

} // namespace attnlab::train
