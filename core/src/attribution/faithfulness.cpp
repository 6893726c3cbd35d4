#include "ascviz/attribution/faithfulness.h"

#include "ascviz/base/error.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

namespace ascviz {

double curveAuc(const std::vector<double>& g)
{
    if (g.empty())
        return 0;
    if (g.size() == 1)
        return g.front();
    double sum = 0;
    for (std::size_t k = 1; k < g.size(); ++k)
        sum += (g[k - 1] + g[k]) / 2;
    return sum / static_cast<double>(g.size() - 1);
}

std::vector<std::size_t> attributionOrder(const std::vector<double>& attribution)
{
    std::vector<std::size_t> order(attribution.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return attribution[a] > attribution[b]; });
    return order;
}

namespace {

// The sorted union of the positions of nodes[order[k]] for k in [begin, end).
std::vector<std::size_t> unionOf(const std::vector<std::vector<std::size_t>>& nodes,
                                 const std::vector<std::size_t>& order, std::size_t begin, std::size_t end)
{
    std::vector<std::size_t> out;
    for (std::size_t k = begin; k < end; ++k)
        out.insert(out.end(), nodes[order[k]].begin(), nodes[order[k]].end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// Collects distinct hidden sets; index() gives a set's slot in the one call to f.
struct HiddenSets {
    std::map<std::vector<std::size_t>, std::size_t> index;
    std::vector<std::vector<std::size_t>> sets;
    std::size_t add(std::vector<std::size_t> s)
    {
        const auto [it, fresh] = index.emplace(s, sets.size());
        if (fresh)
            sets.push_back(std::move(s));
        return it->second;
    }
};

} // namespace

Faithfulness faithfulness(const std::vector<std::vector<std::size_t>>& nodes, const std::vector<double>& attribution,
                          const HiddenLogProbs& f, int randomOrders, uint64_t seed)
{
    if (nodes.size() != attribution.size())
        throw InputError("faithfulness: " + std::to_string(nodes.size()) + " nodes but " +
                         std::to_string(attribution.size()) + " attribution values");
    const std::size_t m = nodes.size();
    std::vector<std::vector<std::size_t>> orders{attributionOrder(attribution)};
    std::mt19937_64 rng(seed);
    for (int r = 0; r < randomOrders; ++r) {
        std::vector<std::size_t> o(m);
        std::iota(o.begin(), o.end(), std::size_t{0});
        for (std::size_t i = 0; i + 1 < m; ++i)
            std::swap(o[i], o[std::uniform_int_distribution<std::size_t>(i, m - 1)(rng)]);
        orders.push_back(std::move(o));
    }
    // deletion slot d[o][k] hides order[0 … k); insertion slot ins[o][k] hides order[k … m)
    HiddenSets sets;
    std::vector<std::vector<std::size_t>> del(orders.size()), ins(orders.size());
    for (std::size_t o = 0; o < orders.size(); ++o)
        for (std::size_t k = 0; k <= m; ++k) {
            del[o].push_back(sets.add(unionOf(nodes, orders[o], 0, k)));
            ins[o].push_back(sets.add(unionOf(nodes, orders[o], k, m)));
        }
    const std::vector<double> lp = f(sets.sets);
    if (lp.size() != sets.sets.size())
        throw InputError("faithfulness: the log-probability function returned " + std::to_string(lp.size()) +
                         " values for " + std::to_string(sets.sets.size()) + " hidden sets");
    auto curve = [&](const std::vector<std::size_t>& slots) {
        std::vector<double> g;
        for (const std::size_t s : slots)
            g.push_back(lp[s]);
        return g;
    };
    Faithfulness out;
    out.evaluations = sets.sets.size();
    out.randomOrders = randomOrders;
    out.deletion = curve(del[0]);
    out.insertion = curve(ins[0]);
    out.deletionAuc = curveAuc(out.deletion);
    out.insertionAuc = curveAuc(out.insertion);
    for (std::size_t o = 1; o < orders.size(); ++o) {
        out.randomDeletionAuc += curveAuc(curve(del[o])) / randomOrders;
        out.randomInsertionAuc += curveAuc(curve(ins[o])) / randomOrders;
    }
    return out;
}

namespace {

double mean(const std::vector<double>& v)
{
    return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double softThreshold(double z, double g)
{
    return z > g ? z - g : (z < -g ? z + g : 0);
}

} // namespace

double lassoLambdaMax(const std::vector<std::vector<double>>& x, const std::vector<double>& y)
{
    const std::size_t n = y.size();
    if (n == 0)
        return 0;
    const std::size_t p = x.front().size();
    const double ybar = mean(y);
    double best = 0;
    for (std::size_t j = 0; j < p; ++j) {
        double xbar = 0, dot = 0;
        for (std::size_t i = 0; i < n; ++i)
            xbar += x[i][j] / static_cast<double>(n);
        for (std::size_t i = 0; i < n; ++i)
            dot += (x[i][j] - xbar) * (y[i] - ybar);
        best = std::max(best, std::abs(dot) / static_cast<double>(n));
    }
    return best;
}

LassoFit lasso(const std::vector<std::vector<double>>& x, const std::vector<double>& y, double lambda, int maxSweeps,
               double tol)
{
    const std::size_t n = y.size();
    if (n == 0 || x.size() != n)
        throw InputError("lasso: " + std::to_string(x.size()) + " rows of x for " + std::to_string(n) + " values of y");
    const std::size_t p = x.front().size();
    // Centre the columns and y: the intercept is then ȳ − x̄·β.
    std::vector<double> xbar(p, 0.0), norm(p, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        if (x[i].size() != p)
            throw InputError("lasso: row " + std::to_string(i) + " of x has " + std::to_string(x[i].size()) +
                             " columns, row 0 has " + std::to_string(p));
        for (std::size_t j = 0; j < p; ++j)
            xbar[j] += x[i][j] / static_cast<double>(n);
    }
    const double ybar = mean(y);
    std::vector<std::vector<double>> xc(p, std::vector<double>(n)); // column-major, centred
    for (std::size_t j = 0; j < p; ++j)
        for (std::size_t i = 0; i < n; ++i) {
            xc[j][i] = x[i][j] - xbar[j];
            norm[j] += xc[j][i] * xc[j][i] / static_cast<double>(n);
        }
    std::vector<double> residual(n);
    for (std::size_t i = 0; i < n; ++i)
        residual[i] = y[i] - ybar;
    LassoFit fit;
    fit.coef.assign(p, 0.0);
    for (fit.sweeps = 1; fit.sweeps <= maxSweeps; ++fit.sweeps) {
        double moved = 0;
        for (std::size_t j = 0; j < p; ++j) {
            if (norm[j] == 0)
                continue; // a constant column carries nothing: its coefficient stays 0
            const double old = fit.coef[j];
            double rho = 0;
            for (std::size_t i = 0; i < n; ++i)
                rho += xc[j][i] * (residual[i] + xc[j][i] * old);
            rho /= static_cast<double>(n);
            const double now = softThreshold(rho, lambda) / norm[j];
            if (now != old) {
                for (std::size_t i = 0; i < n; ++i)
                    residual[i] -= xc[j][i] * (now - old);
                fit.coef[j] = now;
                moved = std::max(moved, std::abs(now - old));
            }
        }
        if (moved <= tol)
            break;
    }
    fit.sweeps = std::min(fit.sweeps, maxSweeps);
    fit.intercept = ybar;
    for (std::size_t j = 0; j < p; ++j)
        fit.intercept -= xbar[j] * fit.coef[j];
    return fit;
}

double rSquared(const LassoFit& fit, const std::vector<std::vector<double>>& x, const std::vector<double>& y)
{
    const double ybar = mean(y);
    double ssRes = 0, ssTot = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        double pred = fit.intercept;
        for (std::size_t j = 0; j < fit.coef.size(); ++j)
            pred += fit.coef[j] * x[i][j];
        ssRes += (y[i] - pred) * (y[i] - pred);
        ssTot += (y[i] - ybar) * (y[i] - ybar);
    }
    return ssTot > 0 ? 1 - ssRes / ssTot : 0;
}

Surrogate surrogateAttribution(const std::vector<std::vector<std::size_t>>& nodes, const HiddenLogProbs& f,
                               std::size_t masks, uint64_t seed)
{
    if (masks < 4)
        throw InputError("the surrogate needs at least 4 masks (3 to fit, 1 held out), got " + std::to_string(masks));
    const std::size_t m = nodes.size();
    std::mt19937_64 rng(seed);
    std::vector<std::vector<double>> z(masks, std::vector<double>(m));
    std::vector<std::vector<std::size_t>> hidden;
    for (auto& row : z) {
        std::vector<std::size_t> h;
        for (std::size_t j = 0; j < m; ++j) {
            row[j] = static_cast<double>(rng() >> 63); // kept with probability 1/2
            if (row[j] == 0)
                h.insert(h.end(), nodes[j].begin(), nodes[j].end());
        }
        std::sort(h.begin(), h.end());
        h.erase(std::unique(h.begin(), h.end()), h.end());
        hidden.push_back(std::move(h));
    }
    const std::vector<double> y = f(hidden);
    if (y.size() != masks)
        throw InputError("surrogate: the log-probability function returned " + std::to_string(y.size()) +
                         " values for " + std::to_string(masks) + " masks");
    const std::size_t train = (3 * masks + 3) / 4;
    const std::vector<std::vector<double>> xTrain(z.begin(), z.begin() + static_cast<std::ptrdiff_t>(train));
    const std::vector<double> yTrain(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(train));
    const std::vector<std::vector<double>> xTest(z.begin() + static_cast<std::ptrdiff_t>(train), z.end());
    const std::vector<double> yTest(y.begin() + static_cast<std::ptrdiff_t>(train), y.end());

    // λ = c · λ_max, c by 3-fold cross-validation on the training masks (fold = index mod 3).
    const double lambdaMax = lassoLambdaMax(xTrain, yTrain);
    const double grid[] = {0.3, 0.1, 0.03, 0.01, 0.003};
    double bestC = grid[0], bestErr = INFINITY;
    for (const double c : grid) {
        double err = 0;
        for (std::size_t fold = 0; fold < 3; ++fold) {
            std::vector<std::vector<double>> xf, xv;
            std::vector<double> yf, yv;
            for (std::size_t i = 0; i < train; ++i) {
                const bool valid = i % 3 == fold;
                (valid ? xv : xf).push_back(xTrain[i]);
                (valid ? yv : yf).push_back(yTrain[i]);
            }
            if (yf.empty() || yv.empty())
                continue;
            const LassoFit fit = lasso(xf, yf, c * lambdaMax);
            for (std::size_t i = 0; i < yv.size(); ++i) {
                double pred = fit.intercept;
                for (std::size_t j = 0; j < m; ++j)
                    pred += fit.coef[j] * xv[i][j];
                err += (yv[i] - pred) * (yv[i] - pred);
            }
        }
        if (err < bestErr) {
            bestErr = err;
            bestC = c;
        }
    }
    Surrogate s;
    s.lambda = bestC * lambdaMax;
    const LassoFit fit = lasso(xTrain, yTrain, s.lambda);
    s.attribution = fit.coef;
    s.intercept = fit.intercept;
    s.heldOutR2 = rSquared(fit, xTest, yTest);
    s.masks = masks;
    s.trainMasks = train;
    return s;
}

} // namespace ascviz
