// The GUI executable's command line (QCommandLineParser) and the scripted run it can ask for: load a model,
// put a prompt in the editor, generate or score, show a view, save a screenshot of the window, quit. The run
// talks to the main window's pages through interfaces only: ScriptablePage (pages/scriptable.h) and Page.
#pragma once
#include "ascviz/model/model.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

namespace ascviz::ui {

class MainWindow;
class Page;
class ScriptablePage;

struct GuiOptions {
    QString model = QStringLiteral("default"); // folder or "default"
    LoadOptions load;                          // --device, --dtype, --weights (core's name table, model/loadoptions.h)
    QString promptFile;
    QString session; // --open-session: an .ascviz file to open instead of running the model (Qt itself
                     // takes -session for X11 session management)
    bool generate = false;
    GenerationOptions generation;
    QString view;        // sequence | partial | complete (empty: leave as is)
    QString aggregation; // median | mean | max | min (empty: default)
    int selectNode = -1; // select an AST node after the result is shown
    int selectToken = -1;
    QString screenshot; // PNG of the main window after the result is shown
    bool quit = false;
    bool scripted() const { return !promptFile.isEmpty() || !session.isEmpty() || !screenshot.isEmpty() || quit; }
};

enum class ParseResult { Ok, Help, Version, Error };
// `args` includes the program name. On Help/Version/Error, `message` holds the text to print.
ParseResult parseGuiCommandLine(const QStringList& args, GuiOptions* out, QString* message);

// Drives a MainWindow through a scripted run; emits finished(exitCode) when `quit` was asked for, on an
// error in a run that should quit, and with 1 when the prompt file cannot be read (missing, not UTF-8).
class AutoRun : public QObject {
    Q_OBJECT
public:
    AutoRun(MainWindow* window, GuiOptions options, QObject* parent = nullptr);
    void start();

Q_SIGNALS:
    void finished(int exitCode);

private:
    // Prints the message; ends the run with exit code 1 when it was to quit, or when `fatal` (the prompt file
    // cannot be read: with or without --quit a scripted run has nothing to show).
    void fail(const QString& message, bool fatal = false);
    void onModelLoaded();
    void onResult();
    void finish();
    ScriptablePage* scriptable() const; // the page the run drives (null when the window has none)

    QPointer<MainWindow> m_window;
    GuiOptions m_opts;
    QString m_prompt;
    bool m_started = false;
    bool m_done = false;
};

} // namespace ascviz::ui
