// batch over a corpus into a results database (the CLI's runner, resumable, cancelled by KeyboardInterrupt),
// and the readers of results databases: the report and the analyses, as the CLI's JSON.
#include "binding.h"

#include "ascviz/analysis/causal.h"
#include "ascviz/base/error.h"
#include "ascviz/batch/batch.h"
#include "ascviz/eval/eval.h"
#include "ascviz/results/corpus.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/stats.h"
#include "ascviz/results/straddles.h"

#include <nanobind/stl/string.h>

#include <atomic>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace ascviz::python {

namespace {

nlohmann::json progressJson(const BatchProgress& p)
{
    return {{"done", p.done},
            {"total", p.total},
            {"resumed", p.resumed},
            {"errors", p.errors},
            {"tokens", p.tokens},
            {"elapsed", p.elapsed},
            {"snippets_per_second", p.snippetsPerSecond},
            {"tokens_per_second", p.tokensPerSecond},
            {"eta_seconds", p.etaSeconds},
            {"current_id", p.currentId}};
}

nlohmann::json summaryJson(const BatchSummary& s)
{
    return {{"db", s.db.string()},      {"total", s.total},       {"stored", s.stored}, {"resumed", s.resumed},
            {"errors", s.errors},       {"windowed", s.windowed}, {"tokens", s.tokens}, {"seconds", s.seconds},
            {"cancelled", s.cancelled}, {"complete", s.complete}};
}

struct BatchArgs {
    std::string corpus;
    std::string db;
    bool resume = false;
    int limit = 0;
    int batchSize = 1;
    std::string aggregation;
    std::string language;
    std::string extensions;
};

// Runs the batch with the GIL released; `progress` (a Python callable taking the progress as a JSON string)
// is called with the GIL held after each stored snippet. KeyboardInterrupt (Ctrl-C, or raised by `progress`)
// cancels after the current snippet: the database stays consistent and resumable, and the exception is raised
// again once the runner has returned. Any other exception of `progress` cancels likewise and is raised again.
std::string runBatchFromPython(nb::handle model, const BatchArgs& a, nb::object progress)
{
    std::string modelDir;
    const std::shared_ptr<const LanguageModel> m = sharedModel(model, &modelDir);
    if (a.limit < 0)
        throw InputError("limit must be >= 0 (0 = all), got " + std::to_string(a.limit));
    if (a.batchSize < 1)
        throw InputError("batch_size must be >= 1, got " + std::to_string(a.batchSize));
    std::atomic<bool> cancel{false};
    std::optional<nb::python_error> raised;
    BatchOptions opts;
    opts.aggregation = parseAggregation(a.aggregation);
    opts.language = a.language;
    opts.limit = a.limit;
    opts.resume = a.resume;
    opts.batchSize = a.batchSize;
    opts.cancel = &cancel;
    opts.modelDir = modelDir;
    opts.progress = [&](const BatchProgress& p) {
        nb::gil_scoped_acquire acquire;
        if (raised)
            return;
        try {
            if (PyErr_CheckSignals() != 0)
                throw nb::python_error();
            if (progress.is_valid() && !progress.is_none())
                progress(progressJson(p).dump());
        } catch (nb::python_error& e) {
            raised.emplace(std::move(e));
            cancel = true;
        }
    };
    BatchSummary summary;
    {
        nb::gil_scoped_release release;
        std::error_code ec;
        if (!a.resume && std::filesystem::exists(a.db, ec))
            throw InputError("results database " + a.db +
                             " already exists; pass resume=True to continue it, or choose another db");
        std::vector<std::string> extensions;
        std::stringstream list(a.extensions);
        for (std::string e; std::getline(list, e, ',');)
            extensions.push_back(e);
        const Corpus corpus = readNamedCorpus(a.corpus, a.language, extensions);
        std::cerr << corpusReadReport(corpus); // as the CLI reports it

        summary = runBatch(*m, corpus, a.db, opts);
    }
    if (raised)
        throw std::move(*raised);
    return summaryJson(summary).dump();
}

} // namespace

void bindCorpus(nb::module_& m)
{
    m.def(
        "batch",
        [](nb::handle model, const std::string& corpus, const std::string& db, bool resume, int limit, int batchSize,
           const std::string& aggregation, const std::string& language, const std::string& extensions,
           nb::object progress) {
            return runBatchFromPython(
                model, BatchArgs{corpus, db, resume, limit, batchSize, aggregation, language, extensions},
                std::move(progress));
        },
        nb::arg("model"), nb::arg("corpus"), nb::arg("db"), nb::arg("resume"), nb::arg("limit"), nb::arg("batch_size"),
        nb::arg("aggregation"), nb::arg("language"), nb::arg("extensions"), nb::arg("progress").none());
    m.def(
        "report_json",
        [](const std::string& db, int resamples, uint64_t seed, int minN) {
            nb::gil_scoped_release release;
            BootstrapOptions bo;
            bo.resamples = resamples;
            bo.seed = seed;
            const ResultsDb results = ResultsDb::open(db);
            CorpusStats s = computeStats(results, bo);
            s.minN = minN;
            return reportJson(results, s).dump(); // report --json's document, straddles included
        },
        nb::arg("db"), nb::arg("resamples"), nb::arg("seed"), nb::arg("min_n"));
    m.def(
        "causal_json",
        [](const std::string& db, const std::string& by, uint64_t seed, int minSnippets) {
            nb::gil_scoped_release release;
            CausalOptions opts;
            opts.seed = seed;
            opts.minSnippets = minSnippets;
            return causalToJson(analyzeCausal(ResultsDb::open(db), parseCausalBy(by), opts)).dump();
        },
        nb::arg("db"), nb::arg("by"), nb::arg("seed"), nb::arg("min_snippets"));
    m.def(
        "check_results",
        [](const std::string& db) {
            nb::gil_scoped_release release;
            (void)ResultsDb::open(db);
        },
        nb::arg("db"));
    m.def("default_causal_seed", [] { return CausalOptions{}.seed; });
    m.def("default_report_seed", [] { return BootstrapOptions{}.seed; });
}

} // namespace ascviz::python
