// What a results database holds, for comparing two of them: every table's rows as text, in key order,
// without timestamps and timings (which differ between equal runs). And raw SQL on a results file, for tests
// that look at (or tamper with) the stored rows beside the ResultsDb API.
#pragma once
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/sqlite.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ascviz::testdata {

using RowCallback = std::function<void(const std::vector<std::optional<std::string>>&)>;

// Runs `sql` on the file at `path` (a connection of its own) and calls `row` with each row's columns as
// SQLite's text (NULL -> nullopt).
inline void query(const std::filesystem::path& path, const std::string& sql, const RowCallback& row,
                  sqlite::OpenMode mode = sqlite::OpenMode::ReadWrite)
{
    sqlite::OpenOptions o;
    o.mode = mode;
    o.label = "test database";
    const sqlite::Db db = sqlite::Db::open(path, o);
    sqlite::Stmt st(db, sql, "test query");
    std::vector<std::optional<std::string>> cols(static_cast<std::size_t>(st.columns()));
    while (st.step()) {
        for (int c = 0; c < st.columns(); ++c)
            cols[static_cast<std::size_t>(c)] = st.optionalText(c);
        row(cols);
    }
}

// The same on the file of an open results database.
inline void query(const ResultsDb& db, const std::string& sql, const RowCallback& row,
                  sqlite::OpenMode mode = sqlite::OpenMode::ReadWrite)
{
    query(db.path(), sql, row, mode);
}

// The rows of `sql`, each as its columns joined by \x1f (NULL written as "NULL").
inline std::vector<std::string> dumpRows(const ResultsDb& db, const std::string& sql)
{
    std::vector<std::string> rows;
    query(
        db, sql,
        [&](const std::vector<std::optional<std::string>>& cols) {
            std::string r;
            for (const auto& c : cols)
                r += (c ? *c : std::string("NULL")) + "\x1f";
            rows.push_back(r);
        },
        sqlite::OpenMode::ReadOnly);
    return rows;
}

// snippets (without created and seconds), tokens and nodes.
inline std::vector<std::vector<std::string>> dbContent(const std::filesystem::path& p)
{
    const auto db = ResultsDb::open(p);
    return {dumpRows(db, "SELECT idx, id, location, code, prompt_bytes, status, message, cross_entropy, asc_eval, "
                         "tokens, ast_nodes, ast_levels, cyclomatic, windowed, language FROM snippets ORDER BY idx"),
            dumpRows(db, "SELECT * FROM tokens ORDER BY snippet, idx"),
            dumpRows(db, "SELECT * FROM nodes ORDER BY snippet, node")};
}

} // namespace ascviz::testdata
