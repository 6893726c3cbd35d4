// The usual Likert plot of a study report: one diverging stacked bar per condition and question, the
// disagreeing answers left of the centre line, the agreeing ones right of it (a middle answer of an odd
// scale split half and half), each bar labelled with n and % agreement. Drawn with QPainter on screen; the
// export writes the paper figure of the figure room (likertFigure, as `ascviz-cli figure likert`).
#pragma once
#include "ascviz/study/report.h"

#include <QWidget>

#include <optional>

namespace ascviz::ui {

class LikertChart : public QWidget {
    Q_OBJECT
public:
    explicit LikertChart(QWidget* parent = nullptr);
    void setReport(std::optional<StudyReport> report);
    const std::optional<StudyReport>& report() const { return m_report; }
    QSize sizeHint() const override;
    // Paints the chart into `rect` (used by paintEvent).
    void paint(QPainter& p, const QRectF& rect) const;
    // Writes likertFigure at 85 mm: vector SVG with text as text, or PDF when `path` ends in ".pdf".
    bool exportSvg(const QString& path, QString* error) const;

protected:
    void paintEvent(QPaintEvent*) override;

private:
    std::optional<StudyReport> m_report;
};

// The colour of scale point `point` (1-based) of a `points`-point scale: disagreement red, agreement blue
// (the AsC colours), the middle of an odd scale grey.
QColor likertColor(int point, int points);

} // namespace ascviz::ui
