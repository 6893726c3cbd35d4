// Refuters as DoWhy 0.14 defines them (analysis/refute.h, method.md §7/§12), computed by hand on small data:
// the placebo effects are tested against 0 (not the estimate), the empirical p-value is the two-sided
// 2·min(q, 1 − q), the data subset keeps round(fraction · n) rows rounded half to even as pandas' sample.
#include "ascviz/analysis/refute.h"
#include "ascviz/analysis/regression.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

using namespace ascviz;

namespace {

// The effect of a binary treatment in y ~ 1 + t (no confounder) is the difference of the group means: a path
// independent of the QR solver.
double meanDifference(const std::vector<double>& t, const std::vector<double>& y)
{
    double s1 = 0, s0 = 0, n1 = 0, n0 = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i] == 1.0) {
            s1 += y[i];
            n1 += 1;
        } else {
            s0 += y[i];
            n0 += 1;
        }
    }
    return s1 / n1 - s0 / n0;
}

// The placebo effects refuteEffect draws: simulation s permutes t with seed + 3 s (refute.cpp).
std::vector<double> placeboEffects(const std::vector<double>& t, const std::vector<double>& y, int n, uint64_t seed)
{
    std::vector<double> out;
    for (int s = 0; s < n; ++s) {
        const auto perm = seededPermutation(t.size(), seed + 3 * static_cast<uint64_t>(s));
        std::vector<double> tp(t.size());
        for (std::size_t i = 0; i < t.size(); ++i)
            tp[i] = t[perm[i]];
        out.push_back(meanDifference(tp, y));
    }
    return out;
}

// t = 0,0,0,1,1,1; y sums to 31 (odd), so no permutation gives a placebo effect of exactly 0.
const std::vector<double> kT{0, 0, 0, 1, 1, 1};
const std::vector<double> kY{1, 2, 3, 7, 8, 10};

} // namespace

TEST(RefuteDoWhy, EmpiricalPValueIsTwoSided)
{
    std::vector<double> sims(100);
    std::iota(sims.begin(), sims.end(), 0.0); // 0..99
    // 10.5: 89 above, q = 0.89, p = 2·0.11
    EXPECT_NEAR(refutationPValue(sims, 10.5), 0.22, 1e-15);
    // 95: 4 above and one equal, q = 0.045, p = 0.09
    EXPECT_NEAR(refutationPValue(sims, 95.0), 0.09, 1e-15);
    // the median: q = 0.5, p = 1
    EXPECT_DOUBLE_EQ(refutationPValue(sims, 49.5), 1.0);
    EXPECT_DOUBLE_EQ(refutationPValue(sims, 1000.0), 0.0);
    EXPECT_DOUBLE_EQ(refutationPValue(sims, -5.0), 0.0);
    // fewer than 100: DoWhy's normal test, one-sided: mean 2, sd sqrt(2/3), z = 1.8371173
    EXPECT_NEAR(refutationPValue({1, 2, 3}, 3.5), 0.03309628986109672, 1e-12);
    EXPECT_THROW(refutationPValue({1}, 0.0), std::invalid_argument);
}

TEST(RefuteDoWhy, PlaceboIsTestedAgainstZero)
{
    const double estimate = meanDifference(kT, kY); // 25/3 − 2 = 6.333…
    RefuteOptions o;
    o.simulations = 100;
    o.seed = 7;
    const auto r = refuteEffect(kT, kY, {}, estimate, o);
    ASSERT_EQ(r.size(), 3u);
    ASSERT_EQ(r[0].name, "placebo");
    ASSERT_EQ(r[0].simulations, 100);
    const auto sims = placeboEffects(kT, kY, 100, o.seed);
    double above = 0;
    for (double x : sims)
        above += x > 0 ? 1.0 : 0.0; // never 0 (the sum of y is odd)
    const double q = above / 100.0;
    ASSERT_TRUE(r[0].p);
    EXPECT_NEAR(*r[0].p, 2 * std::min(q, 1 - q), 1e-15);
    EXPECT_DOUBLE_EQ(r[0].reference, 0.0);
    EXPECT_NEAR(r[0].newEffect, std::accumulate(sims.begin(), sims.end(), 0.0) / 100.0, 1e-12);
    // the placebo effects are symmetric around 0 (the complement of a grouping negates its effect): 0 sits
    // inside them (a large p), while the estimate (19/3, the largest possible effect, reached only by the
    // groupings equal to t's) lies at their edge — the old test against the estimate gave a small p
    EXPECT_GT(*r[0].p, 0.2);
    EXPECT_LT(refutationPValue(sims, estimate), 0.2);
    // the random common cause and the data subset are tested against the estimate
    EXPECT_DOUBLE_EQ(r[1].reference, estimate);
    EXPECT_DOUBLE_EQ(r[2].reference, estimate);
}

TEST(RefuteDoWhy, PlaceboNormalTestAgainstZero)
{
    const double estimate = meanDifference(kT, kY);
    RefuteOptions o;
    o.simulations = 5; // < 100: the normal test
    o.seed = 11;
    const auto r = refuteEffect(kT, kY, {}, estimate, o);
    const auto sims = placeboEffects(kT, kY, 5, o.seed);
    const double mean = std::accumulate(sims.begin(), sims.end(), 0.0) / 5.0;
    double ss = 0;
    for (double x : sims)
        ss += (x - mean) * (x - mean);
    const double z = (0.0 - mean) / std::sqrt(ss / 5.0);
    ASSERT_TRUE(r[0].p);
    EXPECT_NEAR(*r[0].p, 0.5 * std::erfc(std::abs(z) / std::sqrt(2.0)), 1e-9);
}

TEST(RefuteDoWhy, DataSubsetSizeAsPandas)
{
    EXPECT_EQ(subsetSize(10, 0.8), 8u);
    EXPECT_EQ(subsetSize(5, 0.5), 2u);   // 2.5: half to even (std::lround would give 3)
    EXPECT_EQ(subsetSize(7, 0.5), 4u);   // 3.5 → 4
    EXPECT_EQ(subsetSize(10, 0.25), 2u); // 2.5 → 2
    EXPECT_EQ(subsetSize(9, 0.8), 7u);   // 7.2
    EXPECT_EQ(subsetSize(6, 1.0), 6u);
    EXPECT_THROW(subsetSize(10, 0.0), std::invalid_argument);
    EXPECT_THROW(subsetSize(10, 1.5), std::invalid_argument);
    // the fraction is reported with the data subset
    RefuteOptions o;
    o.simulations = 3;
    o.subsetFraction = 0.5;
    const auto r = refuteEffect(kT, kY, {}, meanDifference(kT, kY), o);
    EXPECT_DOUBLE_EQ(r[2].subsetFraction, 0.5);
    const auto j = refutationsToJson(r);
    EXPECT_DOUBLE_EQ(j["data_subset"]["subset_fraction"].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ(j["placebo"]["tested_against"].get<double>(), 0.0);
    EXPECT_FALSE(j["placebo"].contains("subset_fraction"));
}
