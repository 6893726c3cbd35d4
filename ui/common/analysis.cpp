#include "common/analysis.h"

#include "ascviz/model/dtypes.h"

#include <QComboBox>
#include <QLocale>
#include <QStandardItemModel>

namespace ascviz::ui {

QColor textColorOn(const QColor& background)
{
    const QColor c = background.toRgb();
    return toQColor(textColourOn(Rgb{static_cast<unsigned char>(c.red()), static_cast<unsigned char>(c.green()),
                                     static_cast<unsigned char>(c.blue())}));
}

QString formatParameters(long long n)
{
    if (n <= 0)
        return QStringLiteral("?");
    const double d = double(n);
    if (d >= 1e9)
        return QStringLiteral("%1 B").arg(d / 1e9, 0, 'f', d >= 1e10 ? 1 : 2);
    if (d >= 1e6)
        return QStringLiteral("%1 M").arg(d / 1e6, 0, 'f', d >= 1e8 ? 0 : 1);
    if (d >= 1e3)
        return QStringLiteral("%1 K").arg(d / 1e3, 0, 'f', d >= 1e5 ? 0 : 1);
    return QString::number(n);
}

void disableUnsupportedDtypes(QComboBox* box)
{
    if (cudaAvailable())
        return;
    auto* model = qobject_cast<QStandardItemModel*>(box->model());
    for (int i = 0; model && i < box->count(); ++i)
        if (!cpuSupportsDtype(ascviz::parseLoadOption<Dtype>(box->itemText(i).toStdString()).value_or(Dtype::Auto))) {
            QStandardItem* item = model->item(i);
            item->setEnabled(false);
            item->setToolTip(QObject::tr("%1 is not supported on the CPU by this build's LibTorch, and no GPU is "
                                         "available")
                                 .arg(box->itemText(i)));
        }
}

QString formatValue(std::optional<double> v)
{
    return v ? QString::number(*v, 'f', 3) : QStringLiteral("n/a");
}

QString visibleTokenText(const QString& s)
{
    QString out;
    out.reserve(s.size());
    for (const QChar c : s) {
        if (c == QLatin1Char(' '))
            out += QChar(0x00B7);
        else if (c == QLatin1Char('\n'))
            out += QChar(0x21B5);
        else if (c == QLatin1Char('\t'))
            out += QChar(0x2192);
        else if (c == QLatin1Char('\r'))
            out += QStringLiteral("\\r");
        else
            out += c;
    }
    return out;
}

} // namespace ascviz::ui
