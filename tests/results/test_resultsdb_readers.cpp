// The typed readers of ResultsDb over a hand-made database (rows written with SQL): tokens and node values of
// the status-ok snippets, the read snapshot, the checkpoint, and the run row's enums stored as their text.
#include "ascviz/base/error.h"
#include "ascviz/results/resultsdb.h"
#include "dbcontent.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <tuple>

using namespace ascviz;
namespace fs = std::filesystem;

namespace {

fs::path tempDir()
{
    static const fs::path dir = ascviz::testdata::freshTempDir("readers"); // removed at exit
    return dir;
}

void sql(const fs::path& p, const std::string& statement)
{
    testdata::query(p, statement, [](const auto&) {});
}

std::string one(const fs::path& p, const std::string& select)
{
    std::string out;
    testdata::query(p, select, [&](const auto& cols) { out = cols.at(0).value_or("NULL"); });
    return out;
}

// Snippets 0 (ok, java), 1 (error), 2 (ok, no language of its own: the run's, python); tokens and nodes of each.
fs::path handMade(const std::string& name)
{
    const fs::path p = tempDir() / name;
    RunInfo run;
    run.modelName = "hand-made";
    run.modelDir = "/nowhere";
    run.corpusPath = "/c.jsonl";
    run.corpusFingerprint = "00";
    run.language = "python";
    run.aggregation = Aggregation::Max;
    ResultsDb::create(p, run);
    sql(p, "INSERT INTO snippets (idx, id, code, prompt_bytes, status, created, language) VALUES "
           "(0, 'a', 'abc', 3, 'ok', 't', 'java'), (1, 'b', 'x', 1, 'error', 't', NULL), "
           "(2, 'c', 'def', 3, 'ok', 't', NULL)");
    sql(p, "INSERT INTO tokens (snippet, idx, id, start_byte, end_byte, ntp, generated) VALUES "
           "(2, 1, 41, 1, 3, 0.25, 1), (0, 0, 7, 0, 1, 0.5, 0), (0, 1, 8, 1, 3, NULL, 0), (1, 0, 9, 0, 1, 0.75, 0), "
           "(2, 0, 40, 0, 1, 0.125, 0)");
    sql(p, "INSERT INTO nodes (snippet, node, type, named, category, depth, parent, start_byte, end_byte, asc_eval) "
           "VALUES (0, 1, 'if_statement', 1, 'Decision', 1, 0, 0, 3, 0.5), (0, 0, 'program', 1, NULL, 0, NULL, 0, 3, "
           "0.25), (0, 2, 'identifier', 1, NULL, 2, 1, 0, 1, NULL), (1, 0, 'module', 1, NULL, 0, NULL, 0, 1, 0.9), "
           "(2, 0, 'module', 1, NULL, 0, NULL, 0, 3, 0.375)");
    return p;
}

using TokenKey = std::tuple<int64_t, int64_t, int64_t, std::size_t, std::size_t, std::optional<double>, bool>;
using NodeKey = std::tuple<int64_t, int64_t, std::string, std::optional<std::string>, std::string, double>;

std::vector<NodeKey> nodeRows(const ResultsDb& db, const std::optional<std::string>& language = {})
{
    std::vector<NodeKey> out;
    db.forEachNodeValue(
        [&](const NodeValueRow& n) { out.emplace_back(n.snippet, n.node, n.type, n.category, n.language, n.ascEval); },
        language);
    return out;
}

} // namespace

TEST(ResultsDbReaders, TokensOfTheOkSnippetsInSnippetAndTokenOrder)
{
    const auto db = ResultsDb::open(handMade("tokens.db"));
    std::vector<TokenKey> got;
    db.forEachOkToken(
        [&](const TokenRow& t) { got.emplace_back(t.snippet, t.index, t.id, t.start, t.end, t.ntp, t.generated); });
    const std::vector<TokenKey> want = {
        {0, 0, 7, 0, 1, 0.5, false},
        {0, 1, 8, 1, 3, std::nullopt, false}, // unscored: NULL
        {2, 0, 40, 0, 1, 0.125, false},
        {2, 1, 41, 1, 3, 0.25, true},
    }; // snippet 1 (an error row) is left out
    EXPECT_EQ(got, want);
}

TEST(ResultsDbReaders, NodeValuesOfTheOkSnippetsWithTheirLanguage)
{
    const auto db = ResultsDb::open(handMade("nodes.db"));
    const std::vector<NodeKey> all = {
        {0, 0, "program", std::nullopt, "java", 0.25},
        {0, 1, "if_statement", "Decision", "java", 0.5},
        {2, 0, "module", std::nullopt, "python", 0.375}, // no language of its own: the run's
    }; // nodes without a value and snippet 1 (an error row) are left out
    EXPECT_EQ(nodeRows(db), all);
    EXPECT_EQ(nodeRows(db, "python"), std::vector<NodeKey>({all[2]}));
    EXPECT_EQ(nodeRows(db, "java"), std::vector<NodeKey>({all[0], all[1]}));
    EXPECT_TRUE(nodeRows(db, "cpp").empty());
    // nodeValues pools the same rows.
    const auto v = db.nodeValues();
    EXPECT_EQ(v.byConcept.at("module"), std::vector<double>({0.375}));
    EXPECT_EQ(v.byCategory.at("Decision"), std::vector<double>({0.5}));
    EXPECT_EQ(v.categoryOf.at("if_statement"), "Decision");
    EXPECT_EQ(v.byConcept.size(), 3u);
}

TEST(ResultsDbReaders, ASnapshotReadsOneStateWhileAnotherConnectionWrites)
{
    const fs::path p = handMade("snapshot.db");
    const auto db = ResultsDb::open(p);
    {
        const auto snapshot = db.readSnapshot();
        EXPECT_EQ(db.counts().snippets, 3);
        sql(p,
            "INSERT INTO snippets (idx, id, code, prompt_bytes, status, created) VALUES (3, 'd', 'y', 1, 'ok', 't')");
        EXPECT_EQ(db.counts().snippets, 3);
        EXPECT_EQ(db.doneIndices().count(3), 0u);
    }
    EXPECT_EQ(db.counts().snippets, 4);
    EXPECT_EQ(db.doneIndices().count(3), 1u);
}

TEST(ResultsDbReaders, CheckpointEmptiesTheWriteAheadLog)
{
    const fs::path p = handMade("checkpoint.db");
    auto db = ResultsDb::open(p, ResultsDb::Mode::ReadWrite);
    SnippetMeta m;
    m.index = 9;
    m.id = "z";
    m.code = "z";
    m.ok = false;
    db.writeSnippet(m, nullptr);
    ASSERT_GT(fs::file_size(p.string() + "-wal"), 0u);
    db.checkpoint();
    EXPECT_EQ(fs::file_size(p.string() + "-wal"), 0u);
    EXPECT_EQ(db.counts().snippets, 4);
}

TEST(ResultsDbReaders, RunEnumsAreStoredAsTheirText)
{
    const fs::path p = handMade("run.db");
    EXPECT_EQ(one(p, "SELECT aggregation FROM run"), "max");
    EXPECT_EQ(one(p, "SELECT status FROM run"), "running");
    {
        auto db = ResultsDb::open(p, ResultsDb::Mode::ReadWrite);
        RunInfo r = db.runInfo();
        EXPECT_EQ(r.aggregation, Aggregation::Max);
        EXPECT_EQ(r.status, RunStatus::Running);
        r.status = RunStatus::Cancelled;
        r.aggregation = Aggregation::Mean;
        db.updateRun(r);
    }
    EXPECT_EQ(one(p, "SELECT aggregation FROM run"), "mean");
    EXPECT_EQ(one(p, "SELECT status FROM run"), "cancelled");
    EXPECT_EQ(ResultsDb::open(p).runInfo().status, RunStatus::Cancelled);
    sql(p, "UPDATE run SET status = 'complete'");
    EXPECT_EQ(ResultsDb::open(p).runInfo().status, RunStatus::Complete);
    for (const RunStatus s : {RunStatus::Running, RunStatus::Complete, RunStatus::Cancelled})
        EXPECT_EQ(parseRunStatus(toString(s)), s);
    EXPECT_THROW(parseRunStatus("paused"), InputError);
    // A status this AsC-Viz does not know is an error naming the file.
    sql(p, "UPDATE run SET status = 'paused'");
    try {
        ResultsDb::open(p).runInfo();
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("'paused'"), std::string::npos) << e.what();
    }
}
