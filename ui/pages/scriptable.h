// What the GUI's scripted mode (app/gui: --prompt-file, --generate, --view, --screenshot ...) asks of the
// page that runs the model on a prompt and shows the result: settings, the prompt, run, show. The Interactive
// page implements it; the scripted mode finds it among the main window's pages and knows it only through
// this interface and Page (restoreSession for --open-session).
#pragma once
#include "ascviz/eval/eval.h"
#include "ascviz/model/model.h"

#include <QString>

#include <functional>

class QObject;

namespace ascviz::ui {

// The views a result is shown in, by name ("sequence", "partial", "complete": --view, session files).
enum class ResultView { Sequence = 0, Partial = 1, Complete = 2 };
bool parseResultView(const QString& name, ResultView* out);
QString resultViewName(ResultView v);

class ScriptablePage {
public:
    virtual ~ScriptablePage() = default;

    virtual void setAggregation(Aggregation a) = 0;
    virtual void setGenerationOptions(const GenerationOptions& g) = 0;
    virtual void setLanguage(const QString& id) = 0; // a registry id
    // Puts the text in the prompt; false when it is over maxPromptBytes().
    virtual bool setPrompt(const QString& text) = 0;
    virtual qint64 maxPromptBytes() const = 0;
    virtual void generate() = 0; // a completion of the prompt
    virtual void score() = 0;    // the prompt as it is
    virtual void showView(ResultView v) = 0;
    virtual void selectNode(int node) = 0;
    virtual void selectToken(int token) = 0;
    // Calls `shown` after each result the page shows and `failed` with the message of a job that failed, on
    // the GUI thread, while `context` exists.
    virtual void watchResults(QObject* context, std::function<void()> shown,
                              std::function<void(const QString&)> failed) = 0;
};

} // namespace ascviz::ui
