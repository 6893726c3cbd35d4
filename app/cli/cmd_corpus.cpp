// batch (docs/cli.md): corpus-level AsC-Eval into a results database.
#include "commands.h"
#include "common.h"
#include "output.h"

#include "ascviz/base/duration.h"
#include "ascviz/base/error.h"
#include "ascviz/base/resources.h"
#include "ascviz/batch/batch.h"
#include "ascviz/syntax/language.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

namespace ascviz::cli {

namespace fs = std::filesystem;

namespace {

} // namespace

Corpus readCorpusOption(const std::string& corpusArg, const std::string& language, const std::string& exts)
{
    Corpus corpus = readNamedCorpus(corpusArg, language, splitList(exts));
    std::cerr << corpusReadReport(corpus);
    return corpus;
}

int cmdBatch(Args& args)
{
    const std::string modelArg = args.valueOr("--model", "default");
    const std::string corpusArg = args.require("--corpus");
    const fs::path dbPath = args.require("--db");
    const int limit = args.intValue("--limit", 0);
    const bool resume = args.flag("--resume");
    const int batchSize = args.intValue("--batch-size", 1);
    const auto shardArg = args.value("--shard");
    const Aggregation aggregation = aggregationOption(args);
    AggregationScope scope = AggregationScope::Tokens;
    try {
        scope = parseAggregationScope(args.valueOr("--aggregation-scope", "tokens"));
    } catch (const InputError&) {
        throw UsageError("--aggregation-scope must be tokens or children");
    }
    const std::string language = languageOptionOrEmpty(args); // "": each snippet's own (field, extension)
    const std::string exts = args.valueOr("--extensions", "");
    const bool quiet = args.flag("--quiet");
    const std::size_t maxTextBytes = maxTextBytesOption(args);
    const int maxAstDepth = maxAstDepthOption(args);
    const std::size_t maxAstNodes = maxAstNodesOption(args);
    LoadOptions lo = loadOptions(args);
    args.finish();
    if (limit < 0)
        throw UsageError("--limit must be >= 0 (0 = all)");
    if (batchSize < 1)
        throw UsageError("--batch-size must be >= 1");
    const ShardSpec shard = shardOption(shardArg);

    // Cheap checks first: the DB and the corpus, before loading the model.
    std::error_code ec;
    if (!resume && fs::exists(dbPath, ec))
        throw InputError("results database " + dbPath.string() +
                         " already exists; use --resume to continue it or choose another --db");
    const Corpus corpus = readCorpusOption(corpusArg, language, exts);

    const fs::path modelDir = resolveModelDir(modelArg);
    const bool tty = isatty(STDERR_FILENO) != 0;
    lo.progress = [&, last = -1](double f) mutable {
        const int pct = static_cast<int>(f * 100);
        if (tty && !quiet && pct != last) {
            last = pct;
            std::cerr << "\rloading model " << pct << "%" << std::flush;
        }
    };
    auto model = LanguageModel::load(modelDir, lo);
    if (tty && !quiet)
        std::cerr << '\r';
    const auto& mi = model->info();
    std::cerr << "model: " << mi.name << " (" << mi.architecture << ", " << mi.device << ", " << mi.dtype
              << ", context " << mi.contextLength << ")\n";

    BatchOptions opts;
    opts.aggregation = aggregation;
    opts.aggregationScope = scope;
    opts.language = language;
    opts.limit = limit;
    opts.resume = resume;
    opts.batchSize = batchSize;
    opts.maxTextBytes = maxTextBytes;
    opts.maxAstDepth = maxAstDepth;
    opts.maxAstNodes = maxAstNodes;
    opts.shard = shard;
    // Ctrl-C / SIGTERM (InterruptScope, common.h): the first asks the runner to stop after the current snippet (the
    // DB stays consistent and resumable); a second terminates at once (still consistent: a transaction a snippet).
    opts.cancel = InterruptScope::cancelFlag();
    opts.modelDir = modelDir.string();
    using Clock = std::chrono::steady_clock;
    auto lastPrint = Clock::now() - std::chrono::hours(1);
    int lastDecile = -1;
    opts.progress = [&](const BatchProgress& p) {
        if (quiet)
            return;
        const auto now = Clock::now();
        const bool last = p.done >= p.total;
        const double pct = p.total ? 100.0 * p.done / p.total : 100.0;
        const std::string line = "batch: " + std::to_string(p.done) + "/" + std::to_string(p.total) + " (" +
                                 fmt(pct, "%.1f") + "%), " + fmt(p.snippetsPerSecond, "%.1f") + " snippets/s, " +
                                 fmt(p.tokensPerSecond, "%.0f") + " tokens/s, ETA " + formatDuration(p.etaSeconds);
        if (tty) {
            if (last || now - lastPrint > std::chrono::milliseconds(200)) {
                std::cerr << '\r' << line << "\033[K" << (last ? "\n" : "") << std::flush;
                lastPrint = now;
            }
        } else {
            const int decile = static_cast<int>(pct / 10);
            if (decile != lastDecile || last) {
                lastDecile = decile;
                std::cerr << line << '\n';
            }
        }
    };

    std::optional<InterruptScope> interrupt(std::in_place);
    const BatchSummary sum = runBatch(*model, corpus, dbPath, opts);
    interrupt.reset();
    if (tty && !quiet && sum.cancelled)
        std::cerr << '\n';

    const double sps = sum.seconds > 0 ? sum.stored / sum.seconds : 0;
    const double tps = sum.seconds > 0 ? static_cast<double>(sum.tokens) / sum.seconds : 0;
    std::cerr << "batch: stored " << sum.stored << " snippets";
    if (sum.resumed)
        std::cerr << " (" << sum.resumed << " already in the DB)";
    std::cerr << ", " << sum.errors << " errors, " << sum.windowed << " scored in windows (longer than the context); "
              << sum.tokens << " tokens in " << fmt(sum.seconds, "%.2f") << " s: " << fmt(sps, "%.2f")
              << " snippets/s, " << fmt(tps, "%.0f") << " tokens/s\n";
    if (sum.cancelled)
        throw Error("interrupted after " + std::to_string(sum.resumed + sum.stored) + " of " +
                    std::to_string(sum.total) + " snippets; " + dbPath.string() +
                    " is consistent: continue with --resume");
    std::cerr << "batch: results in " << dbPath.string() << " (" << (sum.resumed + sum.stored) << "/" << sum.total
              << " snippets" << (shard.whole() ? "" : " of shard " + shard.toString()) << ")\n";
    return 0;
}

} // namespace ascviz::cli
