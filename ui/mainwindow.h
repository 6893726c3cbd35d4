#pragma once
#include <QMainWindow>

class QTabWidget;

namespace ascviz::ui {

// The main window: Interactive and Batch tabs. (Skeleton; the tabs are filled by their own classes.)
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    QTabWidget* tabs() const { return m_tabs; }

private:
    QTabWidget* m_tabs = nullptr;
};

} // namespace ascviz::ui
