// A small Python syntax highlighter for the prompt editor: keywords, builtins, strings (incl. triple-quoted
// over several lines), comments, numbers, decorators and definitions.
#pragma once
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <QVector>

namespace ascviz::ui {

class PythonHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit PythonHighlighter(QTextDocument* doc);

protected:
    void highlightBlock(const QString& text) override;

private:
    struct Rule {
        QRegularExpression re;
        QTextCharFormat format;
        int group = 0;
    };
    QVector<Rule> m_rules;
    QTextCharFormat m_string;
    QTextCharFormat m_comment;
};

} // namespace ascviz::ui
