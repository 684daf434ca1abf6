// AtomicFile: temporary file + rename, so a failed write leaves nothing behind.
#include "atomic_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace attnlab
{

AtomicFile::~AtomicFile()
{
    discard();
}

Status AtomicFile::open(const std::string& path)
{
    discard();
    if (path.empty())
        return Status::error("no output file given");
    // Writing to a symbolic link writes the file it points to: the rename then replaces that file, in its own
    // folder, and the link stays a link.
    std::error_code ec;
    path_ = path;
    if (std::filesystem::is_symlink(path, ec))
    {
        const std::filesystem::path target = std::filesystem::weakly_canonical(path, ec);
        if (ec)
            return Status::error("cannot write " + path + ": cannot follow the link (" + ec.message() + ")");
        path_ = target.string();
    }
    temp_path_ = path_ + ".tmp";
    error_ = 0;
    buffer_.clear();
    buffer_.reserve(kFlushSize + 4096);
    file_ = std::fopen(temp_path_.c_str(), "wb");
    if (!file_)
        return Status::error("cannot write " + path_ + ": " + std::strerror(errno));
    return Status::ok();
}

void AtomicFile::flush_buffer()
{
    if (!file_ || buffer_.empty())
    {
        buffer_.clear();
        return;
    }
    if (error_ == 0 && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
        error_ = errno != 0 ? errno : EIO;
    buffer_.clear();
}

Status AtomicFile::commit()
{
    if (!file_)
        return Status::error("cannot write " + path_ + ": the file is not open");
    flush_buffer();
    if (error_ == 0 && std::fflush(file_) != 0)
        error_ = errno != 0 ? errno : EIO;
    const int close_result = std::fclose(file_);
    file_ = nullptr;
    if (error_ == 0 && close_result != 0)
        error_ = errno != 0 ? errno : EIO;
    if (error_ == 0 && std::rename(temp_path_.c_str(), path_.c_str()) != 0)
        error_ = errno != 0 ? errno : EIO;
    if (error_ != 0)
    {
        const int saved = error_;
        std::remove(temp_path_.c_str());
        temp_path_.clear();
        return Status::error("cannot write " + path_ + ": " + std::strerror(saved));
    }
    temp_path_.clear();
    return Status::ok();
}

void AtomicFile::discard()
{
    if (file_)
    {
        std::fclose(file_);
        file_ = nullptr;
    }
    if (!temp_path_.empty())
    {
        std::remove(temp_path_.c_str());
        temp_path_.clear();
    }
    buffer_.clear();
}

Status write_file_atomically(const std::string& path, std::string_view content)
{
    AtomicFile file;
    Status status = file.open(path);
    if (!status)
        return status;
    file.write(content);
    return file.commit();
}

Status read_file(const std::string& path, std::string* out)
{
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (!file)
        return Status::error("cannot read " + path + ": " + std::strerror(errno));
    std::string content;
    char chunk[1 << 16];
    size_t n = 0;
    errno = 0;
    while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0)
        content.append(chunk, n);
    const bool failed = std::ferror(file) != 0;
    const int saved = errno;
    std::fclose(file);
    if (failed)
        return Status::error("cannot read " + path + ": " + std::strerror(saved != 0 ? saved : EIO));
    *out = std::move(content);
    return Status::ok();
}

} // namespace attnlab
