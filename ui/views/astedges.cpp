// Relation edges over an AST view as dashed curves (astedges.h).
#include "views/astedges.h"

#include "views/astview.h"

#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QPainterPath>
#include <QPen>

#include <cmath>

namespace ascviz::ui {
namespace {

constexpr int kOverlayKey = 0x41534345; // QGraphicsItem::data key marking overlay items
const char* const kOverlayTag = "ascviz-relation-edge";

QList<QGraphicsItem*> overlayItems(const AstView* view)
{
    QList<QGraphicsItem*> out;
    if (!view->scene())
        return out;
    for (QGraphicsItem* item : view->scene()->items())
        if (item->data(kOverlayKey).toString() == QLatin1String(kOverlayTag))
            out << item;
    return out;
}

} // namespace

AstEdgeOverlay::AstEdgeOverlay(AstView* view, QColor colour) : m_view(view), m_colour(colour)
{
}

void AstEdgeOverlay::setEdges(const QVector<QPair<int, int>>& edges)
{
    for (QGraphicsItem* item : overlayItems(m_view)) {
        m_view->scene()->removeItem(item);
        delete item;
    }
    if (!m_view->scene())
        return;
    QPen pen(m_colour, 2.0, Qt::DashLine);
    pen.setCosmetic(true);
    for (const auto& [head, dependent] : edges) {
        const AstNodeItem* a = m_view->itemForNode(head);
        const AstNodeItem* b = m_view->itemForNode(dependent);
        if (!a || !b || a == b)
            continue;
        const QPointF p = a->sceneBoundingRect().center(), q = b->sceneBoundingRect().center();
        // A curve bowed to the side, so that edges between siblings on one row stay visible.
        const QPointF mid = (p + q) / 2, d = q - p;
        const double len = std::hypot(d.x(), d.y());
        QPointF normal = len > 0 ? QPointF(-d.y() / len, d.x() / len) : QPointF(0, -1);
        if (normal.y() > 0)
            normal = -normal; // bow upwards (towards the parent)
        const QPointF c = mid + normal * std::max(30.0, 0.35 * len);
        QPainterPath path(p);
        path.quadTo(c, q);
        // The arrow head at the dependent, along the curve's last tangent.
        const QPointF t = q - c;
        const double tl = std::hypot(t.x(), t.y());
        if (tl > 0) {
            const QPointF u = t / tl, n(-u.y(), u.x());
            path.moveTo(q - u * 10 + n * 5);
            path.lineTo(q);
            path.lineTo(q - u * 10 - n * 5);
        }
        auto* item = new QGraphicsPathItem(path);
        item->setPen(pen);
        item->setZValue(5);
        item->setData(kOverlayKey, QString::fromLatin1(kOverlayTag));
        item->setToolTip(QStringLiteral("relation edge #%1 → #%2").arg(head).arg(dependent));
        m_view->scene()->addItem(item);
    }
}

int AstEdgeOverlay::drawnEdges() const
{
    return static_cast<int>(overlayItems(m_view).size());
}

} // namespace ascviz::ui
