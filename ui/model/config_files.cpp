// The config folder's own text files: checked reads and the recent-files list's text.
#include "ui/model/config_files.h"

#include "core/io/atomic_file.h"

#include <algorithm>
#include <filesystem>

namespace attnlab
{

Status read_config_file(const std::string& path, std::string* text, const char* what, const char* instead)
{
    text->clear();
    std::error_code ec;
    // Missing (nothing at the name): the defaults, silently. A dangling link is there, and read_file says so.
    if (path.empty() || !std::filesystem::exists(std::filesystem::symlink_status(path, ec)))
        return Status();
    if (Status s = read_file(path, text, kMaxSessionFileBytes, what); !s)
    {
        text->clear();
        return Status::error(s.message() + "; " + instead + " until it is removed or replaced");
    }
    return Status();
}

std::vector<std::string> recent_files_from_text(std::string_view text, int max_files)
{
    std::vector<std::string> files;
    std::size_t at = 0;
    while (at < text.size() && static_cast<int>(files.size()) < max_files)
    {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        std::string_view line = text.substr(at, end - at);
        at = end + 1;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (!line.empty() && line[0] != '#' && std::find(files.begin(), files.end(), line) == files.end())
            files.emplace_back(line);
    }
    return files;
}

std::string recent_files_to_text(const std::vector<std::string>& files)
{
    std::string text = "# Attention Lab: recent session files, most recent first\n";
    for (const std::string& f : files)
        text += f + "\n";
    return text;
}

} // namespace attnlab
