// attnlab-headless: the export and bench commands with no GUI library linked (the proof of the core/ui
// split).
#include "cli/commands.h"

#include <iostream>

int main(int argc, char** argv)
{
    return attnlab::run_headless_cli(argc, argv, std::cout, std::cerr);
}
