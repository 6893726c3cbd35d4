#include "pages/registry.h"

#include "pages/analysis/analysispage.h"
#include "pages/batch/batchpage.h"
#include "pages/heads/headspage.h"
#include "pages/interactive/interactivepage.h"
#include "pages/study/studypage.h"

namespace ascviz::ui {

namespace {
template <class P> PageFactory entry(const char* id)
{
    return {id, [](const PageServices& s, QWidget* parent) -> Page* { return new P(s.models, s.results, parent); }};
}
} // namespace

const std::vector<PageFactory>& pageRegistry()
{
    static const std::vector<PageFactory> pages = {entry<InteractivePage>("interactive"), entry<BatchPage>("batch"),
                                                   entry<AnalysisPage>("analysis"), entry<HeadsPage>("heads"),
                                                   entry<StudyPage>("study")};
    return pages;
}

} // namespace ascviz::ui
