// Window slots: one flock'ed lock file per window that autosaves into the config folder.
#include "ui/model/window_slot.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace attnlab
{

namespace
{

std::string lock_path(const std::string& dir, int slot)
{
    return dir + (slot == 1 ? "/last_session.lock" : "/last_session-window" + std::to_string(slot) + ".lock");
}

// Opens the lock file at path, making it when missing; -1 (and *error) when it cannot be opened. Anything
// but a regular file at the name is removed first, so a planted link is never followed and a FIFO never
// blocks. In a read-only folder an existing lock file is opened for reading, which flock accepts.
int open_lock_file(const std::string& path, std::string* error)
{
    struct stat st
    {
    };
    if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && ::unlink(path.c_str()) != 0)
    {
        *error = path + " is not a regular file and cannot be removed: " + std::strerror(errno);
        return -1;
    }
    const int flags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | flags, 0644);
    if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM))
        fd = ::open(path.c_str(), O_RDONLY | flags);
    if (fd < 0)
    {
        *error = "cannot open " + path + ": " + std::strerror(errno);
        return -1;
    }
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) // replaced in between: give up on this slot
    {
        ::close(fd);
        *error = path + " is not a regular file";
        return -1;
    }
    return fd;
}

} // namespace

WindowSlot::~WindowSlot()
{
    if (fd_ >= 0)
        ::close(fd_); // closing the last descriptor lets the flock go
}

WindowSlot::WindowSlot(WindowSlot&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), number_(std::exchange(other.number_, 0)),
      lock_error_(std::move(other.lock_error_))
{
}

WindowSlot& WindowSlot::operator=(WindowSlot&& other) noexcept
{
    if (this != &other)
    {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = std::exchange(other.fd_, -1);
        number_ = std::exchange(other.number_, 0);
        lock_error_ = std::move(other.lock_error_);
    }
    return *this;
}

WindowSlot WindowSlot::claim(const std::string& dir)
{
    WindowSlot slot;
    for (int n = 1; n <= kMaxWindowSlots; ++n)
    {
        std::string error;
        const int fd = open_lock_file(lock_path(dir, n), &error);
        if (fd < 0)
        {
            if (n == 1)
            {
                // No lock can be had (a read-only folder): the first slot, unlocked.
                slot.number_ = 1;
                slot.lock_error_ = error;
                return slot;
            }
            continue;
        }
        // flock (not fcntl's locks): two descriptors of one process exclude each other too, and the lock goes
        // with the process, however it ends.
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0)
        {
            slot.fd_ = fd;
            slot.number_ = n;
            return slot;
        }
        ::close(fd);
    }
    return slot; // every slot is taken
}

std::string window_slot_file(const std::string& dir, int slot, const char* base)
{
    return dir + "/" + base + (slot <= 1 ? std::string() : "-window" + std::to_string(slot)) + ".json";
}

std::vector<std::string> other_window_autosaves(const std::string& dir, int slot)
{
    std::vector<std::string> files;
    if (dir.empty())
        return files;
    std::error_code ec;
    for (int n = 1; n <= kMaxWindowSlots; ++n)
    {
        const std::string f = window_slot_file(dir, n, "last_session");
        if (n != slot && std::filesystem::is_regular_file(f, ec))
            files.push_back(f);
    }
    return files;
}

} // namespace attnlab
