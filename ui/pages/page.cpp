#include "pages/page.h"

namespace ascviz::ui {

QString exportKindName(ExportKind kind)
{
    switch (kind) {
    case ExportKind::Svg:
        return QStringLiteral("svg");
    case ExportKind::Png:
        return QStringLiteral("png");
    case ExportKind::Json:
        return QStringLiteral("json");
    case ExportKind::Csv:
        return QStringLiteral("csv");
    case ExportKind::Pdf:
        return QStringLiteral("pdf");
    case ExportKind::Html:
        return QStringLiteral("html");
    }
    return QStringLiteral("dat");
}

} // namespace ascviz::ui
