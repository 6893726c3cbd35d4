#include "common/appidentity.h"

#include "common/commandline.h"

#include <QCoreApplication>
#include <QDir>
#include <QStandardPaths>

namespace ascviz::ui {

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
