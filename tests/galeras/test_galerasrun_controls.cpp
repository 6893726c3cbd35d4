// runGaleras driven by the caller's RunControls (the GUI's run controller gives them): the engine's progress
// (rows of the plan, rate), pause between rows, cancel after the current row, and a resume that ends with the
// rows of a run never interrupted.
#include "ascviz/base/resources.h"
#include "ascviz/galeras/records.h"
#include "ascviz/galeras/treatments.h"
#include "ascviz/galerasrun/run.h"
#include "ascviz/results/galerasdb.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>

using namespace ascviz;
using namespace std::chrono_literals;

namespace {

struct Fixture {
    std::unique_ptr<LanguageModel> model;
    RecordSet records = readRecords(sampleCorpus());
    TreatmentSet treatments = readTreatments(resourceDir() / "galeras" / "treatments.json");
    GalerasRunOptions opts;
    Fixture()
    {
        LoadOptions o;
        o.device = ascviz::Device::Cpu;
        model = LanguageModel::load(testdata::dataDir() / "fixtures" / "models" / "tiny-gpt2", o);
        opts.limit = 2; // 2 items x 3 treatments
        opts.generation.maxNewTokens = 6;
    }
};

std::map<std::pair<std::string, std::string>, GalerasRow> rowsOf(const std::filesystem::path& db)
{
    std::map<std::pair<std::string, std::string>, GalerasRow> out;
    for (auto& r : GalerasDb::open(db).rows())
        out[{r.recordId, r.treatment}] = r;
    return out;
}

} // namespace

TEST(GalerasRunControls, PauseCancelResumeMatchAnUninterruptedRun)
{
    Fixture f;
    testdata::TempDir dir("galeras-controls");
    const auto whole = dir / "whole.db";
    std::vector<RunProgress> seen;
    RunControls plain;
    plain.progress = [&](const RunProgress& p) { seen.push_back(p); };
    const GalerasRunSummary all = runGaleras(*f.model, f.records, f.treatments, whole, f.opts, plain);
    EXPECT_EQ(all.planned, 6);
    EXPECT_EQ(all.done, 6);
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.front().done, 0); // the start
    EXPECT_EQ(seen.back().done, 6);
    EXPECT_EQ(seen.back().total, 6);
    EXPECT_GT(seen.back().snippetsPerSecond, 0);

    // Paused from the start: nothing is generated until released; cancelled after the second row.
    const auto parts = dir / "parts.db";
    std::atomic<bool> cancel{false}, pause{true}, sawPause{false};
    RunControls controls;
    controls.cancel = &cancel;
    controls.pause = &pause;
    controls.progress = [&](const RunProgress& p) {
        if (p.paused)
            sawPause = true;
        if (p.done >= 2)
            cancel = true;
    };
    std::thread release([&] {
        const auto until = std::chrono::steady_clock::now() + 60s;
        while (!sawPause && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(5ms);
        std::this_thread::sleep_for(100ms);
        EXPECT_EQ(GalerasDb::open(parts).doneKeys().size(), 0u); // still waiting
        pause = false;
    });
    const GalerasRunSummary stopped = runGaleras(*f.model, f.records, f.treatments, parts, f.opts, controls);
    release.join();
    EXPECT_TRUE(sawPause);
    EXPECT_TRUE(stopped.cancelled);
    EXPECT_EQ(stopped.done, 2);
    EXPECT_EQ(GalerasDb::open(parts).doneKeys().size(), 2u);

    GalerasRunOptions again = f.opts;
    again.resume = true;
    const GalerasRunSummary rest = runGaleras(*f.model, f.records, f.treatments, parts, again, RunControls{});
    EXPECT_FALSE(rest.cancelled);
    EXPECT_EQ(rest.resumed, 2);
    EXPECT_EQ(rest.done, 4);
    const auto a = rowsOf(whole), b = rowsOf(parts);
    ASSERT_EQ(a.size(), 6u);
    ASSERT_EQ(b.size(), a.size());
    for (const auto& [key, row] : a) {
        const auto it = b.find(key);
        ASSERT_NE(it, b.end());
        EXPECT_EQ(it->second.completion, row.completion);
        EXPECT_EQ(it->second.stop, row.stop);
        EXPECT_EQ(it->second.values, row.values);
    }
}

// Issue 54: a second `galeras run --resume` on a database another process writes generated a row, then failed with a
// UNIQUE-constraint message. One writer per runs database: refused at once, the database unchanged.
TEST(GalerasRunControls, ASecondWriterIsRefusedBeforeGeneratingARow)
{
    Fixture f;
    testdata::TempDir dir("galeras-second-writer");
    const auto db = dir / "runs.db";
    std::atomic<bool> cancel{false};
    RunControls first;
    first.cancel = &cancel;
    first.progress = [&](const RunProgress& p) {
        if (p.done >= 2)
            cancel = true;
    };
    (void)runGaleras(*f.model, f.records, f.treatments, db, f.opts, first);
    const auto before = rowsOf(db);
    ASSERT_GT(before.size(), 0u);
    ASSERT_LT(before.size(), 6u) << "the first run was to stop before its end";
    const RunLock other(db, "test writer"); // another writer holds the database
    f.opts.resume = true;
    try {
        (void)runGaleras(*f.model, f.records, f.treatments, db, f.opts, RunControls{});
        ADD_FAILURE() << "a second writer ran";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("is being written by another Galeras run"), std::string::npos) << e.what();
    }
    EXPECT_EQ(rowsOf(db).size(), before.size()) << "the refused run wrote rows";
}
