// AtomicFile: writes a file through a unique temporary sibling and renames it at the end, so no partial file
// is left; read_file: reads a regular file no larger than a stated limit.
#pragma once

#include "core/status.h"

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace attnlab
{

// Size limits of the files Attention Lab reads (README.md, "Limits"). A file over its limit is refused before
// any of it is read.
inline constexpr std::size_t kMaxSessionFileBytes = std::size_t{16} << 20;  // sessions, lessons, recent lists
inline constexpr std::size_t kMaxWeightsFileBytes = std::size_t{256} << 20; // weights, exports, models

// Whose file an AtomicFile writes, which decides what happens when the name is not a regular file.
enum class OutputKind
{
    // A file the user named (-o, Save as): a symbolic link is written through (the file it points to is
    // replaced, in its own folder, and the link is kept, as the shell's `>` would), and a device, a FIFO or a
    // socket (/dev/null, /dev/stdout) is written in place.
    UserFile,
    // One of the app's own files in its config folder (autosave, preferences, recent files, layout): whatever
    // stands at the name that is not a regular file (a link, a FIFO, a device) is replaced by the new file,
    // and nothing else is written. rename() replaces a name and never follows a link, so no link planted
    // there can make the app write a file elsewhere, and the app keeps its files (refusing would turn the
    // autosave off for good).
    OwnFile,
};

// Buffered writer for one output file.
//
// A regular file (or a new one) is written to a temporary file created next to it with a unique name
// (O_CREAT | O_EXCL: never an existing file, never through a link planted at that name), and commit() renames
// it onto path: readers see the old file or the whole new one, two writers to one path each leave a complete
// file, and a failed write leaves nothing behind and the old file untouched. A new file gets the usual
// permissions (0666 less the umask), a replaced regular file keeps its own.
//
// A link, device, FIFO or socket at path is handled as OutputKind says. A folder is refused.
class AtomicFile
{
public:
    AtomicFile() = default;
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    // Creates the temporary file (or opens the device). The error names the path and the system's reason.
    Status open(const std::string& path, OutputKind kind = OutputKind::UserFile);

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

    int fd_ = -1;
    bool direct_ = false; // writing a device or FIFO in place: no temporary file, no rename
    std::string path_, temp_path_;
    std::string buffer_;
    int error_ = 0; // errno of the first failed write
};

// Writes a whole string to path through AtomicFile.
Status write_file_atomically(const std::string& path, std::string_view content,
                             OutputKind kind = OutputKind::UserFile);

// Reads a whole regular file of at most max_bytes. A device, FIFO, socket or folder is refused without
// reading (it could be endless, or block forever), and so is a larger file, with its size and the limit in
// the message; what names the kind of file ("session file"). The error names the path and the reason.
Status read_file(const std::string& path, std::string* out, std::size_t max_bytes = kMaxSessionFileBytes,
                 const char* what = "file");

// Whether something is at path: a file, a folder, or a link even when it leads nowhere or loops (reading it
// then says why, where "no such file" would send the user looking for a name they can see).
bool path_present(const std::filesystem::path& path);

// A path as messages name it: one of more than 200 bytes keeps its first and last 96 bytes (cut on UTF-8
// boundaries) around "…", so what follows it in a message (the reason) is never cut away.
std::string path_for_message(const std::string& path);

// "12.5 MB": a byte count for messages.
std::string format_bytes(double bytes);

} // namespace attnlab
