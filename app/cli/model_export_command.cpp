// attnlab export --model: one forward (and backward) pass of a trained model on its tokens, as JSON.
#include "commands.h"

#include "core/io/model_file.h"
#include "core/train/tasks.h"
#include "core/train/token_text.h"
#include "core/train/transformer.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <ostream>

namespace attnlab
{

namespace
{

// The task's default probe as text (the default when --text is not given), as the Training panel shows it.
Status default_text(const TrainedModel& model, std::string* out)
{
    train::TaskKind kind = train::TaskKind::Count;
    ATTNLAB_TRY(train::parse_task(model.task, &kind));
    if (kind == train::TaskKind::Text)
    {
        *out = train::kDefaultTextProbe;
        return Status::ok();
    }
    const train::Task task(kind);
    const train::Batch probe = task.probe();
    *out = task.to_text(probe.tokens.data(), probe.T);
    return Status::ok();
}

// The positions the model's task scores, with their targets (the loss, "mean_loss" and the gradients count
// those alone, as training did). A text with none is refused: there would be no loss to show.
Status label_as_task(const TrainedModel& model, train::Batch* batch)
{
    train::TaskKind kind = train::TaskKind::Count;
    ATTNLAB_TRY(train::parse_task(model.task, &kind));
    const train::Task task(kind);
    task.label(*batch, static_cast<int>(model.vocabulary.size()));
    if (std::find(batch->loss_mask.begin(), batch->loss_mask.end(), 1) == batch->loss_mask.end())
        return Status::error(std::string("the text has no position the ") + model.task + " task scores (" +
                             task.info().description +
                             "): write a sequence of that form, or leave --text out for the task's own");
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

// A model whose weights are too large for float gives infinities, then NaNs, which JSON can only write as
// null: refused, as the seeded engine refuses the same overflow, naming the first layer where it happens.
// The masked scores are left out: their -inf above the diagonal is meant.
Status check_finite(const train::Activations& a, const train::ActGrads* act_grads, const train::Params* grads)
{
    const char* advice = " produced a NaN or infinite value: the weights are too large for float; scale them "
                         "down or train the model again";
    for (std::size_t l = 0; l < a.layers.size(); ++l)
    {
        const train::LayerActsT<float>& L = a.layers[l];
        for (const Mat* m : {&L.X, &L.ln1, &L.Q, &L.K, &L.V, &L.scores, &L.scaled, &L.weights, &L.concat,
                             &L.mha, &L.residual, &L.ln2, &L.ffn_pre, &L.ffn_hidden, &L.ffn, &L.residual2})
            if (!m->allFinite())
                return Status::error("layer " + std::to_string(l + 1) + advice);
    }
    if (!a.lnf.allFinite() || !a.logits.allFinite() || !a.probs.allFinite() || !a.loss.allFinite() ||
        !std::isfinite(a.mean_loss))
        return Status::error(std::string("the output layer (logits, probabilities, loss)") + advice);
    if (act_grads != nullptr && grads != nullptr)
    {
        bool finite = grads->E.allFinite() && grads->P.allFinite() && grads->W_U.allFinite() &&
                      grads->b_U.allFinite() && grads->lnf_gamma.allFinite() && grads->lnf_beta.allFinite();
        for (const train::LayerGradsT<float>& G : act_grads->layers)
            finite = finite && G.dweights.allFinite();
        for (const train::LayerParamsT<float>& P : grads->layers)
            finite = finite && P.W_Q.allFinite() && P.W_K.allFinite() && P.W_V.allFinite() &&
                     P.W_O.allFinite() && P.W_1.allFinite() && P.b_1.allFinite() && P.W_2.allFinite() &&
                     P.b_2.allFinite() && P.ln1_gamma.allFinite() && P.ln1_beta.allFinite() &&
                     P.ln2_gamma.allFinite() && P.ln2_beta.allFinite();
        if (!finite)
            return Status::error(std::string("the backward pass (--gradients)") + advice);
    }
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
    if (status)
        if (const Status changed = check_trained_text(model); !changed)
            err << "attnlab export: note: " << changed.message() << "\n";
    if (status && text.empty())
        status = default_text(model, &text);
    // A text model reads characters or words (its vocabulary checked when the file was read); the others
    // tokens.
    train::TextVocabulary words_or_chars;
    const bool text_model = status && model.task == train::task_info(train::TaskKind::Text).key;
    if (text_model)
        status = train::TextVocabulary::from_symbols(model.text.level, model.vocabulary, &words_or_chars);
    if (status)
        status = text_model ? train::plain_text_batch(text, words_or_chars, model.config.T_max, &batch)
                            : train::text_batch(text, model.vocabulary, model.config.T_max, &batch);
    if (status)
        status = label_as_task(model, &batch);
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
    status = check_finite(acts, pass.act_grads, pass.grads);
    if (status)
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
