// Slurm's view of jobs, as squeue reports it. squeue's text is parsed here, once, into a job state enum and
// the few facts AsC-Viz acts on; front ends print a job through toString, which gives back squeue's own
// words ("RUNNING", "PENDING (DependencyNeverSatisfied)").
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ascviz {

// squeue(1), JOB STATE CODES (%T).
enum class SlurmJobState {
    BootFail,
    Cancelled,
    Completed,
    Configuring,
    Completing,
    Deadline,
    Failed,
    NodeFail,
    OutOfMemory,
    Pending,
    Preempted,
    Running,
    ResvDelHold,
    RequeueFed,
    RequeueHold,
    Requeued,
    Resizing,
    Revoked,
    Signaling,
    SpecialExit,
    StageOut,
    Stopped,
    Suspended,
    Timeout,
    Other, // a state this AsC-Viz does not know (SlurmJob::otherState keeps squeue's word)
};

// The state's code as squeue prints it ("PENDING", "OUT_OF_MEMORY"); "" for Other.
std::string toString(SlurmJobState state);
// A state code as squeue prints it; Other for any other text.
SlurmJobState parseSlurmJobState(std::string_view code);

// One job, or one task of an array job, as squeue lists it.
struct SlurmJob {
    std::string id; // as squeue prints it: "123" (a job), "123_4" (task 4 of array job 123)
    SlurmJobState state = SlurmJobState::Other;
    std::string otherState;                // squeue's word when state is Other
    std::string reason;                    // why it waits or ended (squeue's %r); "" when squeue says None
    bool dependencyNeverSatisfied = false; // waits on a job that failed or was cancelled: it can never start

    // Still in the queue: waiting, running, or held to be run again (it may yet finish).
    bool queued() const;
    // Running, or starting or ending on its node.
    bool running() const;
    // Waiting in the queue with a chance to start.
    bool waiting() const { return state == SlurmJobState::Pending && !dependencyNeverSatisfied; }
};

// squeue's words for the job: the state, and the reason in parentheses when there is one ("RUNNING",
// "PENDING (BeginTime)").
std::string toString(const SlurmJob& job);

// The lines of `squeue -h -r -o '%i|%T|%r'`: array tasks under their task index, a plain job under -1. Lines
// of another shape, and arrays not unfolded into tasks ("123_[0-3]"), are left out.
std::map<int, SlurmJob> parseSqueue(const std::string& text);

// Asks squeue about one job and its tasks, ended ones included (-t all). nullopt when squeue cannot be run or
// fails; empty for an empty job id, or one the controller no longer knows (purged after MinJobAge).
std::optional<std::map<int, SlurmJob>> querySlurmJob(const std::string& job);

} // namespace ascviz
