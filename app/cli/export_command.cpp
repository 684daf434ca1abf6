// attnlab export: run the engine on a session and write every intermediate as one JSON file.
#include "commands.h"

#include "core/engine.h"
#include "core/io/atomic_file.h"
#include "core/io/json_io.h"

#include <CLI/CLI.hpp>

#include <ostream>

namespace attnlab
{

CLI::App* add_export_command(CLI::App& app, ExportArgs& args)
{
    CLI::App* command = app.add_subcommand("export", "Write every intermediate of the forward pass as JSON");
    add_session_options(*command, args.session);
    command->add_option("-o,--output", args.output, "Output JSON file")->required();
    command->add_option(
        "--model", args.model,
        "A trained model (attnlab train): --text is then its tokens separated by spaces; or a "
        "Hugging Face model folder (GPT-2, BERT): --text is then any text");
    command->add_flag("--gradients", args.gradients,
                      "With --model: also the gradients of the next-token loss (every weight, every A_h)");
    return command;
}

int run_export(const ExportArgs& args, std::ostream& out, std::ostream& err)
{
    if (is_model_folder_argument(args.model))
        return run_hf_export(args, out, err);
    if (!args.model.empty())
        return run_model_export(args, out, err);
    if (args.gradients)
    {
        print_error(err, "export", "--gradients needs --model (a model trained with attnlab train)");
        return 1;
    }
    Session session;
    Status status = build_session(args.session, &session);
    ModelWeights weights;
    bool imported = false;
    if (status)
        status = load_session_weights(session, &weights, &imported);
    Engine engine;
    if (status && imported)
        engine.set_imported_weights(std::move(weights));
    if (status)
        status = engine.run(session);
    if (status)
        status = write_trace_json(engine.trace(), engine.weights(), args.output, session.weights_path);
    if (!status)
    {
        print_error(err, "export", status.message());
        return 1;
    }
    // The window opens a session's model or model folder; this command exports the session's own engine, so
    // it says where those went (it wrote the seeded model's trace without a word).
    if (!session.model_folder.empty())
        err << "attnlab export: note: the session names the Hugging Face folder "
            << path_for_message(session.model_folder)
            << ", which this export does not open: it holds the session's own model. For that model's trace: "
               "attnlab export --model FOLDER --text \"...\"\n";
    if (!session.model_path.empty())
        err << "attnlab export: note: the session names the trained model "
            << path_for_message(session.model_path)
            << ", which this export does not open: it holds the session's own model. For that model's trace: "
               "attnlab export --model FILE\n";
    const Trace& trace = engine.trace();
    out << "wrote " << args.output << ": B=" << trace.batch_size() << " T=" << trace.T()
        << " layers=" << trace.layers.size() << " h=" << trace.config.n_heads
        << (trace.has_cross ? " with cross-attention" : "") << "\n";
    return 0;
}

} // namespace attnlab
