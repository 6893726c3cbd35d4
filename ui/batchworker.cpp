#include "batchworker.h"
#include "batchresults.h"

#include "textpos.h"

#include "ascviz/base/error.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include <algorithm>
#include <cmath>

namespace ascviz::ui {

namespace {
std::string toStd(const QString& s)
{
    const QByteArray b = s.toUtf8();
    return std::string(b.constData(), static_cast<std::size_t>(b.size()));
}
} // namespace

// ---------------------------------------------------------------- result sets

BatchResultPtr loadResultSet(const QString& path, const BootstrapOptions& opts)
{
    const auto db = ResultsDb::open(toStd(path));
    auto set = std::make_shared<BatchResultSet>();
    set->path = path;
    set->stats = computeStats(db, opts);
    set->snippets = db.snippets();
    set->label = toQString(set->stats.run.modelName);
    set->modelDir = toQString(set->stats.run.modelDir);
    return set;
}

BoxStats boxStats(std::vector<double> v)
{
    BoxStats b;
    if (v.empty())
        return b;
    std::sort(v.begin(), v.end());
    b.n = static_cast<int>(v.size());
    b.q1 = percentileSorted(v, 25);
    b.median = percentileSorted(v, 50);
    b.q3 = percentileSorted(v, 75);
    const double iqr = b.q3 - b.q1;
    const double lo = b.q1 - 1.5 * iqr, hi = b.q3 + 1.5 * iqr;
    b.lowerWhisker = *std::lower_bound(v.begin(), v.end(), lo);
    b.upperWhisker = *(std::upper_bound(v.begin(), v.end(), hi) - 1);
    return b;
}

std::vector<double> snippetValues(const BatchResultSet& s)
{
    std::vector<double> out;
    for (const auto& v : s.stats.snippetAscEval)
        if (v)
            out.push_back(*v);
    return out;
}

// ---------------------------------------------------------------- worker

BatchWorker::BatchWorker(std::shared_ptr<std::atomic<bool>> cancel, std::shared_ptr<std::atomic<bool>> pause)
    : m_cancel(std::move(cancel)), m_pause(std::move(pause))
{
}

BatchWorker::~BatchWorker() = default;

void BatchWorker::run(const BatchJob& job)
{
    BatchOutcome out;
    out.db = job.db;
    out.modelDir = job.modelDir;
    try {
        Q_EMIT stage(tr("Reading corpus…"));
        const Corpus corpus = readCorpus(toStd(job.corpus));
        for (const auto& i : corpus.issues)
            out.corpusIssues << toQString(i.location + ": " + i.message);
        if (!job.resume && QFileInfo::exists(job.db))
            throw InputError("results database " + toStd(job.db) +
                             " already exists; use Resume to continue it or choose another file");
        if (!m_model || m_modelDir != job.modelDir || m_device != job.device || m_dtype != job.dtype) {
            m_model.reset();
            Q_EMIT stage(tr("Loading model %1…").arg(QFileInfo(job.modelDir).fileName()));
            LoadOptions lo;
            lo.device = toStd(job.device);
            lo.dtype = toStd(job.dtype);
            m_model = LanguageModel::load(toStd(job.modelDir), lo);
            m_modelDir = job.modelDir;
            m_device = job.device;
            m_dtype = job.dtype;
        }
        Q_EMIT stage(tr("Evaluating…"));
        BatchOptions opts;
        opts.aggregation = job.aggregation;
        opts.limit = job.limit;
        opts.resume = job.resume;
        opts.cancel = m_cancel.get();
        opts.pause = m_pause.get();
        opts.modelDir = toStd(job.modelDir);
        QElapsedTimer throttle;
        throttle.start();
        bool lastPaused = false;
        opts.progress = [&](const BatchProgress& p) {
            // Throttled: at most every 100 ms, plus the first, the last and pause changes.
            if (p.done != p.resumed && p.done < p.total && p.paused == lastPaused && throttle.elapsed() < 100)
                return;
            throttle.restart();
            lastPaused = p.paused;
            BatchProgressInfo i;
            i.done = p.done;
            i.total = p.total;
            i.resumed = p.resumed;
            i.errors = p.errors;
            i.tokens = p.tokens;
            i.snippetsPerSecond = p.snippetsPerSecond;
            i.tokensPerSecond = p.tokensPerSecond;
            i.etaSeconds = p.etaSeconds;
            i.paused = p.paused;
            i.currentId = toQString(p.currentId);
            Q_EMIT progress(i);
        };
        const BatchSummary s = runBatch(*m_model, corpus, toStd(job.db), opts);
        out.ok = true;
        out.cancelled = s.cancelled;
        out.complete = s.complete;
        out.stored = s.stored;
        out.resumed = s.resumed;
        out.total = s.total;
        out.errors = s.errors;
        out.windowed = s.windowed;
        out.tokens = s.tokens;
        out.seconds = s.seconds;
        const double sps = s.seconds > 0 ? s.stored / s.seconds : 0;
        const double tps = s.seconds > 0 ? static_cast<double>(s.tokens) / s.seconds : 0;
        out.message = tr("%1 %2 of %3 snippets (%4 new, %5 errors, %6 windowed) — %7 snippets/s, %8 tokens/s")
                          .arg(s.cancelled ? tr("Cancelled at") : tr("Done:"))
                          .arg(s.resumed + s.stored)
                          .arg(s.total)
                          .arg(s.stored)
                          .arg(s.errors)
                          .arg(s.windowed)
                          .arg(sps, 0, 'f', 1)
                          .arg(tps, 0, 'f', 0);
    } catch (const std::exception& e) {
        out.ok = false;
        out.message = toQString(e.what());
    }
    Q_EMIT finished(out);
}

} // namespace ascviz::ui
