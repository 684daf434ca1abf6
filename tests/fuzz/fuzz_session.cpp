// Fuzz target: session files (session_from_json), the loader behind File -> Open, --session and the autosave.
// Besides not crashing, a session that loads must save and load back to the same session and the same bytes
// (core/io/FORMAT.md promises that save -> load -> save is byte-identical).
#include "core/io/session_file.h"
#include "fuzz_support.h"

#include <cstdio>
#include <cstdlib>

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    Session session;
    if (!session_from_json(fuzz::as_text(data, size), "fuzz.json", &session))
        return 0;
    const std::string saved = session_to_json(session);
    Session again;
    const Status reloaded = session_from_json(saved, "saved.json", &again);
    if (!reloaded)
    {
        std::fprintf(stderr, "a saved session does not load: %s\n%s\n", reloaded.message().c_str(),
                     saved.c_str());
        std::abort();
    }
    if (again != session || session_to_json(again) != saved)
    {
        std::fprintf(stderr, "save -> load -> save changed the session:\n%s\n%s\n", saved.c_str(),
                     session_to_json(again).c_str());
        std::abort();
    }
    // The path helpers the app applies to a loaded session's weights path.
    (void)absolute_weights_path("dir/fuzz.json", session.weights_path);
    (void)portable_weights_path("/tmp/dir/fuzz.json",
                                absolute_weights_path("/tmp/dir/fuzz.json", session.weights_path));
    return 0;
}
