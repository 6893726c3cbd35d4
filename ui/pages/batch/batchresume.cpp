// The Batch page and a stored run: Resume continues the run of the results file with the settings stored in it
// (corpus, model, θ, language, precision, limit), which the form shows; closing the window during a run asks
// first (Page::runningWork).
#include "pages/batch/batchcontroller.h"
#include "pages/batch/batchpage.h"

#include "common/languages.h"
#include "common/textpos.h"

#include <QComboBox>
#include <QFileInfo>
#include <QLineEdit>
#include <QSpinBox>

namespace ascviz::ui {

bool BatchPage::fillFromStoredRun()
{
    if (isRunning())
        return false;
    const std::optional<RunInfo> run = BatchController::incompleteRun(toUtf8(dbPath()));
    if (!run)
        return false;
    setCorpusPath(toQString(run->corpusPath));
    setModelDir(toQString(run->modelDir));
    m_aggregation->setCurrentText(toQString(toString(run->aggregation)));
    setLanguage(toQString(run->language));
    if (!run->dtype.empty())
        setPrecision(toQString(run->dtype));
    // The latest invocation's limit (all of the corpus when it planned every usable entry).
    setLimit(run->planned > 0 && run->planned < run->corpusEntries ? int(run->planned) : 0);
    setStatus(tr("%1 holds an unfinished run of %2 on %3 (θ = %4): the form shows its settings; Resume "
                 "continues it.")
                  .arg(QFileInfo(dbPath()).fileName(), toQString(run->modelName),
                       QFileInfo(toQString(run->corpusPath)).fileName(), toQString(toString(run->aggregation))));
    return true;
}

QString BatchPage::runningWork() const
{
    return isRunning() ? tr("a batch run into %1").arg(QFileInfo(dbPath()).fileName()) : QString();
}

} // namespace ascviz::ui
