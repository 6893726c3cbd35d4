// Corpus runs on a Slurm cluster (slurm.h).
#include "ascviz/cluster/slurm.h"

#include "ascviz/base/error.h"
#include "ascviz/base/process.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/shards.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>

namespace ascviz {
namespace fs = std::filesystem;
using nlohmann::json;

fs::path SlurmRun::shardDb(int shard) const
{
    return dir / "shards" / ("shard-" + std::to_string(shard) + "-of-" + std::to_string(shards) + ".db");
}

namespace {

constexpr int kRunFormatVersion = 1;

// Single-quoted for bash: the scripts pass paths with spaces or quotes through unchanged.
std::string shellQuote(const std::string& s)
{
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

bool hasLineBreak(const std::string& s)
{
    return s.find_first_of("\r\n") != std::string::npos;
}

void checkSiteValue(const std::string& what, const std::string& v)
{
    if (hasLineBreak(v))
        throw InputError(what + " must be one line");
}

void writeText(const fs::path& p, const std::string& text, bool executable)
{
    const fs::path tmp = p.string() + ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f << text;
        f.flush();
        if (!f)
            throw Error("cannot write " + p.string());
    }
    std::error_code ec;
    fs::rename(tmp, p, ec);
    if (ec)
        throw Error("cannot write " + p.string() + ": " + ec.message());
    if (executable)
        fs::permissions(p, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                        fs::perm_options::add, ec);
}

json toJson(const SlurmRun& r)
{
    return {{"format", "ascviz-slurm-run"},
            {"version", kRunFormatVersion},
            {"dir", r.dir.string()},
            {"cli", r.cli.string()},
            {"model", r.model.string()},
            {"corpus", r.corpus.string()},
            {"shards", r.shards},
            {"batch_options", r.batchOptions},
            {"partition", r.partition},
            {"gres", r.gres},
            {"time", r.time},
            {"sbatch_extra", r.sbatchExtra},
            {"corpus_fingerprint", r.corpusFingerprint},
            {"run_planned", r.runPlanned},
            {"array_job", r.arrayJob},
            {"merge_job", r.mergeJob},
            {"resubmitted_arrays", r.resubmittedArrays},
            {"created", r.created}};
}

// Common #SBATCH lines of both scripts.
std::string siteLines(const SlurmRun& r, bool gpu)
{
    std::string s;
    if (!r.partition.empty())
        s += "#SBATCH --partition=" + r.partition + "\n";
    if (gpu && !r.gres.empty())
        s += "#SBATCH --gres=" + r.gres + "\n";
    if (!r.time.empty())
        s += "#SBATCH --time=" + r.time + "\n";
    for (const auto& e : r.sbatchExtra)
        s += "#SBATCH " + e + "\n";
    return s;
}

// The first line of a program's output, without the line break and trailing spaces.
std::string firstLine(const std::string& s)
{
    const auto nl = s.find('\n');
    std::string l = s.substr(0, nl);
    while (!l.empty() && (l.back() == '\r' || l.back() == ' '))
        l.pop_back();
    return l;
}

// sbatch --parsable prints "jobid" or "jobid;cluster".
std::string submit(const std::vector<std::string>& argv)
{
    const ProcessResult r = runProcess(argv);
    if (!r.started())
        throw ProcessError("cannot run sbatch: " + r.err + " (is Slurm's sbatch on PATH?)", argv[0], r.outcome);
    std::string id = firstLine(r.out);
    id = id.substr(0, id.find(';'));
    if (r.exitCode != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
        throw ProcessError("sbatch failed (exit " + std::to_string(r.exitCode) +
                               "): " + firstLine(r.err.empty() ? r.out : r.err),
                           argv[0], r.outcome);
    return id;
}

} // namespace

std::string batchScriptText(const SlurmRun& r)
{
    std::string s = "#!/bin/bash\n";
    s += "# AsC-Viz corpus run, one array task per shard (written by ascviz-cli slurm submit; see run.json).\n";
    s += "# Each task continues its shard's results database (batch --resume), so a preempted or requeued\n";
    s += "# task goes on where it stopped. ASCVIZ_SHARD=I runs shard I outside Slurm.\n";
    s += "#SBATCH --job-name=ascviz-batch\n";
    s += "#SBATCH --array=0-" + std::to_string(r.shards - 1) + "\n";
    s += "#SBATCH --output=" + (r.dir / "logs" / "shard-%a.log").string() + "\n";
    s += "#SBATCH --open-mode=append\n";
    s += "#SBATCH --requeue\n";
    s += siteLines(r, true);
    s += "set -eu\n";
    s += "shard=\"${ASCVIZ_SHARD:-${SLURM_ARRAY_TASK_ID:?not a Slurm array task: set ASCVIZ_SHARD}}\"\n";
    s += "echo \"ascviz: shard $shard/" + std::to_string(r.shards) +
         " on $(hostname) (job ${SLURM_JOB_ID:-none}, restart ${SLURM_RESTART_COUNT:-0}) $(date -u +%FT%TZ)\"\n";
    s += "exec " + shellQuote(r.cli.string()) + " batch --model " + shellQuote(r.model.string()) + " --corpus " +
         shellQuote(r.corpus.string()) + " \\\n  --db " + shellQuote((r.dir / "shards").string()) +
         "/shard-\"$shard\"-of-" + std::to_string(r.shards) + ".db --shard \"$shard/" + std::to_string(r.shards) +
         "\" --resume";
    for (const auto& o : r.batchOptions)
        s += " " + shellQuote(o);
    s += "\n";
    return s;
}

std::string mergeScriptText(const SlurmRun& r)
{
    std::string s = "#!/bin/bash\n";
    s += "# AsC-Viz: merges the shard databases of this run into all.db (written by ascviz-cli slurm submit).\n";
    s += "# Submitted with --dependency=afterok:<array job>; `ascviz-cli slurm resume` submits it again.\n";
    s += "#SBATCH --job-name=ascviz-merge\n";
    s += "#SBATCH --output=" + (r.dir / "logs" / "merge.log").string() + "\n";
    s += "#SBATCH --open-mode=append\n";
    s += siteLines(r, false);
    s += "set -eu\n";
    s += "exec " + shellQuote(r.cli.string()) + " merge --out " + shellQuote(r.mergedDb().string());
    for (int i = 0; i < r.shards; ++i)
        s += " \\\n  " + shellQuote(r.shardDb(i).string());
    s += "\n";
    return s;
}

void writeSlurmRun(const SlurmRun& r)
{
    if (r.shards < 1)
        throw InputError("a Slurm run needs at least 1 shard");
    for (const auto& [what, p] : {std::pair{"the run folder", r.dir}, std::pair{"ascviz-cli", r.cli},
                                  std::pair{"the model folder", r.model}, std::pair{"the corpus", r.corpus}})
        if (!p.is_absolute())
            throw InputError(std::string(what) + " must be an absolute path: " + p.string());
    checkSiteValue("the partition", r.partition);
    checkSiteValue("the generic resources (gres)", r.gres);
    checkSiteValue("the time limit", r.time);
    for (const auto& e : r.sbatchExtra) {
        checkSiteValue("an extra sbatch option", e);
        if (e.rfind("--", 0) != 0 && e.rfind("-", 0) != 0)
            throw InputError("the extra sbatch line '" + e + "' is not an sbatch option (e.g. --account=abc)");
    }
    for (const auto& o : r.batchOptions)
        if (hasLineBreak(o))
            throw InputError("batch options must be one line each");
    std::error_code ec;
    if (fs::exists(r.dir / "run.json", ec)) {
        ErrorContext where(r.dir.string());
        where.remedy = Remedy::NewOutput;
        throw InputError(r.dir.string() + " already holds a run (run.json)", where);
    }
    fs::create_directories(r.dir / "shards", ec);
    if (!ec)
        fs::create_directories(r.dir / "logs", ec);
    if (ec)
        throw InputError("cannot create the run folder " + r.dir.string() + ": " + ec.message());
    writeText(r.batchScript(), batchScriptText(r), true);
    writeText(r.mergeScript(), mergeScriptText(r), true);
    saveSlurmRun(r);
}

void saveSlurmRun(const SlurmRun& r)
{
    writeText(r.dir / "run.json", toJson(r).dump(2) + "\n", false);
}

SlurmRun readSlurmRun(const fs::path& dirArg)
{
    const fs::path file = dirArg / "run.json";
    std::ifstream f(file, std::ios::binary);
    if (!f)
        throw InputError(dirArg.string() + " is not an AsC-Viz Slurm run folder (no run.json)");
    json j;
    try {
        j = json::parse(f);
    } catch (const json::exception& e) {
        throw InputError(file.string() + " is not valid JSON: " + e.what());
    }
    // A "format" or "version" of another JSON type is not ours either (value() would throw a type error).
    const auto format = j.is_object() ? j.find("format") : j.end();
    if (format == j.end() || !format->is_string() || format->get_ref<const std::string&>() != "ascviz-slurm-run")
        throw InputError(file.string() + " is not an AsC-Viz Slurm run file");
    const auto versionField = j.find("version");
    if (versionField != j.end() && !versionField->is_number_integer())
        throw InputError(file.string() + ": \"version\" must be an integer");
    const int64_t version = versionField == j.end() ? 0 : versionField->get<int64_t>();
    if (version > kRunFormatVersion)
        throw InputError(file.string() + " has run-file version " + std::to_string(version) +
                         "; this AsC-Viz reads version " + std::to_string(kRunFormatVersion) +
                         " (a newer AsC-Viz wrote it)");
    SlurmRun r;
    try {
        r.dir = fs::absolute(dirArg).lexically_normal();
        if (r.dir.has_filename() == false)
            r.dir = r.dir.parent_path();
        r.cli = j.at("cli").get<std::string>();
        r.model = j.at("model").get<std::string>();
        r.corpus = j.at("corpus").get<std::string>();
        r.shards = j.at("shards").get<int>();
        r.batchOptions = j.value("batch_options", std::vector<std::string>{});
        r.partition = j.value("partition", "");
        r.gres = j.value("gres", "");
        r.time = j.value("time", "");
        r.sbatchExtra = j.value("sbatch_extra", std::vector<std::string>{});
        r.corpusFingerprint = j.value("corpus_fingerprint", "");
        r.runPlanned = j.value("run_planned", int64_t{0});
        r.arrayJob = j.value("array_job", "");
        r.mergeJob = j.value("merge_job", "");
        r.resubmittedArrays = j.value("resubmitted_arrays", std::vector<std::string>{});
        r.created = j.value("created", "");
    } catch (const json::exception& e) {
        throw InputError(file.string() + ": " + e.what());
    }
    if (r.shards < 1)
        throw InputError(file.string() + ": shards must be at least 1");
    return r;
}

void submitSlurmRun(SlurmRun& r)
{
    r.arrayJob = submit({"sbatch", "--parsable", r.batchScript().string()});
    saveSlurmRun(r);
    r.mergeJob = submit({"sbatch", "--parsable", "--dependency=afterok:" + r.arrayJob, r.mergeScript().string()});
    saveSlurmRun(r);
}

std::string toString(ShardStatus status)
{
    switch (status) {
    case ShardStatus::Complete:
        return "complete";
    case ShardStatus::Running:
        return "running";
    case ShardStatus::Pending:
        return "pending";
    case ShardStatus::Stopped:
        return "stopped";
    case ShardStatus::Unknown:
        break;
    }
    return "unknown";
}

bool SlurmRunStatus::inProgress() const
{
    for (const auto& s : shards)
        if (s.status == ShardStatus::Running || s.status == ShardStatus::Pending)
            return true;
    return mergeState && (mergeState->waiting() || mergeState->state == SlurmJobState::Running ||
                          mergeState->state == SlurmJobState::Completing);
}

namespace {

// squeue's view of a run: every shard's latest task, and the merge job.
struct QueueView {
    bool known = false;            // squeue answered for every array
    std::map<int, SlurmJob> tasks; // by shard
    std::optional<SlurmJob> merge;
};

QueueView readQueue(const SlurmRun& r)
{
    QueueView v;
    // The latest array that holds a shard's task wins (resumeSlurmRun resubmits shards).
    std::vector<std::string> arrays{r.arrayJob};
    arrays.insert(arrays.end(), r.resubmittedArrays.begin(), r.resubmittedArrays.end());
    v.known = !r.arrayJob.empty();
    for (const auto& a : arrays) {
        const auto q = querySlurmJob(a);
        if (!q) {
            v.known = false;
            break;
        }
        for (const auto& [task, job] : *q)
            if (task >= 0)
                v.tasks[task] = job;
    }
    if (v.known && !r.mergeJob.empty()) {
        if (const auto q = querySlurmJob(r.mergeJob); q && q->count(-1))
            v.merge = q->at(-1);
    }
    return v;
}

// Shard i's progress from its database and (when the queue is known) its task.
ShardProgress shardProgress(const SlurmRun& r, int i, const QueueView& queue)
{
    ShardProgress p;
    p.shard = i;
    p.planned = ShardSpec{i, r.shards}.planned(r.runPlanned);
    bool haveDb = false, dbRunning = false;
    std::error_code ec;
    if (fs::exists(r.shardDb(i), ec)) {
        try {
            const ResultsDb db = ResultsDb::open(r.shardDb(i));
            const TableCounts c = db.counts();
            const RunInfo info = db.runInfo();
            p.done = c.snippets;
            p.errors = c.errors;
            p.planned = info.planned;
            dbRunning = info.status == RunStatus::Running;
            haveDb = true;
        } catch (const std::exception&) {
            // Being created this very moment (no run row yet): nothing stored.
        }
    }
    const auto t = queue.tasks.find(i);
    const SlurmJob* task = t == queue.tasks.end() ? nullptr : &t->second;
    if (task) {
        p.job = task->id;
        p.jobState = *task;
    }
    if (haveDb && p.done >= p.planned && p.planned > 0)
        p.status = ShardStatus::Complete;
    else if (task && task->running())
        p.status = ShardStatus::Running;
    else if (task && task->queued())
        p.status = ShardStatus::Pending;
    else if (queue.known)
        p.status = ShardStatus::Stopped; // ended (or forgotten by the controller) before its shard was complete
    else if (haveDb)
        p.status = dbRunning ? ShardStatus::Running : ShardStatus::Stopped;
    else
        p.status = ShardStatus::Unknown;
    return p;
}

// What to do next, when something needs the user.
std::string hintFor(const SlurmRun& r, const SlurmRunStatus& st)
{
    const std::string dir = r.dir.string();
    std::vector<std::string> stopped;
    for (const auto& p : st.shards)
        if (p.status == ShardStatus::Stopped)
            stopped.push_back(std::to_string(p.shard));
    if (st.merged)
        return "merged: " + r.mergedDb().string();
    if (!stopped.empty()) {
        std::string list;
        for (const auto& s : stopped)
            list += (list.empty() ? "" : ", ") + s;
        return "shard" + std::string(stopped.size() > 1 ? "s " : " ") + list +
               " stopped before finishing (cancelled, failed or out of time): `ascviz-cli slurm resume " + dir +
               "` resubmits " + (stopped.size() > 1 ? "them" : "it") + " and the merge job";
    }
    if (st.mergeState && st.mergeState->dependencyNeverSatisfied)
        return "the merge job can no longer start (a shard task was cancelled or failed, even if requeued since): "
               "`ascviz-cli slurm resume " +
               dir + "` submits a new one";
    if (st.done == st.planned && st.queueKnown && !st.mergeState)
        return "every shard is complete but no merge job is queued: `ascviz-cli slurm resume " + dir + "` submits one";
    return {};
}

} // namespace

SlurmRunStatus readSlurmStatus(const SlurmRun& r, bool askQueue)
{
    SlurmRunStatus st;
    const QueueView queue = askQueue ? readQueue(r) : QueueView{};
    st.queueKnown = queue.known;
    st.mergeJob = r.mergeJob;
    st.mergeState = queue.merge;
    for (int i = 0; i < r.shards; ++i) {
        st.shards.push_back(shardProgress(r, i, queue));
        st.done += st.shards.back().done;
        st.planned += st.shards.back().planned;
    }
    std::error_code ec;
    if (fs::exists(r.mergedDb(), ec)) {
        try {
            st.mergedSnippets = ResultsDb::open(r.mergedDb()).counts().snippets;
            st.merged = true;
        } catch (const std::exception&) {
        }
    }
    st.hint = hintFor(r, st);
    return st;
}

ResumeResult resumeSlurmRun(SlurmRun& r, bool dryRun)
{
    ResumeResult res;
    const SlurmRunStatus st = readSlurmStatus(r, true);
    if (st.merged)
        throw InputError("the run in " + r.dir.string() + " is already merged (" + r.mergedDb().string() + ")");
    if (!st.queueKnown && !dryRun)
        throw Error("cannot resume: squeue does not answer (is this a Slurm login node, with SLURM_CONF set?)");
    std::vector<std::string> liveTasks;
    for (const auto& s : st.shards) {
        if (s.status == ShardStatus::Complete)
            continue;
        if (s.status == ShardStatus::Running || s.status == ShardStatus::Pending)
            liveTasks.push_back(s.job);
        else
            res.resubmitted.push_back(s.shard);
    }
    if (dryRun)
        return res;
    if (!r.mergeJob.empty()) {
        if (const auto q = querySlurmJob(r.mergeJob); q && q->count(-1)) {
            const SlurmJob& m = q->at(-1);
            if (m.running())
                throw InputError("the merge job " + r.mergeJob + " is running; wait for it to end");
            if (m.queued()) {
                const ProcessResult c = runProcess({"scancel", r.mergeJob});
                if (!c.succeeded())
                    throw ProcessError("cannot cancel the old merge job " + r.mergeJob + ": " + firstLine(c.err),
                                       "scancel", c.outcome);
                res.cancelledMerge = r.mergeJob;
            }
        }
    }
    std::string dependency;
    if (!res.resubmitted.empty()) {
        std::string list;
        for (int s : res.resubmitted)
            list += (list.empty() ? "" : ",") + std::to_string(s);
        res.arrayJob = submit({"sbatch", "--parsable", "--array=" + list, r.batchScript().string()});
        r.resubmittedArrays.push_back(res.arrayJob);
        saveSlurmRun(r);
        dependency = res.arrayJob;
    }
    for (const auto& t : liveTasks)
        dependency += (dependency.empty() ? "" : ":") + t;
    std::vector<std::string> argv{"sbatch", "--parsable"};
    if (!dependency.empty())
        argv.push_back("--dependency=afterok:" + dependency);
    argv.push_back(r.mergeScript().string());
    res.mergeJob = submit(argv);
    r.mergeJob = res.mergeJob;
    saveSlurmRun(r);
    return res;
}

} // namespace ascviz
