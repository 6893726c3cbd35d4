// The main window's Help menu (Qt desktop convention): About AsC-Viz (version, LibTorch, CPU threads), the
// README's quick start, the keyboard shortcuts of every menu action and the model families the decoder runs,
// each shown in a dialog.
#pragma once
#include <QString>

class QMenu;
class QMenuBar;
class QWidget;

namespace ascviz::ui {

// Adds "&Help" to `bar`; the dialogs open over `parent`. Call after the other menus exist (the shortcuts
// dialog lists theirs when it opens). Returns the menu.
QMenu* addHelpMenu(QMenuBar* bar, QWidget* parent);

// The dialogs' texts (rich text), for tests.
QString aboutText();
QString quickStartText();
QString shortcutsText(const QMenuBar* bar);
QString modelFamiliesText();

} // namespace ascviz::ui
