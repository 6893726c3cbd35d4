// Runs ascviz-cli as a child process and captures exit status, stdout and stderr.
#pragma once
#include "testdata.h"
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace clitest {

// The CLI under test. ctest passes its path in the environment (ASCVIZ_CLI_PATH, tests/cli/CMakeLists.txt), not the
// compiler as a definition, so that the tests' objects do not depend on the checkout's folder: ccache then reuses
// them in another clone (the test command's builds from a fresh clone).
inline const char* cliPath()
{
    static const std::string path = [] {
        const char* p = std::getenv("ASCVIZ_CLI_PATH");
        if (!p || !*p)
            throw std::runtime_error("ASCVIZ_CLI_PATH is not set: run the CLI tests through ctest, or set it to "
                                     "the ascviz-cli to test");
        return std::string(p);
    }();
    return path.c_str();
}
#define ASCVIZ_CLI_PATH (::clitest::cliPath())

struct Result {
    int status = -1;
    std::string out;
    std::string err;
};

inline std::string readAll(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// One folder per test program, removed at exit.
inline std::filesystem::path tempDir()
{
    static const ascviz::testdata::TempDir dir("ascviz-cli-test");
    return dir.path();
}

inline std::filesystem::path writeTemp(const std::string& name, const std::string& content)
{
    auto p = tempDir() / name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
}

// `args` is appended to the command line as is (quote paths yourself when needed).
inline Result run(const std::string& args, const std::string& stdinText = {})
{
    static int counter = 0;
    const auto base = tempDir() / ("run" + std::to_string(counter++));
    const auto inFile = base.string() + ".in", outFile = base.string() + ".out", errFile = base.string() + ".err";
    std::ofstream(inFile, std::ios::binary) << stdinText;
    const std::string cmd =
        std::string("'") + ASCVIZ_CLI_PATH + "' " + args + " <'" + inFile + "' >'" + outFile + "' 2>'" + errFile + "'";
    const int rc = std::system(cmd.c_str());
    Result r;
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.out = readAll(outFile);
    r.err = readAll(errFile);
    return r;
}

inline std::string dataDir()
{
    return ascviz::testdata::dataDir().string();
}

// A path in single quotes, for a command line.
inline std::string quoted(const std::filesystem::path& p)
{
    return "'" + p.string() + "'";
}

// The whole content of a file ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p)
{
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

} // namespace clitest
