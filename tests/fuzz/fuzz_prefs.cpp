// Fuzz target: the preferences file (prefs_from_text), which the window reads from the config folder at
// start. Any text gives preferences inside their ranges, and what is written from them reads back to the
// same text (save -> load -> save is stable).
#include "fuzz_support.h"
#include "ui/model/prefs.h"

#include <cstdlib>
#include <string>

using namespace attnlab;

namespace
{

bool in_range(const ViewPrefs& p)
{
    if (!(p.font_size >= kMinFontSize && p.font_size <= kMaxFontSize))
        return false;
    for (const PanelPlace& place : p.places)
        if (place.placed && !(place.x >= 0.0f && place.y >= 0.0f && place.w > 0.0f && place.h > 0.0f &&
                              place.x + place.w <= 1.001f && place.y + place.h <= 1.001f))
            return false;
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(fuzz::as_text(data, size));
    ViewPrefs prefs;
    prefs_from_text(text, prefs);
    if (!in_range(prefs))
        std::abort();
    const std::string written = prefs_to_text(prefs);
    ViewPrefs again;
    prefs_from_text(written, again);
    if (!in_range(again) || prefs_to_text(again) != written)
        std::abort();
    return 0;
}
