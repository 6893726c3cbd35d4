#include "views/astview.h"

#include "common/textpos.h"

#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QStyleOptionGraphicsItem>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace ascviz::ui {

namespace {

const QColor kBorder(0x55, 0x55, 0x55);
const QColor kErrorBorder(0xA0, 0x00, 0x00);
const QColor kHighlightBorder(0x11, 0x11, 0x11);
const QColor kEdge(0x8A, 0x8A, 0x8A);
constexpr double kMinAutoZoom = 0.6; // below this, start at a readable zoom at the root instead of fitting

QPainterPath edgePath(const LayoutEdge& e)
{
    QPainterPath path;
    const auto& pts = e.points;
    if (pts.empty())
        return path;
    path.moveTo(pts[0].first, pts[0].second);
    if (pts.size() >= 4 && (pts.size() - 1) % 3 == 0) {
        for (std::size_t i = 1; i + 2 < pts.size(); i += 3)
            path.cubicTo(pts[i].first, pts[i].second, pts[i + 1].first, pts[i + 1].second, pts[i + 2].first,
                         pts[i + 2].second);
    } else {
        for (std::size_t i = 1; i < pts.size(); ++i)
            path.lineTo(pts[i].first, pts[i].second);
    }
    return path;
}

} // namespace

AstNodeItem::AstNodeItem(int node, const LayoutNode& layout, const QString& label, const QColor& fill, bool error,
                         bool terminal)
    : m_node(node), m_label(label), m_ownLabel(label), m_error(error)
{
    const QRectF r(-layout.width / 2, -layout.height / 2, layout.width, layout.height);
    QPainterPath path;
    const double radius = terminal ? std::min(r.height() / 2, 10.0) : 4.0;
    path.addRoundedRect(r, radius, radius);
    setPath(path);
    setPos(layout.x, layout.y);
    setBrush(fill);
    setToolTip(label);
    setAcceptHoverEvents(true);
    setCursor(Qt::PointingHandCursor);

    // Font sized to fit the box Graphviz made for the label.
    const QStringList lines = label.split(QLatin1Char('\n'));
    m_font = QFont(QStringLiteral("DejaVu Sans"));
    double px = 11.0;
    for (; px > 4.0; px -= 0.5) {
        m_font.setPixelSize(int(std::round(px)));
        m_font.setPixelSize(std::max(1, int(px)));
        QFontMetricsF fm(m_font);
        double w = 0;
        for (const auto& l : lines)
            w = std::max(w, fm.horizontalAdvance(l));
        if (w <= r.width() - 6 && fm.lineSpacing() * lines.size() <= r.height() - 2)
            break;
    }
    updatePen();
}

void AstNodeItem::setValueText(const QString& text)
{
    QStringList lines = m_ownLabel.split(QLatin1Char('\n'));
    qsizetype value = lines.size() - 1; // the last line, or the one before a folded node's "…(n)"
    if (value > 0 && lines[value].startsWith(QChar(0x2026)))
        --value;
    if (!text.isEmpty() && value >= 1)
        lines[value] = text;
    m_label = lines.join(QLatin1Char('\n'));
    update();
}

void AstNodeItem::updatePen()
{
    QPen pen;
    if (m_highlighted) {
        pen = QPen(kHighlightBorder, 3.0);
    } else if (m_error) {
        pen = QPen(kErrorBorder, 2.0, Qt::DashLine);
    } else {
        pen = QPen(kBorder, 0.8);
    }
    pen.setCosmetic(false);
    setPen(pen);
    setZValue(m_highlighted ? 2 : 1);
    update();
}

void AstNodeItem::setHighlighted(bool on)
{
    if (on == m_highlighted)
        return;
    m_highlighted = on;
    updatePen();
}

void AstNodeItem::paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*)
{
    p->setRenderHint(QPainter::Antialiasing);
    p->setPen(pen());
    p->setBrush(brush());
    p->drawPath(path());
    if (m_error && m_highlighted) { // keep the error mark visible under the highlight frame
        p->setPen(QPen(kErrorBorder, 1.5, Qt::DashLine));
        p->setBrush(Qt::NoBrush);
        p->drawPath(path());
    }

    p->setFont(m_font);
    p->setPen(textColorOn(brush().color()));
    p->drawText(path().boundingRect(), Qt::AlignCenter, m_label);

    if (m_error) { // warning badge at the top-right corner
        const QRectF r = path().boundingRect();
        const QPointF c(r.right() - 1, r.top() + 1);
        QPolygonF tri;
        tri << QPointF(c.x(), c.y() - 7) << QPointF(c.x() - 7, c.y() + 5) << QPointF(c.x() + 7, c.y() + 5);
        p->setPen(QPen(Qt::white, 1.0));
        p->setBrush(kErrorBorder);
        p->drawPolygon(tri);
        QFont f = m_font;
        f.setPixelSize(8);
        f.setBold(true);
        p->setFont(f);
        p->setPen(Qt::white);
        p->drawText(QRectF(c.x() - 7, c.y() - 5, 14, 10), Qt::AlignCenter, QStringLiteral("!"));
    }
}

AstView::AstView(ascviz::AstView kind, QWidget* parent)
    : QGraphicsView(parent), m_kind(kind), m_scene(new QGraphicsScene(this))
{
    setScene(m_scene);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setBackgroundBrush(Qt::white);
    setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    setViewportUpdateMode(QGraphicsView::BoundingRectViewportUpdate);
    showMessage(tr("The AST appears here after generating or scoring."));
}

void AstView::showMessage(const QString& text)
{
    m_scene->clear();
    m_items.clear();
    auto* t = m_scene->addSimpleText(text);
    t->setBrush(QColor(0x77, 0x77, 0x77));
    m_scene->setSceneRect(t->boundingRect().adjusted(-20, -20, 20, 20));
    resetTransform();
}

void AstView::setAnalysis(AnalysisPtr a)
{
    const bool sameTree =
        m_analysis && a && m_analysis->eval && a->eval && m_analysis->eval->scored.text == a->eval->scored.text;
    m_analysis = a;
    m_highlighted.clear();
    m_viewRoot = -1;
    if (!sameTree)
        m_collapsed.clear(); // folds belong to one tree
    if (!a || !a->eval) {
        showMessage(tr("The AST appears here after generating or scoring."));
        Q_EMIT breadcrumbChanged(QString());
        return;
    }
    if (!sameTree)
        m_autoZoom = AutoZoom::Readable;
    relayout(sameTree);
    Q_EMIT breadcrumbChanged(breadcrumb());
}

void AstView::buildScene(const GraphLayout& layout, bool keepView)
{
    const QTransform keepTransform = transform();
    const QPointF keepCentre = mapToScene(viewport()->rect().center());
    m_scene->clear();
    m_items.clear();
    const EvalResult& r = *m_analysis->eval;
    for (const LayoutEdge& e : layout.edges) {
        auto* item = m_scene->addPath(edgePath(e), QPen(kEdge, 1.1));
        item->setZValue(0);
    }
    for (const LayoutNode& n : layout.nodes) {
        if (n.node < 0 || std::size_t(n.node) >= r.tree.nodes().size())
            continue;
        const AstNode& an = r.tree.nodes()[std::size_t(n.node)];
        const auto value = std::size_t(n.node) < r.nodes.size() ? r.nodes[std::size_t(n.node)].value : std::nullopt;
        auto* item = new AstNodeItem(n.node, n, toQString(n.label), ascQColor(value), an.error(), an.isTerminal());
        m_scene->addItem(item);
        m_items.insert(n.node, item);
    }
    m_scene->setSceneRect(QRectF(0, 0, layout.width, layout.height).adjusted(-16, -16, 16, 16));
    for (int n : std::as_const(m_highlighted))
        if (auto* it = itemForNode(n))
            it->setHighlighted(true);
    if (keepView && m_autoZoom == AutoZoom::None) {
        setTransform(keepTransform);
        centerOn(keepCentre);
    } else {
        applyAutoZoom();
    }
}

QList<AstNodeItem*> AstView::nodeItems() const
{
    QList<AstNodeItem*> out;
    for (QGraphicsItem* i : m_scene->items())
        if (i->type() == AstNodeItem::Type)
            out.push_back(static_cast<AstNodeItem*>(i));
    return out;
}

void AstView::setHighlightedNodes(const QVector<int>& nodes)
{
    for (int n : std::as_const(m_highlighted))
        if (auto* it = itemForNode(n))
            it->setHighlighted(false);
    m_highlighted = nodes;
    for (int n : nodes)
        if (auto* it = itemForNode(n))
            it->setHighlighted(true);
    Q_EMIT breadcrumbChanged(breadcrumb());
}

void AstView::centerOnNode(int node)
{
    if (auto* it = itemForNode(node))
        ensureVisible(it, 40, 40);
}

void AstView::scaleBy(double f)
{
    const double z = zoom() * f;
    if (z < 0.02 || z > 20)
        return;
    m_autoZoom = AutoZoom::None;
    m_viewRoot = -1;
    scale(f, f);
    Q_EMIT zoomChanged(zoom());
}

void AstView::zoomIn()
{
    scaleBy(1.25);
}
void AstView::zoomOut()
{
    scaleBy(1 / 1.25);
}

void AstView::resetZoom()
{
    m_autoZoom = AutoZoom::None;
    m_viewRoot = -1;
    resetTransform();
    Q_EMIT zoomChanged(zoom());
}

void AstView::fitWhole()
{
    m_autoZoom = AutoZoom::Whole;
    m_viewRoot = -1;
    applyAutoZoom();
}

void AstView::applyAutoZoom()
{
    const QRectF rect = m_scene->sceneRect();
    if (m_autoZoom == AutoZoom::None || rect.isEmpty() || viewport()->width() < 10)
        return;
    resetTransform();
    const double sx = viewport()->width() / rect.width();
    const double sy = viewport()->height() / rect.height();
    double s = std::min({sx, sy, 1.6});
    if (m_autoZoom == AutoZoom::Readable && s < kMinAutoZoom && !m_items.isEmpty()) {
        // Fitting would make the labels unreadable: fit the width within readable bounds and show the top.
        s = std::clamp(sx, kMinAutoZoom, 1.0);
        scale(s, s);
        const double y = rect.top() + viewport()->height() / (2 * s);
        QGraphicsItem* root = m_items.value(0, nullptr);
        centerOn(QPointF(root && sx < kMinAutoZoom ? root->pos().x() : rect.center().x(), y));
    } else {
        scale(s, s);
        centerOn(rect.center());
    }
    Q_EMIT zoomChanged(zoom());
}

void AstView::wheelEvent(QWheelEvent* e)
{
    if (e->modifiers() & Qt::ControlModifier) {
        const double steps = e->angleDelta().y() / 120.0;
        scaleBy(std::pow(1.15, steps));
        e->accept();
        return;
    }
    QGraphicsView::wheelEvent(e);
}

void AstView::mousePressEvent(QMouseEvent* e)
{
    m_pressPos = e->position().toPoint();
    QGraphicsView::mousePressEvent(e);
}

void AstView::mouseReleaseEvent(QMouseEvent* e)
{
    QGraphicsView::mouseReleaseEvent(e);
    if (e->button() != Qt::LeftButton || (e->position().toPoint() - m_pressPos).manhattanLength() > 4)
        return; // a drag (pan), not a click
    for (QGraphicsItem* i : items(e->position().toPoint())) {
        if (i->type() == AstNodeItem::Type) {
            Q_EMIT nodeClicked(static_cast<AstNodeItem*>(i)->node());
            return;
        }
    }
    if (m_analysis)
        Q_EMIT nodeClicked(-1);
}

void AstView::resizeEvent(QResizeEvent* e)
{
    QGraphicsView::resizeEvent(e);
    if (!m_items.isEmpty())
        applyAutoZoom();
}

QImage AstView::renderImage(double scale)
{
    const QRectF rect = m_scene->sceneRect();
    QImage img(QSize(int(std::ceil(rect.width() * scale)), int(std::ceil(rect.height() * scale))),
               QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    QPainter p(&img);
    p.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    m_scene->render(&p, QRectF(img.rect()), rect);
    return img;
}

} // namespace ascviz::ui
