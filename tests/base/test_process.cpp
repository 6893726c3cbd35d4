// The process runner (base/process.h): exit codes, both output streams, and the typed ways a program can
// fail to start or end.
#include "testdata.h"

#include "ascviz/base/process.h"

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>

using namespace ascviz;
namespace fs = std::filesystem;

TEST(Process, ExitCodeAndOutputOfAShellCommand)
{
    const ProcessResult ok = runProcess({"/bin/sh", "-c", "printf 'a\\nb'"});
    EXPECT_EQ(ok.outcome, ProcessOutcome::Exited);
    EXPECT_TRUE(ok.started());
    EXPECT_TRUE(ok.succeeded());
    EXPECT_EQ(ok.exitCode, 0);
    EXPECT_EQ(ok.out, "a\nb");
    EXPECT_EQ(ok.err, "");

    const ProcessResult failed = runProcess({"/bin/sh", "-c", "exit 42"});
    EXPECT_EQ(failed.outcome, ProcessOutcome::Exited);
    EXPECT_TRUE(failed.started());
    EXPECT_FALSE(failed.succeeded());
    EXPECT_EQ(failed.exitCode, 42);
}

TEST(Process, StderrIsCapturedApartFromStdout)
{
    const ProcessResult r = runProcess({"/bin/sh", "-c", "echo warning >&2; echo result; echo more >&2; exit 1"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(r.out, "result\n");
    EXPECT_EQ(r.err, "warning\nmore\n");
}

TEST(Process, ArgumentsArePassedWithoutAShell)
{
    // Spaces, quotes and $ reach the program as they are: no shell splits or expands argv.
    const ProcessResult r = runProcess({"/bin/sh", "-c", "printf '[%s]' \"$@\"", "sh", "a b", "it's", "$HOME", ""});
    EXPECT_EQ(r.out, "[a b][it's][$HOME][]");
}

TEST(Process, StdinIsEmpty)
{
    // A program reading stdin sees its end at once instead of waiting for input.
    const ProcessResult r = runProcess({"/bin/sh", "-c", "cat; echo read-all"});
    EXPECT_TRUE(r.succeeded());
    EXPECT_EQ(r.out, "read-all\n");
}

TEST(Process, AMissingProgramIsNotStarted)
{
    const ProcessResult r = runProcess({"ascviz-no-such-program-42"});
    EXPECT_EQ(r.outcome, ProcessOutcome::NotFound);
    EXPECT_FALSE(r.started());
    EXPECT_FALSE(r.succeeded());
    EXPECT_EQ(r.exitCode, -1);
    EXPECT_NE(r.err.find("ascviz-no-such-program-42"), std::string::npos) << r.err;

    const ProcessResult path = runProcess({"/no/such/folder/program"});
    EXPECT_EQ(path.outcome, ProcessOutcome::NotFound);
}

TEST(Process, AFileWithoutExecutePermissionIsNotStarted)
{
    const testdata::TempDir tmp("process-test");
    const fs::path script = tmp / "script.sh";
    std::ofstream(script) << "#!/bin/sh\necho ran\n";
    fs::permissions(script, fs::perms::owner_read | fs::perms::owner_write); // no x bit for anyone (root too)
    const ProcessResult r = runProcess({script.string()});
    EXPECT_EQ(r.outcome, ProcessOutcome::NotPermitted);
    EXPECT_EQ(r.exitCode, -1);
    EXPECT_EQ(r.out, "");
}

TEST(Process, NoArgvIsNotStarted)
{
    const ProcessResult r = runProcess({});
    EXPECT_EQ(r.outcome, ProcessOutcome::StartFailed);
    EXPECT_FALSE(r.started());
    EXPECT_EQ(r.exitCode, -1);
}

TEST(Process, ASignalEndsIt)
{
    const ProcessResult r = runProcess({"/bin/sh", "-c", "echo before; kill -TERM $$; echo after"});
    EXPECT_EQ(r.outcome, ProcessOutcome::Signalled);
    EXPECT_TRUE(r.started());
    EXPECT_FALSE(r.succeeded());
    EXPECT_EQ(r.signal, SIGTERM);
    EXPECT_EQ(r.exitCode, 128 + SIGTERM);
    EXPECT_EQ(r.out, "before\n");
}

TEST(Process, ProcessErrorIsAnErrorNamingTheProgram)
{
    try {
        throw ProcessError("cannot run x", "x", ProcessOutcome::NotFound);
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "cannot run x");
        EXPECT_EQ(e.context().path, "x");
        const auto* pe = dynamic_cast<const ProcessError*>(&e);
        ASSERT_NE(pe, nullptr);
        EXPECT_EQ(pe->outcome(), ProcessOutcome::NotFound);
    }
}
