// The main window's Qt conventions: the title names the open file or session (with [*] when it is not saved),
// File › Open Recent, the window's geometry and state remembered in QSettings, and the question before closing
// a window whose batch is running or whose result is not saved.
#include "mainwindow.h"

#include <QCloseEvent>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

namespace ascviz::ui {

namespace {
const char* const kRecentFilesKey = "files/recent";
const char* const kGeometryKey = "window/geometry";
const char* const kStateKey = "window/state";
constexpr int kMaxRecentFiles = 10;
} // namespace

void MainWindow::updateTitle()
{
    // The current page's document, else the first page's that has one.
    Page* shown = nullptr;
    if (Page* cur = currentPage(); cur && !cur->documentPath().isEmpty())
        shown = cur;
    for (Page* p : std::as_const(m_pages))
        if (!shown && !p->documentPath().isEmpty())
            shown = p;
    if (!shown) { // no file or session: "Untitled" while there is something unsaved
        bool modified = false;
        for (Page* p : std::as_const(m_pages))
            modified = modified || p->isDocumentModified();
        setWindowTitle(modified ? tr("Untitled[*] — AsC-Viz") : QStringLiteral("AsC-Viz"));
        setWindowModified(modified);
        return;
    }
    setWindowTitle(tr("%1[*] — AsC-Viz").arg(QFileInfo(shown->documentPath()).fileName()));
    setWindowModified(shown->isDocumentModified());
}

void MainWindow::documentChanged(const QString& opened)
{
    if (!opened.isEmpty()) {
        rememberRecentFile(opened);
        // A file opened: an earlier error about another file is stale (issue 54: it stayed up). A message about
        // the model stays, the model being as it was.
        if (!m_banner->isHidden() && !m_banner->aboutTheModel())
            m_banner->hide();
    }
    updateTitle();
}

QStringList MainWindow::recentFiles() const
{
    return QSettings().value(QLatin1String(kRecentFilesKey)).toStringList();
}

void MainWindow::pushRecent(const QString& key, const QString& value, int max)
{
    QStringList list = QSettings().value(key).toStringList();
    list.removeAll(value);
    list.prepend(value);
    while (list.size() > max)
        list.removeLast();
    QSettings().setValue(key, list);
}

void MainWindow::rememberRecentFile(const QString& path)
{
    pushRecent(QLatin1String(kRecentFilesKey), QFileInfo(path).absoluteFilePath(), kMaxRecentFiles);
    rebuildRecentFilesMenu();
}

void MainWindow::rebuildRecentFilesMenu()
{
    m_recentFilesMenu->clear();
    const QStringList list = recentFiles();
    for (int i = 0; i < list.size(); ++i) {
        const QString path = list[i];
        // &1 … &9, 1&0: the usual keyboard accelerators of a recent-files list.
        const QString number = i < 9 ? QStringLiteral("&%1").arg(i + 1) : QStringLiteral("1&0");
        QAction* a = m_recentFilesMenu->addAction(QStringLiteral("%1  %2").arg(number, QFileInfo(path).fileName()));
        a->setToolTip(path);
        a->setStatusTip(path);
        a->setData(path);
        connect(a, &QAction::triggered, this, [this, path] { openRecentFile(path); });
    }
    if (list.isEmpty()) {
        m_recentFilesMenu->addAction(tr("(none yet)"))->setEnabled(false);
        return;
    }
    m_recentFilesMenu->addSeparator();
    m_recentFilesMenu->addAction(tr("&Clear the list"), this, [this] {
        QSettings().remove(QLatin1String(kRecentFilesKey));
        rebuildRecentFilesMenu();
    });
}

bool MainWindow::openRecentFile(const QString& path)
{
    if (!QFileInfo::exists(path)) {
        QStringList list = recentFiles();
        list.removeAll(path);
        QSettings().setValue(QLatin1String(kRecentFilesKey), list);
        rebuildRecentFilesMenu();
        showError(tr("%1 no longer exists; it was taken off the recent files.").arg(path));
        return false;
    }
    QString error;
    if (path.endsWith(QLatin1String(".ascviz"))) {
        Page* page = sessionPage();
        if (page && !confirmReplaceResult(page, path))
            return false; // the result shown stays; the file stays in the recent list
        if (!page || !page->restoreSession(path, &error)) {
            showError(tr("Could not open the session: %1").arg(error));
            return false;
        }
        m_tabs->setCurrentWidget(page->widget());
        documentChanged(path);
        return true;
    }
    for (Page* p : std::as_const(m_pages)) {
        if (!p->canInspectCode())
            continue;
        if (!p->openDocument(path, &error)) {
            showError(tr("Could not open %1: %2").arg(path, error));
            return false;
        }
        m_tabs->setCurrentWidget(p->widget());
        documentChanged(path);
        return true;
    }
    return false;
}

void MainWindow::restoreWindowState()
{
    const QSettings settings;
    if (const QByteArray g = settings.value(QLatin1String(kGeometryKey)).toByteArray(); !g.isEmpty())
        restoreGeometry(g);
    if (const QByteArray st = settings.value(QLatin1String(kStateKey)).toByteArray(); !st.isEmpty())
        restoreState(st);
}

bool MainWindow::confirmClose()
{
    for (Page* p : std::as_const(m_pages)) {
        const QString work = p->runningWork();
        if (work.isEmpty())
            continue;
        QMessageBox box(QMessageBox::Warning, tr("Quit AsC-Viz"),
                        tr("%1 is still running. Quitting stops it; what it finished is kept and it can be resumed "
                           "later.")
                            .arg(work.left(1).toUpper() + work.mid(1)),
                        QMessageBox::Cancel, this);
        QPushButton* stop = box.addButton(tr("Stop and quit"), QMessageBox::DestructiveRole);
        box.setDefaultButton(QMessageBox::Cancel);
        box.exec();
        if (box.clickedButton() != stop)
            return false;
        p->stopRunningWork();
    }
    for (Page* p : std::as_const(m_pages)) {
        if (!p->hasUnsavedResult())
            continue;
        const auto answer =
            QMessageBox::warning(this, tr("Quit AsC-Viz"),
                                 tr("The result shown in %1 is not saved. Save it as a session first?").arg(p->title()),
                                 QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
        if (answer == QMessageBox::Cancel)
            return false;
        if (answer == QMessageBox::Save) {
            m_tabs->setCurrentWidget(p->widget());
            if (!saveSessionAs())
                return false;
        }
    }
    return true;
}

bool MainWindow::confirmReplaceResult(Page* page, const QString& path)
{
    if (!page || !page->hasUnsavedResult())
        return true;
    const auto answer = QMessageBox::warning(
        this, tr("Open %1").arg(QFileInfo(path).fileName()),
        tr("Opening %1 replaces the result shown in %2, which is not saved. Save it as a session first?")
            .arg(QFileInfo(path).fileName(), page->title()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel)
        return false;
    if (answer == QMessageBox::Save) {
        m_tabs->setCurrentWidget(page->widget());
        return saveSessionAs();
    }
    return true;
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    if (!confirmClose()) {
        e->ignore();
        statusBar()->showMessage(tr("Still open."), 4000);
        return;
    }
    QSettings settings;
    settings.setValue(QLatin1String(kGeometryKey), saveGeometry());
    settings.setValue(QLatin1String(kStateKey), saveState());
    e->accept();
}

} // namespace ascviz::ui
