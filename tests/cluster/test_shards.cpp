// Shards of a batch run (batch --shard I/N) and their merge: the merged database equals a single run, and
// every inconsistent set of shards is refused with nothing written.
#include "dbcontent.h"
#include "testdata.h"

#include "ascviz/base/error.h"
#include "ascviz/batch/batch.h"
#include "ascviz/results/shards.h"
#include "ascviz/results/stats.h"

#include <gtest/gtest.h>

#include <atomic>
#include <utility>

using namespace ascviz;
namespace fs = std::filesystem;

namespace {

std::vector<std::vector<std::string>> content(const fs::path& p)
{
    return testdata::dbContent(p);
}

std::string messageOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no InputError)";
}

class Shards : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        s_dir = new testdata::TempDir("ascviz-shards-test");
        LoadOptions o;
        o.device = ascviz::Device::Cpu;
        s_model = LanguageModel::load(testdata::fixtureModel("tiny-gpt2"), o).release();
        s_corpus = new Corpus(readCorpus(testdata::resourcesDir() / "corpus" / "stdlib-functions.jsonl"));
        BatchOptions opts;
        opts.limit = kRun;
        runBatch(*s_model, *s_corpus, *s_dir / "single.db", opts);
        for (int i = 0; i < 3; ++i) {
            opts.shard = ShardSpec{i, 3};
            runBatch(*s_model, *s_corpus, shard(i), opts);
        }
    }
    static void TearDownTestSuite()
    {
        delete s_model;
        delete s_corpus;
        delete s_dir;
    }
    static fs::path shard(int i) { return *s_dir / ("shard-" + std::to_string(i) + ".db"); }
    static fs::path path(const std::string& name) { return *s_dir / name; }

    static constexpr int kRun = 13; // shards of 5, 4 and 4 snippets
    static testdata::TempDir* s_dir;
    static LanguageModel* s_model;
    static Corpus* s_corpus;
};
testdata::TempDir* Shards::s_dir = nullptr;
LanguageModel* Shards::s_model = nullptr;
Corpus* Shards::s_corpus = nullptr;

} // namespace

TEST(ShardSpecs, ParseAndSlice)
{
    EXPECT_EQ(parseShard("0/4").index, 0);
    EXPECT_EQ(parseShard("3/4").count, 4);
    for (const char* bad : {"4/4", "-1/4", "1/0", "1", "a/b", "1/4x", "/4", "1/", ""})
        EXPECT_THROW(parseShard(bad), InputError) << bad;
    // Round-robin: every snippet in exactly one shard; sizes differ by at most one.
    for (int n = 1; n <= 7; ++n)
        for (int64_t total = 0; total <= 30; ++total) {
            int64_t sum = 0;
            for (int i = 0; i < n; ++i) {
                const ShardSpec s{i, n};
                int64_t count = 0;
                for (int64_t k = 0; k < total; ++k)
                    count += s.contains(k) ? 1 : 0;
                EXPECT_EQ(s.planned(total), count) << i << "/" << n << " of " << total;
                EXPECT_LE(count, total / n + 1);
                EXPECT_GE(count, total / n);
                sum += count;
            }
            EXPECT_EQ(sum, total);
        }
}

TEST_F(Shards, EachShardRecordsItsSliceAndTheRun)
{
    const int64_t sizes[] = {5, 4, 4};
    for (int i = 0; i < 3; ++i) {
        const auto db = ResultsDb::open(shard(i));
        const RunInfo r = db.runInfo();
        EXPECT_EQ(r.shardIndex, i);
        EXPECT_EQ(r.shardCount, 3);
        EXPECT_EQ(r.runPlanned, kRun);
        EXPECT_EQ(r.planned, sizes[i]);
        EXPECT_EQ(r.status, RunStatus::Complete);
        for (int64_t idx : db.doneIndices())
            EXPECT_EQ(idx % 3, i) << "snippet " << idx << " in shard " << i;
        EXPECT_EQ(static_cast<int64_t>(db.doneIndices().size()), sizes[i]);
    }
}

TEST_F(Shards, MergeEqualsTheSingleRun)
{
    const fs::path out = path("merged.db");
    // Given in another order than 0, 1, 2: the result does not depend on it.
    const MergeReport rep = mergeShards(out, {shard(2), shard(0), shard(1)});
    EXPECT_EQ(rep.snippets, kRun);
    EXPECT_EQ(content(out), content(path("single.db")));
    const auto merged = ResultsDb::open(out);
    const RunInfo r = merged.runInfo();
    EXPECT_EQ(r.shardCount, 1);
    EXPECT_EQ(r.planned, kRun);
    EXPECT_EQ(r.runPlanned, kRun);
    EXPECT_EQ(r.status, RunStatus::Complete);
    const RunInfo single = ResultsDb::open(path("single.db")).runInfo();
    EXPECT_EQ(r.corpusFingerprint, single.corpusFingerprint);
    EXPECT_EQ(r.modelName, single.modelName);
    // The statistics of a report are those of the single run.
    const CorpusStats a = computeStats(merged), b = computeStats(ResultsDb::open(path("single.db")));
    ASSERT_TRUE(a.globalAscEval && b.globalAscEval);
    EXPECT_EQ(*a.globalAscEval, *b.globalAscEval);
    EXPECT_EQ(a.concepts.size(), b.concepts.size());
    // No temporary file is left beside it.
    for (const auto& e : fs::directory_iterator(s_dir->path()))
        EXPECT_EQ(e.path().string().find(".partial-"), std::string::npos) << e.path();
}

TEST_F(Shards, MergeRefusesMissingDuplicateAndForeignShardsWritingNothing)
{
    const fs::path out = path("refused.db");
    std::string m = messageOf([&] { mergeShards(out, {shard(0), shard(2)}); });
    EXPECT_NE(m.find("missing shard 1/3"), std::string::npos) << m;
    fs::copy_file(shard(1), path("copy-of-1.db"));
    m = messageOf([&] { mergeShards(out, {shard(0), shard(1), path("copy-of-1.db"), shard(2)}); });
    EXPECT_NE(m.find("shard 1/3 given 2 times"), std::string::npos) << m;
    EXPECT_NE(m.find("copy-of-1.db"), std::string::npos) << m;
    m = messageOf([&] { mergeShards(out, {shard(0), shard(0), shard(1), shard(2)}); });
    EXPECT_NE(m.find("given twice"), std::string::npos) << m;

    // A shard of another aggregation (another run), and of another cut (N = 2).
    BatchOptions opts;
    opts.limit = kRun;
    opts.aggregation = Aggregation::Mean;
    opts.shard = ShardSpec{1, 3};
    runBatch(*s_model, *s_corpus, path("mean-1.db"), opts);
    m = messageOf([&] { mergeShards(out, {shard(0), path("mean-1.db"), shard(2)}); });
    EXPECT_NE(m.find("aggregation is 'mean' in"), std::string::npos) << m;
    EXPECT_NE(m.find("mean-1.db"), std::string::npos) << m;
    // θ over children (--aggregation-scope children): stored with the run, its values differ from the tokens
    // shard's, a resume with the other scope and a merge with a tokens shard are refused
    opts.aggregation = Aggregation::Median;
    opts.aggregationScope = AggregationScope::Children;
    runBatch(*s_model, *s_corpus, path("children-1.db"), opts);
    {
        const auto children = ResultsDb::open(path("children-1.db"));
        const auto tokens = ResultsDb::open(shard(1));
        EXPECT_EQ(children.runInfo().aggregationScope, AggregationScope::Children);
        EXPECT_EQ(tokens.runInfo().aggregationScope, AggregationScope::Tokens);
        const auto a = children.snippets(), b = tokens.snippets();
        ASSERT_EQ(a.size(), b.size());
        int differ = 0;
        for (std::size_t i = 0; i < a.size(); ++i)
            differ += a[i].ascEval != b[i].ascEval ? 1 : 0;
        EXPECT_GT(differ, 0);
    }
    m = messageOf([&] { mergeShards(out, {shard(0), path("children-1.db"), shard(2)}); });
    EXPECT_NE(m.find("aggregation scope is 'children' in"), std::string::npos) << m;
    opts.resume = true;
    opts.aggregationScope = AggregationScope::Tokens;
    m = messageOf([&] { runBatch(*s_model, *s_corpus, path("children-1.db"), opts); });
    EXPECT_NE(m.find("aggregation scope is 'children' in the DB but 'tokens' now"), std::string::npos) << m;
    opts.resume = false;
    // Another run size: the same shard index of a run limited to 12 snippets.
    opts.aggregation = Aggregation::Median;
    opts.limit = kRun - 1;
    runBatch(*s_model, *s_corpus, path("short-1.db"), opts);
    m = messageOf([&] { mergeShards(out, {shard(0), path("short-1.db"), shard(2)}); });
    EXPECT_NE(m.find("run size"), std::string::npos) << m;

    // An incomplete shard: cancelled after its first snippet.
    std::atomic<bool> cancel{false};
    opts.limit = kRun;
    opts.cancel = &cancel;
    opts.progress = [&](const BatchProgress& p) {
        if (p.done >= 1)
            cancel = true;
    };
    runBatch(*s_model, *s_corpus, path("partial-1.db"), opts);
    m = messageOf([&] { mergeShards(out, {shard(0), path("partial-1.db"), shard(2)}); });
    EXPECT_NE(m.find("shard 1/3 (" + path("partial-1.db").string() + ") is incomplete: 1 of 4"), std::string::npos)
        << m;
    // Resuming the shard completes it: a structured remedy, phrased by the front end.
    try {
        mergeShards(out, {shard(0), path("partial-1.db"), shard(2)});
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_TRUE(hasRemedy(e.context().remedy, Remedy::Resume)) << m;
    }

    // Not a results database at all.
    std::ofstream(path("notes.db")) << "hello";
    EXPECT_THROW(mergeShards(out, {shard(0), path("notes.db"), shard(2)}), InputError);

    EXPECT_FALSE(fs::exists(out));
    for (const auto& e : fs::directory_iterator(s_dir->path()))
        EXPECT_EQ(e.path().string().find("refused.db"), std::string::npos) << e.path();

    // An existing --out is never replaced.
    std::ofstream(out) << "keep me";
    m = messageOf([&] { mergeShards(out, {shard(0), shard(1), shard(2)}); });
    EXPECT_NE(m.find("already exists"), std::string::npos) << m;
    std::ifstream in(out);
    std::string kept;
    std::getline(in, kept);
    EXPECT_EQ(kept, "keep me");
}

TEST_F(Shards, AShardResumesOnlyAsTheSameShard)
{
    BatchOptions opts;
    opts.limit = kRun;
    opts.shard = ShardSpec{1, 3};
    std::atomic<bool> cancel{false};
    opts.cancel = &cancel;
    opts.progress = [&](const BatchProgress& p) {
        if (p.done >= 2)
            cancel = true;
    };
    const BatchSummary first = runBatch(*s_model, *s_corpus, path("resume-1.db"), opts);
    EXPECT_TRUE(first.cancelled);
    EXPECT_EQ(first.stored, 2);
    EXPECT_EQ(first.total, 4);

    BatchOptions other = opts;
    other.cancel = nullptr;
    other.progress = nullptr;
    other.resume = true;
    other.shard = ShardSpec{2, 3};
    const std::string m = messageOf([&] { runBatch(*s_model, *s_corpus, path("resume-1.db"), other); });
    EXPECT_NE(m.find("shard is '1/3' in the DB but '2/3' now"), std::string::npos) << m;

    other.shard = ShardSpec{1, 3};
    const BatchSummary second = runBatch(*s_model, *s_corpus, path("resume-1.db"), other);
    EXPECT_EQ(second.resumed, 2);
    EXPECT_EQ(second.stored, 2);
    EXPECT_TRUE(second.complete);
    // Resumed, it holds what the uninterrupted shard holds.
    EXPECT_EQ(content(path("resume-1.db")), content(shard(1)));
}

TEST_F(Shards, VersionTwoDatabasesReadAsWholeRunsAndUpgrade)
{
    const fs::path p = path("v2.db");
    fs::copy_file(path("single.db"), p);
    {
        auto db = ResultsDb::open(p, ResultsDb::Mode::ReadWrite);
        for (const char* c : {"shard_index", "shard_count", "run_planned", "aggregation_scope"})
            testdata::query(db, std::string("ALTER TABLE run DROP COLUMN ") + c, [](const auto&) {});
        for (const char* c : {"entropy", "topk_entropy", "p1", "margin", "rank"}) // added in version 5
            testdata::query(db, std::string("ALTER TABLE tokens DROP COLUMN ") + c, [](const auto&) {});
        testdata::query(db, "UPDATE run SET schema_version = 2", [](const auto&) {});
    }
    // The tokens' uncertainty (schema 5): stored by this AsC-Viz, missing in the older file.
    const auto uncertainties = [](const fs::path& f) {
        int with = 0, without = 0;
        ResultsDb::open(f).forEachOkToken([&](const TokenRow& t) { ++(t.uncertainty ? with : without); });
        return std::make_pair(with, without);
    };
    EXPECT_GT(uncertainties(path("single.db")).first, 0);
    EXPECT_EQ(uncertainties(p).first, 0);
    EXPECT_GT(uncertainties(p).second, 0);
    {
        const auto db = ResultsDb::open(p);
        EXPECT_EQ(db.schemaVersion(), 2);
        EXPECT_EQ(db.runInfo().shardCount, 1);
        EXPECT_EQ(db.runInfo().runPlanned, kRun);
    }
    {
        auto db = ResultsDb::open(p, ResultsDb::Mode::ReadWrite);
        EXPECT_EQ(db.schemaVersion(), 5);
        EXPECT_EQ(db.runInfo().aggregationScope, AggregationScope::Tokens);
        EXPECT_EQ(db.runInfo().runPlanned, kRun);
    }
    EXPECT_EQ(uncertainties(p).first, 0); // upgraded: the columns are there, NULL
    // A whole run merges alone (a copy), the older file's tokens without their uncertainty.
    mergeShards(path("v2-merged.db"), {p});
    const auto merged = content(path("v2-merged.db")), single = content(path("single.db"));
    ASSERT_EQ(merged.size(), 3U);
    EXPECT_EQ(merged[0], single[0]);
    EXPECT_EQ(merged[2], single[2]);
    EXPECT_EQ(merged[1],
              testdata::dumpRows(ResultsDb::open(path("single.db")),
                                 "SELECT snippet, idx, id, start_byte, end_byte, ntp, generated, NULL, NULL, "
                                 "NULL, NULL, NULL FROM tokens ORDER BY snippet, idx"));
    // A file from a newer AsC-Viz is refused with the versions named.
    {
        auto db = ResultsDb::open(p, ResultsDb::Mode::ReadWrite);
        testdata::query(db, "UPDATE run SET schema_version = 9", [](const auto&) {});
    }
    const std::string m = messageOf([&] { ResultsDb::open(p); });
    EXPECT_NE(m.find("version 9"), std::string::npos) << m;
    EXPECT_NE(m.find("newer"), std::string::npos) << m;
}
