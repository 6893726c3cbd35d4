// analyze (docs/cli.md): AsC-Causal, PERPLEXED and the category heat map over results databases.
// Torch-free (ascviz_cli_results).
#include "commands.h"
#include "output.h"

#include "ascviz/analysis/causal.h"
#include "ascviz/analysis/perplexed.h"
#include "ascviz/analysis/tables.h"
#include "ascviz/base/error.h"
#include "ascviz/render/heatmap.h"
#include "ascviz/results/compare.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/stats.h"

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
        if (!e.note.empty())
            t << "    (" << e.note << ")\n";
    };
    row("global", r.global);
    for (const auto& [k, e] : r.groups)
        row(k, e);
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
    t << "calls: internal " << r.internalCalls.calls << " calls, mean CE " << fmt(r.internalCalls.ce.mean) << " (std "
      << fmt(r.internalCalls.ce.std) << ", " << r.internalCalls.ce.count << " tokens); external "
      << r.externalCalls.calls << " calls, mean CE " << fmt(r.externalCalls.ce.mean) << " (std "
      << fmt(r.externalCalls.ce.std) << ", " << r.externalCalls.ce.count << " tokens); " << r.builtinCalls
      << " builtin calls left out\n";
    t << "ERROR-parented tokens: " << r.errorParented.count << ", mean CE " << fmt(r.errorParented.mean) << '\n';
    return t.str();
}

} // namespace

int cmdAnalyze(Args& args)
{
    const auto sub = args.subcommand();
    if (!sub)
        throw UsageError("analyze needs a subcommand: causal, perplexed, heatmap or treatments");
    const auto out = args.value("--out");
    if (*sub == "causal") {
        const fs::path db = args.require("--db");
        const CausalBy by = [&] {
            try {
                return parseCausalBy(args.valueOr("--by", "global"));
            } catch (const InputError& e) {
                throw UsageError(e.what());
            }
        }();
        CausalOptions opts;
        opts.seed = args.uint64Value("--seed", opts.seed);
        opts.minSnippets = args.intValue("--min-snippets", opts.minSnippets);
        opts.confounders = confoundersOption(args);
        opts.simulations = args.intValue("--simulations", opts.simulations);
        try {
            checkCausalConfounders(opts.confounders);
        } catch (const InputError& e) {
            throw UsageError(e.what());
        }
        const bool asJson = args.flag("--json");
        const auto latex = args.value("--latex");
        args.finish();
        if (opts.minSnippets < 7)
            throw UsageError("--min-snippets must be >= 7 (the regression has 6 parameters)");
        const CausalReport r = analyzeCausal(ResultsDb::open(db), by, opts);
        if (latex) {
            writeText(causalLatex(r), *latex);
            std::cerr << "analyze: wrote " << *latex << '\n';
        }
        if (asJson)
            writeJson(causalToJson(r), out);
        else
            writeText(causalText(r), out);
        return 0;
    }
    if (*sub == "treatments")
        return analyzeTreatmentsCommand(args, out);
    if (*sub == "perplexed") {
        const fs::path db = args.require("--db");
        PerplexedOptions opts;
        opts.minCount = args.intValue("--min-count", opts.minCount);
        opts.top = args.intValue("--top", opts.top);
        const bool asJson = args.flag("--json");
        args.finish();
        if (opts.minCount < 1 || opts.top < 1)
            throw UsageError("--min-count and --top must be >= 1");
        const PerplexedReport r = analyzePerplexed(ResultsDb::open(db), opts);
        if (asJson)
            writeJson(perplexedToJson(r), out);
        else
            writeText(perplexedText(r), out);
        return 0;
    }
    if (*sub == "heatmap") {
        const auto dbs = splitList(args.require("--db"));
        const auto namesArg = args.value("--names");
        const auto svg = args.value("--svg");
        const auto latex = args.value("--latex");
        const bool allowDifferentCorpus = args.flag("--allow-different-corpus");
        args.finish();
        if (!svg && !latex)
            throw UsageError("analyze heatmap writes --svg FILE and/or --latex FILE");
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
        return 0;
    }
    throw UsageError("unknown analyze subcommand '" + *sub + "' (causal, perplexed, heatmap or treatments)");
}

} // namespace ascviz::cli
