// Quick key taps, held down for one frame (see key_taps.h).
#include "ui/key_taps.h"

#include <algorithm>

namespace attnlab
{

void KeyTaps::press(int key)
{
    if (std::find(pressed_.begin(), pressed_.end(), key) == pressed_.end())
        pressed_.push_back(key);
}

bool KeyTaps::release(int key, int scancode, int mods)
{
    // Once one release waits, the later ones wait behind it: Ctrl+Q typed fast may send Ctrl's release in
    // the same batch as Q's press and release, and the frame that sees Q down must still see Ctrl down.
    if (held_.empty() && std::find(pressed_.begin(), pressed_.end(), key) == pressed_.end())
        return true;
    held_.push_back(Release{key, scancode, mods});
    return false;
}

std::vector<KeyTaps::Release> KeyTaps::take_held()
{
    pressed_.clear();
    std::vector<Release> out;
    out.swap(held_);
    return out;
}

} // namespace attnlab
