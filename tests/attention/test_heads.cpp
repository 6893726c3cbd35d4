// Attention heads vs relations on hand-built attention matrices (method.md §11): target ranks with BOS and
// ties, windows of a long text, the best head and its top-k scores, the greedy offset / keyword / combined
// baselines, Diff, the minimum count and the JSON contract of `analyze heads`.
#include "ascviz/attention/headreport.h"
#include "ascviz/base/error.h"

#include <gtest/gtest.h>

#include <array>

namespace {

using ascviz::BaselineChoice;

BaselineChoice off(int i)
{
    BaselineChoice c;
    c.offset = i;
    return c;
}

BaselineChoice kw(const char* w)
{
    BaselineChoice c;
    c.isKeyword = true;
    c.keyword = w;
    return c;
}

TEST(Heads, MetricsParse)
{
    EXPECT_EQ(ascviz::parseHeadMetric("any"), ascviz::HeadMetric::Any);
    EXPECT_STREQ(ascviz::headMetricName(ascviz::HeadMetric::Last), "last");
    EXPECT_THROW(ascviz::parseHeadMetric("middle"), ascviz::InputError);
}

TEST(Heads, TargetRankCountsKeysAboveAndNearerTies)
{
    const std::array<float, 5> row{0.1f, 0.4f, 0.2f, 0.3f, 0.0f};
    EXPECT_EQ(ascviz::bestTargetRank(row, 0, 4, {2}), 2); // 0.4 and 0.3 above 0.2
    EXPECT_EQ(ascviz::bestTargetRank(row, 0, 4, {1}), 0);
    EXPECT_EQ(ascviz::bestTargetRank(row, 0, 4, {0, 2}), 2);                      // any-token: the better target
    EXPECT_EQ(ascviz::bestTargetRank(row, 2, 4, {0}), ascviz::HeadScorer::kMiss); // not a candidate
    const std::array<float, 5> flat{0.25f, 0.25f, 0.25f, 0.25f, 0.0f};
    EXPECT_EQ(ascviz::bestTargetRank(flat, 0, 4, {1}), 2); // ties: keys 2 and 3 are nearer
    EXPECT_EQ(ascviz::bestTargetRank(flat, 0, 4, {3}), 0);
}

TEST(Heads, EdgesForEachMetric)
{
    ascviz::Relation r;
    r.type = "t:a\u2192b";
    r.head.tokens = {1, 2, 3};
    r.dependent.tokens = {4, 5};
    ascviz::Relation same = r; // both ends begin in token 4: no edge
    same.head.tokens = {4};
    const std::vector<ascviz::Relation> rels{r, same};
    EXPECT_EQ(ascviz::headEdges(rels, ascviz::HeadMetric::First).size(), 1u);
    EXPECT_EQ(ascviz::headEdges(rels, ascviz::HeadMetric::First)[0].targets, std::vector<int>({1}));
    EXPECT_EQ(ascviz::headEdges(rels, ascviz::HeadMetric::Last)[0].targets, std::vector<int>({3}));
    EXPECT_EQ(ascviz::headEdges(rels, ascviz::HeadMetric::Any)[0].targets, std::vector<int>({1, 2, 3}));
    EXPECT_EQ(ascviz::headEdges(rels, ascviz::HeadMetric::Any)[0].query, 4);
}

// [heads, T, T] with every row zero, then rows set by hand.
struct Attn {
    int H, T;
    std::vector<float> v;
    Attn(int h, int t) : H(h), T(t), v(static_cast<std::size_t>(h * t * t), 0.0f) {}
    void row(int h, int q, std::vector<float> values)
    {
        for (std::size_t k = 0; k < values.size(); ++k)
            v[static_cast<std::size_t>((h * T + q) * T) + k] = values[k];
    }
    std::array<int64_t, 3> shape() const { return {H, T, T}; }
};

TEST(Heads, ScorerWithBosRanksEveryLayerAndHead)
{
    // Text tokens 0..3 after a BOS: rows 1..4. One edge: query token 3 (row 4), target token 1 (row 2).
    ascviz::HeadScorer s(2, 1, {{0, 3, {1}}});
    Attn a(2, 5);
    a.row(0, 4, {0.5f, 0.1f, 0.3f, 0.1f, 0.0f}); // BOS is no candidate: the target is on top
    a.row(1, 4, {0.0f, 0.6f, 0.2f, 0.2f, 0.0f}); // 0.6 above, the tie at the nearer row 3 too
    const auto shape = a.shape();
    s.observeAttention(0, 0, shape, a.v);
    EXPECT_TRUE(s.delivered(0));
    EXPECT_FALSE(s.delivered(1)); // layer 1 not seen yet: only the layers that delivered attention count
    EXPECT_TRUE(s.evaluated(0));
    Attn b(2, 5);
    b.row(0, 4, {0.0f, 0.0f, 0.0f, 1.0f, 0.0f});
    b.row(1, 4, {0.0f, 0.0f, 1.0f, 0.0f, 0.0f});
    s.observeAttention(1, 0, shape, b.v);
    ASSERT_TRUE(s.evaluated(0));
    EXPECT_EQ(s.heads(), 2);
    EXPECT_EQ(s.rank(0, 0, 0), 0);
    EXPECT_EQ(s.rank(0, 0, 1), 2);
    EXPECT_EQ(s.rank(0, 1, 0), 1); // key 3 above; keys 1, 2 tie at 0 and the target is row 2 (token 1)
    EXPECT_EQ(s.rank(0, 1, 1), 0);
    const std::array<int64_t, 3> wrong{2, 5, 4};
    EXPECT_THROW(s.observeAttention(0, 0, wrong, a.v), ascviz::InputError);
    Attn three(3, 5);
    EXPECT_THROW(s.observeAttention(0, 0, three.shape(), three.v), ascviz::InputError);
}

// A hybrid (method.md §16 not yet: recurrent layers deliver no attention): the edge counts on the layers that
// delivered attention; the others' heads never hit. Nothing delivered: not evaluated.
TEST(Heads, LayersWithoutAttentionDoNotKeepAnEdgeFromCounting)
{
    ascviz::HeadScorer none(3, 1, {{0, 3, {1}}});
    EXPECT_FALSE(none.evaluated(0));
    ascviz::HeadScorer s(3, 1, {{0, 3, {1}}});
    Attn a(2, 5);
    a.row(0, 4, {0.0f, 0.1f, 0.7f, 0.2f, 0.0f});
    a.row(1, 4, {0.0f, 0.2f, 0.2f, 0.6f, 0.0f});
    s.observeAttention(0, 0, a.shape(), a.v);
    s.observeAttention(2, 0, a.shape(), a.v);
    EXPECT_FALSE(s.delivered(1));
    ASSERT_TRUE(s.evaluated(0));
    EXPECT_EQ(s.rank(0, 0, 0), 0);
    EXPECT_EQ(s.rank(0, 2, 1), 1);
    EXPECT_EQ(s.rank(0, 1, 0), ascviz::HeadScorer::kMiss);
    EXPECT_EQ(s.rank(0, 1, 1), ascviz::HeadScorer::kMiss);
}

TEST(Heads, WindowsOfALongText)
{
    // BOS + 5 tokens = positions 0..5, windows of 4 rows at positions 0 and 2.
    // A: query token 4 (position 5), target token 0 (position 1): its window starts at 2, so it is left out.
    // B: query token 4, target token 2: evaluated in the second window (rows 1 and 3).
    // C: query token 2 (position 3): evaluated in the first window, the one holding it first.
    ascviz::HeadScorer s(1, 1, {{0, 4, {0}}, {1, 4, {2}}, {2, 2, {0}}});
    Attn w0(1, 4);
    w0.row(0, 3, {0.0f, 0.9f, 0.1f, 0.0f}); // C: token 0 = row 1 on top
    s.observeAttention(0, 0, w0.shape(), w0.v);
    Attn w1(1, 4);
    w1.row(0, 1, {0.0f, 1.0f, 0.0f, 0.0f}); // C's row again: must not overwrite
    w1.row(0, 3, {0.5f, 0.3f, 0.2f, 0.0f}); // B: token 2 = row 1, one key (row 0 = token 1) above
    s.observeAttention(0, 2, w1.shape(), w1.v);
    EXPECT_FALSE(s.evaluated(0));
    EXPECT_TRUE(s.outsideWindow(0));
    ASSERT_TRUE(s.evaluated(1));
    EXPECT_EQ(s.rank(1, 0, 0), 1);
    ASSERT_TRUE(s.evaluated(2));
    EXPECT_EQ(s.rank(2, 0, 0), 0);
}

TEST(Heads, GreedyBaselinesPickTheLargestGain)
{
    // e0, e1: offset 1; e2: offset 2 or "if"; e3: offset 3 or "if"; e4: offset 2; e5: "if" only.
    const std::vector<ascviz::BaselineHits> hits{{off(1)},           {off(1)}, {off(2), kw("if")},
                                                 {off(3), kw("if")}, {off(2)}, {kw("if")}};
    const auto o = ascviz::greedyBaseline(hits, 20, true, false);
    EXPECT_EQ(o.choices, std::vector<BaselineChoice>({off(1), off(2), off(3)})); // 1 before 2 at equal gain
    EXPECT_EQ(o.coverage, std::vector<int>({2, 4, 5}));
    const auto k = ascviz::greedyBaseline(hits, 20, false, true);
    EXPECT_EQ(k.choices, std::vector<BaselineChoice>({kw("if")}));
    EXPECT_DOUBLE_EQ(k.score(3, 6), 0.5);
    const auto c = ascviz::greedyBaseline(hits, 20, true, true);
    EXPECT_EQ(c.choices, std::vector<BaselineChoice>({kw("if"), off(1), off(2)}));
    EXPECT_EQ(c.coverage, std::vector<int>({3, 5, 6}));
    EXPECT_DOUBLE_EQ(c.score(1, 6), 0.5);
    EXPECT_DOUBLE_EQ(o.score(1, 6), 2.0 / 6);
    EXPECT_DOUBLE_EQ(o.score(3, 6), 5.0 / 6);
    EXPECT_DOUBLE_EQ(c.score(20, 6), 1.0);
}

TEST(Heads, KeywordHitsOnlyTheNearestEarlierOccurrence)
{
    const std::vector<std::string> texts{"if", " x", " if", " y", " z"};
    const std::vector<std::string> keywords{"if"};
    // Target token 0, query 4: a nearer " if" (token 2) is what the keyword baseline predicts.
    const auto far = ascviz::baselineHits({0, 4, {0}}, texts, keywords);
    EXPECT_EQ(far, ascviz::BaselineHits({off(4)}));
    const auto near = ascviz::baselineHits({0, 4, {2}}, texts, keywords);
    EXPECT_EQ(near, ascviz::BaselineHits({off(2), kw("if")}));
}

// Two edges of one type over six tokens: "if", " x", ":", " y", "if", " z".
//   e0: query 3, target 0 (offset 3);  e1: query 5, target 4 (offset 1).
// Layer 0 head 0 hits both at top-1; head 1 has e0 at rank 1; layer 1 both heads have e0 at rank 2.
TEST(Heads, TallyFindsTheBestHeadAndBaselines)
{
    std::vector<ascviz::Relation> rels(2);
    rels[0].type = rels[1].type = "s:if\u2192body";
    rels[0].head.tokens = {0};
    rels[0].dependent.tokens = {3};
    rels[0].offset = 3;
    rels[1].head.tokens = {4};
    rels[1].dependent.tokens = {5};
    rels[1].offset = 1;
    const std::vector<std::string> texts{"if", " x", ":", " y", "if", " z"};
    ascviz::HeadScorer s(2, 0, ascviz::headEdges(rels, ascviz::HeadMetric::First));
    Attn l0(2, 6);
    l0.row(0, 3, {0.7f, 0.1f, 0.1f, 0.1f});
    l0.row(0, 5, {0.0f, 0.0f, 0.0f, 0.1f, 0.9f});
    l0.row(1, 3, {0.3f, 0.1f, 0.6f, 0.0f});
    l0.row(1, 5, {0.2f, 0.2f, 0.2f, 0.2f, 0.2f}); // ties: the target is the nearest key
    s.observeAttention(0, 0, l0.shape(), l0.v);
    Attn l1(2, 6);
    for (int h = 0; h < 2; ++h) {
        l1.row(h, 3, {0.1f, 0.2f, 0.6f, 0.1f});
        l1.row(h, 5, {0.0f, 0.0f, 0.0f, 0.0f, 1.0f});
    }
    s.observeAttention(1, 0, l1.shape(), l1.v);

    ascviz::HeadTally tally(2, 20, {"while", "if"});
    tally.add(rels, texts, s);
    EXPECT_EQ(tally.headScores("s:if\u2192body", 1), std::vector<double>({1.0, 0.5, 0.5, 0.5}));
    EXPECT_EQ(tally.headScores("s:if\u2192body", 3), std::vector<double>({1.0, 1.0, 1.0, 1.0}));
    const auto r = tally.report({1, 3}, 2);
    ASSERT_EQ(r.relations.size(), 1u);
    const auto& x = r.relations[0];
    EXPECT_EQ(x.count, 2);
    EXPECT_DOUBLE_EQ(x.meanOffset, 2.0);
    EXPECT_EQ(x.best.layer, 0);
    EXPECT_EQ(x.best.head, 0);
    EXPECT_EQ(x.bestScores, std::vector<double>({1.0, 1.0}));
    EXPECT_EQ(x.offset.choices, std::vector<BaselineChoice>({off(1), off(3)}));
    EXPECT_EQ(x.offsetScores, std::vector<double>({0.5, 1.0}));
    EXPECT_EQ(x.keyword.choices, std::vector<BaselineChoice>({kw("if")}));
    EXPECT_EQ(x.keywordScores, std::vector<double>({1.0, 1.0}));
    EXPECT_EQ(x.combined.choices.front(), kw("if"));
    EXPECT_EQ(x.diff, std::vector<double>({0.0, 0.0}));
    EXPECT_EQ(r.modelScore, std::vector<double>({1.0, 1.0}));
    EXPECT_EQ(r.offsetScore, std::vector<double>({0.5, 1.0}));

    const auto j = ascviz::headReportJson(r);
    const auto& jr = j.at("relations").at("s:if\u2192body");
    EXPECT_EQ(jr.at("best_head").at("scores"), nlohmann::json({1.0, 1.0}));
    EXPECT_EQ(jr.at("offset_baseline").at("choices"), nlohmann::json({1, 3}));
    EXPECT_EQ(jr.at("keyword_baseline").at("choices"), nlohmann::json({"if"}));
    EXPECT_TRUE(jr.at("combined_baseline").contains("scores"));
    EXPECT_EQ(j.at("top_k"), nlohmann::json({1, 3}));
    EXPECT_NE(ascviz::headTable3Latex(r).find("Combined & 100.0 & 100.0"), std::string::npos);
    EXPECT_NE(ascviz::headTable6Latex(r).find("s:if$\\rightarrow$body & 2 & (0, 0) & 100.0 / 50.0 & 1 & +50.0"),
              std::string::npos)
        << ascviz::headTable6Latex(r);

    // Under the minimum count the type is reported as rare, and the means are over no relation.
    const auto rare = tally.report({1}, 3);
    EXPECT_TRUE(rare.relations.empty());
    ASSERT_EQ(rare.rare.size(), 1u);
    EXPECT_EQ(rare.rare[0].second, 2);
    EXPECT_THROW(tally.report({21}, 1), ascviz::InputError);
}

} // namespace
