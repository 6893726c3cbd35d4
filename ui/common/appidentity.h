// The application's names (QSettings, QStandardPaths) and the folder where it keeps user data.
#pragma once
#include <QString>

namespace ascviz::ui {

// The application version (the CMake project version).
QString versionString();

// Sets the organisation, application name and version that QSettings and QStandardPaths use.
void setApplicationIdentity();

// AsC-Viz's own data folder, <GenericDataLocation>/AsC-Viz (~/.local/share/AsC-Viz on Linux), or the temp
// folder when there is none. (AppLocalDataLocation would repeat the name: …/AsC-Viz/AsC-Viz.)
QString userDataDir();

} // namespace ascviz::ui
