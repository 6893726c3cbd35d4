#include "views/legendwidget.h"

#include "common/analysis.h"

#include <QLinearGradient>
#include <QPainter>

namespace ascviz::ui {

LegendWidget::LegendWidget(Mode mode, QWidget* parent) : QWidget(parent), m_mode(mode)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void LegendWidget::setMode(Mode m)
{
    m_mode = m;
    update();
}

void LegendWidget::setSignedScale(const QString& title, std::function<QColor(double)> color, double maxAbs,
                                  const QColor& none, const QString& noneText)
{
    m_signedTitle = title;
    m_signed = std::move(color);
    m_maxAbs = maxAbs;
    m_range = false;
    m_none = none;
    m_noneText = noneText;
    update();
}

void LegendWidget::setRangeScale(const QString& title, std::function<QColor(double)> color, double lo, double hi,
                                 const QColor& none, const QString& noneText)
{
    // The signed scale's bar runs over s in [-1, 1]: t = (s + 1) / 2.
    setSignedScale(
        title, [color = std::move(color)](double s) { return color((s + 1.0) / 2.0); }, 0, none, noneText);
    m_range = true;
    m_lo = lo;
    m_hi = hi;
}

QStringList LegendWidget::scaleLabels() const
{
    if (!m_signed)
        return {};
    QStringList out;
    for (int i = 0; i <= 2; ++i)
        out << (m_range ? QString::number(m_lo + (m_hi - m_lo) * i / 2.0, 'g', 3)
                        : (i == 1 ? QStringLiteral("0") : QString::number((i - 1) * m_maxAbs, 'g', 3)));
    return out;
}

void LegendWidget::clearSignedScale()
{
    m_signed = nullptr;
    update();
}

void LegendWidget::setValueTitle(const QString& what)
{
    m_valueTitle = what;
    update();
}

void LegendWidget::setShowsSelection(bool on)
{
    m_showsSelection = on;
    update();
}

QStringList LegendWidget::swatchCaptions() const
{
    if (m_signed)
        return {m_noneText};
    QStringList out{tr("n/a")};
    out << (m_mode == Mode::Ast ? tr("ERROR / MISSING") : tr("generated"));
    if (m_showsSelection)
        out << tr("selected");
    return out;
}

void LegendWidget::paintSigned(QPainter& p)
{
    const QFontMetrics fm = fontMetrics();
    const int barH = 12, top = 4, barW = 220;
    int x = 8;
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(x, top, fm.horizontalAdvance(m_signedTitle) + 4, barH), Qt::AlignVCenter | Qt::AlignLeft,
               m_signedTitle);
    x += fm.horizontalAdvance(m_signedTitle) + 10;
    QLinearGradient g(x, 0, x + barW, 0);
    for (int i = 0; i <= 20; ++i)
        g.setColorAt(i / 20.0, m_signed(i / 10.0 - 1.0));
    const QRect bar(x, top, barW, barH);
    p.fillRect(bar, g);
    p.setPen(QColor(0x77, 0x77, 0x77));
    p.drawRect(bar);
    const QStringList labels = scaleLabels();
    for (int i = 0; i <= 2; ++i) {
        const int tx = x + i * barW / 2;
        p.setPen(QColor(0x77, 0x77, 0x77));
        p.drawLine(tx, top + barH, tx, top + barH + 3);
        const QString& label = labels[i];
        const int w = fm.horizontalAdvance(label);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(tx - w / 2 - 2, top + barH + 3, w + 4, fm.height()), Qt::AlignCenter, label);
    }
    x += barW + 18;
    p.setPen(QPen(QColor(0x77, 0x77, 0x77), 1));
    p.setBrush(m_none);
    p.drawRoundedRect(QRect(x, top, 22, barH), 2, 2);
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(x + 27, top - 2, fm.horizontalAdvance(m_noneText) + 4, barH + 4), Qt::AlignVCenter | Qt::AlignLeft,
               m_noneText);
}

QSize LegendWidget::sizeHint() const
{
    return {560, fontMetrics().height() * 2 + 14};
}

void LegendWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    if (m_signed) {
        paintSigned(p);
        return;
    }
    const QFontMetrics fm = fontMetrics();
    const int barH = 12;
    const int top = 4;
    int x = 8;

    QString title = m_mode == Mode::Sequence ? tr("NtP") : tr("AsC-Eval");
    if (!m_valueTitle.isEmpty())
        title = tr("%1, %2").arg(title, m_valueTitle);
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(x, top, fm.horizontalAdvance(title) + 4, barH), Qt::AlignVCenter | Qt::AlignLeft, title);
    x += fm.horizontalAdvance(title) + 10;

    // Colour bar sampled from the core scale so it matches the views exactly.
    const int barW = 220;
    QLinearGradient g(x, 0, x + barW, 0);
    for (int i = 0; i <= 20; ++i) {
        const double v = i / 20.0;
        g.setColorAt(v, ascQColor(v));
    }
    const QRect bar(x, top, barW, barH);
    p.fillRect(bar, g);
    p.setPen(QColor(0x77, 0x77, 0x77));
    p.setBrush(Qt::NoBrush);
    p.drawRect(bar);
    for (int i = 0; i <= 4; ++i) {
        const double v = i / 4.0;
        const int tx = x + int(v * barW);
        p.drawLine(tx, top + barH, tx, top + barH + 3);
        const QString label = QString::number(v, 'g', 2);
        const int w = fm.horizontalAdvance(label);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(tx - w / 2 - 2, top + barH + 3, w + 4, fm.height()), Qt::AlignCenter, label);
        p.setPen(QColor(0x77, 0x77, 0x77));
    }
    x += barW + 18;

    auto swatch = [&](const QColor& fill, const QPen& pen, const QString& text, bool bold = false,
                      bool underline = false) {
        const QRect r(x, top, 22, barH);
        p.setPen(pen);
        p.setBrush(fill);
        p.drawRoundedRect(r, 2, 2);
        QFont f = font();
        f.setBold(bold);
        f.setUnderline(underline);
        p.setFont(f);
        p.setPen(palette().color(QPalette::WindowText));
        const int w = QFontMetrics(f).horizontalAdvance(text);
        p.drawText(QRect(x + 27, top - 2, w + 4, barH + 4), Qt::AlignVCenter | Qt::AlignLeft, text);
        p.setFont(font());
        x += 27 + w + 16;
    };
    swatch(ascQColor(std::nullopt), QPen(QColor(0x77, 0x77, 0x77), 1), tr("n/a"));
    if (m_mode == Mode::Ast)
        swatch(Qt::white, QPen(QColor(0xA0, 0, 0), 2, Qt::DashLine), tr("ERROR / MISSING"));
    else
        swatch(QColor(0xEE, 0xEE, 0xEE), QPen(QColor(0x77, 0x77, 0x77), 1), tr("generated"), true, true);
    if (m_showsSelection)
        swatch(Qt::white, QPen(QColor(0x11, 0x11, 0x11), m_mode == Mode::Ast ? 3 : 2), tr("selected"));
}

} // namespace ascviz::ui
