// Slurm run folders without a Slurm: the scripts (run by bash with a stand-in ascviz-cli that records its
// arguments), run.json, progress from shard databases, and submission through a stand-in sbatch.
#include "testdata.h"

#include "ascviz/base/error.h"
#include "ascviz/base/process.h"
#include "ascviz/cluster/slurm.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/shards.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace ascviz;
namespace fs = std::filesystem;

namespace {

std::string readAll(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<std::string> lines(const std::string& s)
{
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

void writeExecutable(const fs::path& p, const std::string& text)
{
    std::ofstream(p, std::ios::binary) << text;
    fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
}

// A stand-in for ascviz-cli: writes each argument on its own line to $ARGS_FILE.
void writeRecorder(const fs::path& p)
{
    writeExecutable(p, "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > \"$ARGS_FILE\"\n");
}

SlurmRun sampleRun(const testdata::TempDir& tmp)
{
    SlurmRun r;
    r.dir = tmp / "run dir's"; // a space and a quote: the scripts must pass both through
    r.cli = tmp / "fake cli";
    r.model = tmp / "model's dir";
    r.corpus = tmp / "corpus $HOME.jsonl";
    r.shards = 4;
    r.batchOptions = {"--language", "java", "--limit", "40"};
    r.partition = "gpu";
    r.gres = "gpu:1";
    r.time = "01:00:00";
    r.sbatchExtra = {"--account=lab42", "--qos=normal"};
    r.runPlanned = 40;
    r.corpusFingerprint = "abc";
    return r;
}

ProcessResult bashScript(const fs::path& script, const std::vector<std::pair<std::string, std::string>>& env)
{
    std::vector<std::string> argv{"env"};
    for (const auto& [k, v] : env)
        argv.push_back(k + "=" + v);
    argv.push_back("bash");
    argv.push_back(script.string());
    return runProcess(argv);
}

} // namespace

TEST(SlurmRun, TheBatchScriptRunsTheShardOfItsArrayTask)
{
    const testdata::TempDir tmp("ascviz-slurm-test");
    SlurmRun r = sampleRun(tmp);
    writeRecorder(r.cli);
    writeSlurmRun(r);
    const std::string text = readAll(r.batchScript());
    for (const char* line :
         {"#SBATCH --array=0-3", "#SBATCH --requeue", "#SBATCH --partition=gpu", "#SBATCH --gres=gpu:1",
          "#SBATCH --time=01:00:00", "#SBATCH --account=lab42", "#SBATCH --qos=normal", "#SBATCH --open-mode=append"})
        EXPECT_NE(text.find(std::string(line) + "\n"), std::string::npos) << line << "\n" << text;
    EXPECT_NE(text.find("#SBATCH --output=" + (r.dir / "logs" / "shard-%a.log").string()), std::string::npos);
    // No module loads, nothing site-specific beyond the lines asked for.
    EXPECT_EQ(text.find("module "), std::string::npos);

    const fs::path args = tmp / "args.txt";
    const ProcessResult run = bashScript(r.batchScript(), {{"SLURM_ARRAY_TASK_ID", "2"}, {"ARGS_FILE", args.string()}});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_NE(run.out.find("ascviz: shard 2/4"), std::string::npos) << run.out;
    EXPECT_EQ(lines(readAll(args)),
              (std::vector<std::string>{"batch", "--model", r.model.string(), "--corpus", r.corpus.string(), "--db",
                                        (r.dir / "shards" / "shard-2-of-4.db").string(), "--shard", "2/4", "--resume",
                                        "--language", "java", "--limit", "40"}));
    EXPECT_EQ(r.shardDb(2), r.dir / "shards" / "shard-2-of-4.db");
    // Outside Slurm, ASCVIZ_SHARD picks the shard; with neither, the script refuses to run.
    const ProcessResult byHand = bashScript(r.batchScript(), {{"ASCVIZ_SHARD", "3"}, {"ARGS_FILE", args.string()}});
    ASSERT_EQ(byHand.exitCode, 0) << byHand.err;
    EXPECT_EQ(lines(readAll(args))[8], "3/4");
    const ProcessResult none = bashScript(r.batchScript(), {{"ARGS_FILE", args.string()}});
    EXPECT_NE(none.exitCode, 0);
    EXPECT_NE(none.err.find("not a Slurm array task"), std::string::npos) << none.err;
}

TEST(SlurmRun, TheMergeScriptNamesEveryShard)
{
    const testdata::TempDir tmp("ascviz-slurm-test");
    SlurmRun r = sampleRun(tmp);
    writeRecorder(r.cli);
    writeSlurmRun(r);
    const std::string text = readAll(r.mergeScript());
    EXPECT_EQ(text.find("--gres"), std::string::npos) << "the merge needs no GPU";
    EXPECT_NE(text.find("#SBATCH --partition=gpu\n"), std::string::npos);
    const fs::path args = tmp / "args.txt";
    const ProcessResult run = bashScript(r.mergeScript(), {{"ARGS_FILE", args.string()}});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    std::vector<std::string> want{"merge", "--out", (r.dir / "all.db").string()};
    for (int i = 0; i < 4; ++i)
        want.push_back(r.shardDb(i).string());
    EXPECT_EQ(lines(readAll(args)), want);
}

TEST(SlurmRun, RunFileRoundTripsAndBadFoldersAreRefused)
{
    const testdata::TempDir tmp("ascviz-slurm-test");
    SlurmRun r = sampleRun(tmp);
    r.arrayJob = "17";
    r.mergeJob = "18";
    writeSlurmRun(r);
    const SlurmRun back = readSlurmRun(r.dir);
    EXPECT_EQ(back.dir, r.dir);
    EXPECT_EQ(back.cli, r.cli);
    EXPECT_EQ(back.model, r.model);
    EXPECT_EQ(back.corpus, r.corpus);
    EXPECT_EQ(back.shards, 4);
    EXPECT_EQ(back.batchOptions, r.batchOptions);
    EXPECT_EQ(back.sbatchExtra, r.sbatchExtra);
    EXPECT_EQ(back.runPlanned, 40);
    EXPECT_EQ(back.arrayJob, "17");
    EXPECT_EQ(back.mergeJob, "18");

    // A second run into the same folder is refused (nothing overwritten).
    const std::string before = readAll(r.dir / "run.json");
    EXPECT_THROW(writeSlurmRun(r), InputError);
    EXPECT_EQ(readAll(r.dir / "run.json"), before);

    EXPECT_THROW(readSlurmRun(tmp / "nowhere"), InputError);
    SlurmRun rel = sampleRun(tmp);
    rel.dir = "relative/run";
    EXPECT_THROW(writeSlurmRun(rel), InputError);
    SlurmRun nl = sampleRun(tmp);
    nl.dir = tmp / "nl";
    nl.partition = "a\n#SBATCH --evil";
    EXPECT_THROW(writeSlurmRun(nl), InputError);
    nl.partition.clear();
    nl.sbatchExtra = {"account=abc"};
    EXPECT_THROW(writeSlurmRun(nl), InputError);

    // A run file from a newer AsC-Viz names both versions.
    fs::create_directories(tmp / "newer");
    std::ofstream(tmp / "newer" / "run.json") << R"({"format": "ascviz-slurm-run", "version": 7})";
    try {
        readSlurmRun(tmp / "newer");
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("version 7"), std::string::npos) << e.what();
    }
    // "format" or "version" of another JSON type: an InputError naming the file, not a JSON type error.
    for (const char* text : {R"({"format": ["ascviz-slurm-run"]})", R"({"format": 7})",
                             R"({"format": "ascviz-slurm-run", "version": "1"})", R"([1, 2])"}) {
        fs::create_directories(tmp / "typed");
        std::ofstream(tmp / "typed" / "run.json") << text;
        try {
            readSlurmRun(tmp / "typed");
            ADD_FAILURE() << "no error for " << text;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("run.json"), std::string::npos) << e.what();
        }
    }
}

TEST(SlurmRun, ProgressComesFromTheShardDatabases)
{
    const testdata::TempDir tmp("ascviz-slurm-test");
    SlurmRun r = sampleRun(tmp);
    r.runPlanned = 10; // shards of 3, 3, 2, 2
    writeSlurmRun(r);
    auto makeShard = [&](int i, int stored, const std::string& status) {
        RunInfo info;
        info.modelName = "m";
        info.modelDir = "/m";
        info.corpusPath = "/c";
        info.corpusFingerprint = "abc";
        info.language = "python";
        info.shardIndex = i;
        info.shardCount = 4;
        info.runPlanned = 10;
        info.planned = ShardSpec{i, 4}.planned(10);
        info.status = parseRunStatus(status);
        auto db = ResultsDb::create(r.shardDb(i), info);
        int written = 0;
        for (int64_t k = i; k < 10 && written < stored; k += 4, ++written) {
            SnippetMeta m;
            m.index = k;
            m.id = "s" + std::to_string(k);
            m.code = "x = 1\n";
            m.ok = false;
            m.message = "test row";
            db.writeSnippet(m, nullptr);
        }
    };
    makeShard(0, 3, "complete");
    makeShard(1, 1, "running");
    makeShard(2, 1, "cancelled");
    const SlurmRunStatus st = readSlurmStatus(r, false);
    ASSERT_EQ(st.shards.size(), 4u);
    EXPECT_EQ(toString(st.shards[0].status), "complete");
    EXPECT_EQ(st.shards[0].done, 3);
    EXPECT_EQ(st.shards[0].errors, 3);
    EXPECT_EQ(toString(st.shards[1].status), "running");
    EXPECT_EQ(st.shards[1].done, 1);
    EXPECT_EQ(st.shards[1].planned, 3);
    EXPECT_EQ(toString(st.shards[2].status), "stopped");
    EXPECT_EQ(toString(st.shards[3].status), "unknown");
    EXPECT_EQ(st.shards[3].planned, 2);
    EXPECT_EQ(st.done, 5);
    EXPECT_EQ(st.planned, 10);
    EXPECT_FALSE(st.merged);
    EXPECT_NE(st.hint.find("shard 2 stopped"), std::string::npos) << st.hint;
    EXPECT_NE(st.hint.find("slurm resume"), std::string::npos) << st.hint;
}

TEST(SlurmRun, SubmitPassesTheArrayJobToTheMergeDependency)
{
    const testdata::TempDir tmp("ascviz-slurm-test");
    // A stand-in sbatch on PATH: records its arguments and answers like `sbatch --parsable` (ids 100, 101).
    fs::create_directories(tmp / "bin");
    writeExecutable(tmp / "bin" / "sbatch",
                    "#!/bin/sh\nn=$(cat \"$SBATCH_LOG.n\" 2>/dev/null || echo 100)\necho \"$@\" >> \"$SBATCH_LOG\"\n"
                    "echo $((n + 1)) > \"$SBATCH_LOG.n\"\necho \"$n;cluster\"\n");
    const std::string oldPath = std::getenv("PATH") ? std::getenv("PATH") : "";
    setenv("PATH", ((tmp / "bin").string() + ":" + oldPath).c_str(), 1);
    setenv("SBATCH_LOG", (tmp / "sbatch.log").c_str(), 1);
    SlurmRun r = sampleRun(tmp);
    writeSlurmRun(r);
    submitSlurmRun(r);
    setenv("PATH", oldPath.c_str(), 1);
    EXPECT_EQ(r.arrayJob, "100");
    EXPECT_EQ(r.mergeJob, "101");
    const auto calls = lines(readAll(tmp / "sbatch.log"));
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_EQ(calls[0], "--parsable " + r.batchScript().string());
    EXPECT_EQ(calls[1], "--parsable --dependency=afterok:100 " + r.mergeScript().string());
    EXPECT_EQ(readSlurmRun(r.dir).mergeJob, "101");

    // A failing sbatch is an error carrying its message.
    writeExecutable(tmp / "bin" / "sbatch", "#!/bin/sh\necho 'sbatch: error: invalid partition' >&2\nexit 1\n");
    setenv("PATH", ((tmp / "bin").string() + ":" + oldPath).c_str(), 1);
    SlurmRun again = sampleRun(tmp);
    again.dir = tmp / "again";
    writeSlurmRun(again);
    try {
        submitSlurmRun(again);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("invalid partition"), std::string::npos) << e.what();
    }
    setenv("PATH", oldPath.c_str(), 1);
}

TEST(SlurmRun, RunProgramCapturesBothStreamsAndTheStatus)
{
    const ProcessResult r = runProcess({"sh", "-c", "echo out; echo err >&2; exit 3"});
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_EQ(r.out, "out\n");
    EXPECT_EQ(r.err, "err\n");
    const ProcessResult missing = runProcess({"ascviz-no-such-program-xyz"});
    EXPECT_EQ(missing.exitCode, -1);
    // More output than a pipe buffer holds, on both streams at once.
    const ProcessResult big = runProcess({"sh", "-c", "head -c 300000 /dev/zero; head -c 200000 /dev/zero >&2"});
    EXPECT_EQ(big.exitCode, 0);
    EXPECT_EQ(big.out.size(), 300000u);
    EXPECT_EQ(big.err.size(), 200000u);
}
