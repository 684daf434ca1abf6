// What the end-to-end tests share to run the real app under Xvfb.
#pragma once

#include <cstdlib>
#include <string>

#include <unistd.h>

namespace attnlab::test
{

// xvfb-run picking a display from one that depends on the process, so test programs run at once (ctest -j)
// do not race for the same free number (xvfb-run -a alone starts every search at :99).
inline std::string xvfb_run()
{
    return "xvfb-run -n " + std::to_string(100 + ::getpid() % 800) + " -a ";
}

// Whether xvfb-run is installed (the tests without it check the headless error path instead).
inline bool have_xvfb()
{
    return std::system("command -v xvfb-run >/dev/null 2>&1") == 0;
}

} // namespace attnlab::test
