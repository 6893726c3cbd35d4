// The analyses over earlier runs (analyze perplexed, heads --from, layers, treatments; method.md §10–§12),
// bound to core's functions directly: the same functions and JSON writers as the CLI's commands (attention:
// tallyHeadPartials and headReportJson; lens: layerTextsOfResults, layerMatrixOfTexts and layerAnalysisJson;
// galeras: analyzeTreatments and treatmentsToJson; analysis: analyzePerplexed and perplexedToJson), so the JSON is the
// CLI's for the same inputs.
#include "binding.h"

#include "ascviz/analysis/calls.h"
#include "ascviz/analysis/perplexed.h"
#include "ascviz/attention/headpartial.h"
#include "ascviz/attention/headreport.h"
#include "ascviz/base/error.h"
#include "ascviz/base/resources.h"
#include "ascviz/calibration/calibration.h"
#include "ascviz/eval/eval.h"
#include "ascviz/galeras/effects.h"
#include "ascviz/galeras/runsdb.h"
#include "ascviz/lens/matrix.h"
#include "ascviz/model/model.h"
#include "ascviz/results/resultsdb.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nb = nanobind;

namespace ascviz::python {

namespace {

// `analyze heads --from FILES --top-k K --min-count N --json`.
std::string headsFromPartials(const std::vector<std::string>& files, const std::vector<int>& topK, int minCount)
{
    if (topK.empty())
        throw InputError("top_k needs at least one value");
    for (int k : topK)
        if (k < 1 || k > 254)
            throw InputError("top_k takes whole numbers 1..254, not '" + std::to_string(k) + "'");
    if (minCount < 1)
        throw InputError("min_count must be >= 1");
    HeadPartialsTally tallied = tallyHeadPartials(files);
    const int maxK = *std::max_element(topK.begin(), topK.end());
    if (maxK > tallied.settings.maxK) // the CLI's words, which the Python layer's users know from its docs
        throw InputError("--top-k " + std::to_string(maxK) + " is more than the partial files kept (" +
                         std::to_string(tallied.settings.maxK) + ")");
    return headReportJson(headPartialsReport(tallied, topK, minCount)).dump();
}

// `analyze layers --db DB --json --quiet` (the database's model and θ unless given), the model loaded with the
// CLI's defaults.
std::string layersOfResults(const std::string& db, const std::optional<std::string>& model, int limit, double fraction,
                            std::optional<int> resamples, std::optional<uint64_t> seed,
                            const std::optional<std::string>& aggregation)
{
    if (!(fraction > 0 && fraction <= 1))
        throw InputError("fraction must be in (0, 1]");
    if (limit < 0 || (resamples && *resamples < 1))
        throw InputError("resamples must be >= 1 and limit >= 0");
    ResultsLayerTexts in = layerTextsOfResults(db);
    LayerRunOptions run;
    run.aggregation = aggregation ? parseAggregation(*aggregation) : in.aggregation;
    if (resamples)
        run.bootstrap.resamples = *resamples;
    if (seed)
        run.bootstrap.seed = *seed;
    run.fraction = fraction;
    if (limit > 0 && in.texts.size() > static_cast<std::size_t>(limit))
        in.texts.resize(static_cast<std::size_t>(limit));
    const auto m = LanguageModel::load(resolveModelDir(model.value_or(in.modelDir)), LoadOptions{});
    return layerAnalysisJson(layerMatrixOfTexts(*m, in.texts, run), run.aggregation).dump();
}

// `analyze treatments --db DB --outcome O [--confounders ...] [--simulations N] [--seed S] --json`.
std::string treatmentsOfRuns(const std::string& db, const std::string& outcome,
                             const std::optional<std::vector<std::string>>& confounders, std::optional<int> simulations,
                             std::optional<uint64_t> seed)
{
    TreatmentAnalysisOptions opts;
    opts.outcome = outcome;
    if (confounders) {
        if (confounders->empty())
            throw InputError("confounders needs one or more names");
        opts.confounders = *confounders;
    }
    if (simulations)
        opts.refute.simulations = *simulations;
    if (seed)
        opts.refute.seed = *seed;
    return treatmentsToJson(analyzeTreatments(GalerasDb::open(db), opts)).dump();
}

// `analyze perplexed --db DB --min-count K --top N [--corpus C] [--no-call-table] --json`.
std::string perplexedOfResults(const std::string& db, int minCount, int top, const std::optional<std::string>& corpus,
                               bool callTable)
{
    PerplexedOptions opts;
    opts.minCount = minCount;
    opts.top = top;
    if (opts.minCount < 1 || opts.top < 1)
        throw InputError("min_count and top must be >= 1");
    const ResultsDb rdb = ResultsDb::open(db);
    // The call table needs each snippet's repository and file: from `corpus`, else the run's.
    std::optional<CallRepository> repository;
    if (callTable) {
        std::string why;
        repository =
            callRepositoryOfRun(rdb, corpus ? std::optional<std::filesystem::path>(*corpus) : std::nullopt, &why);
        if (repository)
            opts.repository = &*repository;
        else
            std::cerr << "analyze: no call table: " << why << " (give corpus=FILE|DIR)\n";
    }
    return perplexedToJson(analyzePerplexed(rdb, opts)).dump();
}

// `analyze calibration --db R [--confidence C] [--by global|category|concept] [--bins N] [--resamples N] [--seed S]
// [--resample snippets|tokens] --json` (method.md §17).
std::string calibrationOfResults(const std::string& db, const std::string& confidence, const std::string& by, int bins,
                                 std::optional<int> resamples, std::optional<uint64_t> seed, bool resampleTokens)
{
    calibration::Options o;
    o.confidence = calibration::parseConfidence(confidence);
    o.by = calibration::parseBy(by);
    o.bins = bins;
    if (resamples)
        o.resamples = *resamples;
    if (seed)
        o.seed = *seed;
    o.resampleTokens = resampleTokens;
    return calibration::reportJson(calibration::analyze(ResultsDb::open(db), o)).dump();
}

} // namespace

void bindAnalyses(nb::module_& m)
{
    m.def(
        "analyze_calibration",
        [](const std::string& db, const std::string& confidence, const std::string& by, int bins,
           std::optional<int> resamples, std::optional<uint64_t> seed, bool resampleTokens) {
            nb::gil_scoped_release release;
            return calibrationOfResults(db, confidence, by, bins, resamples, seed, resampleTokens);
        },
        nb::arg("db"), nb::arg("confidence"), nb::arg("by"), nb::arg("bins"), nb::arg("resamples").none(),
        nb::arg("seed").none(), nb::arg("resample_tokens"));
    m.def(
        "analyze_heads",
        [](const std::vector<std::string>& files, const std::vector<int>& topK, int minCount) {
            nb::gil_scoped_release release;
            return headsFromPartials(files, topK, minCount);
        },
        nb::arg("files"), nb::arg("top_k"), nb::arg("min_count"));
    m.def(
        "analyze_layers",
        [](const std::string& db, const std::optional<std::string>& model, int limit, double fraction,
           std::optional<int> resamples, std::optional<uint64_t> seed, const std::optional<std::string>& aggregation) {
            nb::gil_scoped_release release;
            return layersOfResults(db, model, limit, fraction, resamples, seed, aggregation);
        },
        nb::arg("db"), nb::arg("model").none(), nb::arg("limit"), nb::arg("fraction"), nb::arg("resamples").none(),
        nb::arg("seed").none(), nb::arg("aggregation").none());
    m.def(
        "analyze_perplexed",
        [](const std::string& db, int minCount, int top, const std::optional<std::string>& corpus, bool callTable) {
            nb::gil_scoped_release release;
            return perplexedOfResults(db, minCount, top, corpus, callTable);
        },
        nb::arg("db"), nb::arg("min_count"), nb::arg("top"), nb::arg("corpus").none(), nb::arg("call_table"));
    m.def(
        "analyze_treatments",
        [](const std::string& db, const std::string& outcome,
           const std::optional<std::vector<std::string>>& confounders, std::optional<int> simulations,
           std::optional<uint64_t> seed) {
            nb::gil_scoped_release release;
            return treatmentsOfRuns(db, outcome, confounders, simulations, seed);
        },
        nb::arg("db"), nb::arg("outcome"), nb::arg("confounders").none(), nb::arg("simulations").none(),
        nb::arg("seed").none());
}

} // namespace ascviz::python
