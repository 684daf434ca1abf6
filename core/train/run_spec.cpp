// The run spec: the limits table, a spec from a preset and back, and the one check of a run.
#include "run_spec.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace attnlab::train
{

namespace
{

// One set of limits for the Training panel, lesson files and the command line.
constexpr std::array<RunFieldInfo, kRunFieldCount> kRunFieldTable = {{
    {RunField::Layers, "layers", "--layers", "layers", 1, kMaxLayers, false, false, ""},
    {RunField::Heads, "heads", "--heads", "h (heads)", 1, 64, false, false, ""},
    {RunField::DModel, "d_model", "--d-model", "d_model", 1, kMaxDModel, false, false, ""},
    {RunField::DFF, "d_ff", "--d-ff", "d_ff", 0, kMaxDFF, false, false, ""},
    {RunField::Steps, "steps", "--steps", "target steps", 1, 10000000, false, false, ""},
    {RunField::Batch, "batch", "--batch", "batch", 1, 4096, false, false, ""},
    {RunField::LearningRate, "lr", "--lr", "learning rate", 0, 1, true, true, "1e-3"},
    {RunField::WeightDecay, "weight_decay", "--weight-decay", "weight decay", 0, 10, false, false, "0.1"},
}};

constexpr bool field_rows_in_order()
{
    for (int i = 0; i < kRunFieldCount; ++i)
        if (static_cast<int>(kRunFieldTable[static_cast<std::size_t>(i)].field) != i)
            return false;
    return true;
}
static_assert(field_rows_in_order(), "kRunFieldTable needs one row per RunField, in its order");

std::string field_name(const RunFieldInfo& f, FieldNames names)
{
    switch (names)
    {
    case FieldNames::Key:
        return std::string("\"") + f.key + "\"";
    case FieldNames::Flag:
        return f.flag;
    case FieldNames::Label:
        return f.label;
    }
    return f.key;
}

// A limit or a value as written: whole numbers in full ("10000000", not "1e+07").
std::string number_text(double v)
{
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
        return std::to_string(static_cast<long long>(v));
    return format_number(v);
}

// "--lr must be above 0 and below 1 (try 1e-3), not 5" when value is outside the field's limits.
Status check_field(RunField field, double value, FieldNames names)
{
    const RunFieldInfo& f = run_field(field);
    const bool low = f.min_open ? !(value > f.min) : !(value >= f.min);
    const bool high = f.max_open ? !(value < f.max) : !(value <= f.max);
    if (!low && !high)
        return Status::ok();
    std::string range;
    if (f.min_open || f.max_open)
        range = std::string(f.min_open ? "above " : "at least ") + number_text(f.min) +
                (f.max_open ? " and below " : " and at most ") + number_text(f.max);
    else
        range = "between " + number_text(f.min) + " and " + number_text(f.max);
    const std::string hint = f.hint[0] != '\0' ? std::string(" (try ") + f.hint + ")" : std::string();
    return Status::error(field_name(f, names) + " must be " + range + hint + ", not " + number_text(value));
}

std::string bytes_text(double bytes)
{
    char s[32];
    std::snprintf(s, sizeof s, "%.1f GB", bytes / (1u << 30));
    return s;
}

// The memory a run takes, roughly: parameters, gradients and AdamW's two moments, then the activations and
// their gradients (about 14 (N, d)-sized and 3 (N, d_ff)-sized buffers and 5 (B·h·T, T) ones per layer,
// twice: forward and backward).
double run_bytes(const Preset& p)
{
    const ModelConfig& m = p.model;
    const double N = static_cast<double>(p.train.batch_size) * m.T_max;
    const double per_layer = N * (14.0 * m.d_model + 3.0 * m.resolved_d_ff()) +
                             5.0 * p.train.batch_size * m.n_heads * static_cast<double>(m.T_max) * m.T_max;
    return 4.0 * (4.0 * static_cast<double>(parameter_count(m)) +
                  2.0 * (m.n_layers * per_layer + 3.0 * N * m.vocab_size));
}

} // namespace

const RunFieldInfo& run_field(RunField field)
{
    return kRunFieldTable[static_cast<std::size_t>(field)];
}

RunSpec::RunSpec(TaskKind kind) : RunSpec(kind, Task(kind).preset()) {}

RunSpec::RunSpec(TaskKind kind, const Preset& p)
    : task(kind), n_layers(p.model.n_layers), n_heads(p.model.n_heads), d_model(p.model.d_model),
      d_ff(p.model.d_ff), attention_only(p.model.attention_only), norm(p.model.norm),
      positions(p.model.positions), residual(p.model.residual), lr(p.train.optimizer.lr),
      weight_decay(p.train.optimizer.weight_decay), batch_size(p.train.batch_size), steps(p.train.steps),
      seed(p.model.seed)
{
}

RunSpec RunSpec::of_model(TaskKind kind, const Preset& p)
{
    return RunSpec(kind, p);
}

Preset RunSpec::preset() const
{
    Preset p = Task(task).preset();
    p.model.n_layers = n_layers;
    p.model.n_heads = n_heads;
    p.model.d_model = d_model;
    p.model.d_ff = d_ff;
    p.model.attention_only = attention_only;
    p.model.norm = norm;
    p.model.positions = positions;
    p.model.residual = residual;
    p.model.seed = seed;
    p.train.data_seed = seed;
    p.train.optimizer.lr = lr;
    p.train.optimizer.weight_decay = weight_decay;
    p.train.batch_size = batch_size;
    p.train.steps = steps;
    return p;
}

std::string RunSpec::label() const
{
    char s[400];
    std::string title = task_info(task).title;
    if (task == TaskKind::Text)
    {
        // Which text: the book's key, or the file's name without its folders.
        const std::size_t slash = corpus.find_last_of('/');
        title += " (" + (slash == std::string::npos ? corpus : corpus.substr(slash + 1));
        if (level == TextLevel::Word)
            title += ", words";
        if (repeat > 0.0f)
        {
            char r[32];
            std::snprintf(r, sizeof r, ", repeat %.2g", static_cast<double>(repeat));
            title += r;
        }
        title += ")";
    }
    std::snprintf(s, sizeof s, "%s, %d layer%s, h = %d, d_model = %d%s%s%s%s, lr %.0e, seed %llu",
                  title.c_str(), n_layers, n_layers == 1 ? "" : "s", n_heads, d_model,
                  attention_only ? ", attn-only" : "", norm == NormPlacement::Post ? ", post-LN" : "",
                  residual ? "" : ", no residual", positions == PositionKind::None ? ", no positions" : "",
                  static_cast<double>(lr), static_cast<unsigned long long>(seed));
    return s;
}

bool RunSpec::operator==(const RunSpec& o) const
{
    return task == o.task && n_layers == o.n_layers && n_heads == o.n_heads && d_model == o.d_model &&
           d_ff == o.d_ff && attention_only == o.attention_only && norm == o.norm &&
           positions == o.positions && residual == o.residual && lr == o.lr &&
           weight_decay == o.weight_decay && batch_size == o.batch_size && steps == o.steps &&
           seed == o.seed &&
           (task != TaskKind::Text || (corpus == o.corpus && repeat == o.repeat && level == o.level));
}

Status run_task(const RunSpec& spec, Task* out)
{
    if (spec.task != TaskKind::Text)
    {
        Task task(spec.task);
        ATTNLAB_TRY(task.status());
        *out = std::move(task);
        return Status::ok();
    }
    if (!(spec.repeat >= 0.0f && spec.repeat <= 1.0f))
        return Status::error("the repeat share is the part of the training sequences that repeat a snippet, "
                             "from 0 to 1 (try 0.5)");
    std::shared_ptr<const TextCorpus> corpus;
    TextCorpusOptions options;
    options.T = task_info(TaskKind::Text).T;
    options.level = spec.level;
    ATTNLAB_TRY(load_text_corpus(spec.corpus, options, &corpus));
    *out = Task(std::move(corpus), spec.repeat);
    return Status::ok();
}

Status check_run(const RunSpec& s, FieldNames names)
{
    if (static_cast<int>(s.task) < 0 || s.task >= TaskKind::Count)
        return Status::error("no task chosen (tasks: " + task_keys() + ")");
    ATTNLAB_TRY(Task(s.task).status());
    const Preset p = s.preset();
    // The engine's rules on the shape first: its message names the model's field, the hint the run's.
    if (Status valid = validate(p.model); !valid)
    {
        std::string fields;
        for (const RunField f : {RunField::Layers, RunField::Heads, RunField::DModel, RunField::DFF})
            fields += (fields.empty() ? "" : ", ") + field_name(run_field(f), names);
        return Status::error(valid.message() + " (" + fields + ")");
    }
    const double values[] = {static_cast<double>(s.n_layers), static_cast<double>(s.n_heads),
                             static_cast<double>(s.d_model),  static_cast<double>(s.d_ff),
                             static_cast<double>(s.steps),    static_cast<double>(s.batch_size),
                             static_cast<double>(s.lr),       static_cast<double>(s.weight_decay)};
    static_assert(std::size(values) == kRunFieldCount, "a value per row of the limits table");
    for (int i = 0; i < kRunFieldCount; ++i)
        ATTNLAB_TRY(check_field(static_cast<RunField>(i), values[i], names));
    if (const double bytes = run_bytes(p); bytes > kMaxRunBytes)
        return Status::error("this model would need about " + bytes_text(bytes) +
                             " of memory, more than the " + bytes_text(kMaxRunBytes) +
                             " a training run may take: use fewer " +
                             field_name(run_field(RunField::Layers), names) + ", a smaller " +
                             field_name(run_field(RunField::DModel), names) + " or " +
                             field_name(run_field(RunField::Batch), names));
    return Status::ok();
}

} // namespace attnlab::train
