// The effect of each Galeras treatment against the control (effects.h).
#include "ascviz/galeras/effects.h"

#include "ascviz/analysis/regression.h"
#include "ascviz/base/error.h"
#include "ascviz/base/latex.h"
#include "ascviz/results/stats.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <numeric>
#include <set>
#include <sstream>

namespace ascviz {
namespace {

std::string joined(const std::vector<std::string>& v)
{
    std::string s;
    for (const auto& x : v)
        s += (s.empty() ? "" : ", ") + x;
    return s;
}

OutcomeSummary summarize(std::vector<double> v)
{
    OutcomeSummary s;
    s.n = static_cast<int>(v.size());
    if (v.empty())
        return s;
    std::sort(v.begin(), v.end());
    s.min = v.front();
    s.max = v.back();
    s.mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
    s.median = median(v);
    double ss = 0;
    for (double x : v)
        ss += (x - s.mean) * (x - s.mean);
    s.sd = v.size() > 1 ? std::sqrt(ss / double(v.size() - 1)) : 0.0;
    return s;
}

std::string num(double v, int prec = 4)
{
    std::ostringstream o;
    o << std::fixed << std::setprecision(prec) << v;
    return o.str();
}

} // namespace

TreatmentEffect estimateTreatment(const std::vector<double>& d, const std::vector<double>& y,
                                  const std::vector<std::vector<double>>& zIn, const std::vector<std::string>& names,
                                  const RefuteOptions& opts)
{
    TreatmentEffect e;
    e.n = static_cast<int>(d.size());
    e.nTreated = static_cast<int>(std::count(d.begin(), d.end(), 1.0));
    std::vector<std::vector<double>> z;
    for (std::size_t k = 0; k < zIn.size(); ++k) {
        const auto& c = zIn[k];
        if (!c.empty() && std::all_of(c.begin(), c.end(), [&](double v) { return v == c.front(); }))
            e.note += (e.note.empty() ? "constant confounder left out: " : ", ") + names[k];
        else
            z.push_back(c);
    }
    if (!y.empty() && std::all_of(y.begin(), y.end(), [&](double v) { return v == y.front(); })) {
        e.note += (e.note.empty() ? "" : "; ") +
                  std::string("the outcome is constant over these rows: no effect to estimate");
        return e;
    }
    std::vector<std::vector<double>> cols{std::vector<double>(d.size(), 1.0), d};
    cols.insert(cols.end(), z.begin(), z.end());
    try {
        const OlsFit f = ols(cols, y);
        e.hasEffect = true;
        e.ate = f.coef[1];
        e.se = f.se[1];
        const double q = studentTQuantile(0.975, f.dfResid());
        e.lo = e.ate - q * e.se;
        e.hi = e.ate + q * e.se;
    } catch (const InputError& err) {
        e.note += (e.note.empty() ? "" : "; ") + std::string(err.what());
        return e;
    }
    if (opts.simulations > 0) // 0: no refutation, as analyze causal
        e.refutations = refuteEffect(d, y, z, e.ate, opts);
    return e;
}

TreatmentReport analyzeTreatments(const GalerasDb& db, const TreatmentAnalysisOptions& opts)
{
    const auto& outcomes = galerasOutcomes();
    const auto& allZ = galerasConfounders();
    if (std::find(outcomes.begin(), outcomes.end(), opts.outcome) == outcomes.end())
        throw InputError("unknown outcome '" + opts.outcome + "' (known: " + joined(outcomes) + ")");
    TreatmentReport r;
    r.outcome = opts.outcome;
    r.confounders = opts.confounders.empty() ? galerasPaperConfounders() : opts.confounders;
    r.simulations = opts.refute.simulations;
    const auto recordZ = db.recordConfounders();
    std::set<std::string> recordNames;
    for (const auto& [id, m] : recordZ)
        for (const auto& [name, v] : m)
            recordNames.insert(name);
    for (const auto& c : r.confounders)
        if (std::find(allZ.begin(), allZ.end(), c) == allZ.end() && !recordNames.count(c))
            throw InputError("unknown confounder '" + c + "' (known: " + joined(allZ) +
                             (recordNames.empty()
                                  ? std::string()
                                  : "; the records' own: " +
                                        joined(std::vector<std::string>(recordNames.begin(), recordNames.end()))) +
                             ")");
    // a confounder's value in a row: a computed column, else the record's own field
    auto value = [&](const GalerasRow& row, const std::string& c) -> std::optional<double> {
        if (const auto it = row.values.find(c); it != row.values.end())
            return it->second;
        const auto rec = recordZ.find(row.recordId);
        if (rec == recordZ.end())
            return std::nullopt;
        const auto v = rec->second.find(c);
        return v == rec->second.end() ? std::nullopt : std::optional<double>(v->second);
    };
    const auto meta = db.meta();
    r.testbed = meta.count("testbed") ? meta.at("testbed") : "";
    r.model = meta.count("model") ? meta.at("model") : "";
    const auto rows = db.rows();
    std::vector<std::string> order;
    for (const auto& row : rows) {
        if (row.isControl)
            r.control = row.treatment;
        if (std::find(order.begin(), order.end(), row.treatment) == order.end())
            order.push_back(row.treatment);
        ++r.stops[row.treatment + "/" + row.stop];
    }
    if (r.control.empty())
        throw InputError(db.path().string() + " has no control row: nothing to compare against",
                         ErrorContext(db.path().string()));
    order.erase(std::find(order.begin(), order.end(), r.control));
    order.insert(order.begin(), r.control);
    // descriptive table
    for (const auto& t : order) {
        std::map<std::string, OutcomeSummary> cols;
        for (const auto* names : {&outcomes, &allZ})
            for (const auto& c : *names) {
                std::vector<double> v;
                for (const auto& row : rows)
                    if (row.treatment == t && row.error.empty())
                        if (const auto& x = row.values.at(c))
                            v.push_back(*x);
                cols[c] = summarize(std::move(v));
            }
        r.descriptive.emplace_back(t, std::move(cols));
    }
    auto usable = [&](const GalerasRow& row) {
        if (!row.error.empty() || !row.values.at(r.outcome))
            return false;
        return std::all_of(r.confounders.begin(), r.confounders.end(),
                           [&](const std::string& c) { return value(row, c).has_value(); });
    };
    for (const auto& row : rows)
        r.leftOut += usable(row) ? 0 : 1;
    for (std::size_t ti = 1; ti < order.size(); ++ti) {
        std::vector<double> d, y;
        std::vector<std::vector<double>> z(r.confounders.size());
        for (const auto& row : rows) {
            if ((row.treatment != r.control && row.treatment != order[ti]) || !usable(row))
                continue;
            d.push_back(row.treatment == r.control ? 0.0 : 1.0);
            y.push_back(*row.values.at(r.outcome));
            for (std::size_t k = 0; k < z.size(); ++k)
                z[k].push_back(*value(row, r.confounders[k]));
        }
        RefuteOptions ro = opts.refute;
        ro.seed = opts.refute.seed + 1000003ULL * ti;
        TreatmentEffect e = estimateTreatment(d, y, z, r.confounders, ro);
        e.name = order[ti];
        r.treatments.push_back(std::move(e));
    }
    return r;
}

nlohmann::json treatmentsToJson(const TreatmentReport& r)
{
    nlohmann::json j;
    j["control"] = r.control;
    j["outcome"] = r.outcome;
    j["confounders"] = r.confounders;
    j["testbed"] = r.testbed;
    j["model"] = r.model;
    j["rows_left_out"] = r.leftOut;
    j["simulations"] = r.simulations; // 0: refuters skipped, every "refutations" is {}
    j["method"] = "OLS " + r.outcome +
                  " ~ 1 + D + confounders on the control's and the treatment's rows (D = 1 for the treatment), "
                  "classical se, ci95 from Student's t with n - p degrees of freedom; refutations: N seeded "
                  "simulations each, p-values as DoWhy 0.14's test_significance (placebo effects tested against 0, "
                  "the others against the estimate)";
    auto ts = nlohmann::json::array();
    for (const auto& e : r.treatments) {
        nlohmann::json t;
        t["name"] = e.name;
        t["n"] = e.n;
        t["n_treated"] = e.nTreated;
        if (e.hasEffect) {
            t["ate"] = e.ate;
            t["se"] = e.se;
            t["ci95"] = {e.lo, e.hi};
        } else {
            t["ate"] = t["se"] = t["ci95"] = nullptr;
        }
        t["refutations"] = refutationsToJson(e.refutations);
        if (!e.note.empty())
            t["note"] = e.note;
        ts.push_back(std::move(t));
    }
    j["treatments"] = std::move(ts);
    auto desc = nlohmann::json::object();
    for (const auto& [t, cols] : r.descriptive)
        for (const auto& [c, s] : cols)
            desc[t][c] = {{"n", s.n},           {"mean", s.mean}, {"sd", s.sd},
                          {"median", s.median}, {"min", s.min},   {"max", s.max}};
    j["descriptive"] = std::move(desc);
    auto stops = nlohmann::json::object();
    for (const auto& [k, n] : r.stops) {
        const auto slash = k.find('/');
        stops[k.substr(0, slash)][k.substr(slash + 1)] = n;
    }
    j["stops"] = std::move(stops);
    return j;
}

std::string treatmentsText(const TreatmentReport& r)
{
    std::ostringstream o;
    o << "Galeras treatments vs control '" << r.control << "' (testbed " << r.testbed << ", model " << r.model
      << ")\noutcome " << r.outcome << "; confounders " << joined(r.confounders) << "; rows left out " << r.leftOut
      << "\n";
    if (r.simulations == 0)
        o << "refutations: skipped (0 simulations)\n";
    else
        o << "refutations: " << r.simulations
          << " simulations each, mean new effect (DoWhy p-value; placebo tested against 0)\n";
    o << "\n"
      << std::left << std::setw(14) << "treatment" << std::right << std::setw(6) << "n" << std::setw(10) << "ATE"
      << std::setw(9) << "se" << std::setw(22) << "95% CI";
    if (r.simulations > 0)
        o << std::setw(18) << "placebo (p)" << std::setw(18) << "common cause (p)" << std::setw(18) << "subset (p)";
    o << "\n";
    for (const auto& e : r.treatments) {
        o << std::left << std::setw(14) << e.name << std::right << std::setw(6) << e.n;
        if (!e.hasEffect) {
            o << "  no effect: " << e.note << "\n";
            continue;
        }
        o << std::setw(10) << num(e.ate) << std::setw(9) << num(e.se) << std::setw(22)
          << ("[" + num(e.lo) + ", " + num(e.hi) + "]");
        for (const auto& f : e.refutations)
            o << std::setw(18) << (num(f.newEffect) + " (" + (f.p ? num(*f.p, 2) : std::string("n/a")) + ")");
        o << "\n";
        if (!e.note.empty())
            o << "  note: " << e.note << "\n";
    }
    o << "\nmean (sd) per treatment\n" << std::left << std::setw(14) << "column";
    for (const auto& [t, cols] : r.descriptive)
        o << std::right << std::setw(26) << t;
    o << "\n";
    if (!r.descriptive.empty())
        for (const auto& [c, s0] : r.descriptive.front().second) {
            o << std::left << std::setw(14) << c;
            for (const auto& [t, cols] : r.descriptive) {
                const auto& s = cols.at(c);
                o << std::right << std::setw(26)
                  << (s.n ? num(s.mean, 3) + " (" + num(s.sd, 3) + ") n=" + std::to_string(s.n) : std::string("-"));
            }
            o << "\n";
        }
    for (const auto& [k, n] : r.stops)
        o << (k == r.stops.begin()->first ? "\nstops: " : ", ") << k << " " << n;
    o << "\n";
    return o.str();
}

std::string treatmentsLatex(const TreatmentReport& r)
{
    std::ostringstream o;
    o << "% Galeras: ATE of each treatment vs " << r.control << " on " << r.outcome << " (OLS back-door; "
      << joined(r.confounders) << ")\n";
    o << "\\begin{tabular}{lrrrrrr}\n\\toprule\nTreatment & $n$ & ATE & se & 95\\,\\% CI & Placebo ($p$) & "
         "Subset ($p$) \\\\\n\\midrule\n";
    for (const auto& e : r.treatments) {
        o << latexEscape(e.name) << " & " << e.n << " & ";
        if (!e.hasEffect) {
            o << "\\multicolumn{5}{l}{no effect} \\\\\n";
            continue;
        }
        auto ref = [&](const std::string& name) {
            for (const auto& f : e.refutations)
                if (f.name == name)
                    return num(f.newEffect, 3) + " (" + (f.p ? num(*f.p, 2) : std::string("--")) + ")";
            return std::string("--");
        };
        o << num(e.ate, 3) << " & " << num(e.se, 3) << " & [" << num(e.lo, 3) << ", " << num(e.hi, 3) << "] & "
          << ref("placebo") << " & " << ref("data_subset") << " \\\\\n";
    }
    o << "\\bottomrule\n\\end{tabular}\n";
    return o.str();
}

} // namespace ascviz
