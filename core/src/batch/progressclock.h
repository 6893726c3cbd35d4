// runBatch's progress (batch.h: BatchProgress): the counters, the clock of work done in this call (paused
// time excluded) with the rates and the ETA drawn from it, the progress callback, and waiting while paused.
// Internal to the batch room; used on the runner's thread only.
#pragma once
#include "ascviz/batch/batch.h"

#include <chrono>
#include <string>

namespace ascviz {

// The caller's flags (BatchOptions::cancel, ::pause), safe to read from any thread.
bool cancelRequested(const BatchOptions& opts);
bool pauseRequested(const BatchOptions& opts);

class ProgressClock {
public:
    using Clock = std::chrono::steady_clock;

    // Starts the clock; `resumed` snippets of `total` are already stored.
    ProgressClock(const BatchOptions& opts, int total, int resumed);

    BatchProgress& progress() { return m_prog; }
    // Seconds of work in this call, paused time excluded.
    double worked() const;
    // Updates the elapsed time, rates and ETA, and calls the progress callback; `id` is the snippet just stored.
    void emit(const std::string& id);
    // Waits while paused (reporting the pause and the end of it); returns false when cancelled.
    bool waitWhilePaused();

private:
    const BatchOptions& m_opts;
    BatchProgress m_prog;
    Clock::time_point m_start;
    double m_pausedSeconds = 0;
};

} // namespace ascviz
