// The one SQLite layer (sqlite.h).
#include "ascviz/results/sqlite.h"

#include <sqlite3.h>

#include <cctype>
#include <utility>

namespace ascviz {

SqliteError::SqliteError(const std::string& message, ErrorContext context, int code)
    : Error(message, std::move(context)), m_code(code)
{
}

namespace {

SqliteFailure failureOf(int code)
{
    switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return SqliteFailure::Busy;
    case SQLITE_CONSTRAINT:
        return SqliteFailure::Constraint;
    case SQLITE_FULL:
        return SqliteFailure::Full;
    case SQLITE_IOERR:
        return SqliteFailure::Io;
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
        return SqliteFailure::NotWritable;
    case SQLITE_CORRUPT:
        return SqliteFailure::Corrupt;
    case SQLITE_NOTADB:
        return SqliteFailure::NotADatabase;
    case SQLITE_ERROR:
        return SqliteFailure::Sql;
    default:
        return SqliteFailure::Other;
    }
}

} // namespace

SqliteFailure SqliteError::failure() const
{
    return failureOf(m_code);
}

namespace sqlite {
namespace fs = std::filesystem;

namespace {

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

// The situation behind a failure, in words, and whether the owner's remedy applies to it.
std::string situation(SqliteFailure f, const std::string& file, const std::string& label, const FailureAdvice& a,
                      bool* recoverable)
{
    const std::string kept = a.kept.empty() ? std::string() : "; " + a.kept;
    *recoverable = true;
    switch (f) {
    case SqliteFailure::Busy:
        return " (" + file + " is in use by another process" +
               (a.otherWriter.empty() ? std::string() : ", e.g. " + a.otherWriter) + ": wait for it to end)";
    case SqliteFailure::Full:
        return " (the disk or the file size limit is full: free space" + kept + ")";
    case SqliteFailure::Io:
        return " (writing " + file + " failed — a full disk, a file size limit or a failing device: fix it" + kept +
               ")";
    case SqliteFailure::NotWritable:
        return " (" + file +
               " or its folder is not writable (the write-ahead log lives beside it): make both writable, or copy "
               "the file to a writable folder and continue there)";
    case SqliteFailure::Corrupt:
    case SqliteFailure::NotADatabase:
        *recoverable = false;
        return " (" + file + " is damaged or not a " + label + ")";
    default:
        *recoverable = false;
        return {};
    }
}

} // namespace

Db Db::open(const fs::path& path, const OpenOptions& o)
{
    Db db;
    db.m_path = path;
    db.m_label = o.label;
    db.m_advice = o.advice;
    int flags = o.mode == OpenMode::ReadOnly    ? SQLITE_OPEN_READONLY
                : o.mode == OpenMode::ReadWrite ? SQLITE_OPEN_READWRITE
                                                : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (o.noMutex)
        flags |= SQLITE_OPEN_NOMUTEX;
    std::string name = path.string();
    if (o.immutable && o.mode == OpenMode::ReadOnly) {
        std::error_code ec;
        name = "file:" + uriPath(fs::absolute(path, ec)) + "?immutable=1";
        flags |= SQLITE_OPEN_URI;
    }
    const int rc = sqlite3_open_v2(name.c_str(), &db.m_db, flags, nullptr);
    if (rc != SQLITE_OK) {
        const std::string msg = db.m_db ? sqlite3_errmsg(db.m_db) : sqlite3_errstr(rc);
        throw SqliteError("cannot open " + o.label + " " + path.string() + ": " + msg, ErrorContext(path.string()),
                          db.m_db ? sqlite3_extended_errcode(db.m_db) : rc);
    }
    sqlite3_busy_timeout(db.m_db, o.busyTimeoutMs);
    sqlite3_extended_result_codes(db.m_db, 1);
    return db;
}

Db::Db(Db&& o) noexcept
    : m_db(std::exchange(o.m_db, nullptr)), m_path(std::move(o.m_path)), m_label(std::move(o.m_label)),
      m_advice(std::move(o.m_advice))
{
}

Db& Db::operator=(Db&& o) noexcept
{
    if (this != &o) {
        sqlite3_close(m_db);
        m_db = std::exchange(o.m_db, nullptr);
        m_path = std::move(o.m_path);
        m_label = std::move(o.m_label);
        m_advice = std::move(o.m_advice);
    }
    return *this;
}

Db::~Db()
{
    sqlite3_close(m_db);
}

void Db::fail(int rc, const std::string& purpose) const
{
    // A failed call leaves its code and message on the connection; a bind's code may be its own only.
    const bool own = m_db && (sqlite3_extended_errcode(m_db) & 0xff) == (rc & 0xff);
    const int code = own ? sqlite3_extended_errcode(m_db) : rc;
    const std::string msg = !m_db ? std::string("no open connection") : own ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    ErrorContext ctx(m_path.string());
    bool recoverable = false;
    const std::string words = situation(failureOf(code), m_path.string(), m_label, m_advice, &recoverable);
    if (recoverable)
        ctx.remedy = m_advice.remedy;
    throw SqliteError(m_label + " " + m_path.string() + ": " + purpose + ": " + msg + words, std::move(ctx), code);
}

void Db::exec(const std::string& sql, const std::string& purpose) const
{
    char* err = nullptr;
    const int rc = sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err);
    sqlite3_free(err); // the same text as sqlite3_errmsg
    if (rc != SQLITE_OK)
        fail(rc, purpose);
}

Stmt::Stmt(const Db& db, std::string_view sql, std::string purpose) : m_db(db), m_purpose(std::move(purpose))
{
    const int rc = sqlite3_prepare_v2(db.m_db, sql.data(), static_cast<int>(sql.size()), &m_st, nullptr);
    if (rc != SQLITE_OK)
        db.fail(rc, m_purpose);
}

Stmt::~Stmt()
{
    sqlite3_finalize(m_st);
}

Stmt& Stmt::check(int rc, int i, const char* what)
{
    if (rc != SQLITE_OK)
        m_db.fail(rc, m_purpose + " (binding " + what + " to parameter " + std::to_string(i) + ")");
    return *this;
}

Stmt& Stmt::bind(int i, int64_t v)
{
    return check(sqlite3_bind_int64(m_st, i, v), i, "an integer");
}

Stmt& Stmt::bind(int i, double v)
{
    return check(sqlite3_bind_double(m_st, i, v), i, "a real");
}

Stmt& Stmt::bind(int i, std::string_view v)
{
    return check(sqlite3_bind_text(m_st, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT), i, "a text");
}

Stmt& Stmt::bindNull(int i)
{
    return check(sqlite3_bind_null(m_st, i), i, "NULL");
}

bool Stmt::step()
{
    const int rc = sqlite3_step(m_st);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    m_db.fail(rc, m_purpose);
}

void Stmt::run()
{
    while (step()) {
    }
    reset();
    sqlite3_clear_bindings(m_st);
}

void Stmt::reset()
{
    sqlite3_reset(m_st);
}

int Stmt::columns() const
{
    return sqlite3_column_count(m_st);
}

bool Stmt::isNull(int c) const
{
    return sqlite3_column_type(m_st, c) == SQLITE_NULL;
}

int64_t Stmt::int64(int c) const
{
    return sqlite3_column_int64(m_st, c);
}

double Stmt::real(int c) const
{
    return sqlite3_column_double(m_st, c);
}

std::string Stmt::text(int c) const
{
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_st, c));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(m_st, c))) : std::string();
}

std::optional<int64_t> Stmt::optionalInt64(int c) const
{
    return isNull(c) ? std::nullopt : std::optional<int64_t>(int64(c));
}

std::optional<double> Stmt::optionalReal(int c) const
{
    return isNull(c) ? std::nullopt : std::optional<double>(real(c));
}

std::optional<std::string> Stmt::optionalText(int c) const
{
    return isNull(c) ? std::nullopt : std::optional<std::string>(text(c));
}

Transaction::Transaction(const Db& db, Kind kind) : m_db(db)
{
    db.exec(kind == Kind::Immediate ? "BEGIN IMMEDIATE" : "BEGIN", "beginning a transaction");
}

Transaction::~Transaction()
{
    if (!m_done)
        sqlite3_exec(m_db.m_db, "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit()
{
    m_db.exec("COMMIT", "committing a transaction");
    m_done = true;
}

} // namespace sqlite
} // namespace ascviz
