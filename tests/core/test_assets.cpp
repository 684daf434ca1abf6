// The data folder is found beside the executable (core/assets.h): here the build tree's share/attnlab, which
// links to the source's assets/; ATTNLAB_ASSETS names another.
#include "core/assets.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;

TEST(Assets, TheBuildTreeFindsItsDataBesideTheExecutable)
{
    unsetenv("ATTNLAB_ASSETS");
    const std::string dir = assets_dir();
    ASSERT_FALSE(dir.empty());
    // build/tests/core/<test> → build/share/attnlab: the same folder as the source's assets/.
    EXPECT_TRUE(fs::equivalent(dir, fs::path(ATTNLAB_BINARY_DIR) / "share" / "attnlab")) << dir;
    EXPECT_TRUE(fs::equivalent(dir, fs::path(ATTNLAB_SOURCE_DIR) / "assets")) << dir;
    EXPECT_TRUE(fs::is_regular_file(asset_path("lessons/01_tour.json")))
        << asset_path("lessons/01_tour.json");
}

TEST(Assets, TheVariableNamesAnotherDataFolder)
{
    const fs::path other = fs::temp_directory_path() / "attnlab_assets_test";
    setenv("ATTNLAB_ASSETS", other.c_str(), 1);
    EXPECT_EQ(assets_dir(), other.string());
    EXPECT_EQ(asset_path("corpora"), (other / "corpora").string());
    setenv("ATTNLAB_ASSETS", "", 1); // empty: as if unset
    EXPECT_NE(assets_dir(), other.string());
    unsetenv("ATTNLAB_ASSETS");
}

} // namespace
} // namespace attnlab
