// ascviz-cli galeras run | testbed (docs/cli.md, docs/galeras.md): Galeras testbeds, prompt treatments and
// generation runs into a runs database; `analyze treatments` (cmd_analyze_treatments.cpp) estimates the effects.
#include "commands.h"
#include "common.h"

#include "ascviz/base/resources.h"
#include "ascviz/galerasrun/run.h"
#include "ascviz/results/shards.h"
#include "ascviz/syntax/language.h"

#include <atomic>
#include <iostream>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace ascviz::cli {

namespace fs = std::filesystem;

namespace {

RecordSet recordsOption(Args& args)
{
    RecordReadOptions ro;
    if (const auto f = args.value("--fields"))
        ro.fields = parseFieldMapping(*f);
    ro.language = languageOptionOrEmpty(args);
    const std::string arg = args.valueOr("--records", "default");
    const fs::path path = arg == "default" ? sampleCorpus() : fs::path(arg);
    RecordSet s = readRecords(path, ro);
    const std::size_t shown = std::min<std::size_t>(s.issues.size(), 20);
    for (std::size_t i = 0; i < shown; ++i)
        std::cerr << "records: " << s.issues[i].location << ": " << s.issues[i].message << '\n';
    if (s.issues.size() > shown)
        std::cerr << "records: ... and " << (s.issues.size() - shown) << " more skipped records\n";
    std::cerr << "records: " << s.records.size() << " read from " << path.string() << ", " << s.issues.size()
              << " skipped\n";
    return s;
}

Testbed testbedOption(Args& args)
{
    // the paper's testbed (seed 003) by default
    return usageOf("--testbed", [&] { return parseTestbed(args.valueOr("--testbed", "withdocstring")); });
}

void printSkipped(const std::map<std::string, int>& skipped, const std::vector<TestbedSet::OverLimit>& overLimit)
{
    const std::size_t shown = std::min<std::size_t>(overLimit.size(), 20);
    for (std::size_t i = 0; i < shown; ++i)
        std::cerr << "testbed: " << overLimit[i].location << ": record " << overLimit[i].recordId
                  << " skipped: " << overLimit[i].why << '\n';
    if (overLimit.size() > shown)
        std::cerr << "testbed: ... and " << (overLimit.size() - shown) << " more records over a limit\n";
    for (const auto& [why, n] : skipped)
        std::cerr << "testbed: " << n << " record(s) skipped: " << why << '\n';
}

int galerasTestbed(Args& args)
{
    const RecordSet records = recordsOption(args);
    const Testbed kind = testbedOption(args);
    const uint64_t seed = args.uint64Value("--seed", GalerasRunOptions{}.seed);
    const auto out = args.value("--out");
    TestbedLimits lim;
    lim.maxTextBytes = maxTextBytesOption(args);
    lim.maxAstNodes = maxAstNodesOption(args);
    args.finish();
    const TestbedSet set = buildTestbed(records, kind, seed, lim);
    printSkipped(set.skipped, set.overLimit);
    std::ostringstream o;
    for (const auto& it : set.items)
        o << nlohmann::json{{"id", it.recordId},         {"language", it.language},        {"testbed", toString(kind)},
                            {"partial", it.partial},     {"ground_truth", it.groundTruth}, {"signature", it.signature},
                            {"docstring", it.docstring}, {"cut_line", it.cutLine}}
                 .dump()
          << '\n';
    writeText(o.str(), out);
    std::cerr << "testbed: " << set.items.size() << " items (" << toString(kind) << ")\n";
    return 0;
}

int galerasRun(Args& args)
{
    const fs::path dbPath = args.require("--db");
    GalerasRunOptions opts;
    opts.resume = args.flag("--resume");
    opts.testbed = testbedOption(args);
    opts.seed = args.uint64Value("--seed", opts.seed);
    opts.stopAtFunctionEnd = args.flag("--stop-at-function-end");
    const int limit = args.intValue("--limit", 0);
    if (limit < 0) // before: clamped to 0, i.e. every item
        throw UsageError("--limit must be >= 0 (0 = every testbed item), got " + std::to_string(limit));
    opts.limit = static_cast<std::size_t>(limit);
    opts.maxTextBytes = maxTextBytesOption(args);
    opts.maxAstDepth = maxAstDepthOption(args);
    opts.maxAstNodes = maxAstNodesOption(args);
    auto& g = opts.generation;
    g.maxNewTokens = args.intValue("--max-new-tokens", g.maxNewTokens);
    samplingOptions(args, g, "--sample-seed");
    if (const auto shard = args.value("--shard")) {
        try {
            opts.shard = parseShard(*shard);
        } catch (const std::exception& e) {
            throw UsageError(std::string("--shard: ") + e.what());
        }
    }
    const std::string treatmentsArg = args.valueOr("--treatments", "default");
    const bool quiet = args.flag("--quiet");
    const RecordSet records = recordsOption(args);
    const LoadOptions lo = loadOptions(args);
    const std::string modelArg = args.valueOr("--model", "default");
    args.finish();
    if (g.maxNewTokens < 1)
        throw UsageError("--max-new-tokens must be >= 1");
    if (!opts.resume && fs::exists(dbPath))
        throw InputError("Galeras runs database " + dbPath.string() +
                         " already exists; use --resume to continue it or choose another --db");
    const TreatmentSet treatments = readTreatments(
        treatmentsArg == "default" ? resourceDir() / "galeras" / "treatments.json" : fs::path(treatmentsArg));
    auto model = LanguageModel::load(resolveModelDir(modelArg), lo);
    std::cerr << "model: " << model->info().name << " (" << model->info().device << ")\n";
    const bool tty = isatty(STDERR_FILENO) != 0;
    int lastDecile = -1;
    const auto progress = [&](const GalerasProgress& p) {
        if (quiet)
            return;
        const int pct = p.planned ? 100 * p.finished / p.planned : 100;
        const std::string line = "galeras: " + std::to_string(p.finished) + "/" + std::to_string(p.planned) + " (" +
                                 p.recordId + ", " + p.treatment + ": " + p.stop + ")";
        if (tty)
            std::cerr << '\r' << line << "\033[K" << (p.finished >= p.planned ? "\n" : "") << std::flush;
        else if (pct / 10 != lastDecile || p.finished >= p.planned) {
            lastDecile = pct / 10;
            std::cerr << line << '\n';
        }
    };
    // Ctrl-C / SIGTERM (InterruptScope, common.h): stop after the current row; a second ends the process.
    std::optional<InterruptScope> interrupt(std::in_place);
    const GalerasRunSummary sum =
        runGaleras(*model, records, treatments, dbPath, opts, progress, InterruptScope::cancelFlag());
    interrupt.reset();
    printSkipped(sum.skipped, sum.overLimit);
    std::cerr << "galeras: " << sum.items << " testbed items x " << treatments.all().size() << " treatments; wrote "
              << sum.done << " rows";
    if (sum.resumed)
        std::cerr << " (" << sum.resumed << " already in the database)";
    std::cerr << ", " << sum.errors << " errors; stops:";
    for (const auto& [why, n] : sum.stops)
        std::cerr << ' ' << why << '=' << n;
    std::cerr << '\n';
    if (sum.cancelled)
        throw Error("interrupted after " + std::to_string(sum.resumed + sum.done) + " of " +
                    std::to_string(sum.planned) + " rows; " + dbPath.string() +
                    " is consistent: continue with --resume");
    return 0;
}

int galerasMerge(Args& args)
{
    const std::string out = args.require("--out");
    const auto files = args.positionals();
    args.finish();
    if (files.empty())
        throw UsageError("galeras merge needs the shard databases: --out ALL.db SHARD.db...");
    std::vector<fs::path> shards(files.begin(), files.end());
    mergeGalerasShards(out, shards);
    std::cerr << "galeras: merged " << shards.size() << " shards into " << out << '\n';
    return 0;
}

} // namespace

int cmdGaleras(Args& args)
{
    const auto sub = args.subcommand();
    if (!sub)
        throw UsageError("galeras needs a subcommand: run, testbed or merge");
    if (*sub == "run")
        return galerasRun(args);
    if (*sub == "testbed")
        return galerasTestbed(args);
    if (*sub == "merge")
        return galerasMerge(args);
    throw UsageError("unknown galeras subcommand '" + *sub + "' (run, testbed or merge)");
}

} // namespace ascviz::cli
