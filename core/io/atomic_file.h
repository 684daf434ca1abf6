// AtomicFile: writes a file through a temporary sibling and renames it at the end, so no partial file is
// left.
#pragma once

#include "core/status.h"

#include <cstdio>
#include <string>
#include <string_view>

namespace attnlab
{

// Buffered writer for one output file. Bytes go to "<path>.tmp"; commit() flushes, closes and renames it to
// path. If commit() is never reached (an error, an early return) the destructor removes the temporary file,
// so a failed write never leaves a partial file behind and never touches an existing file at path. When path
// is a symbolic link, the file it points to is the one written, and the link is kept.
class AtomicFile
{
public:
    AtomicFile() = default;
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    // Creates the temporary file. The error names the path and the system's reason.
    Status open(const std::string& path);

    // Appends bytes (buffered; errors are remembered and reported by commit()).
    void write(std::string_view bytes)
    {
        buffer_.append(bytes.data(), bytes.size());
        if (buffer_.size() >= kFlushSize)
            flush_buffer();
    }
    void put(char c)
    {
        buffer_.push_back(c);
        if (buffer_.size() >= kFlushSize)
            flush_buffer();
    }

    // Flushes, closes and renames the temporary file onto the final path.
    Status commit();

private:
    static constexpr size_t kFlushSize = 1 << 20;
    void flush_buffer();
    void discard();

    std::FILE* file_ = nullptr;
    std::string path_, temp_path_;
    std::string buffer_;
    int error_ = 0; // errno of the first failed write
};

// Writes a whole string to path through AtomicFile.
Status write_file_atomically(const std::string& path, std::string_view content);

// Reads a whole file. The error names the path and the system's reason.
Status read_file(const std::string& path, std::string* out);

} // namespace attnlab
