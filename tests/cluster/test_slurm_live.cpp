// Scale-out on a real Slurm (ctest label `slurm`; the fixture slurm_start brings up a one-machine cluster
// with packaging/slurm-local.sh and slurm_stop stops its daemons by pid, also when this test fails).
//
// A 4-shard run of a 40-snippet corpus through `ascviz-cli slurm submit`; one array task cancelled mid-run
// with scancel and requeued; `slurm resume` replaces the merge job whose afterok dependency the
// cancellation broke; the merged database equals a single-machine `batch` of the same corpus.
#include "dbcontent.h"
#include "testdata.h"

#include "ascviz/base/process.h"
#include "ascviz/cluster/slurm.h"
#include "ascviz/results/resultsdb.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

using namespace ascviz;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<std::vector<std::string>> content(const fs::path& p)
{
    return testdata::dbContent(p);
}

ProcessResult cli(std::vector<std::string> args)
{
    args.insert(args.begin(), ASCVIZ_CLI_PATH);
    return runProcess(args);
}

std::string readAll(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string slurmLogs(const fs::path& run)
{
    std::string all;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(run / "logs", ec))
        all += "--- " + e.path().filename().string() + "\n" + readAll(e.path());
    return all;
}

} // namespace

TEST(SlurmLive, CancelledAndRequeuedShardThenMergedEqualsSingleMachineRun)
{
    ASSERT_NE(std::getenv("SLURM_CONF"), nullptr) << "run through ctest (the slurm_start fixture sets SLURM_CONF)";
    const ProcessResult sinfo = runProcess({"sinfo", "-h", "-o", "%T"});
    ASSERT_EQ(sinfo.exitCode, 0) << sinfo.err;

    const testdata::TempDir tmp("ascviz-slurm-live");
    // 40 snippets of the bundled sample.
    {
        std::ifstream in(testdata::resourcesDir() / "corpus" / "stdlib-functions.jsonl");
        std::ofstream out(tmp / "c40.jsonl");
        std::string line;
        for (int i = 0; i < 40 && std::getline(in, line); ++i)
            out << line << '\n';
    }
    const std::string corpus = (tmp / "c40.jsonl").string();
    const fs::path runDir = tmp / "run";

    const ProcessResult submit =
        cli({"slurm", "submit", "--corpus", corpus, "--shards", "4", "--out", runDir.string(), "--threads", "1"});
    ASSERT_EQ(submit.exitCode, 0) << submit.err;
    const auto sub = nlohmann::json::parse(submit.out);
    const std::string arrayJob = sub.at("array_job").get<std::string>();
    const std::string firstMerge = sub.at("merge_job").get<std::string>();
    EXPECT_EQ(sub.at("dir").get<std::string>(), fs::weakly_canonical(runDir).string());

    // Cancel a shard mid-run: the first one seen with some but not all of its snippets stored.
    const SlurmRun run = readSlurmRun(runDir);
    int victim = -1;
    const auto deadline = Clock::now() + std::chrono::seconds(240);
    bool allDone = false;
    while (victim < 0 && !allDone && Clock::now() < deadline) {
        const SlurmRunStatus st = readSlurmStatus(run, true);
        for (const auto& s : st.shards)
            if (toString(s.status) == "running" && s.done >= 1 && s.done + 2 <= s.planned) {
                victim = s.shard;
                break;
            }
        allDone = st.done == st.planned;
        if (victim < 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_GE(victim, 0) << "no shard caught mid-run\n" << slurmLogs(runDir);
    const std::string task = arrayJob + "_" + std::to_string(victim);
    ASSERT_EQ(runProcess({"scancel", task}).exitCode, 0);

    // Wait until the task has ended; its shard database holds what it stored, no more.
    SlurmRunStatus st;
    while (Clock::now() < deadline) {
        st = readSlurmStatus(run, true);
        if (toString(st.shards[static_cast<std::size_t>(victim)].status) == "stopped")
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    const ShardProgress cut = st.shards[static_cast<std::size_t>(victim)];
    ASSERT_EQ(toString(cut.status), "stopped") << (cut.jobState ? toString(*cut.jobState) : "");
    EXPECT_LT(cut.done, cut.planned);
    EXPECT_NE(st.hint.find("slurm resume"), std::string::npos) << st.hint;

    // Requeue it (Slurm holds a requeued job for ~2 min by default; StartTime=now lets it go at once).
    const ProcessResult rq = runProcess({"scontrol", "requeue", task});
    ASSERT_EQ(rq.exitCode, 0) << rq.err;
    const ProcessResult now = runProcess({"scontrol", "update", "JobId=" + task, "StartTime=now"});
    EXPECT_EQ(now.exitCode, 0) << now.err;

    // The single-machine reference, while the cluster goes on.
    const ProcessResult single =
        cli({"batch", "--corpus", corpus, "--db", (tmp / "single.db").string(), "--quiet", "--threads", "1"});
    ASSERT_EQ(single.exitCode, 0) << single.err;

    // The cancellation broke the first merge job's afterok; resume replaces it.
    const ProcessResult resume = cli({"slurm", "resume", runDir.string()});
    ASSERT_EQ(resume.exitCode, 0) << resume.err;
    const auto res = nlohmann::json::parse(resume.out);
    EXPECT_EQ(res.at("resubmitted").size(), 0u) << "the requeued task is still queued: " << resume.out;
    EXPECT_EQ(res.at("cancelled_merge_job").get<std::string>(), firstMerge);
    const std::string merge = res.at("merge_job").get<std::string>();
    EXPECT_NE(merge, firstMerge);

    // Watch to the end (the CLI's --watch returns when merged or when nothing queued could change).
    const ProcessResult watched = cli({"slurm", "status", runDir.string(), "--watch", "2"});
    ASSERT_EQ(watched.exitCode, 0) << watched.err;
    const auto fin = nlohmann::json::parse(watched.out);
    ASSERT_TRUE(fin.at("merged").get<bool>()) << watched.out << "\n" << watched.err << "\n" << slurmLogs(runDir);
    EXPECT_EQ(fin.at("done").get<int>(), 40);
    ASSERT_EQ(fin.at("shards").size(), 4u);
    for (const auto& s : fin.at("shards")) {
        EXPECT_EQ(s.at("status").get<std::string>(), "complete") << s.dump();
        EXPECT_EQ(s.at("done").get<int>(), s.at("planned").get<int>());
    }

    // The merge job's database equals the single-machine run: same snippets once each, same values.
    EXPECT_EQ(content(run.mergedDb()), content(tmp / "single.db"));
    const RunInfo merged = ResultsDb::open(run.mergedDb()).runInfo();
    EXPECT_EQ(merged.status, RunStatus::Complete);
    EXPECT_EQ(merged.planned, 40);
    // The requeued task continued its shard: its log shows the restart and the snippets it found stored.
    const std::string log = readAll(runDir / "logs" / ("shard-" + std::to_string(victim) + ".log"));
    EXPECT_NE(log.find("restart 1"), std::string::npos) << log;
    EXPECT_NE(log.find("(" + std::to_string(cut.done) + " already in the DB)"), std::string::npos) << log;
    // `report` works on the merged database.
    const ProcessResult report = cli({"report", "--db", run.mergedDb().string(), "--json"});
    ASSERT_EQ(report.exitCode, 0) << report.err;
    EXPECT_EQ(nlohmann::json::parse(report.out).at("snippets").get<int>(), 40);
}
