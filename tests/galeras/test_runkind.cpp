// One merge for every kind of run (results/runkind.h, issue 40): the kind is read from the files, Galeras
// shards are merged as galeras merge does, shards of different kinds are refused with nothing written.
#include "ascviz/base/error.h"
#include "ascviz/results/galerasdb.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/runkind.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace ascviz;
namespace fs = std::filesystem;

namespace {

fs::path galerasShard(const fs::path& dir, const std::string& file, const std::string& label,
                      const std::vector<std::string>& ids)
{
    const auto p = dir / file;
    const GalerasDb db =
        GalerasDb::create(p, {{"shard", label}, {"seed", "1"}, {"planned", std::to_string(ids.size())}});
    for (const auto& id : ids) {
        GalerasRow r;
        r.recordId = id;
        r.treatment = "control";
        r.isControl = true;
        r.stop = "eos";
        db.insert(r);
    }
    return p;
}

} // namespace

TEST(RunKind, ReadFromTheFile)
{
    const testdata::TempDir dir("runkind");
    const auto g = galerasShard(dir.path(), "g.db", "0/1", {"r0"});
    EXPECT_EQ(runKindOf(g), RunKind::Galeras);
    RunInfo info;
    info.modelName = "m";
    const auto b = dir.path() / "b.db";
    ResultsDb::create(b, info);
    EXPECT_EQ(runKindOf(b), RunKind::Batch);
    const auto text = dir.path() / "t.jsonl";
    std::ofstream(text) << "{\"kind\":\"ascviz-heads-partial\"}\n";
    EXPECT_EQ(runKindOf(text), RunKind::Unknown);
    EXPECT_EQ(runKindOf(dir.path() / "missing.db"), RunKind::Unknown);
    EXPECT_EQ(toString(RunKind::Galeras), "galeras");
}

TEST(RunKind, OneMergeForGalerasShardsAndNoneAcrossKinds)
{
    const testdata::TempDir dir("runkind-merge");
    const auto s0 = galerasShard(dir.path(), "s0.db", "0/2", {"r0", "r2"});
    const auto s1 = galerasShard(dir.path(), "s1.db", "1/2", {"r1"});
    const auto out = dir.path() / "all.db";
    const RunMergeReport r = mergeRuns(out, {s0, s1});
    EXPECT_EQ(r.kind, RunKind::Galeras);
    EXPECT_EQ(r.merged.shards, 2);
    EXPECT_EQ(r.merged.snippets, 3);
    const GalerasDb all = GalerasDb::open(out);
    EXPECT_EQ(all.rows().size(), 3u);
    EXPECT_EQ(all.meta().at("shard"), "merged/2");

    RunInfo info;
    info.modelName = "m";
    const auto b = dir.path() / "b.db";
    ResultsDb::create(b, info);
    const auto mixed = dir.path() / "mixed.db";
    try {
        mergeRuns(mixed, {s0, b});
        FAIL() << "merged a Galeras shard with a results database";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("is a batch run"), std::string::npos) << m;
        EXPECT_NE(m.find(s0.string()), std::string::npos) << m;
    }
    EXPECT_FALSE(fs::exists(mixed));
}
