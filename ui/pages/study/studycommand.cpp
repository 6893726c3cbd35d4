#include "pages/study/studycommand.h"

#include "common/appidentity.h"
#include "common/textpos.h"
#include "pages/study/participantwindow.h"
#include "pages/study/trialscreen.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QPixmap>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

namespace ascviz::ui {

namespace {

int usage(const char* what)
{
    std::fprintf(stderr, "ascviz: %s\n", what);
    return 2;
}

} // namespace

bool isStudyCommand(int argc, char** argv)
{
    return argc > 1 && (std::strcmp(argv[1], "--render-study-trial") == 0 || std::strcmp(argv[1], "--run-study") == 0);
}

int runStudyCommand(int argc, char** argv)
{
    const bool render = std::strcmp(argv[1], "--render-study-trial") == 0;
    if (argc < 3)
        return usage("the study file is missing");
    const std::string studyPath = argv[2];
    std::map<std::string, std::string> opt;
    for (int i = 3; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--windowed") {
            opt[a] = "1";
        } else if (a.rfind("--", 0) == 0 && i + 1 < argc) {
            opt[a] = argv[++i];
        } else {
            return usage(("unexpected argument '" + a + "'").c_str());
        }
    }
    QApplication app(argc, argv);
    setApplicationIdentity();
    std::shared_ptr<const Study> study;
    try {
        study = std::make_shared<const Study>(readStudyFile(studyPath));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ascviz: %s\n", e.what());
        return 1;
    }
    if (!opt.count("--participant"))
        return usage("--participant ID is required");
    const auto* p = study->participant(opt["--participant"]);
    if (!p) {
        std::fprintf(stderr, "ascviz: study '%s' has no participant '%s'\n", study->id.c_str(),
                     opt["--participant"].c_str());
        return 1;
    }
    if (render) {
        if (!opt.count("--trial") || !opt.count("--png"))
            return usage("--trial K and --png OUT are required");
        const int trial = std::atoi(opt["--trial"].c_str());
        if (trial < 0 || trial >= int(p->trials.size())) {
            std::fprintf(stderr, "ascviz: participant %s has no trial %d\n", p->id.c_str(), trial);
            return 1;
        }
        int w = 1280, h = 800;
        if (opt.count("--size") && std::sscanf(opt["--size"].c_str(), "%dx%d", &w, &h) != 2)
            return usage("--size must be WIDTHxHEIGHT");
        TrialScreen screen(study);
        screen.resize(w, h);
        screen.showTrial(trial, int(p->trials.size()), p->trials[std::size_t(trial)]);
        screen.show();
        for (int i = 0; i < 5; ++i)
            QApplication::processEvents();
        const QImage img = screen.grab().toImage();
        if (!img.save(toQString(opt["--png"]), "PNG")) {
            std::fprintf(stderr, "ascviz: cannot write %s\n", opt["--png"].c_str());
            return 1;
        }
        return 0;
    }
    const QFileInfo fi(toQString(studyPath));
    const QString responses = opt.count("--responses")
                                  ? toQString(opt["--responses"])
                                  : fi.dir().filePath(fi.completeBaseName() + QStringLiteral(".responses.sqlite"));
    QString error;
    auto* win = ParticipantWindow::open(study, responses, toQString(p->id), true, &error);
    if (!win) {
        std::fprintf(stderr, "ascviz: %s\n", error.toLocal8Bit().constData());
        return 1;
    }
    win->setAttribute(Qt::WA_DeleteOnClose, true);
    if (opt.count("--windowed"))
        win->show();
    else
        win->showFullScreen();
    return app.exec();
}

} // namespace ascviz::ui
