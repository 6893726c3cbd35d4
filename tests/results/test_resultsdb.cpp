// Results database without a model: creation rules, error rows, duplicate protection, bad files.
#include "ascviz/base/error.h"
#include "ascviz/base/version.h"
#include "ascviz/results/resultsdb.h"
#include "dbcontent.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

using namespace ascviz;
namespace fs = std::filesystem;

namespace {
fs::path tempDir()
{
    static const fs::path dir = ascviz::testdata::freshTempDir("db"); // removed at exit
    return dir;
}
RunInfo info()
{
    RunInfo r;
    r.modelName = "m";
    r.modelDir = "/models/m";
    r.corpusPath = "/c.jsonl";
    r.corpusFingerprint = "0123456789abcdef";
    r.corpusEntries = 3;
    r.planned = 3;
    return r;
}
} // namespace

TEST(ResultsDbTest, CreateWriteErrorRowAndReadBack)
{
    const auto p = tempDir() / "a.db";
    {
        auto db = ResultsDb::create(p, info());
        SnippetMeta m;
        m.index = 1;
        m.id = "s1";
        m.code = "x = (";
        m.ok = false;
        m.message = "boom";
        db.writeSnippet(m, nullptr);
        EXPECT_THROW(db.writeSnippet(m, nullptr), Error); // same index twice
        m.index = 2;
        EXPECT_THROW(db.writeSnippet(m, nullptr), Error); // same id twice
        EXPECT_EQ(db.counts().snippets, 1);
    }
    const auto db = ResultsDb::open(p);
    const auto r = db.runInfo();
    EXPECT_EQ(r.modelName, "m");
    EXPECT_EQ(r.corpusFingerprint, "0123456789abcdef");
    EXPECT_EQ(r.status, RunStatus::Running);
    EXPECT_EQ(r.version, ascvizVersion());
    const auto c = db.counts();
    EXPECT_EQ(c.errors, 1);
    EXPECT_EQ(c.ok, 0);
    const auto rows = db.snippets();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_FALSE(rows[0].ok);
    EXPECT_EQ(rows[0].message, "boom");
    EXPECT_FALSE(rows[0].ascEval);
    EXPECT_EQ(db.snippetCode(1), "x = (");
    EXPECT_EQ(db.doneIndices(), std::set<int64_t>({1}));
    std::string mode;
    testdata::query(db, "PRAGMA journal_mode", [&](const auto& cols) { mode = cols[0].value_or(""); });
    EXPECT_EQ(mode, "wal");
}

TEST(ResultsDbTest, RefusesToOverwriteAndRejectsForeignFiles)
{
    const auto p = tempDir() / "b.db";
    ResultsDb::create(p, info());
    try {
        ResultsDb::create(p, info());
        FAIL() << "no error";
    } catch (const InputError& e) {
        // The remedy (resume it, or write elsewhere) is structured: front ends phrase it as their flags.
        EXPECT_NE(std::string(e.what()).find("already exists"), std::string::npos);
        EXPECT_TRUE(hasRemedy(e.context().remedy, Remedy::Resume));
        EXPECT_TRUE(hasRemedy(e.context().remedy, Remedy::NewOutput));
    }
    EXPECT_THROW(ResultsDb::open(tempDir() / "none.db"), InputError);
    const auto junk = tempDir() / "junk.db";
    std::ofstream(junk) << "this is not sqlite, just text that is long enough to have a header........";
    EXPECT_THROW(ResultsDb::open(junk), InputError);
    EXPECT_THROW(ResultsDb::create(tempDir() / "no" / "such" / "dir.db", info()), InputError);
}
