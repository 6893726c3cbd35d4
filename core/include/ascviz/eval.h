// AsC-Eval (method.md §3–5, §7): alignment δ of tokens to AST nodes, aggregation θ, categories,
// snippet features.
#pragma once
#include "ascviz/scored.h"
#include "ascviz/syntax.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ascviz {

enum class Aggregation { Median, Mean, Max, Min };
Aggregation parseAggregation(const std::string& s); // throws InputError
std::string toString(Aggregation a);

// node type -> category, loaded from a JSON resource per language (editable without recompiling).
class CategoryMap {
public:
    static CategoryMap fromFile(const std::filesystem::path& file); // throws InputError
    static CategoryMap forLanguage(const std::string& language);    // the bundled resource
    std::optional<std::string> categoryOf(const std::string& nodeType) const;
    std::vector<std::string> categories() const; // in file order
private:
    std::map<std::string, std::string> m_byType;
    std::vector<std::string> m_categories;
};

struct NodeEval {
    std::vector<int> tokens;             // indices into ScoredText::tokens aligned to the node (δ)
    std::optional<double> value;         // θ over the aligned tokens' non-null NtP; nullopt = n/a
    std::optional<std::string> category;
};

struct SnippetFeatures {
    std::optional<double> ascEval; // mean of the node values that exist
    int tokens = 0;
    int astNodes = 0;
    int astLevels = 0;
    int cyclomatic = 1;
    std::map<std::string, double> perCategory; // mean of values of nodes in the category
    std::map<std::string, double> perConcept;  // mean of values of nodes of the type
};

// Tokens overlapping [start, end) by the rule ts < ne && te > ns (method.md §3).
std::vector<int> alignNode(const std::vector<ScoredToken>& tokens, std::size_t start, std::size_t end);
std::optional<double> aggregate(std::vector<double> values, Aggregation a);
int cyclomaticComplexity(const SyntaxTree& tree);

struct EvalResult {
    ScoredText scored;
    SyntaxTree tree;
    Aggregation aggregation = Aggregation::Median;
    std::vector<NodeEval> nodes; // parallel to tree.nodes()
    SnippetFeatures features;
    // token index -> the nodes it is aligned to (inverse of nodes[].tokens)
    std::vector<std::vector<int>> nodesOfToken;
};

EvalResult evaluate(ScoredText scored, const std::string& language, Aggregation a, const CategoryMap& categories);
// Recompute values for another aggregation (cheap; alignment is kept).
void reaggregate(EvalResult& r, Aggregation a);

} // namespace ascviz
