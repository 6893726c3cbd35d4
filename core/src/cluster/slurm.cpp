// Corpus runs on a Slurm cluster (slurm.h).
#include "ascviz/cluster/slurm.h"

#include "ascviz/base/error.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/shards.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

extern char** environ;

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

// The task id of an array job's task as squeue prints it ("123_4"), or the job id itself.
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
    const ProgramResult r = runProgram(argv);
    if (r.exitCode == -1)
        throw Error("cannot run sbatch: " + r.err + " (is Slurm's sbatch on PATH?)");
    std::string id = firstLine(r.out);
    id = id.substr(0, id.find(';'));
    if (r.exitCode != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
        throw Error("sbatch failed (exit " + std::to_string(r.exitCode) +
                    "): " + firstLine(r.err.empty() ? r.out : r.err));
    return id;
}

struct JobState {
    std::string state;  // PENDING, RUNNING, COMPLETED, CANCELLED ...
    std::string reason; // squeue's %r
    std::string id;     // as squeue prints it
};

// squeue's view of one job (array tasks unfolded: task index -> state; a plain job under key -1).
std::optional<std::map<int, JobState>> queueOf(const std::string& job)
{
    if (job.empty())
        return std::map<int, JobState>{};
    const ProgramResult r = runProgram({"squeue", "-h", "-r", "-t", "all", "-j", job, "-o", "%i|%T|%r"});
    if (r.exitCode == -1)
        return std::nullopt;
    std::map<int, JobState> out;
    if (r.exitCode != 0) {
        // An id the controller no longer knows (purged after MinJobAge) is not an error of ours.
        if (r.err.find("Invalid job id") != std::string::npos)
            return out;
        return std::nullopt;
    }
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
        const auto a = line.find('|');
        const auto b = line.find('|', a == std::string::npos ? a : a + 1);
        if (a == std::string::npos || b == std::string::npos)
            continue;
        JobState st{line.substr(a + 1, b - a - 1), line.substr(b + 1), line.substr(0, a)};
        const auto us = st.id.find('_');
        int task = -1;
        if (us != std::string::npos) {
            try {
                task = std::stoi(st.id.substr(us + 1));
            } catch (const std::exception&) {
                continue; // "123_[0-3]": not unfolded
            }
        }
        out[task] = st;
    }
    return out;
}

bool isQueued(const std::string& state)
{
    static const char* live[] = {"PENDING",     "RUNNING",  "CONFIGURING", "COMPLETING", "REQUEUED",  "REQUEUE_HOLD",
                                 "REQUEUE_FED", "RESIZING", "SUSPENDED",   "STAGE_OUT",  "SIGNALING", "RESV_DEL_HOLD"};
    return std::find(std::begin(live), std::end(live), state) != std::end(live);
}

bool isRunning(const std::string& state)
{
    return state == "RUNNING" || state == "CONFIGURING" || state == "COMPLETING" || state == "STAGE_OUT";
}

std::string describe(const JobState& s)
{
    return s.reason.empty() || s.reason == "None" ? s.state : s.state + " (" + s.reason + ")";
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
        throw InputError("--shards must be at least 1");
    for (const auto& [what, p] : {std::pair{"the run folder", r.dir}, std::pair{"ascviz-cli", r.cli},
                                  std::pair{"the model folder", r.model}, std::pair{"the corpus", r.corpus}})
        if (!p.is_absolute())
            throw InputError(std::string(what) + " must be an absolute path: " + p.string());
    checkSiteValue("--partition", r.partition);
    checkSiteValue("--gres", r.gres);
    checkSiteValue("--time", r.time);
    for (const auto& e : r.sbatchExtra) {
        checkSiteValue("--sbatch-extra", e);
        if (e.rfind("--", 0) != 0 && e.rfind("-", 0) != 0)
            throw InputError("--sbatch-extra '" + e + "' is not an sbatch option (e.g. --account=abc)");
    }
    for (const auto& o : r.batchOptions)
        if (hasLineBreak(o))
            throw InputError("batch options must be one line each");
    std::error_code ec;
    if (fs::exists(r.dir / "run.json", ec))
        throw InputError(r.dir.string() + " already holds a run (run.json); choose another --out");
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
    if (!j.is_object() || j.value("format", "") != "ascviz-slurm-run")
        throw InputError(file.string() + " is not an AsC-Viz Slurm run file");
    const int version = j.value("version", 0);
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

ProgramResult runProgram(const std::vector<std::string>& argv)
{
    ProgramResult res;
    if (argv.empty())
        return res;
    int outPipe[2], errPipe[2];
    if (pipe2(outPipe, O_CLOEXEC) != 0)
        return res;
    if (pipe2(errPipe, O_CLOEXEC) != 0) {
        close(outPipe[0]);
        close(outPipe[1]);
        return res;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, outPipe[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errPipe[1], 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(outPipe[1]);
    close(errPipe[1]);
    if (rc != 0) {
        close(outPipe[0]);
        close(errPipe[0]);
        res.err = argv[0] + ": " + std::strerror(rc);
        return res;
    }
    std::array<pollfd, 2> fds{pollfd{outPipe[0], POLLIN, 0}, pollfd{errPipe[0], POLLIN, 0}};
    std::array<std::string*, 2> sinks{&res.out, &res.err};
    int open = 2;
    char buf[4096];
    while (open > 0) {
        if (poll(fds.data(), fds.size(), -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (std::size_t k = 0; k < fds.size(); ++k) {
            if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const ssize_t n = read(fds[k].fd, buf, sizeof buf);
            if (n > 0) {
                sinks[k]->append(buf, static_cast<std::size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                close(fds[k].fd);
                fds[k].fd = -1;
                --open;
            }
        }
    }
    for (auto& p : fds)
        if (p.fd >= 0)
            close(p.fd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    res.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return res;
}

void submitSlurmRun(SlurmRun& r)
{
    r.arrayJob = submit({"sbatch", "--parsable", r.batchScript().string()});
    saveSlurmRun(r);
    r.mergeJob = submit({"sbatch", "--parsable", "--dependency=afterok:" + r.arrayJob, r.mergeScript().string()});
    saveSlurmRun(r);
}

SlurmRunStatus readSlurmStatus(const SlurmRun& r, bool askQueue)
{
    SlurmRunStatus st;
    // Task states: the latest array that holds a shard's task wins (slurm resume resubmits shards).
    std::map<int, JobState> tasks;
    std::optional<JobState> merge;
    if (askQueue) {
        std::vector<std::string> arrays{r.arrayJob};
        arrays.insert(arrays.end(), r.resubmittedArrays.begin(), r.resubmittedArrays.end());
        st.queueKnown = !r.arrayJob.empty();
        for (const auto& a : arrays) {
            const auto q = queueOf(a);
            if (!q) {
                st.queueKnown = false;
                break;
            }
            for (const auto& [task, s] : *q)
                if (task >= 0)
                    tasks[task] = s;
        }
        if (st.queueKnown && !r.mergeJob.empty()) {
            if (const auto q = queueOf(r.mergeJob); q && q->count(-1))
                merge = q->at(-1);
        }
    }
    st.mergeJob = r.mergeJob;
    if (merge)
        st.mergeState = describe(*merge);

    std::vector<std::string> stopped;
    for (int i = 0; i < r.shards; ++i) {
        ShardProgress p;
        p.shard = i;
        p.planned = ShardSpec{i, r.shards}.planned(r.runPlanned);
        bool haveDb = false;
        bool dbRunning = false;
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
        const auto t = tasks.find(i);
        if (t != tasks.end()) {
            p.job = t->second.id;
            p.jobState = describe(t->second);
        }
        if (haveDb && p.done >= p.planned && p.planned > 0)
            p.status = "complete";
        else if (t != tasks.end() && isRunning(t->second.state))
            p.status = "running";
        else if (t != tasks.end() && isQueued(t->second.state))
            p.status = "pending";
        else if (st.queueKnown)
            p.status = "stopped"; // ended (or forgotten by the controller) before its shard was complete
        else if (haveDb)
            p.status = dbRunning ? "running" : "stopped";
        else
            p.status = "unknown";
        if (p.status == "stopped")
            stopped.push_back(std::to_string(i));
        st.done += p.done;
        st.planned += p.planned;
        st.shards.push_back(p);
    }
    std::error_code ec;
    if (fs::exists(r.mergedDb(), ec)) {
        try {
            st.mergedSnippets = ResultsDb::open(r.mergedDb()).counts().snippets;
            st.merged = true;
        } catch (const std::exception&) {
        }
    }
    const std::string dir = r.dir.string();
    if (st.merged) {
        st.hint = "merged: " + r.mergedDb().string();
    } else if (!stopped.empty()) {
        std::string list;
        for (const auto& s : stopped)
            list += (list.empty() ? "" : ", ") + s;
        st.hint = "shard" + std::string(stopped.size() > 1 ? "s " : " ") + list +
                  " stopped before finishing (cancelled, failed or out of time): `ascviz-cli slurm resume " + dir +
                  "` resubmits " + (stopped.size() > 1 ? "them" : "it") + " and the merge job";
    } else if (merge && merge->reason.find("DependencyNeverSatisfied") != std::string::npos) {
        st.hint = "the merge job can no longer start (a shard task was cancelled or failed, even if requeued since): "
                  "`ascviz-cli slurm resume " +
                  dir + "` submits a new one";
    } else if (st.done == st.planned && st.queueKnown && !merge) {
        st.hint =
            "every shard is complete but no merge job is queued: `ascviz-cli slurm resume " + dir + "` submits one";
    }
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
        if (s.status == "complete")
            continue;
        if (s.status == "running" || s.status == "pending")
            liveTasks.push_back(s.job);
        else
            res.resubmitted.push_back(s.shard);
    }
    if (dryRun)
        return res;
    if (!r.mergeJob.empty()) {
        if (const auto q = queueOf(r.mergeJob); q && q->count(-1)) {
            const JobState& m = q->at(-1);
            if (isRunning(m.state))
                throw InputError("the merge job " + r.mergeJob + " is running; wait for it (slurm status)");
            if (isQueued(m.state)) {
                const ProgramResult c = runProgram({"scancel", r.mergeJob});
                if (c.exitCode != 0)
                    throw Error("cannot cancel the old merge job " + r.mergeJob + ": " + firstLine(c.err));
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
