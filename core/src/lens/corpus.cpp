// The layer matrix of a list of texts: the layer lens, AsC-Eval per layer and the pooling, one text at a time
// (shared by `ascviz-cli analyze layers` and the GUI's Layers tab).
#include "ascviz/base/error.h"
#include "ascviz/eval/evaluate.h"
#include "ascviz/lens/matrix.h"
#include "ascviz/model/lens.h"
#include "ascviz/results/resultsdb.h"

#include <map>

namespace ascviz {

LayerMatrix layerMatrixOfTexts(const LanguageModel& model, const std::vector<LayerText>& texts,
                               const LayerRunOptions& opts)
{
    std::map<std::string, CategoryMap> tables;
    auto tableOf = [&](const std::string& language) -> const CategoryMap& {
        auto it = tables.find(language);
        if (it == tables.end())
            it = tables.emplace(language, CategoryMap::forLanguage(language)).first;
        return it->second;
    };
    LayerMatrixBuilder builder(model.info().name, model.info().layers,
                               texts.empty() ? std::vector<std::string>{}
                                             : tableOf(texts.front().language).categories());
    int skipped = 0;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        if (opts.cancel && opts.cancel->load())
            throw Cancelled();
        const auto& t = texts[i];
        try {
            EvalRequest req;
            req.language = t.language;
            req.aggregation = opts.aggregation;
            req.categories = &tableOf(t.language);
            req.maxTextBytes = 0; // as before the entry point: the texts' trees are bounded, their size is not
            LayerLens lens;
            const EvalResult r = evaluateText(t.code, req, [&](const std::string& code, const SyntaxTree&) {
                lens = scoreLayers(model, code);
                return lens.scored;
            });
            builder.add(r, evaluateLayers(r, lens.ntp, lens.layers, lens.commit));
        } catch (const InputError& e) {
            ++skipped;
            if (opts.skipped)
                opts.skipped(i, e.what());
        }
        if (opts.progress)
            opts.progress(i + 1, texts.size());
    }
    if (builder.snippets() == 0)
        throw InputError("the layer matrix has no text: all " + std::to_string(texts.size()) +
                         " were left out (past the AST limits)");
    LayerMatrix m = builder.finish(opts.bootstrap, opts.fraction);
    m.skipped = skipped;
    return m;
}

ResultsLayerTexts layerTextsOfResults(const std::filesystem::path& dbPath)
{
    const ResultsDb db = ResultsDb::open(dbPath);
    const RunInfo run = db.runInfo();
    ResultsLayerTexts out;
    out.modelDir = run.modelDir;
    out.aggregation = run.aggregation;
    for (const auto& row : db.snippets())
        if (row.ok)
            out.texts.push_back({db.snippetCode(row.index), row.language.empty() ? run.language : row.language});
    return out;
}

nlohmann::json layerAnalysisJson(const LayerMatrix& m, Aggregation aggregation)
{
    nlohmann::json j = layerMatrixJson(m);
    j["skipped"] = m.skipped;
    j["aggregation"] = toString(aggregation);
    return j;
}

} // namespace ascviz
