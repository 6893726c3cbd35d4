// analyze causal|perplexed|heatmap|treatments (docs/cli.md): AsC-Causal, PERPLEXED and the category heat map over
// results databases, Galeras' treatments over a runs database. Torch-free (ascviz_cli_results); one function per
// subcommand, each named in the one table `analyze` routes by (cmd_analyze_router.cpp).
#include "commands.h"
#include "output.h"

#include "ascviz/analysis/calls.h"
#include "ascviz/analysis/causal.h"
#include "ascviz/analysis/papertables.h"
#include "ascviz/analysis/perplexed.h"
#include "ascviz/analysis/tables.h"
#include "ascviz/base/error.h"
#include "ascviz/figure/charts.h"
#include "ascviz/render/heatmap.h"
#include "ascviz/results/compare.h"
#include "ascviz/results/corpus.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/stats.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace ascviz::cli {
namespace fs = std::filesystem;
namespace {

std::string fmtOpt(const std::optional<double>& v, const char* f = "%.3f")
{
    return v ? fmt(*v, f) : std::string("n/a");
}

std::string causalText(const CausalReport& r)
{
    std::ostringstream t;
    t << "AsC-Causal: T = AsC-Eval, Y = cross-entropy, confounders: tokens, AST nodes, AST levels, cyclomatic\n"
      << "effect = OLS coefficient of T in Y ~ 1 + T + confounders (se; 95 % CI from Student's t); refutations:\n"
      << "placebo (T permuted: should be ~0), random common cause and 80 % subset (should stay near the effect)\n\n";
    char buf[512];
    std::snprintf(buf, sizeof buf, "%-28s %5s %7s %7s %7s %7s %7s %16s %18s %8s %8s %8s\n", "treatment", "n", "rho(Y)",
                  "rho(tk)", "rho(nd)", "rho(lv)", "rho(cc)", "effect (se)", "95% CI", "placebo", "common", "subset");
    t << buf;
    auto row = [&](const std::string& name, const CausalEstimate& e) {
        std::string rz[4];
        for (std::size_t k = 0; k < 4 && k < e.rhoConfounders.size(); ++k)
            rz[k] = fmtOpt(e.rhoConfounders[k].second);
        const std::string eff = e.hasEffect ? fmt(e.effect) + " (" + fmt(e.se) + ")" : std::string("n/a");
        const std::string ci = e.hasEffect ? "[" + fmt(e.lo) + ", " + fmt(e.hi) + "]" : std::string();
        std::snprintf(buf, sizeof buf, "%-28s %5d %7s %7s %7s %7s %7s %16s %18s %8s %8s %8s\n",
                      name.substr(0, 28).c_str(), e.n, fmtOpt(e.rhoOutcome).c_str(), rz[0].c_str(), rz[1].c_str(),
                      rz[2].c_str(), rz[3].c_str(), eff.c_str(), ci.c_str(), fmtOpt(e.placebo).c_str(),
                      fmtOpt(e.randomCommonCause).c_str(), fmtOpt(e.dataSubset).c_str());
        t << buf;
        if (!e.refutations.empty())
            t << "    refuters, mean new effect (p-value): " << refutationsText(e.refutations) << "\n";
        if (!e.note.empty())
            t << "    (" << e.note << ")\n";
    };
    row("global", r.global);
    for (const auto& [k, e] : r.groups)
        row(k, e);
    return t.str();
}

// PERPLEXED's Table 1 (calls.h).
std::string callTableText(const CallTable& c)
{
    std::ostringstream t;
    t << "Table 1: internal (declared in another file of the same repository) vs external calls; " << c.internal.calls
      << " internal, " << c.external.calls << " external, " << c.builtinCalls << " builtin calls left out; "
      << c.sources << " sources in " << c.repositories << " repositories";
    if (c.unplacedSnippets > 0)
        t << "; " << c.unplacedSnippets << " snippets without a repository/file not counted";
    t << "\n";
    char buf[256];
    std::snprintf(buf, sizeof buf, "%-36s %9s %9s %9s %9s\n", "node", "internal?", "count", "mean CE", "std CE");
    t << buf;
    for (const auto& r : c.rows) {
        std::snprintf(buf, sizeof buf, "%-36s %9s %9lld %9.3f %9.3f\n", r.node.substr(0, 36).c_str(),
                      r.internal ? "yes" : "no", static_cast<long long>(r.ce.count), r.ce.mean, r.ce.std);
        t << buf;
    }
    for (const bool internal : {true, false}) {
        const CallSummary& s = internal ? c.internal : c.external;
        std::snprintf(buf, sizeof buf, "%-36s %9s %9lld %9.3f %9.3f\n",
                      internal ? "Summary: Internal" : "Summary: External", "", static_cast<long long>(s.tokens),
                      s.mean, s.std);
        t << buf;
    }
    t << "(summary: the unweighted mean of the rows' mean CE and their population std, over " << c.internal.rows
      << " / " << c.external.rows << " rows)\n";
    return t.str();
}

std::string perplexedText(const PerplexedReport& r)
{
    std::ostringstream t;
    t << "PERPLEXED: " << r.snippets << " snippets, " << r.tokens << " tokens, mean CE " << fmt(r.all.mean) << " (std "
      << fmt(r.all.std) << "); groups of at least " << r.minCount << " tokens ranked\n\n";
    auto list = [&](const char* title, const std::vector<std::pair<std::string, CeStat>>& v) {
        char buf[256];
        std::snprintf(buf, sizeof buf, "%-40s %8s %8s %8s\n", title, "mean CE", "std", "count");
        t << buf;
        for (const auto& [name, s] : v) {
            std::string shown;
            for (char c : name)
                shown += c == '\n' ? std::string("\\n") : c == '\t' ? std::string("\\t") : std::string(1, c);
            std::snprintf(buf, sizeof buf, "%-40s %8.3f %8.3f %8lld\n", ("'" + shown + "'").substr(0, 40).c_str(),
                          s.mean, s.std, static_cast<long long>(s.count));
            t << buf;
        }
        t << '\n';
    };
    list("worst tokens", r.worstTokens);
    list("best tokens", r.bestTokens);
    list("worst AST labels (parent -> type)", r.worstLabels);
    list("best AST labels", r.bestLabels);
    list("worst tokens, unfiltered (any count)", r.worstTokensAll);
    list("best tokens, unfiltered", r.bestTokensAll);
    list("worst AST labels, unfiltered", r.worstLabelsAll);
    list("best AST labels, unfiltered", r.bestLabelsAll);
    t << "Spearman rho (frequency vs mean CE): tokens " << fmtOpt(r.spearmanTokens) << " over " << r.tokenGroups
      << " token texts; AST labels " << fmtOpt(r.spearmanLabels) << " over " << r.labelGroups << " labels\n\n";
    if (r.callTable)
        t << callTableText(*r.callTable) << '\n';
    t << "calls by snippet (internal = defined in the same snippet): internal " << r.internalCalls.calls
      << " calls, mean CE " << fmt(r.internalCalls.ce.mean) << " (std " << fmt(r.internalCalls.ce.std) << ", "
      << r.internalCalls.ce.count << " tokens); external " << r.externalCalls.calls << " calls, mean CE "
      << fmt(r.externalCalls.ce.mean) << " (std " << fmt(r.externalCalls.ce.std) << ", " << r.externalCalls.ce.count
      << " tokens); " << r.builtinCalls << " builtin calls left out\n";
    t << "ERROR-parented tokens: " << r.errorParented.count << ", mean CE " << fmt(r.errorParented.mean) << '\n';
    return t.str();
}

} // namespace

// analyze causal: AsC-Causal over one or more results databases (text, JSON, LaTeX)
int cmdAnalyzeCausal(Args& args)
{
    const auto out = args.value("--out");
    const auto dbs = splitList(args.require("--db"));
    const auto byArg = args.value("--by");
    const auto conceptsArg = args.value("--concepts");
    const auto namesArg = args.value("--names");
    CausalOptions opts;
    opts.seed = args.uint64Value("--seed", opts.seed);
    opts.minSnippets = args.intValue("--min-snippets", opts.minSnippets);
    opts.confounders = confoundersOption(args);
    opts.simulations = args.intValue("--simulations", opts.simulations, 0, kMaxResamples);
    usageOf("", [&] { checkCausalConfounders(opts.confounders); });
    const bool asJson = args.flag("--json");
    const auto latex = args.value("--latex");
    args.finish();
    if (opts.minSnippets < 7)
        throw UsageError("--min-snippets must be >= 7 (the regression has 6 parameters)");
    if (dbs.empty())
        throw UsageError("--db needs at least one results database");
    // The paper's Table II layout: a concept selection, several models side by side.
    const bool paper = conceptsArg.has_value() || dbs.size() > 1;
    if (paper && !latex)
        throw UsageError("--concepts and several --db lay out the paper's Table II: give --latex FILE");
    if (paper && byArg && *byArg != "concept")
        throw UsageError("the paper's Table II is by concept: leave --by out or give --by concept");
    if (dbs.size() > 1 && asJson)
        throw UsageError("--json takes one --db");
    const auto names = namesArg ? splitList(*namesArg) : std::vector<std::string>{};
    if (namesArg && names.size() != dbs.size())
        throw UsageError("--names needs one name per --db (" + std::to_string(dbs.size()) + ")");
    const CausalBy by =
        usageOf("", [&] { return paper ? CausalBy::Concept : parseCausalBy(byArg.value_or("global")); });
    std::vector<CausalReport> reports;
    std::vector<RunInfo> runs;
    for (const auto& d : dbs) {
        const ResultsDb rdb = ResultsDb::open(d);
        runs.push_back(rdb.runInfo());
        reports.push_back(analyzeCausal(rdb, by, opts));
    }
    std::vector<std::string> labels = names;
    for (std::size_t i = 0; labels.size() < dbs.size(); ++i) {
        const bool repeated = std::count_if(runs.begin(), runs.end(),
                                            [&](const RunInfo& x) { return x.modelName == runs[i].modelName; }) > 1;
        labels.push_back(repeated ? runs[i].modelName + " (" + fs::path(dbs[i]).filename().string() + ")"
                                  : runs[i].modelName);
    }
    if (latex) {
        if (paper) {
            std::vector<std::pair<std::string, const CausalReport*>> models;
            for (std::size_t i = 0; i < reports.size(); ++i)
                models.emplace_back(labels[i], &reports[i]);
            const auto groups =
                parseConceptSelection(conceptsArg.value_or("paper"), CategoryMap::forLanguage(runs[0].language));
            writeText(causalPaperLatex(models, groups), *latex);
        } else {
            writeText(causalLatex(reports[0]), *latex);
        }
        std::cerr << "analyze: wrote " << *latex << '\n';
    }
    if (asJson) {
        writeJson(causalToJson(reports[0]), out);
    } else {
        std::string text;
        for (std::size_t i = 0; i < reports.size(); ++i)
            text += (reports.size() > 1 ? "== " + labels[i] + " (" + dbs[i] + ")\n" : std::string()) +
                    causalText(reports[i]) + (i + 1 < reports.size() ? "\n" : "");
        writeText(text, out);
    }
    return 0;
}

// analyze perplexed: CE per token text and AST label
int cmdAnalyzePerplexed(Args& args)
{
    const auto out = args.value("--out");
    const fs::path db = args.require("--db");
    PerplexedOptions opts;
    opts.minCount = args.intValue("--min-count", opts.minCount);
    opts.top = args.intValue("--top", opts.top);
    const auto corpusArg = args.value("--corpus");
    const bool noCalls = args.flag("--no-call-table");
    const bool asJson = args.flag("--json");
    args.finish();
    if (opts.minCount < 1 || opts.top < 1)
        throw UsageError("--min-count and --top must be >= 1");
    const ResultsDb rdb = ResultsDb::open(db);
    // The call table needs each snippet's repository and file: from the corpus (--corpus, else the run's).
    std::optional<CallRepository> repository;
    if (!noCalls) {
        std::string why;
        repository = callRepositoryOfRun(rdb, corpusArg ? std::optional<fs::path>(*corpusArg) : std::nullopt, &why);
        if (repository)
            opts.repository = &*repository;
        else
            std::cerr << "analyze: no call table: " << why << " (give --corpus FILE|DIR)\n";
    }
    const PerplexedReport r = analyzePerplexed(rdb, opts);
    if (asJson)
        writeJson(perplexedToJson(r), out);
    else
        writeText(perplexedText(r), out);
    return 0;
}

// analyze heatmap: categories x results databases (SVG, LaTeX, Table I)
int cmdAnalyzeHeatmap(Args& args)
{
    const auto out = args.value("--out");
    const auto dbs = splitList(args.require("--db"));
    const auto namesArg = args.value("--names");
    const auto svg = args.value("--svg");
    const auto latex = args.value("--latex");
    const auto table1 = args.value("--table1");
    const auto typesArg = args.value("--types");
    const bool allowDifferentCorpus = args.flag("--allow-different-corpus");
    args.finish();
    if (!svg && !latex && !table1)
        throw UsageError("analyze heatmap writes --svg FILE, --latex FILE and/or --table1 FILE");
    const auto types = typesArg ? splitList(*typesArg) : std::vector<std::string>{};
    if (typesArg && types.size() != dbs.size())
        throw UsageError("--types needs one model type per --db (" + std::to_string(dbs.size()) + ")");
    const auto names = namesArg ? splitList(*namesArg) : std::vector<std::string>{};
    if (namesArg && names.size() != dbs.size())
        throw UsageError("--names needs one name per --db (" + std::to_string(dbs.size()) + ")");
    std::vector<CorpusStats> stats;
    for (const auto& d : dbs)
        stats.push_back(computeStats(ResultsDb::open(d)));
    std::vector<ComparedRun> runs;
    for (std::size_t i = 0; i < stats.size(); ++i)
        runs.push_back({&stats[i], fs::path(dbs[i]).filename().string()});
    const RunComparison cmp = compareRuns(runs);
    if (cmp.differentCorpus && !allowDifferentCorpus)
        throw InputError("analyze heatmap: " + cmp.warning +
                         "; refused (--allow-different-corpus compares them anyway)");
    if (!cmp.warning.empty())
        std::cerr << "analyze: warning: " << cmp.warning << '\n';
    std::vector<std::pair<std::string, const CorpusStats*>> sets;
    for (std::size_t i = 0; i < stats.size(); ++i)
        sets.emplace_back(names.empty() ? cmp.labels[i] : names[i], &stats[i]);
    if (svg) {
        const auto [rows, cols] = heatmapData(sets);
        writeText(renderHeatmapSvg(rows, cols), *svg);
        std::cerr << "analyze: wrote " << *svg << " (" << rows.size() << " rows x " << cols.size() << " models)\n";
    }
    if (latex) {
        writeText(comparisonLatex(sets, cmp.warning), *latex);
        std::cerr << "analyze: wrote " << *latex << '\n';
    }
    if (table1) {
        std::vector<TableOneModel> models;
        for (std::size_t i = 0; i < stats.size(); ++i)
            models.push_back({sets[i].first, types.empty() ? std::string() : types[i], &stats[i]});
        writeText(tableOneLatex(models), *table1);
        std::cerr << "analyze: wrote " << *table1 << '\n';
    }
    return 0;
}

} // namespace ascviz::cli
