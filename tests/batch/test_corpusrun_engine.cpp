// The corpus-run engine (corpusrun/engine.h) on its own, with a stand-in item: the slice of a sharded run,
// the pending items of a resumed one, the loop's counting, its cancel and its stop when an item cannot be
// stored, and the one-writer lock.
#include "ascviz/base/error.h"
#include "ascviz/corpusrun/engine.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>

using namespace ascviz;
namespace fs = std::filesystem;

TEST(CorpusRunEngine, SliceIsRoundRobinOverTheFirstLimitItems)
{
    const RunSlice all = planSlice(10, 0, {});
    EXPECT_EQ(all.runTotal, 10);
    EXPECT_EQ(all.mine.size(), 10u);
    const RunSlice s = planSlice(10, 7, ShardSpec{1, 3});
    EXPECT_EQ(s.runTotal, 7);
    EXPECT_EQ(s.mine, (std::vector<int>{1, 4}));
    EXPECT_EQ(static_cast<int64_t>(s.mine.size()), s.shard.planned(s.runTotal));
    EXPECT_EQ(planSlice(3, 10, {}).runTotal, 3); // a limit over the corpus is the corpus
    EXPECT_THROW(planSlice(10, 0, ShardSpec{3, 3}), InputError);
    EXPECT_THROW(planSlice(10, 0, ShardSpec{0, 0}), InputError);
    EXPECT_THROW(planSlice(10, 0, ShardSpec{-1, 2}), InputError);
}

TEST(CorpusRunEngine, ResumeSkipsTheStoredItemsAndCountsEachStoredOne)
{
    const std::set<int> stored = {0, 2};
    const RunQueue q = pendingItems({0, 1, 2, 3, 4}, [&](int i) { return stored.count(i) > 0; });
    EXPECT_EQ(q.total, 5);
    EXPECT_EQ(q.resumed, 2);
    EXPECT_EQ(q.pending, (std::vector<int>{1, 3, 4}));

    RunControls c;
    std::vector<RunProgress> seen;
    c.progress = [&](const RunProgress& p) { seen.push_back(p); };
    ProgressClock clock(c, q.total, q.resumed);
    std::vector<int> worked;
    const RunTally t = runItems(clock, q, [&](int i) -> std::optional<ItemOutcome> {
        worked.push_back(i);
        return ItemOutcome{"item-" + std::to_string(i), i != 3, 10};
    });
    EXPECT_EQ(worked, q.pending);
    EXPECT_EQ(t.total, 5);
    EXPECT_EQ(t.resumed, 2);
    EXPECT_EQ(t.stored, 3);
    EXPECT_EQ(t.errors, 1);
    EXPECT_EQ(t.tokens, 30);
    EXPECT_FALSE(t.cancelled);
    ASSERT_EQ(seen.size(), 4u); // the start, then each stored item
    EXPECT_EQ(seen[0].done, 2);
    EXPECT_EQ(seen[3].done, 5);
    EXPECT_EQ(seen[3].errors, 1);
    EXPECT_EQ(seen[3].tokens, 30);
    EXPECT_EQ(seen[3].currentId, "item-4");
    EXPECT_EQ(seen[3].etaSeconds, 0);
}

TEST(CorpusRunEngine, ACancelStopsBeforeTheNextItemAndAnItemThatCannotBeStoredStopsTheRun)
{
    std::atomic<bool> cancel{false};
    RunControls c;
    c.cancel = &cancel;
    const RunQueue q = pendingItems({0, 1, 2, 3}, [](int) { return false; });
    {
        ProgressClock clock(c, q.total, q.resumed);
        const RunTally t = runItems(clock, q, [&](int i) -> std::optional<ItemOutcome> {
            if (i == 1)
                cancel = true; // stored, then the loop stops before item 2
            return ItemOutcome{std::to_string(i), true, 0};
        });
        EXPECT_EQ(t.stored, 2);
        EXPECT_TRUE(t.cancelled);
    }
    cancel = false;
    {
        ProgressClock clock(c, q.total, q.resumed);
        const RunTally t = runItems(clock, q, [&](int i) -> std::optional<ItemOutcome> {
            if (i == 2)
                return std::nullopt; // cancelled during its work: nothing stored
            return ItemOutcome{std::to_string(i), true, 0};
        });
        EXPECT_EQ(t.stored, 2);
        EXPECT_TRUE(t.cancelled);
    }
}

TEST(CorpusRunEngine, OneWriterPerRunFile)
{
    const fs::path file = fs::temp_directory_path() / ("corpusrun-lock-" + std::to_string(::getpid()) + ".db");
    std::ofstream(file) << "x";
    {
        const RunLock first(file, "test run");
        try {
            const RunLock second(file, "test run");
            ADD_FAILURE() << "no error";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("being written by another test run"), std::string::npos) << e.what();
            EXPECT_EQ(e.context().remedy, Remedy::Resume | Remedy::NewOutput);
        }
    }
    EXPECT_NO_THROW(RunLock(file, "test run")); // released with the first
    fs::remove(file);
}
