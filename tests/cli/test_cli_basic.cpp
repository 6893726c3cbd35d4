#include "cli_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

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

TEST(CliBasic, VersionNamesTheLibTorchBuild)
{
    auto r = clitest::run("--version");
    ASSERT_EQ(r.status, 0) << r.err;
    const bool known = r.out.find("(system LibTorch") != std::string::npos ||
                       r.out.find("(PyTorch wheel") != std::string::npos ||
                       r.out.find("(LibTorch /") != std::string::npos;
    EXPECT_TRUE(known) << r.out;
    EXPECT_NE(r.out.find("CUDA "), std::string::npos) << r.out;
}

TEST(CliBasic, VersionNamesTheCpuThreadSetup)
{
    auto r = clitest::run("--version");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto at = r.out.find("CPU threads: ");
    ASSERT_NE(at, std::string::npos) << r.out;
    EXPECT_NE(r.out.find("LibTorch intra-op thread", at), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("BLAS: ", at), std::string::npos) << r.out;
    // An OpenBLAS with threads of its own (pthreads): when it runs the linear layers, LibTorch keeps one thread;
    // when oneDNN runs them (on LibTorch's OpenMP threads), OpenBLAS keeps one (cpu_threads.h).
    if (r.out.find("(pthreads)", at) != std::string::npos) {
        if (r.out.find("float32 linear layers: LibTorch's BLAS", at) != std::string::npos)
            EXPECT_NE(r.out.find("CPU threads: 1 LibTorch intra-op thread;", at), std::string::npos) << r.out;
        else
            EXPECT_NE(r.out.find("(pthreads), 1 thread;", at), std::string::npos) << r.out;
    }
}

TEST(CliBasic, EveryCommandAnswersHelp)
{
    for (const std::string cmd :
         {"tokenize", "score", "generate", "parse", "eval", "render", "batch", "report", "--version"}) {
        for (const std::string flag : {"--help", "-h"}) {
            // Help wins over any other (even missing or wrong) option.
            const auto r = clitest::run(cmd + " --bogus " + flag);
            EXPECT_EQ(r.status, 0) << cmd << ": " << r.err;
            EXPECT_EQ(r.out.rfind("usage: ascviz-cli " + cmd, 0), 0u) << cmd << ":\n" << r.out;
            EXPECT_TRUE(r.err.empty()) << cmd << ": " << r.err;
        }
    }
    const auto g = clitest::run("generate --help");
    for (const char* opt : {"--ignore-eos", "--max-new-tokens", "--model M", "ORG/NAME", "\"stop\""})
        EXPECT_NE(g.out.find(opt), std::string::npos) << opt << " missing from:\n" << g.out;
    const auto b = clitest::run("batch --help");
    EXPECT_NE(b.out.find("--batch-size"), std::string::npos) << b.out;
    const auto top = clitest::run("--help");
    EXPECT_EQ(top.status, 0);
    EXPECT_NE(top.out.find("--batch-size"), std::string::npos) << top.out;
}

// One analyze router (issue 40): the subcommands it names for a missing one are exactly those `analyze --help`
// lists (its help is generated from the router's table), each of them is routed (an error of its own, not
// "unknown analyze subcommand"), and `ascviz-cli --help` shows each.
TEST(CliBasic, AnalyzeHelpListsEverySubcommandTheRouterAccepts)
{
    const auto missing = clitest::run("analyze");
    ASSERT_EQ(missing.status, 2);
    const std::string lead = "analyze needs a subcommand: ";
    const auto at = missing.err.find(lead);
    ASSERT_NE(at, std::string::npos) << missing.err;
    std::string list = missing.err.substr(at + lead.size());
    list = list.substr(0, list.find('\n'));
    std::vector<std::string> names; // "a, b, c or d"
    for (std::size_t pos = 0; pos < list.size();) {
        std::size_t end = std::min(list.find(", ", pos), list.find(" or ", pos));
        names.push_back(list.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
        if (end == std::string::npos)
            break;
        pos = end + (list.compare(end, 2, ", ") == 0 ? 2 : 4);
    }
    for (const std::string known : {"causal", "perplexed", "heatmap", "heads", "treatments", "layers"})
        EXPECT_NE(std::find(names.begin(), names.end(), known), names.end()) << known << " not routed: " << list;

    const auto help = clitest::run("analyze --help");
    ASSERT_EQ(help.status, 0) << help.err;
    std::string usage = "usage: ascviz-cli analyze ";
    for (std::size_t i = 0; i < names.size(); ++i)
        usage += (i ? "|" : "") + names[i];
    EXPECT_EQ(help.out.rfind(usage + " [options]\n", 0), 0u) << help.out;
    const auto top = clitest::run("--help");
    for (const auto& name : names) {
        EXPECT_NE(help.out.find("\n  " + name + " "), std::string::npos) << name << " has no section in:\n" << help.out;
        EXPECT_NE(top.out.find((name == names.front() ? "  analyze  " : "           | ") + name + " "),
                  std::string::npos)
            << name << " missing from ascviz-cli --help:\n"
            << top.out;
        // Routed: a missing input is the subcommand's own error.
        const std::string input = name == "heads" ? " --from /nonexistent/p.jsonl" : " --db /nonexistent/r.db";
        const auto r = clitest::run("analyze " + name + input);
        EXPECT_NE(r.status, 0) << name;
        EXPECT_EQ(r.err.find("unknown analyze subcommand"), std::string::npos) << name << ": " << r.err;
    }
    const auto unknown = clitest::run("analyze frobnicate");
    EXPECT_EQ(unknown.status, 2);
    EXPECT_NE(unknown.err.find("unknown analyze subcommand 'frobnicate' (" + list + ")"), std::string::npos)
        << unknown.err;
}
