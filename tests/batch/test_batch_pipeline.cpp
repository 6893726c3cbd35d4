// The batch runner's parts (core/src/batch): the engine's progress clock (corpusrun) with batch's options, pause and
// cancel through the whole runner on both of its thread arrangements, and the remedies its errors carry.
#include "ascviz/base/error.h"
#include "ascviz/batch/batch.h"
#include "ascviz/corpusrun/engine.h"
#include "dbcontent.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace ascviz;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

struct Recorder {
    std::vector<BatchProgress> seen;
    void attach(BatchOptions& opts)
    {
        opts.progress = [this](const BatchProgress& p) { seen.push_back(p); };
    }
};

// Sets `flag` to `value` after `delay`, on its own thread (joined by the destructor).
class Later {
public:
    Later(std::atomic<bool>& flag, bool value, std::chrono::milliseconds delay)
        : m_t([&flag, value, delay] {
              std::this_thread::sleep_for(delay);
              flag = value;
          })
    {
    }
    ~Later() { m_t.join(); }

private:
    std::thread m_t;
};

} // namespace

TEST(ProgressClock, RatesAndEtaFromTheWorkOfThisCall)
{
    BatchOptions opts;
    Recorder rec;
    rec.attach(opts);
    ProgressClock clock(opts, 10, 4);
    clock.emit({});
    ASSERT_EQ(rec.seen.size(), 1u);
    EXPECT_EQ(rec.seen[0].done, 4);
    EXPECT_EQ(rec.seen[0].resumed, 4);
    EXPECT_EQ(rec.seen[0].total, 10);
    EXPECT_EQ(rec.seen[0].snippetsPerSecond, 0);
    EXPECT_EQ(rec.seen[0].etaSeconds, -1); // nothing stored in this call yet: unknown

    std::this_thread::sleep_for(50ms);
    clock.progress().done = 6;
    clock.progress().tokens = 100;
    clock.emit("snippet-6");
    const BatchProgress& p = rec.seen.at(1);
    EXPECT_EQ(p.currentId, "snippet-6");
    EXPECT_GE(p.elapsed, 0.05);
    EXPECT_DOUBLE_EQ(p.snippetsPerSecond, 2 / p.elapsed); // the 4 resumed ones do not count
    EXPECT_DOUBLE_EQ(p.tokensPerSecond, 100 / p.elapsed);
    EXPECT_DOUBLE_EQ(p.etaSeconds, 4 / p.snippetsPerSecond);

    clock.progress().done = 10;
    clock.emit("last");
    EXPECT_EQ(rec.seen.at(2).etaSeconds, 0);
}

// A clock of 5 snippets whose run starts paused.
class PausedClock : public ::testing::Test {
protected:
    PausedClock()
    {
        opts.pause = &pause;
        opts.cancel = &cancel;
        rec.attach(opts);
    }
    std::atomic<bool> pause{true}, cancel{false};
    BatchOptions opts;
    Recorder rec;
    ProgressClock clock{opts, 5, 0}; // after opts: it keeps a reference to them
};

TEST_F(PausedClock, PausedTimeIsNotWork)
{
    {
        Later release(pause, false, 300ms);
        EXPECT_TRUE(clock.waitWhilePaused());
    }
    ASSERT_EQ(rec.seen.size(), 2u); // the pause, and the end of it
    EXPECT_TRUE(rec.seen[0].paused);
    EXPECT_FALSE(rec.seen[1].paused);
    EXPECT_LT(clock.worked(), 0.2);       // 300 ms paused, not counted
    EXPECT_TRUE(clock.waitWhilePaused()); // not paused: returns at once, reports nothing
    EXPECT_EQ(rec.seen.size(), 2u);
}

TEST_F(PausedClock, ACancelEndsThePause)
{
    {
        Later stop(cancel, true, 100ms);
        EXPECT_FALSE(clock.waitWhilePaused());
    }
    ASSERT_EQ(rec.seen.size(), 1u); // the pause only: no "resumed" report after a cancel
    EXPECT_TRUE(rec.seen[0].paused);
    pause = false;
    EXPECT_FALSE(clock.waitWhilePaused()); // cancelled and not paused
    EXPECT_TRUE(opts.cancelRequested());
    EXPECT_FALSE(opts.pauseRequested());
}

class BatchPipeline : public ::testing::Test {
protected:
    static std::unique_ptr<LanguageModel> load(int threads)
    {
        LoadOptions o;
        o.device = ascviz::Device::Cpu;
        o.threads = threads;
        return LanguageModel::load(testdata::fixtureModel("tiny-gpt2"), o);
    }
    static Corpus corpus() { return readCorpus(testdata::resourcesDir() / "corpus" / "stdlib-functions.jsonl"); }
    const testdata::TempDir m_tmp{"batch-pipeline-test"};
};

TEST_F(BatchPipeline, APauseMidRunWaitsAndStoresTheSameRows)
{
    const Corpus c = corpus();
    // One scoring thread ahead (one model thread leaves a core free), then scoring and storing in turn (the
    // model's threads take every core).
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (const int threads : {1, cores}) {
        SCOPED_TRACE("model threads " + std::to_string(threads));
        const auto model = load(threads);
        BatchOptions ref;
        ref.limit = 7;
        ref.batchSize = 3;
        const fs::path refDb = m_tmp / ("ref-" + std::to_string(threads) + ".db");
        runBatch(*model, c, refDb, ref);

        std::atomic<bool> pause{false};
        std::unique_ptr<Later> release;
        BatchOptions opts = ref;
        opts.pause = &pause;
        Recorder rec;
        opts.progress = [&](const BatchProgress& p) {
            rec.seen.push_back(p);
            if (p.done == 2 && !p.paused && !release) {
                pause = true;
                release = std::make_unique<Later>(pause, false, 300ms);
            }
        };
        const fs::path db = m_tmp / ("paused-" + std::to_string(threads) + ".db");
        const auto t0 = std::chrono::steady_clock::now();
        const BatchSummary s = runBatch(*model, c, db, opts);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        release.reset();
        EXPECT_TRUE(s.complete);
        EXPECT_FALSE(s.cancelled);
        EXPECT_EQ(s.stored, 7);
        int pausedReports = 0;
        for (const auto& p : rec.seen)
            pausedReports += p.paused ? 1 : 0;
        EXPECT_EQ(pausedReports, 1);
        EXPECT_EQ(rec.seen.size(), 1u + 7u + 2u); // the start, each snippet, the pause and its end
        EXPECT_EQ(rec.seen.back().done, 7);
        EXPECT_EQ(rec.seen.back().etaSeconds, 0);
        EXPECT_LT(s.seconds, wall - 0.25); // the pause is not work
        EXPECT_EQ(testdata::dbContent(db), testdata::dbContent(refDb));
    }
}

TEST_F(BatchPipeline, ErrorsDescribeTheSituationAndCarryTheirRemedy)
{
    const Corpus c = corpus();
    const auto model = load(1);
    const fs::path db = m_tmp / "remedy.db";
    BatchOptions opts;
    opts.limit = 2;
    runBatch(*model, c, db, opts);

    BatchOptions other = opts;
    other.resume = true;
    other.aggregation = Aggregation::Max;
    try {
        runBatch(*model, c, db, other);
        FAIL() << "no error";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("cannot resume"), std::string::npos) << m;
        EXPECT_EQ(m.find("--"), std::string::npos) << m; // no CLI flag
        EXPECT_EQ(e.context().remedy, Remedy::NewOutput);
        EXPECT_EQ(e.context().path, db.string());
    }

    // Another writer holds the file: wait, then continue it, or write elsewhere.
    const int fd = ::open(db.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
    BatchOptions again = opts;
    again.resume = true;
    try {
        runBatch(*model, c, db, again);
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("being written by another batch run"), std::string::npos) << m;
        EXPECT_EQ(m.find("--"), std::string::npos) << m;
        EXPECT_EQ(e.context().remedy, Remedy::Resume | Remedy::NewOutput);
    }
    ::close(fd);
    again.limit = 3;
    EXPECT_EQ(runBatch(*model, c, db, again).stored, 1); // unlocked: continues
}
