// Relation edges drawn over an AST view (method.md §11, the Heads page): one dashed curve per edge from the head
// node to the dependent node, above the tree's items, with an arrow head at the dependent. The curves are scene
// items tagged as overlay, so a new layout of the view (a fold, another analysis) drops them; call setEdges again
// after one. Edges whose ends are not shown (folded away) are not drawn.
#pragma once
#include "common/analysis.h" // before the forward declaration of ui::AstView (analysis.h means ascviz::AstView)

#include <QColor>
#include <QPair>
#include <QVector>

namespace ascviz::ui {

class AstView;

class AstEdgeOverlay {
public:
    explicit AstEdgeOverlay(AstView* view, QColor colour = QColor(44, 160, 44));
    // Replaces the drawn edges by `edges` (head node, dependent node).
    void setEdges(const QVector<QPair<int, int>>& edges);
    void clear() { setEdges({}); }
    // The edges drawn now (items in the view's scene).
    int drawnEdges() const;

private:
    AstView* m_view;
    QColor m_colour;
};

} // namespace ascviz::ui
