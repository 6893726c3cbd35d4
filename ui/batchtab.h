#pragma once
#include <QWidget>

namespace ascviz::ui {

// The Batch tab: corpus-level AsC-Eval runs, results tables, charts, model comparison.
class BatchTab : public QWidget {
    Q_OBJECT
public:
    explicit BatchTab(QWidget* parent = nullptr);

Q_SIGNALS:
    // The user asked to inspect one snippet of a results database in the Interactive tab.
    void openSnippetRequested(const QString& code, const QString& modelDir);
};

} // namespace ascviz::ui
