#include "views/prompteditor.h"

#include "common/textpos.h"

#include "ascviz/base/limits.h"

#include <algorithm>

#include <QKeyEvent>
#include <QMimeData>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QUrl>

namespace ascviz::ui {

PromptEditor::PromptEditor(QWidget* parent) : QPlainTextEdit(parent)
{
}

QString PromptEditor::refusal(qint64 bytes, qint64 maxBytes)
{
    return tr("This text would make the code %1, over the %2 the editor holds; nothing was inserted")
        .arg(toQString(limits::describeBytes(std::size_t(bytes))),
             toQString(limits::describeBytes(std::size_t(maxBytes))));
}

void PromptEditor::setIndentRules(const QStringList& after, const QString& unit)
{
    m_indentAfter = after;
    m_indentUnit = unit;
}

void PromptEditor::keyPressEvent(QKeyEvent* e)
{
    const bool enter = e->key() == Qt::Key_Return || e->key() == Qt::Key_Enter;
    if (!enter || (e->modifiers() & ~(Qt::KeypadModifier | Qt::ShiftModifier)) != Qt::NoModifier || isReadOnly()) {
        QPlainTextEdit::keyPressEvent(e);
        return;
    }
    QTextCursor c = textCursor();
    const QString line = c.block().text().left(c.positionInBlock());
    qsizetype n = 0;
    while (n < line.size() && (line[n] == QLatin1Char(' ') || line[n] == QLatin1Char('\t')))
        ++n;
    QString indent = line.left(n);
    const QString code = line.trimmed();
    for (const QString& opener : m_indentAfter)
        if (!opener.isEmpty() && code.endsWith(opener)) {
            indent += m_indentUnit;
            break;
        }
    c.beginEditBlock(); // one undo step
    c.insertText(QStringLiteral("\n") + indent);
    c.endEditBlock();
    setTextCursor(c);
    ensureCursorVisible();
    e->accept();
}

bool PromptEditor::canInsertFromMimeData(const QMimeData* source) const
{
    return source->hasUrls() || QPlainTextEdit::canInsertFromMimeData(source);
}

void PromptEditor::insertFromMimeData(const QMimeData* source)
{
    if (source->hasUrls()) {
        for (const QUrl& url : source->urls())
            if (url.isLocalFile()) {
                Q_EMIT fileDropped(url.toLocalFile()); // the page opens it within its file limit
                return;
            }
    }
    if (m_maxBytes > 0 && source->hasText()) {
        // Checked before QPlainTextEdit lays anything out. The text that stays is counted in characters (at
        // most its UTF-8 bytes, exact for ASCII): the editor holds at most maxBytes of it anyway.
        const QTextCursor c = textCursor();
        const qint64 kept =
            std::max<qint64>(0, document()->characterCount() - 1 - (c.selectionEnd() - c.selectionStart()));
        const qint64 after = kept + source->text().toUtf8().size();
        if (after > m_maxBytes) {
            Q_EMIT textRefused(refusal(after, m_maxBytes));
            return;
        }
    }
    QPlainTextEdit::insertFromMimeData(source);
}

} // namespace ascviz::ui
