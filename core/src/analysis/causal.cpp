// AsC-Causal over a results database (causal.h).
#include "ascviz/analysis/causal.h"

#include "ascviz/analysis/regression.h"
#include "ascviz/base/error.h"
#include "ascviz/eval/eval.h"
#include "ascviz/results/stats.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace ascviz {
namespace {

struct SnippetData {
    std::string language;
    double t = 0, y = 0;
    std::vector<double> z;
    std::map<std::string, std::pair<double, int>> byCategory, byConcept; // sum, count of node values
};

std::vector<SnippetData> loadSnippets(const ResultsDb& db, CausalBy by)
{
    std::map<int64_t, SnippetData> rows;
    std::set<std::string> languages;
    for (const auto& s : db.snippets()) {
        if (!s.ok || !s.ascEval || !s.crossEntropy || !std::isfinite(*s.crossEntropy))
            continue;
        SnippetData d;
        d.language = s.language;
        d.t = *s.ascEval;
        d.y = *s.crossEntropy;
        d.z = {double(s.tokens), double(s.astNodes), double(s.astLevels), double(s.cyclomatic)};
        languages.insert(s.language);
        rows.emplace(s.index, std::move(d));
    }
    if (by != CausalBy::Global) {
        const bool mixed = languages.size() > 1;
        std::map<std::string, CategoryMap> tables;
        for (const auto& l : languages)
            tables.emplace(l, CategoryMap::forLanguage(l));
        db.forEachNodeValue([&](const NodeValueRow& n) {
            const auto it = rows.find(n.snippet);
            if (it == rows.end())
                return;
            SnippetData& d = it->second;
            if (by == CausalBy::Category) {
                if (const auto cat = tables.at(d.language).categoryOf(n.type)) {
                    auto& acc = d.byCategory[*cat];
                    acc.first += n.ascEval;
                    ++acc.second;
                }
            } else {
                auto& acc = d.byConcept[mixed ? d.language + ":" + n.type : n.type];
                acc.first += n.ascEval;
                ++acc.second;
            }
        });
    }
    std::vector<SnippetData> out;
    for (auto& [idx, d] : rows)
        out.push_back(std::move(d));
    return out;
}

CausalRows rowsFor(const std::vector<SnippetData>& data, CausalBy by, const std::string& group)
{
    CausalRows r;
    r.z.assign(causalConfounders().size(), {});
    for (const auto& d : data) {
        double t = d.t;
        if (!group.empty()) {
            const auto& m = by == CausalBy::Category ? d.byCategory : d.byConcept;
            const auto it = m.find(group);
            if (it == m.end())
                continue; // absent: excluded, not 0
            t = it->second.first / it->second.second;
        }
        r.t.push_back(t);
        r.y.push_back(d.y);
        for (std::size_t k = 0; k < d.z.size(); ++k)
            r.z[k].push_back(d.z[k]);
    }
    return r;
}

// T's coefficient in OLS y ~ 1 + t + z (+ extra columns); nullopt when the fit is impossible.
std::optional<OlsFit> fitEffect(const std::vector<double>& t, const std::vector<double>& y,
                                const std::vector<std::vector<double>>& z, std::string* error = nullptr)
{
    std::vector<std::vector<double>> cols;
    cols.emplace_back(t.size(), 1.0);
    cols.push_back(t);
    for (const auto& c : z)
        cols.push_back(c);
    try {
        return ols(cols, y);
    } catch (const InputError& e) {
        if (error)
            *error = e.what();
        return std::nullopt;
    }
}

} // namespace

const std::vector<std::string>& causalConfounders()
{
    static const std::vector<std::string> names = {"tokens", "ast_nodes", "ast_levels", "cyclomatic"};
    return names;
}

CausalEstimate estimateCausal(const CausalRows& rows, const CausalOptions& opts, const std::string& key)
{
    CausalEstimate e;
    e.n = static_cast<int>(rows.t.size());
    e.rhoOutcome = pearson(rows.t, rows.y);
    for (std::size_t k = 0; k < rows.z.size(); ++k)
        e.rhoConfounders.emplace_back(causalConfounders()[k], pearson(rows.t, rows.z[k]));
    if (e.n < opts.minSnippets) {
        e.note =
            "too few snippets for an effect (" + std::to_string(e.n) + " < " + std::to_string(opts.minSnippets) + ")";
        return e;
    }
    // Confounders that are constant over these rows carry no information and would make the design
    // singular beside the intercept: left out (named in the note).
    std::vector<std::vector<double>> z;
    for (std::size_t k = 0; k < rows.z.size(); ++k) {
        const auto& c = rows.z[k];
        if (!opts.confounders.empty() && std::find(opts.confounders.begin(), opts.confounders.end(),
                                                   causalConfounders()[k]) == opts.confounders.end())
            continue;
        if (std::all_of(c.begin(), c.end(), [&](double v) { return v == c.front(); }))
            e.note += (e.note.empty() ? "constant confounder left out: " : ", ") + causalConfounders()[k];
        else {
            z.push_back(c);
            e.adjusted.push_back(causalConfounders()[k]);
        }
    }
    std::string error;
    const auto fit = fitEffect(rows.t, rows.y, z, &error);
    if (!fit) {
        e.note += (e.note.empty() ? "" : "; ") + error;
        return e;
    }
    e.hasEffect = true;
    e.effect = fit->coef[1];
    e.se = fit->se[1];
    const double q = studentTQuantile(0.975, fit->dfResid());
    e.lo = e.effect - q * e.se;
    e.hi = e.effect + q * e.se;

    const uint64_t seed = groupSeed(opts.seed, key);
    // Placebo: T permuted (its link to Y broken); the effect should vanish.
    {
        const auto perm = seededPermutation(rows.t.size(), seed);
        std::vector<double> placebo(rows.t.size());
        for (std::size_t i = 0; i < perm.size(); ++i)
            placebo[i] = rows.t[perm[i]];
        if (const auto f = fitEffect(placebo, rows.y, z))
            e.placebo = f->coef[1];
    }
    // An added random common cause (standard normal): the effect should not move.
    {
        auto zz = z;
        zz.push_back(seededNormals(rows.t.size(), seed + 1));
        if (const auto f = fitEffect(rows.t, rows.y, zz))
            e.randomCommonCause = f->coef[1];
    }
    // A random subset of the rows: the effect should not move much.
    {
        const auto keep = seededSubset(rows.t.size(), subsetSize(rows.t.size(), opts.subsetFraction), seed + 2);
        CausalRows sub;
        sub.z.assign(z.size(), {});
        for (std::size_t i : keep) {
            sub.t.push_back(rows.t[i]);
            sub.y.push_back(rows.y[i]);
            for (std::size_t k = 0; k < z.size(); ++k)
                sub.z[k].push_back(z[k][i]);
        }
        if (const auto f = fitEffect(sub.t, sub.y, sub.z))
            e.dataSubset = f->coef[1];
    }
    if (opts.simulations > 0)
        e.refutations =
            refuteEffect(rows.t, rows.y, z, e.effect, RefuteOptions{opts.simulations, seed + 3, opts.subsetFraction});
    return e;
}

void checkCausalConfounders(const std::vector<std::string>& names)
{
    const auto& all = causalConfounders();
    for (const auto& n : names)
        if (std::find(all.begin(), all.end(), n) == all.end())
            throw InputError("unknown confounder '" + n + "' (known: tokens, ast_nodes, ast_levels, cyclomatic)");
}

CausalBy parseCausalBy(const std::string& s)
{
    if (s == "global")
        return CausalBy::Global;
    if (s == "category")
        return CausalBy::Category;
    if (s == "concept")
        return CausalBy::Concept;
    throw InputError("the grouping must be global, category or concept (got '" + s + "')");
}

CausalRows causalRows(const ResultsDb& db, CausalBy by, const std::string& group)
{
    return rowsFor(loadSnippets(db, group.empty() ? CausalBy::Global : by), by, group);
}

CausalReport analyzeCausal(const ResultsDb& db, CausalBy by, const CausalOptions& opts,
                           std::map<std::string, CausalRows>* rowsOut)
{
    const auto data = loadSnippets(db, by);
    if (data.empty())
        throw InputError(db.path().string() + " holds no evaluated snippet with a cross-entropy: nothing to analyse");
    CausalReport r;
    r.by = by;
    std::set<std::string> languages;
    for (const auto& d : data)
        languages.insert(d.language);
    r.mixedLanguages = languages.size() > 1;
    {
        CausalRows g = rowsFor(data, CausalBy::Global, {});
        r.global = estimateCausal(g, opts, "global");
        if (rowsOut)
            (*rowsOut)[""] = std::move(g);
    }
    if (by != CausalBy::Global) {
        std::set<std::string> keys;
        for (const auto& d : data)
            for (const auto& [k, v] : by == CausalBy::Category ? d.byCategory : d.byConcept)
                keys.insert(k);
        for (const auto& k : keys) {
            CausalRows g = rowsFor(data, by, k);
            r.groups.emplace(k, estimateCausal(g, opts, k));
            if (rowsOut)
                (*rowsOut)[k] = std::move(g);
        }
    }
    return r;
}

namespace {
nlohmann::json opt(const std::optional<double>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json estimateJson(const CausalEstimate& e)
{
    nlohmann::json j;
    j["n"] = e.n;
    j["treatment"] = "asc_eval";
    j["outcome"] = "cross_entropy";
    j["confounders"] = e.hasEffect ? e.adjusted : causalConfounders();
    nlohmann::json rho;
    rho["treatment"] = opt(e.rhoOutcome);
    for (const auto& [name, v] : e.rhoConfounders)
        rho[name] = opt(v);
    j["rho"] = std::move(rho);
    if (e.hasEffect)
        j["ate"] = {{"estimate", e.effect}, {"se", e.se}, {"ci95", {e.lo, e.hi}}};
    else
        j["ate"] = nullptr;
    j["refutations"] = {{"placebo", {{"estimate", opt(e.placebo)}}},
                        {"random_common_cause", {{"estimate", opt(e.randomCommonCause)}}},
                        {"data_subset", {{"estimate", opt(e.dataSubset)}}}};
    // N simulations (refute.h): their mean effect, p-value and count beside the single draw's estimate
    for (const auto& r : e.refutations) {
        auto& o = j["refutations"][r.name];
        o["mean_estimate"] = r.simulations ? nlohmann::json(r.newEffect) : nlohmann::json(nullptr);
        o["p_value"] = opt(r.p);
        o["simulations"] = r.simulations;
        o["tested_against"] = r.reference; // DoWhy: 0 for the placebo, the estimate for the others
        if (r.name == "data_subset")
            o["subset_fraction"] = r.subsetFraction;
    }
    if (!e.note.empty())
        j["note"] = e.note;
    return j;
}
} // namespace

nlohmann::json causalToJson(const CausalReport& r)
{
    nlohmann::json j = estimateJson(r.global);
    j["method"] = "OLS cross_entropy ~ 1 + asc_eval + confounders (Householder QR); se classical; ci95 from "
                  "Student's t with n - p degrees of freedom; refutations: placebo (T permuted), random common "
                  "cause (added N(0,1) column), data subset (80 % of the rows), seeded; p-values as DoWhy 0.14's "
                  "test_significance (placebo effects tested against 0, the others against the estimate)";
    j["by_kind"] = r.by == CausalBy::Global ? "global" : r.by == CausalBy::Category ? "category" : "concept";
    j["mixed_languages"] = r.mixedLanguages;
    auto by = nlohmann::json::object();
    for (const auto& [k, e] : r.groups)
        by[k] = estimateJson(e);
    j["by"] = std::move(by);
    return j;
}

} // namespace ascviz
