#include "pages/batch/batchrunner.h"

#include "common/textpos.h"
#include "services/jobtracker.h"

#include "ascviz/base/error.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>

namespace ascviz::ui {

namespace {
std::string toStd(const QString& s)
{
    const QByteArray b = s.toUtf8();
    return std::string(b.constData(), static_cast<std::size_t>(b.size()));
}
QString tr(const char* s)
{
    return QCoreApplication::translate("ascviz::ui::BatchRunner", s);
}
} // namespace

BatchOutcome runBatchJob(const LanguageModel& model, const BatchJob& job, JobContext& ctx,
                         const std::atomic<bool>* pause, const std::function<void(const BatchProgressInfo&)>& progress)
{
    BatchOutcome out;
    out.db = job.db;
    out.modelDir = job.modelDir;
    try {
        ctx.setProgress(-1, tr("Reading corpus…"));
        CorpusReadOptions ro; // "" = each snippet's own language (field or extension), else the default
        ro.language = toStd(job.language);
        const Corpus corpus = readCorpus(toStd(job.corpus), ro);
        for (const auto& i : corpus.issues)
            out.corpusIssues << toQString(i.location + ": " + i.message);
        if (!job.resume && QFileInfo::exists(job.db))
            throw InputError("results database " + toStd(job.db) +
                             " already exists; use Resume to continue it or choose another file");
        ctx.setProgress(0, tr("Evaluating…"));
        BatchOptions opts;
        opts.aggregation = job.aggregation;
        opts.language = toStd(job.language);
        opts.limit = job.limit;
        opts.resume = job.resume;
        opts.cancel = ctx.cancelFlag();
        opts.pause = pause;
        opts.modelDir = toStd(job.modelDir);
        QElapsedTimer throttle;
        throttle.start();
        bool lastPaused = false;
        opts.progress = [&](const BatchProgress& p) {
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
            ctx.setProgress(p.total > 0 ? double(p.done) / p.total : -1);
            if (progress)
                progress(i);
        };
        const BatchSummary s = runBatch(model, corpus, toStd(job.db), opts);
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
    return out;
}

} // namespace ascviz::ui
