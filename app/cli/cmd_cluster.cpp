// merge and slurm (docs/cluster.md): shards of a batch run, merged into one results database, and runs on
// a Slurm cluster (the job scripts, sbatch, progress).
#include "commands.h"
#include "common.h"
#include "output.h"

#include "ascviz/base/clock.h"
#include "ascviz/base/error.h"
#include "ascviz/base/resources.h"
#include "ascviz/cluster/slurm.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/runkind.h"
#include "ascviz/results/shards.h"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

namespace ascviz::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path absoluteNormal(const fs::path& p)
{
    std::error_code ec;
    const fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
    return ec ? fs::absolute(p).lexically_normal() : c;
}

json statusJson(const SlurmRun& run, const SlurmRunStatus& st)
{
    json shards = json::array();
    for (const auto& s : st.shards) {
        json o = {{"shard", s.shard},
                  {"done", s.done},
                  {"planned", s.planned},
                  {"status", toString(s.status)},
                  {"errors", s.errors}};
        if (!s.job.empty())
            o["job"] = s.job;
        if (s.jobState)
            o["job_state"] = toString(*s.jobState);
        shards.push_back(o);
    }
    json j = {{"dir", run.dir.string()}, {"shards", shards},    {"done", st.done},
              {"planned", st.planned},   {"merged", st.merged}, {"queue_known", st.queueKnown}};
    j["array_job"] = run.arrayJob.empty() ? json(nullptr) : json(run.arrayJob);
    j["merge_job"] = run.mergeJob.empty() ? json(nullptr) : json(run.mergeJob);
    if (st.mergeState)
        j["merge_state"] = toString(*st.mergeState);
    if (st.merged)
        j["merged_snippets"] = st.mergedSnippets;
    if (!st.hint.empty())
        j["hint"] = st.hint;
    return j;
}

void printStatus(const SlurmRunStatus& st)
{
    std::cerr << "shard   done/planned  status    job\n";
    for (const auto& s : st.shards) {
        char line[160];
        const std::string status = toString(s.status);
        const std::string jobState = s.jobState ? toString(*s.jobState) : "";
        std::snprintf(line, sizeof line, "%5d %7lld/%-7lld %-9s %s%s%s\n", s.shard, static_cast<long long>(s.done),
                      static_cast<long long>(s.planned), status.c_str(), s.job.c_str(), s.job.empty() ? "" : " ",
                      jobState.c_str());
        std::cerr << line;
    }
    std::cerr << "total " << st.done << "/" << st.planned << " snippets";
    if (!st.mergeJob.empty())
        std::cerr << "; merge job " << st.mergeJob << (st.mergeState ? " " + toString(*st.mergeState) : "");
    std::cerr << (st.merged ? "; merged (" + std::to_string(st.mergedSnippets) + " snippets)" : "") << '\n';
    if (!st.hint.empty())
        std::cerr << "hint: " << st.hint << '\n';
}

int slurmSubmit(Args& args)
{
    const std::string modelArg = args.valueOr("--model", "default");
    const std::string corpusArg = args.require("--corpus");
    const int shards = args.intValue("--shards", 0);
    const fs::path outArg = args.require("--out");
    SlurmRun run;
    run.partition = args.valueOr("--partition", "");
    run.gres = args.valueOr("--gres", "");
    run.time = args.valueOr("--time", "");
    run.sbatchExtra = args.values("--sbatch-extra", true);
    const bool dryRun = args.flag("--dry-run");
    // Options every shard's batch gets, as given.
    const std::string language = languageOptionOrEmpty(args);
    const std::string exts = args.valueOr("--extensions", "");
    if (!language.empty())
        run.batchOptions.insert(run.batchOptions.end(), {"--language", language});
    if (!exts.empty())
        run.batchOptions.insert(run.batchOptions.end(), {"--extensions", exts});
    const int limit = args.intValue("--limit", 0);
    if (limit < 0)
        throw UsageError("--limit must be >= 0 (0 = all)");
    if (limit > 0)
        run.batchOptions.insert(run.batchOptions.end(), {"--limit", std::to_string(limit)});
    for (const char* o : {"--batch-size", "--aggregation", "--aggregation-scope", "--device", "--dtype", "--threads",
                          "--max-text-bytes", "--max-ast-depth", "--max-ast-nodes"})
        if (const auto v = args.value(o))
            run.batchOptions.insert(run.batchOptions.end(), {o, *v});
    args.finish();
    if (shards < 1)
        throw UsageError("--shards N (N >= 1) is required");

    run.dir = absoluteNormal(outArg);
    std::error_code ec;
    run.cli = fs::read_symlink("/proc/self/exe", ec);
    if (ec)
        throw Error("cannot find this program's own path (/proc/self/exe): " + ec.message());
    run.model = absoluteNormal(resolveModelDir(modelArg));
    if (!fs::is_regular_file(run.model / "config.json", ec))
        throw InputError("not a model folder (no config.json): " + run.model.string());
    // The corpus is read here once: a bad or empty corpus fails now, not in N jobs.
    const Corpus corpus = readCorpusOption(corpusArg, language, exts);
    if (corpus.entries.empty())
        throw InputError("empty corpus: nothing to evaluate in " + corpus.source.string());
    run.corpus = absoluteNormal(corpus.source);
    run.corpusFingerprint = corpus.fingerprint();
    const auto entries = static_cast<int64_t>(corpus.entries.size());
    run.runPlanned = limit > 0 ? std::min<int64_t>(limit, entries) : entries;
    if (shards > run.runPlanned)
        throw UsageError("--shards " + std::to_string(shards) + " is more than the run's " +
                         std::to_string(run.runPlanned) + " snippets");
    run.shards = shards;
    run.created = isoTimestampUtc();
    writeSlurmRun(run);
    std::cerr << "slurm: wrote " << run.batchScript().string() << " (array 0-" << shards - 1 << ") and "
              << run.mergeScript().string() << '\n';
    if (!dryRun) {
        submitSlurmRun(run);
        std::cerr << "slurm: submitted array job " << run.arrayJob << " (" << shards << " tasks) and merge job "
                  << run.mergeJob << " (afterok:" << run.arrayJob << "); watch with: ascviz-cli slurm status "
                  << run.dir.string() << " --watch 10\n";
    } else {
        std::cerr << "slurm: --dry-run: nothing submitted; submit with: sbatch " << run.batchScript().string()
                  << ", then sbatch --dependency=afterok:<its id> " << run.mergeScript().string() << '\n';
    }
    json j = {{"dir", run.dir.string()},
              {"array_job", run.arrayJob.empty() ? json(nullptr) : json(run.arrayJob)},
              {"merge_job", run.mergeJob.empty() ? json(nullptr) : json(run.mergeJob)},
              {"shards", shards},
              {"planned", run.runPlanned},
              {"scripts", {run.batchScript().string(), run.mergeScript().string()}}};
    writeJson(j, std::nullopt);
    return 0;
}

int slurmStatus(Args& args)
{
    const auto dirOpt = args.value("--dir");
    const int watch = args.intValue("--watch", 0);
    const bool noQueue = args.flag("--no-queue");
    const auto out = args.value("--out");
    auto rest = args.positionals();
    args.finish();
    if (watch < 0)
        throw UsageError("--watch SECONDS must be >= 0");
    if (rest.size() + (dirOpt ? 1 : 0) != 1)
        throw UsageError("slurm status needs one run folder: ascviz-cli slurm status DIR");
    const SlurmRun run = readSlurmRun(dirOpt ? *dirOpt : rest.front());
    SlurmRunStatus st = readSlurmStatus(run, !noQueue);
    printStatus(st);
    // --watch: until merged, or until nothing queued could change the picture (the hint says what to do).
    while (watch > 0 && !st.merged && st.inProgress()) {
        std::this_thread::sleep_for(std::chrono::seconds(watch));
        st = readSlurmStatus(run, !noQueue);
        printStatus(st);
    }
    writeJson(statusJson(run, st), out);
    return 0;
}

int slurmResume(Args& args)
{
    const bool dryRun = args.flag("--dry-run");
    auto rest = args.positionals();
    args.finish();
    if (rest.size() != 1)
        throw UsageError("slurm resume needs one run folder: ascviz-cli slurm resume DIR");
    SlurmRun run = readSlurmRun(rest.front());
    const ResumeResult r = resumeSlurmRun(run, dryRun);
    json shards = json::array();
    for (int s : r.resubmitted)
        shards.push_back(s);
    if (dryRun) {
        std::cerr << "slurm: --dry-run: would resubmit " << r.resubmitted.size() << " shard(s) and a new merge job\n";
    } else {
        std::cerr << "slurm: resubmitted " << r.resubmitted.size() << " shard(s)"
                  << (r.arrayJob.empty() ? "" : " as array job " + r.arrayJob) << "; merge job " << r.mergeJob
                  << (r.cancelledMerge.empty() ? "" : " (replaces " + r.cancelledMerge + ")") << '\n';
    }
    writeJson({{"dir", run.dir.string()},
               {"resubmitted", shards},
               {"array_job", r.arrayJob.empty() ? json(nullptr) : json(r.arrayJob)},
               {"merge_job", r.mergeJob.empty() ? json(nullptr) : json(r.mergeJob)},
               {"cancelled_merge_job", r.cancelledMerge.empty() ? json(nullptr) : json(r.cancelledMerge)}},
              std::nullopt);
    return 0;
}

} // namespace

int cmdMerge(Args& args)
{
    const fs::path out = args.require("--out");
    const bool quiet = args.flag("--quiet");
    const auto inputs = args.positionals();
    args.finish();
    if (inputs.empty())
        throw UsageError("merge needs the shard databases: ascviz-cli merge --out ALL.db SHARD.db...");
    std::vector<fs::path> paths(inputs.begin(), inputs.end());
    // One merge for every kind of run: the kind of the shards picks it (batch, galeras or heads).
    const RunMergeReport merged = mergeRuns(out, paths, [&](const std::string& line) {
        if (!quiet)
            std::cerr << "merge: " << line << '\n';
    });
    const MergeReport& r = merged.merged;
    if (merged.kind == RunKind::Heads) {
        std::cerr << "merge: wrote " << r.out.string() << ": " << r.snippets << " heads texts from " << r.shards
                  << " shards\n";
        return 0;
    }
    if (merged.kind == RunKind::Galeras) {
        std::cerr << "merge: wrote " << r.out.string() << ": " << r.snippets << " Galeras rows from " << r.shards
                  << " shards\n";
        return 0;
    }
    std::cerr << "merge: wrote " << r.out.string() << ": " << r.snippets << " snippets, " << r.tokens << " tokens, "
              << r.nodes << " nodes from " << r.shards << " shards\n";
    return 0;
}

int cmdSlurm(Args& args)
{
    const auto sub = args.subcommand();
    if (!sub)
        throw UsageError("slurm needs a subcommand: submit, status or resume");
    if (*sub == "submit")
        return slurmSubmit(args);
    if (*sub == "status")
        return slurmStatus(args);
    if (*sub == "resume")
        return slurmResume(args);
    throw UsageError("unknown slurm subcommand '" + *sub + "' (submit, status or resume)");
}

} // namespace ascviz::cli
