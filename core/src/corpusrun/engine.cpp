// The corpus-run engine (engine.h): the slice, the progress clock, the loop over pending items, the run lock.
#include "ascviz/corpusrun/engine.h"

#include "ascviz/base/error.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>

namespace ascviz {
namespace {

double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace

void checkShard(const ShardSpec& shard)
{
    if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
        throw InputError("shard " + shard.toString() + " is not I/N with 0 <= I < N");
}

RunSlice planSlice(int items, int limit, const ShardSpec& shard)
{
    checkShard(shard);
    RunSlice s;
    s.shard = shard;
    s.runTotal = limit > 0 ? std::min(limit, items) : items;
    for (int i = 0; i < s.runTotal; ++i)
        if (shard.contains(i))
            s.mine.push_back(i);
    return s;
}

RunQueue pendingItems(const std::vector<int>& mine, const std::function<bool(int)>& stored)
{
    RunQueue q;
    q.total = static_cast<int>(mine.size());
    for (int i : mine) {
        if (stored(i))
            ++q.resumed;
        else
            q.pending.push_back(i);
    }
    return q;
}

ProgressClock::ProgressClock(const RunControls& controls, int total, int resumed) : m_controls(controls), m_start(now())
{
    m_prog.total = total;
    m_prog.done = resumed;
    m_prog.resumed = resumed;
}

double ProgressClock::worked() const
{
    return now() - m_start - m_pausedSeconds;
}

void ProgressClock::emit(const std::string& id)
{
    RunProgress& p = m_prog;
    p.currentId = id;
    p.elapsed = worked();
    const int storedNow = p.done - p.resumed;
    p.snippetsPerSecond = p.elapsed > 0 ? storedNow / p.elapsed : 0;
    p.tokensPerSecond = p.elapsed > 0 ? static_cast<double>(p.tokens) / p.elapsed : 0;
    p.etaSeconds =
        p.snippetsPerSecond > 0 ? (p.total - p.done) / p.snippetsPerSecond : (p.done >= p.total ? 0.0 : -1.0);
    if (m_controls.progress)
        m_controls.progress(p);
}

bool ProgressClock::waitWhilePaused()
{
    if (!m_controls.pauseRequested())
        return !m_controls.cancelRequested();
    const double p0 = now();
    m_prog.paused = true;
    emit(m_prog.currentId);
    while (m_controls.pauseRequested() && !m_controls.cancelRequested())
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
    m_prog.paused = false;
    m_pausedSeconds += now() - p0;
    if (!m_controls.cancelRequested())
        emit(m_prog.currentId);
    return !m_controls.cancelRequested();
}

RunTally runItems(ProgressClock& clock, const RunQueue& queue,
                  const std::function<std::optional<ItemOutcome>(int)>& work)
{
    RunTally t;
    t.total = queue.total;
    t.resumed = queue.resumed;
    clock.emit({});
    RunProgress& prog = clock.progress();
    for (int i : queue.pending) {
        if (!clock.waitWhilePaused()) {
            t.cancelled = true;
            break;
        }
        const std::optional<ItemOutcome> o = work(i);
        if (!o) {
            t.cancelled = true;
            break;
        }
        ++t.stored;
        ++prog.done;
        if (!o->ok) {
            ++t.errors;
            ++prog.errors;
        }
        t.tokens += o->tokens;
        prog.tokens = t.tokens;
        clock.emit(o->id);
    }
    t.seconds = clock.worked();
    return t;
}

RunLock::RunLock(const std::filesystem::path& file, const std::string& who)
{
    m_fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0)
        return; // SQLite reports what is wrong with the file
    if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        ::close(m_fd);
        m_fd = -1;
        if (err == EWOULDBLOCK) {
            ErrorContext where(file.string());
            where.remedy = Remedy::Resume | Remedy::NewOutput;
            throw InputError("results database " + file.string() + " is being written by another " + who +
                                 "; wait for it to end (or stop it)",
                             where);
        }
    }
}

RunLock::~RunLock()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

} // namespace ascviz
