// Corpus runs on a Slurm cluster: a run folder with one sbatch array job (one task per shard, each running
// `ascviz-cli batch --resume --shard I/N` into its own results database) and a merge job that depends on
// it (afterok). Slurm schedules; AsC-Viz writes the scripts, submits them with `sbatch`, and reads progress
// back from the shard databases (and, where `squeue` answers, the jobs' states).
//
// The run folder (docs/cluster.md):
//   run.json                   the request (paths, shards, options) and the submitted job ids
//   batch.sbatch, merge.sbatch the two job scripts (site lines: --partition, --gres, --time, --sbatch-extra)
//   shards/shard-I-of-N.db     one results database per shard (shards.h)
//   logs/                      Slurm's output of every task (appended across requeues)
//   all.db                     the merged results, written by the merge job
#pragma once
#include "ascviz/cluster/slurmqueue.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ascviz {

struct SlurmRun {
    std::filesystem::path dir;    // absolute
    std::filesystem::path cli;    // absolute path of the ascviz-cli the jobs run (a shared file system)
    std::filesystem::path model;  // absolute model folder
    std::filesystem::path corpus; // absolute corpus file or folder
    int shards = 1;
    std::vector<std::string> batchOptions; // passed to every `batch` (--language, --limit, --batch-size ...)
    std::string partition, gres, time;     // empty: the site's default
    std::vector<std::string> sbatchExtra;  // whole option lines for the site ("--account=abc", "--qos=x")
    // Of the corpus when submitted (for progress before any shard database exists):
    std::string corpusFingerprint;
    int64_t runPlanned = 0;
    // Submitted jobs (empty with --dry-run).
    std::string arrayJob, mergeJob;
    std::vector<std::string> resubmittedArrays; // `slurm resume`: later arrays (their task ids are shards)
    std::string created;

    std::filesystem::path shardDb(int shard) const;
    std::filesystem::path mergedDb() const { return dir / "all.db"; }
    std::filesystem::path batchScript() const { return dir / "batch.sbatch"; }
    std::filesystem::path mergeScript() const { return dir / "merge.sbatch"; }
};

// Writes the run folder (creating it; refuses a folder that already holds a run.json) with both scripts.
// Throws InputError on bad paths or options.
void writeSlurmRun(const SlurmRun& run);
// Reads DIR/run.json; throws InputError when DIR is not a run folder.
SlurmRun readSlurmRun(const std::filesystem::path& dir);
void saveSlurmRun(const SlurmRun& run); // rewrites run.json (job ids)

// The text of the two scripts (writeSlurmRun writes them).
std::string batchScriptText(const SlurmRun& run);
std::string mergeScriptText(const SlurmRun& run);

// Submits both jobs with sbatch (the merge job with --dependency=afterok:<array job>) and records their ids
// in run.json. Throws Error with sbatch's message when a submission fails.
void submitSlurmRun(SlurmRun& run);

// Where a shard stands.
enum class ShardStatus {
    Complete, // every planned snippet is stored
    Running,  // its task runs (or, with no queue answer, its database says so)
    Pending,  // its task is queued, nothing stored yet
    Stopped,  // not complete, not queued: cancelled, failed or out of time (`resumeSlurmRun` continues it)
    Unknown,  // no database and no queue answer
};
// "complete" | "running" | "pending" | "stopped" | "unknown"
std::string toString(ShardStatus status);

struct ShardProgress {
    int shard = 0;
    int64_t done = 0;    // snippets stored
    int64_t errors = 0;  // of them, status error
    int64_t planned = 0; // snippets of this shard
    ShardStatus status = ShardStatus::Unknown;
    std::string job;                  // the Slurm task id (JOB_TASK) where known
    std::optional<SlurmJob> jobState; // squeue's view of that task, where known
};

struct SlurmRunStatus {
    std::vector<ShardProgress> shards;
    int64_t done = 0, planned = 0;
    std::string mergeJob;
    std::optional<SlurmJob> mergeState; // squeue's view of the merge job, where known
    bool merged = false;                // all.db exists
    int64_t mergedSnippets = 0;
    bool queueKnown = false; // squeue answered
    std::string hint;        // what to do next, when something needs the user

    // Something queued may still change this picture: a shard task waiting or running, or a merge job that
    // waits with a chance to start, or runs.
    bool inProgress() const;
};

// Progress from the shard databases (opened read-only; a database being written is fine) and, when
// `askQueue` and squeue answers, the jobs' states.
SlurmRunStatus readSlurmStatus(const SlurmRun& run, bool askQueue = true);

struct ResumeResult {
    std::vector<int> resubmitted; // shards given a new array task
    std::string arrayJob;         // the new array job ("" when nothing was resubmitted)
    std::string mergeJob;         // the new merge job
    std::string cancelledMerge;   // the old merge job, cancelled ("" when it had already ended)
};
// Continues a run after cancelled, failed or timed-out tasks: resubmits (as a new array) every shard that is
// neither complete nor queued, cancels the old merge job if it is still waiting, and submits a new one that
// depends (afterok) on every shard task still queued. Throws InputError when the run is already merged.
ResumeResult resumeSlurmRun(SlurmRun& run, bool dryRun);

} // namespace ascviz
