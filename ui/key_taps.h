// Quick key taps: Dear ImGui 1.86 reads each key as a down/up state once a frame, so a key pressed and
// released between two frames is never seen. Presentation clickers do exactly that (their "next slide" is a
// press and a release a millisecond apart), and so does a fast tap while a long sentence recomputes.
// KeyTaps holds such a release back until one frame has seen the key down.
#pragma once

#include <vector>

namespace attnlab
{

class KeyTaps
{
public:
    struct Release
    {
        int key = 0, scancode = 0, mods = 0;
    };

    // A key went down: always passed on at once.
    void press(int key);
    // A key went up. Returns true when the release can be passed on now; false when the key went down
    // since the last frame or another release is already waiting, in which case it is kept, in order, for
    // take_held().
    bool release(int key, int scancode, int mods);
    // Call once a frame, after ImGui::NewFrame has read the keys: the releases held back, to be passed on
    // now (the next frame sees the keys up).
    std::vector<Release> take_held();

private:
    std::vector<int> pressed_; // keys that went down since the last frame
    std::vector<Release> held_;
};

} // namespace attnlab
