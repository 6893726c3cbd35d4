// A page of the main window (Interactive, Batch, Analysis, Heads, Study: the registry, pages/registry.h). The main
// window makes the pages from the registry (pages/registry.h) and knows them only through this interface: one tab per
// page, the page's own menu, and File › Export / sessions that ask the current page. Pages share the services
// (ModelService, JobTracker, ResultStore) given at construction and never call each other; what a page asks of the
// window (show an error, show code in another page) goes through the PageHost it is attached to.
#pragma once
#include <QList>
#include <QString>

class QAction;
class QWidget;

namespace ascviz::ui {

enum class ExportKind { Svg, Png, Json, Csv, Pdf, Html };
struct FigureExportOptions; // common/figureoptions.h

// What a page may ask of the window that shows it (the main window implements it).
class PageHost {
public:
    virtual ~PageHost() = default;
    virtual void showError(const QString& message) = 0;
    virtual void showStatus(const QString& message) = 0;
    // Shows `code` (in `language`, "" = the page's choice) in the page that inspects code, scored with the
    // model of `modelDir` ("" = the bundled model), which is loaded first when another one is loaded.
    // `aggregation`: the θ (its name) the snippet's numbers were made with ("" = the page's choice).
    virtual void openSnippet(const QString& code, const QString& modelDir, const QString& language,
                             const QString& aggregation) = 0;
    // The page's document (Page::documentPath, isDocumentModified) changed: the window's title follows. A
    // non-empty `opened` is a file the user opened or saved (File › Open Recent lists it).
    virtual void documentChanged(const QString& opened = {}) { Q_UNUSED(opened); }
};

class Page {
public:
    virtual ~Page() = default;

    // Called once, after the window made every page: the page connects what it asks of the window.
    virtual void attach(PageHost* host) { Q_UNUSED(host); }

    virtual QString title() const = 0;
    virtual QWidget* widget() = 0;
    // Actions of the page's own menu, titled menuTitle(); empty = no menu.
    virtual QString menuTitle() const { return title(); }
    virtual QList<QAction*> menuActions() { return {}; }

    // Exports of what the page shows. canExport decides whether File › Export's item is enabled.
    virtual bool canExport(ExportKind) const { return false; }
    // The file name offered in the save dialog (without folder), e.g. "sequence.svg".
    virtual QString suggestedExportName(ExportKind kind) const;
    virtual bool exportTo(ExportKind, const QString& path, QString* error)
    {
        Q_UNUSED(path);
        if (error)
            *error = QStringLiteral("this page has nothing to export");
        return false;
    }

    // Exports drawn by the figure room (paper figures): File › Export asks the figure options (width, font,
    // title, legend, caption) first and gives them to the page, whose next exportTo uses them.
    virtual bool exportsFigure(ExportKind) const { return false; }
    virtual void setFigureOptions(const FigureExportOptions& options) { Q_UNUSED(options); }

    // Session files: whether the page keeps state in one, and saving / restoring it.
    virtual bool hasSession() const { return false; }
    virtual bool saveSession(const QString& path, QString* error) const
    {
        Q_UNUSED(path);
        if (error)
            *error = QStringLiteral("this page keeps no session");
        return false;
    }
    virtual bool restoreSession(const QString& path, QString* error)
    {
        Q_UNUSED(path);
        if (error)
            *error = QStringLiteral("this page keeps no session");
        return false;
    }

    // Code from elsewhere (a batch snippet): whether this page shows code, putting it in place, and
    // putting it in place and evaluating it with the current model.
    virtual bool canInspectCode() const { return false; }
    virtual void setCode(const QString& code) { Q_UNUSED(code); }
    // The registry language of code about to be set or inspected ("" = leave the page's choice).
    virtual void setCodeLanguage(const QString& id) { Q_UNUSED(id); }
    // The θ (aggregation name, results of toString) to evaluate that code with ("" = leave the page's choice).
    virtual void setCodeAggregation(const QString& name) { Q_UNUSED(name); }
    virtual bool inspectCode(const QString& code)
    {
        Q_UNUSED(code);
        return false;
    }

    // The shared model changed (loaded or replaced).
    virtual void onModelChanged() {}

    // The file or session the page shows ("" = none: the window's title names the page) and whether what it
    // shows is not saved (the title's [*]; closing the window asks to save an unsaved result first).
    virtual QString documentPath() const { return {}; }
    virtual bool isDocumentModified() const { return false; }
    virtual bool hasUnsavedResult() const { return false; }
    // Opens a file of the page's own kind (a source file: the Interactive page); false with *error otherwise.
    virtual bool openDocument(const QString& path, QString* error)
    {
        Q_UNUSED(path);
        if (error)
            *error = QStringLiteral("this page opens no files");
        return false;
    }
    // Long work that closing the window would stop, in words ("a batch run"; "" = none), and stopping it.
    virtual QString runningWork() const { return {}; }
    virtual void stopRunningWork() {}
};

QString exportKindName(ExportKind kind); // "svg", "png", "json", "csv"

inline QString Page::suggestedExportName(ExportKind kind) const
{
    return QStringLiteral("export.") + exportKindName(kind);
}

} // namespace ascviz::ui
