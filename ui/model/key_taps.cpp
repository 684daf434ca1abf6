// Quick key taps and fast typing: events kept in order until a frame has seen them (see key_taps.h).
#include "ui/model/key_taps.h"

#include <algorithm>

namespace attnlab
{

bool KeyTaps::changed_this_frame(int key) const
{
    return std::find(changed_.begin(), changed_.end(), key) != changed_.end();
}

bool KeyTaps::key(int key, int scancode, int action, int mods)
{
    const Event event{false, key, scancode, action, mods, 0};
    // Once one event waits, the later ones wait behind it: Ctrl+Q typed fast may send Ctrl's release in the
    // same batch as Q's press and release, and the frame that sees Q down must still see Ctrl down; and the
    // letters typed after a Shift release must not arrive while Shift still looks down.
    // A key changes state at most once between two frames, or ImGui never sees one of the states.
    if (!queue_.empty() || (action != Repeat && changed_this_frame(key)))
    {
        queue_.push_back(event);
        return false;
    }
    if (action != Repeat)
        changed_.push_back(key);
    return true;
}

bool KeyTaps::character(unsigned codepoint)
{
    if (queue_.empty())
        return true;
    Event event;
    event.is_char = true;
    event.codepoint = codepoint;
    queue_.push_back(event);
    return false;
}

std::vector<KeyTaps::Event> KeyTaps::take_ready()
{
    changed_.clear();
    std::vector<Event> ready;
    while (!queue_.empty())
    {
        const Event& e = queue_.front();
        if (!e.is_char && e.action != Repeat && changed_this_frame(e.key))
            break; // the next frame sees this key's state; its next change goes after that frame
        if (!e.is_char && e.action != Repeat)
            changed_.push_back(e.key);
        ready.push_back(e);
        queue_.pop_front();
    }
    return ready;
}

} // namespace attnlab
