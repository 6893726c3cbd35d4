// Checks of a chart export written through the figure room: a vector SVG (no <image>, text as <text>) at the
// requested width in mm, or a PDF whose MediaBox is that width in points.
#pragma once
#include <QByteArray>
#include <QFile>
#include <QRegularExpression>
#include <QString>

#include <cmath>

namespace uitest {

// "" when `path` is a figure of `widthMm` (SVG, or PDF when pdf), else what is wrong.
inline QString checkFigureExport(const QString& path, bool pdf, double widthMm = 85.0)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return QStringLiteral("cannot read ") + path;
    const QByteArray data = f.readAll();
    if (pdf) {
        if (!data.startsWith("%PDF"))
            return QStringLiteral("not a PDF: ") + path;
        const auto m = QRegularExpression(QStringLiteral("/MediaBox \\[ *0 +0 +([0-9.]+) +([0-9.]+) *\\]"))
                           .match(QString::fromLatin1(data));
        if (!m.hasMatch())
            return QStringLiteral("no MediaBox in ") + path;
        if (std::abs(m.captured(1).toDouble() - widthMm * 72.0 / 25.4) > 0.5)
            return QStringLiteral("PDF width %1 pt, want %2 mm").arg(m.captured(1)).arg(widthMm);
        return {};
    }
    const QString svg = QString::fromUtf8(data);
    if (svg.contains(QStringLiteral("<image")) || svg.contains(QStringLiteral("data:image")))
        return QStringLiteral("raster image in ") + path;
    if (!svg.contains(QStringLiteral("<text")))
        return QStringLiteral("no <text> in ") + path;
    const auto m = QRegularExpression(QStringLiteral("<svg[^>]* width=\"([0-9.]+)mm\"")).match(svg);
    if (!m.hasMatch())
        return QStringLiteral("no width in mm in ") + path;
    if (std::abs(m.captured(1).toDouble() - widthMm) > 0.01)
        return QStringLiteral("SVG width %1 mm, want %2 mm").arg(m.captured(1)).arg(widthMm);
    return {};
}

} // namespace uitest
