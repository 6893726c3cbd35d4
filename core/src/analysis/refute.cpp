// Refutations with N simulations and DoWhy's p-values (refute.h).
#include "ascviz/analysis/refute.h"

#include "ascviz/analysis/regression.h"
#include "ascviz/base/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>

namespace ascviz {
namespace {

std::optional<double> effectOf(const std::vector<double>& t, const std::vector<double>& y,
                               const std::vector<std::vector<double>>& z)
{
    std::vector<std::vector<double>> cols;
    cols.emplace_back(t.size(), 1.0);
    cols.push_back(t);
    cols.insert(cols.end(), z.begin(), z.end());
    try {
        return ols(cols, y).coef[1];
    } catch (const InputError&) {
        return std::nullopt; // a singular draw (a subset where a column is constant): not counted
    }
}

double normalTail(double z) // P(Z > z) for a standard normal
{
    return 0.5 * std::erfc(z / std::sqrt(2.0));
}

// `reference` is the value DoWhy tests against the simulations: 0 for the placebo, the estimate otherwise.
Refutation summarize(const std::string& name, const std::vector<double>& sims, double reference)
{
    Refutation r;
    r.name = name;
    r.reference = reference;
    r.simulations = static_cast<int>(sims.size());
    if (!sims.empty())
        r.newEffect = std::accumulate(sims.begin(), sims.end(), 0.0) / double(sims.size());
    if (sims.size() >= 2)
        r.p = refutationPValue(sims, reference);
    return r;
}

} // namespace

double refutationPValue(const std::vector<double>& sims, double value)
{
    const auto n = sims.size();
    if (n < 2)
        throw std::invalid_argument("refutationPValue needs at least 2 simulations");
    if (n >= 100) {
        // DoWhy's perform_bootstrap_test: the two-sided percentile p-value
        double above = 0;
        for (double x : sims)
            above += x > value ? 1.0 : x == value ? 0.5 : 0.0;
        const double q = above / double(n);
        return 2 * std::min(q, 1 - q);
    }
    // DoWhy's perform_normal_distribution_test: the one-sided tail beyond |z|
    const double mean = std::accumulate(sims.begin(), sims.end(), 0.0) / double(n);
    double ss = 0;
    for (double v : sims)
        ss += (v - mean) * (v - mean);
    const double sd = std::sqrt(ss / double(n));
    if (sd == 0) // numpy divides by zero here (z = ±inf, p = 0; 0/0 = nan): equal values give 0.5, as z = 0
        return value == mean ? 0.5 : 0.0;
    return normalTail(std::abs((value - mean) / sd));
}

std::size_t subsetSize(std::size_t n, double fraction)
{
    if (!(fraction > 0 && fraction <= 1))
        throw std::invalid_argument("the data-subset fraction must be in (0, 1]");
    const double x = fraction * double(n);
    double r = std::floor(x);
    const double rest = x - r;
    if (rest > 0.5 || (rest == 0.5 && std::fmod(r, 2.0) != 0)) // Python's round: half to even
        r += 1;
    return static_cast<std::size_t>(r);
}

std::vector<Refutation> refuteEffect(const std::vector<double>& t, const std::vector<double>& y,
                                     const std::vector<std::vector<double>>& z, double original,
                                     const RefuteOptions& opts)
{
    const std::size_t n = t.size();
    if (y.size() != n || std::any_of(z.begin(), z.end(), [&](const auto& c) { return c.size() != n; }))
        throw std::invalid_argument("refuteEffect: columns of different sizes");
    std::vector<double> placebo, common, subset;
    const std::size_t keepN = subsetSize(n, opts.subsetFraction);
    for (int s = 0; s < opts.simulations; ++s) {
        const uint64_t seed = opts.seed + 3 * static_cast<uint64_t>(s);
        {
            const auto perm = seededPermutation(n, seed);
            std::vector<double> tp(n);
            for (std::size_t i = 0; i < n; ++i)
                tp[i] = t[perm[i]];
            if (const auto e = effectOf(tp, y, z))
                placebo.push_back(*e);
        }
        {
            auto zz = z;
            zz.push_back(seededNormals(n, seed + 1));
            if (const auto e = effectOf(t, y, zz))
                common.push_back(*e);
        }
        {
            const auto keep = seededSubset(n, keepN, seed + 2);
            std::vector<double> ts, ys;
            std::vector<std::vector<double>> zs(z.size());
            for (std::size_t i : keep) {
                ts.push_back(t[i]);
                ys.push_back(y[i]);
                for (std::size_t k = 0; k < z.size(); ++k)
                    zs[k].push_back(z[k][i]);
            }
            if (const auto e = effectOf(ts, ys, zs))
                subset.push_back(*e);
        }
    }
    // DoWhy tests the placebo effects against 0 (its placebo refuter hard-codes the estimate to 0), the others
    // against the original estimate.
    auto sub = summarize("data_subset", subset, original);
    sub.subsetFraction = opts.subsetFraction;
    return {summarize("placebo", placebo, 0.0), summarize("random_common_cause", common, original), sub};
}

nlohmann::json refutationsToJson(const std::vector<Refutation>& rs)
{
    auto j = nlohmann::json::object();
    for (const auto& r : rs) {
        j[r.name] = {{"estimate", r.simulations ? nlohmann::json(r.newEffect) : nlohmann::json(nullptr)},
                     {"p_value", r.p ? nlohmann::json(*r.p) : nlohmann::json(nullptr)},
                     {"simulations", r.simulations},
                     {"tested_against", r.reference}};
        if (r.name == "data_subset")
            j[r.name]["subset_fraction"] = r.subsetFraction;
    }
    return j;
}

std::string refutationsText(const std::vector<Refutation>& rs)
{
    std::string out;
    char buf[64];
    for (const auto& r : rs) {
        if (!out.empty())
            out += ", ";
        out += r.name + ' ';
        if (r.simulations > 0) {
            std::snprintf(buf, sizeof buf, "%.3f", r.newEffect);
            out += buf;
        } else {
            out += "n/a";
        }
        if (r.p) {
            std::snprintf(buf, sizeof buf, " (p %.3f)", *r.p);
            out += buf;
        } else {
            out += " (p n/a)";
        }
    }
    return out;
}

} // namespace ascviz
