// analyze experts (docs/cli.md; method.md §15): which experts a mixture-of-experts model routes the tokens of each
// syntax category to, over a corpus.
#include "commands.h"
#include "common.h"
#include "output.h"

#include "ascviz/base/error.h"
#include "ascviz/base/limits.h"
#include "ascviz/base/resources.h"
#include "ascviz/eval/eval.h"
#include "ascviz/eval/evaluate.h"
#include "ascviz/experts/experts.h"
#include "ascviz/results/corpus.h"
#include "ascviz/results/resultsdb.h"

#include <iomanip>
#include <iostream>
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
    const std::size_t maxTextBytes = maxTextBytesOption(args);
    const int maxAstDepth = maxAstDepthOption(args);
    const std::size_t maxAstNodes = maxAstNodesOption(args);
    if (limit < 0)
        throw UsageError("--limit must be >= 0 (0 = all)");

    struct Text {
        std::string code, language, location;
    };
    std::vector<Text> texts;
    std::string modelArg, source;
    if (dbArg) {
        // The database's snippets (those scored), with its run's model unless --model names another.
        const ResultsDb db = ResultsDb::open(*dbArg);
        const RunInfo run = db.runInfo();
        modelArg = args.valueOr("--model", run.modelDir);
        for (const auto& row : db.snippets())
            if (row.ok)
                texts.push_back({db.snippetCode(row.index), row.language.empty() ? run.language : row.language,
                                 *dbArg + ": snippet " + std::to_string(row.index)});
        source = *dbArg;
    } else {
        modelArg = args.valueOr("--model", "default");
        const Corpus corpus = readCorpusOption(*corpusArg, language, "");
        for (const auto& e : corpus.entries)
            texts.push_back({e.code, e.language, e.location});
        source = corpus.source.string();
    }
    const LoadOptions lo = loadOptions(args);
    args.finish();
    if (limit > 0 && texts.size() > static_cast<std::size_t>(limit))
        texts.resize(static_cast<std::size_t>(limit));

    const auto model = LanguageModel::load(resolveModelDir(modelArg), lo);
    const ModelInfo& info = model->info();
    if (info.experts <= 0)
        throw ModelError("the model " + info.name + " (" + info.architecture +
                             ") is dense: it has no mixture-of-experts layers whose routing could be analysed",
                         ErrorContext(info.dir.string()));
    ExpertTally tally(info.layers, info.experts, info.expertsPerToken);
    int done = 0, skipped = 0;
    for (const Text& e : texts) {
        if (maxTextBytes && e.code.size() > maxTextBytes) {
            std::cerr << "analyze experts: " << e.location << ": " << e.code.size() << " bytes, over "
                      << limits::kMaxTextBytesOption << ' ' << maxTextBytes << ": left out\n";
            ++skipped;
            continue;
        }
        EvalRequest req;
        req.language = e.language;
        req.maxTextBytes = maxTextBytes;
        req.maxAstDepth = maxAstDepth;
        req.maxAstNodes = maxAstNodes;
        req.source = e.location;
        std::vector<TokenExperts> routed;
        const EvalResult r = evaluateText(e.code, req, [&](const std::string& code, const SyntaxTree&) {
            ScoredExperts se = scoreExperts(*model, code);
            routed = std::move(se.tokens);
            return std::move(se.scored);
        });
        tally.add(r, routed);
        if (++done % 50 == 0)
            std::cerr << "analyze experts: " << done << " snippets\n";
    }
    if (done == 0)
        throw InputError("no snippet of " + source + " could be analysed (" + std::to_string(skipped) +
                         " over the size limit)");
    const ExpertReport report = tally.report();
    if (asJson) {
        nlohmann::json j = expertReportJson(report);
        j["model"] = info.name;
        j["tokens"] = tally.tokens();
        j["snippets"] = done;
        writeJson(j, out);
    } else {
        writeText(reportText(report, info.name, tally.tokens()), out);
    }
    return 0;
}

} // namespace ascviz::cli
