// Sequence view (paper S1): the text with each token's background coloured by its NtP on the AsC scale;
// generated tokens bold and underlined; a hover tooltip with the token's text, id, NtP, CE and top-5
// alternatives; click a token to select it; tokens of a selected AST node are framed.
#pragma once
#include "common/analysis.h"

#include <QImage>
#include <QTextEdit>
#include <QVector>

#include <cstddef>
#include <vector>

namespace ascviz::ui {

// A background colour over a byte span [start, end) of the shown text (core's UTF-8 offsets).
struct SpanColour {
    std::size_t start = 0, end = 0;
    QColor color;
};

class SequenceView : public QTextEdit {
    Q_OBJECT
public:
    explicit SequenceView(QWidget* parent = nullptr);

    // Shows a result (null clears the view).
    void setAnalysis(AnalysisPtr a);
    AnalysisPtr analysis() const { return m_analysis; }
    // Streaming mode: the prompt, then generated pieces as they arrive (not yet scored).
    void beginStreaming(const QString& prompt);
    void appendStreamed(const QString& piece);
    void showPlaceholder(const QString& message);

    // One span per token of the shown result, as [start, end) positions in the document.
    int tokenCount() const { return int(m_spans.size()); }
    QPair<int, int> tokenSpan(int token) const { return m_spans.at(token); }
    // Token under a document position (-1 for none).
    int tokenAtPosition(int pos) const;
    QString tokenToolTip(int token) const;

    void setHighlightedTokens(const QVector<int>& tokens);
    QVector<int> highlightedTokens() const { return m_highlighted; }
    // Scrolls so that the first highlighted token is visible.
    void ensureHighlightVisible();

    // A second colouring over the token colours (the attribution of prompt nodes): every character on `base`,
    // then each span in order (a later span wins where spans overlap); generated tokens stay bold. Cleared by
    // clearOverlay (the NtP colours again) and by setAnalysis.
    void setOverlay(const QColor& base, const std::vector<SpanColour>& spans);
    void clearOverlay();
    bool hasOverlay() const { return m_overlay; }
    // The background of the character at document position `pos` (invalid past the text).
    QColor backgroundAt(int pos) const;

    // The whole text (not only the visible part) rendered at `scale`, on white.
    QImage renderImage(double scale = 2.0) const;

Q_SIGNALS:
    void tokenClicked(int token); // -1: a click outside any token

protected:
    bool event(QEvent* e) override;
    void paintEvent(QPaintEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;

private:
    int hitTest(const QPoint& viewportPos) const;
    void applyLineSpacing();
    QVector<QRect> spanRects(int start, int end) const;
    void colourTokens();

    AnalysisPtr m_analysis;
    QVector<QPair<int, int>> m_spans;
    QVector<int> m_tokenAt; // document position -> token (last one wins where byte-split tokens share a char)
    QVector<int> m_highlighted;
    QPoint m_pressPos;
    bool m_streaming = false;
    bool m_overlay = false;
};

} // namespace ascviz::ui
