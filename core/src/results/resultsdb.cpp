// The results database (SQLite): schema, incremental writer and readers.
#include "ascviz/results/resultsdb.h"

#include "ascviz/eval/eval.h"

#include "ascviz/base/error.h"

#include <sqlite3.h>

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <utility>

#ifndef ASCVIZ_CORE_VERSION
#define ASCVIZ_CORE_VERSION "unknown"
#endif

namespace ascviz {
namespace fs = std::filesystem;

std::string ascvizVersion()
{
    return ASCVIZ_CORE_VERSION;
}

std::string isoTimestampUtc()
{
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

namespace {

// 2: snippets.language (the snippet's language; mixed-language corpora). Version-1 files are read as
// written (every snippet in the run's language) and upgraded in place when opened for writing.
// 3: run.shard_index, run.shard_count, run.run_planned (a shard of a run: batch --shard I/N). Older files
// read as whole runs (shard 0 of 1) and are upgraded in place when opened for writing.
constexpr int kSchemaVersion = 3;

const char* kSchema = R"sql(
CREATE TABLE run (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  schema_version INTEGER NOT NULL,
  model_name TEXT NOT NULL, model_dir TEXT NOT NULL, architecture TEXT, device TEXT, dtype TEXT,
  parameters INTEGER, context_length INTEGER, vocab_size INTEGER,
  corpus_path TEXT NOT NULL, corpus_format TEXT, corpus_fingerprint TEXT NOT NULL, corpus_entries INTEGER,
  language TEXT NOT NULL, aggregation TEXT NOT NULL, planned INTEGER, status TEXT NOT NULL,
  created TEXT NOT NULL, updated TEXT NOT NULL, version TEXT NOT NULL,
  shard_index INTEGER NOT NULL DEFAULT 0, shard_count INTEGER NOT NULL DEFAULT 1, run_planned INTEGER);
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

// What the user can do about a failed SQLite call (its extended result code): every snippet stored before
// is kept (one transaction per snippet), so each case ends in --resume.
std::string advice(int code, const std::string& file)
{
    const std::string f = file.empty() ? std::string("the results database") : file;
    switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return " (" + f +
               " is in use by another process, e.g. another batch on the same file: wait for it to end, "
               "then continue with --resume)";
    case SQLITE_FULL:
        return " (the disk or the file size limit is full: free space, then continue with --resume; every snippet "
               "stored so far is kept)";
    case SQLITE_IOERR:
        return " (writing " + f +
               " failed — a full disk, a file size limit or a failing device: fix it, then continue "
               "with --resume; every snippet stored so far is kept)";
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
        return " (" + f +
               " or its folder is not writable (the write-ahead log lives beside it): make both writable, "
               "or copy the file to a writable folder and continue there with --resume)";
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return " (" + f + " is damaged or not a results database)";
    default:
        return {};
    }
}

std::string dbFile(sqlite3* db)
{
    const char* f = db ? sqlite3_db_filename(db, "main") : nullptr;
    return f ? f : "";
}

[[noreturn]] void fail(sqlite3* db, const std::string& what)
{
    if (!db)
        throw Error(what + ": out of memory");
    throw Error(what + ": " + sqlite3_errmsg(db) + advice(sqlite3_extended_errcode(db), dbFile(db)));
}

void exec(sqlite3* db, const char* sql, const std::string& what)
{
    char* err = nullptr;
    if (const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err); rc != SQLITE_OK) {
        std::string msg = err ? err : sqlite3_errmsg(db);
        sqlite3_free(err);
        throw Error(what + ": " + msg + advice(sqlite3_extended_errcode(db), dbFile(db)));
    }
}

// A prepared statement, finalized on scope exit.
class Stmt {
public:
    Stmt(sqlite3* db, const char* sql) : m_db(db)
    {
        if (sqlite3_prepare_v2(db, sql, -1, &m_st, nullptr) != SQLITE_OK)
            fail(db, std::string("results DB: cannot prepare \"") + sql + "\"");
    }
    ~Stmt() { sqlite3_finalize(m_st); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    Stmt& bind(int i, int64_t v)
    {
        check(sqlite3_bind_int64(m_st, i, v));
        return *this;
    }
    Stmt& bind(int i, double v)
    {
        check(sqlite3_bind_double(m_st, i, v));
        return *this;
    }
    Stmt& bind(int i, const std::string& v)
    {
        check(sqlite3_bind_text(m_st, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
        return *this;
    }
    Stmt& bind(int i, const std::optional<double>& v)
    {
        check(v ? sqlite3_bind_double(m_st, i, *v) : sqlite3_bind_null(m_st, i));
        return *this;
    }
    Stmt& bindNull(int i)
    {
        check(sqlite3_bind_null(m_st, i));
        return *this;
    }
    // true: a row is available
    bool step()
    {
        const int rc = sqlite3_step(m_st);
        if (rc == SQLITE_ROW)
            return true;
        if (rc == SQLITE_DONE)
            return false;
        fail(m_db, "results DB");
    }
    void run()
    {
        step();
        sqlite3_reset(m_st);
        sqlite3_clear_bindings(m_st);
    }
    int64_t i64(int c) const { return sqlite3_column_int64(m_st, c); }
    double dbl(int c) const { return sqlite3_column_double(m_st, c); }
    bool isNull(int c) const { return sqlite3_column_type(m_st, c) == SQLITE_NULL; }
    std::optional<double> optDbl(int c) const { return isNull(c) ? std::nullopt : std::optional<double>(dbl(c)); }
    std::string str(int c) const
    {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_st, c));
        return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(m_st, c))) : std::string();
    }
    sqlite3_stmt* get() const { return m_st; }

private:
    void check(int rc)
    {
        if (rc != SQLITE_OK)
            fail(m_db, "results DB: bind");
    }
    sqlite3* m_db;
    sqlite3_stmt* m_st = nullptr;
};

// A path as a file: URI (RFC 3986 percent-encoding of everything but unreserved characters and '/').
std::string uriPath(const fs::path& p)
{
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : p.string()) {
        if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

sqlite3* openHandle(const std::string& name, int flags)
{
    sqlite3* db = nullptr;
    const int rc = sqlite3_open_v2(name.c_str(), &db, flags, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
        sqlite3_close(db);
        throw InputError("cannot open results database " + name + ": " + msg);
    }
    sqlite3_busy_timeout(db, 5000);
    sqlite3_extended_result_codes(db, 1);
    return db;
}

void writeRunRow(sqlite3* db, const RunInfo& r, bool insert)
{
    const char* sql =
        insert
            ? "INSERT INTO run (one, schema_version, model_name, model_dir, architecture, device, dtype, parameters, "
              "context_length, vocab_size, corpus_path, corpus_format, corpus_fingerprint, corpus_entries, language, "
              "aggregation, planned, status, created, updated, version, shard_index, shard_count, run_planned) VALUES "
              "(1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, "
              "?22, ?23)"
            : "UPDATE run SET schema_version = ?1, model_name = ?2, model_dir = ?3, architecture = ?4, device = ?5, "
              "dtype = ?6, parameters = ?7, context_length = ?8, vocab_size = ?9, corpus_path = ?10, "
              "corpus_format = ?11, corpus_fingerprint = ?12, corpus_entries = ?13, language = ?14, "
              "aggregation = ?15, planned = ?16, status = ?17, created = ?18, updated = ?19, version = ?20, "
              "shard_index = ?21, shard_count = ?22, run_planned = ?23 WHERE one = 1";
    Stmt st(db, sql);
    st.bind(1, int64_t{kSchemaVersion})
        .bind(2, r.modelName)
        .bind(3, r.modelDir)
        .bind(4, r.architecture)
        .bind(5, r.device)
        .bind(6, r.dtype)
        .bind(7, r.parameters)
        .bind(8, r.contextLength)
        .bind(9, r.vocabSize)
        .bind(10, r.corpusPath)
        .bind(11, r.corpusFormat)
        .bind(12, r.corpusFingerprint)
        .bind(13, r.corpusEntries)
        .bind(14, r.language)
        .bind(15, r.aggregation)
        .bind(16, r.planned)
        .bind(17, r.status)
        .bind(18, r.created.empty() ? isoTimestampUtc() : r.created)
        .bind(19, r.updated.empty() ? isoTimestampUtc() : r.updated)
        .bind(20, r.version.empty() ? ascvizVersion() : r.version)
        .bind(21, int64_t{r.shardIndex})
        .bind(22, int64_t{r.shardCount})
        .bind(23, r.runPlanned > 0 ? r.runPlanned : r.planned);
    st.run();
}

// Rolls back unless committed.
class Transaction {
public:
    explicit Transaction(sqlite3* db) : m_db(db) { exec(db, "BEGIN IMMEDIATE", "results DB: begin"); }
    ~Transaction()
    {
        if (!m_done)
            sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    void commit()
    {
        exec(m_db, "COMMIT", "results DB: commit");
        m_done = true;
    }

private:
    sqlite3* m_db;
    bool m_done = false;
};

} // namespace

ResultsDb::ResultsDb(sqlite3* db, fs::path path) : m_db(db), m_path(std::move(path))
{
}

ResultsDb::ResultsDb(ResultsDb&& o) noexcept
    : m_db(std::exchange(o.m_db, nullptr)), m_path(std::move(o.m_path)), m_schemaVersion(o.m_schemaVersion)
{
}

ResultsDb& ResultsDb::operator=(ResultsDb&& o) noexcept
{
    if (this != &o) {
        sqlite3_close(m_db);
        m_db = std::exchange(o.m_db, nullptr);
        m_path = std::move(o.m_path);
        m_schemaVersion = o.m_schemaVersion;
    }
    return *this;
}

ResultsDb::~ResultsDb()
{
    sqlite3_close(m_db);
}

ResultsDb ResultsDb::create(const fs::path& path, const RunInfo& info)
{
    std::error_code ec;
    if (fs::exists(path, ec))
        throw InputError("results database " + path.string() +
                         " already exists; use --resume to continue it or choose another file");
    if (path.has_parent_path() && !fs::is_directory(path.parent_path(), ec))
        throw InputError("cannot create results database " + path.string() + ": folder " + path.parent_path().string() +
                         " does not exist");
    // Built under a temporary name and linked into place once the schema and the run row are committed:
    // a process killed meanwhile leaves no half-made file at `path` that a later --resume would trip on.
    const fs::path tmp = path.string() + ".creating-" + std::to_string(::getpid());
    auto removeTmp = [&] {
        for (const char* suffix : {"", "-wal", "-shm", "-journal"})
            fs::remove(tmp.string() + suffix, ec);
    };
    removeTmp();
    try {
        sqlite3* h = openHandle(tmp.string(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX);
        ResultsDb building(h, tmp);
        exec(h, "PRAGMA journal_mode=WAL", "results DB: WAL");
        Transaction tx(h);
        exec(h, kSchema, "results DB: schema");
        writeRunRow(h, info, true);
        tx.commit();
    } catch (...) {
        removeTmp();
        throw;
    }
    // link(2) never replaces a file that appeared at `path` meanwhile.
    if (::link(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        removeTmp();
        throw InputError("cannot create results database " + path.string() + ": " + std::strerror(err));
    }
    removeTmp();
    sqlite3* h = openHandle(path.string(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX);
    ResultsDb db(h, path);
    db.m_schemaVersion = kSchemaVersion;
    exec(h, "PRAGMA synchronous=NORMAL", "results DB: synchronous");
    return db;
}

ResultsDb ResultsDb::open(const fs::path& path, Mode mode)
{
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        throw InputError("results database not found: " + path.string());
    int flags = (mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX;
    std::string name = path.string();
    // Reading results in a folder we cannot write (an archive, a read-only share): SQLite cannot make the
    // WAL's shared-memory file there, so the file is opened as immutable (nobody of ours can write it).
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    if (mode == Mode::ReadOnly && ::access(dir.c_str(), W_OK) != 0 && !fs::exists(path.string() + "-wal", ec)) {
        name = "file:" + uriPath(fs::absolute(path, ec)) + "?immutable=1";
        flags |= SQLITE_OPEN_URI;
    }
    ResultsDb db(openHandle(name, flags), path);
    int version = -1;
    try {
        Stmt st(db.m_db, "SELECT schema_version FROM run WHERE one = 1");
        if (st.step())
            version = static_cast<int>(st.i64(0));
    } catch (const Error& e) {
        const int code = sqlite3_extended_errcode(db.m_db) & 0xff;
        if (code == SQLITE_ERROR || code == SQLITE_NOTADB)
            throw InputError(path.string() + " is not an AsC-Viz results database (no run table)");
        throw InputError(std::string("cannot read results database ") + path.string() + ": " + e.what());
    }
    if (version < 1 || version > kSchemaVersion)
        throw InputError(path.string() + ": unsupported results schema version " + std::to_string(version) +
                         " (this AsC-Viz reads versions 1 to " + std::to_string(kSchemaVersion) +
                         "; a newer AsC-Viz wrote it)");
    if (mode == Mode::ReadWrite) {
        exec(db.m_db, "PRAGMA journal_mode=WAL", "results DB: WAL");
        exec(db.m_db, "PRAGMA synchronous=NORMAL", "results DB: synchronous");
        if (version < kSchemaVersion) {
            const std::string what = "results DB: upgrading to version " + std::to_string(kSchemaVersion);
            Transaction tx(db.m_db);
            if (version < 2)
                exec(db.m_db, "ALTER TABLE snippets ADD COLUMN language TEXT", what);
            exec(db.m_db, "ALTER TABLE run ADD COLUMN shard_index INTEGER NOT NULL DEFAULT 0", what);
            exec(db.m_db, "ALTER TABLE run ADD COLUMN shard_count INTEGER NOT NULL DEFAULT 1", what);
            exec(db.m_db, "ALTER TABLE run ADD COLUMN run_planned INTEGER", what);
            exec(db.m_db, "UPDATE run SET run_planned = planned WHERE one = 1", what);
            exec(db.m_db,
                 ("UPDATE run SET schema_version = " + std::to_string(kSchemaVersion) + " WHERE one = 1").c_str(),
                 what);
            tx.commit();
            version = kSchemaVersion;
        }
    }
    db.m_schemaVersion = version;
    return db;
}

void ResultsDb::writeSnippet(const SnippetMeta& m, const EvalResult* r)
{
    Transaction tx(m_db);
    {
        if (m_schemaVersion < kSchemaVersion)
            throw Error("results DB " + m_path.string() + ": opened read-only as schema version " +
                        std::to_string(m_schemaVersion));
        Stmt st(m_db, "INSERT INTO snippets (idx, id, location, code, prompt_bytes, status, message, cross_entropy, "
                      "asc_eval, tokens, ast_nodes, ast_levels, cyclomatic, windowed, seconds, created, language) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)");
        st.bind(1, m.index).bind(2, m.id).bind(3, m.location).bind(4, m.code);
        st.bind(5, static_cast<int64_t>(m.promptBytes)).bind(6, std::string(m.ok && r ? "ok" : "error"));
        if (m.message.empty())
            st.bindNull(7);
        else
            st.bind(7, m.message);
        if (r) {
            const double ce = r->scored.crossEntropy();
            st.bind(8, ce == ce ? std::optional<double>(ce) : std::nullopt);
            st.bind(9, r->features.ascEval);
            st.bind(10, int64_t{r->features.tokens})
                .bind(11, int64_t{r->features.astNodes})
                .bind(12, int64_t{r->features.astLevels})
                .bind(13, int64_t{r->features.cyclomatic});
        } else {
            st.bindNull(8).bindNull(9);
            st.bind(10, int64_t{0}).bind(11, int64_t{0}).bind(12, int64_t{0}).bind(13, int64_t{0});
        }
        st.bind(14, int64_t{m.windowed ? 1 : 0}).bind(15, m.seconds).bind(16, isoTimestampUtc());
        if (m.language.empty())
            st.bindNull(17);
        else
            st.bind(17, m.language);
        const int rc = sqlite3_step(st.get());
        if (rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE)
            throw Error("results DB: snippet " + std::to_string(m.index) + " ('" + m.id + "') is already stored");
        if (rc != SQLITE_DONE)
            fail(m_db, "results DB: writing snippet " + m.id);
    }
    if (r) {
        Stmt tk(m_db, "INSERT INTO tokens (snippet, idx, id, start_byte, end_byte, ntp, generated) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        const auto& toks = r->scored.tokens;
        for (std::size_t i = 0; i < toks.size(); ++i) {
            const auto& t = toks[i];
            tk.bind(1, m.index)
                .bind(2, static_cast<int64_t>(i))
                .bind(3, int64_t{t.id})
                .bind(4, static_cast<int64_t>(t.start))
                .bind(5, static_cast<int64_t>(t.end))
                .bind(6, t.ntp)
                .bind(7, int64_t{t.generated ? 1 : 0});
            tk.run();
        }
        Stmt nd(m_db, "INSERT INTO nodes (snippet, node, type, named, category, depth, parent, start_byte, end_byte, "
                      "error, asc_eval) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
        const auto& nodes = r->tree.nodes();
        for (std::size_t k = 0; k < nodes.size(); ++k) {
            const auto& n = nodes[k];
            const NodeEval* ev = k < r->nodes.size() ? &r->nodes[k] : nullptr;
            nd.bind(1, m.index).bind(2, int64_t{n.id}).bind(3, n.type).bind(4, int64_t{n.named ? 1 : 0});
            if (ev && ev->category)
                nd.bind(5, *ev->category);
            else
                nd.bindNull(5);
            nd.bind(6, int64_t{n.depth});
            if (n.parent >= 0)
                nd.bind(7, int64_t{n.parent});
            else
                nd.bindNull(7);
            nd.bind(8, static_cast<int64_t>(n.start))
                .bind(9, static_cast<int64_t>(n.end))
                .bind(10, int64_t{n.error() ? 1 : 0})
                .bind(11, ev ? ev->value : std::nullopt);
            nd.run();
        }
    }
    {
        Stmt up(m_db, "UPDATE run SET updated = ?1 WHERE one = 1");
        up.bind(1, isoTimestampUtc());
        up.run();
    }
    tx.commit();
}

void ResultsDb::updateRun(const RunInfo& info)
{
    RunInfo r = info;
    r.updated = isoTimestampUtc();
    writeRunRow(m_db, r, false);
}

void ResultsDb::copySnippetsFrom(const fs::path& other)
{
    const ResultsDb src = open(other); // validates the file and tells its schema
    const bool hasLanguage = src.schemaVersion() >= 2;
    {
        Stmt at(m_db, "ATTACH DATABASE ?1 AS src");
        at.bind(1, other.string());
        at.step();
    }
    try {
        Transaction tx(m_db);
        const std::string cols = "idx, id, location, code, prompt_bytes, status, message, cross_entropy, asc_eval, "
                                 "tokens, ast_nodes, ast_levels, cyclomatic, windowed, seconds, created";
        const std::string snippets = "INSERT INTO main.snippets (" + cols + ", language) SELECT " + cols + ", " +
                                     (hasLanguage ? "language" : "NULL") + " FROM src.snippets ORDER BY idx";
        exec(m_db, snippets.c_str(), "results DB: copying snippets from " + other.string());
        exec(m_db,
             "INSERT INTO main.tokens (snippet, idx, id, start_byte, end_byte, ntp, generated) SELECT snippet, idx, "
             "id, start_byte, end_byte, ntp, generated FROM src.tokens ORDER BY snippet, idx",
             "results DB: copying tokens from " + other.string());
        exec(m_db,
             "INSERT INTO main.nodes (snippet, node, type, named, category, depth, parent, start_byte, end_byte, "
             "error, asc_eval) SELECT snippet, node, type, named, category, depth, parent, start_byte, end_byte, "
             "error, asc_eval FROM src.nodes ORDER BY snippet, node",
             "results DB: copying nodes from " + other.string());
        tx.commit();
    } catch (...) {
        sqlite3_exec(m_db, "DETACH DATABASE src", nullptr, nullptr, nullptr);
        throw;
    }
    exec(m_db, "DETACH DATABASE src", "results DB: detach");
}

RunInfo ResultsDb::runInfo() const
{
    const std::string sql = std::string("SELECT model_name, model_dir, architecture, device, dtype, parameters, "
                                        "context_length, vocab_size, corpus_path, corpus_format, corpus_fingerprint, "
                                        "corpus_entries, language, aggregation, planned, status, created, updated, "
                                        "version") +
                            (m_schemaVersion >= 3 ? ", shard_index, shard_count, run_planned" : "") +
                            " FROM run WHERE one = 1";
    Stmt st(m_db, sql.c_str());
    if (!st.step())
        throw InputError(m_path.string() + ": the run row is missing");
    RunInfo r;
    r.modelName = st.str(0);
    r.modelDir = st.str(1);
    r.architecture = st.str(2);
    r.device = st.str(3);
    r.dtype = st.str(4);
    r.parameters = st.i64(5);
    r.contextLength = st.i64(6);
    r.vocabSize = st.i64(7);
    r.corpusPath = st.str(8);
    r.corpusFormat = st.str(9);
    r.corpusFingerprint = st.str(10);
    r.corpusEntries = st.i64(11);
    r.language = st.str(12);
    r.aggregation = st.str(13);
    r.planned = st.i64(14);
    r.status = st.str(15);
    r.created = st.str(16);
    r.updated = st.str(17);
    r.version = st.str(18);
    if (m_schemaVersion >= 3) {
        r.shardIndex = static_cast<int>(st.i64(19));
        r.shardCount = static_cast<int>(st.i64(20));
        r.runPlanned = st.isNull(21) ? r.planned : st.i64(21);
    } else {
        r.runPlanned = r.planned;
    }
    return r;
}

std::set<int64_t> ResultsDb::doneIndices() const
{
    std::set<int64_t> out;
    Stmt st(m_db, "SELECT idx FROM snippets");
    while (st.step())
        out.insert(st.i64(0));
    return out;
}

TableCounts ResultsDb::counts() const
{
    TableCounts c;
    {
        Stmt st(m_db, "SELECT COUNT(*), COALESCE(SUM(status = 'ok'), 0), COALESCE(SUM(status = 'error'), 0), "
                      "COALESCE(SUM(windowed), 0) FROM snippets");
        st.step();
        c.snippets = st.i64(0);
        c.ok = st.i64(1);
        c.errors = st.i64(2);
        c.windowed = st.i64(3);
    }
    {
        Stmt st(m_db, "SELECT COUNT(*) FROM tokens");
        st.step();
        c.tokens = st.i64(0);
    }
    {
        Stmt st(m_db, "SELECT COUNT(*) FROM nodes");
        st.step();
        c.nodes = st.i64(0);
    }
    return c;
}

std::vector<SnippetRow> ResultsDb::snippets() const
{
    std::vector<SnippetRow> out;
    const std::string sql = "SELECT idx, id, location, status, message, cross_entropy, asc_eval, tokens, ast_nodes, "
                            "ast_levels, cyclomatic, windowed, prompt_bytes, seconds, " +
                            languageColumn("") + " FROM snippets ORDER BY idx";
    Stmt st(m_db, sql.c_str());
    while (st.step()) {
        SnippetRow r;
        r.index = st.i64(0);
        r.id = st.str(1);
        r.location = st.str(2);
        r.ok = st.str(3) == "ok";
        r.message = st.str(4);
        r.crossEntropy = st.optDbl(5);
        r.ascEval = st.optDbl(6);
        r.tokens = static_cast<int>(st.i64(7));
        r.astNodes = static_cast<int>(st.i64(8));
        r.astLevels = static_cast<int>(st.i64(9));
        r.cyclomatic = static_cast<int>(st.i64(10));
        r.windowed = st.i64(11) != 0;
        r.promptBytes = static_cast<std::size_t>(st.i64(12));
        r.seconds = st.dbl(13);
        r.language = st.str(14);
        out.push_back(std::move(r));
    }
    return out;
}

std::string ResultsDb::snippetCode(int64_t index) const
{
    Stmt st(m_db, "SELECT code FROM snippets WHERE idx = ?1");
    st.bind(1, index);
    if (!st.step())
        throw InputError(m_path.string() + ": no snippet with index " + std::to_string(index));
    return st.str(0);
}

std::string ResultsDb::languageColumn(const std::string& alias) const
{
    // A snippet without a language of its own (schema 1, or written without one) is in the run's language.
    const std::string col = alias.empty() ? "language" : alias + ".language";
    return m_schemaVersion >= 2 ? "COALESCE(" + col + ", (SELECT language FROM run WHERE one = 1))"
                                : std::string("(SELECT language FROM run WHERE one = 1)");
}

std::map<std::string, int64_t> ResultsDb::languages() const
{
    std::map<std::string, int64_t> out;
    const std::string sql = "SELECT " + languageColumn("") +
                            " AS lang, COUNT(*) FROM snippets WHERE status = 'ok' "
                            "GROUP BY lang";
    Stmt st(m_db, sql.c_str());
    while (st.step())
        out[st.str(0)] = st.i64(1);
    return out;
}

ResultsDb::NodeValues ResultsDb::nodeValues(const CategoryMap* table) const
{
    NodeValueQuery q;
    if (table)
        q.table = [table](const std::string&) { return table; };
    return nodeValues(q);
}

ResultsDb::NodeValues ResultsDb::nodeValues(const NodeValueQuery& q) const
{
    NodeValues v;
    std::string sql = "SELECT n.type, n.category, n.asc_eval, " + languageColumn("s") +
                      " AS lang FROM nodes n JOIN snippets s ON s.idx = n.snippet "
                      "WHERE s.status = 'ok' AND n.asc_eval IS NOT NULL";
    if (q.language)
        sql += " AND " + languageColumn("s") + " = ?1";
    sql += " ORDER BY n.snippet, n.node";
    Stmt st(m_db, sql.c_str());
    if (q.language)
        st.bind(1, *q.language);
    std::string lastLang;
    const CategoryMap* table = nullptr;
    while (st.step()) {
        std::string type = st.str(0);
        const double value = st.dbl(2);
        const std::string lang = st.str(3);
        if (q.table && (table == nullptr || lang != lastLang)) {
            table = q.table(lang);
            lastLang = lang;
        }
        std::optional<std::string> category;
        if (table)
            category = table->categoryOf(type);
        else if (!q.table && !st.isNull(1))
            category = st.str(1);
        if (q.qualifyConcepts)
            type = lang + ":" + type;
        if (category) {
            std::string cat = std::move(*category);
            v.byCategory[cat].push_back(value);
            v.categoryOf.emplace(type, std::move(cat));
        }
        v.byConcept[std::move(type)].push_back(value);
    }
    return v;
}

void ResultsDb::query(const std::string& sql,
                      const std::function<void(const std::vector<std::optional<std::string>>&)>& row) const
{
    Stmt st(m_db, sql.c_str());
    const int n = sqlite3_column_count(st.get());
    std::vector<std::optional<std::string>> cols(static_cast<std::size_t>(n));
    while (st.step()) {
        for (int c = 0; c < n; ++c)
            cols[static_cast<std::size_t>(c)] = st.isNull(c) ? std::nullopt : std::optional<std::string>(st.str(c));
        row(cols);
    }
}

} // namespace ascviz
