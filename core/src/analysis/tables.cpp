// LaTeX tables and heat map data (tables.h).
#include "ascviz/analysis/tables.h"

#include "ascviz/base/latex.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

namespace ascviz {
namespace {
std::string num(double v, const char* f = "%.3f")
{
    char buf[48];
    std::snprintf(buf, sizeof buf, f, v);
    std::string s = buf;
    if (s.rfind('-', 0) == 0)
        s = "$-$" + s.substr(1);
    return s;
}
std::string optNum(const std::optional<double>& v)
{
    return v ? num(*v, "%.2f") : "--";
}
// The rows of a causal table (Global, a rule, each group) and its end.
template <class Row> void causalRows(std::ostringstream& o, const CausalReport& r, const Row& row)
{
    row("Global AsC-Eval", r.global);
    if (!r.groups.empty())
        o << "\\midrule\n";
    for (const auto& [k, e] : r.groups)
        row(k, e);
    o << "\\bottomrule\n\\end{tabular}\n";
}
} // namespace

std::string comparisonLatex(const std::vector<std::pair<std::string, const CorpusStats*>>& sets,
                            const std::string& warning)
{
    std::set<std::string> cats;
    for (const auto& [name, s] : sets)
        for (const auto& [c, r] : s->categories)
            cats.insert(c);
    std::ostringstream o;
    o << "% AsC-Viz: AsC-Eval per category (Table I layout): bootstrapped median ± se; best of a row in bold.\n"
      << (warning.empty() ? std::string() : "% warning: " + warning + "\n") << "\\begin{tabular}{l"
      << std::string(sets.size(), 'r') << "}\n\\toprule\nCategory";
    for (const auto& [name, s] : sets)
        o << " & " << latexEscape(name);
    o << " \\\\\n\\midrule\n";
    auto row = [&](const std::string& label, const std::vector<std::optional<std::pair<double, double>>>& cells) {
        int best = -1, present = 0;
        for (std::size_t i = 0; i < cells.size(); ++i)
            if (cells[i]) {
                ++present;
                if (best < 0 || cells[i]->first > cells[static_cast<std::size_t>(best)]->first)
                    best = static_cast<int>(i);
            }
        if (present < 2)
            best = -1; // a best needs a comparison
        o << latexEscape(label);
        for (std::size_t i = 0; i < cells.size(); ++i) {
            o << " & ";
            if (!cells[i]) {
                o << "--";
                continue;
            }
            const std::string v = num(cells[i]->first) + " $\\pm$ " + num(cells[i]->second);
            o << (static_cast<int>(i) == best ? "\\textbf{" + v + "}" : v);
        }
        o << " \\\\\n";
    };
    std::vector<std::optional<std::pair<double, double>>> g;
    for (const auto& [name, s] : sets)
        g.push_back(s->globalAscEval ? std::optional<std::pair<double, double>>({*s->globalAscEval, 0.0})
                                     : std::nullopt);
    // The Global value is a mean of medians: no se of its own is reported (0 shown as such would mislead).
    {
        int best = -1, present = 0;
        for (std::size_t i = 0; i < g.size(); ++i)
            if (g[i]) {
                ++present;
                if (best < 0 || g[i]->first > g[static_cast<std::size_t>(best)]->first)
                    best = static_cast<int>(i);
            }
        if (present < 2)
            best = -1;
        o << "Global AsC-Eval";
        for (std::size_t i = 0; i < g.size(); ++i) {
            o << " & ";
            if (!g[i])
                o << "--";
            else if (static_cast<int>(i) == best)
                o << "\\textbf{" << num(g[i]->first) << "}";
            else
                o << num(g[i]->first);
        }
        o << " \\\\\n\\midrule\n";
    }
    for (const auto& c : cats) {
        std::vector<std::optional<std::pair<double, double>>> cells;
        for (const auto& [name, s] : sets) {
            const auto it = s->categories.find(c);
            cells.push_back(it == s->categories.end()
                                ? std::nullopt
                                : std::optional<std::pair<double, double>>({it->second.median, it->second.se}));
        }
        row(c, cells);
    }
    o << "\\bottomrule\n\\end{tabular}\n";
    return o.str();
}

std::string causalLatex(const CausalReport& r)
{
    std::ostringstream o;
    o << "% AsC-Viz: AsC-Causal (Table II layout). T = AsC-Eval, Y = cross-entropy; effect = OLS coefficient of T\n"
      << "% adjusted for the confounders (se), 95 % interval from Student's t.\n"
      << "\\begin{tabular}{lrrrrrrrl}\n\\toprule\n"
      << "Treatment & $n$ & $\\rho(T,Y)$ & $\\rho$ tokens & $\\rho$ nodes & $\\rho$ levels & $\\rho$ cyclomatic & "
         "Effect (se) & 95\\,\\% CI \\\\\n\\midrule\n";
    auto row = [&](const std::string& name, const CausalEstimate& e) {
        o << latexEscape(name) << " & " << e.n << " & " << optNum(e.rhoOutcome);
        for (const auto& [k, v] : e.rhoConfounders)
            o << " & " << optNum(v);
        if (e.hasEffect)
            o << " & " << num(e.effect, "%.2f") << " (" << num(e.se, "%.2f") << ") & [" << num(e.lo, "%.2f") << ", "
              << num(e.hi, "%.2f") << "]";
        else
            o << " & -- & --";
        o << " \\\\\n";
    };
    causalRows(o, r, row);
    o << refutationLatex(r);
    return o.str();
}

std::string refutationLatex(const CausalReport& r)
{
    bool any = !r.global.refutations.empty();
    for (const auto& [k, e] : r.groups)
        any = any || !e.refutations.empty();
    if (!any)
        return {};
    std::ostringstream o;
    o << "% Refutations (DoWhy): each refuter's mean new effect over its simulations and the p-value of the\n"
      << "% effect against them (placebo: mean ~0; random common cause, data subset: mean ~ the effect).\n"
      << "\\begin{tabular}{lrrrrrr}\n\\toprule\n"
      << "Treatment & \\multicolumn{2}{c}{Placebo} & \\multicolumn{2}{c}{Random common cause} & "
         "\\multicolumn{2}{c}{Data subset} \\\\\n"
      << " & mean & $p$ & mean & $p$ & mean & $p$ \\\\\n\\midrule\n";
    auto row = [&](const std::string& name, const CausalEstimate& e) {
        o << latexEscape(name);
        for (const char* refuter : {"placebo", "random_common_cause", "data_subset"}) {
            const auto it = std::find_if(e.refutations.begin(), e.refutations.end(),
                                         [&](const Refutation& x) { return x.name == refuter; });
            if (it == e.refutations.end() || it->simulations == 0)
                o << " & -- & --";
            else
                o << " & " << num(it->newEffect, "%.2f") << " & " << optNum(it->p);
        }
        o << " \\\\\n";
    };
    causalRows(o, r, row);
    return o.str();
}

std::pair<std::vector<std::string>, std::vector<HeatmapColumn>>
heatmapData(const std::vector<std::pair<std::string, const CorpusStats*>>& sets)
{
    std::set<std::string> cats;
    for (const auto& [name, s] : sets)
        for (const auto& [c, r] : s->categories)
            cats.insert(c);
    std::vector<std::string> rows = {"Global"};
    rows.insert(rows.end(), cats.begin(), cats.end());
    std::vector<HeatmapColumn> cols;
    for (const auto& [name, s] : sets) {
        HeatmapColumn c;
        c.name = name;
        c.values["Global"] = s->globalAscEval;
        for (const auto& [cat, r] : s->categories) {
            c.values[cat] = r.median;
            c.counts[cat] = r.n; // the figure marks a value over fewer than the minimum count
        }
        cols.push_back(std::move(c));
    }
    return {rows, cols};
}

} // namespace ascviz
