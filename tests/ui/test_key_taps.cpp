// KeyTaps on its own: key events as GLFW sends them between two frames, and the key states each frame sees.
#include "ui/model/key_taps.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace attnlab
{
namespace
{

constexpr int kCtrl = 341;  // GLFW_KEY_LEFT_CONTROL
constexpr int kShift = 340; // GLFW_KEY_LEFT_SHIFT
constexpr int kA = 'A';
constexpr int kB = 'B';

// Stands in for the window and the ImGui backend: what KeyTaps passes on changes the key states, and each
// frame records the keys it saw down and the characters it received.
class Keyboard
{
public:
    void send(int key, int action)
    {
        if (taps.key(key, 0, action, 0))
            apply(KeyTaps::Event{false, key, 0, action, 0, 0});
    }
    void press(int key) { send(key, KeyTaps::Press); }
    void release(int key) { send(key, KeyTaps::Release); }
    void character(unsigned c)
    {
        if (taps.character(c))
            apply_char(c);
    }
    // One frame: it sees the keys down now and the characters since the last frame; then what was kept is
    // passed on, as the window does after Render.
    void frame()
    {
        seen.push_back(down);
        typed.push_back(chars);
        chars.clear();
        for (const KeyTaps::Event& e : taps.take_ready())
        {
            if (e.is_char)
                apply_char(e.codepoint);
            else
                apply(e);
        }
    }
    bool frame_saw(std::size_t frame, std::set<int> keys) const
    {
        for (int k : keys)
            if (seen.at(frame).count(k) == 0)
                return false;
        return true;
    }

    KeyTaps taps;
    std::set<int> down;
    std::string chars;
    std::vector<std::set<int>> seen; // keys down, frame by frame
    std::vector<std::string> typed;  // characters received, frame by frame

private:
    void apply(const KeyTaps::Event& e)
    {
        if (e.action == KeyTaps::Release)
            down.erase(e.key);
        else
            down.insert(e.key);
    }
    void apply_char(unsigned c) { chars += static_cast<char>(c); }
};

TEST(KeyTaps, ATapInsideOneFrameIsSeenDownForOneFrameThenUp)
{
    Keyboard kb;
    kb.press(kA);
    kb.release(kA);
    kb.frame();
    kb.frame();
    EXPECT_EQ(kb.seen[0], std::set<int>{kA});
    EXPECT_TRUE(kb.seen[1].empty());
    EXPECT_EQ(kb.taps.pending(), 0u);
}

TEST(KeyTaps, CtrlReleasedInTheFrameOfAsPressIsStillSeenWithA)
{
    // Ctrl went down a frame earlier; then A down, Ctrl up, A up before the next frame (xdotool's Ctrl+A
    // releases the keys in the order it pressed them).
    Keyboard kb;
    kb.press(kCtrl);
    kb.frame();
    kb.press(kA);
    kb.release(kCtrl);
    kb.release(kA);
    kb.frame();
    kb.frame();
    EXPECT_EQ(kb.seen[0], std::set<int>{kCtrl});
    EXPECT_EQ(kb.seen[1], (std::set<int>{kCtrl, kA})); // the chord, in one frame
    EXPECT_TRUE(kb.seen[2].empty());
    EXPECT_EQ(kb.taps.pending(), 0u);
}

TEST(KeyTaps, AWholeChordInsideOneFrameIsSeenOnceThenReleased)
{
    for (bool ctrl_up_first : {true, false})
    {
        Keyboard kb;
        kb.press(kCtrl);
        kb.press(kA);
        kb.release(ctrl_up_first ? kCtrl : kA);
        kb.release(ctrl_up_first ? kA : kCtrl);
        for (int i = 0; i < 3; ++i)
            kb.frame();
        EXPECT_EQ(kb.seen[0], (std::set<int>{kCtrl, kA})) << ctrl_up_first;
        EXPECT_TRUE(kb.seen[1].empty()) << ctrl_up_first;
        EXPECT_EQ(kb.taps.pending(), 0u);
    }
}

TEST(KeyTaps, EveryPressIsSeenWithTheKeysHeldWithIt)
{
    // Shift held over two capitals, then released, then a lower-case letter, all before one frame: each
    // frame that sees a letter's press sees Shift exactly as it was at that press.
    Keyboard kb;
    kb.press(kShift);
    kb.press(kA);
    kb.character('A');
    kb.release(kA);
    kb.press(kB);
    kb.character('B');
    kb.release(kB);
    kb.release(kShift);
    kb.press(kA);
    kb.character('a');
    kb.release(kA);
    for (int i = 0; i < 8; ++i)
        kb.frame();
    EXPECT_EQ(kb.taps.pending(), 0u);
    std::vector<std::set<int>> presses; // the keys down in each frame where a letter went down
    std::string all_typed;
    for (std::size_t f = 0; f < kb.seen.size(); ++f)
    {
        const std::set<int> before = f == 0 ? std::set<int>{} : kb.seen[f - 1];
        for (int letter : {kA, kB})
            if (kb.seen[f].count(letter) != 0 && before.count(letter) == 0)
                presses.push_back(kb.seen[f]);
        all_typed += kb.typed[f];
    }
    ASSERT_EQ(presses.size(), 3u);
    EXPECT_EQ(presses[0], (std::set<int>{kShift, kA}));
    EXPECT_EQ(presses[1], (std::set<int>{kShift, kB}));
    EXPECT_EQ(presses[2], (std::set<int>{kA}));
    EXPECT_EQ(all_typed, "ABa");
}

TEST(KeyTaps, KeysThatOnlyGoDownPassAtOnce)
{
    // Nothing to hide: presses alone (and key repeats) go straight through, so held keys cost no frame.
    Keyboard kb;
    kb.press(kCtrl);
    kb.press(kShift);
    kb.press(kA);
    kb.send(kA, KeyTaps::Repeat);
    EXPECT_EQ(kb.taps.pending(), 0u);
    EXPECT_EQ(kb.down, (std::set<int>{kCtrl, kShift, kA}));
    kb.frame();
    // Releases after a frame pass at once too.
    kb.release(kA);
    kb.release(kShift);
    EXPECT_EQ(kb.taps.pending(), 0u);
}

} // namespace
} // namespace attnlab
