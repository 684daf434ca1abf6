// attnlab lessons: lists the built-in lessons, id first, so `attnlab --lesson ID` can open one.
#include "commands.h"

#include "core/io/atomic_file.h"
#include "core/io/lesson_file.h"

#include <CLI/CLI.hpp>

#include <ostream>

namespace attnlab
{

CLI::App* add_lessons_command(CLI::App& app, LessonsArgs& args)
{
    CLI::App* cmd = app.add_subcommand("lessons", "List the built-in lessons (id, title, steps)");
    cmd->add_option("--dir", args.dir, "Read lessons from this folder instead of the built-in one");
    return cmd;
}

int run_lessons(const LessonsArgs& args, std::ostream& out, std::ostream& err)
{
    const LessonLibrary library = load_lessons(args.dir.empty() ? default_lessons_dir() : args.dir);
    // The id comes from the file's name, which may hold terminal escapes or bytes that are not UTF-8:
    // written escaped, as messages are.
    for (const Lesson& lesson : library.lessons)
        out << printable_message(lesson.id) << "  " << printable_message(lesson.title) << "  ("
            << lesson.steps.size() << " steps)\n";
    for (const std::string& e : library.errors)
        print_error(err, "lessons", e);
    if (library.lessons.empty() && library.errors.empty())
    {
        // An empty folder said nothing at all.
        print_error(err, "lessons",
                    path_for_message(args.dir.empty() ? default_lessons_dir() : args.dir) +
                        " holds no lessons: a lesson is a .json file of format \"attnlab-lesson\" (see the "
                        "built-in ones in the program's lessons folder)");
        return 1;
    }
    return library.errors.empty() ? 0 : 1;
}

} // namespace attnlab
