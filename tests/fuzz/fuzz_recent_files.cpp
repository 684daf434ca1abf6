// Fuzz target: the recent-files list (recent_files_from_text), which the window reads from the config folder
// at start. Any text gives at most kMaxRecentFiles distinct paths, none empty, none a comment, none holding a
// line break, and a list read back from what is written from it is the same list (paths ending in '\r'
// aside: the reader drops one '\r' before a line's end, as written by an editor on Windows).
#include "fuzz_support.h"
#include "ui/model/config_files.h"
#include "ui/model/session_files.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::vector<std::string> files = recent_files_from_text(fuzz::as_text(data, size), kMaxRecentFiles);
    if (files.size() > static_cast<std::size_t>(kMaxRecentFiles))
        std::abort();
    bool trailing_cr = false;
    for (std::size_t i = 0; i < files.size(); ++i)
    {
        const std::string& f = files[i];
        if (f.empty() || f[0] == '#' || f.find('\n') != std::string::npos ||
            std::find(files.begin() + static_cast<std::ptrdiff_t>(i) + 1, files.end(), f) != files.end())
            std::abort();
        trailing_cr = trailing_cr || f.back() == '\r';
    }
    if (!trailing_cr && recent_files_from_text(recent_files_to_text(files), kMaxRecentFiles) != files)
        std::abort();
    return 0;
}
