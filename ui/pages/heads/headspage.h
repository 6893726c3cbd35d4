// The Heads page (method.md §11): attention heads vs syntax relations on one text. Analyze scores the code with
// the loaded model, reducing each layer's attention as it arrives (attention/headscore.h, topkeys.h); the page
// shows the chosen relation's layer × head heat map of top-1 scores (click a cell to pick a head), and the picked
// head's attention from the token at the editor's cursor as arcs over the code, with that relation's edges
// dashed, and the same edges as dashed curves over the AST view (views/astedges.h). Both pictures are Figures of
// the figure room (figure/heads.h): exported as SVG or PDF. A partial file of `analyze heads` (a corpus run) can be
// opened to show the corpus heat map instead.
#pragma once
#include "common/analysis.h" // before the forward declaration of ui::AstView (analysis.h means ascviz::AstView)
#include "pages/page.h"

#include <QVector>
#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QSvgWidget;

namespace ascviz {
struct Figure;
}

namespace ascviz::ui {

class ModelService;
class AblationView;
class PromptEditor;
class AstView;
class AstEdgeOverlay;
class ResultStore;
struct HeadsResult;

class HeadsPage : public QWidget, public Page {
    Q_OBJECT
public:
    HeadsPage(ModelService* models, ResultStore* results, QWidget* parent = nullptr);
    ~HeadsPage() override;

    QString title() const override { return tr("Heads"); }
    QWidget* widget() override { return this; }
    bool canExport(ExportKind kind) const override;
    QString suggestedExportName(ExportKind kind) const override;
    // Without figure options (scripts): the screen's two pictures, heat map and arcs, as one page. With them
    // (File › Export's dialog): the paper figure of the heat map (headHeatmapPaperFigure, `analyze heads --svg`)
    // at the options' width, font, title and legend.
    bool exportTo(ExportKind kind, const QString& path, QString* error) override;
    bool exportsFigure(ExportKind kind) const override { return kind == ExportKind::Svg || kind == ExportKind::Pdf; }
    void setFigureOptions(const FigureExportOptions& options) override;
    bool canInspectCode() const override { return true; }
    void setCode(const QString& code) override;
    // The code editor (the Interactive page's: Enter keeps the indentation, one level deeper after a block opener).
    PromptEditor* codeEditor() const { return m_code; }
    // θ of the AST view's AsC-Eval (the page's setting, Median at first; a snippet sent from Batch brings its run's).
    void setCodeAggregation(const QString& name) override;
    Aggregation aggregation() const;
    void setAggregation(Aggregation a);

    // --- for scripts and tests
    void analyze();                                                 // headsAnalyzed when done
    bool openCorpusRun(const QString& partialFile, QString* error); // a partial file of analyze heads
    QStringList relationTypes() const;                              // of the current text (or corpus run)
    bool selectRelation(const QString& type);
    void pickHead(int layer, int head);
    void pickToken(int token);
    QString heatmapSvg() const { return m_heatSvg; }
    QString arcsSvg() const { return m_arcsSvg; }
    QVector<int> highlightedAstNodes() const { return m_highlighted; } // relation ends, query, attended keys
    int astEdgeCount() const;                                          // the relation's edges drawn over the AST view
    ui::AstView* astView() const { return m_ast; }
    // The Ablate action (ablationview.h): the picked heads ablated, the AST recoloured, the difference view.
    AblationView* ablationView() const { return m_ablation; }

Q_SIGNALS:
    void headsAnalyzed(bool ok, const QString& message);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void buildUi();
    void refresh();
    void setStatus(const QString& text, bool error = false);

    ModelService* m_models;
    QComboBox* m_language = nullptr;
    QComboBox* m_aggregation = nullptr;
    PromptEditor* m_code = nullptr; // the Interactive editor's behaviour: indentation, bounded paste
    QPushButton* m_run = nullptr;
    QPushButton* m_openRun = nullptr;
    QComboBox* m_relation = nullptr;
    QSpinBox* m_layer = nullptr;
    QSpinBox* m_head = nullptr;
    QSvgWidget* m_heat = nullptr;
    QSvgWidget* m_arcs = nullptr;
    ui::AstView* m_ast = nullptr;
    std::unique_ptr<AstEdgeOverlay> m_edges;
    AblationView* m_ablation = nullptr;
    std::shared_ptr<Figure> m_heatFig, m_arcsFig;
    std::shared_ptr<FigureExportOptions> m_figureOptions;
    QVector<int> m_highlighted;
    QLabel* m_status = nullptr;
    std::shared_ptr<HeadsResult> m_result;
    quint64 m_job = 0;
    int m_token = -1;
    QString m_heatSvg, m_arcsSvg;
};

} // namespace ascviz::ui
