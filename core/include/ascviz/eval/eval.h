// AsC-Eval (method.md §3–5, §7): alignment δ of tokens to AST nodes, aggregation θ, categories,
// snippet features.
#pragma once
#include "ascviz/base/limits.h"
#include "ascviz/base/scored.h"
#include "ascviz/syntax/syntax.h"

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ascviz {

enum class Aggregation { Median, Mean, Max, Min };
Aggregation parseAggregation(const std::string& s); // throws InputError
std::string toString(Aggregation a);

// node type -> category, loaded from a JSON resource per language (editable without recompiling).
class CategoryMap {
public:
    // Throws InputError when the file is missing or malformed. With a `language`, also when the file
    // says it is for another language ("language" field) or names node types that language's grammar
    // does not have (the message lists them).
    static CategoryMap fromFile(const std::filesystem::path& file, const std::string& language = {});
    // The same from the file's text (e.g. the copy a session file keeps); `where` names it in errors.
    static CategoryMap fromJson(const std::string& text, const std::string& where, const std::string& language = {});
    static CategoryMap forLanguage(const std::string& language); // the registry descriptor's table, checked
    std::optional<std::string> categoryOf(const std::string& nodeType) const;
    std::vector<std::string> categories() const;               // in file order
    std::vector<std::string> types() const;                    // every node type the table names, sorted
    const std::string& language() const { return m_language; } // the file's "language" field ("" = none)
    // The table's node types that the language's grammar does not have (sorted; empty = all known).
    std::vector<std::string> unknownTypes(const std::string& language) const;

private:
    std::map<std::string, std::string> m_byType;
    std::vector<std::string> m_categories;
    std::string m_language;
};

struct NodeEval {
    std::vector<int> tokens;     // indices into ScoredText::tokens aligned to the node (δ)
    std::optional<double> value; // θ over the aligned tokens' non-null NtP; nullopt = n/a
    std::optional<std::string> category;
};

struct SnippetFeatures {
    std::optional<double> ascEval; // mean of the node values that exist (all nodes, terminals included)
    int tokens = 0;                // the text's tokens (scored or not)
    int astNodes = 0;              // every node of the tree: named, anonymous, ERROR and MISSING
    int astLevels = 0;             // max depth + 1 (a lone root = 1 level)
    int cyclomatic = 1;
    std::map<std::string, double> perCategory; // mean of values of nodes in the category
    std::map<std::string, double> perConcept;  // mean of values of nodes of the type
};

// Tokens overlapping [start, end) by the rule ts < ne && te > ns (method.md §3): a token straddling two
// leaves is aligned to both (and all their ancestors); whitespace tokens only to the enclosing
// non-terminals. (decision) An empty node span (a zero-width MISSING node) is aligned to no token, even
// one that straddles its position: it has no value (n/a).
std::vector<int> alignNode(const std::vector<ScoredToken>& tokens, std::size_t start, std::size_t end);
// θ over the values; nullopt when empty. The median of an even count is the mean of the two middle values.
std::optional<double> aggregate(std::vector<double> values, Aggregation a);
// The median of a non-empty `v` (the mean of the two middle values for an even count), reordering v: the one
// median of core (θ = median here, the statistics' medians and bootstrap in results/stats).
double medianInPlace(std::vector<double>& v);
// McCabe (method.md §7): 1 + the number of named nodes whose type the tree's language lists as a decision
// point in its registry descriptor (language.h; Python: if_statement, elif_clause, for_statement,
// while_statement, except_clause, except_group_clause, boolean_operator, conditional_expression,
// if_clause, case_clause). Throws InputError for a language that is not registered.
int cyclomaticComplexity(const SyntaxTree& tree);

// θ's scope (method.md §4). Tokens (the default, as the paper's text says): θ over the node's own aligned
// tokens. Children (the paper's Fig. 2-C worked example): a node without children (a terminal) from its
// tokens; a node with children θ over its children's values, bottom-up (children without a value are left
// out; tokens of the node that no child covers, such as indentation, do not count).
enum class AggregationScope { Tokens, Children };
AggregationScope parseAggregationScope(const std::string& s); // "tokens" | "children"; throws InputError
std::string toString(AggregationScope s);

struct EvalResult {
    ScoredText scored;
    SyntaxTree tree;
    Aggregation aggregation = Aggregation::Median;
    AggregationScope scope = AggregationScope::Tokens;
    std::vector<NodeEval> nodes; // parallel to tree.nodes()
    SnippetFeatures features;
    // token index -> the nodes it is aligned to (inverse of nodes[].tokens)
    std::vector<std::vector<int>> nodesOfToken;
};

// Parses a text for AsC-Eval within the limits: throws InputError (limits::checkAstNodes) past maxAstNodes
// nodes, before the tree is copied, and (limits::checkAstDepth) past maxAstDepth levels (0 = no limit): the
// alignment stores tokens x depth indices (20,000 nested parentheses: 2.5 GB, minutes). Callers that score
// the text with a model parse it first, so that a tree past a limit is refused before the model runs.
SyntaxTree parseForEval(const std::string& language, std::string_view text,
                        int maxAstDepth = limits::kDefaultMaxAstDepth,
                        std::size_t maxAstNodes = limits::kDefaultMaxAstNodes);
// AsC-Eval of a scored text over its tree (from parseForEval of the same text; InputError when the texts
// differ).
EvalResult evaluate(ScoredText scored, SyntaxTree tree, Aggregation a, const CategoryMap& categories);
// The same, parsing the text with parseForEval.
EvalResult evaluate(ScoredText scored, const std::string& language, Aggregation a, const CategoryMap& categories,
                    int maxAstDepth = limits::kDefaultMaxAstDepth,
                    std::size_t maxAstNodes = limits::kDefaultMaxAstNodes);
// Recompute values for another aggregation (cheap; alignment is kept); the first keeps the result's scope.
void reaggregate(EvalResult& r, Aggregation a);
void reaggregate(EvalResult& r, Aggregation a, AggregationScope scope);
// Recomputes r.features' values (AsC-Eval, per category, per concept) from r.nodes' values, after a caller
// replaced them (e.g. with the layer lens's values of one layer).
void recomputeFeatures(EvalResult& r);
// Per category, the mean of its nodes' values (nodes without a category or a value left out); with `only`, over
// the nodes of those ids alone. The treatment of ablate and the rewrite probe (method.md §14).
std::map<std::string, double> categoryMeans(const EvalResult& r, const std::set<int>* only = nullptr);

} // namespace ascviz
