// Folded subtrees and code text in the AST views' layouts (LayoutOptions::collapsed, ::nodeText), on
// "x = 1\n": module(0) > expression_statement(1) > assignment(2) > identifier(3), "="(4), integer(5).
#include "ascviz/base/error.h"
#include "ascviz/render/layout.h"
#include "eval_test_util.h"

#include <gtest/gtest.h>

using namespace ascviz;
using evaltest::scoredFromPieces;

namespace {

EvalResult assignment()
{
    return evaluate(scoredFromPieces({{"x", std::nullopt}, {" =", 0.5}, {" 1", 0.25}, {"\n", 0.5}}), "python",
                    Aggregation::Median, CategoryMap::forLanguage("python"));
}

} // namespace

TEST(Collapse, TheTreeIsTheOneDescribed)
{
    const EvalResult r = assignment();
    ASSERT_EQ(r.tree.nodes().size(), 6u);
    EXPECT_EQ(r.tree.nodes()[2].type, "assignment");
    EXPECT_EQ(r.tree.nodes()[2].depth, 2);
    EXPECT_EQ(r.tree.nodes()[5].type, "integer");
}

// issue 40: a subtree root the tree lacks is named with the tree's node range and Remedy::Subtree (front ends
// name their own setting: the CLI's --subtree), not a command-line flag.
TEST(Collapse, SubtreeOutsideTheTreeNamesTheRangeAndTheRemedy)
{
    const EvalResult r = assignment();
    LayoutOptions o;
    o.subtree = 9;
    try {
        (void)visibleNodes(r, AstView::Complete, o);
        FAIL() << "no InputError";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("node 9"), std::string::npos) << what;
        EXPECT_NE(what.find("nodes 0 to 5"), std::string::npos) << what;
        EXPECT_EQ(what.find("--"), std::string::npos) << what;
        EXPECT_TRUE(hasRemedy(e.context().remedy, Remedy::Subtree));
    }
    o.subtree = 2;
    EXPECT_EQ(visibleNodes(r, AstView::Complete, o), (std::vector<int>{2, 3, 4, 5}));
}

TEST(Collapse, FoldedSubtreeIsHiddenAndCounted)
{
    const EvalResult r = assignment();
    LayoutOptions o;
    o.collapsed = {2};
    EXPECT_EQ(visibleNodes(r, AstView::Complete, o), (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(shownDescendants(r, 2, AstView::Complete), 3u);
    const std::string label = nodeLabel(r, 2, AstView::Complete, o);
    EXPECT_EQ(label.substr(label.rfind('\n') + 1), "\u2026(3)");
    EXPECT_EQ(nodeLabel(r, 1, AstView::Complete, o), nodeLabel(r, 1, AstView::Complete)); // not folded

    // The partial view shows no terminals: node 1 hides only the assignment.
    o.collapsed = {1};
    EXPECT_EQ(visibleNodes(r, AstView::Partial, o), (std::vector<int>{0, 1}));
    const std::string partial = nodeLabel(r, 1, AstView::Partial, o);
    EXPECT_EQ(partial.substr(partial.rfind('\n') + 1), "\u2026(1)");
    // A folded node with nothing shown below it keeps its label; a terminal in the partial view is ignored.
    o.collapsed = {2, 3};
    EXPECT_EQ(visibleNodes(r, AstView::Partial, o), (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(nodeLabel(r, 2, AstView::Partial, o), nodeLabel(r, 2, AstView::Partial));

    // Both layouts lay out only what is shown, with the count in the label.
    o.collapsed = {2};
    for (const GraphLayout& g : {layoutAst(r, AstView::Complete, o), layoutAstTree(r, AstView::Complete, o)}) {
        ASSERT_EQ(g.nodes.size(), 3u);
        EXPECT_EQ(g.edges.size(), 2u);
        EXPECT_NE(g.nodes.back().label.find("\u2026(3)"), std::string::npos);
    }
}

TEST(Collapse, FoldAtDepthShowsTheTreeDownToIt)
{
    const EvalResult r = assignment();
    EXPECT_EQ(foldAtDepth(r, AstView::Complete, 2), (std::vector<int>{2}));
    EXPECT_EQ(foldAtDepth(r, AstView::Complete, 0), (std::vector<int>{0}));
    EXPECT_EQ(foldAtDepth(r, AstView::Partial, 1), (std::vector<int>{1}));
    EXPECT_TRUE(foldAtDepth(r, AstView::Partial, 2).empty()); // the assignment's children are terminals
    EXPECT_TRUE(foldAtDepth(r, AstView::Complete, 3).empty());
}

TEST(Collapse, NonTerminalsShowTheirCode)
{
    const EvalResult r = assignment();
    LayoutOptions o;
    o.nodeText = true;
    // type, code (whitespace runs as one space), value.
    const std::string label = nodeLabel(r, 0, AstView::Partial, o);
    const std::string plain = nodeLabel(r, 0, AstView::Partial);
    EXPECT_EQ(label, plain.substr(0, plain.rfind('\n')) + "\nx = 1 " + plain.substr(plain.rfind('\n')));
    EXPECT_EQ(nodeLabel(r, 3, AstView::Complete, o), nodeLabel(r, 3, AstView::Complete)); // terminals as before
}
