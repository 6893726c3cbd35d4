#include "pages/batch/batchrunner.h"

#include "common/errortext.h"
#include "common/textpos.h"
#include "services/jobtracker.h"

#include "ascviz/base/error.h"

#include <QCoreApplication>
#include <QElapsedTimer>

namespace ascviz::ui {

namespace {
QString tr(const char* s)
{
    return QCoreApplication::translate("ascviz::ui::BatchRunner", s);
}
} // namespace

BatchRunEnd runBatchJob(const LanguageModel& model, const BatchJob& job, JobContext& ctx,
                        const std::atomic<bool>* pause, const std::function<void(const BatchProgress&)>& progress)
{
    BatchRunEnd end;
    end.summary.db = job.db;
    try {
        ctx.setProgress(-1, tr("Reading corpus…"));
        CorpusReadOptions ro; // "" = each snippet's own language (field or extension), else the default
        ro.language = job.options.language;
        const Corpus corpus = readCorpus(job.corpus, ro);
        end.corpusIssues = corpus.issues;
        std::error_code ec;
        if (!job.options.resume && std::filesystem::exists(job.db, ec)) {
            ErrorContext where(job.db.string());
            where.remedy = Remedy::Resume | Remedy::NewOutput;
            throw InputError("results database " + job.db.string() + " already exists", where);
        }
        ctx.setProgress(0, tr("Evaluating…"));
        BatchOptions opts = job.options;
        opts.cancel = ctx.cancelFlag();
        opts.pause = pause;
        QElapsedTimer throttle;
        throttle.start();
        bool lastPaused = false;
        opts.progress = [&](const BatchProgress& p) {
            if (p.done != p.resumed && p.done < p.total && p.paused == lastPaused && throttle.elapsed() < 100)
                return;
            throttle.restart();
            lastPaused = p.paused;
            ctx.setProgress(p.total > 0 ? double(p.done) / p.total : -1);
            if (progress)
                progress(p);
        };
        end.summary = runBatch(model, corpus, job.db, opts);
    } catch (const std::exception& e) {
        end.error = errorMessage(e);
    }
    return end;
}

QString batchSummaryText(const BatchSummary& s)
{
    const double sps = s.seconds > 0 ? s.stored / s.seconds : 0;
    const double tps = s.seconds > 0 ? static_cast<double>(s.tokens) / s.seconds : 0;
    return tr("%1 %2 of %3 snippets (%4 new, %5 errors, %6 windowed) — %7 snippets/s, %8 tokens/s")
        .arg(s.cancelled ? tr("Cancelled at") : tr("Done:"))
        .arg(s.resumed + s.stored)
        .arg(s.total)
        .arg(s.stored)
        .arg(s.errors)
        .arg(s.windowed)
        .arg(sps, 0, 'f', 1)
        .arg(tps, 0, 'f', 0);
}

} // namespace ascviz::ui
