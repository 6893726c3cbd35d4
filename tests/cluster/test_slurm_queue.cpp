// Slurm job states parsed once from squeue's text (cluster/slurmqueue.h) and what a run's status makes of
// them: a stand-in squeue on PATH answers like `squeue -h -r -t all -j JOB -o '%i|%T|%r'`.
#include "testdata.h"

#include "ascviz/base/process.h"
#include "ascviz/cluster/slurm.h"
#include "ascviz/cluster/slurmqueue.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>

using namespace ascviz;
namespace fs = std::filesystem;

TEST(SlurmQueue, EveryStateCodeParsesAndPrintsAsSqueueWroteIt)
{
    const char* codes[] = {"BOOT_FAIL",     "CANCELLED",    "COMPLETED",     "CONFIGURING", "COMPLETING", "DEADLINE",
                           "FAILED",        "NODE_FAIL",    "OUT_OF_MEMORY", "PENDING",     "PREEMPTED",  "RUNNING",
                           "RESV_DEL_HOLD", "REQUEUE_FED",  "REQUEUE_HOLD",  "REQUEUED",    "RESIZING",   "REVOKED",
                           "SIGNALING",     "SPECIAL_EXIT", "STAGE_OUT",     "STOPPED",     "SUSPENDED",  "TIMEOUT"};
    for (const char* c : codes) {
        const SlurmJobState s = parseSlurmJobState(c);
        EXPECT_NE(s, SlurmJobState::Other) << c;
        EXPECT_EQ(toString(s), c);
    }
    EXPECT_EQ(parseSlurmJobState("running"), SlurmJobState::Other); // squeue prints codes in capitals
    EXPECT_EQ(parseSlurmJobState(""), SlurmJobState::Other);
    EXPECT_EQ(toString(SlurmJobState::Other), "");
}

TEST(SlurmQueue, SqueueLinesBecomeTasksWithTheirStates)
{
    const auto jobs = parseSqueue("100_0|RUNNING|None\n"
                                  "100_1|PENDING|Priority\n"
                                  "100_[2-3]|PENDING|Resources\n" // not unfolded: left out
                                  "100_4|NEW_STATE_X|None\n"
                                  "no separators here\n"
                                  "101|PENDING|DependencyNeverSatisfied\n"
                                  "100_5|TIMEOUT|TimeLimit\n");
    ASSERT_EQ(jobs.size(), 5u);
    const SlurmJob& run = jobs.at(0);
    EXPECT_EQ(run.id, "100_0");
    EXPECT_EQ(run.state, SlurmJobState::Running);
    EXPECT_EQ(run.reason, ""); // squeue's "None"
    EXPECT_EQ(toString(run), "RUNNING");
    EXPECT_TRUE(run.running());
    EXPECT_TRUE(run.queued());
    EXPECT_FALSE(run.waiting());

    const SlurmJob& wait = jobs.at(1);
    EXPECT_EQ(toString(wait), "PENDING (Priority)");
    EXPECT_FALSE(wait.running());
    EXPECT_TRUE(wait.queued());
    EXPECT_TRUE(wait.waiting());
    EXPECT_FALSE(wait.dependencyNeverSatisfied);

    const SlurmJob& other = jobs.at(4);
    EXPECT_EQ(other.state, SlurmJobState::Other);
    EXPECT_EQ(toString(other), "NEW_STATE_X"); // an unknown state is printed as squeue wrote it
    EXPECT_FALSE(other.queued());

    const SlurmJob& merge = jobs.at(-1);
    EXPECT_EQ(merge.id, "101");
    EXPECT_TRUE(merge.dependencyNeverSatisfied);
    EXPECT_TRUE(merge.queued());
    EXPECT_FALSE(merge.waiting()); // it can never start
    EXPECT_EQ(toString(merge), "PENDING (DependencyNeverSatisfied)");

    const SlurmJob& late = jobs.at(5);
    EXPECT_EQ(late.state, SlurmJobState::Timeout);
    EXPECT_FALSE(late.queued());
    EXPECT_EQ(toString(late), "TIMEOUT (TimeLimit)");
}

TEST(SlurmQueue, ShardStatusWords)
{
    EXPECT_EQ(toString(ShardStatus::Complete), "complete");
    EXPECT_EQ(toString(ShardStatus::Running), "running");
    EXPECT_EQ(toString(ShardStatus::Pending), "pending");
    EXPECT_EQ(toString(ShardStatus::Stopped), "stopped");
    EXPECT_EQ(toString(ShardStatus::Unknown), "unknown");
}

TEST(SlurmQueue, ARunIsInProgressWhileSomethingQueuedCanChangeIt)
{
    SlurmRunStatus st;
    st.shards.resize(2);
    st.shards[0].status = ShardStatus::Complete;
    st.shards[1].status = ShardStatus::Stopped;
    EXPECT_FALSE(st.inProgress()); // nothing queued
    st.shards[1].status = ShardStatus::Pending;
    EXPECT_TRUE(st.inProgress());
    st.shards[1].status = ShardStatus::Complete;
    auto merge = [](const std::string& line) { return parseSqueue(line + "\n").at(-1); };
    st.mergeState = merge("7|PENDING|Dependency");
    EXPECT_TRUE(st.inProgress());
    st.mergeState = merge("7|PENDING|DependencyNeverSatisfied");
    EXPECT_FALSE(st.inProgress());
    st.mergeState = merge("7|RUNNING|None");
    EXPECT_TRUE(st.inProgress());
    st.mergeState = merge("7|COMPLETING|None");
    EXPECT_TRUE(st.inProgress());
    st.mergeState = merge("7|COMPLETED|None");
    EXPECT_FALSE(st.inProgress());
}

namespace {

// A stand-in squeue on PATH for the life of the object: prints $SQUEUE_DIR/<job id>, or fails like the real
// one for an unknown id.
class FakeSqueue {
public:
    explicit FakeSqueue(const fs::path& dir) : m_dir(dir)
    {
        fs::create_directories(dir / "bin");
        const fs::path exe = dir / "bin" / "squeue";
        std::ofstream(exe) << "#!/bin/sh\n"
                              "while [ $# -gt 0 ]; do [ \"$1\" = -j ] && job=$2; shift; done\n"
                              "if [ -f \"$SQUEUE_DIR/$job\" ]; then cat \"$SQUEUE_DIR/$job\"; exit 0; fi\n"
                              "echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1\n";
        fs::permissions(exe, fs::perms::owner_all);
        m_oldPath = std::getenv("PATH") ? std::getenv("PATH") : "";
        setenv("PATH", ((dir / "bin").string() + ":" + m_oldPath).c_str(), 1);
        setenv("SQUEUE_DIR", dir.c_str(), 1);
    }
    ~FakeSqueue() { setenv("PATH", m_oldPath.c_str(), 1); }
    void answer(const std::string& job, const std::string& text) { std::ofstream(m_dir / job) << text; }
    // From now on squeue fails as it does without a controller.
    void silence()
    {
        std::ofstream(m_dir / "bin" / "squeue")
            << "#!/bin/sh\necho 'slurm_load_jobs error: Unable to contact slurm controller' >&2; exit 1\n";
    }

private:
    fs::path m_dir;
    std::string m_oldPath;
};

SlurmRun queuedRun(const testdata::TempDir& tmp)
{
    SlurmRun r;
    r.dir = tmp / "run";
    r.cli = "/bin/true";
    r.model = tmp / "model";
    r.corpus = tmp / "corpus.jsonl";
    r.shards = 3;
    r.runPlanned = 9;
    r.arrayJob = "100";
    r.mergeJob = "101";
    writeSlurmRun(r);
    return r;
}

} // namespace

TEST(SlurmQueue, RunStatusFromTheQueue)
{
    const testdata::TempDir tmp("slurm-queue-test");
    FakeSqueue squeue(tmp / "squeue");
    const SlurmRun r = queuedRun(tmp);
    squeue.answer("100", "100_0|RUNNING|None\n100_1|PENDING|Priority\n100_2|FAILED|NonZeroExitCode\n");
    squeue.answer("101", "101|PENDING|DependencyNeverSatisfied\n");
    const SlurmRunStatus st = readSlurmStatus(r, true);
    ASSERT_TRUE(st.queueKnown);
    ASSERT_EQ(st.shards.size(), 3u);
    EXPECT_EQ(st.shards[0].status, ShardStatus::Running);
    EXPECT_EQ(st.shards[0].job, "100_0");
    ASSERT_TRUE(st.shards[0].jobState);
    EXPECT_EQ(toString(*st.shards[0].jobState), "RUNNING");
    EXPECT_EQ(st.shards[1].status, ShardStatus::Pending);
    EXPECT_EQ(toString(*st.shards[1].jobState), "PENDING (Priority)");
    EXPECT_EQ(st.shards[2].status, ShardStatus::Stopped);
    EXPECT_EQ(toString(*st.shards[2].jobState), "FAILED (NonZeroExitCode)");
    ASSERT_TRUE(st.mergeState);
    EXPECT_EQ(toString(*st.mergeState), "PENDING (DependencyNeverSatisfied)");
    EXPECT_NE(st.hint.find("shard 2 stopped"), std::string::npos) << st.hint;
    EXPECT_TRUE(st.inProgress());

    // `slurm status` prints the same words as squeue, in the fields docs/cli.md names.
    const ProcessResult cli = runProcess({ASCVIZ_CLI_PATH, "slurm", "status", r.dir.string()});
    ASSERT_EQ(cli.exitCode, 0) << cli.err;
    const auto j = nlohmann::json::parse(cli.out);
    ASSERT_EQ(j.at("shards").size(), 3u);
    EXPECT_EQ(j["shards"][0].at("status"), "running");
    EXPECT_EQ(j["shards"][0].at("job"), "100_0");
    EXPECT_EQ(j["shards"][0].at("job_state"), "RUNNING");
    EXPECT_EQ(j["shards"][1].at("status"), "pending");
    EXPECT_EQ(j["shards"][1].at("job_state"), "PENDING (Priority)");
    EXPECT_EQ(j["shards"][2].at("status"), "stopped");
    EXPECT_EQ(j["shards"][2].at("job_state"), "FAILED (NonZeroExitCode)");
    EXPECT_EQ(j.at("merge_job"), "101");
    EXPECT_EQ(j.at("merge_state"), "PENDING (DependencyNeverSatisfied)");
    EXPECT_EQ(j.at("queue_known"), true);
    EXPECT_EQ(j.at("hint"), st.hint);
    EXPECT_NE(cli.err.find("    2       0/3       stopped   100_2 FAILED (NonZeroExitCode)"), std::string::npos)
        << cli.err;

    // No shard stopped (shard 2 requeued), but the merge job can no longer start: the hint says so.
    squeue.answer("100", "100_0|RUNNING|None\n100_1|RUNNING|None\n100_2|REQUEUED|None\n");
    const SlurmRunStatus blocked = readSlurmStatus(r, true);
    EXPECT_EQ(blocked.shards[2].status, ShardStatus::Pending);
    EXPECT_NE(blocked.hint.find("the merge job can no longer start"), std::string::npos) << blocked.hint;
    EXPECT_TRUE(blocked.inProgress()); // the shards still run

    // A merge job the controller has forgotten, and no squeue answer at all.
    fs::remove(tmp / "squeue" / "101");
    EXPECT_FALSE(readSlurmStatus(r, true).mergeState);
    squeue.silence();
    const SlurmRunStatus silent = readSlurmStatus(r, true);
    EXPECT_FALSE(silent.queueKnown);
    EXPECT_EQ(silent.shards[0].status, ShardStatus::Unknown);
    EXPECT_FALSE(silent.shards[0].jobState);
    EXPECT_FALSE(silent.mergeState);
    // Nothing queued can change that picture: --watch returns after its first look.
    const ProcessResult watched = runProcess({ASCVIZ_CLI_PATH, "slurm", "status", r.dir.string(), "--watch", "1"});
    ASSERT_EQ(watched.exitCode, 0) << watched.err;
    const auto w = nlohmann::json::parse(watched.out);
    EXPECT_EQ(w.at("shards")[0].at("status"), "unknown");
    EXPECT_FALSE(w.contains("merge_state"));
}
