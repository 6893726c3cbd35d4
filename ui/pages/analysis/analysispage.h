// The Analysis page: the corpus analyses of the seed papers over the open results databases (the
// ResultStore's batch sets, shared with the Batch page): AsC-Causal (Table II: ρ, the back-door effect of
// AsC-Eval on cross-entropy, refutations, a T-vs-CE scatter), PERPLEXED (worst/best tokens and AST labels,
// internal vs external calls) and the global heat map (categories × models). Computations run as jobs.
#pragma once
#include "pages/page.h"

#include "ascviz/analysis/causal.h"
#include "ascviz/analysis/perplexed.h"

#include <QWidget>

#include <map>
#include <memory>

class QChartView;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QSvgWidget;
class QTabWidget;
class QTableView;
class QSortFilterProxyModel;

namespace ascviz::ui {

class CausalTableModel;
class CeTableModel;
class GalerasAnalysisView;
class ModelService;
class ResultStore;

class AnalysisPage : public QWidget, public Page {
    Q_OBJECT
public:
    AnalysisPage(ModelService* models, ResultStore* results, QWidget* parent = nullptr);
    ~AnalysisPage() override;

    QString title() const override { return tr("Analysis"); }
    QWidget* widget() override { return this; }
    QList<QAction*> menuActions() override;
    bool canExport(ExportKind kind) const override;
    QString suggestedExportName(ExportKind kind) const override;
    // SVG/PDF of the scatter (Causal tab), the heat map and the Layers tab's matrix: paper figures in the figure
    // options' style (File › Export's dialog; default 85 mm, 8 pt). The heat map as SVG without options: the
    // screen's picture (render/heatmap.h).
    bool exportTo(ExportKind kind, const QString& path, QString* error) override;
    bool exportsFigure(ExportKind kind) const override;
    void setFigureOptions(const FigureExportOptions& options) override;

    // --- for scripts and tests
    void setCurrentSet(int index);
    void setBy(CausalBy by);
    void analyse(); // the current set; analysisFinished when done
    bool isRunning() const { return m_job != 0; }
    CausalTableModel* causalModel() const { return m_causalModel; }
    CeTableModel* ceModel(int which) const
    {
        return m_ceModels[which];
    } // 0 worst tokens, 1 best tokens, 2 worst labels, 3 best labels
    QTabWidget* tabs() const { return m_tabs; }
    QChartView* scatterView() const { return m_scatter; }
    QString heatmapSvg() const { return m_heatmapSvg; }
    QString heatmapWarning() const; // the settings the compared sets differ in ("" when only the model does)
    QString callsText() const;
    void selectCausalRow(int row); // shows that row's scatter
    bool exportLatex(const QString& path, QString* error);
    // The selected scatter as scatterFigure (figure room): SVG, or PDF when `path` ends in ".pdf".
    bool exportScatterFigure(const QString& path, QString* error) const;
    // The heat map of the open result sets as heatmapFigure (figure room), `analyze heatmap`'s figure.
    bool exportHeatmapFigure(const QString& path, bool pdf, QString* error) const;

Q_SIGNALS:
    void analysisFinished(bool ok, const QString& message);

private:
    void buildUi();
    void refreshSets();
    void refreshHeatmap();
    void showScatter(const QString& key);
    void setStatus(const QString& text, bool error = false);

    ModelService* m_models;
    ResultStore* m_results;
    QComboBox* m_set = nullptr;
    QComboBox* m_by = nullptr;
    QSpinBox* m_minSnippets = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_cancel = nullptr;
    QLabel* m_status = nullptr;
    QTabWidget* m_tabs = nullptr;
    GalerasAnalysisView* m_treatments = nullptr; // the Treatments tab (pages/galeras)
    CausalTableModel* m_causalModel = nullptr;
    QSortFilterProxyModel* m_causalProxy = nullptr;
    QTableView* m_causalView = nullptr;
    QChartView* m_scatter = nullptr;
    CeTableModel* m_ceModels[4] = {};
    QLabel* m_calls = nullptr;
    QSvgWidget* m_heatmap = nullptr;
    QLabel* m_heatmapWarning = nullptr;
    QString m_heatmapSvg;
    std::shared_ptr<FigureExportOptions> m_figureOptions; // File › Export's figure options (none yet: defaults)
    QList<QAction*> m_actions;
    quint64 m_job = 0;
    std::shared_ptr<const CausalReport> m_causal;
    std::shared_ptr<const std::map<std::string, CausalRows>> m_rows;
    QString m_scatterKey; // the causal row the scatter shows ("" = global); its export draws scatterFigure
    std::shared_ptr<const PerplexedReport> m_perplexed;
    QString m_analysedLabel;
};

} // namespace ascviz::ui
