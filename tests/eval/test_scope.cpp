// θ's scope (method.md §4): over a node's own tokens (default) or, as the paper's Fig. 2-C, over its
// children's values. The example is Fig. 2-C's `parameters` of `def f(string, character):` with token NtPs
// chosen so that its children have the figure's values ( 0.07, identifier 0.4, `,` 0.5, identifier 0.1,
// `)` 0.1 (identifier = mean or median of its two tokens).
#include "ascviz/base/error.h"
#include "ascviz/eval/eval.h"
#include "eval_test_util.h"

#include <gtest/gtest.h>

using namespace ascviz;

namespace {

ScoredText figure2c()
{
    return evaltest::scoredFromPieces({{"def", std::nullopt},
                                       {" f", 0.9},
                                       {"(", 0.07},
                                       {"str", 0.3},
                                       {"ing", 0.5},
                                       {",", 0.5},
                                       {" char", 0.05},
                                       {"acter", 0.15},
                                       {")", 0.1},
                                       {":", 0.8},
                                       {"\n", 0.6},
                                       {"   ", 0.7},
                                       {" pass", 0.9},
                                       {"\n", 0.5}});
}

std::optional<double> parameters(const EvalResult& r)
{
    for (std::size_t i = 0; i < r.tree.nodes().size(); ++i)
        if (r.tree.nodes()[i].type == "parameters")
            return r.nodes[i].value;
    ADD_FAILURE() << "no parameters node";
    return std::nullopt;
}

} // namespace

TEST(AggregationScope, Figure2cChildrenVersusTokens)
{
    const CategoryMap cats = CategoryMap::forLanguage("python");
    EvalResult r = evaluate(figure2c(), "python", Aggregation::Mean, cats);
    // Tokens: (0.07 + 0.3 + 0.5 + 0.5 + 0.05 + 0.15 + 0.1) / 7 = 1.67 / 7.
    EXPECT_NEAR(*parameters(r), 1.67 / 7, 1e-12);
    // Children: (0.07 + 0.4 + 0.5 + 0.1 + 0.1) / 5 = 0.234, the figure's "0.23".
    reaggregate(r, Aggregation::Mean, AggregationScope::Children);
    EXPECT_EQ(r.scope, AggregationScope::Children);
    EXPECT_NEAR(*parameters(r), 0.234, 1e-12);
    // Median: children {0.07, 0.4, 0.5, 0.1, 0.1} -> 0.1; tokens {0.05, 0.07, 0.1, 0.15, 0.3, 0.5, 0.5} -> 0.15.
    reaggregate(r, Aggregation::Median); // keeps the scope
    EXPECT_NEAR(*parameters(r), 0.1, 1e-12);
    reaggregate(r, Aggregation::Median, AggregationScope::Tokens);
    EXPECT_NEAR(*parameters(r), 0.15, 1e-12);
    // Terminals are the same in both scopes; the snippet value follows the node values.
    const auto tokensAscEval = r.features.ascEval;
    reaggregate(r, Aggregation::Median, AggregationScope::Children);
    EXPECT_NE(r.features.ascEval, tokensAscEval);
    EXPECT_EQ(toString(AggregationScope::Children), "children");
    EXPECT_EQ(parseAggregationScope("tokens"), AggregationScope::Tokens);
    EXPECT_THROW(parseAggregationScope("nodes"), InputError);
}
