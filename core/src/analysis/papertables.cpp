// The paper's Tables I and II (papertables.h).
#include "ascviz/analysis/papertables.h"

#include "ascviz/analysis/tables.h"
#include "ascviz/base/error.h"
#include "ascviz/base/latex.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace ascviz {
namespace {

std::string num2(double v)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    std::string s = buf;
    if (s.rfind('-', 0) == 0)
        s = "$-$" + s.substr(1);
    return s;
}

std::string opt2(const std::optional<double>& v)
{
    return v ? num2(*v) : "--";
}

std::optional<double> rhoWith(const CausalEstimate& e, const std::string& confounder)
{
    for (const auto& [k, v] : e.rhoConfounders)
        if (k == confounder)
            return v;
    return std::nullopt;
}

} // namespace

const std::vector<ConceptGroup>& paperTable2Concepts()
{
    static const std::vector<ConceptGroup> groups = {
        {"Iterative", {"for_statement", "while_statement"}},
        {"Natural Language", {"identifier", "string"}},
        {"Scope", {"]", ")"}},
        {"Decision", {"if_statement"}},
        {"Operator", {"comparison_operator", "boolean_operator"}},
        {"Functional Programming", {"for_in_clause", "if_clause", "lambda"}},
    };
    return groups;
}

std::vector<ConceptGroup> parseConceptSelection(const std::string& spec, const CategoryMap& categories)
{
    if (spec == "paper")
        return paperTable2Concepts();
    std::vector<std::string> list;
    std::stringstream in(spec);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty() && std::find(list.begin(), list.end(), item) == list.end())
            list.push_back(item);
    if (list.empty())
        throw InputError("the concept list names no concept: '" + spec + "' (a comma-separated list, or 'paper')");
    std::vector<ConceptGroup> out;
    std::vector<std::string> order = categories.categories();
    order.push_back("Other");
    for (const auto& cat : order) {
        ConceptGroup g{cat, {}};
        for (const auto& c : list)
            if (categories.categoryOf(c).value_or("Other") == cat)
                g.concepts.push_back(c);
        if (!g.concepts.empty())
            out.push_back(std::move(g));
    }
    return out;
}

std::string causalPaperLatex(const std::vector<std::pair<std::string, const CausalReport*>>& models,
                             const std::vector<ConceptGroup>& groups)
{
    if (models.empty())
        throw InputError("Table II needs at least one model");
    const std::size_t m = models.size();
    static const std::pair<const char*, const char*> kConfounders[] = {{"cyclomatic", "Cyclo Complexity"},
                                                                       {"ast_levels", "AST Levels"},
                                                                       {"ast_nodes", "\\# AST Nodes"},
                                                                       {"tokens", "Sequence Size"}};
    std::ostringstream o;
    o << "% AsC-Viz: AsC-Causal in the paper's Table II layout. T = the concept's AsC-Eval per snippet (snippets\n"
      << "% without the concept excluded); rho = Pearson; Causal Eff. = OLS coefficient of T in Y ~ 1 + T +\n"
      << "% confounders (Y = cross-entropy). -- : absent, or too few snippets for an effect.\n"
      << "\\begin{tabular}{ll" << std::string(4 * m + 2 * m, 'r') << "}\n\\toprule\n";
    o << "\\multicolumn{2}{l}{Variable}";
    for (const auto& [key, title] : kConfounders)
        o << " & \\multicolumn{" << m << "}{c}{" << title << "}";
    o << " & \\multicolumn{" << 2 * m << "}{c}{Cross-Entropy Loss} \\\\\n";
    o << "\\multicolumn{2}{l}{LLMs}";
    for (int k = 0; k < 4; ++k)
        for (const auto& [name, r] : models)
            o << " & " << latexEscape(name);
    for (const auto& [name, r] : models)
        o << " & \\multicolumn{2}{c}{" << latexEscape(name) << "}";
    o << " \\\\\n";
    o << "Category $\\mathcal{H}$ & AsC";
    o << " & \\multicolumn{" << 4 * m << "}{c}{$\\rho$}";
    for (std::size_t i = 0; i < m; ++i)
        o << " & $\\rho$ & Causal Eff.";
    o << " \\\\\n\\midrule\n";
    // `labels`: the first two columns' cells.
    auto cells = [&](const std::string& labels, const std::function<const CausalEstimate*(const CausalReport&)>& pick) {
        o << labels;
        for (const auto& [key, title] : kConfounders)
            for (const auto& [name, r] : models) {
                const CausalEstimate* e = pick(*r);
                o << " & " << (e ? opt2(rhoWith(*e, key)) : "--");
            }
        for (const auto& [name, r] : models) {
            const CausalEstimate* e = pick(*r);
            o << " & " << (e ? opt2(e->rhoOutcome) : "--") << " & "
              << (e && e->hasEffect ? num2(e->effect) : std::string("--"));
        }
        o << " \\\\\n";
    };
    cells("\\multicolumn{2}{l}{Global Avg. AsC-Eval}", [](const CausalReport& r) { return &r.global; });
    for (const auto& g : groups) {
        o << "\\midrule\n";
        for (std::size_t i = 0; i < g.concepts.size(); ++i) {
            const std::string& c = g.concepts[i];
            cells((i == 0 ? latexEscape(g.category) : std::string()) + " & \\texttt{" + latexEscape(c) + "}",
                  [&](const CausalReport& r) -> const CausalEstimate* {
                      const auto it = r.groups.find(c);
                      return it == r.groups.end() ? nullptr : &it->second;
                  });
        }
    }
    o << "\\bottomrule\n\\end{tabular}\n";
    return o.str();
}

std::string formatParameterCount(int64_t n)
{
    if (n <= 0)
        return "--";
    const double v = static_cast<double>(n);
    const char* unit = v >= 1e9 ? "B" : v >= 1e6 ? "M" : "K";
    const double scaled = v >= 1e9 ? v / 1e9 : v >= 1e6 ? v / 1e6 : v / 1e3;
    char buf[32];
    std::snprintf(buf, sizeof buf, scaled >= 100 ? "%.0f%s" : "%.1f%s", scaled, unit);
    std::string s = buf;
    const std::size_t dot = s.find(".0");
    if (dot != std::string::npos && dot + 2 == s.size() - 1)
        s.erase(dot, 2); // 2.0B -> 2B
    return s;
}

std::string tableOneLatex(const std::vector<TableOneModel>& models, const TableOneOptions& opts)
{
    if (models.empty())
        throw InputError("Table I needs at least one model");
    std::set<std::string> cats;
    for (const auto& mdl : models)
        for (const auto& [c, r] : mdl.stats->categories)
            cats.insert(c);
    const bool grouped = std::any_of(models.begin(), models.end(), [](const auto& x) { return !x.type.empty(); });
    std::optional<double> best;
    for (const auto& mdl : models)
        if (mdl.stats->globalAscEval && (!best || *mdl.stats->globalAscEval > *best))
            best = mdl.stats->globalAscEval;
    auto mark = [&](double v, bool underline) {
        std::string s = num2(v);
        if (underline)
            s = "\\underline{" + s + "}";
        if (v < opts.erroneous)
            return "\\textcolor{red}{" + s + "}";
        if (v >= opts.confident)
            return "\\textcolor{blue}{" + s + "}";
        return s;
    };
    const std::size_t cols = (grouped ? 1 : 0) + 4 + cats.size();
    std::ostringstream o;
    o << "% AsC-Viz: Table I layout. AsC-Eval = bootstrapped median per category (mean of its concepts' medians);\n"
      << "% Global = mean over the categorized concepts. Architecture and size: the results database's run info\n"
      << "% (the model's config). Needs \\usepackage{booktabs,xcolor}.\n"
      << "\\begin{tabular}{" << (grouped ? "l" : "") << "lllr" << std::string(cats.size(), 'r') << "}\n\\toprule\n"
      << (grouped ? " & " : "") << "\\multicolumn{3}{l}{Large Language Models (LLMs)} & \\multicolumn{"
      << 1 + cats.size() << "}{c}{AsC-Eval Performance (bootstrapped median)} \\\\\n"
      << (grouped ? "Type & " : "") << "Name & Architecture & Size & Global";
    for (const auto& c : cats)
        o << " & " << latexEscape(c);
    o << " \\\\\n\\midrule\n";
    std::vector<std::string> types;
    for (const auto& mdl : models)
        if (std::find(types.begin(), types.end(), mdl.type) == types.end())
            types.push_back(mdl.type);
    for (std::size_t t = 0; t < types.size(); ++t) {
        if (t > 0)
            o << "\\midrule\n";
        bool first = true;
        for (const auto& mdl : models) {
            if (mdl.type != types[t])
                continue;
            const CorpusStats& s = *mdl.stats;
            if (grouped)
                o << (first ? latexEscape(mdl.type) : std::string()) << " & ";
            first = false;
            o << latexEscape(mdl.name) << " & " << latexEscape(s.run.architecture.empty() ? "--" : s.run.architecture)
              << " & " << formatParameterCount(s.run.parameters) << " & "
              << (s.globalAscEval ? mark(*s.globalAscEval, best && *s.globalAscEval == *best && models.size() > 1)
                                  : std::string("--"));
            for (const auto& c : cats) {
                const auto it = s.categories.find(c);
                o << " & " << (it == s.categories.end() ? std::string("--") : mark(it->second.median, false));
            }
            o << " \\\\\n";
        }
    }
    o << "\\midrule\n\\multicolumn{" << cols << "}{l}{\\footnotesize Erroneous (\\textcolor{red}{red}): AsC-Eval $<$ "
      << num2(opts.erroneous) << "; confident (\\textcolor{blue}{blue}): $\\geq$ " << num2(opts.confident)
      << (models.size() > 1 ? "; best Global underlined" : "") << ".} \\\\\n\\bottomrule\n\\end{tabular}\n";
    return o.str();
}

} // namespace ascviz
