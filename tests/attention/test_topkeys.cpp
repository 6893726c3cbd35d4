// The heads view's reduction (the heaviest keys per query) (its pictures: tests/figure/test_headsfigure.cpp).
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

TEST(TopKeys, ArcsJsonKeepsHeavyKeysRoundedPerQuery)
{
    ascviz::AttentionTopKeys top(1, 1, 3); // BOS + tokens 0, 1
    const std::array<int64_t, 3> shape{1, 3, 3};
    const std::vector<float> rows{1.0f, 0.0f, 0.0f, 0.96f, 0.04f, 0.0f, 0.12345f, 0.2f, 0.67655f};
    top.observeAttention(0, 0, shape, rows);
    const auto j = ascviz::attentionArcsJson(top, 3, 0.05, 3);
    EXPECT_EQ(j.at("layers"), 1);
    EXPECT_EQ(j.at("heads"), 1);
    EXPECT_EQ(j.at("keep"), 3);
    const auto& q = j.at("rows").at(0).at(0);
    ASSERT_EQ(q.size(), 3u); // one row per token, the third never seen
    // token 0: BOS 0.96 kept, itself 0.04 below the smallest weight
    EXPECT_EQ(q[0], nlohmann::json::parse("[-1, 0.96]"));
    // token 1: heaviest first (itself 0.677, token 0 0.2, BOS 0.123), rounded to 3 decimals
    EXPECT_EQ(q[1], nlohmann::json::parse("[1, 0.677, 0, 0.2, -1, 0.123]"));
    EXPECT_TRUE(q[2].empty());
    EXPECT_EQ(q[1].dump(), "[1,0.677,0,0.2,-1,0.123]");
    EXPECT_THROW(ascviz::attentionArcsJson(top, 3, -1.0, 3), ascviz::InputError);
}

} // namespace
