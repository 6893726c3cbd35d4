// ascviz: the AsC-Viz desktop application.
#include "mainwindow.h"

#include <QApplication>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("AsC-Viz"));
    QApplication::setOrganizationName(QStringLiteral("AsC-Viz"));
    ascviz::ui::MainWindow w;
    w.show();
    return app.exec();
}
