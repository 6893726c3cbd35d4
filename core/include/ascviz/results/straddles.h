// Tokens against the grammar per category (method.md §14.4) from a results database: per category, the share of
// its tokens that straddle an AST leaf boundary and the median NtP of the straddling tokens against the rest.
#pragma once
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/stats.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ascviz {

struct StraddleRow {
    std::string category;
    int64_t tokens = 0;     // tokens aligned to a node of the category (each token once per snippet and category)
    int64_t straddling = 0; // of which straddle a leaf boundary
    int64_t scored = 0;     // of the tokens, those with an NtP
    std::optional<double> ascStraddling, ascRest; // median NtP of the scored straddling tokens / of the others
};

// Leaves are the stored nodes without children and with a non-empty span; a token straddles when it overlaps two
// or more leaves or one leaf it does not contain (§14.4). Categories are those the run stored; rows by category.
std::vector<StraddleRow> straddlesByCategory(const ResultsDb& db);

// {category: {"tokens", "straddling", "share", "asc_straddling", "asc_rest"}} (share = straddling / tokens; the
// medians null when there is no such scored token).
nlohmann::json straddlesJson(const std::vector<StraddleRow>& rows);

// `report --json`'s document (docs/cli.md), for the CLI and Python alike: statsToJson(s) and "straddles" of `db`.
nlohmann::json reportJson(const ResultsDb& db, const CorpusStats& s);

} // namespace ascviz
