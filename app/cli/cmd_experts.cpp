// analyze experts (docs/cli.md; method.md §15): which experts a mixture-of-experts model routes the tokens of each
// syntax category to, over a corpus.
#include "commands.h"
#include "common.h"
#include "figure_args.h"
#include "output.h"

#include "ascviz/base/error.h"
#include "ascviz/base/limits.h"
#include "ascviz/base/resources.h"
#include "ascviz/eval/eval.h"
#include "ascviz/experts/experts.h"
#include "ascviz/figure/expertsfigure.h"
#include "ascviz/results/corpus.h"
#include "ascviz/results/resultsdb.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace ascviz::cli {
namespace {

std::string reportText(const ExpertReport& r, const std::string& model, int64_t tokens)
{
    std::ostringstream t;
    t << "experts by category (" << model << "): " << r.experts << " experts per sparse layer, " << tokens
      << " tokens\n";
    t << "specialisation (KL divergence from the corpus-wide routing, bits):\n";
    for (const auto& s : r.specialisation)
        t << "  " << std::left << std::setw(24) << s.category << " layer " << std::setw(3) << s.layer << " n "
          << std::setw(7) << s.n << " KL " << std::fixed << std::setprecision(4) << s.kl << '\n';
    return t.str();
}

// The report as the figure room's plain data: the categories in the report's order, the sparse layers (all, or
// `layer` alone: UsageError when it is not one of them).
ExpertsFigureData figureData(const ExpertRun& run, int expertsPerToken, std::optional<int> layer)
{
    ExpertsFigureData d;
    d.model = run.model;
    d.experts = run.report.experts;
    d.expertsPerToken = expertsPerToken;
    std::map<int, std::size_t> panel; // layer -> index in d.layers
    for (const auto& row : run.report.rows) {
        if (layer && row.layer != *layer)
            continue;
        if (d.categories.empty() || d.categories.back() != row.category)
            if (std::find(d.categories.begin(), d.categories.end(), row.category) == d.categories.end())
                d.categories.push_back(row.category);
        d.n[row.category] = row.n;
        auto [it, added] = panel.emplace(row.layer, d.layers.size());
        if (added)
            d.layers.push_back({row.layer, {}});
        auto& shares = d.layers[it->second].shares[row.category];
        shares.resize(static_cast<std::size_t>(d.experts), 0.0);
        shares[static_cast<std::size_t>(row.expert)] = row.share;
    }
    std::sort(d.layers.begin(), d.layers.end(), [](const auto& a, const auto& b) { return a.layer < b.layer; });
    if (layer && d.layers.empty()) {
        std::set<int> sparse;
        for (const auto& row : run.report.rows)
            sparse.insert(row.layer);
        std::string list;
        for (int l : sparse)
            list += (list.empty() ? "" : ", ") + std::to_string(l);
        throw UsageError("--layer " + std::to_string(*layer) + " is not a sparse layer of " + run.model +
                         " (its sparse layers: " + list + ")");
    }
    return d;
}

} // namespace

int cmdAnalyzeExperts(Args& args)
{
    const auto corpusArg = args.value("--corpus");
    const auto dbArg = args.value("--db");
    if (dbArg.has_value() == corpusArg.has_value())
        throw UsageError("analyze experts needs --db RESULTS or --corpus C (with --model M), not both");
    const std::string language = languageOptionOrEmpty(args);
    const int limit = args.intValue("--limit", 0);
    const bool asJson = args.flag("--json");
    const auto out = args.value("--out");
    const auto svg = args.value("--svg");
    const auto pdf = args.value("--pdf");
    bool styled = false;
    const FigureStyle style = readFigureStyle(args, &styled);
    std::optional<int> layer;
    if (Args peek = args; peek.value("--layer").has_value())
        layer = args.intValue("--layer", 0, 0, 1 << 20);
    ExpertRunOptions options;
    options.maxTextBytes = maxTextBytesOption(args);
    options.maxAstDepth = maxAstDepthOption(args);
    options.maxAstNodes = maxAstNodesOption(args);
    if (limit < 0)
        throw UsageError("--limit must be >= 0 (0 = all)");
    if ((styled || layer) && !svg && !pdf)
        throw UsageError("--layer, --width-mm, --font-pt, --no-title and --legend are for the heat map: give --svg "
                         "OUT or --pdf OUT");

    std::vector<ExpertText> texts;
    std::string modelArg;
    if (dbArg) {
        // The database's snippets (those scored), with its run's model unless --model names another.
        const ResultsDb db = ResultsDb::open(*dbArg);
        const RunInfo run = db.runInfo();
        modelArg = args.valueOr("--model", run.modelDir);
        for (const auto& row : db.snippets())
            if (row.ok)
                texts.push_back({db.snippetCode(row.index), row.language.empty() ? run.language : row.language,
                                 *dbArg + ": snippet " + std::to_string(row.index)});
    } else {
        modelArg = args.valueOr("--model", "default");
        const Corpus corpus = readCorpusOption(*corpusArg, language, "");
        for (const auto& e : corpus.entries)
            texts.push_back({e.code, e.language, e.location});
    }
    const LoadOptions lo = loadOptions(args);
    args.finish();
    if (limit > 0 && texts.size() > static_cast<std::size_t>(limit))
        texts.resize(static_cast<std::size_t>(limit));

    const auto model = LanguageModel::load(resolveModelDir(modelArg), lo);
    options.skipped = [&](const ExpertText& e, const std::string&) {
        std::cerr << "analyze experts: " << e.location << ": " << e.code.size() << " bytes, over "
                  << limits::kMaxTextBytesOption << ' ' << options.maxTextBytes << ": left out\n";
    };
    // Progress every 50 texts and Ctrl-C (stop after the current text) as every corpus loop on the engine.
    InterruptScope interrupt;
    options.controls.cancel = InterruptScope::cancelFlag();
    options.controls.progress = [](const RunProgress& p) {
        if (p.done > 0 && p.done % 50 == 0)
            std::cerr << "analyze experts: " << p.done << " of " << p.total << " texts\n";
    };
    ExpertRun run;
    try {
        run = analyzeExperts(*model, texts, options);
    } catch (const Cancelled&) {
        throw InputError("analyze experts: interrupted; nothing written");
    }
    // The category x expert heat map per sparse layer (figure room: width, font, legend; SVG and PDF).
    for (const auto& [file, asPdf] : {std::pair{svg, false}, std::pair{pdf, true}}) {
        if (!file)
            continue;
        writeFigure(expertsFigure(figureData(run, model->info().expertsPerToken, layer), style), *file, asPdf);
        std::cerr << "analyze experts: wrote " << *file << '\n';
    }
    if (asJson)
        writeJson(expertRunJson(run), out);
    else if (!svg && !pdf)
        writeText(reportText(run.report, run.model, run.tokens), out);
    return 0;
}

} // namespace ascviz::cli
