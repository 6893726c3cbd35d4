// The result sets every page can see: the Interactive page's shown result (one evaluated text) and the
// open batch results databases (read off the GUI thread through the JobTracker, kept in the order they
// were asked for, with unique labels). Pages publish into it and follow its signals; the Batch, Analysis and
// Heads pages read the same sets.
#pragma once
#include "common/analysis.h"
#include "common/batchresults.h"

#include "ascviz/results/compare.h"

#include <QObject>
#include <QStringList>

#include <vector>

namespace ascviz::ui {

class JobTracker;

class ResultStore : public QObject {
    Q_OBJECT
public:
    explicit ResultStore(JobTracker* jobs, QObject* parent = nullptr);

    // --- interactive
    AnalysisPtr interactiveResult() const { return m_interactive; }
    void setInteractiveResult(AnalysisPtr a);

    // --- batch result databases
    const std::vector<BatchResultPtr>& batchSets() const { return m_sets; }
    // Adds (or reloads, when already open) a results DB; batchSetLoaded tells when it is in.
    void openBatchSet(const QString& path);
    void removeBatchSet(int index);
    int indexOfBatchSet(const QString& path) const;
    // How the open sets compare (compareRuns): the settings that differ, whether the corpora do, the warning.
    // Each set's label is its entry of labels (model name + the differing settings).
    const RunComparison& comparison() const { return m_comparison; }
    // The comparison's one-line warning in the GUI's words ("" when the sets differ in nothing but the model).
    QString comparisonWarning() const;

Q_SIGNALS:
    void batchSetsChanged();
    // ok = false with a message when the file could not be read; index = its place in batchSets().
    void batchSetLoaded(const QString& path, bool ok, const QString& message, int index);

private:
    void onLoaded(const QString& path, BatchResultPtr set, const QString& error);
    void relabel(); // labels and comparison of the open sets

    JobTracker* m_jobs;
    AnalysisPtr m_interactive;
    std::vector<BatchResultPtr> m_sets;
    QStringList m_order; // absolute paths, in the order openBatchSet was called
    RunComparison m_comparison;
};

} // namespace ascviz::ui
