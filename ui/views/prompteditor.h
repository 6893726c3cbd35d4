// The code editor of the Interactive and Heads pages: a QPlainTextEdit that refuses text it could not take without
// holding the GUI thread for seconds (docs/limits.md: inserting 5 MB held it ~3 s inside QPlainTextEdit's own layout).
// A paste or drop that would make the text longer than maxBytes() is refused whole, with textRefused(message);
// a dropped local file goes to fileDropped(path), for the page to open within its file limit. Enter starts the
// new line with the current line's indentation (its leading spaces and tabs before the cursor), one unit deeper
// after a line whose code ends with a block opener of the language (setIndentRules: the registry's
// indent_after, ":" for Python).
#pragma once
#include <QPlainTextEdit>
#include <QStringList>

namespace ascviz::ui {

class PromptEditor : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit PromptEditor(QWidget* parent = nullptr);
    // The most UTF-8 bytes the editor holds after a paste or drop (0 = no limit).
    void setMaxBytes(qint64 bytes) { m_maxBytes = bytes; }
    qint64 maxBytes() const { return m_maxBytes; }
    // "This text would make the code 5.2 MB (5,242,880 bytes), over the 524,288 bytes the editor holds; …".
    static QString refusal(qint64 bytes, qint64 maxBytes);
    // Line endings that open a block (trailing spaces ignored) and the indentation of one level.
    void setIndentRules(const QStringList& after, const QString& unit);

Q_SIGNALS:
    void textRefused(const QString& message);
    void fileDropped(const QString& path);

protected:
    void keyPressEvent(QKeyEvent* e) override;
    bool canInsertFromMimeData(const QMimeData* source) const override;
    void insertFromMimeData(const QMimeData* source) override;

private:
    qint64 m_maxBytes = 0;
    QStringList m_indentAfter;
    QString m_indentUnit = QStringLiteral("    ");
};

} // namespace ascviz::ui
