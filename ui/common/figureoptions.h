// The figure options of the GUI's paper exports (charts, AST/sequence views, distribution, heat maps, heads,
// layers): the CLI's FigureStyle (figure/figure.h: width, font, title, legend) and whether the caption names the
// settings the compared runs differ in. File › Export asks them in FigureOptionsDialog before the file name for
// every export a page draws through the figure room (Page::exportsFigure); the last choice is remembered
// (QSettings "figure/…").
#pragma once
#include "ascviz/figure/figure.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;

namespace ascviz::ui {

struct FigureExportOptions {
    FigureStyle style;
    bool warning = true; // the caption's line naming the settings that differ between the runs drawn
};

FigureExportOptions savedFigureExportOptions();
void saveFigureExportOptions(const FigureExportOptions& o);

class FigureOptionsDialog : public QDialog {
    Q_OBJECT
public:
    explicit FigureOptionsDialog(QWidget* parent = nullptr);
    void setOptions(const FigureExportOptions& o);
    FigureExportOptions options() const;

    QDoubleSpinBox* widthBox() const { return m_width; }
    QDoubleSpinBox* fontBox() const { return m_font; }
    QCheckBox* titleBox() const { return m_title; }
    QComboBox* legendBox() const { return m_legend; }
    QCheckBox* warningBox() const { return m_warning; }

private:
    QDoubleSpinBox* m_width = nullptr;
    QDoubleSpinBox* m_font = nullptr;
    QCheckBox* m_title = nullptr;
    QComboBox* m_legend = nullptr;
    QCheckBox* m_warning = nullptr;
};

} // namespace ascviz::ui
