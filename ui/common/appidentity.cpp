#include "common/appidentity.h"

#include <QCoreApplication>
#include <QDir>
#include <QStandardPaths>

namespace ascviz::ui {

QString versionString()
{
    return QStringLiteral(ASCVIZ_VERSION);
}

void setApplicationIdentity()
{
    QCoreApplication::setApplicationName(QStringLiteral("AsC-Viz"));
    QCoreApplication::setOrganizationName(QStringLiteral("AsC-Viz"));
    QCoreApplication::setApplicationVersion(versionString());
}

QString userDataDir()
{
    const QString base = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    return (base.isEmpty() ? QDir::tempPath() : base) + QStringLiteral("/AsC-Viz");
}

} // namespace ascviz::ui
