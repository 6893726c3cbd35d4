// The scoring half of runBatch's pipeline (pipeline.h): groups of pending snippets parsed and scored, on the
// runner's thread or on a scoring thread ahead of it.
#include "pipeline.h"

#include <algorithm>
#include <chrono>

namespace ascviz {

using Clock = std::chrono::steady_clock;

GroupScorer::GroupScorer(const LanguageModel& model, const Corpus& corpus, const BatchOptions& opts,
                         const std::vector<int>& pending)
    : m_model(model), m_corpus(corpus), m_opts(opts), m_pending(pending),
      m_group(static_cast<std::size_t>(std::max(1, opts.batchSize)))
{
}

ScoredGroup GroupScorer::score(std::size_t g) const
{
    ScoredGroup sg;
    sg.begin = g;
    sg.end = std::min(m_pending.size(), g + m_group);
    sg.texts.resize(sg.end - g);
    sg.trees.resize(sg.end - g);
    const auto t0 = Clock::now();
    std::vector<std::string> texts;
    std::vector<std::size_t> slot;
    for (std::size_t k = g; k < sg.end; ++k) {
        const CorpusEntry& e = m_corpus.entries[static_cast<std::size_t>(m_pending[k])];
        if (m_opts.maxTextBytes > 0 && e.code.size() > m_opts.maxTextBytes)
            continue;
        try {
            sg.trees[k - g].emplace(
                parseForEval(languageOf(e, m_opts), e.code, m_opts.maxAstDepth, m_opts.maxAstNodes));
        } catch (const std::exception&) {
            continue;
        }
        texts.push_back(e.code);
        slot.push_back(k - g);
    }
    if (!texts.empty()) {
        try {
            ScoreOptions so;
            so.topK = 0;
            auto res = m_model.scoreBatch(texts, so);
            for (std::size_t k = 0; k < res.size() && k < slot.size(); ++k)
                sg.texts[slot[k]] = std::move(res[k]);
        } catch (const std::exception&) {
            for (auto& t : sg.texts)
                t.reset();
        }
    }
    sg.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return sg;
}

GroupSource::GroupSource(const GroupScorer& scorer, std::size_t pending, bool overlap, ProgressClock& clock,
                         const RunControls& controls)
    : m_scorer(scorer), m_pending(pending), m_overlap(overlap), m_clock(clock), m_controls(controls)
{
    if (m_overlap)
        m_producer = std::thread([this] { produce(); });
}

GroupSource::~GroupSource()
{
    {
        std::lock_guard lk(m_mu);
        m_stop = true;
    }
    m_cv.notify_all();
    if (m_producer.joinable())
        m_producer.join();
}

void GroupSource::produce()
{
    try {
        for (std::size_t g = 0; g < m_pending; g += m_scorer.groupSize()) {
            {
                std::unique_lock lk(m_mu);
                m_cv.wait(lk, [&] { return m_stop || m_ready.size() < kAhead; });
                if (m_stop)
                    break;
            }
            while (m_controls.pauseRequested() && !m_controls.cancelRequested() && !m_stop)
                std::this_thread::sleep_for(std::chrono::milliseconds(30));
            if (m_controls.cancelRequested() || m_stop)
                break;
            ScoredGroup sg = m_scorer.score(g);
            {
                std::lock_guard lk(m_mu);
                m_ready.push_back(std::move(sg));
            }
            m_cv.notify_all();
        }
    } catch (...) {
        std::lock_guard lk(m_mu);
        m_error = std::current_exception();
    }
    {
        std::lock_guard lk(m_mu);
        m_producerDone = true;
    }
    m_cv.notify_all();
}

std::optional<ScoredGroup> GroupSource::next()
{
    if (!m_overlap) { // taking turns on this thread: score a group, then store it
        if (m_nextGroup >= m_pending)
            return std::nullopt;
        if (!m_clock.waitWhilePaused()) {
            m_cancelled = true;
            return std::nullopt;
        }
        ScoredGroup sg = m_scorer.score(m_nextGroup);
        m_nextGroup += m_scorer.groupSize();
        return sg;
    }
    std::unique_lock lk(m_mu);
    m_cv.wait(lk, [&] { return !m_ready.empty() || m_producerDone; });
    if (m_ready.empty()) {
        if (m_error)
            std::rethrow_exception(m_error);
        return std::nullopt;
    }
    ScoredGroup sg = std::move(m_ready.front());
    m_ready.pop_front();
    lk.unlock();
    m_cv.notify_all();
    return sg;
}

} // namespace ascviz
