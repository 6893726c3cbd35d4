// The one SQLite layer of core: every SQLite call of AsC-Viz goes through these classes (the results
// database, its shards and merge, statistics, the study's responses file).
//
//   Db           an open connection (RAII): open mode, busy timeout, exec of whole SQL scripts
//   Stmt         a prepared statement: checked binds, step, typed column reads
//   Transaction  BEGIN ... COMMIT, rolled back unless committed (RAII)
//
// Every failure throws SqliteError: its message names the file (with the Db's label, e.g. "results database
// /runs/a.db"), the purpose of the SQL ("writing snippet 12"), SQLite's own message and, where the situation
// is known (busy, full, I/O, not writable, damaged), what happened in words; ErrorContext::path is the file and
// ErrorContext::remedy is the Db's FailureAdvice::remedy for the situations the user can recover from.
#pragma once
#include "ascviz/base/error.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace ascviz {

// What went wrong, from SQLite's result code.
enum class SqliteFailure {
    Busy,         // another connection holds a lock (SQLITE_BUSY, SQLITE_LOCKED) past the busy timeout
    Constraint,   // a PRIMARY KEY, UNIQUE, NOT NULL, CHECK or foreign key constraint
    Full,         // the disk or the file size limit is full
    Io,           // a read or write of the file failed
    NotWritable,  // the file or its folder cannot be written (SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM)
    Corrupt,      // the file is damaged
    NotADatabase, // the file is not SQLite
    Sql,          // an SQL error: a missing table or column, a syntax error (SQLITE_ERROR)
    Other,        // anything else (a bind index out of range, out of memory ...)
};

class SqliteError : public Error {
public:
    SqliteError(const std::string& message, ErrorContext context, int code);
    int code() const { return m_code; } // SQLite's extended result code
    SqliteFailure failure() const;
    bool busy() const { return failure() == SqliteFailure::Busy; }

private:
    int m_code;
};

namespace sqlite {

// What the owner of a file adds to the message of a failure the user can recover from (busy, full, I/O, not
// writable), and the remedy it sets.
struct FailureAdvice {
    std::string otherWriter; // who else may hold the file: "another batch on the same file"
    std::string kept;        // what a failed write keeps: "every snippet stored so far is kept"
    Remedy remedy = Remedy::None;
};

enum class OpenMode {
    ReadOnly,
    ReadWrite,
    Create, // read-write, created when missing
};

struct OpenOptions {
    OpenMode mode = OpenMode::ReadOnly;
    // A read-only file that nothing writes while it is open (a folder we cannot write: SQLite could not make
    // the write-ahead log's shared-memory file beside it). Only with OpenMode::ReadOnly.
    bool immutable = false;
    bool noMutex = false;           // the connection is used by one thread at a time (SQLITE_OPEN_NOMUTEX)
    int busyTimeoutMs = 5000;       // how long a statement waits for another connection's lock
    std::string label = "database"; // the kind of file, for messages: "results database", "responses file"
    FailureAdvice advice;
};

class Db {
public:
    // Opens `path`; throws SqliteError when SQLite cannot open it (a missing file without OpenMode::Create, a
    // missing folder ...). SQLite reads the file lazily: a file that is not SQLite fails at its first statement.
    static Db open(const std::filesystem::path& path, const OpenOptions& options = {});

    Db() = default;
    Db(Db&& o) noexcept;
    Db& operator=(Db&& o) noexcept;
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;
    ~Db();

    bool isOpen() const { return m_db != nullptr; }
    const std::filesystem::path& path() const { return m_path; }
    const std::string& label() const { return m_label; }

    // Runs `sql`, one or more statements without parameters or result rows (schema, PRAGMAs); `purpose`
    // names it in errors.
    void exec(const std::string& sql, const std::string& purpose) const;

    // Throws the SqliteError for result code `rc` of the statement(s) done for `purpose`.
    [[noreturn]] void fail(int rc, const std::string& purpose) const;

private:
    friend class Stmt;
    friend class Transaction;
    sqlite3* m_db = nullptr;
    std::filesystem::path m_path;
    std::string m_label;
    FailureAdvice m_advice;
};

// A prepared statement, finalized on scope exit. Parameters are numbered from 1, columns from 0.
class Stmt {
public:
    Stmt(const Db& db, std::string_view sql, std::string purpose);
    ~Stmt();
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    // Each bind checks SQLite's result and throws SqliteError (e.g. an index the statement does not have).
    Stmt& bind(int i, int64_t v);
    Stmt& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
    Stmt& bind(int i, double v);
    Stmt& bind(int i, std::string_view v); // text, copied
    Stmt& bind(int i, std::nullopt_t) { return bindNull(i); }
    template <class T> Stmt& bind(int i, const std::optional<T>& v) { return v ? bind(i, *v) : bindNull(i); }
    Stmt& bindNull(int i);
    // Binds the values to parameters 1, 2, ... in order.
    template <class... T> Stmt& bindAll(const T&... v)
    {
        int i = 0;
        (bind(++i, v), ...);
        return *this;
    }

    // The next row: true when one is available, false at the end. Throws SqliteError.
    bool step();
    // Steps to the end, then resets the statement and clears its binds for the next use.
    void run();
    void reset();

    int columns() const;
    bool isNull(int c) const;
    int64_t int64(int c) const;    // NULL reads as 0
    double real(int c) const;      // NULL reads as 0
    std::string text(int c) const; // any column as SQLite's text; NULL reads as ""
    std::optional<int64_t> optionalInt64(int c) const;
    std::optional<double> optionalReal(int c) const;
    std::optional<std::string> optionalText(int c) const;

private:
    Stmt& check(int rc, int i, const char* what);
    const Db& m_db;
    std::string m_purpose;
    sqlite3_stmt* m_st = nullptr;
};

// BEGIN on construction; rolls back on destruction unless commit() was called.
class Transaction {
public:
    enum class Kind {
        Deferred,  // locks on first use: a read transaction reads one snapshot (WAL) however long it lasts
        Immediate, // takes the write lock at once (a busy file fails here, before anything is done)
    };
    explicit Transaction(const Db& db, Kind kind = Kind::Immediate);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    void commit();

private:
    const Db& m_db;
    bool m_done = false;
};

} // namespace sqlite
} // namespace ascviz
