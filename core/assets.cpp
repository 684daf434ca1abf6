// Finds the data folder beside the executable (see assets.h).
#include "core/assets.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace attnlab
{

namespace
{

std::string find_assets_dir()
{
    if (const char* env = std::getenv("ATTNLAB_ASSETS"); env != nullptr && *env != '\0')
        return env;
    namespace fs = std::filesystem;
    std::error_code error;
    const fs::path exe = fs::read_symlink("/proc/self/exe", error);
    if (error || exe.empty())
        return "";
    fs::path dir = exe.parent_path();
    for (int level = 0; level < 5 && !dir.empty(); ++level)
    {
        const fs::path candidate = dir / "share" / "attnlab";
        if (fs::is_directory(candidate / "lessons", error))
            return candidate.string();
        if (dir == dir.parent_path())
            break;
        dir = dir.parent_path();
    }
    return "";
}

} // namespace

std::string assets_dir()
{
    return find_assets_dir(); // a link read and a few stat calls: cheap, and it follows the variable
}

std::string asset_path(const std::string& sub)
{
    const std::string dir = assets_dir();
    return dir.empty() ? std::string() : dir + "/" + sub;
}

} // namespace attnlab
