// export-html (docs/share.md, issue 46): one self-contained interactive HTML page of an evaluated snippet (from a
// model, a scores file or a session file) or of a run (a results database). The evaluation is eval's
// (evaldoc.h); the page is the share room's.
#include "commands.h"
#include "common.h"
#include "evaldoc.h"

#include "ascviz/attribution/attribution.h"
#include "ascviz/base/error.h"
#include "ascviz/base/version.h"
#include "ascviz/eval/eval.h"
#include "ascviz/eval/evaljson.h"
#include "ascviz/eval/evaluate.h"
#include "ascviz/model/fingerprint.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/session.h"
#include "ascviz/results/stats.h"
#include "ascviz/share/share.h"
#include "ascviz/syntax/language.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

namespace ascviz::cli {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A run page holds every snippet's views; past this many the page is slow to open (docs/share.md).
constexpr std::size_t kMaxRunSnippets = 1000;

// Fails before any model runs when the page cannot be written there.
void checkOutputFolder(const std::string& out)
{
    std::error_code ec;
    const auto dir = fs::absolute(out, ec).parent_path();
    if (!fs::is_directory(dir, ec))
        throw InputError("cannot write " + out + ": the folder " + dir.string() + " does not exist");
}

void reportWritten(const std::string& out, const std::string& what)
{
    std::error_code ec;
    const auto size = fs::file_size(out, ec);
    std::cerr << "export-html: wrote " << out << " (" << what << ", " << (ec ? 0 : size) << " bytes)\n";
}

// A session file (results/session.h) evaluated as the GUI shows it: its language, category table and θ (unless
// --aggregation), the tokens' top-k alternatives as "top".
json sessionDocument(const std::string& file, const std::optional<std::string>& aggregation, bool fullPaths)
{
    const SessionData s = readSessionFile(file);
    const std::string language = s.language.empty() ? LanguageRegistry::instance().defaultLanguage().id : s.language;
    EvalRequest req;
    req.language = language;
    std::optional<CategoryMap> categories;
    if (!s.categoryTable.empty())
        req.categories =
            &categories.emplace(CategoryMap::fromJson(s.categoryTable, file + " (its category table)", language));
    req.aggregation = s.aggregation;
    if (aggregation) {
        try {
            req.aggregation = parseAggregation(*aggregation);
        } catch (const InputError&) {
            throw UsageError("--aggregation must be median, mean, max or min");
        }
    }
    const EvalResult r = evaluateScores(s.scored, req);
    warnSyntaxProblems(r.tree, file);
    json j = evalDocumentJson(r, language, s.modelDtype);
    auto& tokens = j.at("tokens");
    for (std::size_t i = 0; i < tokens.size() && i < s.scored.tokens.size(); ++i) {
        const auto& top = s.scored.tokens[i].top;
        if (top.empty())
            continue;
        json alts = json::array();
        for (const auto& alt : top)
            alts.push_back({{"id", alt.id}, {"text", alt.text}, {"prob", alt.prob}});
        tokens[i]["top"] = std::move(alts);
    }
    j["text"] = s.scored.text;
    j["share"] = shareSourceJson(s.modelFingerprint, sharedPathName(file, fullPaths));
    return j;
}

// export-html --db R: the run's report and every snippet's eval document (evaluated again from the stored
// tokens, as `eval --scores` would: no model).
int exportRun(Args& args, const std::string& dbPath, const std::string& out, bool fullPaths)
{
    const int limit = args.intValue("--limit", 0);
    args.finish();
    if (limit < 0)
        throw UsageError("--limit must be >= 0 (0 = every snippet)");
    checkOutputFolder(out);
    const auto db = ResultsDb::open(dbPath);
    const CorpusStats stats = computeStats(db);
    const RunInfo run = db.runInfo();
    std::vector<SnippetRow> rows = db.snippets();
    if (limit == 0 && rows.size() > kMaxRunSnippets)
        throw InputError(dbPath + " holds " + std::to_string(rows.size()) + " snippets; a run page shows at most " +
                         std::to_string(kMaxRunSnippets) +
                         " (each with its own views): give --limit N for the first N snippets");
    std::string note;
    if (limit > 0 && rows.size() > static_cast<std::size_t>(limit)) {
        note = "This page shows the first " + std::to_string(limit) + " of the run's " + std::to_string(rows.size()) +
               " snippets (--limit); the categories table and chart cover the whole run.";
        rows.resize(static_cast<std::size_t>(limit));
    }
    std::map<int64_t, std::vector<ScoredToken>> tokens;
    db.forEachOkToken([&](const TokenRow& t) {
        ScoredToken s;
        s.id = static_cast<int32_t>(t.id);
        s.start = t.start;
        s.end = t.end;
        s.ntp = t.ntp;
        s.generated = t.generated;
        tokens[t.snippet].push_back(std::move(s));
    });
    std::map<std::string, CategoryMap> tables;
    json snippets = json::array();
    for (const auto& row : rows) {
        const std::string language = row.language.empty() ? run.language : row.language;
        json e = nullptr;
        if (row.ok) {
            ScoredText st;
            st.text = db.snippetCode(row.index);
            st.model = run.modelName;
            st.tokens = std::move(tokens[row.index]);
            st.promptBytes = std::min(row.promptBytes, st.text.size());
            st.promptTokens = static_cast<std::size_t>(
                std::count_if(st.tokens.begin(), st.tokens.end(), [](const ScoredToken& t) { return !t.generated; }));
            if (!tables.count(language))
                tables.emplace(language, CategoryMap::forLanguage(language));
            EvalRequest req;
            req.language = language;
            req.aggregation = run.aggregation;
            req.categories = &tables.at(language);
            const EvalResult r = evaluateScores(std::move(st), req);
            e = evalDocumentJson(r, language, run.dtype);
            e["text"] = r.scored.text;
            e["share"] = shareSourceJson("", sharedPathName(dbPath, fullPaths) + " snippet " + row.id);
        }
        snippets.push_back({{"index", row.index},
                            {"id", row.id},
                            {"location", row.location},
                            {"language", language},
                            {"status", row.ok ? "ok" : "error"},
                            {"message", row.message},
                            {"asc_eval", row.ascEval ? json(*row.ascEval) : json(nullptr)},
                            {"cross_entropy", row.crossEntropy ? json(*row.crossEntropy) : json(nullptr)},
                            {"tokens", row.tokens},
                            {"ast_nodes", row.astNodes},
                            {"eval", std::move(e)}});
    }
    json doc = {{"kind", "run"},
                {"run",
                 {{"model", run.modelName},
                  {"model_dir", sharedPathName(run.modelDir, fullPaths)},
                  {"dtype", run.dtype},
                  {"aggregation", toString(run.aggregation)},
                  {"language", run.language},
                  {"corpus", sharedPathName(run.corpusPath, fullPaths)},
                  {"corpus_fingerprint", run.corpusFingerprint},
                  {"status", toString(run.status)},
                  {"created", run.created},
                  {"version", run.version},
                  {"ascviz_version", ascvizVersion()}}},
                {"report", statsToJson(stats)},
                {"snippets", std::move(snippets)}};
    if (!note.empty())
        doc["note"] = note;
    writeShareHtml(out, doc, SharePage::Run, "AsC-Viz run: " + run.modelName);
    reportWritten(out, std::to_string(rows.size()) + " snippets");
    return 0;
}

} // namespace

int cmdExportHtml(Args& args)
{
    const std::string out = args.require("--out");
    // A shared page names the files it came from by their names only, unless --full-paths (issue 54).
    const bool fullPaths = args.flag("--full-paths");
    if (const auto db = args.value("--db"))
        return exportRun(args, *db, out, fullPaths);
    if (args.value("--limit"))
        throw UsageError("--limit is for a run page (--db R)");
    const auto session = args.value("--session");
    const auto attributionArg = args.value("--attribution");
    std::optional<AttributionTargetSpec> target;
    if (attributionArg) {
        target = usageOf("--attribution", [&] { return parseAttributionTarget(*attributionArg); });
    }
    json doc;
    std::string title;
    if (session) {
        const auto aggregation = args.value("--aggregation");
        const bool heads = args.flag("--heads");
        args.finish();
        if (attributionArg)
            throw UsageError("--attribution runs the model: give --model and --text-file, not --session");
        if (heads)
            throw UsageError("--heads records the attention of a model: give --model and --text-file, not --session");
        checkOutputFolder(out);
        doc = sessionDocument(*session, aggregation, fullPaths);
        title = "AsC-Viz: " + fs::path(*session).filename().string();
    } else {
        checkOutputFolder(out);
        EvalDocument d = evalDocument(args);
        doc = std::move(d.json);
        doc["text"] = d.text;
        doc["share"] = shareSourceJson(d.modelDir ? modelFingerprint(*d.modelDir) : std::string(),
                                       sharedPathName(d.source, fullPaths));
        title = "AsC-Viz: " + fs::path(d.source).filename().string();
        if (target) {
            if (!d.modelDir)
                throw UsageError("--attribution runs the model: give --model, not --scores");
            if (!d.promptBytes)
                throw UsageError("--attribution needs --prompt-bytes N: the prompt whose nodes are attributed");
            const auto model = LanguageModel::load(*d.modelDir, d.load);
            const CategoryMap categories = CategoryMap::forLanguage(d.language);
            const AttributionResult r =
                attribute(*model, d.text, *d.promptBytes, d.language, *target, AttributionOptions{}, &categories);
            doc["attribution"] = attributionJson(r);
        }
    }
    writeShareHtml(out, doc, SharePage::Snippet, title);
    reportWritten(out, std::to_string(doc.at("tokens").size()) + " tokens, " + std::to_string(doc.at("nodes").size()) +
                           " AST nodes");
    return 0;
}

} // namespace ascviz::cli
