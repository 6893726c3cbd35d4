#include "pages/scriptable.h"

namespace ascviz::ui {

bool parseResultView(const QString& name, ResultView* out)
{
    for (ResultView v : {ResultView::Sequence, ResultView::Partial, ResultView::Complete})
        if (name == resultViewName(v)) {
            *out = v;
            return true;
        }
    return false;
}

QString resultViewName(ResultView v)
{
    switch (v) {
    case ResultView::Sequence:
        return QStringLiteral("sequence");
    case ResultView::Partial:
        return QStringLiteral("partial");
    case ResultView::Complete:
        return QStringLiteral("complete");
    }
    return QStringLiteral("sequence");
}

} // namespace ascviz::ui
