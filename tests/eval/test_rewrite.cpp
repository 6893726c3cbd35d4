// The rewrite probe's rewrites (method.md §14.4; syntax/rewrite.h): hand-computed renamings and spacings, the
// tree-shape check, and the rejection of a rewrite that changes the tree.
#include "ascviz/base/error.h"
#include "ascviz/syntax/rewrite.h"

#include <gtest/gtest.h>

namespace {

using namespace ascviz;

TEST(Rewrite, FlipsTheCaseConventionOfOneName)
{
    EXPECT_EQ(flipCaseConvention("max_value"), "maxValue");
    EXPECT_EQ(flipCaseConvention("maxValue"), "max_value");
    EXPECT_EQ(flipCaseConvention("_max_value"), "_maxValue");
    EXPECT_EQ(flipCaseConvention("get_item2_count"), "getItem2Count");
    EXPECT_EQ(flipCaseConvention("getItem2Count"), "get_item2_count");
    EXPECT_EQ(flipCaseConvention("count"), "");     // one word
    EXPECT_EQ(flipCaseConvention("MAX_SIZE"), "");  // a constant
    EXPECT_EQ(flipCaseConvention("__init__"), "");  // a dunder name
    EXPECT_EQ(flipCaseConvention("a__b"), "");      // a double underscore
    EXPECT_EQ(flipCaseConvention("parseHTTP"), ""); // an acronym
    EXPECT_EQ(flipCaseConvention("v_1"), "");       // a digit after the underscore
    EXPECT_EQ(flipCaseConvention("MyClass"), "");   // PascalCase is left
}

TEST(Rewrite, RenamesTheBoundNamesEverywhereButAttributesAndKeywordArguments)
{
    const std::string code = "def total_sum(item_list, start_value=0):\n"
                             "    acc_total = start_value\n"
                             "    for one_item in item_list:\n"
                             "        acc_total += one_item.unit_price\n"
                             "    print(acc_total, sep_char=\"\")\n"
                             "    return acc_total\n";
    const SyntaxTree tree = SyntaxTree::parse("python", code);
    const RewriteResult r = rewriteSnippet(tree, RewriteKind::Rename);
    EXPECT_EQ(r.text, "def totalSum(itemList, startValue=0):\n"
                      "    accTotal = startValue\n"
                      "    for oneItem in itemList:\n"
                      "        accTotal += oneItem.unit_price\n"
                      "    print(accTotal, sep_char=\"\")\n"
                      "    return accTotal\n");
    // total_sum 1, item_list 2, start_value 2, acc_total 4, one_item 2
    EXPECT_EQ(r.edits, 11);
    EXPECT_EQ(r.names.size(), 5u);
    EXPECT_EQ(r.names.at("acc_total"), "accTotal");
    EXPECT_TRUE(r.sameShape) << r.difference;
    EXPECT_EQ(treeShapeDifference(tree, SyntaxTree::parse("python", r.text)), "");
}

TEST(Rewrite, LeavesANameWhoseNewFormIsTaken)
{
    const SyntaxTree tree = SyntaxTree::parse("python", "max_value = 1\nmaxValue = 2\n");
    const RewriteResult r = rewriteSnippet(tree, RewriteKind::Rename);
    EXPECT_EQ(r.edits, 0);
    EXPECT_EQ(r.text, tree.text());
}

TEST(Rewrite, TogglesTheSpacesNextToPunctuationOutsideStrings)
{
    const SyntaxTree tree = SyntaxTree::parse("python", "x = f(a,b)\n");
    const RewriteResult r = rewriteSnippet(tree, RewriteKind::Spacing);
    // x|= and =|f lose their space; f|( (|a a|, ,|b b|) gain one
    EXPECT_EQ(r.text, "x=f ( a , b )\n");
    EXPECT_EQ(r.edits, 7);
    EXPECT_TRUE(r.sameShape) << r.difference;
    // inside an f-string nothing moves: only the two gaps around =
    const SyntaxTree s = SyntaxTree::parse("python", "y = f\"{a}({b})\"\n");
    const RewriteResult rs = rewriteSnippet(s, RewriteKind::Spacing);
    EXPECT_EQ(rs.text, "y=f\"{a}({b})\"\n");
    EXPECT_EQ(rs.edits, 2);
    EXPECT_TRUE(rs.sameShape) << rs.difference;
}

TEST(Rewrite, RejectsARewriteThatChangesTheTree)
{
    // `1 .real` is the attribute real of the integer 1; without the space `1.real` is the float 1. and a stray name
    const SyntaxTree tree = SyntaxTree::parse("python", "y = 1 .real\n");
    ASSERT_FALSE(tree.hasErrors());
    const RewriteResult r = rewriteSnippet(tree, RewriteKind::Spacing);
    EXPECT_GT(r.edits, 0);
    EXPECT_FALSE(r.sameShape);
    EXPECT_FALSE(r.difference.empty());
    // a rename onto a keyword gives another tree too
    const SyntaxTree a = SyntaxTree::parse("python", "value = 1\n");
    const std::string renamed = applyEdits(a.text(), {{0, 5, "if"}});
    EXPECT_EQ(renamed, "if = 1\n");
    EXPECT_NE(treeShapeDifference(a, SyntaxTree::parse("python", renamed)), "");
    EXPECT_THROW(applyEdits("abc", {{0, 2, "x"}, {1, 3, "y"}}), InputError);
    EXPECT_THROW(parseRewriteKind("shuffle"), InputError);
    EXPECT_EQ(toString(parseRewriteKind("spacing")), "spacing");
}

} // namespace
