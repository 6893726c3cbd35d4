// What the Inside panel and the Experts view may ask of the Interactive tab's views (issue 40): colours over the
// text's bytes (sequence view, editor), node fills in both AST views, highlighted nodes, the legend's scale, the
// views drawn again with the state's result. InteractivePage implements it; its widgets stay its own. What is shown
// and selected is InteractiveState's (interactivestate.h).
#pragma once
#include "views/sequenceview.h" // SpanColour

#include <QColor>
#include <QString>
#include <QVector>

#include <functional>
#include <vector>

namespace ascviz::ui {

class InteractiveState;

class ResultCanvas {
public:
    virtual ~ResultCanvas() = default;

    // The shown result, its derived copy and the selection.
    virtual InteractiveState* state() const = 0;
    // The registry id of the language chosen for the editor's text.
    virtual QString language() const = 0;

    // Colours over byte spans of the shown text on the sequence view (`rest` where no span is) and, when
    // `inEditor`, in the editor (a later span wins where spans overlap).
    virtual void setSpanColours(const QColor& rest, const std::vector<SpanColour>& spans, bool inEditor) = 0;
    // The sequence view's own colours (NtP) again, and no colours in the editor.
    virtual void clearSpanColours() = 0;
    // A fill, a tooltip and the value shown in the node (in place of its AsC-Eval: issue 54) for every node item of
    // both AST views (node id → look); an empty value leaves the node's own line.
    struct NodeLook {
        QColor fill;
        QString tip;
        QString value;
    };
    using NodePaint = std::function<NodeLook(int node)>;
    virtual void paintNodes(const NodePaint& paint) = 0;
    // Highlights `nodes` in both AST views.
    virtual void highlightNodes(const QVector<int>& nodes) = 0;
    // Both AST views draw the state's displayed result again (their own colours, no paintNodes).
    virtual void redrawNodes() = 0;

    // The legend: a signed scale (±maxAbs, `none` for what it does not cover), a range scale (lo..hi), or
    // AsC-Eval's scale again.
    virtual void setSignedScale(const QString& title, std::function<QColor(double)> color, double maxAbs,
                                const QColor& none, const QString& noneLabel) = 0;
    virtual void setRangeScale(const QString& title, std::function<QColor(double)> color, double lo, double hi,
                               const QColor& none, const QString& noneLabel) = 0;
    virtual void clearScale() = 0;
};

} // namespace ascviz::ui
