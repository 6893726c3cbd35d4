// The Batch page and a stored run: Resume continues the run of the results file with the settings stored in it
// (corpus, model, θ, language, precision, limit), which the form shows; closing the window during a run asks
// first (Page::runningWork).
#include "pages/batch/batchpage.h"
#include "run/runcontroller.h"

#include "common/languages.h"
#include "common/textpos.h"

#include <QComboBox>
#include <QFileInfo>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>

namespace ascviz::ui {

bool BatchPage::fillFromStoredRun()
{
    if (m_run->isRunning())
        return false;
    const std::optional<RunInfo> run = incompleteBatchRun(toUtf8(dbPath()));
    if (!run)
        return false;
    setCorpusPath(toQString(run->corpusPath));
    setModelDir(toQString(run->modelDir));
    m_aggregation->setCurrentText(toQString(toString(run->aggregation)));
    setAggregationScope(toQString(toString(run->aggregationScope)));
    setLanguage(toQString(run->language));
    if (!run->dtype.empty())
        setPrecision(toQString(run->dtype));
    // The latest invocation's limit (all of the corpus when it planned every usable entry).
    setLimit(run->planned > 0 && run->planned < run->corpusEntries ? int(run->planned) : 0);
    setStatus(tr("%1 holds an unfinished run of %2 on %3 (θ = %4 over %5): the form shows its settings; Resume "
                 "continues it.")
                  .arg(QFileInfo(dbPath()).fileName(), toQString(run->modelName),
                       QFileInfo(toQString(run->corpusPath)).fileName(), toQString(toString(run->aggregation)),
                       toQString(toString(run->aggregationScope))));
    return true;
}

void BatchPage::setAggregation(const QString& name)
{
    m_aggregation->setCurrentText(name);
}

void BatchPage::setAggregationScope(const QString& scope)
{
    const int at = m_scope->findData(scope);
    if (at >= 0)
        m_scope->setCurrentIndex(at);
}

void BatchPage::saveForm() const
{
    QSettings s;
    s.beginGroup(QStringLiteral("batch"));
    s.setValue(QStringLiteral("corpus"), corpusPath());
    s.setValue(QStringLiteral("model"), modelDir());
    s.setValue(QStringLiteral("limit"), m_limit->value());
    s.setValue(QStringLiteral("language"), language());
    s.setValue(QStringLiteral("aggregation"), m_aggregation->currentText());
    s.setValue(QStringLiteral("aggregationScope"), m_scope->currentData().toString());
    s.setValue(QStringLiteral("device"), m_device->currentText());
    s.setValue(QStringLiteral("precision"), m_dtype->currentText());
}

void BatchPage::restoreForm()
{
    QSettings s;
    s.beginGroup(QStringLiteral("batch"));
    if (!s.contains(QStringLiteral("corpus")))
        return; // no run started yet
    setCorpusPath(s.value(QStringLiteral("corpus")).toString());
    setModelDir(s.value(QStringLiteral("model")).toString());
    setLimit(s.value(QStringLiteral("limit"), 0).toInt());
    setLanguage(s.value(QStringLiteral("language")).toString());
    setAggregation(s.value(QStringLiteral("aggregation"), QStringLiteral("median")).toString());
    setAggregationScope(s.value(QStringLiteral("aggregationScope"), QStringLiteral("tokens")).toString());
    m_device->setCurrentText(s.value(QStringLiteral("device"), QStringLiteral("auto")).toString());
    // A precision this machine cannot run (disabled in the box) is not restored.
    const int dtype = m_dtype->findText(s.value(QStringLiteral("precision"), QStringLiteral("float32")).toString());
    if (dtype >= 0 && (m_dtype->itemData(dtype, Qt::UserRole - 1).toInt() & Qt::ItemIsEnabled))
        m_dtype->setCurrentIndex(dtype);
}

QString BatchPage::runningWork() const
{
    return m_run->runningWork(); // a batch run into x.db, a Galeras run into y.db
}

} // namespace ascviz::ui
