#include "pages/study/likertchart.h"

#include "common/textpos.h"

#include "ascviz/figure/charts.h"

#include <QPaintEvent>
#include <QPainter>

#include <algorithm>

namespace ascviz::ui {

QColor likertColor(int point, int points)
{
    const double mid = (points + 1) / 2.0;
    if (point == mid)
        return QColor(0xc8, 0xc8, 0xc8);
    // Strength 0..1 away from the middle.
    const double half = (points - 1) / 2.0;
    const double s = std::abs(point - mid) / half;
    const QColor strong = point < mid ? QColor(0xb2, 0x18, 0x2b) : QColor(0x21, 0x66, 0xac);
    const QColor light = point < mid ? QColor(0xf4, 0xa5, 0x82) : QColor(0x92, 0xc5, 0xde);
    auto mix = [s](int a, int b) { return int(a + (b - a) * s); };
    return QColor(mix(light.red(), strong.red()), mix(light.green(), strong.green()), mix(light.blue(), strong.blue()));
}

LikertChart::LikertChart(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setMinimumHeight(160);
}

void LikertChart::setReport(std::optional<StudyReport> report)
{
    m_report = std::move(report);
    updateGeometry();
    update();
}

QSize LikertChart::sizeHint() const
{
    // The height paint() uses: a title per question, a bar per condition, the axis and the legend.
    const int conditions = m_report ? int(m_report->conditions.size()) : 4;
    const int questions = m_report ? int(m_report->questions.size()) : 1;
    return {900, 10 + questions * (22 + conditions * 26) + 24 + 30};
}

void LikertChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    paint(p, QRectF(rect()));
}

void LikertChart::paint(QPainter& p, const QRectF& r) const
{
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::black);
    QFont font = p.font();
    const QFontMetricsF fm(font);
    if (!m_report || m_report->questions.empty()) {
        p.drawText(r, Qt::AlignCenter, tr("No study answers to show yet."));
        p.restore();
        return;
    }
    const StudyReport& rep = *m_report;
    const double labelW = 190, statsW = 130, top = r.top() + 10, rowH = 22, gap = 4, groupH = 22;
    const double left = r.left() + labelW, right = r.right() - statsW;
    const double centre = (left + right) / 2, halfW = std::max(40.0, (right - left) / 2 - 4);

    double y = top;
    for (const auto& q : rep.questions) {
        QFont bold = font;
        bold.setBold(true);
        p.setFont(bold);
        p.drawText(QRectF(r.left() + 4, y, r.width() - 8, groupH), Qt::AlignLeft | Qt::AlignVCenter,
                   toQString(q.id) + QStringLiteral(" — ") + toQString(q.text));
        p.setFont(font);
        y += groupH;
        const int points = q.points();
        for (const auto& c : rep.conditions) {
            const QuestionReport& qr = rep.at(c, q.id);
            p.setPen(Qt::black);
            p.drawText(QRectF(r.left() + 4, y, labelW - 10, rowH), Qt::AlignRight | Qt::AlignVCenter,
                       toQString(c) + QStringLiteral("  ") + toQString(conditionDescription(c)));
            if (qr.n > 0) {
                // Left stack: from the centre outwards, the middle's half first, then the disagreeing points.
                double x = centre;
                auto seg = [&](int point, double share, bool leftward) {
                    const double w = share * halfW;
                    const QRectF box(leftward ? x - w : x, y + 2, w, rowH - 4);
                    p.fillRect(box, likertColor(point, points));
                    x = leftward ? x - w : x + w;
                };
                const bool odd = points % 2 == 1;
                const int middle = (points + 1) / 2; // the neutral point of an odd scale
                auto share = [&](int a) { return double(qr.distribution[std::size_t(a - 1)]) / qr.n; };
                if (odd)
                    seg(middle, share(middle) / 2, true);
                for (int a = odd ? middle - 1 : points / 2; a >= 1; --a)
                    seg(a, share(a), true);
                x = centre;
                if (odd)
                    seg(middle, share(middle) / 2, false);
                for (int a = odd ? middle + 1 : points / 2 + 1; a <= points; ++a)
                    seg(a, share(a), false);
            }
            p.setPen(Qt::black);
            p.drawText(QRectF(right + 6, y, statsW - 6, rowH), Qt::AlignLeft | Qt::AlignVCenter,
                       qr.n ? tr("%1% agree, n=%2").arg(qr.agreePct, 0, 'f', 0).arg(qr.n) : tr("n=0"));
            y += rowH + gap;
        }
    }
    // The centre line, the axis (100% either side) and the legend of the first question's scale.
    p.setPen(QPen(Qt::black, 1));
    p.drawLine(QPointF(centre, top + groupH - 2), QPointF(centre, y));
    p.setPen(QPen(Qt::gray, 1));
    for (int pct : {-100, -50, 50, 100}) {
        const double x = centre + pct / 100.0 * halfW;
        p.drawLine(QPointF(x, y), QPointF(x, y + 4));
        p.drawText(QRectF(x - 30, y + 4, 60, 16), Qt::AlignHCenter | Qt::AlignTop,
                   QStringLiteral("%1%").arg(std::abs(pct)));
    }
    y += 24;
    const StudyQuestion& q0 = rep.questions.front();
    double lx = left;
    for (int a = 1; a <= q0.points(); ++a) {
        const QString label = toQString(q0.labels[std::size_t(a - 1)]);
        p.fillRect(QRectF(lx, y + 3, 12, 12), likertColor(a, q0.points()));
        p.setPen(Qt::black);
        p.drawText(QPointF(lx + 16, y + 13), label);
        lx += 16 + fm.horizontalAdvance(label) + 14;
    }
    p.restore();
}

bool LikertChart::exportSvg(const QString& path, QString* error) const
{
    if (!m_report) {
        if (error)
            *error = tr("there is no report to export");
        return false;
    }
    // The paper figure of the figure room (`ascviz-cli figure likert`), not a grab of this widget.
    try {
        writeFigure(likertFigure(*m_report, FigureStyle{}), toUtf8(path),
                    path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive));
        return true;
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
}

} // namespace ascviz::ui
