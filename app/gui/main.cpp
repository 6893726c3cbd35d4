// ascviz: the AsC-Viz desktop application. Only wiring: parse the command line, show the main window,
// start loading the model, and run a scripted session when asked (--prompt-file/--screenshot/--quit).
#include "commandline.h"
#include "common/appidentity.h"
#include "common/textpos.h"
#include "mainwindow.h"
#include "pages/study/studycommand.h"
#include "services/modelservice.h"

#include <QApplication>

#include <cstdio>
#include <cstring>

namespace {

// --help and --version are answered without a display: no QApplication (which needs a platform) is made.
bool onlyInformation(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
        for (const char* o : {"--help", "-h", "-?", "--help-all", "--version", "-v"})
            if (std::strcmp(argv[i], o) == 0)
                return true;
    return false;
}

} // namespace

int main(int argc, char** argv)
{
    if (ascviz::ui::isStudyCommand(argc, argv)) // --render-study-trial / --run-study (docs/study.md)
        return ascviz::ui::runStudyCommand(argc, argv);
    if (onlyInformation(argc, argv)) {
        QCoreApplication core(argc, argv);
        ascviz::ui::setApplicationIdentity();
        ascviz::ui::GuiOptions ignored;
        QString message;
        const auto r = ascviz::ui::parseGuiCommandLine(QCoreApplication::arguments(), &ignored, &message);
        const bool ok = r == ascviz::ui::ParseResult::Help || r == ascviz::ui::ParseResult::Version;
        std::fprintf(ok ? stdout : stderr, ok ? "%s\n" : "ascviz: %s\n", message.toLocal8Bit().constData());
        return ok ? 0 : 2;
    }
    QApplication app(argc, argv);
    ascviz::ui::setApplicationIdentity();

    ascviz::ui::GuiOptions opts;
    QString message;
    switch (ascviz::ui::parseGuiCommandLine(QApplication::arguments(), &opts, &message)) {
    case ascviz::ui::ParseResult::Ok:
        break;
    case ascviz::ui::ParseResult::Help:
    case ascviz::ui::ParseResult::Version:
        std::fprintf(stdout, "%s\n", message.toLocal8Bit().constData());
        return 0;
    case ascviz::ui::ParseResult::Error:
        std::fprintf(stderr, "ascviz: %s\n", message.toLocal8Bit().constData());
        return 2;
    }

    ascviz::ui::MainWindow w;
    if (opts.scripted())
        w.resize(1400, 900); // scripted runs and their screenshots: the default size, not the remembered one
    w.show();
    const ascviz::LoadOptions load = opts.load;

    ascviz::ui::AutoRun run(&w, opts);
    // Queued: a run that fails in start() (an unreadable --prompt-file) finishes before app.exec(), and an
    // exit() before the event loop runs would be lost.
    QObject::connect(
        &run, &ascviz::ui::AutoRun::finished, &app, [](int code) { QApplication::exit(code); }, Qt::QueuedConnection);
    run.start();
    w.loadModel(opts.model, load);
    return app.exec();
}
