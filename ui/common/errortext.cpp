#include "common/errortext.h"

#include "common/textpos.h"

#include <QCoreApplication>
#include <QStringList>

namespace ascviz::ui {

namespace {
QString tr(const char* s)
{
    return QCoreApplication::translate("ascviz::ui::ErrorText", s);
}
} // namespace

QString remedyForGui(Remedy remedy)
{
    QStringList parts;
    if (hasRemedy(remedy, Remedy::Resume))
        parts << tr("press Resume to continue it");
    if (hasRemedy(remedy, Remedy::NewOutput))
        parts << tr("choose another results file");
    return parts.join(tr(", or "));
}

QString errorMessage(const std::exception& e)
{
    QString message = toQString(e.what());
    if (const auto* error = dynamic_cast<const Error*>(&e))
        if (const QString remedy = remedyForGui(error->context().remedy); !remedy.isEmpty())
            message += QStringLiteral("; ") + remedy;
    return message;
}

} // namespace ascviz::ui
