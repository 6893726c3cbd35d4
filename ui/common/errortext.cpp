#include "common/errortext.h"

#include "common/textpos.h"

#include "ascviz/base/limits.h"

#include <QCoreApplication>
#include <QRegularExpression>
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

QString guiWording(const QString& message)
{
    static const QRegularExpression corpusChanged(
        QStringLiteral("corpus content \\(fingerprint\\) is '[0-9a-fA-F]*' in the DB but '[0-9a-fA-F]*' now"));
    static const QRegularExpression quotedHex(QStringLiteral("'[0-9a-fA-F]{16,}'"));
    static const QRegularExpression hex(QStringLiteral("\\b[0-9a-fA-F]{16,}\\b"));
    static const QRegularExpression dbOption(QStringLiteral("--db\\s+"));
    static const QRegularExpression resumeOption(QStringLiteral("--resume\\b"));
    // limits the GUI has no setting for: the size and the limit are said, no command-line option advised
    std::string plain = toUtf8(message);
    for (const char* option : {limits::kMaxTextBytesOption, limits::kMaxAstDepthOption, limits::kMaxAstNodesOption})
        plain = limits::withoutOptionAdvice(plain, option);
    QString m = toQString(plain);
    m.replace(corpusChanged, tr("the corpus file's content is not the content the run stored (it changed since)"));
    m.replace(quotedHex, tr("(checksum)"));
    m.replace(hex, tr("(checksum)"));
    m.replace(dbOption, tr("the results file "));
    m.replace(resumeOption, tr("Resume"));
    return m;
}

QString errorMessage(const std::exception& e)
{
    QString message = guiWording(toQString(e.what()));
    if (const auto* error = dynamic_cast<const Error*>(&e))
        if (const QString remedy = remedyForGui(error->context().remedy); !remedy.isEmpty())
            message += QStringLiteral("; ") + remedy;
    return message;
}

} // namespace ascviz::ui
