// relations and analyze heads (docs/cli.md; method.md §11): CodeSyntax's relations of a text, and attention heads
// vs those relations over a corpus, with the offset and keyword baselines.
#include "attention_scorer.h"
#include "commands.h"
#include "common.h"
#include "figure_args.h"

#include "ascviz/attention/codesyntax.h"
#include "ascviz/attention/headpartial.h"
#include "ascviz/base/resources.h"
#include "ascviz/base/utf8.h"
#include "ascviz/corpusrun/engine.h"
#include "ascviz/figure/heads.h"
#include "ascviz/model/observer.h"
#include "ascviz/results/headsdb.h"
#include "ascviz/syntax/language.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace ascviz::cli {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

json endJson(const RelationEnd& e, const SyntaxTree& tree, bool withTokens)
{
    const AstNode& n = tree.nodes()[static_cast<std::size_t>(e.node)];
    json j = {{"start", e.start}, {"end", e.end}, {"node", n.id}, {"node_type", n.type}};
    if (withTokens)
        j["tokens"] = e.tokens;
    return j;
}

std::vector<int> topKOption(Args& args)
{
    std::vector<int> out;
    std::stringstream in(args.valueOr("--top-k", "1,3,10,20"));
    for (std::string item; std::getline(in, item, ',');) {
        try {
            std::size_t used = 0;
            const int k = std::stoi(item, &used);
            if (used != item.size() || k < 1 || k > 254)
                throw std::invalid_argument(item);
            out.push_back(k);
        } catch (const std::exception&) {
            throw UsageError("--top-k takes whole numbers 1..254 separated by commas, not '" + item + "'");
        }
    }
    if (out.empty())
        throw UsageError("--top-k is empty");
    return out;
}

// --relations codesyntax|fields: the paper's relations over words (the default where the language has a
// mapping: Python) or the generic field relations over tokens (the default elsewhere).
struct RelationSet {
    std::optional<CodeSyntaxMapping> mapping; // set: paper mode
    std::string name() const { return mapping ? "codesyntax" : "fields"; }
};

RelationSet relationSetOption(const std::optional<std::string>& arg, const LanguageInfo& info)
{
    const std::string v = arg.value_or(CodeSyntaxMapping::exists(info.folder) ? "codesyntax" : "fields");
    if (v == "fields")
        return {};
    if (v != "codesyntax")
        throw UsageError("--relations takes codesyntax or fields, not '" + v + "'");
    return {CodeSyntaxMapping::forLanguage(info.id, info.folder)};
}

// One text's relations and the edges the metric asks about; in paper mode the words too.
struct TextEdges {
    std::vector<Relation> relations;
    std::vector<HeadEdge> edges;
    std::optional<TokenWords> words;
};

TextEdges textEdges(const RelationSet& set, const SyntaxTree& tree,
                    const std::vector<std::pair<std::size_t, std::size_t>>& spans, HeadMetric metric)
{
    TextEdges out;
    if (set.mapping) {
        out.relations = codeSyntaxRelations(tree, *set.mapping);
        attachTokens(out.relations, spans);
        out.words = groupTokens(codeWords(tree, *set.mapping), spans);
        out.edges = paperEdges(out.relations, *out.words, spans, metric);
    } else {
        out.relations = syntaxRelations(tree);
        attachTokens(out.relations, spans);
        out.edges = headEdges(out.relations, metric);
    }
    return out;
}

// The texts of the scorer's units: the tokens, or in paper mode the words (their tokens' texts joined).
std::vector<std::string> unitTexts(const std::vector<std::string>& tokenTexts, const std::optional<TokenWords>& words)
{
    if (!words)
        return tokenTexts;
    std::vector<std::string> out;
    for (int w = 0; w < words->words(); ++w) {
        std::string t;
        for (int i = words->start[static_cast<std::size_t>(w)]; i < words->start[static_cast<std::size_t>(w) + 1]; ++i)
            t += tokenTexts[static_cast<std::size_t>(i)];
        out.push_back(std::move(t));
    }
    return out;
}

} // namespace

int cmdRelations(Args& args)
{
    const std::string file = args.require("--text-file");
    const std::string language = languageOption(args, file);
    const auto modelArg = args.value("--model");
    const auto relationsArg = args.value("--relations");
    const std::size_t maxAstNodes = maxAstNodesOption(args);
    const bool asJson = args.flag("--json");
    const auto out = args.value("--out");
    args.finish();

    const RelationSet set = relationSetOption(relationsArg, LanguageRegistry::instance().get(language));
    const std::string text = readUtf8File(file);
    const SyntaxTree tree = SyntaxTree::parse(language, text, maxAstNodes);
    warnSyntaxProblems(tree, file);
    auto rels = set.mapping ? codeSyntaxRelations(tree, *set.mapping) : syntaxRelations(tree);
    if (modelArg) {
        const auto tok = Tokenizer::fromModelDir(resolveModelDir(*modelArg));
        attachTokens(rels, tok->encode(text, false).offsets);
    }
    if (!asJson) {
        std::ostringstream t;
        for (const auto& r : rels) {
            t << r.type << "  [" << r.head.start << ',' << r.head.end << ") -> [" << r.dependent.start << ','
              << r.dependent.end << ')';
            if (modelArg)
                t << "  offset " << r.offset;
            t << '\n';
        }
        t << rels.size() << " relations\n";
        writeText(t.str(), out);
        return 0;
    }
    json list = json::array();
    for (const auto& r : rels) {
        json j = {{"type", r.type},
                  {"head", endJson(r.head, tree, modelArg.has_value())},
                  {"dependent", endJson(r.dependent, tree, modelArg.has_value())}};
        if (modelArg)
            j["offset"] = r.offset;
        list.push_back(std::move(j));
    }
    json j = {{"language", language},
              {"relation_set", set.name()},
              {"syntax_errors", syntaxProblemsJson(tree)},
              {"relations", std::move(list)}};
    if (modelArg)
        j["model"] = *modelArg;
    writeJson(j, out);
    return 0;
}

namespace {

// --svg OUT | --pdf OUT: the layer × head heat map at top-1 of one relation type (--relation TYPE) or, by
// default, of the model score (per head, the mean of its scores over the relation types the report keeps).
void writeHeadHeatmap(const HeadTally& tally, const HeadReport& report, const std::optional<std::string>& relation,
                      const std::string& file, bool pdf, const FigureStyle& style)
{
    std::vector<double> scores;
    std::string title;
    if (relation) {
        scores = tally.headScores(*relation, 1);
        if (scores.empty())
            throw UsageError("--relation: no edge of type '" + *relation + "' in this run");
        title = *relation + ": top-1 score per head (" + report.model + ")";
    } else {
        if (report.relations.empty())
            throw UsageError("--svg/--pdf: no relation type has --min-count edges; give --relation TYPE");
        scores.assign(static_cast<std::size_t>(tally.layers() * tally.heads()), 0.0);
        for (const auto& r : report.relations) {
            const auto s = tally.headScores(r.type, 1);
            for (std::size_t i = 0; i < scores.size() && i < s.size(); ++i)
                scores[i] += s[i] / static_cast<double>(report.relations.size());
        }
        title = "model score: mean top-1 score per head over " + std::to_string(report.relations.size()) +
                " relation types (" + report.model + ")";
    }
    writeFigure(headHeatmapPaperFigure(scores, tally.layers(), tally.heads(), title, style), file, pdf);
    std::cerr << "analyze heads: wrote " << file << '\n';
}

} // namespace

int cmdAnalyzeHeads(Args& args)
{
    const std::vector<int> topK = topKOption(args);
    const std::string metricName = args.valueOr("--metric", "first");
    const auto relationsArg = args.value("--relations");
    const auto tableArg = args.value("--table");
    const int minCount = args.intValue("--min-count", 20);
    const bool asJson = args.flag("--json");
    const auto latex = args.value("--latex");
    const auto out = args.value("--out");
    const auto svgOut = args.value("--svg");
    const auto pdfOut = args.value("--pdf");
    bool styled = false;
    const FigureStyle style = readFigureStyle(args, &styled);
    const auto relationArg = args.value("--relation");
    const auto from = args.value("--from");
    const auto partial = args.value("--partial");
    const bool resume = args.flag("--resume");
    const auto corpusArg = args.value("--corpus");
    const int limit = args.intValue("--limit", 0);
    const auto shardArg = args.value("--shard");
    const std::string language = languageOptionOrEmpty(args);
    const std::string modelArg = args.valueOr("--model", "default");
    const std::size_t maxTextBytes = maxTextBytesOption(args);
    const std::size_t maxAstNodes = maxAstNodesOption(args);
    LoadOptions lo = loadOptions(args);
    args.finish();
    const HeadMetric metric = usageOf("--metric", [&] { return parseHeadMetric(metricName); });
    if (minCount < 1)
        throw UsageError("--min-count must be >= 1");
    int table = 0;
    if (tableArg) {
        if (*tableArg != "3" && *tableArg != "5" && *tableArg != "6")
            throw UsageError("--table takes 3, 5 or 6 (the CodeSyntax paper's tables), not '" + *tableArg + "'");
        table = std::stoi(*tableArg);
        if (table == 5 && metric != HeadMetric::Any && !from)
            throw UsageError("--table 5 is the paper's any-token table: give --metric any");
        if (asJson)
            throw UsageError("--table prints a table; it takes no --json");
    }
    if (relationsArg && from)
        throw UsageError("--relations is the partial files' own setting; --from takes no --relations");
    if (limit < 0)
        throw UsageError("--limit must be >= 0 (0 = all)");
    if (relationArg && !svgOut && !pdfOut)
        throw UsageError("--relation picks the heat map of --svg OUT or --pdf OUT; give one of them");
    if (styled && !svgOut && !pdfOut)
        throw UsageError("--width-mm, --font-pt, --no-title and --legend style the heat map: give --svg OUT or "
                         "--pdf OUT");
    if (from && (corpusArg || partial))
        throw UsageError("--from tallies partial files; it takes no --corpus or --partial");
    if (!from && !corpusArg)
        throw UsageError("give --corpus (a run) or --from P1.jsonl,P2.jsonl (partial files of earlier runs)");
    if (resume && !partial)
        throw UsageError("--resume continues the --partial file of an earlier run");
    const int maxK = *std::max_element(topK.begin(), topK.end());
    HeadReport report;
    auto heatmaps = [&](const HeadTally& tally) {
        if (svgOut)
            writeHeadHeatmap(tally, report, relationArg, *svgOut, false, style);
        if (pdfOut)
            writeHeadHeatmap(tally, report, relationArg, *pdfOut, true, style);
    };

    if (from) {
        // Tally the partial files of shards (or of one run) with the settings they share (attention room).
        const std::vector<std::string> files = splitList(*from);
        if (files.empty())
            throw UsageError("--from names no file");
        HeadPartialsTally tallied = tallyHeadPartials(files);
        const HeadRunSettings& first = tallied.settings;
        if (maxK > first.maxK)
            throw UsageError("--top-k " + std::to_string(maxK) + " is more than the partial files kept (" +
                             std::to_string(first.maxK) + ")");
        report = headPartialsReport(tallied, topK, minCount);
        heatmaps(*tallied.tally);
    } else {
        const ShardSpec shard = shardOption(shardArg);
        const Corpus corpus = readCorpusOption(*corpusArg, language, "");
        const auto langs = corpus.languages();
        if (langs.size() != 1)
            throw InputError("analyze heads takes one language per run; " + corpus.source.string() + " holds " +
                                 std::to_string(langs.size()) + " (cut it with extract, or give --language)",
                             ErrorContext(corpus.source.string()));
        // The corpus-run engine (corpusrun/engine.h): the shard's slice, resume, cancel, the loop.
        const RunSlice slice = planSlice(static_cast<int>(corpus.entries.size()), limit, shard);
        const auto entryAt = [&corpus](int i) -> const CorpusEntry& {
            return corpus.entries[static_cast<std::size_t>(i)];
        };
        if (slice.mine.empty())
            throw InputError("no snippets to analyze in " + corpus.source.string() +
                                 (shard.whole() ? std::string() : " (shard " + shard.toString() + ")"),
                             ErrorContext(corpus.source.string()));
        const LanguageInfo& info = LanguageRegistry::instance().get(langs.front());
        const RelationSet set = relationSetOption(relationsArg, info);
        const auto model = LanguageModel::load(resolveModelDir(modelArg), lo);
        const int bos = model->tokenizer().addsBos() ? 1 : 0;
        HeadTally tally(model->info().layers, maxK, info.baselineKeywords());
        HeadRunSettings settings{model->info().name,
                                 info.id,
                                 headMetricName(metric),
                                 corpus.fingerprint(),
                                 model->info().layers,
                                 maxK,
                                 shard.whole() ? std::string() : shard.toString(),
                                 set.name()};
        const int planned = static_cast<int>(slice.mine.size());
        // The run's database (results/headsdb.h): created with the settings, or continued (--resume) when its
        // settings (the corpus's fingerprint among them) are this run's; one writer per file (RunLock).
        std::set<std::string> done;
        std::optional<RunLock> lock;
        std::optional<HeadsDb> db;
        if (partial) {
            std::error_code ec;
            if (resume) {
                if (fs::exists(*partial, ec) && !HeadsDb::isHeadsDb(*partial))
                    throw InputError(*partial + " is not a heads run database: a JSON Lines partial file of an "
                                                "earlier build (ascviz-heads-partial, version 1) is read by --from "
                                                "but not continued; start a new --partial database",
                                     ErrorContext(*partial));
                lock.emplace(*partial, "analyze heads run");
                db.emplace(HeadsDb::open(*partial, true));
                const auto got = readHeadPartial(*partial, &tally);
                if (!(got.settings == settings))
                    throw InputError(*partial + " is a run of other settings (model, language, metric, corpus, " +
                                         "layers, max k or shard differ): start a new --partial database",
                                     ErrorContext(*partial));
                done = got.ids;
                // --limit is no setting: the resumed run may plan more (or fewer) texts than the first call
                if (got.plannedTexts != planned)
                    db->setMeta("planned", std::to_string(planned));
                db->setMeta("run_size", std::to_string(slice.runTotal));
            } else if (fs::exists(*partial, ec)) {
                throw InputError("heads run database " + *partial + " already exists; use --resume to continue it",
                                 ErrorContext(*partial));
            } else {
                auto meta = headRunMeta(settings, planned);
                // The whole run's size (after --limit, all shards): a merge refuses shards of runs of other sizes
                // (issue 54: shards of --limit 20 and 30 merged into one run of 30 without a word).
                meta["run_size"] = std::to_string(slice.runTotal);
                db.emplace(HeadsDb::create(*partial, meta));
                lock.emplace(*partial, "analyze heads run");
            }
        }
        std::optional<InterruptScope> interrupt(std::in_place);
        int skipped = 0, scored = 0;
        const RunQueue queue = pendingItems(slice.mine, [&](int i) { return done.count(entryAt(i).id) > 0; });
        RunControls controls;
        controls.cancel = InterruptScope::cancelFlag();
        controls.progress = [&](const RunProgress& p) {
            if (p.done > p.resumed && p.done % 50 == 0)
                std::cerr << "analyze heads: " << p.done << " / " << p.total << " snippets\n";
        };
        ProgressClock clock(controls, queue.total, queue.resumed);
        runItems(clock, queue, [&](int i) -> std::optional<ItemOutcome> {
            const CorpusEntry* e = &entryAt(i);
            if (maxTextBytes && e->code.size() > maxTextBytes) {
                std::cerr << "analyze heads: " << e->location << ": " << e->code.size() << " bytes, over "
                          << limits::kMaxTextBytesOption << ' ' << maxTextBytes << ": left out\n";
                ++skipped;
                return ItemOutcome{e->id, false, 0}; // left out, not stored
            }
            const SyntaxTree tree = SyntaxTree::parse(info.id, e->code, maxAstNodes);
            const auto enc = model->tokenizer().encode(e->code, false);
            TextEdges te = textEdges(set, tree, enc.offsets, metric);
            const auto& rels = te.relations;
            HeadScorer scorer(model->info().layers, bos, std::move(te.edges));
            if (te.words)
                scorer.setWords(*te.words);
            AttentionToScorer obs(scorer);
            ScoreOptions so;
            so.topK = 0;
            so.observer = &obs;
            const ScoredText s = model->score(e->code, so);
            if (obs.layersSeen == 0 && s.tokens.size() + static_cast<std::size_t>(bos) >= 2)
                throw ModelError("the model " + model->info().name + " delivered no attention weights for " +
                                     e->location + " (its attention path cannot return them)",
                                 ErrorContext(e->location));
            if (s.tokens.size() != enc.ids.size())
                throw ModelError("scoring " + e->location + " gave " + std::to_string(s.tokens.size()) +
                                     " tokens, its encoding " + std::to_string(enc.ids.size()),
                                 ErrorContext(e->location));
            std::vector<std::string> texts;
            for (const auto& t : s.tokens)
                texts.push_back(s.text.substr(t.start, t.end - t.start));
            const TextRecord rec = tally.record(e->id, rels, unitTexts(texts, te.words), scorer);
            if (db)
                db->insert(rec.id, textRecordJson(rec).dump()); // one transaction: a kill keeps whole records
            tally.add(rec);
            ++scored;
            return ItemOutcome{e->id, true, static_cast<int64_t>(s.tokens.size())};
        });
        const bool interrupted = InterruptScope::interrupted();
        interrupt.reset();
        // A finished run whose texts over the size limit were left out holds all it will: its plan is what it
        // holds (a merge takes it as complete).
        if (db && !interrupted && skipped > 0)
            db->setMeta("planned", std::to_string(db->count()));
        if (interrupted)
            std::cerr << "analyze heads: interrupted after " << scored << " snippets"
                      << (partial ? "; continue with --resume" : "") << '\n';
        if (tally.texts() == 0)
            throw InputError("no snippet of " + corpus.source.string() + " could be analyzed (" +
                             std::to_string(skipped) + " over the size limit)");
        report = tally.report(topK, minCount);
        report.model = model->info().name;
        report.language = info.id;
        report.metric = headMetricName(metric);
        report.relationSet = set.name();
        if (set.mapping)
            report.table6 = set.mapping->table6();
        heatmaps(tally);
    }
    if (table == 5 && report.metric != "any")
        throw UsageError("--table 5 is the paper's any-token table: the partial files are of the " + report.metric +
                         "-token metric");
    if (latex) {
        writeText(table ? headPaperTable(report, table, true)
                        : headTable3Latex(report) + "\n" + headTable6Latex(report),
                  *latex);
        std::cerr << "analyze heads: wrote " << *latex << '\n';
    }
    for (const auto& w : report.warnings)
        std::cerr << "analyze heads: warning: " << w << '\n';
    if (report.relations.empty())
        std::cerr << "analyze heads: no relation type has " << minCount << " edges (--min-count); "
                  << report.rare.size() << " rarer types left out\n";
    if (asJson)
        writeJson(headReportJson(report), out);
    else if (table)
        writeText(headPaperTable(report, table, false), out);
    else
        writeText(headReportText(report), out);
    return 0;
}

} // namespace ascviz::cli
