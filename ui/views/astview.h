// AST views (paper S2 partial / S3 complete): the Graphviz layout computed by core (layoutAst), drawn
// in a QGraphicsScene. Nodes are coloured by AsC-Eval (grey n/a), ERROR/MISSING nodes get a dashed
// dark-red frame and a warning badge. Zoom: Ctrl+wheel, buttons, fit; pan: drag. Large trees (astfolding.cpp):
// a double-click or the context menu folds a node's subtree ("…(n)" on it), Fit folds the deepest levels first
// when the whole tree would be too small to read, zoom to the selection, the path root → selection as a
// breadcrumb, and non-terminals showing their code text.
#pragma once
#include "common/analysis.h"

#include <QGraphicsPathItem>
#include <QGraphicsView>
#include <QHash>
#include <QImage>
#include <QVector>

namespace ascviz::ui {

class AstNodeItem : public QGraphicsPathItem {
public:
    enum { Type = UserType + 101 };
    AstNodeItem(int node, const LayoutNode& layout, const QString& label, const QColor& fill, bool error,
                bool terminal);
    int type() const override { return Type; }
    int node() const { return m_node; }
    bool isErrorNode() const { return m_error; }
    QString label() const { return m_label; }
    // Another value in place of the label's value line (an overlay's: attribution, commitment layer); empty: the
    // node's own label again.
    void setValueText(const QString& text);
    QColor fillColor() const { return brush().color(); }
    void setHighlighted(bool on);
    bool isHighlighted() const { return m_highlighted; }
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    void updatePen();
    int m_node;
    QString m_label;
    QString m_ownLabel; // as laid out (type, code, AsC-Eval, "…(n)")
    bool m_error;
    bool m_highlighted = false;
    QFont m_font;
};

class AstView : public QGraphicsView {
    Q_OBJECT
public:
    explicit AstView(ascviz::AstView kind, QWidget* parent = nullptr);
    ascviz::AstView kind() const { return m_kind; }

    void setAnalysis(AnalysisPtr a);
    AnalysisPtr analysis() const { return m_analysis; }
    // Items of the shown nodes, one per visible node.
    QList<AstNodeItem*> nodeItems() const;
    AstNodeItem* itemForNode(int node) const { return m_items.value(node, nullptr); }

    void setHighlightedNodes(const QVector<int>& nodes);
    QVector<int> highlightedNodes() const { return m_highlighted; }
    void centerOnNode(int node);

    double zoom() const { return transform().m11(); }

    // --- large trees (astfolding.cpp)
    // Folded nodes: their descendants are not drawn, their label ends in "…(n)". Laid out again on the GUI
    // thread (Graphviz up to LayoutOptions::maxGraphvizNodes shown nodes, milliseconds for a folded tree).
    void setCollapsed(int node, bool collapsed);
    void toggleCollapsed(int node);
    bool isCollapsed(int node) const { return m_collapsed.contains(node); }
    QVector<int> collapsedNodes() const { return m_collapsed; }
    void expandAll();
    // Non-terminals show their code text too (LayoutOptions::nodeText).
    void setShowCode(bool on);
    bool showsCode() const { return m_showCode; }
    // The path root → the first highlighted node: node types joined by " › ", each a link "#ID" (rich text);
    // "" without a highlighted node.
    QString breadcrumb() const;
    // The smallest zoom at which labels stay readable (Fit folds deeper levels rather than go below it).
    static constexpr double kLegibleZoom = 0.6;
    // The whole scene rendered at `scale` on white (for PNG export).
    QImage renderImage(double scale = 2.0);
    // What the view shows, as the options of core's layout (the exports draw it, docs/figures.md "as seen"): the
    // folded subtrees, code text, and the subtree of the nodes whose centre is in the viewport (their deepest
    // common ancestor that the view shows; none when every node is in view).
    LayoutOptions shownLayout() const;

public Q_SLOTS:
    void zoomIn();
    void zoomOut();
    // The whole tree in the view (the Fit button): both its width and its height, at any zoom.
    void zoomToFit();
    void resetZoom();
    // The whole tree in the view, scaled only (no folding): the study's trial area.
    void fitWhole();
    // The highlighted nodes (or the selection's subtree) fill the view, within readable bounds.
    void zoomToSelection();

Q_SIGNALS:
    void nodeClicked(int node); // -1: a click on the background
    void zoomChanged(double zoom);
    void breadcrumbChanged(const QString& html);
    void foldingChanged();
    // A node's context menu, "Export subtree…": that node and its descendants as the view folds them.
    void exportSubtreeRequested(int node);

protected:
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void contextMenuEvent(QContextMenuEvent* e) override;

private:
    void scaleBy(double f);
    void showMessage(const QString& text);
    // Draws `layout` of the current analysis (its own or one with folds), keeping the view when `keepView`.
    void buildScene(const GraphLayout& layout, bool keepView);
    // Lays the current analysis out with the folds and code text; the analysis's own layout when neither.
    void relayout(bool keepView);
    AstNodeItem* nodeAt(const QPoint& viewPos) const;
    // The deepest node drawn whose subtree holds all of `of` (-1: none).
    int commonAncestor(const QVector<int>& of) const;
    QVector<int> m_collapsed;
    bool m_showCode = false;
    // The node Selection zoomed to (its subtree fills the view), until the zoom changes otherwise: shownLayout's
    // subtree while that node is still in view.
    int m_viewRoot = -1;

    ascviz::AstView m_kind;
    AnalysisPtr m_analysis;
    QGraphicsScene* m_scene;
    QHash<int, AstNodeItem*> m_items;
    QVector<int> m_highlighted;
    QPoint m_pressPos;
    enum class AutoZoom { None, Readable, Whole };
    void applyAutoZoom();
    AutoZoom m_autoZoom = AutoZoom::Readable; // re-applied on resize until the user zooms by hand
};

} // namespace ascviz::ui
