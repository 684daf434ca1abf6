// attnlab export --model: one forward (and backward) pass of a trained model on its tokens, as JSON.
#include "commands.h"

#include "core/io/model_file.h"
#include "core/train/transformer.h"

#include <CLI/CLI.hpp>

#include <map>
#include <ostream>
#include <sstream>

namespace attnlab
{

namespace
{

// The vocabulary for a message: "0 1 2 ... |", cut after about 300 characters.
std::string vocabulary_text(const std::vector<std::string>& vocabulary)
{
    std::string s;
    for (size_t i = 0; i < vocabulary.size(); ++i)
    {
        if (s.size() > 300)
            return s + " … (" + std::to_string(vocabulary.size()) + " tokens in all)";
        s += (i ? " " : "") + vocabulary[i];
    }
    return s;
}

// The batch of --text: one sentence per line, tokens separated by spaces, every line as long. Each position
// t < T - 1 predicts token t + 1 and counts in the loss.
Status make_batch(const std::string& text, const TrainedModel& model, train::Batch* out)
{
    std::map<std::string, int> ids;
    for (size_t i = 0; i < model.vocabulary.size(); ++i)
        ids.emplace(model.vocabulary[i], static_cast<int>(i));
    std::vector<std::vector<int>> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
    {
        std::istringstream words(line);
        std::vector<int> tokens;
        std::string word;
        while (words >> word)
        {
            const auto it = ids.find(word);
            if (it == ids.end())
                return Status::error("unknown token '" + word + "' on line " +
                                     std::to_string(lines.size() + 1) +
                                     "; the model's vocabulary (separate tokens by spaces): " +
                                     vocabulary_text(model.vocabulary));
            tokens.push_back(it->second);
        }
        if (!tokens.empty())
            lines.push_back(std::move(tokens));
    }
    if (lines.empty())
        return Status::error("--text has no tokens; the model's vocabulary: " +
                             vocabulary_text(model.vocabulary));
    const int T = static_cast<int>(lines[0].size());
    for (size_t b = 1; b < lines.size(); ++b)
        if (static_cast<int>(lines[b].size()) != T)
            return Status::error("every line of --text must have as many tokens as the first (" +
                                 std::to_string(T) + "), but line " + std::to_string(b + 1) + " has " +
                                 std::to_string(lines[b].size()));
    if (T > model.config.T_max)
        return Status::error("the text has " + std::to_string(T) +
                             " tokens per line, more than the model's T_max " +
                             std::to_string(model.config.T_max));
    if (lines.size() > 4096)
        return Status::error("--text has " + std::to_string(lines.size()) + " lines; at most 4096");
    train::Batch batch;
    batch.resize(static_cast<int>(lines.size()), T);
    for (int b = 0; b < batch.B; ++b)
        for (int t = 0; t < T; ++t)
        {
            const size_t i = static_cast<size_t>(b) * static_cast<size_t>(T) + static_cast<size_t>(t);
            batch.tokens[i] = lines[static_cast<size_t>(b)][static_cast<size_t>(t)];
            if (t + 1 < T)
            {
                batch.targets[i] = lines[static_cast<size_t>(b)][static_cast<size_t>(t + 1)];
                batch.loss_mask[i] = 1;
                batch.acc_mask[i] = 1;
            }
        }
    *out = std::move(batch);
    return Status::ok();
}

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
    for (const CLI::Option* option :
         {o.session_option, o.target_option, o.d_model_option, o.heads_option, o.d_k_option, o.d_v_option,
          o.d_ff_option, o.layers_option, o.mask_option, o.positional_option, o.temperature_option,
          o.seed_option, o.no_scale_option, o.weights_option})
        if (option != nullptr && option->count() > 0)
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
        status = make_batch(text, model, &batch);
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
