// The corpus-run engine: what every resumable, sharded run over the items of a corpus shares, whatever the
// item is (a batch snippet, a Galeras record x treatment, a heads text). Used by batch (batch.h) and Galeras
// runs (galerasrun/run.h).
//
//   RunSlice        the plan: the run's items (the first `limit` of them) and the shard this call evaluates
//                   (ShardSpec, results/shards.h: item k belongs to shard k mod N)
//   RunControls     the caller's cancel and pause flags and its progress callback
//   ProgressClock   the counters, the clock of work done in this call (paused time excluded), rates and ETA
//   runItems        the loop: skip the items already stored (resume), wait while paused, stop on cancel, let
//                   the caller store one item (in one transaction of its own: kill-safety) and count it
//   RunLock         one writer per run file (flock), so that a second run on the same file fails at once
//
// The item's work (score, generate, tally) and its storage stay with the caller; the engine holds no SQL.
#pragma once
#include "ascviz/results/shards.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ascviz {

// A run's progress, reported after each stored item (and once at the start).
struct RunProgress {
    int done = 0;                 // items stored (including those found stored when resuming)
    int total = 0;                // items planned (of this shard)
    int resumed = 0;              // of `done`, found already stored when the run started
    int errors = 0;               // items stored with status error (this call)
    int64_t tokens = 0;           // tokens scored in this call
    double elapsed = 0;           // seconds of work in this call (paused time excluded)
    double snippetsPerSecond = 0; // items stored per second of work (named for batch's snippets)
    double tokensPerSecond = 0;
    double etaSeconds = -1; // -1 while unknown
    bool paused = false;
    std::string currentId; // the item just stored
};

// The caller's flags, polled between items (safe to set from any thread), and its progress callback (called
// on the runner's thread).
struct RunControls {
    const std::atomic<bool>* cancel = nullptr;
    const std::atomic<bool>* pause = nullptr;
    std::function<void(const RunProgress&)> progress;
    bool cancelRequested() const { return cancel && cancel->load(); }
    bool pauseRequested() const { return pause && pause->load(); }
};

// Throws InputError unless 0 <= index < count.
void checkShard(const ShardSpec& shard);

// What one call of a run evaluates: of `items` items, the first `limit` (0 = all) make the run; `mine` are
// the positions of the given shard among them, in order. Throws InputError for a shard that is not I/N.
struct RunSlice {
    ShardSpec shard;
    int runTotal = 0;      // items of the whole run (all shards)
    std::vector<int> mine; // positions this call evaluates
};
RunSlice planSlice(int items, int limit, const ShardSpec& shard);

class ProgressClock {
public:
    // Starts the clock; `resumed` items of `total` are already stored.
    ProgressClock(const RunControls& controls, int total, int resumed);

    RunProgress& progress() { return m_prog; }
    // Seconds of work in this call, paused time excluded.
    double worked() const;
    // Updates the elapsed time, rates and ETA, and calls the progress callback; `id` is the item just stored.
    void emit(const std::string& id);
    // Waits while paused (reporting the pause and the end of it); returns false when cancelled.
    bool waitWhilePaused();

private:
    const RunControls& m_controls;
    RunProgress m_prog;
    double m_start = 0;
    double m_pausedSeconds = 0;
};

// One stored item, as the caller's work reports it.
struct ItemOutcome {
    std::string id;     // for the progress line
    bool ok = true;     // false: stored with its error
    int64_t tokens = 0; // tokens scored for it
};

struct RunTally {
    int total = 0;   // items of this call's slice
    int resumed = 0; // already stored before this call
    int stored = 0;  // stored by this call
    int errors = 0;
    int64_t tokens = 0;
    double seconds = 0; // work time (paused time excluded)
    bool cancelled = false;
};

// The items of a slice still to do: those `stored` does not report (a resumed run skips them).
struct RunQueue {
    int total = 0;   // items of the slice
    int resumed = 0; // already stored
    std::vector<int> pending;
};
RunQueue pendingItems(const std::vector<int>& mine, const std::function<bool(int)>& stored);

// The loop of a run over `queue.pending` (the clock made with the queue's total and resumed): reports once at
// the start; before each item waits while paused and stops on cancel; `work(position)` evaluates and stores
// that item in one transaction of its own and returns its outcome, or nullopt when it could not (a cancel
// during its work: nothing stored, the run stops as cancelled); each stored item is counted and reported.
RunTally runItems(ProgressClock& clock, const RunQueue& queue,
                  const std::function<std::optional<ItemOutcome>(int)>& work);

// One writer per run file: an exclusive flock(2) on the file for the whole run, so that a second run on the
// same file fails at once with a message instead of racing for the same items. flock locks are independent
// of SQLite's POSIX locks; the descriptor stays open until the run's connection has closed (closing any
// descriptor of the file would drop SQLite's POSIX locks). `who` names the run in the message ("batch run").
class RunLock {
public:
    RunLock(const std::filesystem::path& file, const std::string& who);
    ~RunLock();
    RunLock(const RunLock&) = delete;
    RunLock& operator=(const RunLock&) = delete;

private:
    int m_fd = -1;
};

} // namespace ascviz
