// The limit checks' messages (base/limits.h): size, limit and option named; the option advice can be left out
// for a front end without the option (the GUI).
#include "ascviz/base/error.h"
#include "ascviz/base/limits.h"

#include <gtest/gtest.h>

using namespace ascviz;

TEST(Limits, OptionAdviceLeftOutForAFrontEndWithoutTheOption)
{
    std::string depth, nodes;
    try {
        limits::checkAstDepth(1200, 1000);
    } catch (const InputError& e) {
        depth = e.what();
    }
    try {
        limits::checkAstNodes(250000, 200000);
    } catch (const InputError& e) {
        nodes = e.what();
    }
    EXPECT_NE(depth.find("(--max-ast-depth N raises it, 0 = no limit)"), std::string::npos) << depth;
    EXPECT_EQ(limits::withoutOptionAdvice(depth, limits::kMaxAstDepthOption),
              "the syntax tree is 1,200 levels deep, over the limit of 1,000 levels for AsC-Eval");
    EXPECT_EQ(limits::withoutOptionAdvice(nodes, limits::kMaxAstNodesOption),
              "the syntax tree has 250,000 nodes, over the limit of 200,000 nodes");
    // another option's advice is kept
    EXPECT_EQ(limits::withoutOptionAdvice(nodes, limits::kMaxAstDepthOption), nodes);
    EXPECT_EQ(limits::withoutOptionAdvice("row 3: " + depth + "; row 4: " + depth, limits::kMaxAstDepthOption),
              "row 3: the syntax tree is 1,200 levels deep, over the limit of 1,000 levels for AsC-Eval; row 4: the "
              "syntax tree is 1,200 levels deep, over the limit of 1,000 levels for AsC-Eval");
}
