// report (docs/cli.md): statistics of a results database. Torch-free: this file and everything it links
// (ascviz_cli_results: args, output, the results room) build without LibTorch.
#include "commands.h"
#include "output.h"

#include "ascviz/base/error.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/stats.h"
#include "ascviz/results/straddles.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace ascviz::cli {

namespace fs = std::filesystem;

int cmdReport(Args& args)
{
    const fs::path dbPath = args.require("--db");
    const bool asJson = args.flag("--json");
    const auto csvDir = args.value("--csv");
    const auto out = args.value("--out");
    const int resamples = args.intValue("--resamples", 500, 1, kMaxResamples);
    BootstrapOptions bo;
    bo.resamples = resamples;
    bo.seed = args.uint64Value("--seed", bo.seed);
    const int minN = args.intValue("--min-n", static_cast<int>(kDefaultMinN));
    args.finish();
    if (asJson && csvDir)
        throw UsageError("--json and --csv are exclusive");
    if (resamples < 1)
        throw UsageError("--resamples must be >= 1");
    if (minN < 1)
        throw UsageError("--min-n must be >= 1");

    const auto db = ResultsDb::open(dbPath);
    CorpusStats s = computeStats(db, bo);
    s.minN = minN;
    if (s.counts.ok == 0)
        std::cerr << "report: " << dbPath.string() << " holds no successfully evaluated snippet\n";
    if (s.run.status != RunStatus::Complete)
        std::cerr << "report: the run is " << toString(s.run.status) << " (" << s.counts.snippets << " of "
                  << s.run.planned << " snippets); continue it with `batch --resume`\n";

    if (csvDir) {
        const auto files = writeCsvReport(s, db, *csvDir);
        for (const auto& f : files)
            std::cerr << "report: wrote " << f.string() << '\n';
        return 0;
    }
    if (asJson) {
        writeJson(reportJson(db, s), out);
        return 0;
    }
    const std::vector<StraddleRow> straddles = straddlesByCategory(db);
    std::ostringstream t;
    t << "model: " << s.run.modelName << " (" << s.run.modelDir << ")\n"
      << "corpus: " << s.run.corpusPath << "; " << s.counts.ok << " snippets evaluated, " << s.counts.errors
      << " errors; aggregation " << toString(s.run.aggregation) << " over "
      << (s.run.aggregationScope == AggregationScope::Children ? "children" : "tokens") << "\n"
      << "compute dtype: " << s.run.dtype << "; categories: " << s.categoryTable << "\n"
      << "Global AsC-Eval: " << (s.globalAscEval ? fmt(*s.globalAscEval) : std::string("n/a"))
      << " (Table I: mean of the categorized concepts' bootstrapped medians; " << s.resamples << " resamples, seed "
      << s.seed << ")\n"
      << "mean over all concepts (not Table I): "
      << (s.globalAllConcepts ? fmt(*s.globalAllConcepts) : std::string("n/a")) << "\n"
      << "flag: confident >= " << fmt(kConfidentThreshold, "%.1f") << ", erroneous < "
      << fmt(kErroneousThreshold, "%.1f") << ", too_few when n < " << s.minN << " (--min-n)\n\n";
    auto table = [&](const char* title, const std::map<std::string, BootstrapResult>& m) {
        char buf[256];
        std::snprintf(buf, sizeof buf, "%-28s %7s %7s %17s %8s  %s\n", title, "median", "se", "95% CI", "n", "flag");
        t << buf;
        for (const auto& [name, r] : m) {
            std::snprintf(buf, sizeof buf, "%-28s %7.3f %7.3f   [%5.3f, %5.3f] %8lld  %s\n", name.c_str(), r.median,
                          r.se, r.lo, r.hi, static_cast<long long>(r.n), toString(thresholdFlag(r, s.minN)).c_str());
            t << buf;
        }
        t << '\n';
    };
    if (s.mixedLanguages)
        t << "languages: " << s.languages.size()
          << " (concepts are <language>:<node type>; per-language tables below)\n\n";
    table("category (Table I)", s.categories);
    table("category, nodes pooled", s.categoriesPooled);
    table("concept", s.concepts);
    {
        char buf[256];
        std::snprintf(buf, sizeof buf, "%-28s %8s %8s %9s %9s\n", "tokens against the grammar", "tokens", "share",
                      "straddle", "rest");
        t << buf;
        auto med = [](const std::optional<double>& v) { return v ? fmt(*v, "%.3f") : std::string("n/a"); };
        for (const auto& r : straddles) {
            std::snprintf(buf, sizeof buf, "%-28s %8lld %8.3f %9s %9s\n", r.category.c_str(),
                          static_cast<long long>(r.tokens),
                          r.tokens ? static_cast<double>(r.straddling) / static_cast<double>(r.tokens) : 0.0,
                          med(r.ascStraddling).c_str(), med(r.ascRest).c_str());
            t << buf;
        }
        t << "(share of the category's tokens straddling an AST leaf boundary; median NtP of those and of the rest,"
             " method.md 14.4)\n\n";
    }
    if (s.mixedLanguages) {
        for (const auto& l : s.languages) {
            t << "== " << l.language << ": " << l.snippets << " snippets; Global AsC-Eval "
              << (l.globalAscEval ? fmt(*l.globalAscEval) : std::string("n/a")) << "; categories: " << l.categoryTable
              << "\n";
            table(("category (" + l.language + ")").c_str(), l.categories);
        }
    }
    writeText(t.str(), out);
    return 0;
}

} // namespace ascviz::cli
