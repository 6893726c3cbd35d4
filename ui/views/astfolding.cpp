// The AST view and large trees: folded subtrees (a double-click or the context menu; "…(n)" on the folded
// node), Fit folding the deepest levels first when the whole tree would be too small to read, zoom to the
// selection, the breadcrumb root → selection, and non-terminals showing their code text.
#include "views/astview.h"

#include "common/textpos.h"

#include "ascviz/render/layout.h"

#include <QContextMenuEvent>
#include <QGraphicsScene>
#include <QMenu>
#include <QMouseEvent>

#include <algorithm>
#include <memory>

namespace ascviz::ui {

namespace {
constexpr double kSceneMargin = 32; // the scene rect's margins around a layout (buildScene)
constexpr double kMaxSelectionZoom = 1.6;
} // namespace

AstNodeItem* AstView::nodeAt(const QPoint& viewPos) const
{
    for (QGraphicsItem* i : items(viewPos))
        if (i->type() == AstNodeItem::Type)
            return static_cast<AstNodeItem*>(i);
    return nullptr;
}

void AstView::relayout(bool keepView)
{
    if (!m_analysis || !m_analysis->eval)
        return;
    const GraphLayout* shared = m_analysis->layout(m_kind);
    if (m_collapsed.isEmpty() && !m_showCode) {
        if (!shared) {
            showMessage(tr("No layout: %1")
                            .arg(m_analysis->layoutError.isEmpty() ? tr("unknown error") : m_analysis->layoutError));
            return;
        }
        buildScene(*shared, keepView);
        return;
    }
    LayoutOptions o;
    o.collapsed.assign(m_collapsed.begin(), m_collapsed.end());
    o.nodeText = m_showCode;
    try {
        buildScene(layoutAst(*m_analysis->eval, m_kind, o), keepView);
    } catch (const std::exception& e) {
        showMessage(tr("No layout: %1").arg(toQString(e.what())));
    }
}

LayoutOptions AstView::shownLayout() const
{
    LayoutOptions o;
    o.collapsed.assign(m_collapsed.begin(), m_collapsed.end());
    std::sort(o.collapsed.begin(), o.collapsed.end());
    o.nodeText = m_showCode;
    if (!m_analysis || !m_analysis->eval || m_items.isEmpty())
        return o;
    const QRectF seen = mapToScene(viewport()->rect()).boundingRect();
    // Zoomed to a selection: that node's subtree, while the view's centre is on it (its items' bounding box).
    if (m_items.contains(m_viewRoot)) {
        const auto& nodes = m_analysis->eval->tree.nodes();
        QRectF box;
        for (auto it = m_items.cbegin(); it != m_items.cend(); ++it) {
            int p = it.key();
            while (p >= 0 && p != m_viewRoot)
                p = nodes[static_cast<std::size_t>(p)].parent;
            if (p == m_viewRoot)
                box |= it.value()->sceneBoundingRect();
        }
        if (box.adjusted(-24, -24, 24, 24).contains(seen.center())) {
            o.subtree = m_viewRoot;
            return o;
        }
    }
    // Otherwise the nodes drawn whole inside the viewport.
    QVector<int> inView;
    for (auto it = m_items.cbegin(); it != m_items.cend(); ++it)
        if (seen.contains(it.value()->sceneBoundingRect()))
            inView.push_back(it.key());
    if (inView.isEmpty() || inView.size() == m_items.size())
        return o;
    const int common = commonAncestor(inView);
    if (common >= 0 && m_analysis->eval->tree.nodes()[static_cast<std::size_t>(common)].parent >= 0)
        o.subtree = common; // (the tree's root: the whole tree)
    return o;
}

int AstView::commonAncestor(const QVector<int>& of) const
{
    if (of.isEmpty() || !m_analysis || !m_analysis->eval)
        return -1;
    // The path root → the first node, cut where each other node's path leaves it.
    const auto& nodes = m_analysis->eval->tree.nodes();
    auto pathOf = [&](int n) {
        QVector<int> path;
        for (; n >= 0 && static_cast<std::size_t>(n) < nodes.size(); n = nodes[static_cast<std::size_t>(n)].parent)
            path.prepend(n);
        return path;
    };
    QVector<int> common = pathOf(of.first());
    for (const int n : of) {
        const QVector<int> p = pathOf(n);
        qsizetype k = 0;
        while (k < common.size() && k < p.size() && common[k] == p[k])
            ++k;
        common.resize(k);
    }
    // The deepest one the view draws (the partial view leaves some nodes out).
    while (!common.isEmpty() && !m_items.contains(common.last()))
        common.removeLast();
    return common.isEmpty() ? -1 : common.last();
}

void AstView::setCollapsed(int node, bool collapsed)
{
    if (!m_analysis || !m_analysis->eval || collapsed == m_collapsed.contains(node))
        return;
    if (collapsed && shownDescendants(*m_analysis->eval, node, m_kind) == 0)
        return; // nothing below it to fold
    if (collapsed)
        m_collapsed.push_back(node);
    else
        m_collapsed.removeAll(node);
    relayout(true);
    Q_EMIT foldingChanged();
}

void AstView::toggleCollapsed(int node)
{
    setCollapsed(node, !isCollapsed(node));
}

void AstView::expandAll()
{
    if (m_collapsed.isEmpty())
        return;
    m_collapsed.clear();
    relayout(true);
    Q_EMIT foldingChanged();
}

void AstView::setShowCode(bool on)
{
    if (on == m_showCode)
        return;
    m_showCode = on;
    relayout(true);
}

void AstView::zoomToFit()
{
    // Fold from the deepest level up until the whole tree fits at a readable zoom (sizes from the fast tree
    // layout), then lay it out and fit it.
    if (m_analysis && m_analysis->eval && viewport()->width() > 10) {
        const EvalResult& r = *m_analysis->eval;
        auto fits = [&](const GraphLayout& g) {
            return std::min(viewport()->width() / (g.width + kSceneMargin),
                            viewport()->height() / (g.height + kSceneMargin)) >= kLegibleZoom;
        };
        LayoutOptions o;
        o.nodeText = m_showCode;
        o.collapsed.assign(m_collapsed.begin(), m_collapsed.end());
        if (!fits(layoutAstTree(r, m_kind, o))) {
            int maxDepth = 0;
            for (const AstNode& n : r.tree.nodes())
                maxDepth = std::max(maxDepth, n.depth);
            std::vector<int> folds;
            for (int d = maxDepth - 1; d >= 1; --d) {
                o.collapsed = foldAtDepth(r, m_kind, d);
                if (o.collapsed.empty())
                    continue;
                folds = o.collapsed;
                if (fits(layoutAstTree(r, m_kind, o)))
                    break;
            }
            if (!folds.empty()) {
                m_collapsed = QVector<int>(folds.begin(), folds.end());
                relayout(true);
                Q_EMIT foldingChanged();
            }
        }
    }
    fitWhole();
}

void AstView::zoomToSelection()
{
    QRectF box;
    for (int n : std::as_const(m_highlighted))
        if (auto* it = itemForNode(n))
            box |= it->sceneBoundingRect();
    if (box.isEmpty())
        return;
    // The selected node with what is drawn under it: its subtree's items.
    if (m_highlighted.size() == 1 && m_analysis && m_analysis->eval) {
        const auto& nodes = m_analysis->eval->tree.nodes();
        const int top = m_highlighted.first();
        for (auto it = m_items.cbegin(); it != m_items.cend(); ++it) {
            int p = it.key();
            while (p >= 0 && p != top)
                p = nodes[std::size_t(p)].parent;
            if (p == top)
                box |= it.value()->sceneBoundingRect();
        }
    }
    box.adjust(-24, -24, 24, 24);
    m_autoZoom = AutoZoom::None;
    m_viewRoot = commonAncestor(m_highlighted);
    resetTransform();
    const double s = std::clamp(std::min(viewport()->width() / box.width(), viewport()->height() / box.height()),
                                kLegibleZoom, kMaxSelectionZoom);
    scale(s, s);
    centerOn(box.center());
    Q_EMIT zoomChanged(zoom());
}

QString AstView::breadcrumb() const
{
    if (!m_analysis || !m_analysis->eval || m_highlighted.isEmpty())
        return {};
    const auto& nodes = m_analysis->eval->tree.nodes();
    const int node = m_highlighted.first();
    if (node < 0 || std::size_t(node) >= nodes.size())
        return {};
    QStringList path;
    for (int n = node; n >= 0; n = nodes[std::size_t(n)].parent)
        path.prepend(
            QStringLiteral("<a href=\"#%1\">%2</a>").arg(n).arg(toQString(nodes[std::size_t(n)].type).toHtmlEscaped()));
    return path.join(QStringLiteral(" › "));
}

void AstView::mouseDoubleClickEvent(QMouseEvent* e)
{
    if (AstNodeItem* item = nodeAt(e->position().toPoint()); item && e->button() == Qt::LeftButton) {
        toggleCollapsed(item->node());
        e->accept();
        return;
    }
    QGraphicsView::mouseDoubleClickEvent(e);
}

void AstView::contextMenuEvent(QContextMenuEvent* e)
{
    if (!m_analysis || !m_analysis->eval)
        return;
    QMenu menu(this);
    if (AstNodeItem* item = nodeAt(e->pos())) {
        const int node = item->node();
        if (isCollapsed(node))
            menu.addAction(tr("Expand this subtree"), this, [this, node] { setCollapsed(node, false); });
        else if (shownDescendants(*m_analysis->eval, node, m_kind) > 0)
            menu.addAction(tr("Collapse this subtree"), this, [this, node] { setCollapsed(node, true); });
        menu.addAction(tr("Zoom to this node"), this, [this, node] {
            Q_EMIT nodeClicked(node);
            zoomToSelection();
        });
        menu.addAction(tr("Export subtree…"), this, [this, node] { Q_EMIT exportSubtreeRequested(node); });
        menu.addSeparator();
    }
    menu.addAction(tr("Expand all"), this, &AstView::expandAll)->setEnabled(!m_collapsed.isEmpty());
    QAction* code = menu.addAction(tr("Show code text in nodes"), this, &AstView::setShowCode);
    code->setCheckable(true);
    code->setChecked(m_showCode);
    menu.exec(e->globalPos());
}

} // namespace ascviz::ui
