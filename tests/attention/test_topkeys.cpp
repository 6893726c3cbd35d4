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

} // namespace
