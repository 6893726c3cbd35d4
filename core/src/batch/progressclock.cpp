// runBatch's progress (progressclock.h).
#include "progressclock.h"

#include <thread>

namespace ascviz {

bool cancelRequested(const BatchOptions& opts)
{
    return opts.cancel && opts.cancel->load();
}

bool pauseRequested(const BatchOptions& opts)
{
    return opts.pause && opts.pause->load();
}

ProgressClock::ProgressClock(const BatchOptions& opts, int total, int resumed) : m_opts(opts), m_start(Clock::now())
{
    m_prog.total = total;
    m_prog.done = resumed;
    m_prog.resumed = resumed;
}

double ProgressClock::worked() const
{
    return std::chrono::duration<double>(Clock::now() - m_start).count() - m_pausedSeconds;
}

void ProgressClock::emit(const std::string& id)
{
    BatchProgress& p = m_prog;
    p.currentId = id;
    p.elapsed = worked();
    const int storedNow = p.done - p.resumed;
    p.snippetsPerSecond = p.elapsed > 0 ? storedNow / p.elapsed : 0;
    p.tokensPerSecond = p.elapsed > 0 ? static_cast<double>(p.tokens) / p.elapsed : 0;
    p.etaSeconds =
        p.snippetsPerSecond > 0 ? (p.total - p.done) / p.snippetsPerSecond : (p.done >= p.total ? 0.0 : -1.0);
    if (m_opts.progress)
        m_opts.progress(p);
}

bool ProgressClock::waitWhilePaused()
{
    if (!pauseRequested(m_opts))
        return !cancelRequested(m_opts);
    const auto p0 = Clock::now();
    m_prog.paused = true;
    emit(m_prog.currentId);
    while (m_opts.pause->load() && !cancelRequested(m_opts))
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
    m_prog.paused = false;
    m_pausedSeconds += std::chrono::duration<double>(Clock::now() - p0).count();
    if (!cancelRequested(m_opts))
        emit(m_prog.currentId);
    return !cancelRequested(m_opts);
}

} // namespace ascviz
