#pragma once
#include "pages/page.h"

#include "ascviz/model/model.h"

#include <QElapsedTimer>
#include <QMainWindow>
#include <QStringList>

class QComboBox;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QToolButton;

namespace ascviz::ui {

class JobTracker;
class ModelService;
class ResultStore;

// A dismissible message bar over the tabs (errors the user can act on, e.g. a model that failed to load).
class MessageBanner : public QWidget {
    Q_OBJECT
public:
    explicit MessageBanner(QWidget* parent = nullptr);
    void showMessage(const QString& text, bool offerOpenModel);
    QString text() const;
    // Whether the message is about the model (a failed load, offering to open another), not about a file.
    bool aboutTheModel() const { return m_aboutTheModel; }
Q_SIGNALS:
    void openModelRequested();

private:
    QLabel* m_label;
    QPushButton* m_open;
    bool m_aboutTheModel = false;
};

// The main window: the model panel (loaded model, loading progress, open/recent), one tab per Page made from
// the page registry (pages/registry.h), menus for sessions and exports that ask the current page. It knows
// the pages only as Page and serves them as their PageHost. It owns the shared services: the JobTracker,
// the ModelService (the one model in memory) and the ResultStore.
class MainWindow : public QMainWindow, public PageHost {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    QTabWidget* tabs() const { return m_tabs; }
    const QList<Page*>& pages() const { return m_pages; }
    Page* currentPage() const;
    // The first page of type P (a page class or an interface it implements), null when none.
    template <class P> P* page() const
    {
        for (Page* p : m_pages)
            if (auto* t = dynamic_cast<P*>(p))
                return t;
        return nullptr;
    }
    JobTracker* jobs() const { return m_jobs; }
    ModelService* modelService() const { return m_models; }
    ResultStore* results() const { return m_results; }
    // File › Export: one action per kind, enabled when the current page can export it.
    QMenu* exportMenu() const { return m_exportMenu; }
    QAction* exportAction(ExportKind kind) const;

    // Loads a model folder in the background ("default" = the bundled model).
    void loadModel(const QString& dirOrDefault, const LoadOptions& opts = {});
    QString modelText() const;
    // The precision chooser (float32 by default; changing it reloads the current model).
    QComboBox* precisionBox() const { return m_dtypeBox; }
    QComboBox* weightsBox() const { return m_weightsBox; }
    // File > Hugging Face cache: one action per cached model (rebuilt each time the menu opens).
    QMenu* hubMenu() const { return m_hubMenu; }
    bool isBannerVisible() const;
    QString bannerText() const;
    QStringList recentModels() const;
    // Files opened or saved (sources and sessions), newest first (QSettings "files/recent"); File › Open Recent.
    QStringList recentFiles() const;
    QMenu* recentFilesMenu() const { return m_recentFilesMenu; }
    // Opens a recent file: a session (.ascviz) in the page that keeps sessions, else a source file in the page
    // that opens it. False (and the message shown) when it cannot; a file that is gone leaves the list.
    bool openRecentFile(const QString& path);

public Q_SLOTS:
    void openModelFolder(); // asks with a file dialog
    void openSession();
    void saveSession() { saveSessionAs(); }
    void showError(const QString& message) override;
    // Saves the session of the page that keeps one, asking for the file; false when nothing was saved.
    bool saveSessionAs();

public:
    // --- PageHost
    void showStatus(const QString& message) override;
    void openSnippet(const QString& code, const QString& modelDir, const QString& language,
                     const QString& aggregation) override;
    void documentChanged(const QString& opened = {}) override;

protected:
    // Asks first when closing would stop a batch run or lose an unsaved result; remembers the window's
    // geometry and state (QSettings "window/geometry", "window/state").
    void closeEvent(QCloseEvent* e) override;

private:
    // windowstate.cpp: the title, recent files, the window's geometry, the question before closing.
    void updateTitle();
    void rememberRecentFile(const QString& path);
    // Puts `value` first in the QSettings list `key`, keeping at most `max` entries.
    static void pushRecent(const QString& key, const QString& value, int max);
    void rebuildRecentFilesMenu();
    void restoreWindowState();
    bool confirmClose();
    // Before opening `path` (a session) over `page`'s unsaved result: Save (as a session, then open), Discard or
    // Cancel; true when the opening may go on.
    bool confirmReplaceResult(Page* page, const QString& path);

    QWidget* buildModelPanel();
    void buildMenus();
    void updateModelPanel();
    void rememberRecent(const QString& dir);
    void rebuildRecentMenu();
    void rebuildHubMenu();
    void addPage(Page* page);
    void updateExportActions();
    void exportCurrent(ExportKind kind);
    Page* sessionPage() const; // the current page when it keeps sessions, else the first that does
    void onLoadFailed(const QString& dir, const QString& message);

    JobTracker* m_jobs;
    ModelService* m_models;
    ResultStore* m_results;
    QList<Page*> m_pages;
    QMenu* m_exportMenu = nullptr;
    QList<QPair<ExportKind, QAction*>> m_exportActions;
    QTabWidget* m_tabs = nullptr;
    MessageBanner* m_banner = nullptr;
    QLabel* m_modelLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QToolButton* m_recentButton = nullptr;
    QComboBox* m_dtypeBox = nullptr;         // compute precision: float32 (default), float16, bfloat16
    QComboBox* m_weightsBox = nullptr;       // weights in memory: auto, float32, checkpoint (LoadOptions::weights)
    LoadOptions m_loadOptions;               // device / dtype of the last load request
    Weights m_loadedWeights = Weights::Auto; // the weights setting the loaded model was loaded with
    QMenu* m_recentMenu = nullptr;
    QMenu* m_recentFilesMenu = nullptr;
    QMenu* m_hubMenu = nullptr; // models in the local Hugging Face cache, listed when opened
    QString m_pendingSnippet;   // a Batch snippet to score once its model is loaded
    bool m_hasPendingSnippet = false;
    QElapsedTimer m_loadTimer;
};

} // namespace ascviz::ui
