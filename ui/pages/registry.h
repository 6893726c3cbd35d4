// The pages of the main window, in tab order: one factory each, in one place. The main window iterates this
// list and knows the pages only as Page (pages/page.h); adding a page is its files and one entry here
// (docs/adding-a-page.md).
#pragma once
#include <functional>
#include <vector>

class QWidget;

namespace ascviz::ui {

class ModelService;
class Page;
class ResultStore;

// The shared services a page is made with (the main window owns them).
struct PageServices {
    ModelService* models = nullptr;
    ResultStore* results = nullptr;
};

struct PageFactory {
    const char* id; // "interactive", "batch", "analysis", "study"
    // A new page, a child of `parent` (which owns it).
    std::function<Page*(const PageServices&, QWidget* parent)> make;
};

const std::vector<PageFactory>& pageRegistry();

} // namespace ascviz::ui
