// The Analysis page's Layers tab (method.md §13): the layer lens over a corpus (the bundled sample by default)
// with the loaded model, shown as the category × layer heat map of the figure code (render/heatmap.h: the same
// SVG `ascviz-cli analyze layers --svg` writes). Runs as a JobTracker job with progress and cancel.
#pragma once
#include "ascviz/lens/matrix.h"

#include <QWidget>

#include <memory>

class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QSvgWidget;

namespace ascviz::ui {

class ModelService;
struct FigureExportOptions;

class LayerTab : public QWidget {
    Q_OBJECT
public:
    explicit LayerTab(ModelService* models, QWidget* parent = nullptr);

    QLineEdit* corpusEdit() const { return m_corpus; }
    QSpinBox* limitBox() const { return m_limit; }
    QPushButton* computeButton() const { return m_compute; }
    QLabel* statusLabel() const { return m_status; }
    QString svg() const { return m_svg; }
    std::shared_ptr<const LayerMatrix> matrix() const { return m_matrix; }
    bool isRunning() const { return m_job != 0; }
    // The matrix as `analyze layers --svg/--pdf` draws it (heatmapFigure) in the options' style.
    bool exportFigure(const QString& path, const FigureExportOptions& options, bool pdf,
                      QString* error = nullptr) const;

public Q_SLOTS:
    void compute();
    void cancel();

Q_SIGNALS:
    void computed(bool ok);

private:
    ModelService* m_models;
    QLineEdit* m_corpus;
    QSpinBox* m_limit;
    QDoubleSpinBox* m_fraction;
    QPushButton* m_compute;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_status;
    QSvgWidget* m_heat;
    QString m_svg;
    quint64 m_job = 0;
    std::shared_ptr<const LayerMatrix> m_matrix;
};

} // namespace ascviz::ui
