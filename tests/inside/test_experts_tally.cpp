// Experts by syntax (experts.h; method.md §15): the category × layer × expert shares and the specialisation score
// of ExpertTally, against values computed by hand, and its refusals.
#include "ascviz/base/error.h"
#include "ascviz/experts/experts.h"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using ascviz::ExpertTally;
using ascviz::LayerExperts;

ascviz::TokenExperts at1(std::vector<int> ids)
{
    return {LayerExperts{1, std::move(ids), {0.6, 0.4}}};
}

// 4 tokens, 4 experts, top-2, one sparse layer (1 of 2):
//   t1 {A}    -> 0, 1        t2 {A, B} -> 0, 2        t3 {B} -> 3, 2        t4 {} -> 0, 3
// all: e0 3, e1 1, e2 2, e3 2 of n = 4 -> shares .75 .25 .5 .5, Q = shares / 2 = .375 .125 .25 .25
// A:   e0 2, e1 1, e2 1, e3 0 of n = 2 -> shares 1 .5 .5 0,  P = .5 .25 .25 0
//      KL = .5 log2(.5/.375) + .25 log2(.25/.125) = .5 log2(4/3) + .25
// B:   e0 1, e1 0, e2 2, e3 1 of n = 2 -> shares .5 0 1 .5,  P = .25 0 .5 .25
//      KL = .25 log2(.25/.375) + .5 log2(.5/.25) = .25 log2(2/3) + .5
TEST(ExpertTally, SharesAndSpecialisationByHand)
{
    ExpertTally t(2, 4, 2);
    t.addToken({"A"}, at1({0, 1}));
    t.addToken({"A", "B"}, at1({0, 2}));
    t.addToken({"B"}, at1({3, 2}));
    t.addToken({}, at1({0, 3}));
    EXPECT_EQ(t.tokens(), 4);
    const auto r = t.report();
    EXPECT_EQ(r.layers, 2);
    EXPECT_EQ(r.experts, 4);
    ASSERT_EQ(r.rows.size(), 8u);
    const double wantA[] = {1.0, 0.5, 0.5, 0.0}, wantB[] = {0.5, 0.0, 1.0, 0.5};
    for (int e = 0; e < 4; ++e) {
        const auto& a = r.rows[static_cast<std::size_t>(e)];
        const auto& b = r.rows[static_cast<std::size_t>(4 + e)];
        EXPECT_EQ(a.category, "A");
        EXPECT_EQ(b.category, "B");
        EXPECT_EQ(a.layer, 1);
        EXPECT_EQ(a.expert, e);
        EXPECT_EQ(b.expert, e);
        EXPECT_EQ(a.n, 2);
        EXPECT_EQ(b.n, 2);
        EXPECT_DOUBLE_EQ(a.share, wantA[e]);
        EXPECT_DOUBLE_EQ(b.share, wantB[e]);
    }
    ASSERT_EQ(r.specialisation.size(), 2u);
    EXPECT_EQ(r.specialisation[0].category, "A");
    EXPECT_EQ(r.specialisation[0].n, 2);
    EXPECT_NEAR(r.specialisation[0].kl, 0.5 * std::log2(4.0 / 3.0) + 0.25, 1e-12);
    EXPECT_NEAR(r.specialisation[1].kl, 0.25 * std::log2(2.0 / 3.0) + 0.5, 1e-12);

    const auto j = ascviz::expertReportJson(r);
    EXPECT_EQ(j.at("layers"), 2);
    EXPECT_EQ(j.at("experts"), 4);
    EXPECT_EQ(j.at("rows").size(), 8u);
    EXPECT_EQ(j.at("rows")[0].at("category"), "A");
    EXPECT_DOUBLE_EQ(j.at("rows")[1].at("share").get<double>(), 0.5);
    EXPECT_EQ(j.at("rows")[1].at("n"), 2);
}

TEST(ExpertTally, RoutedLikeTheCorpusIsZero)
{
    ExpertTally t(1, 3, 1);
    for (int i = 0; i < 3; ++i)
        t.addToken({"C"}, {LayerExperts{0, {i}, {1.0}}});
    const auto r = t.report();
    ASSERT_EQ(r.specialisation.size(), 1u);
    EXPECT_NEAR(r.specialisation[0].kl, 0.0, 1e-12);
    for (const auto& row : r.rows)
        EXPECT_NEAR(row.share, 1.0 / 3.0, 1e-12);
}

TEST(ExpertTally, RefusesOutOfRange)
{
    ExpertTally t(2, 4, 2);
    EXPECT_THROW(t.addToken({"A"}, at1({0, 4})), ascviz::InputError);                           // no expert 4
    EXPECT_THROW(t.addToken({"A"}, {LayerExperts{2, {0, 1}, {0.5, 0.5}}}), ascviz::InputError); // no layer 2
    EXPECT_THROW(t.addToken({"A"}, {LayerExperts{1, {0}, {1.0}}}), ascviz::InputError);         // not top-2
    EXPECT_THROW(ExpertTally(2, 4, 5), ascviz::InputError);
}

} // namespace
