#include "pages/batch/batchrunner.h"

#include "common/errortext.h"
#include "common/textpos.h"
#include "run/runcontroller.h"
#include "services/jobtracker.h"

#include "ascviz/base/error.h"

#include <QCoreApplication>

namespace ascviz::ui {

namespace {
QString tr(const char* s)
{
    return QCoreApplication::translate("ascviz::ui::BatchRunner", s);
}
} // namespace

BatchRunEnd runBatchJob(const LanguageModel& model, const BatchJob& job, JobContext& ctx, const RunControls& controls)
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
        static_cast<RunControls&>(opts) = controls;
        end.summary = runBatch(model, corpus, job.db, opts);
    } catch (const std::exception& e) {
        end.error = errorMessage(e);
    }
    return end;
}

std::optional<RunInfo> incompleteBatchRun(const std::filesystem::path& db)
{
    std::error_code ec;
    if (db.empty() || !std::filesystem::exists(db, ec))
        return std::nullopt;
    try {
        RunInfo run = ResultsDb::open(db).runInfo();
        if (run.status != RunStatus::Complete)
            return run;
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

RunJob batchRunJob(const BatchJob& job)
{
    RunJob run;
    run.kind = QStringLiteral("batch");
    run.what = tr("a batch run into %1").arg(toQString(job.db.filename().string()));
    run.itemsName = tr("snippets");
    run.db = job.db;
    run.resume = job.options.resume;
    run.modelDir = toQString(job.options.modelDir);
    run.load = job.load;
    std::error_code ec;
    if (job.options.resume && std::filesystem::exists(job.db, ec) && !batchRunIncomplete(job.db))
        run.refusal =
            tr("%1 holds a complete run (or is no results DB): nothing to resume.").arg(toQString(job.db.string()));
    run.work = [job](const LanguageModel& model, const RunControls& controls, JobContext& ctx) {
        BatchRunEnd b = runBatchJob(model, job, ctx, controls);
        RunEnd end;
        end.error = b.error;
        end.cancelled = b.summary.cancelled;
        end.done = b.summary.resumed + b.summary.stored;
        end.total = b.summary.total;
        end.detail = std::move(b);
        return end;
    };
    return run;
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
