// Galeras generation runs (run.h).
#include "ascviz/galerasrun/run.h"

#include "ascviz/base/error.h"
#include "ascviz/base/limits.h"
#include "ascviz/eval/eval.h"
#include "ascviz/eval/evaluate.h"
#include "ascviz/galeras/codebleu.h"
#include "ascviz/galeras/outcomes.h"
#include "ascviz/syntax/language.h"
#include "ascviz/syntax/syntax.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

namespace ascviz {
namespace {

std::map<std::string, std::string> runMeta(const LanguageModel& model, const RecordSet& records,
                                           const TreatmentSet& treatments, const GalerasRunOptions& o)
{
    const auto& g = o.generation;
    return {
        {"model", model.info().name},
        {"model_fingerprint", model.info().fingerprint},
        {"records", records.fingerprint()},
        {"treatments", treatments.fingerprint()},
        {"control", treatments.control.name},
        {"testbed", toString(o.testbed)},
        {"seed", std::to_string(o.seed)},
        {"max_new_tokens", std::to_string(g.maxNewTokens)},
        {"decoding", g.greedy ? std::string("greedy")
                              : "sampling temperature=" + std::to_string(g.temperature) +
                                    " top_p=" + std::to_string(g.topP) + " top_k=" + std::to_string(g.topK) +
                                    " seed=" + std::to_string(g.seed)},
        {"stop_at_function_end", o.stopAtFunctionEnd ? "1" : "0"},
        {"shard", o.shard.toString()},
        {"limit", std::to_string(o.limit)},
    };
}

std::optional<double> completionAscEval(const ScoredText& scored, std::size_t from, const std::string& language,
                                        int maxAstDepth, std::size_t maxAstNodes)
{
    EvalRequest req;
    req.language = language;
    req.maxAstDepth = maxAstDepth;
    req.maxAstNodes = maxAstNodes;
    const EvalResult r = evaluateScores(scored, req);
    double sum = 0;
    int n = 0;
    const auto& nodes = r.tree.nodes();
    for (std::size_t k = 0; k < nodes.size(); ++k)
        if (nodes[k].start >= from && r.nodes[k].value) {
            sum += *r.nodes[k].value;
            ++n;
        }
    if (n == 0)
        return std::nullopt;
    return sum / n;
}

} // namespace

std::map<std::string, std::optional<double>> galerasValues(const TestbedItem& item, const std::string& completion,
                                                           const ScoredText* scored, int maxAstDepth,
                                                           std::size_t maxAstNodes)
{
    std::map<std::string, std::optional<double>> v;
    const std::string& lang = item.language;
    const std::string cand = item.partial + completion, ref = item.partial + item.groundTruth;
    v["levenshtein"] = levenshteinSimilarity(completion, item.groundTruth);
    v["bleu4"] =
        bleu4(lexicalTokensFrom(cand, item.partial.size(), lang), lexicalTokensFrom(ref, item.partial.size(), lang));
    v["exact_match"] = exactMatch(completion, item.groundTruth);
    v["ast_match"] = astMatch(item.partial, completion, item.groundTruth, lang);
    // CodeBLEU of the completion against the ground truth, as the codebleu package (galeras/codebleu.h)
    v["codebleu"] = std::nullopt;
    if (codeBleuSupports(lang)) {
        const auto& kw = LanguageRegistry::instance().get(lang).codebleuKeywords;
        v["codebleu"] =
            codeBleu(completion, item.groundTruth, lang, std::set<std::string>(kw.begin(), kw.end())).codebleu;
    }
    v["asc_eval"] =
        scored ? completionAscEval(*scored, item.partial.size(), lang, maxAstDepth, maxAstNodes) : std::nullopt;
    // confounders of the partial code (prompt_size: the runner's, in model tokens)
    double ws = 0;
    for (char c : item.partial)
        ws += (c == ' ' || c == '\t' || c == '\n' || c == '\r') ? 1 : 0;
    v["n_whitespaces"] = ws;
    v["token_count"] = double(lexicalTokensFrom(item.partial, 0, lang).size());
    double nloc = 0;
    std::size_t b = 0;
    while (b < item.partial.size()) {
        const auto nl = item.partial.find('\n', b);
        const std::size_t e = nl == std::string::npos ? item.partial.size() : nl;
        if (item.partial.find_first_not_of(" \t\r", b) < e)
            ++nloc;
        b = e + 1;
    }
    v["nloc"] = nloc;
    const SyntaxTree tree = SyntaxTree::parse(lang, item.partial, maxAstNodes);
    v["ast_nodes"] = double(tree.nodes().size());
    v["ast_levels"] = double(tree.levels());
    v["cyclomatic"] = double(cyclomaticComplexity(tree));
    return v;
}

namespace {

GalerasRunSummary runGalerasWith(const LanguageModel& model, const RecordSet& records, const TreatmentSet& treatments,
                                 const std::filesystem::path& dbPath, const GalerasRunOptions& o,
                                 const std::function<void(const GalerasProgress&)>& progress,
                                 const RunControls& controls)
{
    checkShard(o.shard);
    for (const auto& t : treatments.all())
        limits::checkTextSize(t.tmpl.size(), o.maxTextBytes, "the template of treatment " + t.name);
    const auto meta = runMeta(model, records, treatments, o);
    const bool exists = std::filesystem::exists(dbPath);
    if (exists && !o.resume) {
        ErrorContext where(dbPath.string());
        where.remedy = Remedy::Resume | Remedy::NewOutput;
        throw InputError("Galeras runs database " + dbPath.string() + " exists", where);
    }
    // One writer per runs database (corpusrun's RunLock, as batch and heads): a second `--resume` on a database
    // another process writes is refused at once, not after generating a row (issue 54: a UNIQUE-constraint error).
    std::optional<RunLock> lock; // before the database: released after its connection closed
    std::optional<GalerasDb> db;
    if (exists) {
        lock.emplace(dbPath, "Galeras run");
        db = GalerasDb::open(dbPath, true);
        const auto have = db->meta();
        for (const auto& [k, v] : meta) {
            const auto it = have.find(k);
            if (k != "model_fingerprint" && (it == have.end() || it->second != v)) {
                ErrorContext where(dbPath.string());
                where.remedy = Remedy::NewOutput;
                throw InputError(dbPath.string() + " was made with another " + k + " ('" +
                                     (it == have.end() ? std::string() : it->second) + "', now '" + v +
                                     "'): a run continues with the same settings only",
                                 where);
            }
        }
    }
    // The testbed before a new database: a testbed that fails leaves no database behind.
    const TestbedSet testbed = buildTestbed(records, o.testbed, o.seed, {o.maxTextBytes, o.maxAstNodes});
    GalerasRunSummary sum;
    sum.skipped = testbed.skipped;
    sum.overLimit = testbed.overLimit;
    const RunSlice slice = planSlice(static_cast<int>(testbed.items.size()), static_cast<int>(o.limit), o.shard);
    std::vector<const TestbedItem*> items;
    for (int k : slice.mine)
        items.push_back(&testbed.items[static_cast<std::size_t>(k)]);
    const auto all = treatments.all();
    const int perItem = static_cast<int>(all.size());
    sum.items = static_cast<int>(items.size());
    sum.planned = sum.items * perItem;
    if (!exists) {
        auto withPlanned = meta;
        withPlanned["planned"] = std::to_string(sum.planned);
        db = GalerasDb::create(dbPath, withPlanned, testbed.skippedRecords); // atomic: all of it or no file
        lock.emplace(dbPath, "Galeras run");
    } else {
        // every time, not only when the database is new: a run killed before it stored them (an older build)
        // ends with the same skipped set as one never interrupted
        db->insertSkipped(testbed.skippedRecords);
        db->setMeta("planned", std::to_string(sum.planned));
    }
    std::set<std::pair<std::string, std::string>> done;
    for (const auto& k : db->doneKeys())
        done.insert(k);
    // The engine's items: row p is testbed item p / T of this shard under treatment p mod T.
    std::vector<int> rows(static_cast<std::size_t>(sum.planned));
    for (int p = 0; p < sum.planned; ++p)
        rows[static_cast<std::size_t>(p)] = p;
    const auto itemOf = [&](int p) { return items[static_cast<std::size_t>(p / perItem)]; };
    const RunQueue queue = pendingItems(rows, [&](int p) {
        return done.count({itemOf(p)->recordId, all[static_cast<std::size_t>(p % perItem)].name}) > 0;
    });
    ProgressClock clock(controls, queue.total, queue.resumed);
    GalerasProgress pr;
    pr.planned = sum.planned;
    pr.finished = queue.resumed;
    const RunTally tally = runItems(clock, queue, [&](int p) -> std::optional<ItemOutcome> {
        const TestbedItem* item = itemOf(p);
        const std::size_t t = static_cast<std::size_t>(p % perItem);
        GalerasRow row;
        row.recordId = item->recordId;
        row.treatment = all[t].name;
        row.isControl = t == 0;
        row.prompt = renderPrompt(all[t].tmpl, *item);
        row.partial = item->partial;
        row.groundTruth = item->groundTruth;
        if (item->record)
            row.recordConfounders = item->record->confounders;
        try {
            // a prompt over the limit (a long template around a long partial) is an error row, not hours
            limits::checkTextSize(row.prompt.size(), o.maxTextBytes, "the prompt");
            GenerationOptions g;
            static_cast<GenerationSettings&>(g) = o.generation;
            g.topAlternatives = 0;
            CancelFlag stopNow{false};
            bool functionEnded = false;
            std::string completion;
            const auto onToken = [&](const StreamedToken& tok) {
                completion += tok.piece;
                if (controls.cancelRequested())
                    stopNow = true;
                if (o.stopAtFunctionEnd && tok.piece.find('\n') != std::string::npos &&
                    functionEnd(item->partial + completion, item->language)) {
                    functionEnded = true;
                    stopNow = true;
                }
            };
            const ScoredText s = model.generate(row.prompt, g, onToken, &stopNow);
            if (controls.cancelRequested())
                return std::nullopt; // this row is not stored: a resume generates it again
            row.completion = s.text.substr(std::min(s.promptBytes, s.text.size()));
            row.stop = functionEnded ? "function_end" : stopReasonName(s.stop);
            if (o.stopAtFunctionEnd)
                if (const auto end = functionEnd(item->partial + row.completion, item->language);
                    end && *end >= item->partial.size()) {
                    row.completion.resize(*end - item->partial.size());
                    row.stop = "function_end";
                }
            row.generatedTokens = static_cast<int>(s.tokens.size() - s.promptTokens);
            const ScoredText scored = model.score(item->partial + row.completion);
            row.values = galerasValues(*item, row.completion, &scored, o.maxAstDepth, o.maxAstNodes);
            row.values["prompt_size"] = double(s.promptTokens);
        } catch (const std::exception& e) {
            row.stop = "error";
            row.error = e.what();
        }
        db->insert(row); // one transaction: a kill keeps every finished row and none twice
        ++sum.stops[row.stop];
        ++pr.finished;
        if (progress) {
            pr.recordId = row.recordId;
            pr.treatment = row.treatment;
            pr.stop = row.stop;
            progress(pr);
        }
        ItemOutcome out;
        out.id = row.recordId + " " + row.treatment;
        out.ok = row.error.empty();
        out.tokens = row.generatedTokens;
        return out;
    });
    sum.done = tally.stored;
    sum.resumed = tally.resumed;
    sum.errors = tally.errors;
    sum.cancelled = tally.cancelled;
    return sum;
}

} // namespace

GalerasRunSummary runGaleras(const LanguageModel& model, const RecordSet& records, const TreatmentSet& treatments,
                             const std::filesystem::path& dbPath, const GalerasRunOptions& o,
                             const std::function<void(const GalerasProgress&)>& progress, const CancelFlag* cancel)
{
    RunControls controls;
    controls.cancel = cancel;
    return runGalerasWith(model, records, treatments, dbPath, o, progress, controls);
}

GalerasRunSummary runGaleras(const LanguageModel& model, const RecordSet& records, const TreatmentSet& treatments,
                             const std::filesystem::path& dbPath, const GalerasRunOptions& o,
                             const RunControls& controls)
{
    return runGalerasWith(model, records, treatments, dbPath, o, {}, controls);
}

} // namespace ascviz
