// AtomicFile: unique temporary file + rename, so a failed write leaves nothing behind; bounded reads.
#include "atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace attnlab
{

namespace
{

std::string reason(int err)
{
    return std::strerror(err != 0 ? err : EIO);
}

// The folder a file path is in ("." for a bare name).
std::string folder_of(const std::string& path)
{
    const std::filesystem::path p(path);
    return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

bool is_folder(const std::string& path)
{
    struct stat st = {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Why a file in dir could not be created or written, and what to do about it, from the system's errno.
// The system's own words are vague here: creating a file in /proc says "No such file or directory" although
// the folder is there, and a full disk surfaces at close or rename as much as at write.
std::string write_failure(const std::string& path, const std::string& dir, int err)
{
    const std::string head = "cannot write " + path_for_message(path) + ": ";
    const std::string elsewhere = "; pick another folder (your home folder, for one)";
    switch (err)
    {
    case ENOENT:
        if (!is_folder(dir))
            return head + "the folder " + dir + " does not exist; create it first or pick another folder";
        // The folder is there but refuses new files: a system folder such as /proc or /sys.
        return head + "the folder " + dir + " cannot be written (it is a system folder that takes no files)" +
               elsewhere;
    case EACCES:
    case EPERM:
        return head + "the folder " + dir + " cannot be written (you have no permission to write there)" +
               elsewhere + ", or ask for write permission on it";
    case EROFS:
        return head + "the folder " + dir + " cannot be written (it is on a read-only disk)" + elsewhere;
    case ENOTDIR:
        return head + "a part of " + dir + " is a file, not a folder" + elsewhere;
    case EISDIR:
        return head + "it is a folder; give a file name";
    case ENAMETOOLONG:
        return head + "the name is too long; give a shorter file name";
    case ENOSPC:
    case EDQUOT:
        return head + "the disk is full" +
               (err == EDQUOT ? std::string(" (your disk quota is used up)") : "") +
               "; free some space or pick a folder on another disk (nothing was written)";
    default:
        return head + reason(err);
    }
}

// The process's umask, read without changing it for longer than two calls.
mode_t current_umask()
{
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return mask;
}

bool write_all(int fd, const char* data, std::size_t size, int* error)
{
    while (size > 0)
    {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0)
        {
            if (errno == EINTR)
                continue;
            *error = errno != 0 ? errno : EIO;
            return false;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

} // namespace

AtomicFile::~AtomicFile()
{
    discard();
}

Status AtomicFile::open(const std::string& path, OutputKind kind)
{
    discard();
    if (path.empty())
        return Status::error("no output file given");
    namespace fs = std::filesystem;
    std::error_code ec;
    path_ = path;
    const bool own = kind == OutputKind::OwnFile;
    // A user's file: writing to a symbolic link writes the file it points to, the rename then replaces that
    // file, in its own folder, and the link stays a link. The app's own file: the link itself is replaced.
    if (!own && fs::is_symlink(path, ec))
    {
        const fs::path target = fs::weakly_canonical(path, ec);
        if (ec)
            return Status::error("cannot write " + path_for_message(path) + ": cannot follow the link (" +
                                 ec.message() + ")");
        path_ = target.string();
    }
    error_ = 0;
    buffer_.clear();

    struct stat st = {};
    // lstat for the app's own file: a link there is a name to replace, not a file to look through.
    const bool exists = (own ? ::lstat(path_.c_str(), &st) : ::stat(path_.c_str(), &st)) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return Status::error("cannot write " + path_for_message(path_) +
                             ": it is a folder; give a file name");
    if (exists && !S_ISREG(st.st_mode) && !own)
    {
        // A device, FIFO or socket: write it in place. O_NONBLOCK so a FIFO without a reader fails at once
        // (ENXIO) instead of hanging; the flag is cleared again for the writes.
        fd_ = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd_ < 0)
        {
            const int err = errno;
            return Status::error(err == ENXIO ? "cannot write " + path_for_message(path_) +
                                                    ": no program is reading this FIFO"
                                              : write_failure(path_, folder_of(path_), err));
        }
        ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
        direct_ = true;
        buffer_.reserve(kFlushSize + 4096);
        return Status::ok();
    }

    // A unique sibling ".name.XXXXXX.tmp": mkstemps creates it with O_EXCL, so it never follows a link and
    // never touches a file of the user's.
    const fs::path target(path_);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string templ = (dir / ("." + target.filename().string() + ".XXXXXX.tmp")).string();
    std::vector<char> name(templ.begin(), templ.end());
    name.push_back('\0');
    fd_ = ::mkstemps(name.data(), 4);
    if (fd_ < 0)
        return Status::error(write_failure(path_, dir.string(), errno));
    temp_path_ = name.data();
    ::fcntl(fd_, F_SETFD, FD_CLOEXEC);
    // mkstemps makes the file 0600; give it the replaced file's mode, or the usual one for a new file.
    ::fchmod(fd_, exists && S_ISREG(st.st_mode) ? (st.st_mode & 07777) : (0666 & ~current_umask()));
    buffer_.reserve(kFlushSize + 4096);
    return Status::ok();
}

void AtomicFile::flush_buffer()
{
    if (fd_ < 0 || buffer_.empty())
    {
        buffer_.clear();
        return;
    }
    if (error_ == 0)
        write_all(fd_, buffer_.data(), buffer_.size(), &error_);
    buffer_.clear();
}

Status AtomicFile::commit()
{
    if (fd_ < 0)
        return Status::error("cannot write " + path_for_message(path_) + ": the file is not open");
    flush_buffer();
    // No fsync: the autosave runs on the UI thread every second while the user edits, and fsync can stall
    // it for a long time on a busy disk. What this guards against is a crash of the app, which loses nothing
    // the kernel already has; after a power loss ext4 flushes a file renamed over another before the rename.
    const int close_result = ::close(fd_);
    fd_ = -1;
    if (error_ == 0 && close_result != 0)
        error_ = errno != 0 ? errno : EIO;
    if (error_ == 0 && !direct_ && std::rename(temp_path_.c_str(), path_.c_str()) != 0)
        error_ = errno != 0 ? errno : EIO;
    if (!temp_path_.empty() && error_ != 0)
        ::unlink(temp_path_.c_str());
    temp_path_.clear();
    direct_ = false;
    if (error_ != 0)
        return Status::error(write_failure(path_, folder_of(path_), error_));
    return Status::ok();
}

void AtomicFile::discard()
{
    if (fd_ >= 0)
    {
        ::close(fd_);
        fd_ = -1;
    }
    if (!temp_path_.empty())
    {
        ::unlink(temp_path_.c_str());
        temp_path_.clear();
    }
    direct_ = false;
    buffer_.clear();
}

Status write_file_atomically(const std::string& path, std::string_view content, OutputKind kind)
{
    AtomicFile file;
    Status status = file.open(path, kind);
    if (!status)
        return status;
    file.write(content);
    return file.commit();
}

std::string path_for_message(const std::string& path)
{
    constexpr std::size_t kLongest = 200, kKept = 96;
    if (path.size() <= kLongest)
        return path;
    std::size_t head = kKept, tail = path.size() - kKept;
    const auto continuation = [&](std::size_t i)
    { return (static_cast<unsigned char>(path[i]) & 0xC0) == 0x80; };
    while (head > 0 && continuation(head))
        --head;
    while (tail < path.size() && continuation(tail))
        ++tail;
    return path.substr(0, head) + "…(" + std::to_string(tail - head) + " bytes of the path left out)…" +
           path.substr(tail);
}

bool path_present(const std::filesystem::path& path)
{
    std::error_code ec;
    return std::filesystem::exists(path, ec) ||
           std::filesystem::is_symlink(std::filesystem::symlink_status(path, ec));
}

std::string format_bytes(double bytes)
{
    char text[32];
    if (bytes >= 1e9)
        std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
    else if (bytes >= 1e6)
        std::snprintf(text, sizeof text, "%.1f MB", bytes / 1e6);
    else if (bytes >= 1e3)
        std::snprintf(text, sizeof text, "%.1f KB", bytes / 1e3);
    else
        std::snprintf(text, sizeof text, "%.0f bytes", bytes);
    return text;
}

Status read_file(const std::string& path, std::string* out, std::size_t max_bytes, const char* what)
{
    if (path.empty())
        return Status::error(std::string("no ") + what + " given");
    // O_NONBLOCK: opening a FIFO must not wait for a writer; the type is checked before any read.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return Status::error("cannot read " + path_for_message(path) + ": " + reason(errno));
    struct stat st = {};
    if (::fstat(fd, &st) != 0)
    {
        const int err = errno;
        ::close(fd);
        return Status::error("cannot read " + path_for_message(path) + ": " + reason(err));
    }
    if (!S_ISREG(st.st_mode))
    {
        ::close(fd);
        return Status::error(
            "cannot read " + path_for_message(path) + ": " +
            (S_ISDIR(st.st_mode) ? "it is a folder" : "it is not a regular file (a device or a FIFO)") +
            "; give the path of a " + what);
    }
    if (static_cast<unsigned long long>(st.st_size) > max_bytes)
    {
        ::close(fd);
        return Status::error("cannot read " + path_for_message(path) + ": it is " +
                             format_bytes(static_cast<double>(st.st_size)) + ", over the " +
                             format_bytes(static_cast<double>(max_bytes)) + " limit for a " + what);
    }
    std::string content;
    content.reserve(static_cast<std::size_t>(st.st_size));
    char chunk[1 << 16];
    int err = 0;
    for (;;)
    {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0)
        {
            if (errno == EINTR)
                continue;
            err = errno != 0 ? errno : EIO;
            break;
        }
        if (n == 0)
            break;
        content.append(chunk, static_cast<std::size_t>(n));
        if (content.size() > max_bytes) // the file grew while it was read
        {
            ::close(fd);
            return Status::error("cannot read " + path_for_message(path) + ": it is over the " +
                                 format_bytes(static_cast<double>(max_bytes)) + " limit for a " + what);
        }
    }
    ::close(fd);
    if (err != 0)
        return Status::error("cannot read " + path_for_message(path) + ": " + reason(err));
    *out = std::move(content);
    return Status::ok();
}

} // namespace attnlab
