#include "mainwindow.h"

#include <QLabel>
#include <QTabWidget>

namespace ascviz::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("AsC-Viz"));
    m_tabs = new QTabWidget(this);
    m_tabs->addTab(new QLabel(tr("Interactive")), tr("Interactive"));
    m_tabs->addTab(new QLabel(tr("Batch")), tr("Batch"));
    setCentralWidget(m_tabs);
    resize(1280, 800);
}

} // namespace ascviz::ui
