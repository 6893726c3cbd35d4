#include "cli_runner.h"

#include <gtest/gtest.h>

TEST(CliBasic, VersionNamesTorchAndCuda)
{
    auto r = clitest::run("--version");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("ascviz-cli 0.1.0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("libtorch "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("CUDA "), std::string::npos) << r.out;
}

TEST(CliBasic, UnknownCommandIsUsageError)
{
    auto r = clitest::run("frobnicate");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("unknown command"), std::string::npos) << r.err;
}

TEST(CliBasic, NoCommandIsUsageError)
{
    auto r = clitest::run("");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("usage:"), std::string::npos);
}
