// Command-line plumbing: registering the headless commands, one-line usage errors, and attnlab-headless's
// main.
#include "commands.h"

#include "core/cpu.h"

#include <CLI/CLI.hpp>

#include <ostream>

namespace attnlab
{

void print_error(std::ostream& err, const std::string& what, const std::string& message)
{
    std::string line = message;
    for (char& c : line)
        if (c == '\n' || c == '\r')
            c = ' ';
    err << "attnlab" << (what.empty() ? "" : " ") << what << ": " << line << "\n";
}

void add_headless_commands(CLI::App& app, HeadlessCommands& commands)
{
    // The project's version (CMakeLists.txt's project()), the one place it is set.
    app.set_version_flag("--version", app.get_name() + " " + ATTNLAB_VERSION, "Print the version and exit");
    commands.export_command = add_export_command(app, commands.export_args);
    commands.bench_command = add_bench_command(app, commands.bench_args);
    commands.lessons_command = add_lessons_command(app, commands.lessons_args);
    commands.tasks_command = add_tasks_command(app, commands.tasks_args);
    commands.train_command = add_train_command(app, commands.train_args);
}

int run_headless_command(const HeadlessCommands& commands, std::ostream& out, std::ostream& err)
{
    if (commands.export_command && commands.export_command->parsed())
        return run_export(commands.export_args, out, err);
    if (commands.bench_command && commands.bench_command->parsed())
        return run_bench(commands.bench_args, out, err);
    if (commands.lessons_command && commands.lessons_command->parsed())
        return run_lessons(commands.lessons_args, out, err);
    if (commands.tasks_command && commands.tasks_command->parsed())
        return run_tasks(commands.tasks_args, out, err);
    if (commands.train_command && commands.train_command->parsed())
        return run_train(commands.train_args, out, err);
    return -1;
}

bool parse_command_line(CLI::App& app, int argc, const char* const* argv, std::ostream& out,
                        std::ostream& err, int* exit_code)
{
    try
    {
        app.parse(argc, argv);
        // ATTNLAB_ISA that could not be followed: said once, the program runs on the CPU's best set.
        if (const std::string note = isa_note(); !note.empty())
            err << app.get_name() << ": " << note << "\n";
        return true;
    }
    catch (const CLI::ParseError& e)
    {
        if (e.get_exit_code() == 0) // --help
        {
            *exit_code = app.exit(e, out, err);
            return false;
        }
        // The subcommand that was being parsed, for the message and the hint.
        std::string where = "usage";
        std::string help = app.get_name() + " --help";
        for (const CLI::App* sub : app.get_subcommands())
        {
            where = sub->get_name();
            help = app.get_name() + " " + sub->get_name() + " --help";
        }
        print_error(err, where, std::string(e.what()) + " (see " + help + ")");
        *exit_code = 2;
        return false;
    }
}

int run_headless_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err)
{
    CLI::App app{"Attention Lab without a window: export every intermediate as JSON, time the forward pass, "
                 "or train a "
                 "small transformer on a task",
                 "attnlab-headless"};
    HeadlessCommands commands;
    add_headless_commands(app, commands);
    app.require_subcommand(1);
    int exit_code = 0;
    if (!parse_command_line(app, argc, argv, out, err, &exit_code))
        return exit_code;
    return run_headless_command(commands, out, err);
}

} // namespace attnlab
