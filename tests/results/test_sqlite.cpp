// The one SQLite layer (ascviz/results/sqlite.h): checked binds, typed reads (NULL included), transactions
// that roll back unless committed, and the typed error of a busy file.
#include "ascviz/results/sqlite.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <fstream>
#include <limits>

using namespace ascviz;
namespace fs = std::filesystem;

namespace {

fs::path tempDir()
{
    static const fs::path dir = ascviz::testdata::freshTempDir("sqlite"); // removed at exit
    return dir;
}

sqlite::Db openDb(const fs::path& p, sqlite::OpenMode mode = sqlite::OpenMode::Create)
{
    sqlite::OpenOptions o;
    o.mode = mode;
    o.label = "test file";
    return sqlite::Db::open(p, o);
}

sqlite::Db withTable(const std::string& name)
{
    auto db = openDb(tempDir() / name);
    db.exec("CREATE TABLE t (k INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT)", "creating t");
    return db;
}

int64_t rows(const sqlite::Db& db)
{
    sqlite::Stmt st(db, "SELECT COUNT(*) FROM t", "counting");
    EXPECT_TRUE(st.step());
    return st.int64(0);
}

} // namespace

TEST(Sqlite, AFailedBindThrowsNamingTheFileAndThePurpose)
{
    const auto db = withTable("bind.db");
    sqlite::Stmt st(db, "INSERT INTO t (k, i) VALUES (?1, ?2)", "inserting a test row");
    st.bind(1, 1);
    try {
        st.bind(3, 7); // the statement has two parameters
        FAIL() << "no error";
    } catch (const SqliteError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("test file " + (tempDir() / "bind.db").string()), std::string::npos) << m;
        EXPECT_NE(m.find("inserting a test row"), std::string::npos) << m;
        EXPECT_NE(m.find("parameter 3"), std::string::npos) << m;
        EXPECT_EQ(e.failure(), SqliteFailure::Other);
        EXPECT_EQ(e.context().path, (tempDir() / "bind.db").string());
        EXPECT_EQ(e.context().remedy, Remedy::None);
    }
    EXPECT_THROW(st.bind(0, std::string("x")), SqliteError);
    EXPECT_THROW(st.bindNull(9), SqliteError);
    EXPECT_THROW(st.bind(5, 0.5), SqliteError);
}

TEST(Sqlite, TypedReadsRoundTripAndReadNullAsEmpty)
{
    const auto db = withTable("reads.db");
    const double r = 0.1 + 1e-17 * 3; // needs all 17 digits: a text round trip would lose it
    const int64_t big = std::numeric_limits<int64_t>::max();
    const std::string text("a\0b\xC3\xA9", 5); // an embedded NUL and UTF-8
    {
        sqlite::Stmt st(db, "INSERT INTO t (k, i, r, s) VALUES (?1, ?2, ?3, ?4)", "inserting");
        st.bindAll(1, big, r, text).run();
        st.bindAll(2, std::optional<int64_t>(), std::optional<double>(), std::optional<std::string>()).run();
        st.bindAll(3, true, std::optional<double>(-2.5), std::nullopt).run();
    }
    sqlite::Stmt st(db, "SELECT i, r, s FROM t ORDER BY k", "reading");
    EXPECT_EQ(st.columns(), 3);
    ASSERT_TRUE(st.step());
    EXPECT_EQ(st.int64(0), big);
    EXPECT_EQ(st.real(1), r); // bit-exact
    EXPECT_EQ(st.text(2), text);
    EXPECT_EQ(st.optionalInt64(0), big);
    EXPECT_EQ(st.optionalReal(1), r);
    EXPECT_EQ(st.optionalText(2), text);
    EXPECT_FALSE(st.isNull(0));
    ASSERT_TRUE(st.step());
    for (int c = 0; c < 3; ++c)
        EXPECT_TRUE(st.isNull(c)) << c;
    EXPECT_EQ(st.optionalInt64(0), std::nullopt);
    EXPECT_EQ(st.optionalReal(1), std::nullopt);
    EXPECT_EQ(st.optionalText(2), std::nullopt);
    EXPECT_EQ(st.int64(0), 0);
    EXPECT_EQ(st.real(1), 0.0);
    EXPECT_EQ(st.text(2), "");
    ASSERT_TRUE(st.step());
    EXPECT_EQ(st.int64(0), 1); // a bool binds as 1
    EXPECT_EQ(st.optionalReal(1), -2.5);
    EXPECT_TRUE(st.isNull(2));
    EXPECT_FALSE(st.step());
}

TEST(Sqlite, RunResetsTheStatementForTheNextRow)
{
    const auto db = withTable("reuse.db");
    sqlite::Stmt ins(db, "INSERT INTO t (k, s) VALUES (?1, ?2)", "inserting");
    for (int k = 0; k < 3; ++k)
        ins.bindAll(k, "row " + std::to_string(k)).run();
    EXPECT_EQ(rows(db), 3);
    sqlite::Stmt sel(db, "SELECT s FROM t WHERE k = ?1", "reading");
    sel.bind(1, 2);
    ASSERT_TRUE(sel.step());
    EXPECT_EQ(sel.text(0), "row 2");
}

TEST(Sqlite, ATransactionThatIsNotCommittedRollsBack)
{
    const auto db = withTable("tx.db");
    {
        sqlite::Transaction tx(db);
        sqlite::Stmt(db, "INSERT INTO t (k) VALUES (1)", "inserting").run();
        EXPECT_EQ(rows(db), 1); // visible inside
    }
    EXPECT_EQ(rows(db), 0);
    try {
        sqlite::Transaction tx(db);
        sqlite::Stmt(db, "INSERT INTO t (k) VALUES (2)", "inserting").run();
        sqlite::Stmt(db, "INSERT INTO t (k) VALUES (2)", "inserting the same key again").run();
        tx.commit();
        FAIL() << "no error";
    } catch (const SqliteError& e) {
        EXPECT_EQ(e.failure(), SqliteFailure::Constraint);
        EXPECT_NE(std::string(e.what()).find("inserting the same key again"), std::string::npos) << e.what();
    }
    EXPECT_EQ(rows(db), 0);
    {
        sqlite::Transaction tx(db);
        sqlite::Stmt(db, "INSERT INTO t (k) VALUES (3)", "inserting").run();
        tx.commit();
    }
    EXPECT_EQ(rows(db), 1);
}

TEST(Sqlite, ABusyFileGivesTheTypedErrorWithTheOwnersAdvice)
{
    const fs::path p = tempDir() / "busy.db";
    {
        auto db = openDb(p);
        db.exec("PRAGMA journal_mode=WAL; CREATE TABLE t (k INTEGER PRIMARY KEY)", "creating t");
    }
    const auto holder = openDb(p, sqlite::OpenMode::ReadWrite);
    sqlite::Transaction held(holder); // the write lock, held
    sqlite::OpenOptions o;
    o.mode = sqlite::OpenMode::ReadWrite;
    o.busyTimeoutMs = 0;
    o.label = "results database";
    o.advice.otherWriter = "another batch on the same file";
    o.advice.kept = "every snippet stored so far is kept";
    o.advice.remedy = Remedy::Resume;
    const auto second = sqlite::Db::open(p, o);
    try {
        sqlite::Transaction tx(second);
        FAIL() << "no error";
    } catch (const SqliteError& e) {
        EXPECT_TRUE(e.busy());
        EXPECT_EQ(e.failure(), SqliteFailure::Busy);
        const std::string m = e.what();
        EXPECT_NE(m.find("results database " + p.string()), std::string::npos) << m;
        EXPECT_NE(m.find("is in use by another process, e.g. another batch on the same file"), std::string::npos) << m;
        EXPECT_EQ(m.find("--"), std::string::npos) << m; // no front end's flag
        EXPECT_EQ(e.context().remedy, Remedy::Resume);
        EXPECT_EQ(e.context().path, p.string());
    }
    // Reading goes on beside the writer (WAL).
    sqlite::Stmt st(second, "SELECT COUNT(*) FROM t", "counting");
    ASSERT_TRUE(st.step());
    EXPECT_EQ(st.int64(0), 0);
}

TEST(Sqlite, SqlOpenAndFileErrorsAreTyped)
{
    const auto db = withTable("errors.db");
    try {
        db.exec("SELECT * FROM missing", "reading a missing table");
        FAIL() << "no error";
    } catch (const SqliteError& e) {
        EXPECT_EQ(e.failure(), SqliteFailure::Sql);
        EXPECT_NE(std::string(e.what()).find("reading a missing table: no such table: missing"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(sqlite::Stmt(db, "SELEC 1", "a typo"), SqliteError);
    try {
        openDb(tempDir() / "absent.db", sqlite::OpenMode::ReadOnly);
        FAIL() << "no error";
    } catch (const SqliteError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot open test file " + (tempDir() / "absent.db").string()),
                  std::string::npos)
            << e.what();
    }
    EXPECT_FALSE(fs::exists(tempDir() / "absent.db"));
    const fs::path junk = tempDir() / "junk.db";
    std::ofstream(junk) << "this is not sqlite, just text that is long enough to have a header........";
    const auto j = openDb(junk, sqlite::OpenMode::ReadOnly); // SQLite reads the file lazily
    try {
        sqlite::Stmt(j, "SELECT 1 FROM sqlite_master", "reading the schema").step();
        FAIL() << "no error";
    } catch (const SqliteError& e) {
        EXPECT_EQ(e.failure(), SqliteFailure::NotADatabase);
        EXPECT_NE(std::string(e.what()).find("damaged or not a test file"), std::string::npos) << e.what();
    }
}

TEST(Sqlite, AMovedConnectionKeepsWorking)
{
    auto a = withTable("move.db");
    sqlite::Db b = std::move(a);
    EXPECT_FALSE(a.isOpen()); // NOLINT(bugprone-use-after-move): moved-from is closed
    EXPECT_TRUE(b.isOpen());
    EXPECT_EQ(b.path(), tempDir() / "move.db");
    EXPECT_EQ(rows(b), 0);
}
