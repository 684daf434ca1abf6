// attnlab tasks: lists the training tasks, id first, with the preset `attnlab train --task ID` starts from.
#include "commands.h"

#include "core/status.h"
#include "core/train/tasks.h"

#include <CLI/CLI.hpp>

#include <iomanip>
#include <ostream>

namespace attnlab
{

CLI::App* add_tasks_command(CLI::App& app, TasksArgs& /*args*/)
{
    return app.add_subcommand("tasks",
                              "List the training tasks (id, preset model and training, description)");
}

int run_tasks(const TasksArgs& /*args*/, std::ostream& out, std::ostream& /*err*/)
{
    for (int k = 0; k < train::kTaskCount; ++k)
    {
        const train::Task task(static_cast<train::TaskKind>(k));
        const train::Preset preset = task.preset();
        const train::ModelConfig& m = preset.model;
        const train::TrainSettings& t = preset.train;
        out << std::left << std::setw(10) << task.info().key << " layers=" << m.n_layers
            << " heads=" << m.n_heads << " d_model=" << m.d_model
            << " attention_only=" << (m.attention_only ? "yes" : "no")
            << " norm=" << (m.norm == train::NormPlacement::Pre ? "pre" : "post")
            << " positions=" << train::to_string(m.positions) << " batch=" << t.batch_size
            << " steps=" << t.steps << " lr=" << format_number(t.optimizer.lr) << "  "
            << task.info().description << "\n";
    }
    return 0;
}

} // namespace attnlab
