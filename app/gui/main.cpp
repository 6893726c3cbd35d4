// ascviz: the AsC-Viz desktop application. Only wiring: parse the command line, show the main window,
// start loading the model, and run a scripted session when asked (--prompt-file/--screenshot/--quit).
#include "commandline.h"
#include "mainwindow.h"
#include "modelcontroller.h"

#include <QApplication>

#include <cstdio>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("AsC-Viz"));
    QApplication::setOrganizationName(QStringLiteral("AsC-Viz"));
    QApplication::setApplicationVersion(ascviz::ui::versionString());

    ascviz::ui::GuiOptions opts;
    QString message;
    switch (ascviz::ui::parseGuiCommandLine(QApplication::arguments(), &opts, &message)) {
    case ascviz::ui::ParseResult::Ok: break;
    case ascviz::ui::ParseResult::Help:
    case ascviz::ui::ParseResult::Version:
        std::fprintf(stdout, "%s\n", message.toLocal8Bit().constData());
        return 0;
    case ascviz::ui::ParseResult::Error:
        std::fprintf(stderr, "ascviz: %s\n", message.toLocal8Bit().constData());
        return 2;
    }

    ascviz::ui::MainWindow w;
    w.show();
    ascviz::LoadOptions load;
    load.device = opts.device.toStdString();
    load.dtype = opts.dtype.toStdString();

    ascviz::ui::AutoRun run(&w, opts);
    QObject::connect(&run, &ascviz::ui::AutoRun::finished, &app, [](int code) { QApplication::exit(code); });
    run.start();
    w.loadModel(opts.model, load);
    return app.exec();
}
