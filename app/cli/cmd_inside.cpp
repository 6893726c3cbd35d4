// Inside the model (method.md §13, docs/cli.md): `attribute` (attribution by AST node) and `analyze layers` (the
// concept/category × layer matrix of the layer lens). `eval --layers` is in cmd_syntax.cpp.
#include "commands.h"
#include "common.h"
#include "figure_args.h"

#include "ascviz/attribution/attribution.h"
#include "ascviz/attribution/reliance.h"
#include "ascviz/base/error.h"
#include "ascviz/base/resources.h"
#include "ascviz/base/utf8.h"
#include "ascviz/figure/charts.h"
#include "ascviz/lens/matrix.h"
#include "ascviz/model/lens.h"
#include "ascviz/results/resultsdb.h"

#include <chrono>
#include <iostream>
#include <utility>

namespace ascviz::cli {

using nlohmann::json;

namespace {

// attribute --corpus C: the category x category reliance matrix (gradient x input unless --method occlusion).
int attributeCorpus(Args& args, const std::string& corpusArg)
{
    const std::string language = languageOptionOrEmpty(args);
    const int limit = args.intValue("--limit", 50);
    RelianceOptions opts;
    opts.targetsPerText = args.intValue("--targets", opts.targetsPerText);
    const auto method = args.valueOr("--method", "gradxinput");
    opts.attribution.budget = static_cast<std::size_t>(std::max(0, args.intValue("--budget", 64)));
    opts.attribution.maxAstDepth = maxAstDepthOption(args);
    opts.attribution.maxAstNodes = maxAstNodesOption(args);
    const bool quiet = args.flag("--quiet");
    (void)args.flag("--json"); // the matrix is JSON only
    const auto out = args.value("--out");
    opts.attribution.method = usageOf("", [&] { return parseAttributionMethod(method); });
    if (limit < 0 || opts.targetsPerText < 1)
        throw UsageError("--limit must be >= 0 and --targets >= 1");
    auto model = loadModel(args);
    args.finish();
    const Corpus corpus = readCorpusOption(corpusArg, language, "");
    std::vector<RelianceText> texts;
    for (const auto& e : corpus.entries)
        if (limit == 0 || texts.size() < static_cast<std::size_t>(limit))
            texts.push_back({e.code, e.language});
    if (!quiet)
        opts.progress = [](std::size_t done, std::size_t total) {
            std::cerr << "\rattribute: " << done << "/" << total << " snippets" << std::flush;
        };
    const RelianceMatrix m = relianceMatrix(*model, texts, opts);
    if (!quiet)
        std::cerr << "\rattribute: " << m.texts << " snippets (" << m.skipped << " skipped), " << m.targets
                  << " targets\n";
    json j = relianceJson(m);
    j["model"] = model->info().name;
    writeJson(j, out);
    return 0;
}

} // namespace

int cmdAttribute(Args& args)
{
    if (const auto corpus = args.value("--corpus"))
        return attributeCorpus(args, *corpus);
    const std::string file = args.require("--text-file");
    const std::string language = languageOption(args, file);
    const auto promptArg = args.require("--prompt-bytes");
    const std::string targetArg = args.valueOr("--target", "all");
    AttributionOptions opts;
    const auto method = args.valueOr("--method", "occlusion");
    const auto order = args.valueOr("--order", "deepest");
    const int budget = args.intValue("--budget", 256);
    opts.batch = args.intValue("--batch-size", opts.batch);
    const int masks = args.intValue("--masks", static_cast<int>(opts.surrogateMasks));
    opts.seed = args.uint64Value("--seed", opts.seed);
    opts.faithfulness = args.flag("--faithfulness");
    opts.maxAstDepth = maxAstDepthOption(args);
    opts.maxAstNodes = maxAstNodesOption(args);
    const auto categoriesFile = args.value("--categories");
    const bool asJson = args.flag("--json");
    const bool quiet = args.flag("--quiet");
    const auto out = args.value("--out");
    std::size_t promptBytes = 0;
    try {
        std::size_t pos = 0;
        const long long v = std::stoll(promptArg, &pos);
        if (pos != promptArg.size() || v < 0)
            throw std::invalid_argument("bad");
        promptBytes = static_cast<std::size_t>(v);
    } catch (const std::exception&) {
        throw UsageError("--prompt-bytes expects a byte count >= 0, got '" + promptArg + "'");
    }
    AttributionTargetSpec target;
    usageOf("", [&] {
        opts.method = parseAttributionMethod(method);
        opts.order = parseNodeOrder(order);
        target = parseAttributionTarget(targetArg);
    });
    if (budget < 0 || opts.batch < 1)
        throw UsageError("--budget must be >= 0 (0 = every prompt node) and --batch-size >= 1");
    if (masks < 4 || masks > 1024)
        throw UsageError("--masks must be in 4 … 1024 (the surrogate's random masks; default 63)");
    opts.surrogateMasks = static_cast<std::size_t>(masks);
    opts.budget = static_cast<std::size_t>(budget);
    auto model = loadModel(args);
    args.finish();

    const std::string text = readUtf8File(file);
    const CategoryMap categories =
        categoriesFile ? CategoryMap::fromFile(*categoriesFile, language) : CategoryMap::forLanguage(language);
    if (!quiet)
        opts.progress = [](std::size_t done, std::size_t total) {
            std::cerr << "\rattribute: " << done << "/" << total << " masked copies" << std::flush;
        };
    const auto t0 = std::chrono::steady_clock::now();
    const AttributionResult r = attribute(*model, text, promptBytes, language, target, opts, &categories);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!quiet)
        std::cerr << "\rattribute: " << r.nodes.size() << " prompt nodes (" << toString(r.method) << ", "
                  << r.forwardPasses << " masked copies) in " << fmt(seconds, "%.2f") << " s\n";
    if (!quiet && r.surrogate)
        std::cerr << "attribute: surrogate held-out R2 = " << fmt(r.surrogate->heldOutR2, "%.3f") << " ("
                  << r.surrogate->trainMasks << " of " << r.surrogate->masks << " masks fitted)\n";
    json j = attributionJson(r);
    j["model"] = model->info().name;
    j["language"] = language;
    j["budget"] = opts.budget;
    if (asJson) {
        writeJson(j, out);
        return 0;
    }
    std::string t = "target " + r.targetType + " bytes " + std::to_string(r.targetStart) + "-" +
                    std::to_string(r.targetEnd) + ", log P = " + fmt(r.targetLogProb) + " (" + toString(r.method) +
                    ")\n";
    if (r.faithfulness)
        t += "faithfulness over " + std::to_string(r.faithfulnessNodes) +
             " nodes: deletion AUC = " + fmt(r.faithfulness->deletionAuc) + " (random " +
             fmt(r.faithfulness->randomDeletionAuc) + "), insertion AUC = " + fmt(r.faithfulness->insertionAuc) +
             " (random " + fmt(r.faithfulness->randomInsertionAuc) + ")\n";
    for (const auto& n : r.nodes)
        t += std::to_string(n.id) + "\t" + n.type + "\t" + std::to_string(n.start) + "-" + std::to_string(n.end) +
             "\t" + fmt(n.attribution, "%+.4f") + "\n";
    writeText(t, out);
    return 0;
}

int cmdAnalyzeLayers(Args& args)
{
    const auto dbArg = args.value("--db");
    const auto corpusArg = args.value("--corpus");
    if (dbArg.has_value() == corpusArg.has_value())
        throw UsageError("analyze layers needs --db RESULTS or --corpus C (with --model M), not both");
    const std::string languageArg = languageOptionOrEmpty(args);
    const auto extensions = args.valueOr("--extensions", "");
    const int limit = args.intValue("--limit", 0);
    const double fraction = args.doubleValue("--fraction", 0.9);
    BootstrapOptions boot;
    boot.resamples = args.intValue("--resamples", boot.resamples, 1, kMaxResamples);
    boot.seed = args.uint64Value("--seed", boot.seed);
    const bool asJson = args.flag("--json");
    const auto latex = args.value("--latex");
    const auto svg = args.value("--svg");
    const auto pdf = args.value("--pdf");
    bool styled = false;
    const FigureStyle style = readFigureStyle(args, &styled);
    const auto out = args.value("--out");
    const bool quiet = args.flag("--quiet");
    Args peek = args;
    const bool aggregationGiven = peek.value("--aggregation").has_value();
    Aggregation aggregation = aggregationOption(args);
    if (!(fraction > 0 && fraction <= 1))
        throw UsageError("--fraction must be in (0, 1]");
    if (boot.resamples < 1 || limit < 0)
        throw UsageError("--resamples must be >= 1 and --limit >= 0");
    if (styled && !svg && !pdf)
        throw UsageError("--width-mm, --font-pt, --no-title and --legend style the heat map: give --svg OUT or "
                         "--pdf OUT");

    std::vector<LayerText> texts;
    std::string modelArg;
    if (dbArg) {
        ResultsLayerTexts fromDb = layerTextsOfResults(*dbArg);
        modelArg = args.valueOr("--model", fromDb.modelDir);
        if (!aggregationGiven)
            aggregation = fromDb.aggregation;
        texts = std::move(fromDb.texts);
    } else {
        modelArg = args.valueOr("--model", "default");
        const Corpus corpus = readCorpusOption(*corpusArg, languageArg, extensions);
        for (const auto& e : corpus.entries)
            texts.push_back({e.code, e.language});
    }
    const LoadOptions load = loadOptions(args);
    args.finish();
    if (limit > 0 && texts.size() > static_cast<std::size_t>(limit))
        texts.resize(static_cast<std::size_t>(limit));
    auto model = LanguageModel::load(resolveModelDir(modelArg), load);

    LayerRunOptions run;
    run.aggregation = aggregation;
    run.bootstrap = boot;
    run.fraction = fraction;
    if (!quiet) {
        run.skipped = [](std::size_t i, const std::string& why) {
            std::cerr << "\nanalyze layers: snippet " << i << " skipped: " << why << '\n';
        };
        run.progress = [](std::size_t done, std::size_t total) {
            if (done % 25 == 0 || done == total)
                std::cerr << "\ranalyze layers: " << done << "/" << total << " snippets" << std::flush;
        };
    }
    const auto t0 = std::chrono::steady_clock::now();
    const LayerMatrix m = layerMatrixOfTexts(*model, texts, run);
    const double lensSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int skipped = m.skipped;
    if (!quiet)
        std::cerr << "\ranalyze layers: " << m.snippets << " snippets (" << skipped << " skipped), " << m.layers
                  << " layers; lens " << fmt(lensSeconds, "%.1f") << " s\n";
    if (latex) {
        writeText(layerMatrixLatex(m), *latex);
        std::cerr << "analyze: wrote " << *latex << '\n';
    }
    // The category x layer heat map as a paper figure (figure room: width, font, legend; SVG and PDF).
    for (const auto& [file, asPdf] : {std::pair{svg, false}, std::pair{pdf, true}}) {
        if (!file)
            continue;
        const auto [rows, cols] = layerMatrixHeatmap(m);
        HeatmapFigureOptions o;
        o.title = "AsC-Eval by category and layer (" + m.model + ")";
        writeFigure(heatmapFigure(rows, cols, style, o), *file, asPdf);
        std::cerr << "analyze: wrote " << *file << '\n';
    }
    const json j = layerAnalysisJson(m, aggregation);
    if (asJson || !latex) {
        writeJson(j, out);
        return 0;
    }
    return 0;
}

} // namespace ascviz::cli
