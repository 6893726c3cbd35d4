// The results database: schema, creation, opening and the upgrade of older files (resultsdb.h).
#include "ascviz/results/resultsdb.h"
#include "resultsdb_internal.h"

#include "ascviz/base/error.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace ascviz {
namespace fs = std::filesystem;
using resultsdb::kSchemaVersion;

namespace {

const char* kSchema = R"sql(
CREATE TABLE run (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  schema_version INTEGER NOT NULL,
  model_name TEXT NOT NULL, model_dir TEXT NOT NULL, architecture TEXT, device TEXT, dtype TEXT,
  parameters INTEGER, context_length INTEGER, vocab_size INTEGER,
  corpus_path TEXT NOT NULL, corpus_format TEXT, corpus_fingerprint TEXT NOT NULL, corpus_entries INTEGER,
  language TEXT NOT NULL, aggregation TEXT NOT NULL, planned INTEGER, status TEXT NOT NULL,
  created TEXT NOT NULL, updated TEXT NOT NULL, version TEXT NOT NULL,
  shard_index INTEGER NOT NULL DEFAULT 0, shard_count INTEGER NOT NULL DEFAULT 1, run_planned INTEGER,
  aggregation_scope TEXT NOT NULL DEFAULT 'tokens');
CREATE TABLE snippets (
  idx INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  location TEXT,
  code TEXT NOT NULL,
  prompt_bytes INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
  message TEXT,
  cross_entropy REAL,
  asc_eval REAL,
  tokens INTEGER NOT NULL DEFAULT 0,
  ast_nodes INTEGER NOT NULL DEFAULT 0,
  ast_levels INTEGER NOT NULL DEFAULT 0,
  cyclomatic INTEGER NOT NULL DEFAULT 0,
  windowed INTEGER NOT NULL DEFAULT 0,
  seconds REAL,
  created TEXT NOT NULL,
  language TEXT);
CREATE TABLE tokens (
  snippet INTEGER NOT NULL REFERENCES snippets(idx),
  idx INTEGER NOT NULL,
  id INTEGER NOT NULL,
  start_byte INTEGER NOT NULL,
  end_byte INTEGER NOT NULL,
  ntp REAL,
  generated INTEGER NOT NULL DEFAULT 0,
  entropy REAL, topk_entropy REAL, p1 REAL, margin REAL, rank INTEGER,
  PRIMARY KEY (snippet, idx)) WITHOUT ROWID;
CREATE TABLE nodes (
  snippet INTEGER NOT NULL REFERENCES snippets(idx),
  node INTEGER NOT NULL,
  type TEXT NOT NULL,
  named INTEGER NOT NULL,
  category TEXT,
  depth INTEGER NOT NULL,
  parent INTEGER,
  start_byte INTEGER NOT NULL,
  end_byte INTEGER NOT NULL,
  error INTEGER NOT NULL DEFAULT 0,
  asc_eval REAL,
  PRIMARY KEY (snippet, node)) WITHOUT ROWID;
CREATE INDEX nodes_by_type ON nodes(type);
)sql";

// Opens a results file; a file SQLite cannot open is bad input (as a missing one is).
sqlite::Db openFile(const fs::path& path, const sqlite::OpenOptions& o)
{
    try {
        return sqlite::Db::open(path, o);
    } catch (const SqliteError& e) {
        throw InputError(e.what(), e.context());
    }
}

// Upgrades a file of `version` (< kSchemaVersion) in place, in one transaction.
void upgrade(const sqlite::Db& db, int version)
{
    const std::string what = "upgrading to schema version " + std::to_string(kSchemaVersion);
    sqlite::Transaction tx(db);
    if (version < 2)
        db.exec("ALTER TABLE snippets ADD COLUMN language TEXT", what);
    if (version < 3) {
        db.exec("ALTER TABLE run ADD COLUMN shard_index INTEGER NOT NULL DEFAULT 0", what);
        db.exec("ALTER TABLE run ADD COLUMN shard_count INTEGER NOT NULL DEFAULT 1", what);
        db.exec("ALTER TABLE run ADD COLUMN run_planned INTEGER", what);
        db.exec("UPDATE run SET run_planned = planned WHERE one = 1", what);
    }
    if (version < 4) // θ's scope: every older run aggregated over a node's own tokens
        db.exec("ALTER TABLE run ADD COLUMN aggregation_scope TEXT NOT NULL DEFAULT 'tokens'", what);
    if (version < 5) // the tokens' uncertainty (issue 59): NULL for every token an older AsC-Viz stored
        for (const char* col : {"entropy REAL", "topk_entropy REAL", "p1 REAL", "margin REAL", "rank INTEGER"})
            db.exec(std::string("ALTER TABLE tokens ADD COLUMN ") + col, what);
    db.exec("UPDATE run SET schema_version = " + std::to_string(kSchemaVersion) + " WHERE one = 1", what);
    tx.commit();
}

} // namespace

namespace resultsdb {

sqlite::OpenOptions openOptions(sqlite::OpenMode mode)
{
    sqlite::OpenOptions o;
    o.mode = mode;
    o.noMutex = true;
    o.label = "results database";
    o.advice.otherWriter = "another batch on the same file";
    if (mode != sqlite::OpenMode::ReadOnly) {
        // One transaction per snippet: whatever stops a run, the snippets stored before are whole, and the
        // run continues where it stopped.
        o.advice.kept = "every snippet stored so far is kept";
        o.advice.remedy = Remedy::Resume;
    }
    return o;
}

} // namespace resultsdb

std::string toString(RunStatus s)
{
    switch (s) {
    case RunStatus::Running:
        return "running";
    case RunStatus::Complete:
        return "complete";
    case RunStatus::Cancelled:
        return "cancelled";
    }
    return "running";
}

RunStatus parseRunStatus(const std::string& s)
{
    for (const RunStatus r : {RunStatus::Running, RunStatus::Complete, RunStatus::Cancelled})
        if (s == toString(r))
            return r;
    throw InputError("unknown run status '" + s + "' (running, complete or cancelled)");
}

ResultsDb::ResultsDb(sqlite::Db db, fs::path path) : m_db(std::move(db)), m_path(std::move(path))
{
}

ResultsDb ResultsDb::create(const fs::path& path, const RunInfo& info)
{
    std::error_code ec;
    if (fs::exists(path, ec)) {
        ErrorContext ctx(path.string());
        ctx.remedy = Remedy::Resume | Remedy::NewOutput;
        throw InputError("results database " + path.string() + " already exists", std::move(ctx));
    }
    if (path.has_parent_path() && !fs::is_directory(path.parent_path(), ec))
        throw InputError("cannot create results database " + path.string() + ": folder " + path.parent_path().string() +
                             " does not exist",
                         ErrorContext(path.string()));
    // Built under a temporary name and linked into place once the schema and the run row are committed:
    // a process killed meanwhile leaves no half-made file at `path` that a later resume would trip on.
    const fs::path tmp = path.string() + ".creating-" + std::to_string(::getpid());
    auto removeTmp = [&] {
        for (const char* suffix : {"", "-wal", "-shm", "-journal"})
            fs::remove(tmp.string() + suffix, ec);
    };
    removeTmp();
    try {
        const sqlite::Db building = openFile(tmp, resultsdb::openOptions(sqlite::OpenMode::Create));
        building.exec("PRAGMA journal_mode=WAL", "switching to write-ahead logging");
        sqlite::Transaction tx(building);
        building.exec(kSchema, "creating the schema");
        resultsdb::writeRunRow(building, info, true);
        tx.commit();
    } catch (...) {
        removeTmp();
        throw;
    }
    // link(2) never replaces a file that appeared at `path` meanwhile.
    if (::link(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        removeTmp();
        throw InputError("cannot create results database " + path.string() + ": " + std::strerror(err),
                         ErrorContext(path.string()));
    }
    removeTmp();
    ResultsDb db(openFile(path, resultsdb::openOptions(sqlite::OpenMode::ReadWrite)), path);
    db.m_schemaVersion = kSchemaVersion;
    db.m_db.exec("PRAGMA synchronous=NORMAL", "setting synchronous=NORMAL");
    return db;
}

ResultsDb ResultsDb::open(const fs::path& path, Mode mode)
{
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        throw InputError("results database not found: " + path.string(), ErrorContext(path.string()));
    sqlite::OpenOptions o =
        resultsdb::openOptions(mode == Mode::ReadOnly ? sqlite::OpenMode::ReadOnly : sqlite::OpenMode::ReadWrite);
    // Reading results in a folder we cannot write (an archive, a read-only share): SQLite cannot make the
    // WAL's shared-memory file there, so the file is opened as immutable (nobody of ours can write it).
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    o.immutable = mode == Mode::ReadOnly && ::access(dir.c_str(), W_OK) != 0 && !fs::exists(path.string() + "-wal", ec);
    ResultsDb db(openFile(path, o), path);
    int version = -1;
    try {
        sqlite::Stmt st(db.m_db, "SELECT schema_version FROM run WHERE one = 1", "reading the schema version");
        if (st.step())
            version = static_cast<int>(st.int64(0));
    } catch (const SqliteError& e) {
        if (e.failure() == SqliteFailure::Sql || e.failure() == SqliteFailure::NotADatabase)
            throw InputError(path.string() + " is not an AsC-Viz results database (no run table)",
                             ErrorContext(path.string()));
        throw InputError("cannot read " + std::string(e.what()), e.context());
    }
    if (version < 1 || version > kSchemaVersion)
        throw InputError(path.string() + ": unsupported results schema version " + std::to_string(version) +
                             " (this AsC-Viz reads versions 1 to " + std::to_string(kSchemaVersion) +
                             "; a newer AsC-Viz wrote it)",
                         ErrorContext(path.string()));
    if (mode == Mode::ReadWrite) {
        db.m_db.exec("PRAGMA journal_mode=WAL", "switching to write-ahead logging");
        db.m_db.exec("PRAGMA synchronous=NORMAL", "setting synchronous=NORMAL");
        if (version < kSchemaVersion) {
            upgrade(db.m_db, version);
            version = kSchemaVersion;
        }
    }
    db.m_schemaVersion = version;
    return db;
}

} // namespace ascviz
