// Slurm's view of jobs (slurmqueue.h): squeue's text parsed once.
#include "ascviz/cluster/slurmqueue.h"

#include "ascviz/base/process.h"

#include <algorithm>
#include <array>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace ascviz {

namespace {

constexpr std::array<std::pair<SlurmJobState, std::string_view>, 24> kStateCodes{{
    {SlurmJobState::BootFail, "BOOT_FAIL"},
    {SlurmJobState::Cancelled, "CANCELLED"},
    {SlurmJobState::Completed, "COMPLETED"},
    {SlurmJobState::Configuring, "CONFIGURING"},
    {SlurmJobState::Completing, "COMPLETING"},
    {SlurmJobState::Deadline, "DEADLINE"},
    {SlurmJobState::Failed, "FAILED"},
    {SlurmJobState::NodeFail, "NODE_FAIL"},
    {SlurmJobState::OutOfMemory, "OUT_OF_MEMORY"},
    {SlurmJobState::Pending, "PENDING"},
    {SlurmJobState::Preempted, "PREEMPTED"},
    {SlurmJobState::Running, "RUNNING"},
    {SlurmJobState::ResvDelHold, "RESV_DEL_HOLD"},
    {SlurmJobState::RequeueFed, "REQUEUE_FED"},
    {SlurmJobState::RequeueHold, "REQUEUE_HOLD"},
    {SlurmJobState::Requeued, "REQUEUED"},
    {SlurmJobState::Resizing, "RESIZING"},
    {SlurmJobState::Revoked, "REVOKED"},
    {SlurmJobState::Signaling, "SIGNALING"},
    {SlurmJobState::SpecialExit, "SPECIAL_EXIT"},
    {SlurmJobState::StageOut, "STAGE_OUT"},
    {SlurmJobState::Stopped, "STOPPED"},
    {SlurmJobState::Suspended, "SUSPENDED"},
    {SlurmJobState::Timeout, "TIMEOUT"},
}};

bool isOneOf(SlurmJobState s, std::initializer_list<SlurmJobState> states)
{
    return std::find(states.begin(), states.end(), s) != states.end();
}

} // namespace

std::string toString(SlurmJobState state)
{
    for (const auto& [s, code] : kStateCodes)
        if (s == state)
            return std::string(code);
    return {};
}

SlurmJobState parseSlurmJobState(std::string_view code)
{
    for (const auto& [s, c] : kStateCodes)
        if (c == code)
            return s;
    return SlurmJobState::Other;
}

bool SlurmJob::queued() const
{
    using S = SlurmJobState;
    return isOneOf(state, {S::Pending, S::Running, S::Configuring, S::Completing, S::Requeued, S::RequeueHold,
                           S::RequeueFed, S::Resizing, S::Suspended, S::StageOut, S::Signaling, S::ResvDelHold});
}

bool SlurmJob::running() const
{
    using S = SlurmJobState;
    return isOneOf(state, {S::Running, S::Configuring, S::Completing, S::StageOut});
}

std::string toString(const SlurmJob& job)
{
    const std::string state = job.state == SlurmJobState::Other ? job.otherState : toString(job.state);
    return job.reason.empty() ? state : state + " (" + job.reason + ")";
}

std::map<int, SlurmJob> parseSqueue(const std::string& text)
{
    std::map<int, SlurmJob> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const auto a = line.find('|');
        const auto b = line.find('|', a == std::string::npos ? a : a + 1);
        if (a == std::string::npos || b == std::string::npos)
            continue;
        SlurmJob job;
        job.id = line.substr(0, a);
        const std::string code = line.substr(a + 1, b - a - 1);
        job.state = parseSlurmJobState(code);
        if (job.state == SlurmJobState::Other)
            job.otherState = code;
        job.reason = line.substr(b + 1);
        if (job.reason == "None")
            job.reason.clear();
        job.dependencyNeverSatisfied = job.reason.find("DependencyNeverSatisfied") != std::string::npos;
        const auto us = job.id.find('_');
        int task = -1;
        if (us != std::string::npos) {
            try {
                task = std::stoi(job.id.substr(us + 1));
            } catch (const std::exception&) {
                continue; // "123_[0-3]": not unfolded
            }
        }
        out[task] = std::move(job);
    }
    return out;
}

std::optional<std::map<int, SlurmJob>> querySlurmJob(const std::string& job)
{
    if (job.empty())
        return std::map<int, SlurmJob>{};
    const ProcessResult r = runProcess({"squeue", "-h", "-r", "-t", "all", "-j", job, "-o", "%i|%T|%r"});
    if (!r.started())
        return std::nullopt;
    if (r.exitCode != 0) {
        // An id the controller no longer knows (purged after MinJobAge) is not an error of ours.
        if (r.err.find("Invalid job id") != std::string::npos)
            return std::map<int, SlurmJob>{};
        return std::nullopt;
    }
    return parseSqueue(r.out);
}

} // namespace ascviz
