// What a results database holds, for comparing two of them: every table's rows as text, in key order,
// without timestamps and timings (which differ between equal runs).
#pragma once
#include "ascviz/results/resultsdb.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ascviz::testdata {

// The rows of `sql`, each as its columns joined by \x1f (NULL written as "NULL").
inline std::vector<std::string> dumpRows(const ResultsDb& db, const std::string& sql)
{
    std::vector<std::string> rows;
    db.query(sql, [&](const std::vector<std::optional<std::string>>& cols) {
        std::string r;
        for (const auto& c : cols)
            r += (c ? *c : std::string("NULL")) + "\x1f";
        rows.push_back(r);
    });
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
