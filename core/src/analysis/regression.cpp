// Pearson, OLS by Householder QR, Student's t, seeded draws (regression.h).
#include "ascviz/analysis/regression.h"

#include "ascviz/base/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace ascviz {

std::optional<double> pearson(const std::vector<double>& x, const std::vector<double>& y)
{
    if (x.size() != y.size())
        throw std::invalid_argument("pearson: sizes differ");
    const std::size_t n = x.size();
    if (n < 2)
        return std::nullopt;
    const double mx = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(n);
    const double my = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(n);
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double dx = x[i] - mx, dy = y[i] - my;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if (sxx <= 0 || syy <= 0)
        return std::nullopt;
    return std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
}

OlsFit ols(const std::vector<std::vector<double>>& columns, const std::vector<double>& y)
{
    const std::size_t p = columns.size();
    const std::size_t n = y.size();
    for (const auto& c : columns)
        if (c.size() != n)
            throw std::invalid_argument("ols: a column's length differs from y's");
    if (p == 0 || n <= p)
        throw InputError("least squares needs more observations (" + std::to_string(n) + ") than parameters (" +
                         std::to_string(p) + ")");
    // A: n×p, column-major copy; Householder reflections applied to A and to b = y.
    std::vector<std::vector<double>> a = columns;
    std::vector<double> b = y;
    std::vector<double> colNorm(p);
    for (std::size_t j = 0; j < p; ++j) {
        double s = 0;
        for (double v : a[j])
            s += v * v;
        colNorm[j] = std::sqrt(s);
    }
    for (std::size_t k = 0; k < p; ++k) {
        double norm = 0;
        for (std::size_t i = k; i < n; ++i)
            norm += a[k][i] * a[k][i];
        norm = std::sqrt(norm);
        if (norm <= 1e-10 * std::max(colNorm[k], std::numeric_limits<double>::min()))
            throw InputError("least squares: the design is rank deficient (column " + std::to_string(k) +
                             " is a linear combination of the others, or constant beside the intercept)");
        const double alpha = a[k][k] > 0 ? -norm : norm;
        std::vector<double> v(n - k);
        v[0] = a[k][k] - alpha;
        for (std::size_t i = k + 1; i < n; ++i)
            v[i - k] = a[k][i];
        double vv = 0;
        for (double e : v)
            vv += e * e;
        if (vv > 0) {
            auto reflect = [&](std::vector<double>& col) {
                double d = 0;
                for (std::size_t i = k; i < n; ++i)
                    d += v[i - k] * col[i];
                const double f = 2 * d / vv;
                for (std::size_t i = k; i < n; ++i)
                    col[i] -= f * v[i - k];
            };
            for (std::size_t j = k; j < p; ++j)
                reflect(a[j]);
            reflect(b);
        }
        // After the reflection a[k][k] == alpha and a[k][i > k] == 0 (up to rounding).
        a[k][k] = alpha;
    }
    // R is a[j][i] for i <= j (row i, column j). Back substitution R coef = (Qᵀy)[0..p).
    OlsFit fit;
    fit.n = static_cast<int>(n);
    fit.p = static_cast<int>(p);
    fit.coef.assign(p, 0.0);
    for (std::size_t ii = p; ii-- > 0;) {
        double s = b[ii];
        for (std::size_t j = ii + 1; j < p; ++j)
            s -= a[j][ii] * fit.coef[j];
        fit.coef[ii] = s / a[ii][ii];
    }
    double rss = 0;
    for (std::size_t i = p; i < n; ++i)
        rss += b[i] * b[i]; // the residual is the part of Qᵀy beyond the first p rows
    fit.sigma2 = rss / static_cast<double>(n - p);
    // R⁻¹ (upper triangular), then se_j = sqrt(sigma² Σ_k (R⁻¹)_{jk}²).
    std::vector<std::vector<double>> rinv(p, std::vector<double>(p, 0.0)); // rinv[row][col]
    for (std::size_t col = 0; col < p; ++col) {
        rinv[col][col] = 1.0 / a[col][col];
        for (std::size_t row = col; row-- > 0;) {
            double s = 0;
            for (std::size_t k = row + 1; k <= col; ++k)
                s += a[k][row] * rinv[k][col];
            rinv[row][col] = -s / a[row][row];
        }
    }
    fit.se.assign(p, 0.0);
    for (std::size_t j = 0; j < p; ++j) {
        double s = 0;
        for (std::size_t k = j; k < p; ++k)
            s += rinv[j][k] * rinv[j][k];
        fit.se[j] = std::sqrt(fit.sigma2 * s);
    }
    return fit;
}

namespace {

// Continued fraction for the regularized incomplete beta (modified Lentz).
double betaContinuedFraction(double a, double b, double x)
{
    constexpr double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (std::fabs(d) < tiny)
        d = tiny;
    d = 1 / d;
    double h = d;
    // One step of the recurrence with coefficient aa; returns the factor applied to h.
    auto step = [&](double aa) {
        d = 1 + aa * d;
        if (std::fabs(d) < tiny)
            d = tiny;
        c = 1 + aa / c;
        if (std::fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        h *= d * c;
        return d * c;
    };
    for (int m = 1; m <= 10000; ++m) {
        const double m2 = 2.0 * m;
        step(m * (b - m) * x / ((a + m2 - 1) * (a + m2)));
        const double del = step(-(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)));
        if (std::fabs(del - 1) < 1e-16)
            break;
    }
    return h;
}

double regularizedBeta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    const double lbeta = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b);
    const double front = std::exp(lbeta + a * std::log(x) + b * std::log1p(-x));
    if (x < (a + 1) / (a + b + 2))
        return front * betaContinuedFraction(a, b, x) / a;
    return 1 - front * betaContinuedFraction(b, a, 1 - x) / b;
}

} // namespace

double studentTCdf(double t, double df)
{
    if (!(df > 0))
        throw std::invalid_argument("studentTCdf: df must be > 0");
    const double x = df / (df + t * t);
    const double tail = 0.5 * regularizedBeta(df / 2, 0.5, x);
    return t >= 0 ? 1 - tail : tail;
}

double studentTQuantile(double p, double df)
{
    if (!(p > 0 && p < 1))
        throw std::invalid_argument("studentTQuantile: p must be in (0, 1)");
    if (p == 0.5)
        return 0;
    // Bracket, then bisection (the CDF is monotone); 200 halvings reach double precision.
    double lo = -1, hi = 1;
    while (studentTCdf(lo, df) > p)
        lo *= 2;
    while (studentTCdf(hi, df) < p)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-15 * std::max(1.0, std::fabs(lo)); ++i) {
        const double mid = 0.5 * (lo + hi);
        (studentTCdf(mid, df) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

std::vector<std::size_t> seededPermutation(std::size_t n, uint64_t seed)
{
    std::vector<std::size_t> idx(n);
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::mt19937_64 rng(seed);
    for (std::size_t i = 0; i + 1 < n; ++i) {
        const std::size_t j = i + static_cast<std::size_t>(rng() % (n - i));
        std::swap(idx[i], idx[j]);
    }
    return idx;
}

std::vector<std::size_t> seededSubset(std::size_t n, std::size_t k, uint64_t seed)
{
    auto idx = seededPermutation(n, seed);
    idx.resize(std::min(k, n));
    std::sort(idx.begin(), idx.end());
    return idx;
}

std::vector<double> seededNormals(std::size_t n, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    auto uniform = [&rng] { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; }; // (0, 1)
    std::vector<double> out;
    out.reserve(n + 1);
    const double twoPi = 6.283185307179586476925286766559;
    while (out.size() < n) {
        const double u1 = uniform(), u2 = uniform();
        const double r = std::sqrt(-2 * std::log(u1));
        out.push_back(r * std::cos(twoPi * u2));
        out.push_back(r * std::sin(twoPi * u2));
    }
    out.resize(n);
    return out;
}

} // namespace ascviz
