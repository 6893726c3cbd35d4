// Numerics for the corpus analyses: Pearson correlation, ordinary least squares by Householder QR (with
// classical standard errors, as statsmodels' OLS reports them), Student's t quantiles, and seeded draws
// whose sequence does not depend on the standard library (permutations, subsets, normal variates).
#pragma once
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace ascviz {

// Pearson's r; nullopt when fewer than 2 pairs or either variable is constant. Throws std::invalid_argument
// when the sizes differ.
std::optional<double> pearson(const std::vector<double>& x, const std::vector<double>& y);

struct OlsFit {
    std::vector<double> coef; // one per column of X
    std::vector<double> se;   // sqrt of the diagonal of sigma² (XᵀX)⁻¹
    double sigma2 = 0;        // residual variance, RSS / (n − p)
    int n = 0, p = 0;
    int dfResid() const { return n - p; }
};

// OLS of y on the columns of X (X given column by column; include a column of ones for an intercept).
// Householder QR of X, then R b = Qᵀy; (XᵀX)⁻¹ = R⁻¹R⁻ᵀ. Throws InputError when n <= p or X is rank
// deficient (a column is, to 1e-10 relative, a combination of the others: the message names its index).
OlsFit ols(const std::vector<std::vector<double>>& columns, const std::vector<double>& y);

// Student's t distribution: CDF and quantile (p in (0, 1)), df > 0; via the regularized incomplete beta
// function (continued fraction), |error| < 1e-12 in the quantile.
double studentTCdf(double t, double df);
double studentTQuantile(double p, double df);

// Seeded draws (mt19937_64): a permutation of 0..n-1 (Fisher–Yates, index = draw % remaining), a sorted
// subset of k of n indices, and standard normal variates by Box–Muller on 53-bit uniforms.
std::vector<std::size_t> seededPermutation(std::size_t n, uint64_t seed);
std::vector<std::size_t> seededSubset(std::size_t n, std::size_t k, uint64_t seed);
std::vector<double> seededNormals(std::size_t n, uint64_t seed);

} // namespace ascviz
