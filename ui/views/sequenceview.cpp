#include "views/sequenceview.h"

#include "common/textpos.h"

#include "ascviz/render/svg.h"

#include <QAbstractTextDocumentLayout>
#include <QFontDatabase>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <memory>

namespace ascviz::ui {

namespace {

QFont monoFont()
{
    QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    f.setPointSizeF(std::max(10.0, f.pointSizeF()));
    return f;
}

const QColor kHighlight(0x11, 0x11, 0x11);

} // namespace

SequenceView::SequenceView(QWidget* parent) : QTextEdit(parent)
{
    setReadOnly(true);
    setUndoRedoEnabled(false);
    setLineWrapMode(QTextEdit::NoWrap);
    setFont(monoFont());
    document()->setDefaultFont(monoFont());
    document()->setDocumentMargin(8);
    viewport()->setMouseTracking(true);
    viewport()->setCursor(Qt::ArrowCursor);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    showPlaceholder(tr("Generate or score code to see each token coloured by its next-token probability."));
}

void SequenceView::showPlaceholder(const QString& message)
{
    m_analysis.reset();
    m_overlay = false;
    m_spans.clear();
    m_tokenAt.clear();
    m_highlighted.clear();
    m_streaming = false;
    clear();
    setPlaceholderText(message);
}

void SequenceView::beginStreaming(const QString& prompt)
{
    showPlaceholder(QString());
    m_streaming = true;
    QTextCursor c(document());
    QTextCharFormat f;
    f.setForeground(QColor(0x55, 0x55, 0x55));
    c.insertText(prompt, f);
    applyLineSpacing();
}

void SequenceView::applyLineSpacing()
{
    // A little air between lines so that the token backgrounds of neighbouring lines do not touch.
    QTextCursor all(document());
    all.select(QTextCursor::Document);
    QTextBlockFormat bf;
    bf.setLineHeight(135, QTextBlockFormat::ProportionalHeight);
    all.mergeBlockFormat(bf);
}

void SequenceView::appendStreamed(const QString& piece)
{
    if (!m_streaming || piece.isEmpty())
        return;
    QTextCursor c(document());
    c.movePosition(QTextCursor::End);
    QTextCharFormat f;
    f.setFontWeight(QFont::Bold);
    f.setFontUnderline(true);
    f.setBackground(QColor(0xEE, 0xEE, 0xEE));
    c.insertText(piece, f);
    verticalScrollBar()->setValue(verticalScrollBar()->maximum());
}

void SequenceView::setAnalysis(AnalysisPtr a)
{
    const int vscroll = verticalScrollBar()->value();
    const bool sameText =
        m_analysis && a && m_analysis->eval && a->eval && m_analysis->eval->scored.text == a->eval->scored.text;
    showPlaceholder(tr("Generate or score code to see each token coloured by its next-token probability."));
    m_analysis = a;
    if (!a || !a->eval)
        return;
    const ScoredText& s = a->eval->scored;
    const TextPositions pos(s.text);
    const QString& text = pos.text();
    setPlainText(text);
    applyLineSpacing();

    m_tokenAt = QVector<int>(text.size() + 1, -1);
    m_spans.reserve(qsizetype(s.tokens.size()));
    for (std::size_t i = 0; i < s.tokens.size(); ++i) {
        const ScoredToken& t = s.tokens[i];
        int qs = pos.toQt(t.start);
        int qe = pos.toQt(t.end);
        if (qe <= qs && t.end > t.start && qs < text.size()) // a token inside one character (split UTF-8)
            qe = qs + (text.at(qs).isHighSurrogate() ? 2 : 1);
        qe = std::min<int>(qe, int(text.size()));
        m_spans.push_back({qs, qe});
        for (int p = qs; p < qe; ++p)
            m_tokenAt[p] = int(i);
    }
    colourTokens();
    if (sameText)
        verticalScrollBar()->setValue(vscroll);
}

void SequenceView::colourTokens()
{
    const ScoredText& s = m_analysis->eval->scored;
    QTextCursor c(document());
    c.beginEditBlock();
    if (m_overlay) { // characters outside every token too (none, unless the tokens leave a gap)
        c.select(QTextCursor::Document);
        c.setCharFormat(QTextCharFormat());
    }
    for (std::size_t i = 0; i < s.tokens.size() && i < std::size_t(m_spans.size()); ++i) {
        const ScoredToken& t = s.tokens[i];
        QTextCharFormat f;
        // Whitespace-only tokens (indentation, line breaks) faint, as the figures draw them (render/svg.h):
        // full-strength indentation reads as large saturated bars that say nothing about the code.
        QColor bg = ascQColor(t.ntp);
        if (isWhitespaceToken(s, i))
            if (const auto faint = tokenFill(s, i, WhitespaceTokens::Faint))
                bg = QColor(faint->r, faint->g, faint->b);
        f.setBackground(bg);
        f.setForeground(textColorOn(bg));
        if (t.generated) {
            f.setFontWeight(QFont::Bold);
            f.setFontUnderline(true);
        }
        c.setPosition(m_spans[qsizetype(i)].first);
        c.setPosition(m_spans[qsizetype(i)].second, QTextCursor::KeepAnchor);
        c.setCharFormat(f);
    }
    c.endEditBlock();
    m_overlay = false;
}

void SequenceView::setOverlay(const QColor& base, const std::vector<SpanColour>& spans)
{
    if (!m_analysis || !m_analysis->eval)
        return;
    const TextPositions pos(m_analysis->eval->scored.text);
    const int length = int(pos.text().size());
    QTextCursor c(document());
    c.beginEditBlock();
    auto paint = [&c](int from, int to, const QColor& bg) {
        QTextCharFormat f; // merged: the generated tokens' bold and underline stay
        f.setBackground(bg);
        f.setForeground(textColorOn(bg));
        c.setPosition(from);
        c.setPosition(to, QTextCursor::KeepAnchor);
        c.mergeCharFormat(f);
    };
    paint(0, length, base);
    for (const SpanColour& s : spans) {
        const int from = pos.toQt(s.start), to = std::min(pos.toQt(s.end), length);
        if (to > from)
            paint(from, to, s.color);
    }
    c.endEditBlock();
    m_overlay = true;
}

void SequenceView::clearOverlay()
{
    if (m_overlay && m_analysis && m_analysis->eval)
        colourTokens();
}

QColor SequenceView::backgroundAt(int pos) const
{
    const QTextBlock b = document()->findBlock(pos);
    for (auto it = b.begin(); b.isValid() && !it.atEnd(); ++it) {
        const QTextFragment f = it.fragment();
        if (f.position() <= pos && pos < f.position() + f.length())
            return f.charFormat().background().color();
    }
    return {};
}

int SequenceView::tokenAtPosition(int pos) const
{
    if (pos < 0 || pos >= m_tokenAt.size())
        return -1;
    return m_tokenAt[pos];
}

QString SequenceView::tokenToolTip(int token) const
{
    if (!m_analysis || !m_analysis->eval || token < 0 || token >= tokenCount())
        return {};
    const ScoredToken& t = m_analysis->eval->scored.tokens[std::size_t(token)];
    const auto span = m_spans[token];
    const QString text = toPlainText().mid(span.first, span.second - span.first);
    QString html = QStringLiteral("<table cellspacing='0' cellpadding='1'>");
    auto row = [&html](const QString& k, const QString& v) {
        html += QStringLiteral("<tr><td><b>%1</b>&nbsp;</td><td>%2</td></tr>").arg(k, v);
    };
    row(tr("token"), QStringLiteral("<code>%1</code>").arg(visibleTokenText(text).toHtmlEscaped()));
    row(tr("index"), QString::number(token));
    row(tr("id"), QString::number(t.id));
    row(tr("bytes"), QStringLiteral("%1–%2").arg(t.start).arg(t.end));
    row(tr("NtP"), formatValue(t.ntp));
    const auto ce = t.crossEntropy();
    row(tr("CE"), ce ? QString::number(*ce, 'f', 3) : QStringLiteral("n/a"));
    row(tr("source"), t.generated ? tr("generated") : tr("prompt"));
    html += QStringLiteral("</table>");
    if (!t.top.empty()) {
        html += QStringLiteral("<hr><b>%1</b><table cellspacing='0' cellpadding='1'>").arg(tr("top alternatives"));
        for (const auto& alt : t.top) {
            const bool actual = alt.id == t.id;
            html += QStringLiteral("<tr><td>%1<code>%2</code>%3&nbsp;</td><td align='right'>%4</td></tr>")
                        .arg(actual ? QStringLiteral("<b>") : QString(),
                             visibleTokenText(toQString(alt.text)).toHtmlEscaped(),
                             actual ? QStringLiteral("</b>") : QString(), QString::number(alt.prob, 'f', 3));
        }
        html += QStringLiteral("</table>");
    }
    return html;
}

void SequenceView::setHighlightedTokens(const QVector<int>& tokens)
{
    m_highlighted = tokens;
    viewport()->update();
}

void SequenceView::ensureHighlightVisible()
{
    if (m_highlighted.isEmpty())
        return;
    const int t = *std::min_element(m_highlighted.begin(), m_highlighted.end());
    if (t < 0 || t >= tokenCount())
        return;
    QTextCursor c(document());
    c.setPosition(m_spans[t].first);
    setTextCursor(c);
    ensureCursorVisible();
}

int SequenceView::hitTest(const QPoint& viewportPos) const
{
    const QPoint docPos = viewportPos + QPoint(horizontalScrollBar()->value(), verticalScrollBar()->value());
    const int p = document()->documentLayout()->hitTest(docPos, Qt::ExactHit);
    return tokenAtPosition(p);
}

QVector<QRect> SequenceView::spanRects(int start, int end) const
{
    QVector<QRect> out;
    const int charW = std::max(4, fontMetrics().horizontalAdvance(QLatin1Char('x')));
    QRect seg;
    for (int p = start; p < end; ++p) {
        QTextCursor c(document());
        c.setPosition(p);
        const QRect r0 = cursorRect(c);
        const QChar ch = document()->characterAt(p);
        int x1 = r0.left() + charW;
        if (ch != QChar::ParagraphSeparator && ch != QLatin1Char('\n') && p + 1 <= document()->characterCount()) {
            c.setPosition(p + 1);
            const QRect r1 = cursorRect(c);
            if (r1.top() == r0.top() && r1.left() > r0.left())
                x1 = r1.left();
        } else {
            x1 = r0.left() + charW / 2;
        }
        const QRect cr(QPoint(r0.left(), r0.top()), QPoint(x1, r0.bottom()));
        if (!seg.isNull() && seg.top() == cr.top())
            seg = seg.united(cr);
        else {
            if (!seg.isNull())
                out.push_back(seg);
            seg = cr;
        }
    }
    if (!seg.isNull())
        out.push_back(seg);
    return out;
}

void SequenceView::paintEvent(QPaintEvent* e)
{
    QTextEdit::paintEvent(e);
    QPainter p(viewport());
    if (!m_spans.isEmpty()) {
        // Token boundaries: a thin white gap where a token starts inside a line, so that neighbouring
        // tokens of similar colour stay distinguishable. Only the visible tokens are visited.
        const int first = cursorForPosition(QPoint(0, 0)).position();
        const int last = cursorForPosition(QPoint(viewport()->width(), viewport()->height())).position();
        auto it = std::lower_bound(m_spans.begin(), m_spans.end(), first,
                                   [](const QPair<int, int>& s, int pos) { return s.second <= pos; });
        p.setPen(QPen(QColor(255, 255, 255, 230), 1.0));
        for (; it != m_spans.end() && it->first <= last; ++it) {
            const int pos = it->first;
            if (pos == 0 || document()->characterAt(pos - 1) == QChar::ParagraphSeparator ||
                document()->characterAt(pos - 1) == QLatin1Char('\n'))
                continue;
            QTextCursor c(document());
            c.setPosition(pos);
            const QRect r = cursorRect(c);
            p.drawLine(QPointF(r.left() + 0.5, r.top() + 1), QPointF(r.left() + 0.5, r.bottom() - 1));
        }
    }
    if (m_highlighted.isEmpty())
        return;
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(kHighlight, 2.0));
    p.setBrush(Qt::NoBrush);
    // One frame per line run of highlighted tokens (a node's tokens are contiguous), not one per token.
    QVector<QRect> rects;
    for (int t : m_highlighted)
        if (t >= 0 && t < tokenCount())
            rects += spanRects(m_spans[t].first, m_spans[t].second);
    std::sort(rects.begin(), rects.end(), [](const QRect& a, const QRect& b) {
        return a.top() != b.top() ? a.top() < b.top() : a.left() < b.left();
    });
    QVector<QRect> merged;
    for (const QRect& r : std::as_const(rects)) {
        if (!merged.isEmpty() && merged.back().top() == r.top() && r.left() <= merged.back().right() + 2)
            merged.back() = merged.back().united(r);
        else
            merged.push_back(r);
    }
    for (const QRect& r : std::as_const(merged))
        p.drawRoundedRect(QRectF(r).adjusted(-1, -1, 1, 1), 2, 2);
}

bool SequenceView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const int t = hitTest(viewport()->mapFromGlobal(he->globalPos()));
        if (t >= 0)
            QToolTip::showText(he->globalPos(), tokenToolTip(t), viewport());
        else
            QToolTip::hideText();
        return true;
    }
    return QTextEdit::event(e);
}

void SequenceView::mousePressEvent(QMouseEvent* e)
{
    m_pressPos = e->position().toPoint();
    QTextEdit::mousePressEvent(e);
}

void SequenceView::mouseReleaseEvent(QMouseEvent* e)
{
    QTextEdit::mouseReleaseEvent(e);
    if (e->button() != Qt::LeftButton || !m_analysis)
        return;
    if ((e->position().toPoint() - m_pressPos).manhattanLength() > 4)
        return; // a text selection, not a click
    Q_EMIT tokenClicked(hitTest(e->position().toPoint()));
}

QImage SequenceView::renderImage(double scale) const
{
    std::unique_ptr<QTextDocument> doc(document()->clone());
    doc->setDefaultFont(document()->defaultFont());
    const QSizeF size = doc->size();
    QImage img(QSize(int(std::ceil(size.width() * scale)), int(std::ceil(size.height() * scale))),
               QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    p.scale(scale, scale);
    doc->drawContents(&p);
    return img;
}

} // namespace ascviz::ui
