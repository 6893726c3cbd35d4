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

// A results database made by hand: `run`'s row, and one status-ok snippet in `run.language` whose nodes
// (all named, depth 1, no tokens) have the given types and AsC-Eval values, so every statistic can be worked
// out by hand. Returns `path`.
inline std::filesystem::path writeHandMadeResults(const std::filesystem::path& path, RunInfo run,
                                                  const std::vector<std::pair<std::string, double>>& nodes)
{
    run.status = RunStatus::Complete;
    run.planned = run.corpusEntries = 1;
    {
        auto db = ResultsDb::create(path, run);
        db.updateRun(run);
    }
    query(path,
          "INSERT INTO snippets (idx, id, code, prompt_bytes, status, asc_eval, created, language) VALUES (0, "
          "'s0', 'x', 1, 'ok', 0.5, '2026-01-01T00:00:00Z', '" +
              run.language + "')",
          [](const auto&) {});
    for (std::size_t k = 0; k < nodes.size(); ++k)
        query(path,
              "INSERT INTO nodes (snippet, node, type, named, depth, start_byte, end_byte, asc_eval) VALUES (0, " +
                  std::to_string(k) + ", '" + nodes[k].first + "', 1, 1, 0, 1, " + std::to_string(nodes[k].second) +
                  ")",
              [](const auto&) {});
    return path;
}

// A hand-made run of one model ("ascviz-tiny-code", float32, Python) on the corpus with `fingerprint`, under
// aggregation `theta`: 12 identifier nodes (Natural Language) at `value` and one escape_sequence node (no
// category) at 0.873 — Global AsC-Eval = Natural Language = identifier = `value` (n = 12), escape_sequence
// n = 1. Runs that differ in θ or corpus only, for the comparison tests.
inline std::filesystem::path writeComparedRun(const std::filesystem::path& path, Aggregation theta, double value,
                                              const std::string& fingerprint = "1111111122223333")
{
    RunInfo run;
    run.modelName = "ascviz-tiny-code";
    run.modelDir = "/models/ascviz-tiny-code";
    run.dtype = "float32";
    run.corpusPath = "/corpus.jsonl";
    run.corpusFingerprint = fingerprint;
    run.language = "python";
    run.aggregation = theta;
    std::vector<std::pair<std::string, double>> nodes(12, {"identifier", value});
    nodes.emplace_back("escape_sequence", 0.873);
    std::filesystem::remove(path);
    return writeHandMadeResults(path, run, nodes);
}

} // namespace ascviz::testdata
