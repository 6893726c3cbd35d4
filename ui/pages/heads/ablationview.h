// The Heads page's Ablate action (issue 47, method.md §14.1): the picked attention heads are ablated (their outputs
// zeroed, or replaced by their mean over the text) in every forward pass (model/ablation.h), the text is scored again
// and the complete AST view shows AsC-Eval under the ablation, or the difference view: ablated − clean per node on a
// signed pink–white–green scale (pink: the ablation lowers the node's AsC-Eval, so the model used those heads for
// it). The scoring runs as a JobTracker job (cancel drops its result).
#pragma once
#include "common/analysis.h" // before the forward declaration of ui::AstView (analysis.h means ascviz::AstView)

#include <QWidget>

#include <memory>
#include <optional>
#include <string>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace ascviz::ui {

class AstView;
class ModelService;

// The difference colour of s in [-1, 1] (Δ scaled by the largest |Δ|): pink below 0, white at 0, green above.
QColor ablationDiffColor(double s);

class AblationView : public QWidget {
    Q_OBJECT
public:
    explicit AblationView(ModelService* models, QWidget* parent = nullptr);

    // The text the heads were analysed on (ablation scores it again) and its language.
    // The text the Heads page analysed, its language and θ (the page's setting) for the next ablation.
    void setText(const std::string& text, const std::string& language, Aggregation aggregation = Aggregation::Median);
    // The head picked on the heat map ("Add picked head" appends it to the list).
    void setPicked(int layer, int head);

    QLineEdit* headsEdit() const { return m_heads; }
    QPushButton* addButton() const { return m_add; }
    QComboBox* modeBox() const { return m_mode; }
    QPushButton* ablateButton() const { return m_run; }
    // 0: AsC-Eval under the ablation; 1: the difference ablated − clean.
    QComboBox* showBox() const { return m_show; }
    QLabel* statusLabel() const { return m_status; }
    ui::AstView* astView() const { return m_ast; }
    bool isRunning() const { return m_job != 0; }
    // The last result (null before the first): the text scored clean and under the ablation.
    AnalysisPtr clean() const { return m_clean; }
    AnalysisPtr ablated() const { return m_ablated; }
    // ablated − clean of node k (nullopt when either is n/a or there is no result).
    std::optional<double> difference(int node) const;
    // The largest |difference| (the difference view's scale).
    double maxDifference() const;

public Q_SLOTS:
    void addPicked();
    void ablate();
    void cancel();

Q_SIGNALS:
    void ablationDone(bool ok, const QString& message);

private:
    void recolour();
    void setStatus(const QString& text, bool error = false);

    ModelService* m_models;
    std::string m_text, m_language;
    Aggregation m_aggregation = Aggregation::Median;
    int m_pickedLayer = -1, m_pickedHead = -1;
    QLineEdit* m_heads;
    QPushButton* m_add;
    QComboBox* m_mode;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QComboBox* m_show;
    QLabel* m_scale;
    QLabel* m_status;
    ui::AstView* m_ast;
    quint64 m_job = 0;
    AnalysisPtr m_clean, m_ablated;
    QString m_description; // "zero ablation of 1.0, 0.1"
};

} // namespace ascviz::ui
