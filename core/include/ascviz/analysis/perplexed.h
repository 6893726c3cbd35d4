// PERPLEXED (method.md §10) over a results database: per-token cross-entropy (CE = −ln NtP) grouped by BPE
// token text and by AST label ("parent -> type" of the deepest node holding the token's first
// non-whitespace byte), worst and best groups (a minimum count), internal vs external method calls, and the
// tokens whose node's parent is an ERROR node.
#pragma once
#include "ascviz/results/resultsdb.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ascviz {

struct CeStat {
    double mean = 0;
    double std = 0;    // sample standard deviation (n − 1); 0 for one value
    int64_t count = 0; // tokens
};

struct PerplexedOptions {
    int minCount = 5; // groups with fewer tokens are not ranked
    int top = 20;     // length of the worst / best lists
};

struct CallStat {
    CeStat ce;         // over the tokens of the calls
    int64_t calls = 0; // number of calls
};

struct PerplexedReport {
    int snippets = 0;
    int64_t tokens = 0;  // tokens with a finite CE
    int64_t skipped = 0; // tokens with NtP 0 (infinite CE) or none
    CeStat all;          // every counted token
    std::vector<std::pair<std::string, CeStat>> worstTokens, bestTokens, worstLabels, bestLabels;
    CallStat internalCalls, externalCalls;
    int64_t builtinCalls = 0;                                // left out
    CeStat errorParented;                                    // tokens whose node's parent is ERROR
    std::vector<std::pair<std::string, CeStat>> errorLabels; // their labels, worst first
    int minCount = 0;
};

// Mean and sample std of values (count 0: zeros).
CeStat ceStat(const std::vector<double>& values);

// Each snippet's code is parsed again with its language (the same tree the run stored).
PerplexedReport analyzePerplexed(const ResultsDb& db, const PerplexedOptions& opts = {});

// docs/cli.md `analyze perplexed`: {"tokens": {"worst", "best"}, "labels": {"worst", "best"}, "calls":
// {"internal", "external"}, "error_parented", ...}.
nlohmann::json perplexedToJson(const PerplexedReport& r);

} // namespace ascviz
