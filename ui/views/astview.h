// AST views (paper S2 partial / S3 complete): the Graphviz layout computed by core (layoutAst), drawn
// in a QGraphicsScene. Nodes are coloured by AsC-Eval (grey n/a), ERROR/MISSING nodes get a dashed
// dark-red frame and a warning badge. Zoom: Ctrl+wheel, buttons, fit; pan: drag.
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
    QColor fillColor() const { return brush().color(); }
    void setHighlighted(bool on);
    bool isHighlighted() const { return m_highlighted; }
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    void updatePen();
    int m_node;
    QString m_label;
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
    // The whole scene rendered at `scale` on white (for PNG export).
    QImage renderImage(double scale = 2.0);

public Q_SLOTS:
    void zoomIn();
    void zoomOut();
    // The whole tree in the view (the Fit button): both its width and its height, at any zoom.
    void zoomToFit();
    // What a new tree starts with: the whole tree when that stays readable, else the width within readable
    // bounds, showing the top.
    void zoomReadable();
    void resetZoom();

Q_SIGNALS:
    void nodeClicked(int node); // -1: a click on the background
    void zoomChanged(double zoom);

protected:
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    void scaleBy(double f);
    void showMessage(const QString& text);

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
