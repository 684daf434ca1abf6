// Quick key taps and fast typing: events kept in order until a frame has seen them (see key_taps.h).
#include "ui/model/key_taps.h"

#include <algorithm>

namespace attnlab
{

bool KeyTaps::must_wait(const Event& e) const
{
    if (e.is_char || e.action == Repeat)
        return false;
    // A key changes state at most once between two frames, or ImGui never sees one of the states.
    if (std::find(changed_.begin(), changed_.end(), e.key) != changed_.end())
        return true;
    // A release after a press would hide the keys that were down with that press: Ctrl released in the same
    // frame as A's press turns Ctrl+A into a plain A.
    return e.action == Release && pressed_;
}

void KeyTaps::note_passed(const Event& e)
{
    if (e.is_char || e.action == Repeat)
        return;
    changed_.push_back(e.key);
    pressed_ = pressed_ || e.action == Press;
}

bool KeyTaps::key(int key, int scancode, int action, int mods)
{
    const Event event{false, key, scancode, action, mods, 0};
    // Once one event waits, the later ones wait behind it: Ctrl+Q typed fast may send Ctrl's release in the
    // same batch as Q's press and release, and the frame that sees Q down must still see Ctrl down; and the
    // letters typed after a Shift release must not arrive while Shift still looks down.
    if (!queue_.empty() || must_wait(event))
    {
        queue_.push_back(event);
        return false;
    }
    note_passed(event);
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
    pressed_ = false;
    std::vector<Event> ready;
    while (!queue_.empty() && !must_wait(queue_.front()))
    {
        note_passed(queue_.front());
        ready.push_back(queue_.front());
        queue_.pop_front();
    }
    return ready;
}

} // namespace attnlab
