// The seed paper's Tables I and II as it lays them out (LaTeX, booktabs; method.md §6, §7). Table II: a
// selection of concepts grouped by category (default the paper's), several models side by side. Table I: a
// row per model with its type, architecture and size (from each results database's run info, which batch
// fills from the model's config) and its Global and per-category AsC-Eval, values marked erroneous (red) or
// confident (blue) by the thresholds its legend states, the best Global underlined.
#pragma once
#include "ascviz/analysis/causal.h"
#include "ascviz/eval/eval.h"
#include "ascviz/results/stats.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ascviz {

struct ConceptGroup {
    std::string category;
    std::vector<std::string> concepts; // node types (concept keys of a CausalReport by concept)
};

// The concepts of the paper's Table II, by category: Iterative (for_statement, while_statement), Natural
// Language (identifier, string), Scope (`]`, `)`), Decision (if_statement), Operator (comparison_operator,
// boolean_operator), Functional Programming (for_in_clause, if_clause, lambda).
const std::vector<ConceptGroup>& paperTable2Concepts();

// "paper": paperTable2Concepts(); else a comma-separated list of concepts grouped by their category in
// `categories` (categories in the table's order, then "Other" for concepts without one; a concept keeps
// its place in the list within its group). Throws InputError for an empty list.
std::vector<ConceptGroup> parseConceptSelection(const std::string& spec, const CategoryMap& categories);

// Table II: columns ρ with cyclomatic complexity, AST levels, AST nodes and sequence size, a column per model
// each; then per model ρ(T, Y) and the causal effect. Rows: Global AsC-Eval, then each group (the category
// on its first row). A concept a model lacks, or too few snippets for an effect: "--".
std::string causalPaperLatex(const std::vector<std::pair<std::string, const CausalReport*>>& models,
                             const std::vector<ConceptGroup>& groups);

struct TableOneModel {
    std::string name;
    std::string type; // the grouping column ("" when no grouping is asked)
    const CorpusStats* stats = nullptr;
};

struct TableOneOptions {
    double confident = kConfidentThreshold; // values >= this in blue
    double erroneous = kErroneousThreshold; // values < this in red
};

// A parameter count as the paper writes sizes: 125M, 1.3B, 20.9M, 950K.
std::string formatParameterCount(int64_t n);

// Table I (models as rows). With types, rows are grouped by type (in first-appearance order) and the type
// is written on its group's first row. Needs \usepackage{booktabs,xcolor}.
std::string tableOneLatex(const std::vector<TableOneModel>& models, const TableOneOptions& opts = {});

} // namespace ascviz
