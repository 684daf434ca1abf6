// A test fixture with its own config folder: XDG_CONFIG_HOME points at an empty folder named after the test
// (under the build tree), removed again after it. Header-only, so tests that link no ImGui can use it.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace attnlab
{

class ConfigHomeTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        home = std::filesystem::path(ATTNLAB_BINARY_DIR) / "tests" / "ui" / "config_home" /
               ::testing::UnitTest::GetInstance()->current_test_info()->name();
        std::filesystem::remove_all(home);
        std::filesystem::create_directories(home);
        setenv("XDG_CONFIG_HOME", home.string().c_str(), 1);
    }
    void TearDown() override
    {
        unsetenv("XDG_CONFIG_HOME");
        std::filesystem::remove_all(home);
    }

    std::filesystem::path home;
};

} // namespace attnlab
