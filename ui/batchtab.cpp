#include "batchtab.h"

namespace ascviz::ui {

BatchTab::BatchTab(QWidget* parent) : QWidget(parent) {}

} // namespace ascviz::ui
