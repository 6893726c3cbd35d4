// Inside the model, in the Interactive tab (method.md §13): a layer slider that recolours the sequence and both
// AST views with NtP_ℓ / AsC-Eval_ℓ of the layer lens, and attribution of the selected completion node (or the
// whole completion) to the prompt's nodes, shown on both AST views, the sequence view and the editor on a signed
// purple–white–orange scale (not AsC-Eval's red–white–blue); the code is coloured by each attributed node's byte
// span, the deepest node winning where spans nest. Both run as JobTracker jobs with progress and cancel; this widget
// only shows their results. The lens also gives the commitment layer (method.md §14.3), offered as a second colouring
// of the views (commitcolours.h); an attribution can come with its faithfulness (deletion / insertion AUCs beside a
// random order's, §14.2); the Experts view (expertsview.h) shows a mixture-of-experts model's routing.
#pragma once
#include "common/analysis.h"

#include "ascviz/attribution/attribution.h"
#include "ascviz/lens/layers.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSlider;

namespace ascviz::ui {

class ExpertsView;
class InteractiveState;
class ResultCanvas;
class ModelService;

// The attribution colour of a value in [-1, 1] (scaled by the largest |attribution|): orange below 0, white at
// 0, purple above.
QColor attributionColor(double scaled);
// Where the attribution colours the views, what it does not cover (nodes and text outside the attributed ones).
QColor notAttributedColor();

class InsidePanel : public QWidget {
    Q_OBJECT
public:
    // Everything of the Interactive tab comes through `canvas` (resultcanvas.h) and its state: the shown result, the
    // selection it follows, the views it colours.
    InsidePanel(ResultCanvas* canvas, ModelService* models, QWidget* parent = nullptr);

    QPushButton* lensButton() const { return m_lensButton; }
    QSlider* layerSlider() const { return m_layer; }
    QPushButton* attributeButton() const { return m_attribute; }
    QComboBox* methodBox() const { return m_method; }
    // Back to the AsC-Eval colouring (enabled while an attribution colours the views).
    bool showsAttribution() const { return m_showingAttribution; }
    QPushButton* clearButton() const { return m_clear; }
    QLabel* scaleNote() const { return m_scaleNote; }
    QLabel* statusLabel() const { return m_status; }
    // What Attribute will attribute: the selected node, else the whole completion (follows the selection).
    QLabel* targetLabel() const { return m_target; }
    bool isRunning() const { return m_job != 0; }
    // The last attribution shown (null before the first).
    std::shared_ptr<const AttributionResult> attribution() const { return m_attribution; }
    int layers() const { return m_lens ? m_lens->layers : 0; }
    QLabel* layerLabel() const { return m_layerLabel; }
    // The attribution's node list (the twelve largest |values|).
    QListWidget* topList() const { return m_top; }
    // The views' colouring after the lens: 0 = AsC-Eval at the slider's layer, 1 = the commitment layer.
    QComboBox* colouringBox() const { return m_colouring; }
    bool showsCommitment() const { return m_showingCommit; }
    // The lens's per-layer evaluation with the commitment fields (null before the lens is computed).
    const LayerEval* lensEval() const { return m_lens ? &m_lens->eval : nullptr; }
    // Attribution with faithfulness (deletion / insertion AUCs beside a random order's), and where they are shown.
    QCheckBox* faithfulnessBox() const { return m_faith; }
    QLabel* faithfulnessLabel() const { return m_faithLabel; }
    ExpertsView* expertsView() const { return m_experts; }

public Q_SLOTS:
    void computeLens();
    void attributeSelection();
    void cancel();
    void showLayer(int layer);
    // Takes the attribution colours off the sequence view, the editor and the AST views (AsC-Eval again, at the
    // slider's layer when the lens is computed). Also when another node than the target is selected, the slider
    // moves or a new result is shown.
    void clearAttribution();
    // 0: AsC-Eval at the slider's layer; 1: the commitment layer (needs the lens).
    void setColouring(int index);

Q_SIGNALS:
    void jobDone(bool ok);

private:
    struct LensResult {
        std::vector<std::vector<double>> ntp;
        LayerEval eval;
        int layers = 0;
        std::string text;
    };
    void start(const QString& title, std::function<void(class JobContext&)> work, std::function<void()> done);
    void colourAttribution();
    void colourCode(double maxAbs);
    void restoreSelection();
    void stopCommitColouring();
    void showFaithfulness();
    void forgetResults();
    void setBusy(bool busy);
    void showTarget();

    ResultCanvas* m_canvas;
    InteractiveState* m_state;
    ModelService* m_models;
    QPushButton* m_lensButton;
    QSlider* m_layer;
    QLabel* m_layerLabel;
    QComboBox* m_method;
    QPushButton* m_attribute;
    QLabel* m_target;
    QPushButton* m_clear;
    QLabel* m_scaleNote;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_status;
    QListWidget* m_top;
    QComboBox* m_colouring;
    QCheckBox* m_faith;
    QLabel* m_faithLabel;
    ExpertsView* m_experts;
    quint64 m_job = 0;
    std::shared_ptr<const LensResult> m_lens;
    std::shared_ptr<const AttributionResult> m_attribution;
    bool m_showingAttribution = false; // the views show m_attribution's colours
    bool m_showingCommit = false;      // the views show the lens's commitment layers
};

} // namespace ascviz::ui
