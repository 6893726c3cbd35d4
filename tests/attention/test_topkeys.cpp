// The heads view's reduction (the heaviest keys per query) and its SVG pictures.
#include "ascviz/attention/topkeys.h"
#include "ascviz/base/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>

namespace {

TEST(TopKeys, KeepsTheHeaviestKeysPerQuery)
{
    ascviz::AttentionTopKeys top(1, 1, 2); // BOS + tokens 0, 1
    const std::array<int64_t, 3> shape{1, 3, 3};
    const std::vector<float> rows{1.0f, 0.0f, 0.0f, 0.3f, 0.7f, 0.0f, 0.5f, 0.2f, 0.3f};
    top.observeAttention(0, 0, shape, rows);
    const auto k = top.keys(0, 0, 1); // token 1 = row 2
    ASSERT_EQ(k.size(), 2u);
    EXPECT_EQ(k[0].token, -1); // BOS
    EXPECT_FLOAT_EQ(k[0].weight, 0.5f);
    EXPECT_EQ(k[1].token, 1);
    EXPECT_FLOAT_EQ(k[1].weight, 0.3f);
    EXPECT_EQ(top.keys(0, 0, 0).front().token, 0);
    EXPECT_EQ(top.queries(), 2);
    EXPECT_TRUE(top.keys(0, 1, 0).empty());
    EXPECT_THROW(top.observeAttention(1, 0, shape, rows), ascviz::InputError);
}

TEST(TopKeys, SvgPictures)
{
    const auto heat = ascviz::headHeatmapSvg({0.0, 1.0, 0.5, 0.25}, 2, 2, "if_statement:if\u2192body", {1, 0});
    EXPECT_NE(heat.find(">100</text>"), std::string::npos);
    EXPECT_NE(heat.find(">25</text>"), std::string::npos);
    EXPECT_NE(heat.find("stroke=\"#d62728\""), std::string::npos); // the picked head
    const auto arcs = ascviz::attentionArcsSvg("x = a<b\n", {{0, 1}, {1, 3}, {3, 5}, {5, 6}, {6, 7}}, 3,
                                               {{0, 0.5f}, {1, 0.25f}}, {{0, 2}}, "L0 H1");
    EXPECT_NE(arcs.find(">&lt;</text>"), std::string::npos) << arcs; // escaped token text
    EXPECT_EQ(std::count(arcs.begin(), arcs.end(), 'C'), 3);         // two attention arcs and one relation edge
    EXPECT_NE(arcs.find("stroke-dasharray"), std::string::npos);
}

} // namespace
