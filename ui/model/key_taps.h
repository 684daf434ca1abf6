// Quick key taps: Dear ImGui 1.86 reads each key as a down/up state once a frame, so a key pressed and
// released between two frames is never seen. Presentation clickers do exactly that (their "next slide" is a
// press and a release a millisecond apart), and so do fast typing, remote desktops and macro tools. KeyTaps
// sits in front of the ImGui backend's key and character callbacks and keeps the events in order: once a key
// went down since the last frame, any release (of that key or another, a modifier too) waits for the next
// frame, and every event after it (keys and characters) waits behind it. So every press is seen by a frame
// with the keys that were down with it: xdotool's Ctrl+A sends Ctrl down, A down, Ctrl up, A up, and the
// frame must see Ctrl and A down together. No frame sees a later key with an earlier modifier state either.
#pragma once

#include <deque>
#include <vector>

namespace attnlab
{

class KeyTaps
{
public:
    // GLFW's values (app/window.cpp checks them), so the window passes its callbacks' arguments as they are.
    enum Action
    {
        Release = 0,
        Press = 1,
        Repeat = 2,
    };

    struct Event
    {
        bool is_char = false; // a text character (codepoint) rather than a key event
        int key = 0, scancode = 0, action = 0, mods = 0;
        unsigned codepoint = 0;
    };

    // A key event. Returns true when it can be passed on now; false when it is kept, in order, for
    // take_ready().
    bool key(int key, int scancode, int action, int mods);
    // A text character, the same way (it must not overtake the keys before it: Ctrl held back would eat it).
    bool character(unsigned codepoint);
    // Call once a frame, after ImGui::Render (never between NewFrame and Render: ImGui asserts that the
    // modifier keys do not change within a frame). Returns the kept events that may be passed on now, in
    // order: up to the first event that would hide a state from the frame (a key's second change, or a
    // release after a press); it waits one more frame.
    std::vector<Event> take_ready();
    // Events still kept.
    std::size_t pending() const { return queue_.size(); }

private:
    // Whether the next frame would miss a state if `e` were passed on now.
    bool must_wait(const Event& e) const;
    void note_passed(const Event& e);

    std::vector<int> changed_; // keys passed on as pressed or released since the last frame
    bool pressed_ = false;     // a key was passed on as pressed since the last frame
    std::deque<Event> queue_;
};

} // namespace attnlab
