// The Galeras runs database under faults (issue 39): creation is all or nothing, a merge never leaves a
// partial output and checks its shards before it writes, the records' fingerprint covers every field a row
// depends on.
#include "ascviz/base/error.h"
#include "ascviz/galeras/records.h"
#include "ascviz/galeras/runsdb.h"
#include "testdata.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace ascviz;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> names(const fs::path& dir)
{
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

GalerasRow row(const std::string& id, const std::string& treatment)
{
    GalerasRow r;
    r.recordId = id;
    r.treatment = treatment;
    r.isControl = treatment == "control";
    r.stop = "eos";
    r.values["levenshtein"] = 0.5;
    return r;
}

// A complete shard `label` holding the rows of `ids` under control and T1.
fs::path shard(const fs::path& dir, const std::string& file, const std::string& label,
               const std::vector<std::string>& ids)
{
    const auto p = dir / file;
    const GalerasDb db =
        GalerasDb::create(p, {{"shard", label}, {"seed", "1"}, {"planned", std::to_string(2 * ids.size())}});
    for (const auto& id : ids)
        for (const std::string t : {"control", "T1"})
            db.insert(row(id, t));
    return p;
}

} // namespace

TEST(GalerasRunsDb, CreationIsAllOrNothing)
{
    const testdata::TempDir dir("galeras-create");
    const auto path = dir / "runs.db";
    // A creation that fails midway (schema_version is the database's own setting: a second one breaks the
    // settings table's key) leaves no file at all, so neither --resume ("not a Galeras runs database") nor
    // a new run ("exists") trips over a database without its settings.
    EXPECT_THROW(GalerasDb::create(path, {{"model", "m"}, {"schema_version", "7"}}), SqliteError);
    EXPECT_FALSE(fs::exists(path));
    EXPECT_TRUE(names(dir).empty()) << names(dir).front();
    {
        const GalerasDb db = GalerasDb::create(path, {{"model", "m"}}, {{"r7", "too short"}});
        EXPECT_EQ(db.meta().at("model"), "m");
        EXPECT_EQ(db.skipped(), (std::vector<std::pair<std::string, std::string>>{{"r7", "too short"}}));
        db.insert(row("r1", "control"));
    }
    for (const auto& n : names(dir))
        EXPECT_EQ(n.find(".creating-"), std::string::npos) << n;
    EXPECT_THROW(GalerasDb::create(path, {{"model", "other"}}), InputError); // exists: kept as it was
    const GalerasDb again = GalerasDb::open(path);
    EXPECT_EQ(again.meta().at("model"), "m");
    EXPECT_EQ(again.doneKeys().size(), 1u);
}

TEST(GalerasRunsDb, MislabelledShardWritesNothing)
{
    const testdata::TempDir dir("galeras-mislabelled");
    // s1 carries shard 1's label but shard 0's items (a copy relabelled): the rows of r0 are in both.
    const auto s0 = shard(dir, "s0.db", "0/2", {"r0", "r2"});
    const auto s1 = shard(dir, "s1.db", "1/2", {"r1", "r0"});
    const auto out = dir / "all.db";
    try {
        mergeGalerasShards(out, {s0, s1});
        FAIL() << "merged overlapping shards";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("record r0 under treatment "), std::string::npos) << m;
        EXPECT_NE(m.find(" is in both "), std::string::npos) << m;
        EXPECT_NE(m.find("s1.db"), std::string::npos) << m;
    }
    EXPECT_FALSE(fs::exists(out));
    for (const auto& n : names(dir)) // no partial or temporary output (the shards' own -wal, -shm may be there)
        EXPECT_EQ(n.rfind("all.db", 0), std::string::npos) << n;

    // Fitting shards merge into a complete file with its settings (planned included), no temporary left.
    const auto s1ok = shard(dir, "s1ok.db", "1/2", {"r1", "r3"});
    mergeGalerasShards(out, {s0, s1ok});
    const GalerasDb all = GalerasDb::open(out);
    EXPECT_EQ(all.doneKeys().size(), 8u);
    EXPECT_EQ(all.meta().at("planned"), "8");
    EXPECT_EQ(all.meta().at("shard"), "merged/2");
    for (const auto& n : names(dir))
        EXPECT_EQ(n.find(".merging-"), std::string::npos) << n;
}

TEST(GalerasRecords, FingerprintCoversEveryFieldARowDependsOn)
{
    const auto fp = [](const nlohmann::json& j) { return parseRecordsJsonl(j.dump() + "\n", "mem").fingerprint(); };
    const nlohmann::json base = {{"id", "a"}, {"code", "def f():\n    return 1\n"}, {"docstring", "One."}, {"age", 3}};
    const std::string f0 = fp(base);
    EXPECT_EQ(fp(base), f0);
    auto changed = [&](const char* key, const nlohmann::json& v) {
        auto j = base;
        j[key] = v;
        return fp(j);
    };
    EXPECT_NE(changed("docstring", "Two."), f0);
    EXPECT_NE(changed("docstring", ""), f0);
    EXPECT_NE(changed("signature", "def f():"), f0);
    EXPECT_NE(changed("age", 4), f0);    // a precomputed confounder
    EXPECT_NE(changed("stars", 10), f0); // a new one
    EXPECT_NE(changed("code", "def f():\n    return 2\n"), f0);
    EXPECT_EQ(changed("repo", "elsewhere"), f0); // no row depends on it
    auto noDoc = base;
    noDoc.erase("docstring");
    EXPECT_NE(fp(noDoc), changed("docstring", "")); // absent (the testbed finds it) is not empty
}

// A runs database made before the codebleu outcome existed: read-only, its rows read codebleu as null; opened
// for writing (a resumed run), the column is added and new rows keep their value.
TEST(GalerasRunsDb, DatabaseWithoutCodebleuColumnOpens)
{
    const testdata::TempDir dir("galeras-old-columns");
    const fs::path path = dir / "runs.db";
    {
        const GalerasDb db = GalerasDb::create(path, {{"testbed", "t"}});
        db.insert(row("a", "control"));
    }
    {
        sqlite::OpenOptions o;
        o.mode = sqlite::OpenMode::ReadWrite;
        sqlite::Db::open(path, o).exec("ALTER TABLE galeras_runs DROP COLUMN codebleu", "making an old database");
    }
    {
        const auto rows = GalerasDb::open(path, false).rows();
        ASSERT_EQ(rows.size(), 1u);
        EXPECT_FALSE(rows[0].values.at("codebleu").has_value());
        EXPECT_DOUBLE_EQ(*rows[0].values.at("levenshtein"), 0.5);
    }
    {
        const GalerasDb db = GalerasDb::open(path, true);
        GalerasRow r = row("b", "control");
        r.values["codebleu"] = 0.25;
        db.insert(r);
    }
    const auto rows = GalerasDb::open(path, false).rows();
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_FALSE(rows[0].values.at("codebleu").has_value());
    EXPECT_DOUBLE_EQ(*rows[1].values.at("codebleu"), 0.25);
}
