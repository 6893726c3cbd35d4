// Experts by syntax (issue 42; method.md §15) from Python: analyze experts over a corpus or a results database's
// snippets with a loaded mixture-of-experts model, through core's analyzeExperts and expertRunJson (the document
// `ascviz-cli analyze experts --json` prints), not through the CLI's argument parsing.
#include "binding.h"

#include "ascviz/base/error.h"
#include "ascviz/base/resources.h"
#include "ascviz/experts/experts.h"
#include "ascviz/results/corpus.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/syntax/language.h"

#include <nanobind/stl/string.h>

#include <filesystem>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace ascviz::python {
namespace {

// The texts of `analyze experts`: a database's status-ok snippets (in the language of each, else the run's) or a
// corpus's entries (core's readCorpus; "default": the language's bundled sample corpus, as the CLI's --corpus), the
// first `limit` of them (0 = all).
std::vector<ExpertText> expertTexts(const std::string& db, const std::string& corpus, const std::string& language,
                                    int limit)
{
    if (db.empty() == corpus.empty())
        throw InputError("experts needs exactly one of a results database (db) and a corpus");
    if (limit < 0)
        throw InputError("limit must be >= 0 (0 = all), got " + std::to_string(limit));
    std::vector<ExpertText> texts;
    if (!db.empty()) {
        const ResultsDb r = ResultsDb::open(db);
        const RunInfo run = r.runInfo();
        for (const auto& row : r.snippets())
            if (row.ok)
                texts.push_back({r.snippetCode(row.index), row.language.empty() ? run.language : row.language,
                                 db + ": snippet " + std::to_string(row.index)});
    } else {
        CorpusReadOptions ro;
        ro.language = language;
        const auto& reg = LanguageRegistry::instance();
        const LanguageInfo& sampleOf = language.empty() ? reg.defaultLanguage() : reg.get(language);
        const std::filesystem::path path = corpus != "default"             ? std::filesystem::path(corpus)
                                           : sampleOf.sampleCorpus.empty() ? sampleCorpus()
                                                                           : sampleOf.sampleCorpus;
        for (const auto& e : readCorpus(path, ro).entries)
            texts.push_back({e.code, e.language, e.location});
    }
    if (limit > 0 && texts.size() > static_cast<std::size_t>(limit))
        texts.resize(static_cast<std::size_t>(limit));
    return texts;
}

} // namespace

void bindExperts(nb::module_& m)
{
    m.def(
        "analyze_experts",
        [](nb::handle model, const std::string& db, const std::string& corpus, const std::string& language, int limit,
           std::size_t maxTextBytes, int maxAstDepth, std::size_t maxAstNodes) {
            const auto lm = sharedModel(model, nullptr);
            nb::gil_scoped_release release;
            ExpertRunOptions o;
            o.maxTextBytes = maxTextBytes;
            o.maxAstDepth = maxAstDepth;
            o.maxAstNodes = maxAstNodes;
            return expertRunJson(analyzeExperts(*lm, expertTexts(db, corpus, language, limit), o)).dump();
        },
        nb::arg("model"), nb::arg("db"), nb::arg("corpus"), nb::arg("language"), nb::arg("limit"),
        nb::arg("max_text_bytes"), nb::arg("max_ast_depth"), nb::arg("max_ast_nodes"),
        "analyze experts' JSON document (core expertRunJson) for a Model over a db's or a corpus's texts.");
}

} // namespace ascviz::python
