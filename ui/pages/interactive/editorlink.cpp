// The Interactive page's editor and views, linked both ways (tree-sitter-playground style): moving the editor's
// cursor selects its token in the sequence view and its node in the AST views; selecting a token or node in a
// view marks its text in the editor. Also the page's document (the file or session in the editor, modified or
// not: the window's title) and editing a generated completion in place.
#include "pages/interactive/interactivepage.h"

#include "common/textpos.h"
#include "pages/interactive/interactiveengine.h"
#include "views/astview.h"
#include "views/prompteditor.h"
#include "views/sequenceview.h"

#include <QLabel>
#include <QPushButton>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>

#include <algorithm>

namespace ascviz::ui {

namespace {

const QColor kEditorMark(0xFF, 0xE0, 0x8A); // the selected token's / node's text in the editor

// The token whose bytes hold `byte` (or that ends at it: the cursor right after a token), -1 when none.
int tokenAt(const ScoredText& s, std::size_t byte)
{
    const auto it = std::upper_bound(s.tokens.begin(), s.tokens.end(), byte,
                                     [](std::size_t b, const ScoredToken& t) { return b < t.start; });
    if (it == s.tokens.begin())
        return -1;
    const auto k = std::size_t(it - s.tokens.begin()) - 1;
    const ScoredToken& t = s.tokens[k];
    return byte < t.end || (byte == t.end && t.end > t.start) ? int(k) : -1;
}

// The innermost node whose span holds `byte` (the root when only it does), -1 for an empty tree.
int nodeAt(const SyntaxTree& tree, std::size_t byte)
{
    const auto& nodes = tree.nodes();
    if (nodes.empty())
        return -1;
    int n = 0;
    for (bool deeper = true; deeper;) {
        deeper = false;
        for (int c : nodes[std::size_t(n)].children) {
            const AstNode& child = nodes[std::size_t(c)];
            if (child.start <= byte && (byte < child.end || (byte == child.end && child.end > child.start))) {
                n = c;
                deeper = true;
                break;
            }
        }
    }
    return n;
}

} // namespace

void InteractivePage::linkEditor()
{
    connect(m_editor, &QPlainTextEdit::cursorPositionChanged, this, &InteractivePage::onEditorCursorMoved);
    connect(m_editor, &QPlainTextEdit::textChanged, this, &InteractivePage::onEditorEdited);
}

const TextPositions* InteractivePage::editorShowsResult() const
{
    if (!shown() || !shown()->eval)
        return nullptr;
    if (!m_link.positions || m_link.positions->first != shown()) { // once per result and edit, not per cursor move
        auto pos = std::make_shared<TextPositions>(shown()->eval->scored.text);
        const bool same = pos->text() == m_editor->toPlainText();
        m_link.positions = std::make_shared<std::pair<AnalysisPtr, std::shared_ptr<TextPositions>>>(
            shown(), same ? std::move(pos) : nullptr);
    }
    return m_link.positions->second.get();
}

void InteractivePage::onEditorEdited()
{
    m_link.positions.reset();         // the editor's text changed: compare again
    m_link.codeColours.clear();       // nor would the colours
    m_editor->setExtraSelections({}); // a mark would no longer sit on its text
    // Only the user's edits count (setPlainText, wherever the page calls it, leaves the document unmodified).
    if (m_link.settingText || m_document.modified || !m_editor->document()->isModified())
        return;
    m_document.modified = true;
    if (m_host)
        m_host->documentChanged();
}

void InteractivePage::setDocument(const QString& path, bool resultSaved) const
{
    m_document.path = path;
    m_document.modified = false;
    if (resultSaved)
        m_document.resultUnsaved = false;
    if (m_host)
        m_host->documentChanged(path);
}

void InteractivePage::onEditorCursorMoved()
{
    if (m_link.syncing || !shown() || !shown()->eval)
        return;
    const ScoredText& s = shown()->eval->scored;
    const TextPositions* pos = editorShowsResult();
    if (!pos)
        return; // the editor no longer holds the shown text
    const std::size_t byte = pos->toByte(m_editor->textCursor().position());
    const int token = tokenAt(s, byte);
    const int node = nodeAt(shown()->eval->tree, byte);
    m_link.syncing = true; // the selection came from the editor: leave its cursor where it is
    if (token >= 0)
        selectToken(token);
    else
        clearSelection();
    m_link.syncing = false;
    // Playground style: the innermost node at the cursor (its nearest shown ancestor in the partial view).
    m_link.cursorNode = node;
    if (node < 0)
        return;
    int partial = node;
    const auto& nodes = shown()->eval->tree.nodes();
    while (partial >= 0 && !m_partial->itemForNode(partial))
        partial = nodes[std::size_t(partial)].parent;
    m_complete->setHighlightedNodes({node});
    m_complete->centerOnNode(node);
    m_partial->setHighlightedNodes(partial >= 0 ? QVector<int>{partial} : QVector<int>{});
    if (partial >= 0)
        m_partial->centerOnNode(partial);
}

void InteractivePage::setCodeColours(std::vector<SpanColour> spans)
{
    m_link.codeColours = std::move(spans);
    showSelectionInEditor();
}

QList<QTextEdit::ExtraSelection> InteractivePage::codeColourSelections() const
{
    QList<QTextEdit::ExtraSelection> out;
    if (m_link.codeColours.empty() || !shown() || !shown()->eval)
        return out;
    // The editor's bytes are the shown text's where it holds the text or its beginning (the prompt).
    const std::string editor = toUtf8(m_editor->toPlainText());
    const std::string& shownText = shown()->eval->scored.text;
    if (editor.empty() || shownText.compare(0, editor.size(), editor) != 0)
        return out;
    const TextPositions pos(editor);
    for (const SpanColour& s : m_link.codeColours) {
        if (s.start >= editor.size() || s.end <= s.start)
            continue;
        QTextEdit::ExtraSelection sel;
        sel.format.setBackground(s.color);
        sel.format.setForeground(textColorOn(s.color));
        sel.cursor = QTextCursor(m_editor->document());
        sel.cursor.setPosition(pos.toQt(s.start));
        sel.cursor.setPosition(pos.toQt(std::min(s.end, editor.size())), QTextCursor::KeepAnchor);
        out << sel;
    }
    return out;
}

void InteractivePage::showSelectionInEditor()
{
    QList<QTextEdit::ExtraSelection> marks = codeColourSelections();
    std::size_t from = 0, to = 0;
    if (shown() && shown()->eval) {
        const EvalResult& r = *shown()->eval;
        if (selectedNode() >= 0) {
            const AstNode& n = r.tree.nodes()[std::size_t(selectedNode())];
            std::tie(from, to) = std::pair(n.start, n.end);
        } else if (selectedToken() >= 0) {
            const ScoredToken& t = r.scored.tokens[std::size_t(selectedToken())];
            std::tie(from, to) = std::pair(t.start, t.end);
        }
    }
    const TextPositions* positions = to > from ? editorShowsResult() : nullptr;
    if (!positions) {
        m_editor->setExtraSelections(marks);
        return;
    }
    const TextPositions& pos = *positions;
    QTextEdit::ExtraSelection mark;
    mark.format.setBackground(kEditorMark);
    mark.cursor = QTextCursor(m_editor->document());
    mark.cursor.setPosition(pos.toQt(from));
    mark.cursor.setPosition(pos.toQt(to), QTextCursor::KeepAnchor);
    marks << mark;
    m_editor->setExtraSelections(marks);
    if (!m_link.syncing) { // a selection made in a view: bring its text into sight
        m_link.syncing = true;
        QTextCursor c = m_editor->textCursor();
        c.setPosition(pos.toQt(from));
        m_editor->setTextCursor(c);
        m_editor->ensureCursorVisible();
        m_link.syncing = false;
    }
}

void InteractivePage::editCompletion()
{
    if (!shown() || !shown()->eval || shown()->generatedTokens() == 0)
        return;
    const ScoredText& s = shown()->eval->scored;
    if (!setPrompt(toQString(s.text)))
        return;
    m_link.boundary = QTextCursor(m_editor->document());
    m_link.boundary->setPosition(TextPositions(s.text).toQt(s.promptBytes));
    // The cursor at the end of the completion, ready to edit it.
    QTextCursor c = m_editor->textCursor();
    c.movePosition(QTextCursor::End);
    m_editor->setTextCursor(c);
    m_editor->setFocus();
    m_status->setText(tr("Editing the completion: Score re-scores the edited text, the text before the prompt "
                         "boundary staying the prompt."));
}

qint64 InteractivePage::completionBoundary() const
{
    if (!m_link.boundary)
        return -1;
    return qint64(TextPositions(toUtf8(m_editor->toPlainText())).toByte(m_link.boundary->position()));
}

} // namespace ascviz::ui
