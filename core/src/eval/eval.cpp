// AsC-Eval (method.md §3, §4, §7): alignment δ, aggregation θ, snippet features.
#include "ascviz/eval/eval.h"

#include "ascviz/base/error.h"
#include "ascviz/syntax/language.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <string_view>

namespace ascviz {

Aggregation parseAggregation(const std::string& s)
{
    if (s == "median")
        return Aggregation::Median;
    if (s == "mean")
        return Aggregation::Mean;
    if (s == "max")
        return Aggregation::Max;
    if (s == "min")
        return Aggregation::Min;
    throw InputError("unknown aggregation '" + s + "' (use median, mean, max or min)");
}

std::string toString(Aggregation a)
{
    switch (a) {
    case Aggregation::Median:
        return "median";
    case Aggregation::Mean:
        return "mean";
    case Aggregation::Max:
        return "max";
    case Aggregation::Min:
        return "min";
    }
    return "median";
}

std::vector<int> alignNode(const std::vector<ScoredToken>& tokens, std::size_t start, std::size_t end)
{
    std::vector<int> out;
    if (start >= end)
        return out; // an empty node span (a MISSING node) overlaps no token: see eval.h
    for (std::size_t i = 0; i < tokens.size(); ++i)
        if (tokens[i].start < end && tokens[i].end > start)
            out.push_back(static_cast<int>(i));
    return out;
}

std::optional<double> aggregate(std::vector<double> values, Aggregation a)
{
    if (values.empty())
        return std::nullopt;
    switch (a) {
    case Aggregation::Mean:
        return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
    case Aggregation::Max:
        return *std::max_element(values.begin(), values.end());
    case Aggregation::Min:
        return *std::min_element(values.begin(), values.end());
    case Aggregation::Median:
        return medianInPlace(values);
    }
    return std::nullopt;
}

double medianInPlace(std::vector<double>& v)
{
    const std::size_t n = v.size();
    const std::size_t mid = n / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    const double upper = v[mid];
    if (n % 2 == 1)
        return upper;
    const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    return (lower + upper) / 2.0;
}

int cyclomaticComplexity(const SyntaxTree& tree)
{
    // McCabe: 1 + decision points (method.md §7): the named node types and the anonymous tokens that the
    // language's descriptor lists under "decision_points" (resources/languages/<id>/language.json). A name
    // in "types" never matches an anonymous keyword of the same spelling, nor a token a named node.
    const auto& lang = LanguageRegistry::instance().get(tree.language());
    const auto listed = [](const std::vector<std::string>& v, const std::string& t) {
        return std::find(v.begin(), v.end(), t) != v.end();
    };
    int n = 1;
    for (const auto& node : tree.nodes()) {
        if (node.isMissing)
            continue; // inserted by error recovery: not in the text
        if (node.named ? listed(lang.decisionPoints, node.type) : listed(lang.decisionTokens, node.type))
            ++n;
    }
    return n;
}

namespace {

// Token indices overlapping [start, end) for tokens whose starts and ends are both non-decreasing
// (true for every tokenizer we use): the overlapping tokens form one contiguous range.
std::vector<int> alignSorted(const std::vector<ScoredToken>& tokens, std::size_t start, std::size_t end)
{
    std::vector<int> out;
    if (start >= end)
        return out;
    auto lo = std::partition_point(tokens.begin(), tokens.end(), [&](const ScoredToken& t) { return t.end <= start; });
    auto hi = std::partition_point(lo, tokens.end(), [&](const ScoredToken& t) { return t.start < end; });
    for (auto it = lo; it != hi; ++it)
        out.push_back(static_cast<int>(it - tokens.begin()));
    return out;
}

bool monotone(const std::vector<ScoredToken>& tokens)
{
    for (std::size_t i = 1; i < tokens.size(); ++i)
        if (tokens[i].start < tokens[i - 1].start || tokens[i].end < tokens[i - 1].end)
            return false;
    return true;
}

void computeValues(EvalResult& r)
{
    std::vector<double> vals;
    for (auto& ne : r.nodes) {
        vals.clear();
        for (int ti : ne.tokens)
            if (const auto& p = r.scored.tokens[static_cast<std::size_t>(ti)].ntp)
                vals.push_back(*p);
        ne.value = aggregate(vals, r.aggregation);
    }
    if (r.scope != AggregationScope::Children)
        return;
    // Bottom-up: in pre-order every child comes after its parent, so walking backwards sees children first.
    const auto& ast = r.tree.nodes();
    for (std::size_t i = ast.size(); i-- > 0;) {
        if (ast[i].children.empty())
            continue;
        vals.clear();
        for (int c : ast[i].children)
            if (const auto& v = r.nodes[static_cast<std::size_t>(c)].value)
                vals.push_back(*v);
        r.nodes[i].value = aggregate(vals, r.aggregation);
    }
}

void computeFeatures(EvalResult& r)
{
    SnippetFeatures& f = r.features;
    const auto& ast = r.tree.nodes();
    f.tokens = static_cast<int>(r.scored.tokens.size());
    f.astNodes = static_cast<int>(ast.size());
    f.astLevels = r.tree.levels();
    f.cyclomatic = cyclomaticComplexity(r.tree);

    double sum = 0.0;
    int count = 0;
    std::map<std::string, std::pair<double, int>> cat, byType;
    for (std::size_t i = 0; i < ast.size(); ++i) {
        const auto& v = r.nodes[i].value;
        if (!v)
            continue;
        sum += *v;
        ++count;
        auto& c = byType[ast[i].type];
        c.first += *v;
        ++c.second;
        if (r.nodes[i].category) {
            auto& k = cat[*r.nodes[i].category];
            k.first += *v;
            ++k.second;
        }
    }
    f.ascEval = count ? std::optional<double>(sum / count) : std::nullopt;
    f.perCategory.clear();
    f.perConcept.clear();
    for (const auto& [k, v] : cat)
        f.perCategory[k] = v.first / v.second;
    for (const auto& [k, v] : byType)
        f.perConcept[k] = v.first / v.second;
}

} // namespace

void recomputeFeatures(EvalResult& r)
{
    computeFeatures(r);
}

std::map<std::string, double> categoryMeans(const EvalResult& r, const std::set<int>* only)
{
    std::map<std::string, std::pair<double, int>> sums;
    for (std::size_t k = 0; k < r.nodes.size(); ++k) {
        const auto& n = r.nodes[k];
        if (!n.category || !n.value || (only && !only->count(static_cast<int>(k))))
            continue;
        auto& s = sums[*n.category];
        s.first += *n.value;
        ++s.second;
    }
    std::map<std::string, double> out;
    for (const auto& [c, s] : sums)
        out[c] = s.first / s.second;
    return out;
}

SyntaxTree parseForEval(const std::string& language, std::string_view text, int maxAstDepth, std::size_t maxAstNodes)
{
    SyntaxTree tree = SyntaxTree::parse(language, text, maxAstNodes);
    limits::checkAstDepth(tree.levels(), maxAstDepth);
    return tree;
}

EvalResult evaluate(ScoredText scored, const std::string& language, Aggregation a, const CategoryMap& categories,
                    int maxAstDepth, std::size_t maxAstNodes)
{
    SyntaxTree tree = parseForEval(language, scored.text, maxAstDepth, maxAstNodes);
    return evaluate(std::move(scored), std::move(tree), a, categories);
}

EvalResult evaluate(ScoredText scored, SyntaxTree tree, Aggregation a, const CategoryMap& categories)
{
    if (tree.text() != scored.text)
        throw InputError("the syntax tree was parsed from another text than the scored one (" +
                         std::to_string(tree.text().size()) + " vs " + std::to_string(scored.text.size()) + " bytes)");
    for (std::size_t i = 0; i < scored.tokens.size(); ++i) {
        const auto& t = scored.tokens[i];
        if (t.start > t.end || t.end > scored.text.size())
            throw InputError("token " + std::to_string(i) + " has the span [" + std::to_string(t.start) + ", " +
                             std::to_string(t.end) + ") outside the text (" + std::to_string(scored.text.size()) +
                             " bytes)");
    }
    EvalResult r;
    r.tree = std::move(tree);
    r.scored = std::move(scored);
    r.aggregation = a;

    const auto& ast = r.tree.nodes();
    const auto& toks = r.scored.tokens;
    const bool sorted = monotone(toks);
    r.nodes.resize(ast.size());
    r.nodesOfToken.assign(toks.size(), {});
    for (std::size_t i = 0; i < ast.size(); ++i) {
        auto& ne = r.nodes[i];
        ne.tokens = sorted ? alignSorted(toks, ast[i].start, ast[i].end) : alignNode(toks, ast[i].start, ast[i].end);
        ne.category = categories.categoryOf(ast[i].type);
        for (int ti : ne.tokens)
            r.nodesOfToken[static_cast<std::size_t>(ti)].push_back(static_cast<int>(i));
    }
    computeValues(r);
    computeFeatures(r);
    return r;
}

AggregationScope parseAggregationScope(const std::string& s)
{
    if (s == "tokens")
        return AggregationScope::Tokens;
    if (s == "children")
        return AggregationScope::Children;
    throw InputError("unknown aggregation scope '" + s + "' (use tokens or children)");
}

std::string toString(AggregationScope s)
{
    return s == AggregationScope::Children ? "children" : "tokens";
}

void reaggregate(EvalResult& r, Aggregation a, AggregationScope scope)
{
    r.scope = scope;
    reaggregate(r, a);
}

void reaggregate(EvalResult& r, Aggregation a)
{
    r.aggregation = a;
    computeValues(r);
    computeFeatures(r);
}

} // namespace ascviz
