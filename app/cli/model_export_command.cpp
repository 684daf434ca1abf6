// attnlab export --model: one forward (and backward) pass of a trained model on its tokens, as JSON.
#include "commands.h"

#include "core/io/model_file.h"
#include "core/train/token_text.h"
#include "core/train/transformer.h"

#include <CLI/CLI.hpp>

#include <ostream>

namespace attnlab
{

namespace
{

// The task's first held-out sequence as text (the default when --text is not given).
Status default_text(const TrainedModel& model, std::string* out)
{
    train::TaskKind kind = train::TaskKind::Count;
    ATTNLAB_TRY(train::parse_task(model.task, &kind));
    const train::Task task(kind);
    const std::vector<train::Batch> held_out = task.held_out(1, 1);
    *out = task.to_text(held_out[0].tokens.data(), held_out[0].T);
    return Status::ok();
}

// The options of the engine's sessions that a model file decides instead.
Status check_no_session_options(const SessionOptions& o)
{
    for (const CLI::Option* option : given_session_options(o))
        if (option != o.text_option)
            return Status::error(option->get_name() +
                                 " does not go with --model: the model file sets the shape "
                                 "and the weights (only --text, --gradients and -o do)");
    return Status::ok();
}

} // namespace

int run_model_export(const ExportArgs& args, std::ostream& out, std::ostream& err)
{
    TrainedModel model;
    train::Batch batch;
    std::string text = args.session.text;
    Status status = check_no_session_options(args.session);
    if (status)
        status = load_model_file(args.model, &model);
    if (status && text.empty())
        status = default_text(model, &text);
    if (status)
        status = train::text_batch(text, model.vocabulary, model.config.T_max, &batch);
    if (status && args.gradients && batch.T < 2)
        status = Status::error("--gradients needs at least 2 tokens per line (each predicts the next one)");
    if (!status)
    {
        print_error(err, "export", status.message());
        return 1;
    }

    const train::ModelConfig& c = model.config;
    train::Activations acts;
    train::ActGrads act_grads;
    train::Params grads;
    train::size_activations(c, batch.B, batch.T, acts);
    const float loss = train::forward(c, model.params, batch, acts);
    if (args.gradients)
    {
        train::size_act_grads(c, batch.B, batch.T, act_grads);
        train::size_params(c, grads);
        train::backward(c, model.params, batch, acts, act_grads, grads);
    }
    ModelPass pass;
    pass.model = &model;
    pass.batch = &batch;
    pass.acts = &acts;
    if (args.gradients)
    {
        pass.act_grads = &act_grads;
        pass.grads = &grads;
    }
    status = write_model_trace_json(pass, args.output);
    if (!status)
    {
        print_error(err, "export", status.message());
        return 1;
    }
    out << "wrote " << args.output << ": " << model.task << " model at step " << model.steps_taken
        << ", B=" << batch.B << " T=" << batch.T << " layers=" << c.n_layers << " h=" << c.n_heads
        << " loss=" << format_number(loss) << (args.gradients ? " with gradients" : "") << "\n";
    return 0;
}

} // namespace attnlab
