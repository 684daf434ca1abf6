// Which autosave files a window owns when several windows share one config folder: an advisory lock per
// slot, held for the process's life and let go by the OS when it ends, normally or in a crash.
#pragma once

#include <string>
#include <vector>

namespace attnlab
{

// Slot 1 is the first window's (last_session.json, last_model.json); a window started while it runs takes
// slot 2, 3, ... (last_session-window2.json, last_model-window2.json), so no window writes over another's
// work. At most this many windows autosave at once; a further one autosaves nothing and says so.
inline constexpr int kMaxWindowSlots = 9;

// A slot's lock: open while the window runs (the lock file is "last_session.lock", or
// "last_session-window<n>.lock"). Move-only; the destructor lets the lock go.
class WindowSlot
{
public:
    WindowSlot() = default;
    ~WindowSlot();
    WindowSlot(WindowSlot&& other) noexcept;
    WindowSlot& operator=(WindowSlot&& other) noexcept;
    WindowSlot(const WindowSlot&) = delete;
    WindowSlot& operator=(const WindowSlot&) = delete;

    // 1 .. kMaxWindowSlots; 0: none (every slot is taken).
    int number() const { return number_; }
    // True when the slot is locked. A folder where no lock file can be made (read-only) gives slot 1 without
    // a lock: nothing can be autosaved there anyway, and the status bar says so at the first write.
    bool locked() const { return fd_ >= 0; }
    // Why no lock could be taken ("" : it was).
    const std::string& lock_error() const { return lock_error_; }

    // Takes the first free slot of the folder dir (which must exist). A link, FIFO or other non-regular file
    // planted at a lock file's name is replaced by a new lock file, never opened.
    static WindowSlot claim(const std::string& dir);

private:
    int fd_ = -1;
    int number_ = 0;
    std::string lock_error_;
};

// A slot's file in dir: "dir/<base>.json" for slot 1, "dir/<base>-window<n>.json" for slot n >= 2.
// base: "last_session" or "last_model".
std::string window_slot_file(const std::string& dir, int slot, const char* base);
// The session autosaves of the other slots (1 .. kMaxWindowSlots but `slot`) that exist in dir, whether
// their window still runs or ended (a crash leaves its work there): File > Recent offers them.
std::vector<std::string> other_window_autosaves(const std::string& dir, int slot);

} // namespace attnlab
