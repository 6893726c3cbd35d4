// Numerics of the corpus analyses (analysis/regression.h) against independent computations: closed forms,
// normal equations solved by Gaussian elimination in the test, published t-table values.
#include "ascviz/analysis/causal.h"
#include "ascviz/analysis/regression.h"
#include "ascviz/base/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

using namespace ascviz;

namespace {

// Solves (XᵀX) b = Xᵀy by Gauss–Jordan elimination with partial pivoting: an independent path to the OLS
// coefficients and to (XᵀX)⁻¹.
void normalEquations(const std::vector<std::vector<double>>& cols, const std::vector<double>& y, std::vector<double>& b,
                     std::vector<std::vector<double>>& inv)
{
    const std::size_t p = cols.size(), n = y.size();
    std::vector<std::vector<double>> a(p, std::vector<double>(2 * p + 1, 0.0));
    for (std::size_t i = 0; i < p; ++i) {
        for (std::size_t j = 0; j < p; ++j)
            for (std::size_t k = 0; k < n; ++k)
                a[i][j] += cols[i][k] * cols[j][k];
        for (std::size_t k = 0; k < n; ++k)
            a[i][2 * p] += cols[i][k] * y[k];
        a[i][p + i] = 1;
    }
    for (std::size_t c = 0; c < p; ++c) {
        std::size_t piv = c;
        for (std::size_t r = c + 1; r < p; ++r)
            if (std::fabs(a[r][c]) > std::fabs(a[piv][c]))
                piv = r;
        std::swap(a[c], a[piv]);
        const double d = a[c][c];
        for (auto& v : a[c])
            v /= d;
        for (std::size_t r = 0; r < p; ++r)
            if (r != c) {
                const double f = a[r][c];
                for (std::size_t k = 0; k < 2 * p + 1; ++k)
                    a[r][k] -= f * a[c][k];
            }
    }
    b.assign(p, 0);
    inv.assign(p, std::vector<double>(p));
    for (std::size_t i = 0; i < p; ++i) {
        b[i] = a[i][2 * p];
        for (std::size_t j = 0; j < p; ++j)
            inv[i][j] = a[i][p + j];
    }
}

} // namespace

TEST(Pearson, KnownValuesAndDegenerateCases)
{
    EXPECT_NEAR(*pearson({1, 2, 3, 4}, {2, 4, 6, 8}), 1.0, 1e-15);
    EXPECT_NEAR(*pearson({1, 2, 3, 4}, {8, 6, 4, 2}), -1.0, 1e-15);
    // By hand: x = 1..5, y = 2,1,4,3,5: Sxy = 8, Sxx = Syy = 10 -> r = 0.8.
    EXPECT_NEAR(*pearson({1, 2, 3, 4, 5}, {2, 1, 4, 3, 5}), 0.8, 1e-15);
    EXPECT_FALSE(pearson({1, 1, 1}, {1, 2, 3}).has_value());
    EXPECT_FALSE(pearson({1}, {2}).has_value());
    EXPECT_THROW(pearson({1, 2}, {1}), std::invalid_argument);
}

TEST(Ols, SimpleRegressionMatchesTheClosedForm)
{
    const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7};
    const std::vector<double> y = {1.1, 1.9, 3.2, 3.9, 5.3, 5.8, 7.4};
    const double n = 7, mx = 4;
    double my = 0;
    for (double v : y)
        my += v / n;
    double sxy = 0, sxx = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    const double slope = sxy / sxx, icpt = my - slope * mx;
    double rss = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
        rss += std::pow(y[i] - icpt - slope * x[i], 2);
    const double s2 = rss / (n - 2);
    const OlsFit f = ols({std::vector<double>(7, 1.0), x}, y);
    EXPECT_NEAR(f.coef[0], icpt, 1e-12);
    EXPECT_NEAR(f.coef[1], slope, 1e-12);
    EXPECT_NEAR(f.sigma2, s2, 1e-12);
    EXPECT_NEAR(f.se[1], std::sqrt(s2 / sxx), 1e-12);
    EXPECT_NEAR(f.se[0], std::sqrt(s2 * (1 / n + mx * mx / sxx)), 1e-12);
    EXPECT_EQ(f.dfResid(), 5);
}

TEST(Ols, SeveralColumnsMatchTheNormalEquations)
{
    std::mt19937_64 rng(7);
    std::normal_distribution<double> nd;
    const std::size_t n = 200;
    std::vector<std::vector<double>> cols(5, std::vector<double>(n));
    std::vector<double> y(n);
    for (std::size_t i = 0; i < n; ++i) {
        cols[0][i] = 1;
        cols[1][i] = nd(rng);
        cols[2][i] = 0.6 * cols[1][i] + nd(rng); // correlated with column 1
        cols[3][i] = 100 + 10 * nd(rng);         // large scale
        cols[4][i] = std::floor(5 * std::fabs(nd(rng)));
        y[i] = 0.5 - 2 * cols[1][i] + 0.3 * cols[2][i] + 0.01 * cols[3][i] + 0.2 * cols[4][i] + nd(rng);
    }
    const OlsFit f = ols(cols, y);
    std::vector<double> b;
    std::vector<std::vector<double>> inv;
    normalEquations(cols, y, b, inv);
    double rss = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double fit = 0;
        for (std::size_t j = 0; j < cols.size(); ++j)
            fit += b[j] * cols[j][i];
        rss += (y[i] - fit) * (y[i] - fit);
    }
    const double s2 = rss / double(n - cols.size());
    for (std::size_t j = 0; j < cols.size(); ++j) {
        EXPECT_NEAR(f.coef[j], b[j], 1e-9 * std::max(1.0, std::fabs(b[j]))) << j;
        EXPECT_NEAR(f.se[j], std::sqrt(s2 * inv[j][j]), 1e-9) << j;
    }
    EXPECT_NEAR(f.coef[1], -2, 0.3); // recovers the generating coefficient
}

TEST(Ols, RankDeficientOrTooFewRowsAreInputErrors)
{
    const std::vector<double> one(5, 1.0), x = {1, 2, 3, 4, 5}, twice = {2, 4, 6, 8, 10}, y = {1, 2, 1, 2, 1};
    EXPECT_THROW(ols({one, x, twice}, y), InputError);
    EXPECT_THROW(ols({one, std::vector<double>(5, 3.0)}, y), InputError);
    EXPECT_THROW(ols({one, x}, {1, 2}), std::invalid_argument);
    EXPECT_THROW(ols({{1, 1}, {1, 2}}, {1, 2}), InputError); // n == p
}

TEST(StudentT, TableValues)
{
    EXPECT_NEAR(studentTCdf(0, 5), 0.5, 1e-15);
    EXPECT_NEAR(studentTQuantile(0.975, 1), 12.706204736174698, 1e-9);
    EXPECT_NEAR(studentTQuantile(0.975, 10), 2.2281388519649385, 1e-10);
    EXPECT_NEAR(studentTQuantile(0.975, 30), 2.0422724563012373, 1e-10);
    EXPECT_NEAR(studentTQuantile(0.975, 1e6), 1.959966, 1e-5); // -> the normal quantile
    EXPECT_NEAR(studentTQuantile(0.025, 10), -2.2281388519649385, 1e-10);
    EXPECT_NEAR(studentTCdf(2.2281388519649385, 10), 0.975, 1e-12);
}

TEST(SeededDraws, ReproduciblePermutationsSubsetsAndNormals)
{
    auto p = seededPermutation(100, 3);
    EXPECT_EQ(p, seededPermutation(100, 3));
    EXPECT_NE(p, seededPermutation(100, 4));
    auto sorted = p;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i)
        EXPECT_EQ(sorted[i], i);
    const auto s = seededSubset(100, 80, 3);
    EXPECT_EQ(s.size(), 80u);
    EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
    const auto z = seededNormals(20000, 9);
    const double mean = std::accumulate(z.begin(), z.end(), 0.0) / double(z.size());
    double var = 0;
    for (double v : z)
        var += (v - mean) * (v - mean) / double(z.size());
    EXPECT_NEAR(mean, 0, 0.03);
    EXPECT_NEAR(var, 1, 0.05);
    EXPECT_EQ(z, seededNormals(20000, 9));
}

TEST(CausalEstimateTest, RecoversAKnownEffectAndTheRefutationsBehave)
{
    std::mt19937_64 rng(11);
    std::normal_distribution<double> nd;
    CausalRows r;
    r.z.assign(causalConfounders().size(), {});
    for (int i = 0; i < 400; ++i) {
        const double tokens = 20 + 80 * std::fabs(nd(rng));
        const double nodes = 1.5 * tokens + 5 * nd(rng);
        const double levels = 3 + std::floor(std::fabs(2 * nd(rng)));
        const double cc = 1 + std::floor(std::fabs(2 * nd(rng)));
        const double t = 0.5 + 0.002 * tokens + 0.1 * nd(rng); // confounded by size
        const double y = 3 - 1.6 * t + 0.01 * tokens + 0.05 * cc + 0.2 * nd(rng);
        r.t.push_back(t);
        r.y.push_back(y);
        for (std::size_t k = 0; k < 4; ++k)
            r.z[k].push_back(std::vector<double>{tokens, nodes, levels, cc}[k]);
    }
    const CausalEstimate e = estimateCausal(r);
    ASSERT_TRUE(e.hasEffect) << e.note;
    EXPECT_EQ(e.n, 400);
    EXPECT_NEAR(e.effect, -1.6, 4 * e.se);
    EXPECT_LT(e.lo, e.effect);
    EXPECT_GT(e.hi, e.effect);
    ASSERT_TRUE(e.placebo && e.randomCommonCause && e.dataSubset);
    EXPECT_LT(std::fabs(*e.placebo), 4 * e.se);              // the effect vanishes
    EXPECT_NEAR(*e.randomCommonCause, e.effect, 0.5 * e.se); // stable
    EXPECT_NEAR(*e.dataSubset, e.effect, 4 * e.se);          // stable within noise
    EXPECT_EQ(e.rhoConfounders.size(), 4u);
    EXPECT_GT(*e.rhoConfounders[0].second, 0.5); // T correlates with size
    // Same rows, same key: same refutations; another key: other draws.
    const CausalEstimate again = estimateCausal(r);
    EXPECT_EQ(*again.placebo, *e.placebo);
    EXPECT_NE(*estimateCausal(r, {}, "other").placebo, *e.placebo);

    // Too few rows: ρ but no effect, with the reason.
    CausalRows few = r;
    few.t.resize(5);
    few.y.resize(5);
    for (auto& c : few.z)
        c.resize(5);
    const CausalEstimate small = estimateCausal(few);
    EXPECT_FALSE(small.hasEffect);
    EXPECT_TRUE(small.rhoOutcome.has_value());
    EXPECT_NE(small.note.find("too few"), std::string::npos);
}
