// The heads run database (results/headsdb.h, issue 40): created whole or not at all, one text per transaction,
// read back in the order written, its kind told by runKindOf, its shards merged by mergeRuns (every shard once,
// each complete, no text twice, nothing written otherwise), and a write that fails (a file size limit) is an
// error that keeps every text stored before it.
#include "ascviz/base/error.h"
#include "ascviz/results/headsdb.h"
#include "ascviz/results/runkind.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ascviz;
namespace fs = std::filesystem;

namespace {

std::map<std::string, std::string> settings(const std::string& shard, int planned)
{
    return {{"model", "m"},  {"language", "python"}, {"metric", "first"}, {"corpus", "c"},
            {"layers", "1"}, {"max_k", "3"},         {"shard", shard},    {"planned", std::to_string(planned)}};
}

fs::path shardDb(const fs::path& dir, const std::string& file, const std::string& shard,
                 const std::vector<std::string>& ids, int planned = -1)
{
    const auto p = dir / file;
    const HeadsDb db = HeadsDb::create(p, settings(shard, planned < 0 ? static_cast<int>(ids.size()) : planned));
    for (const auto& id : ids)
        db.insert(id, "{\"id\":\"" + id + "\"}");
    return p;
}

std::string errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no InputError)";
}

} // namespace

TEST(HeadsDb, CreateInsertAndReadBack)
{
    const testdata::TempDir dir("headsdb");
    const auto p = shardDb(dir.path(), "run.db", "", {"b", "a"});
    EXPECT_TRUE(HeadsDb::isHeadsDb(p));
    EXPECT_EQ(runKindOf(p), RunKind::Heads);
    EXPECT_EQ(toString(RunKind::Heads), "heads");
    const HeadsDb db = HeadsDb::open(p);
    EXPECT_EQ(db.meta().at("schema_version"), "1");
    EXPECT_EQ(db.meta().at("model"), "m");
    EXPECT_EQ(db.count(), 2);
    EXPECT_EQ(db.ids(), (std::set<std::string>{"a", "b"}));
    std::vector<std::string> order;
    db.forEachRecord([&](const std::string& id, const std::string& rec) {
        order.push_back(id);
        EXPECT_EQ(rec, "{\"id\":\"" + id + "\"}");
    });
    EXPECT_EQ(order, (std::vector<std::string>{"b", "a"})); // the order written
    EXPECT_NE(errorOf([&] { HeadsDb::create(p, settings("", 1)); }).find(p.string() + " exists"), std::string::npos);
    EXPECT_THROW(db.insert("a", "{}"), Error); // read-only here; and a text once
    const HeadsDb rw = HeadsDb::open(p, true);
    EXPECT_THROW(rw.insert("a", "{}"), Error);
    EXPECT_EQ(rw.count(), 2);

    // Other files are not heads runs: a text file, a missing one.
    const auto text = dir.path() / "p.jsonl";
    std::ofstream(text) << "{\"kind\":\"ascviz-heads-partial\"}\n";
    EXPECT_FALSE(HeadsDb::isHeadsDb(text));
    EXPECT_FALSE(HeadsDb::isHeadsDb(dir.path() / "missing.db"));
    EXPECT_NE(errorOf([&] { HeadsDb::open(dir.path() / "missing.db"); }).find("does not exist"), std::string::npos);
}

TEST(HeadsDb, OneMergeJoinsCompleteShardsAndRefusesTheRest)
{
    const testdata::TempDir dir("headsdb-merge");
    const auto s0 = shardDb(dir.path(), "s0.db", "0/2", {"a", "c"});
    const auto s1 = shardDb(dir.path(), "s1.db", "1/2", {"b"});
    const auto out = dir.path() / "all.db";
    const RunMergeReport r = mergeRuns(out, {s0, s1});
    EXPECT_EQ(r.kind, RunKind::Heads);
    EXPECT_EQ(r.merged.shards, 2);
    EXPECT_EQ(r.merged.snippets, 3);
    const HeadsDb all = HeadsDb::open(out);
    EXPECT_EQ(all.ids(), (std::set<std::string>{"a", "b", "c"}));
    EXPECT_EQ(all.meta().at("shard"), ""); // reads as the whole run's
    EXPECT_EQ(all.meta().at("planned"), "3");

    const auto none = dir.path() / "none.db";
    EXPECT_NE(errorOf([&] { mergeRuns(none, {s0}); }).find("shard 1/2 is missing"), std::string::npos);
    const auto cut = shardDb(dir.path(), "cut.db", "1/2", {"b"}, 2);
    EXPECT_NE(errorOf([&] { mergeRuns(none, {s0, cut}); }).find("is incomplete (1 of 2 texts)"), std::string::npos);
    const auto twice = shardDb(dir.path(), "twice.db", "1/2", {"a"});
    EXPECT_NE(errorOf([&] { mergeRuns(none, {s0, twice}); }).find("text a is in both"), std::string::npos);
    auto other = settings("1/2", 1);
    other["model"] = "n";
    const auto o = dir.path() / "other.db";
    HeadsDb::create(o, other).insert("b", "{}");
    EXPECT_NE(errorOf([&] {
                  mergeRuns(none, {s0, o});
              }).find("its model is 'n', the first shard's 'm'"),
              std::string::npos);
    EXPECT_FALSE(fs::exists(none));
}

// A file size limit (ulimit -f, SIGXFSZ ignored) makes a write fail part-way through the run: the insert throws
// (the run must not go on as if the text were kept), and the database holds every text stored before it.
TEST(HeadsDb, AFailedWriteIsAnErrorAndKeepsTheTextsBeforeIt)
{
    const testdata::TempDir dir("headsdb-limit");
    const auto p = dir.path() / "limited.db";
    HeadsDb::create(p, settings("", 100));
    const auto size = fs::file_size(p);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        const rlim_t cap = static_cast<rlim_t>(size + 64 * 1024);
        const rlimit lim{cap, cap};
        setrlimit(RLIMIT_FSIZE, &lim);
        int stored = 0;
        try {
            const HeadsDb db = HeadsDb::open(p, true);
            for (; stored < 100; ++stored)
                db.insert("t" + std::to_string(stored), std::string(3000, 'x'));
        } catch (const Error&) {
            _exit(stored > 0 && stored < 100 ? 3 : 4);
        }
        _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 3);
    const HeadsDb db = HeadsDb::open(p, true);
    const int kept = db.count();
    EXPECT_GT(kept, 0);
    EXPECT_LT(kept, 100);
    db.insert("t" + std::to_string(kept), "{}"); // the next text goes on where the failed one stopped
    EXPECT_EQ(db.count(), kept + 1);
}

// Issue 54: a killed merge left OUT.merging-PID (+ -wal/-shm) behind. The next merge to the same file removes the
// temporary files of writers that have died, and leaves a living process's alone.
TEST(HeadsDb, AMergeRemovesTheTemporaryFilesOfAKilledMerge)
{
    const testdata::TempDir dir("headsdb-orphans");
    const auto s0 = shardDb(dir.path(), "s0.db", "0/2", {"a", "c"});
    const auto s1 = shardDb(dir.path(), "s1.db", "1/2", {"b"});
    const auto out = dir.path() / "all.db";
    const pid_t dead = ::fork();
    if (dead == 0)
        ::_exit(0);
    ASSERT_GT(dead, 0);
    ::waitpid(dead, nullptr, 0); // reaped: no process has this id now
    const std::string stem = out.string() + ".merging-";
    for (const std::string& f :
         {stem + std::to_string(dead), stem + std::to_string(dead) + "-wal", stem + std::to_string(dead) + "-shm"})
        std::ofstream(f) << "left by a killed merge";
    const std::string living = stem + std::to_string(::getppid()); // the test's parent: alive
    std::ofstream(living) << "another merge in progress";
    const RunMergeReport r = mergeRuns(out, {s0, s1});
    EXPECT_EQ(r.merged.snippets, 3);
    EXPECT_FALSE(fs::exists(stem + std::to_string(dead)));
    EXPECT_FALSE(fs::exists(stem + std::to_string(dead) + "-wal"));
    EXPECT_FALSE(fs::exists(stem + std::to_string(dead) + "-shm"));
    EXPECT_TRUE(fs::exists(living)) << "a living process's temporary file was removed";
}
