#include "services/resultstore.h"

#include "common/textpos.h"
#include "services/jobtracker.h"

#include <QFileInfo>

namespace ascviz::ui {

ResultStore::ResultStore(JobTracker* jobs, QObject* parent) : QObject(parent), m_jobs(jobs)
{
    m_jobs->setLaneLimit(QStringLiteral("results"), 4);
}

void ResultStore::setInteractiveResult(AnalysisPtr a)
{
    m_interactive = std::move(a);
}

int ResultStore::indexOfBatchSet(const QString& path) const
{
    const QString canon = QFileInfo(path).absoluteFilePath();
    for (std::size_t k = 0; k < m_sets.size(); ++k)
        if (QFileInfo(m_sets[k]->path).absoluteFilePath() == canon)
            return static_cast<int>(k);
    return -1;
}

void ResultStore::openBatchSet(const QString& path)
{
    const QString canon = QFileInfo(path).absoluteFilePath();
    if (!m_order.contains(canon))
        m_order << canon; // sets are shown in the order they were asked for, whatever order loads finish in
    auto out = std::make_shared<BatchResultPtr>();
    JobTracker::Callbacks cb;
    cb.finished = [this, path, out] { onLoaded(path, *out, QString()); };
    cb.failed = [this, path](const QString& error) { onLoaded(path, nullptr, error); };
    m_jobs->start(
        tr("Reading %1").arg(QFileInfo(path).fileName()), QStringLiteral("results"),
        [path, out](JobContext&) { *out = loadResultSet(path); }, this, std::move(cb));
}

void ResultStore::onLoaded(const QString& path, BatchResultPtr set, const QString& error)
{
    if (!set) {
        m_order.removeAll(QFileInfo(path).absoluteFilePath());
        Q_EMIT batchSetLoaded(path, false, error, -1);
        return;
    }
    const QString canon = QFileInfo(path).absoluteFilePath();
    int index = indexOfBatchSet(path);
    if (index >= 0) {
        m_sets[static_cast<std::size_t>(index)] = set;
    } else {
        const auto rank = [this](const BatchResultPtr& s) {
            return m_order.indexOf(QFileInfo(s->path).absoluteFilePath());
        };
        const int mine = m_order.indexOf(canon);
        auto it = m_sets.begin();
        while (it != m_sets.end() && rank(*it) < mine)
            ++it;
        index = static_cast<int>(it - m_sets.begin());
        m_sets.insert(it, set);
    }
    relabel();
    Q_EMIT batchSetsChanged();
    Q_EMIT batchSetLoaded(path, true, QString(), index);
}

void ResultStore::removeBatchSet(int index)
{
    if (index < 0 || index >= static_cast<int>(m_sets.size()))
        return;
    m_order.removeAll(QFileInfo(m_sets[static_cast<std::size_t>(index)]->path).absoluteFilePath());
    m_sets.erase(m_sets.begin() + index);
    relabel();
    Q_EMIT batchSetsChanged();
}

void ResultStore::relabel()
{
    // Unique labels (compareRuns): the model name, plus the settings that differ between the open sets, plus
    // the file name where two sets are alike in both.
    std::vector<ComparedRun> runs;
    for (const auto& s : m_sets)
        runs.push_back({&s->stats, toUtf8(QFileInfo(s->path).fileName())});
    m_comparison = compareRuns(runs);
    for (std::size_t k = 0; k < m_sets.size(); ++k) {
        auto& s = m_sets[k];
        const QString want = toQString(m_comparison.labels[k]);
        if (s->label != want) {
            auto copy = std::make_shared<BatchResultSet>(*s);
            copy->label = want;
            s = copy;
        }
    }
}

QString ResultStore::comparisonWarning() const
{
    if (m_comparison.warning.empty())
        return {};
    return m_comparison.differentCorpus
               ? tr("Not comparable: %1. No best value is marked.").arg(toQString(m_comparison.warning))
               : tr("Warning: %1.").arg(toQString(m_comparison.warning));
}

} // namespace ascviz::ui
