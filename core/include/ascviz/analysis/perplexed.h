// PERPLEXED (method.md §10) over a results database: per-token cross-entropy (CE = −ln NtP) grouped by BPE
// token text and by AST label ("parent -> type" of the deepest node holding the token's first
// non-whitespace byte), worst and best groups (a minimum count), internal vs external method calls, and the
// tokens whose node's parent is an ERROR node. A token made only of whitespace is labelled `whitespace`.
// Beside the ranked lists: the unfiltered top 10 (groups of any count, as the paper's figures), Spearman's ρ
// of group frequency vs mean CE (tokens, labels), and — given a CallRepository — the paper's Table 1
// (calls.h: internal = declared in another file of the same repository).
#pragma once
#include "ascviz/analysis/calls.h"
#include "ascviz/analysis/cestat.h"
#include "ascviz/results/resultsdb.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ascviz {

struct PerplexedOptions {
    int minCount = 5; // groups with fewer tokens are not ranked
    int top = 20;     // length of the worst / best lists
    // Where each snippet comes from and each repository's declarations: when set, the report has the
    // call table (calls.h). Not owned.
    const CallRepository* repository = nullptr;
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
    // Every group, whatever its count (the paper's top-10 lists include tokens seen once): top 10 each.
    std::vector<std::pair<std::string, CeStat>> worstTokensAll, bestTokensAll, worstLabelsAll, bestLabelsAll;
    // Spearman's ρ of (group count, group mean CE) over every token text / every label; nullopt when undefined.
    std::optional<double> spearmanTokens, spearmanLabels;
    int64_t tokenGroups = 0, labelGroups = 0;
    std::optional<CallTable> callTable; // with PerplexedOptions::repository
    // The snippet-level rule above (internalCalls / externalCalls): defined in the same snippet.
};

// Each snippet's code is parsed again with its language (the same tree the run stored).
PerplexedReport analyzePerplexed(const ResultsDb& db, const PerplexedOptions& opts = {});

// docs/cli.md `analyze perplexed`: {"tokens": {"worst", "best"}, "labels": {"worst", "best"}, "calls":
// {"internal", "external"}, "error_parented", ...}.
nlohmann::json perplexedToJson(const PerplexedReport& r);

} // namespace ascviz
