// Faults during a batch, through the real ascviz-cli (tiny fixture model, so kills land in every phase:
// loading, scoring, evaluation and database writes): SIGKILL at random moments then --resume, a full disk
// (a file size limit), a read-only database, a database locked by another process and a second batch on
// the same file, and reports taken while a run writes. After each fault the database opens, passes
// SQLite's integrity check, holds only whole snippets, and a resumed run ends equal to an uninterrupted one:
// no snippet lost or duplicated.
#include "cli_runner.h"
#include "dbcontent.h"

#include "ascviz/base/process.h"
#include "ascviz/results/resultsdb.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

extern char** environ;

using namespace ascviz;
namespace fs = std::filesystem;

namespace {

std::string tinyModel()
{
    return (testdata::fixtureModel("tiny-gpt2")).string();
}

// A corpus of the first n entries of the bundled sample.
fs::path corpusOf(const testdata::TempDir& tmp, int n)
{
    std::ifstream in(testdata::resourcesDir() / "corpus" / "stdlib-functions.jsonl");
    const fs::path p = tmp / ("c" + std::to_string(n) + ".jsonl");
    std::ofstream out(p);
    std::string line;
    for (int i = 0; i < n && std::getline(in, line); ++i)
        out << line << '\n';
    return p;
}

// The first `n` corpus entries `copies` times over, each copy's ids made unique: a run long enough for the
// concurrent-report test however fast the build scores.
fs::path corpusRepeated(const testdata::TempDir& tmp, int n, int copies)
{
    const fs::path p = tmp / ("r" + std::to_string(n) + "x" + std::to_string(copies) + ".jsonl");
    std::ofstream out(p);
    for (int c = 0; c < copies; ++c) {
        std::ifstream in(testdata::resourcesDir() / "corpus" / "stdlib-functions.jsonl");
        std::string line;
        for (int i = 0; i < n && std::getline(in, line); ++i) {
            auto j = nlohmann::json::parse(line);
            j["id"] = j.at("id").get<std::string>() + "-copy" + std::to_string(c);
            out << j.dump() << '\n';
        }
    }
    return p;
}

std::vector<std::string> batchArgs(const fs::path& corpus, const fs::path& db, bool resume)
{
    std::vector<std::string> a{ASCVIZ_CLI_PATH, "batch",     "--model", tinyModel(), "--corpus", corpus.string(),
                               "--db",          db.string(), "--quiet", "--threads", "1"};
    if (resume)
        a.push_back("--resume");
    return a;
}

// Starts argv with stdout/stderr into files; returns the pid.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& errFile)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc == 0 ? pid : -1;
}

std::vector<std::vector<std::string>> content(const fs::path& p)
{
    return testdata::dbContent(p);
}
std::vector<std::string> dump(const ResultsDb& db, const std::string& sql)
{
    return testdata::dumpRows(db, sql);
}

std::string one(const ResultsDb& db, const std::string& sql)
{
    const auto rows = dump(db, sql);
    return rows.empty() ? std::string() : rows.front().substr(0, rows.front().size() - 1);
}

// The database after a fault: opens, passes the integrity check, and every stored snippet is whole (its
// token and node rows all present). Returns the number of snippets stored.
int64_t checkConsistent(const fs::path& p)
{
    const auto db = ResultsDb::open(p);
    EXPECT_EQ(one(db, "PRAGMA integrity_check"), "ok");
    EXPECT_EQ(one(db, "SELECT COUNT(*) FROM snippets s WHERE status = 'ok' AND tokens != "
                      "(SELECT COUNT(*) FROM tokens t WHERE t.snippet = s.idx)"),
              "0")
        << "a snippet with missing tokens";
    EXPECT_EQ(one(db, "SELECT COUNT(*) FROM snippets s WHERE status = 'ok' AND ast_nodes > "
                      "(SELECT COUNT(*) FROM nodes n WHERE n.snippet = s.idx)"),
              "0")
        << "a snippet with missing nodes";
    EXPECT_EQ(one(db, "SELECT COUNT(*) FROM tokens WHERE snippet NOT IN (SELECT idx FROM snippets)"), "0");
    return std::stoll(one(db, "SELECT COUNT(*) FROM snippets"));
}

std::string lastLine(const std::string& s)
{
    const auto end = s.find_last_not_of('\n');
    if (end == std::string::npos)
        return {};
    const auto start = s.rfind('\n', end);
    return s.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

int waitExit(pid_t pid)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Runs `batch --resume` to its end (no fault).
void finish(const fs::path& corpus, const fs::path& db, const testdata::TempDir& tmp)
{
    const pid_t pid = spawn(batchArgs(corpus, db, true), tmp / "finish.err");
    ASSERT_GT(pid, 0);
    ASSERT_EQ(waitExit(pid), 0) << clitest::readAll(tmp / "finish.err");
}

class BatchFaults : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        s_tmp = new testdata::TempDir("ascviz-faults-test");
        ::chmod(s_tmp->path().c_str(), 0755); // the read-only test runs the CLI as another user
        s_corpus = corpusOf(*s_tmp, kSnippets);
        const pid_t pid = spawn(batchArgs(s_corpus, *s_tmp / "reference.db", false), *s_tmp / "ref.err");
        ASSERT_EQ(waitExit(pid), 0) << clitest::readAll(*s_tmp / "ref.err");
    }
    static void TearDownTestSuite() { delete s_tmp; }
    static fs::path path(const std::string& name) { return *s_tmp / name; }

    static constexpr int kSnippets = 300;
    static testdata::TempDir* s_tmp;
    static fs::path s_corpus;
};
testdata::TempDir* BatchFaults::s_tmp = nullptr;
fs::path BatchFaults::s_corpus;

} // namespace

TEST_F(BatchFaults, SigkillAtRandomMomentsThenResumeLosesNothing)
{
    // A corpus of its own, twice the others' size, so that twelve starts do not reach its end.
    const fs::path corpus = corpusOf(*s_tmp, 2 * kSnippets);
    const fs::path reference = path("reference-600.db");
    ASSERT_EQ(waitExit(spawn(batchArgs(corpus, reference, false), path("ref600.err"))), 0)
        << clitest::readAll(path("ref600.err"));
    const fs::path db = path("killed.db");
    // The first start is killed as soon as the database appears; its start-up time T0 (reading the corpus,
    // loading the model) sets the range of the later, random delays: [0.8 T0, T0 + extra], so that kills
    // land in start-up as well as in scoring, evaluation and database writes.
    int t0 = 0;
    {
        const auto start = std::chrono::steady_clock::now();
        const pid_t pid = spawn(batchArgs(corpus, db, true), path("kill.err"));
        ASSERT_GT(pid, 0);
        while (!fs::exists(db) && std::chrono::steady_clock::now() - start < std::chrono::seconds(60))
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        ::kill(pid, SIGKILL);
        waitExit(pid);
        t0 = static_cast<int>(
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count());
    }
    std::mt19937 rng(20261123);
    // The window past start-up adapts to the build's speed: halved after a start that stored more than 40
    // snippets, widened after one killed before it stored any, so that twelve kills fit in the run.
    int extra = 300;
    int kills = 1, starts = 1;
    int64_t before = fs::exists(db) ? checkConsistent(db) : 0;
    std::string log = " " + std::to_string(t0) + "ms:" + std::to_string(before);
    while (kills < 12 && starts < 40) {
        ++starts;
        const int delay = std::uniform_int_distribution<int>(t0 * 4 / 5, t0 + extra)(rng);
        const pid_t pid = spawn(batchArgs(corpus, db, true), path("kill.err"));
        ASSERT_GT(pid, 0);
        std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid)
            break; // finished before the kill
        ::kill(pid, SIGKILL);
        waitExit(pid);
        ++kills;
        const int64_t now = checkConsistent(db);
        EXPECT_GE(now, before) << "snippets lost after kill " << kills;
        if (now - before > 40)
            extra = std::max(50, extra / 2);
        else if (now == before)
            extra += 150;
        log += " " + std::to_string(delay) + "ms:" + std::to_string(now);
        before = now;
    }
    EXPECT_GE(kills, 10) << "the run ended before ten kills:" << log;
    finish(corpus, db, *s_tmp);
    EXPECT_EQ(checkConsistent(db), 2 * kSnippets);
    EXPECT_EQ(content(db), content(reference));
    std::cout << "batch faults: " << kills << " SIGKILLs (delay after start:snippets stored)" << log
              << "; after --resume " << 2 * kSnippets << "/" << 2 * kSnippets
              << " snippets, equal to the uninterrupted run: lost 0, duplicated 0\n";
}

TEST_F(BatchFaults, FullDiskStopsWithAdviceAndResumeCompletes)
{
    // A file size limit stands in for a full disk: writes fail with EFBIG (ascviz-cli ignores SIGXFSZ).
    const fs::path db = path("full.db");
    auto args = batchArgs(s_corpus, db, false);
    args.insert(args.begin(), {"prlimit", "--fsize=600000"});
    const pid_t pid = spawn(args, path("full.err"));
    ASSERT_GT(pid, 0);
    EXPECT_EQ(waitExit(pid), 1);
    const std::string err = clitest::readAll(path("full.err"));
    EXPECT_NE(err.find("--resume"), std::string::npos) << err;
    EXPECT_NE(err.find("file size limit"), std::string::npos) << err;
    const int64_t stored = checkConsistent(db);
    EXPECT_GT(stored, 0);
    EXPECT_LT(stored, kSnippets);
    finish(s_corpus, db, *s_tmp);
    EXPECT_EQ(content(db), content(path("reference.db")));
    std::cout << "batch faults: file size limit 600000 bytes after " << stored << " snippets: " << lastLine(err)
              << "\n";
}

TEST_F(BatchFaults, ReadOnlyDatabaseIsAClearErrorAndStaysIntact)
{
    const fs::path dir = path("ro");
    fs::create_directories(dir);
    const fs::path db = dir / "ro.db";
    {
        auto args = batchArgs(s_corpus, db, false);
        args.insert(args.end(), {"--limit", "5"});
        const pid_t pid = spawn(args, path("ro0.err"));
        ASSERT_EQ(waitExit(pid), 0) << clitest::readAll(path("ro0.err"));
    }
    ::chmod(db.c_str(), 0444);
    ::chmod(dir.c_str(), 0555);
    auto args = batchArgs(s_corpus, db, true);
    if (::geteuid() == 0) // root writes anything: run as nobody
        args.insert(args.begin(), {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
    const pid_t pid = spawn(args, path("ro.err"));
    ASSERT_GT(pid, 0);
    EXPECT_EQ(waitExit(pid), 1);
    const std::string err = clitest::readAll(path("ro.err"));
    EXPECT_NE(err.find("not writable"), std::string::npos) << err;
    ::chmod(dir.c_str(), 0755);
    ::chmod(db.c_str(), 0644);
    EXPECT_EQ(checkConsistent(db), 5);
    std::cout << "batch faults: read-only: " << lastLine(err) << "\n";
}

TEST_F(BatchFaults, LockedDatabaseAndASecondBatchAreClearErrors)
{
    const fs::path db = path("locked.db");
    {
        auto args = batchArgs(s_corpus, db, false);
        args.insert(args.end(), {"--limit", "5"});
        ASSERT_EQ(waitExit(spawn(args, path("l0.err"))), 0) << clitest::readAll(path("l0.err"));
    }
    {
        // Another process (this test) holds a write transaction open.
        sqlite::OpenOptions rw;
        rw.mode = sqlite::OpenMode::ReadWrite;
        const auto holder = sqlite::Db::open(db, rw);
        holder.exec("BEGIN IMMEDIATE", "holding the write lock");
        const pid_t pid = spawn(batchArgs(s_corpus, db, true), path("locked.err"));
        EXPECT_EQ(waitExit(pid), 1);
        const std::string err = clitest::readAll(path("locked.err"));
        EXPECT_NE(err.find("in use by another process"), std::string::npos) << err;
        holder.exec("ROLLBACK", "releasing the write lock");
        std::cout << "batch faults: locked: " << lastLine(err) << "\n";
    }
    EXPECT_EQ(checkConsistent(db), 5);

    // Two batches on one file: the second stops at once; the first finishes alone.
    const pid_t first = spawn(batchArgs(s_corpus, db, true), path("first.err"));
    // Wait until the first one holds the file (it has stored a snippet more).
    for (int i = 0; i < 200 && checkConsistent(db) <= 5; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const pid_t second = spawn(batchArgs(s_corpus, db, true), path("second.err"));
    const int secondExit = waitExit(second);
    const int firstExit = waitExit(first);
    EXPECT_EQ(firstExit, 0) << clitest::readAll(path("first.err"));
    EXPECT_EQ(secondExit, 1);
    const std::string err = clitest::readAll(path("second.err"));
    EXPECT_NE(err.find("being written by another batch"), std::string::npos) << err;
    EXPECT_EQ(content(db), content(path("reference.db")));
}

TEST_F(BatchFaults, ReportsWhileARunWritesSeeConsistentSnapshots)
{
    // A run of its own, six times the others' size (the tiny model scores 300 snippets in under a second on a
    // fast build, too short for several reports), with its own reference.
    constexpr int kCopies = 6;
    const fs::path corpus = corpusRepeated(*s_tmp, kSnippets, kCopies);
    ASSERT_EQ(waitExit(spawn(batchArgs(corpus, path("live-reference.db"), false), path("live-ref.err"))), 0)
        << clitest::readAll(path("live-ref.err"));
    const fs::path db = path("live.db");
    const pid_t pid = spawn(batchArgs(corpus, db, false), path("live.err"));
    ASSERT_GT(pid, 0);
    int reports = 0;
    int64_t last = 0;
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (!fs::exists(db)) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            continue;
        }
        const ProcessResult r =
            runProcess({ASCVIZ_CLI_PATH, "report", "--db", db.string(), "--json", "--resamples", "20"});
        if (r.exitCode != 0 && (r.err.find("the run row is missing") != std::string::npos ||
                                r.err.find("not an AsC-Viz results database") != std::string::npos))
            continue; // the file exists a moment before its first transaction commits
        ASSERT_EQ(r.exitCode, 0) << r.err;
        const auto j = nlohmann::json::parse(r.out);
        const int64_t n = j.at("snippets").get<int64_t>();
        EXPECT_GE(n, last);
        EXPECT_LE(n, kCopies * kSnippets);
        last = n;
        ++reports;
    }
    EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0) << clitest::readAll(path("live.err"));
    EXPECT_GE(reports, 3) << "too few reports during the run";
    EXPECT_EQ(content(db), content(path("live-reference.db")));
    std::cout << "batch faults: " << reports << " reports taken while the run wrote, all consistent\n";
}
