// The report of attention heads vs relations as JSON (docs/cli.md), LaTeX (the paper's Tables 3 and 6) and text.
#include "ascviz/attention/headreport.h"

#include "ascviz/base/error.h"
#include "ascviz/base/latex.h"

#include <algorithm>

#include <cstdio>
#include <sstream>

namespace ascviz {
namespace {

nlohmann::json baselineJson(const GreedyResult& g, const std::vector<double>& scores, bool withKeywords)
{
    nlohmann::json choices = nlohmann::json::array();
    for (const auto& c : g.choices) {
        if (c.isKeyword)
            choices.push_back(c.keyword);
        else if (withKeywords)
            choices.push_back(std::to_string(c.offset));
        else
            choices.push_back(c.offset);
    }
    return {{"choices", choices}, {"scores", scores}};
}

std::string pct(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", 100.0 * v);
    return buf;
}

std::string signedPct(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f", 100.0 * v);
    return buf;
}

} // namespace

nlohmann::json headReportJson(const HeadReport& r)
{
    nlohmann::json rel = nlohmann::json::object();
    for (const auto& x : r.relations) {
        nlohmann::json perK = nlohmann::json::array();
        for (const auto& p : x.bestPerK)
            perK.push_back({{"layer", p.layer}, {"head", p.head}, {"score", p.score}});
        rel[x.type] = {
            {"count", x.count},
            {"outside_window", x.outsideWindow},
            {"mean_offset", x.meanOffset},
            {"best_head", {{"layer", x.best.layer}, {"head", x.best.head}, {"scores", x.bestScores}}},
            {"best_head_per_k", perK},
            {"offset_baseline", baselineJson(x.offset, x.offsetScores, false)},
            {"keyword_baseline", baselineJson(x.keyword, x.keywordScores, false)},
            {"combined_baseline", baselineJson(x.combined, x.combinedScores, true)},
            {"diff", x.diff},
        };
    }
    nlohmann::json rare = nlohmann::json::object();
    for (const auto& [type, n] : r.rare)
        rare[type] = n;
    return {{"model", r.model},
            {"language", r.language},
            {"relation_set", r.relationSet},
            {"units", r.relationSet == "codesyntax" ? "words" : "tokens"},
            {"metric", r.metric},
            {"top_k", r.topK},
            {"min_count", r.minCount},
            {"texts", r.texts},
            {"layers", r.layers},
            {"heads", r.heads},
            {"relations", rel},
            {"rare_relations", rare},
            {"model_score", r.modelScore},
            {"baseline_score", r.baselineScore},
            {"offset_score", r.offsetScore},
            {"keyword_score", r.keywordScore},
            {"combined_score", r.combinedScore},
            {"warnings", r.warnings}};
}

std::string headTable3Latex(const HeadReport& r)
{
    std::ostringstream t;
    t << "% AsC-Viz: attention heads vs syntax relations (CodeSyntax Table 3), metric " << r.metric << ", "
      << r.relations.size() << " relation types with at least " << r.minCount << " edges, " << r.texts << " texts\n"
      << "\\begin{tabular}{l" << std::string(r.topK.size(), 'r') << "}\n\\toprule\n & \\multicolumn{" << r.topK.size()
      << "}{c}{Top-$k$ score} \\\\\n";
    for (int k : r.topK)
        t << " & $k=" << k << "$";
    t << " \\\\\n\\midrule\n";
    auto row = [&](const std::string& name, const std::vector<double>& v, bool sign) {
        t << name;
        for (double x : v)
            t << " & " << (sign ? signedPct(x) : pct(x));
        t << " \\\\\n";
    };
    row("Offset", r.offsetScore, false);
    row("Keyword", r.keywordScore, false);
    row("Combined", r.combinedScore, false);
    row(latexEscape(r.model.empty() ? std::string("Model") : r.model), r.modelScore, false);
    t << "\\midrule\n";
    std::vector<double> diff;
    for (std::size_t i = 0; i < r.modelScore.size(); ++i)
        diff.push_back(r.modelScore[i] - r.baselineScore[i]);
    row("Diff (Model $-$ Baseline)", diff, true);
    t << "\\bottomrule\n\\end{tabular}\n";
    return t.str();
}

std::string headTable6Latex(const HeadReport& r)
{
    std::ostringstream t;
    t << "% AsC-Viz: top-1 " << r.metric
      << "-token scores of the best head and of the best fixed offset per relation (CodeSyntax Table 6)\n"
      << "\\begin{tabular}{lrrrrr}\n\\toprule\nRelation & Count & Head & Score & Offset & Diff \\\\\n"
      << " & & (layer, head) & model / offset & & \\\\\n\\midrule\n";
    const std::size_t k1 = 0; // the first k asked for (1 by default)
    for (const auto& x : r.relations) {
        const std::string off = x.offset.choices.empty() ? "--" : x.offset.choices.front().label();
        t << latexEscape(x.type) << " & " << x.count << " & (" << x.bestPerK[k1].layer << ", " << x.bestPerK[k1].head
          << ") & " << pct(x.bestPerK[k1].score) << " / " << pct(x.offsetScores[k1]) << " & " << off << " & "
          << signedPct(x.bestPerK[k1].score - x.offsetScores[k1]) << " \\\\\n";
    }
    t << "\\bottomrule\n\\end{tabular}\n";
    return t.str();
}

std::string headPaperTable(const HeadReport& r, int table, bool latex)
{
    if (table != 3 && table != 5 && table != 6)
        throw InputError("attention heads: the paper's tables are 3, 5 and 6, not " + std::to_string(table));
    std::ostringstream t;
    auto cells = [&](const std::vector<std::string>& c) {
        for (std::size_t i = 0; i < c.size(); ++i)
            t << (i ? (latex ? " & " : " | ") : (latex ? "" : "| ")) << c[i];
        t << (latex ? " \\\\\n" : " |\n");
    };
    auto name = [&](const std::string& s) { return latex ? latexEscape(s) : s; };
    const std::string model = r.model.empty() ? std::string("Model") : r.model;
    if (table == 3 || table == 5) {
        t << (latex ? "% " : "") << "Table " << table << " (CodeSyntax layout): top-k scores, " << r.metric
          << "-token metric, " << r.relations.size() << " relation types (" << r.relationSet << "), " << r.texts
          << " texts\n";
        std::vector<std::string> head{"Model"};
        for (int k : r.topK)
            head.push_back("k=" + std::to_string(k));
        if (latex)
            t << "\\begin{tabular}{l" << std::string(r.topK.size(), 'r') << "}\n\\toprule\n";
        cells(head);
        if (latex) {
            t << "\\midrule\n";
        } else {
            t << "|---|";
            for (std::size_t i = 0; i < r.topK.size(); ++i)
                t << "---|";
            t << '\n';
        }
        auto row = [&](const std::string& label, const std::vector<double>& v, bool sign) {
            std::vector<std::string> c{label};
            for (double x : v)
                c.push_back(sign ? signedPct(x) : pct(x));
            cells(c);
        };
        row("Offset", r.offsetScore, false);
        row("Keyword", r.keywordScore, false);
        row("Combined", r.combinedScore, false);
        row(name(model), r.modelScore, false);
        std::vector<double> diff;
        for (std::size_t i = 0; i < r.modelScore.size(); ++i)
            diff.push_back(r.modelScore[i] - r.baselineScore[i]);
        row(latex ? "Diff (Model $-$ Baseline)" : "Diff (Model - Baseline)", diff, true);
        if (latex)
            t << "\\bottomrule\n\\end{tabular}\n";
        return t.str();
    }
    std::vector<const RelationHeads*> rows;
    for (const auto& x : r.relations)
        if (r.table6.empty() || std::find(r.table6.begin(), r.table6.end(), x.type) != r.table6.end())
            rows.push_back(&x);
    std::stable_sort(rows.begin(), rows.end(), [](const RelationHeads* a, const RelationHeads* b) {
        return a->bestPerK[0].score - a->offsetScores[0] > b->bestPerK[0].score - b->offsetScores[0];
    });
    t << (latex ? "% " : "") << "Table 6 (CodeSyntax layout): top-1 " << r.metric
      << "-token scores of the best head and of the best fixed offset per relation (" << r.relationSet << ")\n";
    if (latex)
        t << "\\begin{tabular}{lrrrr}\n\\toprule\n";
    cells({"Relation", "Score " + name(model), "Score Offset", "Offset", "Diff"});
    t << (latex ? "\\midrule\n" : "|---|---|---|---|---|\n");
    for (const RelationHeads* x : rows)
        cells({name(x->type), pct(x->bestPerK[0].score), pct(x->offsetScores[0]),
               x->offset.choices.empty() ? "--" : x->offset.choices.front().label(),
               signedPct(x->bestPerK[0].score - x->offsetScores[0])});
    if (latex)
        t << "\\bottomrule\n\\end{tabular}\n";
    if (!r.table6.empty()) {
        std::vector<std::string> missing;
        for (const auto& type : r.table6)
            if (std::none_of(rows.begin(), rows.end(), [&](const RelationHeads* x) { return x->type == type; }))
                missing.push_back(type);
        if (!missing.empty()) {
            t << (latex ? "% " : "") << "not in the table (fewer edges than the minimum count):";
            for (const auto& m : missing)
                t << ' ' << m;
            t << '\n';
        }
    }
    return t.str();
}

std::string headReportText(const HeadReport& r)
{
    std::ostringstream t;
    t << "attention heads vs syntax relations (method.md 11): model " << r.model << ", metric " << r.metric << ", "
      << r.texts << " texts, " << r.layers << " layers x " << r.heads << " heads; " << r.relations.size()
      << " relation types with >= " << r.minCount << " edges (" << r.rare.size() << " rarer left out)\n\n";
    char buf[512];
    std::snprintf(buf, sizeof buf, "%-10s", "top-k");
    t << buf;
    for (int k : r.topK) {
        std::snprintf(buf, sizeof buf, " %7d", k);
        t << buf;
    }
    t << '\n';
    auto row = [&](const char* name, const std::vector<double>& v) {
        std::snprintf(buf, sizeof buf, "%-10s", name);
        t << buf;
        for (double x : v) {
            std::snprintf(buf, sizeof buf, " %7.1f", 100.0 * x);
            t << buf;
        }
        t << '\n';
    };
    row("offset", r.offsetScore);
    row("keyword", r.keywordScore);
    row("combined", r.combinedScore);
    row("model", r.modelScore);
    std::vector<double> diff;
    for (std::size_t i = 0; i < r.modelScore.size(); ++i)
        diff.push_back(r.modelScore[i] - r.baselineScore[i]);
    row("diff", diff);
    t << "\nper relation (top-" << (r.topK.empty() ? 1 : r.topK.front()) << "; scores in %)\n";
    std::snprintf(buf, sizeof buf, "%-48s %6s %7s %9s %6s %7s %7s %7s %7s\n", "relation", "count", "offset",
                  "best head", "score", "offset", "(best)", "keyword", "diff");
    t << buf;
    for (const auto& x : r.relations) {
        const std::string off = x.offset.choices.empty() ? "-" : x.offset.choices.front().label();
        const std::string head = "L" + std::to_string(x.bestPerK[0].layer) + "H" + std::to_string(x.bestPerK[0].head);
        std::snprintf(buf, sizeof buf, "%-48s %6d %7.2f %9s %6.1f %7.1f %7s %7.1f %+7.1f\n",
                      x.type.substr(0, 48).c_str(), x.count, x.meanOffset, head.c_str(), 100.0 * x.bestPerK[0].score,
                      100.0 * x.offsetScores[0], off.c_str(), 100.0 * x.keywordScores[0], 100.0 * x.diff[0]);
        t << buf;
    }
    return t.str();
}

} // namespace ascviz
